/* Unit tests of sim_ffb: sign convention, gain and torque limit, SDL ranges, and the
 * safety fade's timing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "sim_ffb.h"

#include "ts_assert.h"

static void sign_follows_sdl_direction(void **state)
{
    sim_ffb_effects e;
    sim_ffb_command left = {.torque = 0.5, .rumble_hz = 30};
    sim_ffb_effects_for(1.0, 1.0, false, &left, 1.0, &e);
    /* Positive torque turns the wheel left: a force from the east (+x) pushing west. */
    assert_int_equal(e.dir_x, 1);
    assert_int_equal(e.constant_level, 16384); /* 0.5 * 32767 = 16383.5, rounded away */
    sim_ffb_command right = {.torque = -0.25, .rumble_hz = 30};
    sim_ffb_effects_for(1.0, 1.0, false, &right, 1.0, &e);
    assert_int_equal(e.constant_level, -8192); /* -0.25 * 32767 = -8191.75 */
    /* A device that pushes the other way flips the direction, not the level. */
    sim_ffb_effects_for(1.0, 1.0, true, &left, 1.0, &e);
    assert_int_equal(e.dir_x, -1);
    assert_int_equal(e.constant_level, 16384);
}

static void gain_and_torque_limit(void **state)
{
    sim_ffb_effects e;
    sim_ffb_command c = {.torque = 1.0, .spring = 0.5, .damper = 0.25, .rumble = 0.5,
                         .rumble_hz = 30};
    /* Gain 0.8 and limit 0.6: full torque is clamped to 0.6 -> 19660 (19660.2). */
    sim_ffb_effects_for(0.8, 0.6, false, &c, 1.0, &e);
    assert_int_equal(e.constant_level, 19660);
    /* Nothing left of the limit for the rumble. */
    assert_int_equal(e.periodic_magnitude, 0);
    assert_int_equal(e.spring_coeff, 13107);  /* 0.5 * 0.8 * 32767 = 13106.8 */
    assert_int_equal(e.damper_coeff, 6553);   /* 0.25 * 0.8 * 32767 = 6553.4 */
    assert_int_equal(e.saturation, 39321);    /* 0.6 * 65535 */
    assert_int_equal(e.periodic_period_ms, 33);
    /* Torque 0.5 at gain 1 under limit 0.6 leaves 0.1 for a 0.5 rumble. */
    c.torque = -0.5;
    sim_ffb_effects_for(1.0, 0.6, false, &c, 1.0, &e);
    assert_int_equal(e.constant_level, -16384);
    assert_int_equal(e.periodic_magnitude, 3277); /* 0.1 * 32767 = 3276.7 */
    assert_true(abs(e.constant_level) + e.periodic_magnitude <= (int)lround(0.6 * 32767) + 1);
    /* Gain scales below the limit: 0.5 * 0.8 = 0.4 -> 13107. */
    c.torque = 0.5;
    sim_ffb_effects_for(0.8, 1.0, false, &c, 1.0, &e);
    assert_int_equal(e.constant_level, 13107);
    /* The safety scale multiplies everything. */
    sim_ffb_effects_for(0.8, 1.0, false, &c, 0.5, &e);
    assert_int_equal(e.constant_level, 6553);
    assert_int_equal(e.saturation, 32768);
    /* 250 Hz rumble -> 4 ms; absurdly fast -> 1 ms. */
    c.rumble_hz = 250;
    sim_ffb_effects_for(1, 1, false, &c, 1, &e);
    assert_int_equal(e.periodic_period_ms, 4);
    c.rumble_hz = 1000;
    sim_ffb_effects_for(1, 1, false, &c, 1, &e);
    assert_int_equal(e.periodic_period_ms, 1);
}

/* Commands every 10 ms from t = 0 up to and including t = last. */
static void feed(sim_ffb *f, double from, double last, double torque)
{
    sim_ffb_command c = {.torque = torque, .rumble_hz = 30};
    for (int i = 0; from + i * 0.01 <= last + 1e-9; i++) sim_ffb_command_in(f, from + i * 0.01, &c);
}

static double scale_at(sim_ffb *f, double t)
{
    sim_ffb_effects e;
    sim_ffb_update(f, t, &e);
    return e.scale;
}

static void fades_within_100ms_when_commands_stop(void **state)
{
    sim_ffb f;
    sim_ffb_init(&f, 1.0, 1.0, false);
    NEAR(scale_at(&f, 0.0), 0.0, 0);
    /* Rises from zero at 1/FADE_S: half way after 25 ms, full after 50 ms. */
    feed(&f, 0.0, 0.02, 1.0);
    NEAR(scale_at(&f, 0.025), 0.5, 1e-9);
    feed(&f, 0.03, 1.0, 1.0);
    NEAR(scale_at(&f, 0.5), 1.0, 0);
    /* Last command at t = 1.0: full until the watchdog (40 ms), then linear to zero in
     * 50 ms, i.e. zero at 1.09 s, within the 100 ms rule. */
    NEAR(scale_at(&f, 1.04), 1.0, 1e-9);
    NEAR(scale_at(&f, 1.065), 0.5, 1e-9);
    sim_ffb_effects e;
    sim_ffb_update(&f, 1.0899, &e);
    assert_true(e.scale > 0 && e.constant_level > 0);
    sim_ffb_update(&f, 1.09, &e);
    assert_int_equal(e.constant_level, 0);
    sim_ffb_update(&f, 1.1, &e);
    assert_int_equal(e.constant_level, 0);
    assert_int_equal(e.saturation, 0);
}

static void fade_does_not_depend_on_update_rate(void **state)
{
    /* One update at 1.065 after the last command at 1.0 gives what many small ones
     * give: the watchdog instant is honoured even between updates. */
    sim_ffb a, b;
    sim_ffb_init(&a, 1, 1, false);
    sim_ffb_init(&b, 1, 1, false);
    feed(&a, 0, 1.0, 0.3);
    feed(&b, 0, 1.0, 0.3);
    for (double t = 1.0; t < 1.065; t += 0.001) scale_at(&a, t);
    NEAR(scale_at(&a, 1.065), scale_at(&b, 1.065), 1e-9);
    NEAR(scale_at(&b, 1.065), 0.5, 1e-9);
}

static void events_fade_at_once_and_pause_holds(void **state)
{
    sim_ffb f;
    sim_ffb_init(&f, 1, 1, false);
    feed(&f, 0, 1.0, 1.0);
    /* Bus lost at 1.005: zero 50 ms later, though the last command is only 5 ms old. */
    sim_ffb_event_in(&f, 1.005, SIM_FFB_BUS_LOST);
    NEAR(scale_at(&f, 1.03), 0.5, 1e-9);
    NEAR(scale_at(&f, 1.055), 0.0, 1e-12);
    /* Commands come back after a reconnection: rises again, no jolt. */
    feed(&f, 2.0, 2.01, 1.0);
    NEAR(scale_at(&f, 2.01), 0.2, 1e-9);
    feed(&f, 2.02, 3.0, 1.0);
    NEAR(scale_at(&f, 3.0), 1.0, 0);
    /* Paused: fades even though physics still sends commands, and stays down. */
    sim_ffb_event_in(&f, 3.0, SIM_FFB_PAUSED);
    feed(&f, 3.01, 3.2, 1.0);
    NEAR(scale_at(&f, 3.05), 0.0, 1e-12);
    NEAR(scale_at(&f, 3.2), 0.0, 0);
    sim_ffb_event_in(&f, 3.2, SIM_FFB_RESUMED);
    NEAR(scale_at(&f, 3.25), 0.0, 0); /* resumed but no command yet */
    feed(&f, 3.25, 3.5, -1.0);
    sim_ffb_effects e;
    sim_ffb_update(&f, 3.5, &e);
    assert_int_equal(e.constant_level, -32767);
    /* Exit latches: later commands never bring the force back. */
    sim_ffb_event_in(&f, 3.5, SIM_FFB_EXIT);
    NEAR(scale_at(&f, 3.525), 0.5, 1e-9);
    feed(&f, 3.53, 4.0, 1.0);
    sim_ffb_update(&f, 4.0, &e);
    assert_int_equal(e.constant_level, 0);
    /* Stop latches the same way. */
    sim_ffb_init(&f, 1, 1, false);
    feed(&f, 0, 1.0, 1.0);
    sim_ffb_event_in(&f, 1.0, SIM_FFB_STOPPED);
    feed(&f, 1.01, 1.2, 1.0);
    NEAR(scale_at(&f, 1.2), 0.0, 0);
}

static void command_json(void **state)
{
    sim_ffb_command c;
    sim_error err = {0};
    cJSON *m = cJSON_Parse("{\"topic\":\"ffb.command\",\"torque\":-3,\"spring\":0.4,\"rumble\":0.2}");
    assert_int_equal(sim_msg_ffb_command_decode(m, &c, &err), SIM_OK);
    NEAR(c.torque, -1.0, 0); /* overshoot clamps to the limit */
    NEAR(c.spring, 0.4, 0);
    NEAR(c.damper, 0.0, 0);
    NEAR(c.rumble_hz, SIM_FFB_DEFAULT_RUMBLE_HZ, 0);
    cJSON_Delete(m);
    m = cJSON_Parse("{\"torque\":\"left\"}");
    assert_int_equal(sim_msg_ffb_command_decode(m, &c, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "ffb.command: torque: found \"left\", expected a number");
    cJSON_Delete(m);
    m = cJSON_Parse("{\"spring\":0.5}");
    assert_int_equal(sim_msg_ffb_command_decode(m, &c, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "ffb.command: torque: missing, expected a number in [-1, 1]");
    cJSON_Delete(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sign_follows_sdl_direction),
        cmocka_unit_test(gain_and_torque_limit),
        cmocka_unit_test(fades_within_100ms_when_commands_stop),
        cmocka_unit_test(fade_does_not_depend_on_update_rate),
        cmocka_unit_test(events_fade_at_once_and_pause_holds),
        cmocka_unit_test(command_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
