/* Unit tests of the input node's force-feedback output (input-node/ffb_out.c) with a
 * clock passed in: the fades a driver's wheel goes through (commands stopping, the bus
 * lost, pause and resume, stop, exit), their --ffb-log lines, and when an exiting node
 * may end, each played in microseconds instead of the real time the integration test
 * (test_input_node, --ffb-log of a running node) needs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffb_out.h"

static in_ffb_out fresh(void)
{
    in_ffb_out o = {.start_s = 100.0};
    sim_ffb_init(&o.ffb, 1.0, 1.0, false);
    return o;
}

static double scale_at(in_ffb_out *o, double now)
{
    sim_ffb_effects fx;
    double scale = in_ffb_out_update(o, now, &fx);
    in_ffb_out_played(o, now, &fx);
    return scale;
}

/* Commands ramp the scale up over SIM_FFB_FADE_S; their stop (the watchdog) and a
 * lost bus fade it to zero over the same time. */
static void commands_rise_and_stop_fades(void **state)
{
    (void)state;
    in_ffb_out o = fresh();
    sim_ffb_command c = {.torque = 0.5, .rumble_hz = SIM_FFB_DEFAULT_RUMBLE_HZ};
    for (int k = 0; k <= 10; k++) in_ffb_out_command(&o, 100.0 + k * 0.01, &c); /* 100 Hz for 0.1 s */
    assert_true(fabs(scale_at(&o, 100.1) - 1.0) < 1e-9);
    /* no command after 100.1: full until the watchdog (40 ms), then down at 1/50 ms */
    assert_true(fabs(scale_at(&o, 100.1 + SIM_FFB_WATCHDOG_S) - 1.0) < 1e-9);
    assert_true(fabs(scale_at(&o, 100.1 + SIM_FFB_WATCHDOG_S + SIM_FFB_FADE_S / 2) - 0.5) < 1e-9);
    assert_true(scale_at(&o, 100.1 + SIM_FFB_WATCHDOG_S + SIM_FFB_FADE_S) < 1e-9);
    /* commands again: back up; the bus lost: down at once (no watchdog wait) */
    for (int k = 0; k <= 10; k++) in_ffb_out_command(&o, 101.0 + k * 0.01, &c);
    assert_true(fabs(scale_at(&o, 101.1) - 1.0) < 1e-9);
    in_ffb_out_event(&o, 101.1, SIM_FFB_BUS_LOST);
    assert_true(fabs(scale_at(&o, 101.1 + SIM_FFB_FADE_S / 5) - 0.8) < 1e-9);
}

/* Pause fades and ignores commands; resume lets them bring it back; stop latches. */
static void pause_resume_and_stop(void **state)
{
    (void)state;
    in_ffb_out o = fresh();
    sim_ffb_command c = {.torque = -0.3, .rumble_hz = SIM_FFB_DEFAULT_RUMBLE_HZ};
    for (int k = 0; k <= 10; k++) in_ffb_out_command(&o, 100.0 + k * 0.01, &c);
    in_ffb_out_event(&o, 100.1, SIM_FFB_PAUSED);
    in_ffb_out_command(&o, 100.12, &c);
    assert_true(scale_at(&o, 100.1 + SIM_FFB_FADE_S) < 1e-9);
    in_ffb_out_event(&o, 100.2, SIM_FFB_RESUMED);
    for (int k = 0; k <= 10; k++) in_ffb_out_command(&o, 100.2 + k * 0.01, &c);
    assert_true(fabs(scale_at(&o, 100.3) - 1.0) < 1e-9);
    in_ffb_out_event(&o, 100.3, SIM_FFB_STOPPED);
    for (int k = 1; k <= 10; k++) in_ffb_out_command(&o, 100.3 + k * 0.01, &c); /* ignored */
    assert_true(scale_at(&o, 100.3 + SIM_FFB_FADE_S) < 1e-9);
    assert_true(scale_at(&o, 101.0) < 1e-9);
}

/* The log: one line per event, command and update, times from start_s. */
static void log_lines(void **state)
{
    (void)state;
    in_ffb_out o = fresh();
    o.log = tmpfile();
    assert_non_null(o.log);
    sim_ffb_command c = {.torque = 0.25, .rumble_hz = SIM_FFB_DEFAULT_RUMBLE_HZ};
    in_ffb_out_command(&o, 100.5, &c);
    in_ffb_out_event(&o, 100.75, SIM_FFB_EXIT);
    scale_at(&o, 101.0);
    rewind(o.log);
    char line[512];
    assert_non_null(fgets(line, sizeof line, o.log));
    assert_string_equal(line, "{\"t\":0.500000,\"event\":\"command\",\"torque\":0.25}\n");
    assert_non_null(fgets(line, sizeof line, o.log));
    assert_string_equal(line, "{\"t\":0.750000,\"event\":\"exit\"}\n");
    assert_non_null(fgets(line, sizeof line, o.log));
    assert_non_null(strstr(line, "{\"t\":1.000000,\"scale\":0.0000,\"level\":0,"));
    fclose(o.log);
}

/* An exiting node ends once the wheel has faded out, or after IN_FFB_EXIT_MAX_S. */
static void exit_ends_when_faded_or_late(void **state)
{
    (void)state;
    assert_false(in_ffb_exit_done(0.4, 0.05));
    assert_true(in_ffb_exit_done(0.0, 0.05));
    assert_true(in_ffb_exit_done(0.4, IN_FFB_EXIT_MAX_S + 0.001));
    assert_false(in_ffb_exit_done(0.4, IN_FFB_EXIT_MAX_S));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commands_rise_and_stop_fades),
        cmocka_unit_test(pause_resume_and_stop),
        cmocka_unit_test(log_lines),
        cmocka_unit_test(exit_ends_when_faded_or_late),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
