/* LongitudinalDistanceAction's DynamicConstraints (issue 39): maxAcceleration and
 * maxDeceleration bound the controller's acceleration, maxAccelerationRate and
 * maxDecelerationRate (jerk) how fast it may grow, maxSpeed the speed; solved by hand
 * at steps of 1/64 s. Ego at s 50, Target at s 110, both 10 m/s (20 for the braking
 * Ego); the action from the first tick after 1 s (T0) keeps 20 m (or 60 m) between
 * their reference points. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT
#define T0 (65 * DT)

#define DISTANCE(d, constraints)                                                                                  \
    "<LongitudinalAction><LongitudinalDistanceAction entityRef=\"Target\" distance=\"" #d "\" freespace=\"false\" " \
    "continuous=\"true\"><DynamicConstraints " constraints "/></LongitudinalDistanceAction></LongitudinalAction>"
#define TWO(ego_v)                                                                                                \
    TELEPORT("Ego", -1, 50) SPEED(ego_v) "</Private>" TELEPORT("Target", -1, 110) SPEED(10) "</Private>"

/* 40 m too far: the controller wants 10 + 40 / 2 = 30 m/s at once, far above
 * maxAcceleration 4, so it accelerates at the jerk limit 2 m/s^3: after k steps
 * a = 2 k dt, v = 10 + 2 dt^2 k (k + 1) / 2: 11.015625 m/s at 1 s (k = 64), a = 4 from
 * 2 s (14.03125 m/s), then 4 m/s^2: 18.03125 at 3 s (the gap still 30 m too long). */
static void test_jerk_limits_acceleration(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, TWO(10), "Ego",
                EVENT("D", DISTANCE(20, "maxAcceleration=\"4\" maxDeceleration=\"3\" maxAccelerationRate=\"2\" "
                                        "maxDecelerationRate=\"1\" maxSpeed=\"40\""), AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 1);
    NEAR(ego->v, 11.015625, 1e-9);
    NEAR(ego->a, 2, 1e-9);
    ts_sb_until(&r, T0 + 2);
    NEAR(ego->v, 14.03125, 1e-9);
    ts_sb_until(&r, T0 + 3);
    NEAR(ego->v, 18.03125, 1e-9);
    NEAR(ego->a, 4, 1e-9);
    ts_sb_finish(&r);
}

/* Ego at 20 m/s, 60 m behind, asked to keep 60: it wants the Target's 10 m/s at once
 * and brakes, its deceleration growing at maxDecelerationRate 1 m/s^3 (not
 * maxAccelerationRate's 2): 20 - dt^2 64 * 65 / 2 = 19.4921875 m/s at 1 s; the
 * deceleration reaches maxDeceleration 3 (not maxAcceleration's 4) at 3 s,
 * 20 - 192 * 193 / 8192 = 15.4765625 m/s, then brakes at 3: 12.4765625 at 4 s. */
static void test_jerk_limits_braking(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, TWO(20), "Ego",
                EVENT("D", DISTANCE(60, "maxAcceleration=\"4\" maxDeceleration=\"3\" maxAccelerationRate=\"2\" "
                                        "maxDecelerationRate=\"1\""), AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 1);
    NEAR(ego->v, 19.4921875, 1e-9);
    NEAR(ego->a, -1, 1e-9);
    ts_sb_until(&r, T0 + 3);
    NEAR(ego->v, 15.4765625, 1e-9);
    ts_sb_until(&r, T0 + 4);
    NEAR(ego->v, 12.4765625, 1e-9);
    NEAR(ego->a, -3, 1e-9);
    ts_sb_finish(&r);
}

/* Without jerk limits the acceleration is maxAcceleration's 4 from the first step:
 * 11 m/s at 0.25 s; maxSpeed 12 holds it at 12 from 0.5 s. */
static void test_max_speed(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, TWO(10), "Ego",
                EVENT("D", DISTANCE(20, "maxAcceleration=\"4\" maxSpeed=\"12\""), AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 0.5);
    NEAR(ego->v, 12, 1e-9);
    ts_sb_until(&r, T0 + 1);
    NEAR(ego->v, 12, 1e-9);
    ts_sb_finish(&r);
    ts_sb_start(&r, NULL, NULL, TWO(10), "Ego",
                EVENT("D", DISTANCE(20, "maxAcceleration=\"4\" maxSpeed=\"40\""), AT_TIME(1, "rising")), NULL);
    ts_sb_until(&r, T0 + 0.25);
    NEAR(r.sb.ent[0].v, 11, 1e-9);
    ts_sb_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jerk_limits_acceleration),
        cmocka_unit_test(test_jerk_limits_braking),
        cmocka_unit_test(test_max_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
