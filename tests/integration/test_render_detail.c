/* The ground detail drivers judge speed from (issue 38): in the start views of the
 * rural and town scenarios at 1280x720, by day and clear, the share of pixels beside
 * the road whose brightness steps by more than 12/255 to the next pixel right or below
 * ("detail"), at the low and high presets, is at least 6 %. Beside the road: in each
 * row between the horizon and the bonnet, the pixels left of the road's left edge and
 * right of its right edge, the edges projected from the start road's geometry (its
 * outermost lanes, 5 to 250 m ahead). Flat-coloured grass and asphalt gave 2.6 to
 * 3.7 %; a photograph of a rural road several times that. */
#define W 1280
#define H 720
#include "render_picture.h"

#define DETAIL_MIN 0.06
#define STEP (12.0 / 255)

/* The start view of scenario (its first start point) at preset q, measured. */
static double detail_share(const char *scenario, const char *q)
{
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(ts_root(scenario), &sc, NULL), 0);
    assert_true(sc->n_starts > 0);
    const sim_start_point *st = &sc->starts[0];
    sim_pose pose = {.pos = {st->x, st->y, st->z + 0.52}, .heading = st->heading};
    char png[200], args[1024];
    snprintf(png, sizeof png, "%s-%s.png", tmp(q), strrchr(scenario, '/') + 1);
    snprintf(args, sizeof args, "--scenario %s --pose %.3f,%.3f,%.3f,%.4f --quality %s --light day --weather clear "
             "--no-hud", scenario, pose.pos[0], pose.pos[1], pose.pos[2], pose.heading * 180 / M_PI, q);
    render(png, args);
    image im;
    image_load(png, &im);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &pose);
    /* the road's edges, near to far: in the direction of travel along the start road */
    const sim_road *r = &sc->net.roads[st->road];
    sim_road_pose ref;
    sim_road_pose_at(&sc->net, st->road, st->s, 0, &ref);
    double dir = cos(st->heading - ref.heading) > 0 ? 1 : -1;
    int left[H], right[H], rows = 0, horizon, bonnet = -1;
    for (int y = 0; y < H; y++)
        left[y] = right[y] = -1;
    int hx, hy;
    assert_true(project(&c, pose.pos[0] + 5000 * cos(pose.heading), pose.pos[1] + 5000 * sin(pose.heading),
                        pose.pos[2] + 0.63, &hx, &hy));
    horizon = hy;
    /* the bonnet's middle (the sedan's, 1.47 m ahead of the centre, 0.84 m up) */
    int bx, by;
    assert_true(project(&c, pose.pos[0] + 1.47 * cos(pose.heading), pose.pos[1] + 1.47 * sin(pose.heading),
                        pose.pos[2] - 0.52 + 0.84, &bx, &by));
    int prev_l[2] = {-1, -1}, prev_r[2] = {-1, -1};
    for (double a = 5; a <= 250; a += 0.5) {
        double s = st->s + dir * a, wl, wr;
        if (s < 0 || s > r->length)
            break;
        sim_road_width(r, s, &wl, &wr);
        sim_road_pose pl, pr;
        sim_road_pose_at(&sc->net, st->road, s, dir > 0 ? wl : -wr, &pl);
        sim_road_pose_at(&sc->net, st->road, s, dir > 0 ? -wr : wl, &pr);
        int xl, yl, xr, yr;
        if (!project(&c, pl.x, pl.y, pl.z, &xl, &yl) || !project(&c, pr.x, pr.y, pr.z, &xr, &yr))
            continue;
        /* fill the rows between this sample and the previous one, linearly */
        int pts[2][2] = {{xl, yl}, {xr, yr}};
        int *edge[2] = {left, right}, *prev[2] = {prev_l, prev_r};
        for (int e = 0; e < 2; e++) {
            int x0 = prev[e][0] < 0 ? pts[e][0] : prev[e][0], y0 = prev[e][0] < 0 ? pts[e][1] : prev[e][1];
            int y1 = pts[e][1];
            for (int y = y1; y <= y0; y++)
                if (edge[e][y] < 0)
                    edge[e][y] = y0 == y1 ? x0 : x0 + (pts[e][0] - x0) * (y0 - y) / (y0 - y1);
            prev[e][0] = pts[e][0];
            prev[e][1] = pts[e][1];
        }
    }
    /* up the bonnet's paint from there to its top edge */
    const unsigned char *paint = pixel(&im, bx, by);
    for (bonnet = by; bonnet > horizon && diff(pixel(&im, bx, bonnet - 1), paint) < 24; bonnet--)
        ;
    long n = 0, detailed = 0;
    for (int y = horizon + 1; y < bonnet && y < H - 1; y++) {
        if (left[y] < 0 || right[y] < 0)
            continue;
        rows++;
        for (int x = 0; x < W - 1; x++) {
            if (x >= left[y] - 2 && x <= right[y] + 2)
                continue; /* the road and its edge line */
            double l0 = lum(pixel(&im, x, y)), lr = lum(pixel(&im, x + 1, y)), ld = lum(pixel(&im, x, y + 1));
            n++;
            detailed += fabs(lr - l0) > STEP || fabs(ld - l0) > STEP;
        }
    }
    double share = n ? (double)detailed / n : 0;
    printf("# %s %s: %.1f %% of %ld pixels beside the road (rows %d..%d, %d of them)\n", scenario, q, share * 100,
           n, horizon + 1, bonnet - 1, rows);
    assert_true(rows > 40 && n > 40000); /* the bands are found */
    free(im.px);
    sim_scenario_free(sc);
    return share;
}

static void rural_low(void **state) { (void)state; assert_true(detail_share("scenarios/rural.json", "low") >= DETAIL_MIN); }
static void rural_high(void **state) { (void)state; assert_true(detail_share("scenarios/rural.json", "high") >= DETAIL_MIN); }
static void town_low(void **state) { (void)state; assert_true(detail_share("scenarios/town.json", "low") >= DETAIL_MIN); }
static void town_high(void **state) { (void)state; assert_true(detail_share("scenarios/town.json", "high") >= DETAIL_MIN); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rural_low),
        cmocka_unit_test(rural_high),
        cmocka_unit_test(town_low),
        cmocka_unit_test(town_high),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
