/* SpeedProfileAction (OpenSCENARIO 1.2, issue 39): the plan of speed-profile.xosc's
 * profile solved by hand in both following modes, entries held within the limits, and
 * the engine driving the shared file and a profile of its own by that plan.
 *
 * The shared file's entries (time s after the entry before, speed m/s): (0, 0), (4, 10),
 * (4, 4), (2, 8) from standing, maxAcceleration 5, maxDeceleration 10,
 * maxAccelerationRate 4, maxDecelerationRate 3. Its corners: tau 0 v 0, 4 v 10, 8 v 4,
 * 10 v 8, slopes 2.5, -1.5, 2, 0 (all within 5 and 10), lines v = 2.5 tau, 16 - 1.5 tau,
 * 2 tau - 12, 8.
 * position: the polyline itself: v(2) = 5, v(4) = 10, v(6) = 7, v(9) = 6, 8 from 10 s;
 *   the distance to 12 s is its area, 20 + 28 + 12 + 16 = 76 m.
 * follow: jerk 4 from a = 0 to 2.5 takes 0.625 s, v = 4 * 0.625^2 / 2 = 0.78125, then
 *   the line 2.5 tau - 0.78125; to the line 16 - 1.5 tau at jerk -3 (4/3 s): leaving at
 *   t1 = ((k0 - k1)^2 - 2 j (m0 - m1)) / (2 j (k0 - k1)) = (16 + 6 (-16.78125)) / -24
 *   = 3.528645833, v1 = 8.040364583, joining at 4.861979167, v 8.70703125; to the line
 *   2 tau - 12 at jerk 4: t1 = (12.25 - 224) / -28 = 7.5625 (v 4.65625), joined at
 *   8.4375 (v 4.875); to 8 at jerk -3: t1 = (4 - 120) / -12 = 9.666666667 (v 7.333333),
 *   at 8 from 10.333333333. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_sb_profile.h"
#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT
#define T0 (65 * DT) /* the first tick after 1 s: when an AT_TIME(1, ...) event starts */

static const double TIMES[] = {0, 4, 4, 2}, SPEEDS[] = {0, 10, 4, 8};
static const sim_sb_limits LIM = {50, 5, 10, 4, 3};

static void seg_is(const sim_sb_seg *s, double t, double v, double k, double j)
{
    NEAR(s->t, t, 1e-8);
    NEAR(s->v, v, 1e-8);
    NEAR(s->k, k, 1e-12);
    NEAR(s->j, j, 1e-12);
}

static void test_plan_follow(void **state)
{
    (void)state;
    sim_sb_seg seg[SIM_SB_PROFILE_CAP(4)];
    int n = sim_sb_profile_plan(TIMES, SPEEDS, 4, true, 0, 0, 0, &LIM, seg);
    assert_int_equal(n, 8);
    seg_is(&seg[0], 0, 0, 0, 4);
    seg_is(&seg[1], 0.625, 0.78125, 2.5, 0);
    seg_is(&seg[2], 3.528645833333, 8.040364583333, 2.5, -3);
    seg_is(&seg[3], 4.861979166667, 8.70703125, -1.5, 0);
    seg_is(&seg[4], 7.5625, 4.65625, -1.5, 4);
    seg_is(&seg[5], 8.4375, 4.875, 2, 0);
    seg_is(&seg[6], 9.666666666667, 7.333333333333, 2, -3);
    seg_is(&seg[7], 10.333333333333, 8, 0, 0);
    int cur = 0;
    NEAR(sim_sb_profile_speed(seg, n, &cur, 0.5), 0.5, 1e-12);      /* 4 * 0.5^2 / 2 */
    NEAR(sim_sb_profile_speed(seg, n, &cur, 6), 7, 1e-9);           /* on the line 16 - 1.5 tau */
    NEAR(sim_sb_profile_speed(seg, n, &cur, 9), 6, 1e-9);           /* on 2 tau - 12 */
    NEAR(sim_sb_profile_speed(seg, n, &cur, 10), 7.833333333, 1e-8); /* 7.3333 + 2/3 - 3/2 (1/3)^2 */
    NEAR(sim_sb_profile_speed(seg, n, &cur, 11), 8, 1e-12);
    assert_int_equal(cur, 7);
}

static void test_plan_position(void **state)
{
    (void)state;
    sim_sb_seg seg[SIM_SB_PROFILE_CAP(4)];
    int n = sim_sb_profile_plan(TIMES, SPEEDS, 4, false, 0, 0, 0, &LIM, seg);
    assert_int_equal(n, 4);
    seg_is(&seg[0], 0, 0, 2.5, 0);
    seg_is(&seg[1], 4, 10, -1.5, 0);
    seg_is(&seg[2], 8, 4, 2, 0);
    seg_is(&seg[3], 10, 8, 0, 0);
    int cur = 0;
    NEAR(sim_sb_profile_speed(seg, n, &cur, 2), 5, 1e-12);
    NEAR(sim_sb_profile_speed(seg, n, &cur, 6), 7, 1e-12);
    NEAR(sim_sb_profile_speed(seg, n, &cur, 9), 6, 1e-12);
}

/* From 10 m/s: 30 m/s in 1 s asks for 20 m/s^2, held at maxAcceleration 5 (4 s); an
 * entry without a time goes as fast as the limits allow: down to 0 at 10 m/s^2, 3 s.
 * Relative to an entity at 2 m/s (offset), the speeds are 2 higher: 32 at 4 s. Without
 * jerk limits follow meets the corners: its segments are the polyline's. */
static void test_plan_limits(void **state)
{
    (void)state;
    const double t[] = {1, NAN}, v[] = {30, 0};
    const sim_sb_limits lim = {INFINITY, 5, 10, INFINITY, INFINITY};
    sim_sb_seg seg[SIM_SB_PROFILE_CAP(2)];
    int n = sim_sb_profile_plan(t, v, 2, false, 10, 0, 0, &lim, seg);
    assert_int_equal(n, 3);
    seg_is(&seg[0], 0, 10, 5, 0);
    seg_is(&seg[1], 4, 30, -10, 0);
    seg_is(&seg[2], 7, 0, 0, 0);
    n = sim_sb_profile_plan(t, v, 2, false, 10, 0, 2, &lim, seg);
    seg_is(&seg[1], 4.4, 32, -10, 0); /* 10 -> 32 at 5: 4.4 s */
    n = sim_sb_profile_plan(t, v, 2, true, 10, 0, 0, &lim, seg);
    int cur = 0;
    NEAR(sim_sb_profile_speed(seg, n, &cur, 2), 20, 1e-12);
    NEAR(sim_sb_profile_speed(seg, n, &cur, 5), 20, 1e-12);
    NEAR(sim_sb_profile_speed(seg, n, &cur, 8), 0, 1e-12);
}

#define PROFILE(mode)                                                                                               \
    "<LongitudinalAction><SpeedProfileAction followingMode=\"" mode "\"><DynamicConstraints maxAcceleration=\"5\" " \
    "maxDeceleration=\"10\" maxAccelerationRate=\"4\" maxDecelerationRate=\"3\" maxSpeed=\"50\"/>"                  \
    "<SpeedProfileEntry time=\"0\" speed=\"0\"/><SpeedProfileEntry time=\"4\" speed=\"10\"/>"                       \
    "<SpeedProfileEntry time=\"4\" speed=\"4\"/><SpeedProfileEntry time=\"2\" speed=\"8\"/>"                        \
    "</SpeedProfileAction></LongitudinalAction>"
#define STANDING TELEPORT("Ego", -1, 50) SPEED(0) "</Private>" TELEPORT("Target", -1, 400) SPEED(0) "</Private>"

/* The engine: the position profile from 1 s, speeds as planned, 76 m to its end (the
 * speed of each 1/64 s step ends it: the area to within half a step of the 8 m/s
 * climb, 0.07 m), the action done at its last corner. */
static void test_engine_position(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, STANDING, "Ego", EVENT("P", PROFILE("position"), AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 2);
    NEAR(ego->v, 5, 1e-9);
    NEAR(ego->a, 2.5, 1e-9);
    ts_sb_until(&r, T0 + 6);
    NEAR(ego->v, 7, 1e-9);
    assert_true(ego->long_inst >= 0);
    ts_sb_until(&r, T0 + 12);
    NEAR(ego->v, 8, 1e-9);
    assert_int_equal(ego->long_inst, -1);
    NEAR(ego->odometer, 76, 0.07);
    ts_sb_finish(&r);
}

/* follow: at 4 s after the start 8.8855 m/s, not the corner's 10. */
static void test_engine_follow(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, STANDING, "Ego", EVENT("F", PROFILE("follow"), AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 0.5);
    NEAR(ego->v, 0.5, 1e-9);
    ts_sb_until(&r, T0 + 4);
    double d = 4 - 3.528645833333;
    NEAR(ego->v, 8.040364583333 + 2.5 * d - 1.5 * d * d, 1e-8);
    ts_sb_until(&r, T0 + 9);
    NEAR(ego->v, 6, 1e-9);
    ts_sb_until(&r, T0 + 11);
    NEAR(ego->v, 8, 1e-9);
    assert_int_equal(ego->long_inst, -1);
    ts_sb_finish(&r);
}

/* The shared speed-profile.xosc: both profiles start at 2 s; at 6 s Car2 (position) is
 * at the corner's 10 m/s and Car1 (follow) at 8.8855; at 8 s both at 7; from 12.34 s
 * both at 8 m/s. */
static void test_shared_file(void **state)
{
    (void)state;
    sim_scenario *sc;
    sim_diag d = {0};
    sim_error err = {0};
    sim_lanegraph g;
    sim_storyboard sb;
    assert_int_equal(sim_scenario_load("../shared/openscenario/xosc/speed-profile.xosc", &sc, &d), SIM_OK);
    assert_int_equal(sim_lanegraph_from_roads_merge(&g, &sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&sb, &sc->xosc->model, &g, &err), SIM_OK);
    const sim_sb_state_ent *car1 = &sb.ent[0], *car2 = &sb.ent[1];
    double dd = 4 - 3.528645833333;
    double checks[][3] = {{6, 8.040364583333 + 2.5 * dd - 1.5 * dd * dd, 10}, {8, 7, 7}, {12.5, 8, 8}};
    for (int c = 0; c < 3; c++) {
        while (sb.t < checks[c][0] - 1e-9) sim_storyboard_step(&sb, DT);
        NEAR(car1->v, checks[c][1], 1e-8);
        NEAR(car2->v, checks[c][2], 1e-9);
    }
    NEAR(car2->s - 10, 60 + 8 * 0.5, 0.07); /* to 12 s the polyline's area, 60 m, then 8 m/s */
    sim_storyboard_free(&sb);
    sim_lanegraph_free(&g);
    sim_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_follow),        cmocka_unit_test(test_plan_position),
        cmocka_unit_test(test_plan_limits),        cmocka_unit_test(test_engine_position),
        cmocka_unit_test(test_engine_follow),      cmocka_unit_test(test_shared_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
