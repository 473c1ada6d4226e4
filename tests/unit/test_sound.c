/* Unit tests of sim_sound: the engine tone's pitch is the four-stroke firing
 * frequency (rpm / 60 * cylinders / 2) and its level grows with rpm and load; tyre
 * noise grows with slip and is silent at a standstill; off, paused, engine-less and
 * volume 0 are silent; changes ramp without a jump; bad parameters are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_sound.h"
#include "test_audio.h"

#define RATE 44100

static sim_sound make(double volume, bool engine)
{
    sim_sound s;
    sim_sound_params p = {.sample_rate = RATE, .cylinders = 4, .volume = volume, .engine = engine};
    sim_error err;
    assert_int_equal(sim_sound_init(&s, &p, &err), SIM_OK);
    return s;
}

/* Half a second after the ramp at the given input: level and pitch. */
static void measure(sim_sound *s, const sim_sound_input *in, double *rms, double *hz)
{
    static int16_t buf[RATE];
    sim_sound_set(s, in);
    sim_sound_render(s, buf, RATE / 10); /* the ramp (20 ms) is over */
    sim_sound_render(s, buf, RATE / 2);
    *rms = ta_rms(buf, RATE / 2);
    if (hz) *hz = ta_dominant_hz(buf, RATE / 2, RATE, 10, 1000, 1);
}

static void pitch_is_the_firing_frequency(void **state)
{
    sim_sound s = make(1, true);
    double rms, hz;
    /* 4 cylinders: 1500 rpm -> 25 rev/s -> 50 firings/s */
    measure(&s, &(sim_sound_input){.rpm = 1500, .load = 0.5}, &rms, &hz);
    assert_true(fabs(hz - 50) <= 2);
    measure(&s, &(sim_sound_input){.rpm = 3000, .load = 0.5}, &rms, &hz);
    assert_true(fabs(hz - 100) <= 2);
    measure(&s, &(sim_sound_input){.rpm = 6000, .load = 0.5}, &rms, &hz);
    assert_true(fabs(hz - 200) <= 2);
    assert_true(fabs(sim_sound_engine_hz(900, 6) - 45) < 1e-12);
}

static void level_grows_with_rpm_and_load(void **state)
{
    sim_sound s = make(1, true);
    double low, high, idle, full;
    measure(&s, &(sim_sound_input){.rpm = 1000, .load = 0.5}, &low, NULL);
    measure(&s, &(sim_sound_input){.rpm = 5000, .load = 0.5}, &high, NULL);
    assert_true(high > 1.5 * low);
    measure(&s, &(sim_sound_input){.rpm = 3000, .load = 0}, &idle, NULL);
    measure(&s, &(sim_sound_input){.rpm = 3000, .load = 1}, &full, NULL);
    assert_true(full > 2 * idle);
    assert_true(full < 0.5); /* headroom: RMS of the loudest engine well below full scale */
}

static void tyre_noise_follows_slip(void **state)
{
    sim_sound s = make(1, false); /* tyres only */
    double grip, skid, parked;
    measure(&s, &(sim_sound_input){.speed = 20, .slip = 0.01}, &grip, NULL);
    measure(&s, &(sim_sound_input){.speed = 20, .slip = 0.3}, &skid, NULL);
    measure(&s, &(sim_sound_input){.speed = 0, .slip = 0.3}, &parked, NULL);
    assert_true(skid > 0.02);
    assert_true(skid > 10 * grip);
    assert_true(parked == 0);
}

static void silent_when_off_paused_or_muted(void **state)
{
    sim_sound_input in = {.rpm = 3000, .load = 1, .speed = 20, .slip = 0.3};
    double rms;
    sim_sound s = make(1, true);
    sim_sound_enable(&s, false);
    measure(&s, &in, &rms, NULL);
    assert_true(rms == 0);
    sim_sound_enable(&s, true);
    sim_sound_pause(&s, true);
    measure(&s, &in, &rms, NULL);
    assert_true(rms == 0);
    sim_sound_pause(&s, false);
    measure(&s, &in, &rms, NULL);
    assert_true(rms > 0.05);
    s = make(0, true);
    measure(&s, &in, &rms, NULL);
    assert_true(rms == 0);
    s = make(1, false);
    measure(&s, &(sim_sound_input){.rpm = 3000, .load = 1}, &rms, NULL);
    assert_true(rms == 0);
}

/* From silence to full engine: no sample-to-sample jump beyond what the ramp and the
 * tone allow (a click would be a step of up to the whole amplitude). */
static void changes_ramp_without_clicks(void **state)
{
    sim_sound s = make(1, true);
    int16_t buf[4410];
    sim_sound_render(&s, buf, 100);
    sim_sound_set(&s, &(sim_sound_input){.rpm = 6000, .load = 1});
    sim_sound_render(&s, buf, 4410);
    int maxstep = 0;
    for (int i = 1; i < 4410; i++) {
        int d = abs(buf[i] - buf[i - 1]);
        if (d > maxstep) maxstep = d;
    }
    /* 200 Hz at amplitude 0.55 with harmonics 2 and 3 (weights 0.35, 0.15, over 1.5):
     * the steepest slope is 2*pi*200/44100 * 0.55*32767 * (1 + 0.7 + 0.45)/1.5 = 737
     * per sample; a click would be a step of thousands */
    assert_true(maxstep <= 740);
    assert_true(abs(buf[0]) < 50); /* starts near silence */
}

/* The TOR chime: 1046.5 Hz, then 784 Hz, over a running engine at full scale without
 * clipping, and silence from the chime once it is over; off: nothing. */
static void tor_chime_two_tones(void **state)
{
    (void)state;
    static int16_t buf[RATE];
    sim_sound s = make(1, false);
    sim_sound_set(&s, &(sim_sound_input){0});
    sim_sound_chime(&s);
    sim_sound_render(&s, buf, RATE / 5); /* 0 .. 0.2 s: the first tone */
    assert_true(fabs(ta_dominant_hz(buf, RATE / 5, RATE, 500, 1500, 1) - SIM_SOUND_CHIME_HZ1) <= 5);
    sim_sound_render(&s, buf, RATE / 20); /* to 0.25 s */
    sim_sound_render(&s, buf, RATE / 5);  /* 0.25 .. 0.45 s: the second */
    assert_true(fabs(ta_dominant_hz(buf, RATE / 5, RATE, 500, 1500, 1) - SIM_SOUND_CHIME_HZ2) <= 5);
    assert_true(ta_rms(buf, RATE / 5) > 0.05); /* about 0.1 of full scale */
    sim_sound_render(&s, buf, RATE / 4); /* past SIM_SOUND_CHIME_S */
    sim_sound_render(&s, buf, RATE / 10);
    assert_true(ta_rms(buf, RATE / 10) == 0);
    /* Over the loudest engine and tyres: within full scale (sim_sound_render asserts it). */
    sim_sound loud = make(1, true);
    sim_sound_set(&loud, &(sim_sound_input){.rpm = 7000, .load = 1, .slip = 1, .speed = 30});
    sim_sound_render(&loud, buf, RATE / 10);
    sim_sound_chime(&loud);
    sim_sound_render(&loud, buf, RATE);
    /* Sound off: the chime is silent too. */
    sim_sound off = make(1, false);
    sim_sound_enable(&off, false);
    sim_sound_chime(&off);
    sim_sound_render(&off, buf, RATE / 5);
    assert_true(ta_rms(buf, RATE / 5) == 0);
}

static void bad_parameters_are_refused(void **state)
{
    sim_sound s;
    sim_error err;
    sim_sound_params p = {.sample_rate = 100, .cylinders = 4, .volume = 1, .engine = true};
    assert_int_equal(sim_sound_init(&s, &p, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "sound: sample rate 100 Hz: expected 8000..192000");
    p.sample_rate = RATE;
    p.volume = NAN;
    assert_int_equal(sim_sound_init(&s, &p, &err), SIM_EINVAL);
    p.volume = 1;
    p.cylinders = 0;
    assert_int_equal(sim_sound_init(&s, &p, &err), SIM_EINVAL);
    /* absurd inputs are clamped, never NaN out */
    s = make(1, true);
    int16_t buf[1000];
    sim_sound_set(&s, &(sim_sound_input){.rpm = 1e308, .load = NAN, .slip = INFINITY, .speed = 1e9});
    sim_sound_render(&s, buf, 1000);
    sim_sound_set(&s, &(sim_sound_input){.rpm = NAN});
    sim_sound_render(&s, buf, 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pitch_is_the_firing_frequency),
        cmocka_unit_test(level_grows_with_rpm_and_load),
        cmocka_unit_test(tyre_noise_follows_slip),
        cmocka_unit_test(silent_when_off_paused_or_muted),
        cmocka_unit_test(changes_ramp_without_clicks),
        cmocka_unit_test(tor_chime_two_tones),
        cmocka_unit_test(bad_parameters_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
