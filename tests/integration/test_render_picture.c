/* Integration tests of render-node's pictures (offscreen, real OpenGL on Mesa): each
 * check is computed from the geometry (where the camera projects a road, a mark, a
 * car), not from golden images: sky above the horizon, road grey on the lanes, white
 * on solid marks and in the dashes of broken ones, grey in their gaps, a car where a
 * placed agent projects, the rear mirror showing a car behind on the correct side,
 * night darker than day, fog taking contrast away with distance, no cracks between
 * terrain LOD levels, and bad input answered with a message and an exit status. */
#include "render_picture.h"

static void day_sky_road_and_marks(void **state)
{
    (void)state;
    render(tmp("day.png"), LCT " --no-scenery"); /* trees reach above the horizon */
    image im;
    image_load(tmp("day.png"), &im);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    /* sky: 1 km ahead, 400 m up */
    const unsigned char *sky = at(&im, &c, 1020, -5.25, 400);
    assert_true(sky[2] > sky[0] + 25 && sky[2] > 150);
    /* a line of pixels above the horizon is sky everywhere across the screen */
    int hx, hy;
    assert_true(project(&c, 3000, -5.25, 1.15, &hx, &hy));
    for (int x = 0; x < W; x += 7) {
        const unsigned char *p = pixel(&im, x, hy - 12);
        assert_true(p[2] > p[0] + 20);
    }
    /* road grey in each lane ahead */
    assert_true(is_grey(at(&im, &c, 50, -5.25, 0.02)));
    assert_true(is_grey(at(&im, &c, 45, -8.75, 0.02)));
    assert_true(is_grey(at(&im, &c, 60, -1.75, 0.02)));
    /* the solid centre line and the solid outer edge line are white */
    assert_true(whitest(&im, &c, 45, 0, 0.03) > 0.75);
    assert_true(whitest(&im, &c, 40, -10.5, 0.03) > 0.75);
    /* the broken line between lanes -1 and -2: white in a dash (s 45..48), grey in the
     * gap (s 48..54) */
    assert_true(whitest(&im, &c, 46.5, -3.5, 0.03) > 0.75);
    assert_true(whitest(&im, &c, 51, -3.5, 0.03) < 0.5);
    /* grass beside the road is green */
    const unsigned char *g = at(&im, &c, 70, -25, 0);
    assert_true(g[1] > g[0] + 20 && g[1] > g[2] + 20);
    free(im.px);
}

static void write_traffic(const char *path, double x, double y, double heading)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"vehicles\":[{\"id\":\"a1\",\"pos\":[%g,%g,0],\"heading\":%g,\"size\":[4.5,1.8,1.45],"
               "\"velocity\":[0,0,0]}]}", x, y, heading);
    fclose(f);
}

/* Renders `base` twice into name.png and name0.png: with one car at (x, y) heading
 * along +x, and with the road empty. */
static void render_with_and_without(const char *base, double x, double y, const char *name, image *with,
                                    image *without)
{
    char args[600], file[64];
    snprintf(file, sizeof file, "%s.json", name);
    write_traffic(tmp(file), x, y, 0);
    snprintf(args, sizeof args, "%s --traffic %s", base, tmp(file));
    snprintf(file, sizeof file, "%s.png", name);
    render(tmp(file), args);
    image_load(tmp(file), with);
    write_traffic(tmp("none.json"), -5000, -5000, 0);
    snprintf(args, sizeof args, "%s --traffic %s", base, tmp("none.json"));
    snprintf(file, sizeof file, "%s0.png", name);
    render(tmp(file), args);
    image_load(tmp(file), without);
}

static void agent_drawn_where_it_projects(void **state)
{
    (void)state;
    image a, b;
    /* a car 25 m ahead in lane -1 */
    render_with_and_without(LCT, 45, -1.75, "car", &a, &b);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    /* its rear at body height, its cabin: changed from the empty road */
    assert_true(diff(at(&a, &c, 42.8, -1.75, 0.55), at(&b, &c, 42.8, -1.75, 0.55)) > 60);
    assert_true(diff(at(&a, &c, 43.5, -1.75, 1.2), at(&b, &c, 43.5, -1.75, 1.2)) > 60);
    /* lane -3 beside it is untouched */
    assert_true(diff(at(&a, &c, 45, -8.75, 0.02), at(&b, &c, 45, -8.75, 0.02)) < 12);
    free(a.px);
    free(b.px);
}

static void rear_mirror_shows_a_car_behind(void **state)
{
    (void)state;
    image a, b;
    /* the car at s = 100; another 40 m behind, one lane to the driver's left (lane -1) */
    render_with_and_without("--scenario scenarios/lane-change.json --pose 100,-5.25,0.52,0 --no-hud "
                            "--view rear-mirror", 60, -1.75, "mirror", &a, &b);
    sim_camera c;
    sim_pose p = lct_pose;
    p.pos[0] = 100;
    camera(&c, SIM_VIEW_REAR_MIRROR, &p);
    int px, py;
    /* the car's front at bonnet height (its paint above the dark grille of the car
     * models, which ends at 0.6 m) */
    assert_true(project(&c, 62.3, -1.75, 0.7, &px, &py));
    /* a mirror shows what is behind on the left on the left */
    assert_true(px < W / 2);
    assert_true(diff(pixel(&a, px, py), pixel(&b, px, py)) > 60);
    /* the mirror image of that place (right side) is unchanged */
    assert_true(diff(pixel(&a, W - 1 - px, py), pixel(&b, W - 1 - px, py)) < 12);
    free(a.px);
    free(b.px);
}

/* The chase view shows the ego car (red) from behind, where its body projects. */
static void chase_view_shows_the_car(void **state)
{
    (void)state;
    render(tmp("chase.png"), LCT " --view chase");
    image im;
    image_load(tmp("chase.png"), &im);
    sim_camera c;
    camera(&c, SIM_VIEW_CHASE, &lct_pose);
    /* the middle of its back, 0.6 m above the road (the body spans 0.28 to 0.88 m) */
    const unsigned char *p = at(&im, &c, 20 - 2.2, -5.25, 0.6);
    assert_true(p[0] > p[1] + 60 && p[0] > p[2] + 60);
    /* and the road beside it is grey */
    assert_true(is_grey(at(&im, &c, 20, -8.75, 0.02)));
    free(im.px);
}

static double mean_lum(const image *im, int rows)
{
    double s = 0;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < im->w; x++) s += lum(pixel(im, x, y));
    return s / (rows * (double)im->w);
}

static void night_darker_than_day(void **state)
{
    (void)state;
    render(tmp("d.png"), LCT " --light day");
    render(tmp("n.png"), LCT " --light night");
    render(tmp("k.png"), LCT " --light dusk");
    image d, n, k;
    image_load(tmp("d.png"), &d);
    image_load(tmp("n.png"), &n);
    image_load(tmp("k.png"), &k);
    /* above the cockpit */
    double ld = mean_lum(&d, H * 6 / 10), ln = mean_lum(&n, H * 6 / 10), lk = mean_lum(&k, H * 6 / 10);
    assert_true(ln < 0.25 * ld);
    assert_true(lk < ld && lk > ln);
    /* the headlights light the road just ahead at night more than beside the road */
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    assert_true(lum(at(&n, &c, 40, -5.25, 0.02)) > 2 * lum(at(&n, &c, 50, -20, 0)));
    free(d.px);
    free(n.px);
    free(k.px);
}

static double contrast(const image *im, const sim_camera *c, double x)
{
    /* road (lane -3) against grass at the same distance */
    return fabs(lum(at(im, c, x, -8.75, 0.02)) - lum(at(im, c, x, -25, 0)));
}

static void fog_lowers_contrast_with_distance(void **state)
{
    (void)state;
    /* the track with 200 m visibility */
    char *text = NULL;
    FILE *f = fopen(ts_root("scenarios/lane-change.json"), "r");
    assert_non_null(f);
    text = calloc(1, 1 << 20);
    size_t len = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[len] = 0;
    char *v = strstr(text, "\"visibility_m\": 10000");
    assert_non_null(v);
    memcpy(v, "\"visibility_m\":   200", strlen("\"visibility_m\": 10000"));
    f = fopen(tmp("foggy.json"), "w");
    fputs(text, f);
    fclose(f);
    free(text);
    char args[512];
    snprintf(args, sizeof args, "--scenario %s --pose 20,-5.25,0.52,0 --no-hud", tmp("foggy.json"));
    render(tmp("fog.png"), args);
    render(tmp("clear.png"), LCT);
    image fo, cl;
    image_load(tmp("fog.png"), &fo);
    image_load(tmp("clear.png"), &cl);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    double fog_ratio = contrast(&fo, &c, 170) / contrast(&fo, &c, 60);
    double clear_ratio = contrast(&cl, &c, 170) / contrast(&cl, &c, 60);
    /* exp(-3 * 150 / 200) / exp(-3 * 40 / 200) = 0.19 in fog; 0.97 at 10 km */
    assert_true(fog_ratio < 0.35);
    assert_true(clear_ratio > 0.7);
    free(fo.px);
    free(cl.px);
}

/* The Lane Change Test sign at s = 250 (target lane -1, the leftmost of three) seen
 * from 40 m in lane -2 at 1280x720: the arrow's column is bright, the other two columns
 * are the board's blue. */
static void lane_change_sign_legible_at_40_m(void **state)
{
    (void)state;
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(ts_root("scenarios/lane-change.json"), &sc, NULL), 0);
    const sim_sign *sg = &sc->net.roads[0].signs[1];
    assert_int_equal(sg->type, SIM_SIGN_LANE_CHANGE);
    assert_int_equal(sg->lane, -1);
    double s_sign = sg->s, d_sign = sg->d;
    sim_scenario_free(sc);
    char args[512];
    snprintf(args, sizeof args,
             "--scenario scenarios/lane-change.json --pose %g,-5.25,0.52,0 --no-hud --size 1280x720 --screenshot %s",
             s_sign - 40, tmp("lct.png"));
    char msg[4096];
    assert_int_equal(run_render(msg, sizeof msg, NULL, args), 0);
    image im;
    image_load(tmp("lct.png"), &im);
    sim_camera c;
    sim_pose pose = {.pos = {s_sign - 40, -5.25, 0.52}};
    sim_view_rig rig = {.eye = {-0.25, 0.37, 0.63}, .length = 4.47, .width = 1.74};
    sim_camera_params cp = {.view = SIM_VIEW_FRONT, .aspect = 1280.0 / 720, .z_near = 0.25, .z_far = 5000};
    sim_camera_setup(&c, &pose, &rig, &cp);
    /* the board: 2.0 x 1.5 m, bottom 1.6 m above the road, facing the driver (its left
     * edge at y = d + 1); three columns over its middle 94 %; at 35 % of its height
     * from the top the arrow's head is half its column wide, the other columns blue */
    double z = 1.6 + 1.5 * (1 - 0.35);
    double l[3];
    for (int k = 0; k < 3; k++) {
        double y = d_sign + 1.0 - (0.03 + (k + 0.5) * 0.94 / 3) * 2.0;
        double ndc[2];
        assert_true(sim_camera_project(&c, (double[3]){s_sign, y, z}, ndc));
        int px = (int)((ndc[0] + 1) / 2 * 1280), py = (int)((1 - ndc[1]) / 2 * 720);
        l[k] = lum(pixel(&im, px, py));
        if (k > 0) {
            const unsigned char *p = pixel(&im, px, py);
            assert_true(p[2] > p[0] + 40); /* blue */
        }
    }
    assert_true(l[0] > 2 * l[1] && l[0] > 2 * l[2]);
    free(im.px);
}

static int json_int(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    assert_true(cJSON_IsNumber(v));
    int r = v->valueint;
    cJSON_Delete(j);
    return r;
}

/* Rural terrain (x, y in [0, 2048], heights 100..130 m): seen from 110..150 m above
 * the ground looking down 40 to 45 degrees, every pixel's ray meets the terrain inside its
 * square, so a single background pixel would be a crack between LOD levels. */
static void no_cracks_between_lod_levels(void **state)
{
    (void)state;
    const char *poses[] = {"700,700,250,45,40", "1400,500,240,120,45", "500,1500,240,-30,40"};
    for (int k = 0; k < 3; k++) {
        char args[512];
        snprintf(args, sizeof args, "--scenario scenarios/rural.json --terrain-only --no-hud --pose %s --stats-file %s",
                 poses[k], tmp("crack.json"));
        render(tmp("crack.png"), args);
        /* the footprint: the corners' rays land inside the square at both height bounds */
        double v[5];
        sscanf(poses[k], "%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4]);
        sim_pose p = {.pos = {v[0], v[1], v[2]}, .heading = v[3] * M_PI / 180, .pitch = v[4] * M_PI / 180};
        sim_camera c;
        camera(&c, SIM_VIEW_FRONT, &p);
        double t = tan(c.fov_y / 2);
        for (int corner = 0; corner < 4; corner++) {
            double sx = (corner & 1) ? 1 : -1, sy = (corner & 2) ? 1 : -1, d[3];
            for (int i = 0; i < 3; i++)
                d[i] = c.forward[i] - sx * t * c.aspect * c.left[i] + sy * t * c.up[i];
            assert_true(d[2] < 0);
            for (double z = 100; z <= 130; z += 30) {
                double s = (z - c.eye[2]) / d[2];
                double x = c.eye[0] + s * d[0], y = c.eye[1] + s * d[1];
                assert_true(x > 0 && x < 2048 && y > 0 && y < 2048);
            }
        }
        image im;
        image_load(tmp("crack.png"), &im);
        int magenta = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const unsigned char *q = pixel(&im, x, y);
                magenta += q[0] > 200 && q[1] < 60 && q[2] > 200;
            }
        assert_int_equal(magenta, 0);
        /* and there were LOD boundaries to crack: several levels, stitched edges */
        assert_true(json_int(tmp("crack.json"), "max_level") > json_int(tmp("crack.json"), "min_level"));
        assert_true(json_int(tmp("crack.json"), "stitched") > 0);
        free(im.px);
    }
}

static void bad_input(void **state)
{
    (void)state;
    char out[4096], args[512];
    /* the medium preset's shaders (low would name light.glsl first) */
    snprintf(args, sizeof args, LCT " --quality medium --screenshot %s --shaders /nonexistent-dir", tmp("x.png"));
    assert_int_equal(run_render(out, sizeof out, NULL, args), 1);
    assert_non_null(strstr(out, "/nonexistent-dir/lit.vert"));
    /* a shader that does not compile */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/sh && cp %s/*.vert %s/*.frag %s/sh/ && echo 'not glsl' > %s/sh/lit.frag",
             tmpdir, ts_root("render-node/shaders"), ts_root("render-node/shaders"), tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args, LCT " --quality medium --screenshot %s --shaders %s/sh", tmp("x.png"), tmpdir);
    assert_int_equal(run_render(out, sizeof out, NULL, args), 1);
    assert_non_null(strstr(out, "lit.frag does not compile"));
    /* a scenario that will not load */
    snprintf(args, sizeof args, "--scenario %s/missing.json --screenshot %s", tmpdir, tmp("x.png"));
    assert_int_equal(run_render(out, sizeof out, NULL, args), 1);
    assert_non_null(strstr(out, "missing.json"));
    /* no OpenGL 3.3 (Mesa told to offer 3.0) */
    snprintf(args, sizeof args, LCT " --screenshot %s", tmp("x.png"));
    assert_int_equal(run_render(out, sizeof out, "SDL_VIDEODRIVER=offscreen MESA_GL_VERSION_OVERRIDE=3.0", args), 1);
    assert_non_null(strstr(out, "OpenGL 3.3"));
    /* bad options */
    assert_int_equal(run_render(out, sizeof out, NULL, LCT " --view sideways"), 2);
    assert_non_null(strstr(out, "--view"));
    assert_int_equal(run_render(out, sizeof out, NULL, LCT " --size 12by8 --screenshot x.png"), 2);
    assert_non_null(strstr(out, "--size"));
    /* a start point that is not there */
    snprintf(args, sizeof args, "--scenario scenarios/lane-change.json --start nowhere --screenshot %s", tmp("x.png"));
    assert_int_equal(run_render(out, sizeof out, NULL, args), 1);
    assert_non_null(strstr(out, "nowhere"));
    assert_int_equal(access(tmp("x.png"), F_OK), -1); /* nothing written on failure */
}

/* Models (models.c): a truck's model where it projects, the box in its place when the
 * model cannot be read (the node goes on and names the file), the ego's colour in the
 * chase view and its bonnet from the seat taken from the vehicle file's models. */
static void write_vehicle(const char *path, double x, double y, const char *model, const char *size)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"vehicles\":[{\"id\":\"m1\",\"model\":\"%s\",\"pos\":[%g,%g,0],\"heading\":0,"
               "\"size\":[%s],\"velocity\":[0,0,0]}]}", model, x, y, size);
    fclose(f);
}

static void truck_model_drawn_where_it_projects(void **state)
{
    (void)state;
    /* a truck 40 m ahead (its middle at s = 60) in lane -1; its trailer's back (light
     * grey, 0.82: not a traffic colour, the trailer keeps the model's own) spans
     * z 1.1..4.0 m at s = 60 - 8.25 */
    write_vehicle(tmp("truck.json"), 60, -1.75, "truck", "16.5,2.55,4.0");
    write_traffic(tmp("none.json"), -5000, -5000, 0);
    char args[600], out[4096];
    snprintf(args, sizeof args, "%s --traffic %s", LCT, tmp("truck.json"));
    render(tmp("truck.png"), args);
    snprintf(args, sizeof args, "%s --traffic %s", LCT, tmp("none.json"));
    render(tmp("truck0.png"), args);
    image a, b, box;
    image_load(tmp("truck.png"), &a);
    image_load(tmp("truck0.png"), &b);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    const unsigned char *p = at(&a, &c, 60 - 8.2, -1.75, 3.0);
    assert_true(diff(p, at(&b, &c, 60 - 8.2, -1.75, 3.0)) > 60);
    assert_true(abs(p[0] - p[2]) < 25 && lum(p) > 0.4); /* grey, lit */
    /* beside it (lane -3) nothing changed */
    assert_true(diff(at(&a, &c, 60, -8.75, 0.02), at(&b, &c, 60, -8.75, 0.02)) < 12);
    /* no models where they are looked for: the box stands in, the node says which file */
    snprintf(args, sizeof args, "%s --traffic %s --models %s/no-models --screenshot %s --size %dx%d", LCT,
             tmp("truck.json"), tmpdir, tmp("box.png"), W, H);
    assert_int_equal(run_render(out, sizeof out, NULL, args), 0);
    assert_non_null(strstr(out, "no-models/truck.glb"));
    assert_non_null(strstr(out, "drawn as a box"));
    image_load(tmp("box.png"), &box);
    assert_true(diff(at(&box, &c, 60 - 8.2, -1.75, 3.0), at(&b, &c, 60 - 8.2, -1.75, 3.0)) > 60);
    /* a corrupt model file: the same */
    snprintf(args, sizeof args, "mkdir -p %s/bad && head -c 300 %s > %s/bad/truck.glb", tmpdir,
             ts_root("models/truck.glb"), tmpdir);
    assert_int_equal(system(args), 0);
    snprintf(args, sizeof args, "%s --traffic %s --models %s/bad --screenshot %s --size %dx%d", LCT,
             tmp("truck.json"), tmpdir, tmp("bad.png"), W, H);
    assert_int_equal(run_render(out, sizeof out, NULL, args), 0);
    assert_non_null(strstr(out, "bad/truck.glb"));
    free(a.px);
    free(b.px);
    free(box.px);
}

/* At night a car shows its tail lights. Seen in the rear mirror, out of the ego's
 * low beam: a sedan 30 m behind, driving away (heading west), its back towards us;
 * its left rear lamp (0.64 m left of its middle, so -y for it, 0.79 m up; the model
 * scaled from 4.57 to 4.5 m) glows red, brighter than its unlit body beside it. */
static void tail_lights_at_night(void **state)
{
    (void)state;
    FILE *f = fopen(tmp("away.json"), "w");
    assert_non_null(f);
    fprintf(f, "{\"vehicles\":[{\"id\":\"m1\",\"model\":\"sedan\",\"pos\":[70,-1.75,0],\"heading\":%.9f,"
               "\"size\":[4.5,1.8,1.45],\"velocity\":[0,0,0]}]}", M_PI);
    fclose(f);
    char args[600];
    snprintf(args, sizeof args, "--scenario scenarios/lane-change.json --pose 100,-5.25,0.52,0 --no-hud "
             "--view rear-mirror --light night --traffic %s", tmp("away.json"));
    render(tmp("tail.png"), args);
    image im;
    image_load(tmp("tail.png"), &im);
    sim_camera c;
    sim_pose p = lct_pose;
    p.pos[0] = 100;
    camera(&c, SIM_VIEW_REAR_MIRROR, &p);
    const unsigned char *lamp = at(&im, &c, 70 + 2.26, -1.75 - 0.64, 0.79);
    const unsigned char *body = at(&im, &c, 70 + 2.26, -1.75, 0.5);
    assert_true(lamp[0] > 100 && lamp[0] > lamp[1] + 60 && lamp[0] > lamp[2] + 60);
    assert_true(lum(lamp) > lum(body));
    free(im.px);
}

static void ego_colour_and_bonnet_from_its_model(void **state)
{
    (void)state;
    /* the default vehicle file: the sedan (paint 0.70, 0.08, 0.06) and its bonnet from
     * the seat: the bonnet's middle 1.47 m ahead of the car's middle, 0.84 m up */
    render(tmp("seat.png"), LCT);
    image im;
    image_load(tmp("seat.png"), &im);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    const unsigned char *p = at(&im, &c, 20 + 1.47, -5.25, 0.84);
    assert_true(p[0] > p[1] + 60 && p[0] > p[2] + 60);
    free(im.px);
    /* a vehicle file naming the tractor (green paint) as its model: the chase view's car
     * is green where the red box or sedan would be */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed 's/\"model\": \"sedan\"/\"model\": \"tractor\"/' %s > %s",
             ts_root("vehicles/bmw-318i.json"), tmp("tractor-car.json"));
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, LCT " --view chase --vehicle %s", tmp("tractor-car.json"));
    render(tmp("tractor.png"), cmd);
    image_load(tmp("tractor.png"), &im);
    camera(&c, SIM_VIEW_CHASE, &lct_pose);
    /* the cab's lower body, 1 m up at its back (the tractor is scaled to 4.47 m) */
    p = at(&im, &c, 20 - 1.1, -5.25, 1.0);
    assert_true(p[1] > p[0] + 30 && p[1] > p[2] + 30);
    free(im.px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(day_sky_road_and_marks),
        cmocka_unit_test(agent_drawn_where_it_projects),
        cmocka_unit_test(rear_mirror_shows_a_car_behind),
        cmocka_unit_test(chase_view_shows_the_car),
        cmocka_unit_test(night_darker_than_day),
        cmocka_unit_test(fog_lowers_contrast_with_distance),
        cmocka_unit_test(no_cracks_between_lod_levels),
        cmocka_unit_test(lane_change_sign_legible_at_40_m),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(truck_model_drawn_where_it_projects),
        cmocka_unit_test(ego_colour_and_bonnet_from_its_model),
        cmocka_unit_test(tail_lights_at_night),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
