/* Unit tests of the static obstacles (sim_obstacles): the grid against a brute-force
 * search, a car driven into a tree at 30, 100 and 200 km/h (never through it, stopped
 * within a bound solved from its speed, the hit naming the tree), and a car meeting a
 * guard rail at 20 degrees (redirected along it, lateral speed bounded). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_obstacles.h"
#include "sim_vehicle.h"
#include "vehicle_support.h"

static sim_vehicle_params params;
static sim_ground_plane flat = {0, 0, 0, 1.0, 0.0};

static int setup(void **state)
{
    (void)state;
    return vs_load_params(&params);
}

static uint32_t rng_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static double rng_unit(uint32_t *s) { return (double)rng_next(s) / (double)(1u << 24); }

/* Random shapes over 2 km: every query returns exactly the shapes whose bounding box
 * meets it, ascending, each once. */
static void grid_matches_brute_force(void **state)
{
    (void)state;
    enum { N = 3000 };
    sim_obstacle *o = calloc(N, sizeof *o);
    assert_non_null(o);
    uint32_t seed = 7;
    for (int i = 0; i < N; i++) {
        o[i].shape = (sim_obstacle_shape)(rng_next(&seed) % 3);
        o[i].x = 2000 * rng_unit(&seed) - 1000;
        o[i].y = 2000 * rng_unit(&seed) - 1000;
        o[i].heading = 6.3 * rng_unit(&seed);
        o[i].half_l = o[i].shape == SIM_SHAPE_RAIL ? 2 + 30 * rng_unit(&seed) : 5 * rng_unit(&seed);
        o[i].half_w = 0.1 + 3 * rng_unit(&seed);
        o[i].z1 = 2;
        o[i].tag = i;
    }
    sim_obstacles s;
    sim_error err = {0};
    assert_int_equal(sim_obstacles_build(&s, o, N, &err), 0);
    int got[512], want[512];
    for (int q = 0; q < 500; q++) {
        double x = 2100 * rng_unit(&seed) - 1050, y = 2100 * rng_unit(&seed) - 1050;
        double w = 40 * rng_unit(&seed), h = 40 * rng_unit(&seed);
        int n = sim_obstacles_query(&s, x, y, x + w, y + h, got, 512);
        int m = 0;
        for (int i = 0; i < N; i++) {
            double ex, ey;
            if (o[i].shape == SIM_SHAPE_CYLINDER) {
                ex = ey = o[i].half_w;
            } else {
                double c = fabs(cos(o[i].heading)), sn = fabs(sin(o[i].heading));
                ex = o[i].half_l * c + o[i].half_w * sn;
                ey = o[i].half_l * sn + o[i].half_w * c;
            }
            if (o[i].x + ex >= x && o[i].x - ex <= x + w && o[i].y + ey >= y && o[i].y - ey <= y + h)
                want[m++] = i;
        }
        assert_int_equal(n, m);
        for (int k = 0; k < m; k++)
            assert_int_equal(got[k], want[k]);
    }
    sim_obstacles_free(&s);
    /* bad input: named, no crash */
    o[5].half_w = NAN;
    assert_int_equal(sim_obstacles_build(&s, o, N, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "shape 5"));
    assert_int_equal(sim_obstacles_build(&s, o, 0, &err), 0);
    assert_int_equal(sim_obstacles_query(&s, -1, -1, 1, 1, got, 512), 0);
    sim_obstacles_free(&s);
    free(o);
}

/* How deep the trunk (x, y, r) reaches into the car's collision box's footprint (m;
 * negative: apart). */
static double trunk_depth(const sim_vehicle *v, const sim_vehicle_ground *g, double x, double y, double r)
{
    sim_vehicle_state st;
    sim_vehicle_get_state(v, g, &st);
    double c = cos(st.heading), sn = sin(st.heading);
    double cx = st.pos[0] + params.box_offset.x * c, cy = st.pos[1] + params.box_offset.x * sn;
    double lx = (x - cx) * c + (y - cy) * sn, ly = -(x - cx) * sn + (y - cy) * c;
    double qx = fmax(-params.box_half.x, fmin(params.box_half.x, lx));
    double qy = fmax(-params.box_half.y, fmin(params.box_half.y, ly));
    return r - hypot(lx - qx, ly - qy);
}

/* A line of trees across the car's path at x = 40 (trunks of 0.25 m radius every 5 m,
 * one dead ahead, its axis 0.3 m left of the car's centre line); the car comes at
 * speed in neutral and brakes fully from the first touch. It never gets through: the
 * trunk reaches at most one step's travel (plus 1 cm) into the car's body and the
 * centre of mass never passes the trunk; the first hit names the tree ahead with the
 * approach speed; right after the hit the car moves back at no more than the
 * restitution times its speed (plus 10 % for the yaw the off-centre hit gives), and it
 * comes to rest within the distance that rebound takes to brake away at 0.3 g (the
 * spinning car slides), (e v)^2 / (2 0.3 g), of where its body touches the trunk. */
static void tree_line_stops_the_car(void **state)
{
    (void)state;
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    enum { TREES = 9 };
    sim_obstacle trees[TREES];
    const double tx = 40.25, r = 0.25;
    for (int i = 0; i < TREES; i++)
        trees[i] = (sim_obstacle){.shape = SIM_SHAPE_CYLINDER, .x = tx, .y = 0.3 + 5.0 * (i - 4),
                                  .half_w = r, .z0 = 0, .z1 = 8, .tag = 100 + i};
    sim_obstacles s;
    sim_error err = {0};
    assert_int_equal(sim_obstacles_build(&s, trees, TREES, &err), 0);
    const double kmh[] = {30, 100, 200};
    const sim_vehicle_model models[] = {SIM_VEHICLE_FULL, SIM_VEHICLE_WALL, SIM_VEHICLE_SIMPLE};
    double reach = hypot(params.box_half.x + fabs(params.box_offset.x), params.box_half.y) + r;
    for (int mi = 0; mi < 3; mi++)
        for (int k = 0; k < 3; k++) {
            double v0 = kmh[k] * VS_KMH;
            double x_start = tx - r - v0 * 0.5 - 5.0; /* half a second before the trees */
            sim_vehicle *v = vs_new_car(&params, models[mi], &g, x_start - params.box_offset.x - params.box_half.x,
                                        0, 0, v0, 0);
            assert_non_null(v);
            sim_vehicle_controls c = {.gear = 0};
            sim_obstacle_hit hits[4];
            int first = -1;
            double hit_speed = 0, max_depth = -1e9, back_speed = 0, max_x = -1e9;
            int steps = 0;
            for (; steps < 20000; steps++) {
                assert_int_equal(sim_vehicle_step(v, &c, &g, NULL, 0, VS_DT), 0);
                /* before the response: how far one step took the body into the trunk */
                max_depth = fmax(max_depth, trunk_depth(v, &g, tx, 0.3, r));
                int n = sim_vehicle_hit_obstacles(v, &s, hits, 4);
                if (n > 0 && first < 0) {
                    first = hits[0].tag;
                    hit_speed = hits[0].speed;
                    c.brake = 1.0;
                }
                max_x = fmax(max_x, v->y[0]);
                if (first >= 0 && -v->y[7] > back_speed)
                    back_speed = -v->y[7];
                if (first >= 0 && hypot(v->y[7], v->y[8]) < 0.01 && steps > 100)
                    break;
            }
            sim_vehicle_state st;
            sim_vehicle_get_state(v, &g, &st);
            double e = params.restitution;
            double dist = hypot(st.pos[0] - tx, st.pos[1] - 0.3);
            double bound = reach + (e * v0) * (e * v0) / (2 * 0.3 * 9.81);
            printf("%s model into a tree at %.0f km/h: hit tree %d at %.1f m/s, trunk at most %.3f m into the body before the response, "
                   "back at %.2f m/s, rests with its centre %.2f m from the trunk's (bound %.2f m), heading %.0f deg\n",
                   sim_vehicle_model_name(models[mi]), kmh[k], first, hit_speed, max_depth, back_speed, dist, bound,
                   st.heading / VS_DEG);
            assert_int_equal(first, 104);
            assert_true(hit_speed > 0.9 * v0 && hit_speed <= v0 + 0.1);
            assert_true(max_depth <= v0 * VS_DT + 0.01);
            assert_true(max_x < tx);
            assert_true(back_speed <= e * v0 + 0.1 * v0);
            assert_true(dist <= bound);
            assert_true(hypot(st.vel[0], st.vel[1]) < 0.05);
            free(v);
        }
    sim_obstacles_free(&s);
}

/* A guard rail along the x axis at y = 0 (segments of 4 m, 0.3 m thick, 0.75 m high);
 * the car comes from the left at 100 km/h, 20 degrees into it, steering straight.
 * It is redirected: its body never reaches past the rail's far face, its heading
 * turns to within 5 degrees of the rail's within 1 s of the first touch, its speed
 * away from the rail afterwards stays below half of the approach's lateral speed
 * (v sin 20 = 9.5 m/s), and it keeps most of its speed along the rail. */
static void guard_rail_redirects(void **state)
{
    (void)state;
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    enum { SEGS = 60 };
    sim_obstacle rail[SEGS];
    for (int i = 0; i < SEGS; i++)
        rail[i] = (sim_obstacle){.shape = SIM_SHAPE_RAIL, .x = 2.0 + 4.0 * i, .y = -0.15, .half_l = 2.0,
                                 .half_w = 0.15, .z0 = 0, .z1 = 0.75, .tag = i};
    sim_obstacles s;
    sim_error err = {0};
    assert_int_equal(sim_obstacles_build(&s, rail, SEGS, &err), 0);
    const sim_vehicle_model models[] = {SIM_VEHICLE_FULL, SIM_VEHICLE_WALL};
    for (int mi = 0; mi < 2; mi++) {
        double v0 = 100 * VS_KMH, a = -20 * VS_DEG;
        sim_vehicle *v = vs_new_car(&params, models[mi], &g, 20.0, 8.0, a, v0, 0);
        assert_non_null(v);
        sim_vehicle_controls c = {.gear = 0};
        sim_obstacle_hit hits[4];
        double t_hit = -1, min_y = 1e9, max_away = 0, heading_1s = NAN, speed_1s = NAN;
        for (int step = 0; step < 4000; step++) {
            assert_int_equal(sim_vehicle_step(v, &c, &g, NULL, 0, VS_DT), 0);
            int n = sim_vehicle_hit_obstacles(v, &s, hits, 4);
            double t = step * VS_DT;
            if (n > 0 && t_hit < 0)
                t_hit = t;
            sim_vehicle_state st;
            sim_vehicle_get_state(v, &g, &st);
            /* the body's lowest corner in y */
            double ch = cos(st.heading), sh = sin(st.heading);
            for (int k = 0; k < 4; k++) {
                double u = params.box_offset.x + ((k & 1) ? 1 : -1) * params.box_half.x;
                double w = ((k & 2) ? 1 : -1) * params.box_half.y;
                double yy = st.pos[1] + u * sh + w * ch;
                if (yy < min_y)
                    min_y = yy;
            }
            if (t_hit >= 0 && st.vel[1] > max_away)
                max_away = st.vel[1];
            if (t_hit >= 0 && isnan(heading_1s) && t >= t_hit + 1.0) {
                heading_1s = st.heading;
                speed_1s = st.vel[0];
            }
        }
        printf("%s model into a guard rail at 20 deg, 100 km/h: lowest corner y %.3f m, heading after 1 s %.1f deg, "
               "speed away from the rail at most %.2f m/s, speed along it after 1 s %.1f m/s\n",
               sim_vehicle_model_name(models[mi]), min_y, heading_1s / VS_DEG, max_away, speed_1s);
        assert_true(t_hit > 0);
        assert_true(min_y > -0.3);
        assert_true(fabs(heading_1s) < 5 * VS_DEG);
        assert_true(max_away < 0.5 * v0 * sin(20 * VS_DEG));
        assert_true(speed_1s > 0.6 * v0 * cos(20 * VS_DEG));
        free(v);
    }
    sim_obstacles_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grid_matches_brute_force),
        cmocka_unit_test(tree_line_stops_the_car),
        cmocka_unit_test(guard_rail_redirects),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
