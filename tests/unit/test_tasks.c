/* Unit tests of common/tasks: the DRT schedule and the scripted driver's latencies
 * (sim_drt.h), and the scenario's "drt" object. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_drt.h"
#include "sim_lct.h"
#include "sim_measures.h"

/* Ticks of 10 ms for 600 s: every onset is the first tick at or after start + the sum
 * of the intervals; intervals all in [3, 5] s with a mean near 4 s; every stimulus ends
 * 1 s (100 ticks) after its onset when nobody answers. */
static void schedule_intervals_and_duration(void **state)
{
    (void)state;
    sim_drt_config c;
    sim_drt_config_init(&c);
    c.enabled = true;
    c.seed = 42;
    sim_drt_schedule s;
    sim_drt_schedule_init(&s, &c);
    double want = c.start_s, last_on = NAN, sum = 0, lo = 1e9, hi = 0;
    int ons = 0, offs = 0;
    for (int i = 0; i <= 60000; i++) {
        double t = i * 0.01;
        sim_drt_change ch[2];
        int n = sim_drt_schedule_step(&s, t, ch);
        for (int k = 0; k < n; k++) {
            if (ch[k].on) {
                ons++;
                double iv = sim_drt_interval(&c, ons);
                want += iv;
                sum += iv, lo = fmin(lo, iv), hi = fmax(hi, iv);
                assert_int_equal(ch[k].id, ons);
                assert_true(t >= want - 1e-9 && t < want + 0.01 + 1e-9);
                last_on = t;
            } else {
                offs++;
                assert_int_equal(ch[k].id, ons);
                assert_true(fabs(t - last_on - 1.0) < 0.01 + 1e-9);
            }
        }
    }
    assert_true(ons > 140 && ons < 200);
    assert_true(lo >= 3 && hi <= 5);
    assert_true(fabs(sum / ons - 4) < 0.15);
    assert_true(offs == ons || offs == ons - 1);
}

/* A response while a stimulus is on ends it at the response's time; one while none is
 * on does nothing. The same seed gives the same sequence; another seed another. */
static void schedule_response_and_seed(void **state)
{
    (void)state;
    sim_drt_config c;
    sim_drt_config_init(&c);
    c.enabled = true;
    sim_drt_schedule s;
    sim_drt_schedule_init(&s, &c);
    sim_drt_change ch[2], off;
    assert_int_equal(sim_drt_schedule_respond(&s, 1.0, &off), 0);
    double t = 0;
    while (sim_drt_schedule_step(&s, t, ch) == 0) t += 0.01;
    assert_true(ch[0].on);
    assert_int_equal(sim_drt_schedule_respond(&s, t + 0.45, &off), 1);
    assert_false(off.on);
    assert_int_equal(off.id, 1);
    assert_true(fabs(off.t - (t + 0.45)) < 1e-12);
    /* no second end after the duration */
    for (double u = t + 0.46; u < t + 1.5; u += 0.01) assert_int_equal(sim_drt_schedule_step(&s, u, ch), 0);
    sim_drt_config d = c;
    assert_true(sim_drt_interval(&c, 5) == sim_drt_interval(&d, 5));
    d.seed = 2;
    assert_true(sim_drt_interval(&c, 5) != sim_drt_interval(&d, 5));
    /* modalities in turn */
    c.modality[0] = SIM_DRT_VISUAL, c.modality[1] = SIM_DRT_TACTILE, c.modality[2] = SIM_DRT_AUDITORY;
    c.n_modalities = 3;
    assert_int_equal(sim_drt_modality_of(&c, 1), SIM_DRT_VISUAL);
    assert_int_equal(sim_drt_modality_of(&c, 5), SIM_DRT_TACTILE);
    assert_int_equal(sim_drt_modality_of(&c, 6), SIM_DRT_AUDITORY);
}

/* Latencies of 2000 stimuli at 450 +- 50 ms: mean within 5 ms (3 standard errors
 * are 3.4 ms), SD within 10 %; with miss_share 0.25 about a quarter are missed. */
static void script_latencies(void **state)
{
    (void)state;
    sim_drt_config c;
    sim_drt_config_init(&c);
    double sum = 0, sq = 0;
    for (int k = 1; k <= 2000; k++) {
        double l;
        assert_true(sim_drt_script_latency(&c, k, &l));
        sum += l, sq += l * l;
    }
    double mean = sum / 2000, sd = sqrt(sq / 2000 - mean * mean);
    assert_true(fabs(mean - 0.45) < 0.005);
    assert_true(fabs(sd - 0.05) < 0.005);
    c.miss_share = 0.25;
    int missed = 0;
    for (int k = 1; k <= 2000; k++) {
        double l;
        missed += !sim_drt_script_latency(&c, k, &l);
    }
    assert_in_range(missed, 440, 560);
}

static int parse(const char *text, sim_drt_config *c, sim_error *err)
{
    cJSON *v = cJSON_Parse(text);
    sim_json j = {.file = "s.json", .err = err};
    int rc = sim_drt_config_parse(&j, v, "drt", c);
    cJSON_Delete(v);
    return rc;
}

static void config_parse(void **state)
{
    (void)state;
    sim_drt_config c;
    sim_error err = {0};
    assert_int_equal(parse("{\"modality\":[\"tactile\",\"auditory\"],\"interval_s\":[2,6],\"seed\":9,"
                           "\"script\":{\"latency_ms\":600,\"sd_ms\":80,\"miss_share\":0.1}}", &c, &err), 0);
    assert_true(c.enabled);
    assert_int_equal(c.n_modalities, 2);
    assert_int_equal(c.modality[1], SIM_DRT_AUDITORY);
    assert_true(c.interval_min == 2 && c.interval_max == 6 && c.seed == 9);
    assert_true(fabs(c.latency_mean - 0.6) < 1e-12 && fabs(c.miss_share - 0.1) < 1e-12);
    memset(&err, 0, sizeof err);
    assert_int_not_equal(parse("{\"modality\":\"smell\"}", &c, &err), 0);
    assert_non_null(strstr(err.msg, "s.json: drt.modality"));
    memset(&err, 0, sizeof err);
    assert_int_not_equal(parse("{\"interval_s\":[5,3]}", &c, &err), 0);
    assert_non_null(strstr(err.msg, "drt.interval_s[1]"));
    memset(&err, 0, sizeof err);
    assert_int_not_equal(parse("{\"duration\":1}", &c, &err), 0);
    assert_non_null(strstr(err.msg, "duration"));
}


/* LCT tracks 1..20 (ISO 26022 geometry, docs/tasks.md): 18 changes; each of the six
 * kinds (from, to) exactly three times; every change starts in the lane the previous
 * one reached (the first in the start lane); signs 140..160 m apart from 150 m on, the
 * last at most 150 + 17 * 160 = 2870 m, 100 m before the 3000 m end; tracks differ. */
static void lct_track_geometry(void **state)
{
    (void)state;
    sim_lct_params p;
    sim_lct_params_init(&p);
    assert_true(p.length == 3000 && p.lane_width == 3.85 && p.speed_kmh == 60 && p.visibility == 40);
    int orders_differ = 0;
    sim_lct_track first;
    for (int track = 1; track <= 20; track++) {
        p.track = track;
        sim_lct_track t;
        sim_error err = {0};
        assert_int_equal(sim_lct_track_make(&p, &t, &err), 0);
        int kinds[4][4] = {{0}};
        int lane = t.start_lane;
        for (int k = 0; k < SIM_LCT_CHANGES; k++) {
            const sim_lct_change *c = &t.change[k];
            assert_int_equal(c->from_lane, lane);
            assert_true(c->to_lane != c->from_lane && c->to_lane >= 1 && c->to_lane <= 3);
            kinds[c->from_lane][c->to_lane]++;
            lane = c->to_lane;
            if (k == 0) assert_true(c->sign_s == 150);
            else {
                double gap = c->sign_s - t.change[k - 1].sign_s;
                assert_true(gap >= 140 && gap <= 160);
            }
        }
        assert_true(t.change[SIM_LCT_CHANGES - 1].sign_s <= 2870);
        for (int a = 1; a <= 3; a++)
            for (int b = 1; b <= 3; b++) assert_int_equal(kinds[a][b], a == b ? 0 : 3);
        if (track == 1) first = t;
        else orders_differ += memcmp(first.change, t.change, sizeof t.change) != 0;
    }
    assert_int_equal(orders_differ, 19);
    p.spacing_max = 200; /* 150 + 17 * 200 > 3000 - 100 */
    sim_error err = {0};
    sim_lct_track t;
    assert_int_equal(sim_lct_track_make(&p, &t, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "do not fit a 3000 m track"));
}

/* What an LCT board shows (ISO 26022: blank until 40 m ahead): blank at 40.001 m and
 * from afar, the lanes at exactly 40 m, nearer and once passed; always the lanes without a
 * legibility distance; blank for a distance that is not a number. The distance ahead is
 * the projection on the direction of travel: a driver at (10, 3) heading along +x sees a
 * board at (50, -9) 40 m ahead (the lateral 12 m do not count), one heading along -x
 * sees it 40 m behind; the direction need not be a unit vector, and one of length 0
 * gives 0. */
static void lct_board_visibility(void **state)
{
    (void)state;
    assert_int_equal(sim_lct_board_at(40.001, 40), SIM_LCT_BOARD_BLANK);
    assert_int_equal(sim_lct_board_at(500, 40), SIM_LCT_BOARD_BLANK);
    assert_int_equal(sim_lct_board_at(40, 40), SIM_LCT_BOARD_LANES);
    assert_int_equal(sim_lct_board_at(12.5, 40), SIM_LCT_BOARD_LANES);
    assert_int_equal(sim_lct_board_at(-3, 40), SIM_LCT_BOARD_LANES);
    assert_int_equal(sim_lct_board_at(500, 0), SIM_LCT_BOARD_LANES);
    assert_int_equal(sim_lct_board_at(NAN, 40), SIM_LCT_BOARD_BLANK);
    assert_true(sim_lct_board_ahead(50, -9, 10, 3, 1, 0) == 40);
    assert_true(sim_lct_board_ahead(50, -9, 10, 3, -2, 0) == -40);
    assert_true(fabs(sim_lct_board_ahead(3, 4, 0, 0, 3, 4) - 5) < 1e-12);
    assert_true(sim_lct_board_ahead(50, -9, 10, 3, 0, 0) == 0);
    /* the generator's default: 40 m, the distance the standard gives */
    sim_lct_params p;
    sim_lct_params_init(&p);
    assert_true(p.visibility == 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(schedule_intervals_and_duration),
        cmocka_unit_test(schedule_response_and_seed),
        cmocka_unit_test(script_latencies),
        cmocka_unit_test(config_parse),
        cmocka_unit_test(lct_track_geometry),
        cmocka_unit_test(lct_board_visibility),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
