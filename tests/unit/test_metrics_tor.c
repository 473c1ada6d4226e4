/* Unit tests of sim_metrics_tor on a drive solved by hand: a TOR at 5 s, the hand-over
 * at 7.5 s (braking 30 % for 1 s at -3 m/s^2), a lane change at 10 s, a yaw rate of
 * 0.1 rad/s at 20 m/s from 9 to 10 s, a stopped car 200 m ahead of a car at 20 m/s. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sim_metrics_tor.h"

#include "ts_assert.h"

#define N 2001 /* 0..20 s at 100 Hz */

static double t[N], speed[N], accel[N], yaw[N], headway[N], lane[N], brake[N];

static sim_tor_samples drive(void)
{
    for (int i = 0; i < N; i++) {
        t[i] = i * 0.01;
        speed[i] = 20;
        bool braking = t[i] >= 7.5 - 1e-9 && t[i] < 8.5 - 1e-9;
        accel[i] = braking ? -3 : 0;
        brake[i] = braking ? 0.3 : (t[i] > 5 && t[i] < 6 ? 0.5 : 0); /* the automation's brake before */
        yaw[i] = t[i] >= 9 - 1e-9 && t[i] <= 10 + 1e-9 ? 0.1 : 0;
        lane[i] = t[i] < 10 - 1e-9 ? -3 : -2;
        double h = 200 - 20 * t[i];
        headway[i] = h > 0 ? h : NAN;
    }
    return (sim_tor_samples){.n = N, .t = t, .speed = speed, .accel = accel, .yaw_rate = yaw,
                             .headway = headway, .lane = lane, .brake = brake};
}

static void measures_by_hand(void **state)
{
    (void)state;
    sim_tor_samples s = drive();
    sim_tor_events ev = {.t_tor = 5.0, .t_handover = 7.5, .takeover_s = 2.5, .t_mrm = NAN, .t_mrm_stopped = NAN,
                         .hands_on_mapped = true, .t_hands_on = 6.2, .t_end = 9.0};
    sim_tor_result r;
    sim_error err = {0};
    assert_int_equal(sim_metrics_tor(&s, &ev, &r, &err), SIM_OK);
    NEAR(r.takeover_time, 2.5, 1e-12);
    NEAR(r.hands_on_time, 1.2, 1e-12);
    NEAR(r.brake_time, 2.5, 1e-9);       /* the automation's 50 % before the hand-over does not count */
    assert_true(isnan(r.lane_change_time)); /* at 10 s: after the window */
    NEAR(r.manoeuvre_time, 2.5, 1e-9);
    NEAR(r.max_lat_accel, 2.0, 1e-12);   /* 0.1 rad/s * 20 m/s from 9 s on */
    NEAR(r.max_long_accel, 3.0, 1e-12);
    NEAR(r.min_long_accel, -3.0, 1e-12);
    NEAR(r.min_thw, 20.0 / 20.0, 1e-9);  /* at 9 s: 20 m at 20 m/s */
    NEAR(r.min_ttc, 1.0, 1e-9);          /* 20 m closing at 20 m/s */
    assert_false(r.mrm);
    assert_int_equal(r.i0, 500);
    assert_int_equal(r.i1, 901);

    /* A longer window sees the lane change; hands already on; an MRM. */
    ev.t_end = 15, ev.hands_on_at_tor = true, ev.t_mrm = 13, ev.t_mrm_stopped = 14;
    ev.takeover_s = NAN;
    assert_int_equal(sim_metrics_tor(&s, &ev, &r, &err), SIM_OK);
    NEAR(r.lane_change_time, 5.0, 1e-9);
    NEAR(r.takeover_time, 2.5, 1e-12);   /* from the hand-over's time without takeover_s */
    NEAR(r.hands_on_time, 0, 0);
    assert_true(r.mrm && r.mrm_stopped);
    /* No touch sensor: NAN; no hand-over: no brake time. */
    ev.hands_on_mapped = false, ev.t_handover = NAN;
    assert_int_equal(sim_metrics_tor(&s, &ev, &r, &err), SIM_OK);
    assert_true(isnan(r.hands_on_time) && isnan(r.takeover_time) && isnan(r.brake_time));
    NEAR(r.manoeuvre_time, 5.0, 1e-9);
    ev.t_end = NAN;
    assert_int_equal(sim_metrics_tor(&s, &ev, &r, &err), SIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(measures_by_hand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
