/* Unit tests of sim_road against geometry solved by hand: a circle's arc length, a
 * clothoid's end point from its Fresnel integrals (tabulated values), projections onto
 * known points, lane layout and marks, and indexed vs brute-force location. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_road.h"

#include "ts_assert.h"

static sim_geom piece(sim_geom_type type, double x0, double y0, double h0, double len, double k0,
                      double k1)
{
    sim_geom g = {.type = type, .x0 = x0, .y0 = y0, .hdg0 = h0, .length = len, .k0 = k0, .k1 = k1};
    assert_int_equal(sim_geom_prepare(&g, NULL), 0);
    return g;
}

/* Fresnel integrals C(z) = int_0^z cos(pi t^2 / 2) dt, S likewise, by their power
 * series (independent of the Gauss-Legendre code under test). */
static void fresnel(double z, double *C, double *S)
{
    double c = 0, s = 0, a = M_PI / 2;
    /* Expand cos/sin of a t^2 in powers and integrate term by term. */
    double p = 1.0; /* (a)^j / j! */
    for (int j = 0; j < 40; j++) {
        double integral = pow(z, 2 * j + 1) / (2 * j + 1); /* int_0^z t^(2j) dt */
        double v = p * integral;
        switch (j % 4) {
        case 0: c += v; break;
        case 1: s += v; break;
        case 2: c -= v; break;
        case 3: s -= v; break;
        }
        p *= a / (j + 1);
    }
    *C = c;
    *S = s;
}

static void fresnel_series_matches_tables(void **state)
{
    /* Abramowitz & Stegun table 7.7: C(1) = 0.77989 34004, S(1) = 0.43825 91474. */
    double C, S;
    fresnel(1.0, &C, &S);
    NEAR(C, 0.7798934004, 1e-10);
    NEAR(S, 0.4382591474, 1e-10);
    fresnel(0.5, &C, &S);
    NEAR(C, 0.4923442258, 1e-10);
    NEAR(S, 0.0647324329, 1e-10);
}

static void circle_arc_length(void **state)
{
    /* Quarter circle of radius 100 turning left from the origin heading east:
     * length pi/2 * 100 ends at (100, 100) heading north. */
    sim_geom g = piece(SIM_GEOM_ARC, 0, 0, 0, M_PI / 2 * 100, 0.01, 0.01);
    double x, y, h;
    sim_geom_eval(&g, g.length, &x, &y, &h);
    NEAR(x, 100, 1e-9);
    NEAR(y, 100, 1e-9);
    NEAR(h, M_PI / 2, 1e-12);
    /* Right turn: centre at (0, -50), half circle ends at (0, -100) heading west. */
    sim_geom r = piece(SIM_GEOM_ARC, 0, 0, 0, M_PI * 50, -0.02, 0);
    sim_geom_eval(&r, r.length, &x, &y, &h);
    NEAR(x, 0, 1e-9);
    NEAR(y, -100, 1e-9);
    NEAR(h, -M_PI, 1e-12);
    /* Full circle returns to the start. */
    sim_geom f = piece(SIM_GEOM_ARC, 5, 7, 1.0, 2 * M_PI * 30, 1.0 / 30, 0);
    sim_geom_eval(&f, f.length, &x, &y, &h);
    NEAR(x, 5, 1e-9);
    NEAR(y, 7, 1e-9);
    /* Nearly straight arc is still right (chord form, no cancellation). */
    sim_geom n = piece(SIM_GEOM_ARC, 0, 0, 0, 1000, 1e-12, 0);
    sim_geom_eval(&n, 1000, &x, &y, &h);
    NEAR(x, 1000, 1e-9);
    NEAR(y, 0.5e-6, 1e-9); /* sagitta k L^2 / 2 */
}

static void clothoid_end_point_from_fresnel(void **state)
{
    /* Curvature 0 -> k1 over L: rate c = k1/L, and r(t) = sqrt(pi/c) (C(z), S(z)) with
     * z = t sqrt(c/pi). Choosing c = pi / L^2 makes z(L) = 1: the end point is
     * L (C(1), S(1)) = (77.98934004, 43.82591474) for L = 100, heading pi/2. */
    const double L = 100, c = M_PI / (L * L);
    sim_geom g = piece(SIM_GEOM_CLOTHOID, 0, 0, 0, L, 0, c * L);
    double x, y, h;
    sim_geom_eval(&g, L, &x, &y, &h);
    NEAR(x, 77.98934004, 1e-7);
    NEAR(y, 43.82591474, 1e-7);
    NEAR(h, M_PI / 2, 1e-12);
    /* Every metre along it, against the series: far better than 1 mm. */
    double worst = 0;
    for (double t = 0; t <= L; t += 0.37) {
        double C, S;
        fresnel(t * sqrt(c / M_PI), &C, &S);
        sim_geom_eval(&g, t, &x, &y, &h);
        worst = fmax(worst, hypot(x - sqrt(M_PI / c) * C, y - sqrt(M_PI / c) * S));
    }
    assert_true(worst < 1e-9);
    /* A clothoid from k0 != 0 rotated and shifted: equals the tail of the standard one
     * starting at t0 = k0 / c, moved to the origin. */
    const double t0 = 40, k0 = c * t0, len = 50;
    sim_geom tail = piece(SIM_GEOM_CLOTHOID, 0, 0, 0, len, k0, k0 + c * len);
    double C0, S0, C1, S1;
    fresnel(t0 * sqrt(c / M_PI), &C0, &S0);
    fresnel((t0 + len) * sqrt(c / M_PI), &C1, &S1);
    double a = sqrt(M_PI / c), dx = a * (C1 - C0), dy = a * (S1 - S0), h0 = c * t0 * t0 / 2;
    sim_geom_eval(&tail, len, &x, &y, &h);
    NEAR(x, dx * cos(-h0) - dy * sin(-h0), 1e-9);
    NEAR(y, dx * sin(-h0) + dy * cos(-h0), 1e-9);
    sim_geom_free(&g);
    sim_geom_free(&tail);
}

/* A road of the given pieces chained from (x0, y0, h0), with lanes 3.5 m each side:
 * left 1 (dashed), right -1 (dashed), -2 (solid), centre solid. */
static void make_road(sim_road *r, const char *id, double x0, double y0, double h0,
                      const sim_geom *spec, int n)
{
    memset(r, 0, sizeof *r);
    r->id = strdup(id);
    r->geoms = calloc((size_t)n, sizeof *r->geoms);
    r->n_geoms = n;
    double x = x0, y = y0, h = h0, s = 0;
    for (int i = 0; i < n; i++) {
        sim_geom g = spec[i];
        g.x0 = x, g.y0 = y, g.hdg0 = h, g.s0 = s;
        assert_int_equal(sim_geom_prepare(&g, NULL), 0);
        sim_geom_eval(&g, g.length, &x, &y, &h);
        s += g.length;
        r->geoms[i] = g;
    }
    r->length = s;
    sim_lane_section *ls = sim_road_single_section(r);
    assert_non_null(ls);
    ls->n_left = 1;
    ls->left = calloc(1, sizeof *ls->left);
    ls->left[0] = (sim_lane){.id = 1, .width = 3.5, .type = SIM_LANE_DRIVING, .mark = SIM_MARK_SOLID};
    ls->n_right = 2;
    ls->right = calloc(2, sizeof *ls->right);
    ls->right[0] = (sim_lane){.id = -1, .width = 3.5, .type = SIM_LANE_DRIVING, .mark = SIM_MARK_DASHED};
    ls->right[1] = (sim_lane){.id = -2, .width = 3.0, .type = SIM_LANE_SHOULDER, .mark = SIM_MARK_SOLID};
    ls->center.mark = SIM_MARK_DASHED;
    r->junction = -1;
    assert_int_equal(sim_road_finish(r, NULL), SIM_OK);
    NEAR(r->left_width, 3.5, 0);
    NEAR(r->right_width, 6.5, 0);
}

static void projections_onto_known_points(void **state)
{
    const double c = 0.0004;
    sim_geom spec[3] = {
        {.type = SIM_GEOM_LINE, .length = 100},
        {.type = SIM_GEOM_ARC, .length = 150, .k0 = 0.01},
        {.type = SIM_GEOM_CLOTHOID, .length = 50, .k0 = 0.01, .k1 = 0.01 - c * 50},
    };
    sim_road r;
    make_road(&r, "a", 0, 0, 0, spec, 3);
    double s, d, dist;
    bool in;
    /* Line: (30, 4) is s = 30, d = 4 (left). */
    sim_road_project(&r, 30, 4, &s, &d, &dist, &in);
    NEAR(s, 30, 1e-12);
    NEAR(d, 4, 1e-12);
    assert_true(in);
    /* Arc: centre (100, 100); the point 95 m from it at the angle of s = 150 (0.5 rad
     * into the arc) lies 5 m left of the reference line. */
    double px = 100 + 95 * sin(0.5), py = 100 - 95 * cos(0.5);
    sim_road_project(&r, px, py, &s, &d, &dist, &in);
    NEAR(s, 150, 1e-9);
    NEAR(d, 5, 1e-9);
    /* Right of the arc (outside the circle). */
    px = 100 + 103 * sin(0.5), py = 100 - 103 * cos(0.5);
    sim_road_project(&r, px, py, &s, &d, &dist, &in);
    NEAR(s, 150, 1e-9);
    NEAR(d, -3, 1e-9);
    /* Clothoid: 3 m right of the point at s = 280. */
    sim_road_pose pose;
    sim_roadnet net = {.roads = &r, .n_roads = 1};
    assert_int_equal(sim_road_pose_at(&net, 0, 280, -3, &pose), 0);
    sim_road_project(&r, pose.x, pose.y, &s, &d, &dist, &in);
    NEAR(s, 280, 1e-7);
    NEAR(d, -3, 1e-7);
    /* Pose at (s, d) on the line and the heading at the end of the arc. */
    assert_int_equal(sim_road_pose_at(&net, 0, 50, 2, &pose), 0);
    NEAR(pose.x, 50, 1e-12);
    NEAR(pose.y, 2, 1e-12);
    NEAR(pose.z, 0, 0);
    assert_int_equal(sim_road_pose_at(&net, 0, 250, 0, &pose), 0);
    NEAR(pose.heading, 1.5, 1e-12);
    assert_int_equal(sim_road_pose_at(&net, 0, 301, 0, &pose), SIM_ERANGE);
    /* Beyond the start: clamped, not inside, distance to the start point. */
    sim_road_project(&r, -10, 0, &s, &d, &dist, &in);
    NEAR(s, 0, 0);
    NEAR(dist, 10, 1e-12);
    assert_false(in);
    sim_road_free(&r);
}

static void lanes_and_marks(void **state)
{
    sim_geom spec[1] = {{.type = SIM_GEOM_LINE, .length = 100}};
    sim_road r;
    make_road(&r, "a", 0, 0, 0, spec, 1);
    sim_lane_info li;
    assert_true(sim_road_lane_at(&r, 50, 1.0, &li));
    assert_int_equal(li.lane, 1);
    NEAR(li.center_d, 1.75, 0);
    NEAR(li.left_d, 3.5, 0);
    assert_int_equal(li.left_mark, SIM_MARK_SOLID);
    NEAR(li.right_d, 0, 0);
    assert_int_equal(li.right_mark, SIM_MARK_DASHED);
    assert_true(sim_road_lane_at(&r, 50, -5.0, &li));
    assert_int_equal(li.lane, -2);
    NEAR(li.center_d, -5.0, 0);
    NEAR(li.left_d, -3.5, 0);
    assert_int_equal(li.left_mark, SIM_MARK_DASHED);
    NEAR(li.right_d, -6.5, 0);
    assert_int_equal(li.right_mark, SIM_MARK_SOLID);
    assert_int_equal(li.type, SIM_LANE_SHOULDER);
    assert_true(sim_road_lane_at(&r, 50, 0.0, &li));
    assert_int_equal(li.lane, -1);
    assert_false(sim_road_lane_at(&r, 50, 3.6, &li));
    assert_int_equal(li.lane, 0);
    double d;
    assert_true(sim_road_lane_center(&r, 50, -2, &d));
    NEAR(d, -5.0, 0);
    assert_false(sim_road_lane_center(&r, 50, 2, &d));
    assert_false(sim_road_lane_center(&r, 50, 0, &d));
    assert_false(sim_road_lane_center(&r, 50, INT_MIN, &d)); /* found by the fuzzer */
    assert_false(sim_road_lane_center(&r, 50, -3, &d));
    sim_speed_limit lim[2] = {{0, 50, 13.9}, {50, 100, 27.8}};
    r.limits = lim;
    r.n_limits = 2;
    NEAR(sim_road_speed_limit(&r, 10), 13.9, 0);
    NEAR(sim_road_speed_limit(&r, 70), 27.8, 0);
    NEAR(sim_road_speed_limit(&r, 170), 0, 0);
    r.limits = NULL;
    r.n_limits = 0;
    assert_int_equal(sim_mark_parse("dashed"), SIM_MARK_DASHED);
    assert_int_equal(sim_mark_parse("dotted"), -1);
    assert_string_equal(sim_sign_type_name(SIM_SIGN_LANE_CHANGE), "lane_change");
    sim_road_free(&r);
}

static void elevation_profile(void **state)
{
    sim_geom spec[1] = {{.type = SIM_GEOM_LINE, .length = 300}};
    sim_roadnet net = {0};
    net.roads = calloc(1, sizeof *net.roads);
    net.n_roads = 1;
    make_road(&net.roads[0], "a", 0, 0, 0, spec, 1);
    sim_road *r = &net.roads[0];
    r->elev_mode = SIM_ELEV_PROFILE;
    r->n_elev = 3;
    r->elev_s = malloc(3 * sizeof(double));
    r->elev_z = malloc(3 * sizeof(double));
    r->elev_s[0] = 0, r->elev_s[1] = 100, r->elev_s[2] = 200;
    r->elev_z[0] = 0, r->elev_z[1] = 10, r->elev_z[2] = 20;
    assert_int_equal(sim_road_finish(r, NULL), SIM_OK); /* the points become cubic records */
    /* Through the points; collinear points give the straight grade exactly. */
    NEAR(sim_road_height(&net, 0, 100, 0), 10, 1e-12);
    NEAR(sim_road_height(&net, 0, 37, 2), 3.7, 1e-12);
    NEAR(sim_road_height(&net, 0, 250, 0), 20, 0); /* flat beyond the last point */
    /* Analytic normal of the grade: 0.1 along +x on collinear points. */
    double n[3];
    NEAR(sim_road_surface(&net, 0, 50, 1, n), 5, 1e-12);
    NEAR(n[0], -0.1 / sqrt(1.01), 1e-12);
    NEAR(n[1], 0, 1e-15);
    NEAR(n[2], 1 / sqrt(1.01), 1e-12);
    /* A crest: the Hermite slope agrees with finite differences of the height. */
    r->elev_z[2] = 0;
    assert_int_equal(sim_road_finish(r, NULL), SIM_OK);
    for (double s = 5; s < 200; s += 13.7) {
        double e = 1e-5, g = (sim_road_height(&net, 0, s + e, 0) - sim_road_height(&net, 0, s - e, 0)) / (2 * e);
        sim_road_surface(&net, 0, s, 0, n);
        NEAR(-n[0] / n[2], g, 1e-7);
    }
    NEAR(sim_road_height(&net, 0, 100, 0), 10, 1e-12);
    sim_road_surface(&net, 0, 100, 0, n);
    NEAR(n[0], 0, 1e-12); /* top of the crest: level */
    sim_roadnet_free(&net);
}

static void locate_indexed_matches_brute_force(void **state)
{
    sim_roadnet net = {0};
    net.roads = calloc(2, sizeof *net.roads);
    net.n_roads = 2;
    sim_geom a[3] = {
        {.type = SIM_GEOM_LINE, .length = 120},
        {.type = SIM_GEOM_CLOTHOID, .length = 60, .k0 = 0, .k1 = 0.02},
        {.type = SIM_GEOM_ARC, .length = 100, .k0 = 0.02},
    };
    sim_geom b[1] = {{.type = SIM_GEOM_LINE, .length = 300}};
    make_road(&net.roads[0], "a", 0, 0, 0, a, 3);
    make_road(&net.roads[1], "b", 60, -150, M_PI / 2, b, 1); /* crosses road a at x = 60 */
    assert_int_equal(sim_roadnet_build_index(&net, NULL), 0);
    unsigned seed = 5;
    int on = 0;
    for (int k = 0; k < 3000; k++) {
        seed = seed * 1664525u + 1013904223u;
        double x = -20 + (seed >> 8) % 2400 / 10.0;
        seed = seed * 1664525u + 1013904223u;
        double y = -160 + (seed >> 8) % 4000 / 10.0;
        sim_road_loc l1, l2;
        assert_int_equal(sim_roadnet_locate(&net, x, y, &l1), 0);
        assert_int_equal(sim_roadnet_locate_brute(&net, x, y, &l2), 0);
        assert_int_equal(l1.road, l2.road);
        NEAR(l1.s, l2.s, 1e-9);
        NEAR(l1.d, l2.d, 1e-9);
        assert_int_equal(l1.lane.lane, l2.lane.lane);
        on += l1.on_road;
    }
    assert_true(on > 100);
    /* A known point: 2 m right of road b at s = 100 is (62, -50), on road b lane -1. */
    sim_road_loc l;
    assert_int_equal(sim_roadnet_locate(&net, 62, -50, &l), 0);
    assert_int_equal(l.road, 1);
    NEAR(l.s, 100, 1e-9);
    NEAR(l.d, -2, 1e-9);
    assert_int_equal(l.lane.lane, -1);
    NEAR(l.lane.center_d, -1.75, 0);
    assert_true(l.on_road);
    NEAR(l.heading, M_PI / 2, 1e-12);
    sim_road_loc fast;
    assert_int_equal(sim_roadnet_locate_on_road(&net, 62, -50, &fast), 0);
    assert_int_equal(fast.road, 1);
    NEAR(fast.s, 100, 1e-9);
    /* Off-road: 10 m left of road a's left border at s = 30 -> nearest road a. */
    assert_int_equal(sim_roadnet_locate_on_road(&net, 30, 13.5, &fast), SIM_ENOTFOUND);
    assert_int_equal(sim_roadnet_locate_on_road(&net, 1e6, 1e6, &fast), SIM_ENOTFOUND);
    assert_int_equal(sim_roadnet_locate(&net, 30, 13.5, &l), 0);
    assert_int_equal(l.road, 0);
    assert_false(l.on_road);
    NEAR(l.distance, 10, 1e-9);
    NEAR(l.s, 30, 1e-9);
    assert_int_equal(l.lane.lane, 0);
    sim_roadnet_free(&net);
    sim_roadnet empty = {0};
    assert_int_equal(sim_roadnet_locate(&empty, 0, 0, &l), SIM_ENOTFOUND);
}

static void bad_geometry_rejected(void **state)
{
    sim_geom g = {.type = SIM_GEOM_LINE, .length = -1};
    sim_error err = {0};
    assert_int_equal(sim_geom_prepare(&g, &err), SIM_ERANGE);
    assert_string_equal(err.msg, "length -1: expected a finite number > 0");
    g.length = NAN;
    assert_int_equal(sim_geom_prepare(&g, &err), SIM_ERANGE);
    g = (sim_geom){.type = SIM_GEOM_CLOTHOID, .length = 10, .k1 = INFINITY};
    assert_int_equal(sim_geom_prepare(&g, &err), SIM_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fresnel_series_matches_tables),
        cmocka_unit_test(circle_arc_length),
        cmocka_unit_test(clothoid_end_point_from_fresnel),
        cmocka_unit_test(projections_onto_known_points),
        cmocka_unit_test(lanes_and_marks),
        cmocka_unit_test(elevation_profile),
        cmocka_unit_test(locate_indexed_matches_brute_force),
        cmocka_unit_test(bad_geometry_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
