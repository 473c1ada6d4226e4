/* Unit tests of sim_study: the study file's validation, the designs' balance
 * properties counted over the plans, seeded plans, the scenario overlay, and the
 * instruments' scoring against examples worked by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_instrument.h"
#include "sim_study.h"
#include "ts_assert.h"

static sim_study *parse_ok(const char *text)
{
    sim_study *s = NULL;
    sim_error err = {0};
    int rc = sim_study_parse(text, strlen(text), "t.json", &s, &err);
    if (rc) fail_msg("parse failed: %s", err.msg);
    return s;
}

static void parse_fails(const char *text, const char *want)
{
    sim_study *s = NULL;
    sim_error err = {0};
    int rc = sim_study_parse(text, strlen(text), "t.json", &s, &err);
    assert_true(rc < 0);
    assert_null(s);
    if (!strstr(err.msg, want)) fail_msg("error '%s' does not contain '%s'", err.msg, want);
}

/* n conditions c0.. in a study of p participants with the given design. */
static sim_study *study_of(int n, int p, const char *design)
{
    char text[4096];
    int k = snprintf(text, sizeof text, "{\"name\":\"t\",\"conditions\":[");
    for (int i = 0; i < n; i++)
        k += snprintf(text + k, sizeof text - k, "%s{\"name\":\"c%d\",\"scenario\":\"s.json\"}", i ? "," : "", i);
    snprintf(text + k, sizeof text - k, "],\"participants\":{\"count\":%d},\"design\":%s}", p, design);
    return parse_ok(text);
}

/* Counts over all participants' plans: cond at position, ordered adjacent pairs. */
static void counts(const sim_study *s, int pos[32][32], int pair[32][32])
{
    memset(pos, 0, sizeof(int) * 32 * 32);
    memset(pair, 0, sizeof(int) * 32 * 32);
    for (int p = 0; p < s->n_participants; p++) {
        sim_plan plan;
        assert_int_equal(sim_study_plan(s, p, &plan), 0);
        assert_int_equal(plan.n, s->n_within);
        for (int i = 0; i < plan.n; i++) {
            assert_int_equal(plan.drives[i].position, i + 1);
            pos[plan.drives[i].condition][i]++;
            if (i) pair[plan.drives[i - 1].condition][plan.drives[i].condition]++;
        }
    }
}

static void williams_4_over_8(void **state)
{
    /* 8 participants take the 4 rows twice: each condition twice in each position,
     * each of the 12 ordered pairs adjacent twice (once per square). */
    sim_study *s = study_of(4, 8, "{\"type\":\"balanced-latin-square\"}");
    int pos[32][32], pair[32][32];
    counts(s, pos, pair);
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) assert_int_equal(pos[c][i], 2);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) assert_int_equal(pair[a][b], a == b ? 0 : 2);
    /* The first row is Williams' 0, 1, 3, 2. */
    sim_plan plan;
    sim_study_plan(s, 0, &plan);
    int want[] = {0, 1, 3, 2};
    for (int i = 0; i < 4; i++) assert_int_equal(plan.drives[i].condition, want[i]);
    sim_study_free(s);
}

static void williams_odd_is_doubled(void **state)
{
    int rows[2 * 32 * 32];
    /* 3 conditions: the square 012, 120, 201 and its mirror 210, 021, 102. */
    assert_int_equal(sim_study_square(SIM_DESIGN_WILLIAMS, 3, rows), 6);
    int want[] = {0, 1, 2, 1, 2, 0, 2, 0, 1, 2, 1, 0, 0, 2, 1, 1, 0, 2};
    for (int i = 0; i < 18; i++) assert_int_equal(rows[i], want[i]);
    /* Over 6 participants: each condition twice per position, each ordered pair
     * adjacent twice; 5 conditions over 10 likewise. */
    for (int n = 3; n <= 5; n += 2) {
        char design[] = "{\"type\":\"balanced-latin-square\"}";
        sim_study *s = study_of(n, 2 * n, design);
        int pos[32][32], pair[32][32];
        counts(s, pos, pair);
        for (int c = 0; c < n; c++)
            for (int i = 0; i < n; i++) assert_int_equal(pos[c][i], 2);
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) assert_int_equal(pair[a][b], a == b ? 0 : 2);
        sim_study_free(s);
    }
}

static void latin_square_positions(void **state)
{
    sim_study *s = study_of(5, 5, "{\"type\":\"latin-square\"}");
    int pos[32][32], pair[32][32];
    counts(s, pos, pair);
    for (int c = 0; c < 5; c++)
        for (int i = 0; i < 5; i++) assert_int_equal(pos[c][i], 1);
    sim_study_free(s);
}

static void random_is_seeded(void **state)
{
    sim_study *a = study_of(6, 12, "{\"type\":\"random\",\"seed\":42}");
    sim_study *b = study_of(6, 12, "{\"type\":\"random\",\"seed\":42}");
    sim_study *c = study_of(6, 12, "{\"type\":\"random\",\"seed\":43}");
    int differ = 0;
    for (int p = 0; p < 12; p++) {
        sim_plan pa, pb, pc;
        sim_study_plan(a, p, &pa);
        sim_study_plan(b, p, &pb);
        sim_study_plan(c, p, &pc);
        assert_memory_equal(&pa, &pb, sizeof pa);
        int seen = 0;
        for (int i = 0; i < 6; i++) {
            seen |= 1 << pa.drives[i].condition;
            differ += pa.drives[i].condition != pc.drives[i].condition;
        }
        assert_int_equal(seen, 63); /* a permutation */
    }
    assert_true(differ > 0);
    sim_study_free(a);
    sim_study_free(b);
    sim_study_free(c);
}

static void explicit_orders_practice_and_after(void **state)
{
    sim_study *s = parse_ok(
        "{\"name\":\"t\",\"conditions\":[{\"name\":\"train\",\"scenario\":\"a.json\"},"
        "{\"name\":\"x\",\"scenario\":\"a.json\"},{\"name\":\"y\",\"scenario\":\"a.json\"},"
        "{\"name\":\"last\",\"scenario\":\"a.json\"}],"
        "\"participants\":{\"ids\":[\"A\",\"B\",\"C\"],\"groups\":{\"old\":[\"B\"]}},"
        "\"design\":{\"type\":\"explicit\",\"orders\":[[\"y\",\"x\"],[\"x\",\"y\"]],"
        "\"practice\":[\"train\"],\"after\":[\"last\"]}}");
    assert_int_equal(s->n_within, 2);
    assert_int_equal(s->group_of[0], -1);
    assert_int_equal(s->group_of[1], 0);
    sim_plan plan;
    sim_study_plan(s, 2, &plan); /* C takes order 0 again */
    assert_int_equal(plan.n, 4);
    int want[] = {0, 2, 1, 3};
    sim_drive_kind kinds[] = {SIM_DRIVE_PRACTICE, SIM_DRIVE_CONDITION, SIM_DRIVE_CONDITION, SIM_DRIVE_FIXED};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(plan.drives[i].condition, want[i]);
        assert_int_equal(plan.drives[i].kind, kinds[i]);
        assert_int_equal(plan.drives[i].position, i + 1);
    }
    sim_study_free(s);
}

static void participant_ids_from_count(void **state)
{
    sim_study *s = study_of(2, 12, "{\"type\":\"latin-square\"}");
    assert_string_equal(s->participants[0], "P01");
    assert_string_equal(s->participants[11], "P12");
    sim_study_free(s);
}

#define HEAD "{\"name\":\"t\",\"participants\":{\"count\":2},\"design\":{\"type\":\"latin-square\"},"
static void errors_name_the_path(void **state)
{
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\",\"params\":{\"light\":\"noon\"}}]}",
                "t.json: conditions[0].params.light: found \"noon\", expected one of: day, dawn, dusk, night");
    /* A parameter nobody acts on is refused. */
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\",\"params\":{\"hmi\":\"B\"}}]}",
                "t.json: conditions[0].params.hmi");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\",\"params\":{\"traffic_density\":500}}]}",
                "t.json: conditions[0].params.traffic_density: found 500");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\"}]}", "t.json: conditions[0].scenario: missing");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a/b\",\"scenario\":\"s\"}]}", "t.json: conditions[0].name: found \"a/b\"");
    /* Issue 45: "." and ".." named folders elsewhere (".." put the study in out/). */
    parse_fails("{\"name\":\"..\",\"participants\":{\"count\":2},\"design\":{\"type\":\"latin-square\"},"
                "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}]}",
                "t.json: name: found \"..\", expected a name that does not start with '.'");
    parse_fails("{\"name\":\".\",\"participants\":{\"count\":2},\"design\":{\"type\":\"latin-square\"},"
                "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}]}",
                "t.json: name: found \".\", expected a name that does not start with '.'");
    parse_fails("{\"name\":\"t\",\"participants\":{\"count\":2},\"design\":{\"type\":\"williams\"},"
                "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}]}",
                "t.json: design.type: found \"williams\", expected one of: balanced-latin-square");
    parse_fails("{\"name\":\"t\",\"participants\":{\"count\":2},\"design\":{\"type\":\"explicit\",\"orders\":[[\"a\",\"z\"]]},"
                "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"},{\"name\":\"b\",\"scenario\":\"s\"}]}",
                "t.json: design.orders[0][1]: found \"z\", expected the name of a condition");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],"
                "\"questionnaires\":[{\"id\":\"q\",\"when\":\"after_each\",\"instruments\":[\"tlx\"]}]}",
                "t.json: questionnaires[0].instruments[0]: found \"tlx\", expected one of: nasa-tlx, sus, ssq, kss");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],"
                "\"questionnaires\":[{\"id\":\"q\",\"when\":\"after_each\",\"items\":[{\"id\":\"e\",\"type\":\"likert\",\"text\":\"?\",\"min\":5,\"max\":1}]}]}",
                "t.json: questionnaires[0].items[0]: found min 5, max 1, expected min < max");
    parse_fails("{\"name\":\"t\",\"participants\":{\"count\":2,\"ids\":[\"a\"]},\"design\":{\"type\":\"latin-square\"},"
                "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}]}",
                "t.json: participants: found an object, expected an object with either \"ids\" or \"count\"");
}

/* The "session" section: each field read as given, unset ones left unset (display -1),
 * "console": true without an address; bad values named by their path. */
static void session_section(void **state)
{
    (void)state;
    sim_study *s = parse_ok(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],"
                            "\"session\":{\"fullscreen\":true,\"display\":2,\"screens\":\"three.json\","
                            "\"quality\":\"low\",\"driver\":\"wheel\",\"console\":\"127.0.0.1:7790\"}}");
    assert_true(s->session.fullscreen);
    assert_int_equal(s->session.display, 2);
    assert_string_equal(s->session.screens, "three.json");
    assert_string_equal(s->session.quality, "low");
    assert_string_equal(s->session.driver, "wheel");
    assert_true(s->session.console);
    assert_string_equal(s->session.console_addr, "127.0.0.1:7790");
    sim_study_free(s);
    s = parse_ok(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"session\":{\"console\":true}}");
    assert_false(s->session.fullscreen);
    assert_int_equal(s->session.display, -1);
    assert_string_equal(s->session.quality, "");
    assert_true(s->session.console);
    assert_string_equal(s->session.console_addr, "");
    sim_study_free(s);
    s = parse_ok(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}]}");
    assert_int_equal(s->session.display, -1);
    assert_false(s->session.console);
    sim_study_free(s);
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"session\":{\"quality\":\"ultra\"}}",
                "t.json: session.quality: found \"ultra\", expected one of: low, medium, high");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"session\":{\"display\":64}}",
                "t.json: session.display: found 64");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"session\":{\"driver\":\"robot\"}}",
                "t.json: session.driver: found \"robot\", expected one of: script, wheel, keyboard, scenario");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"session\":{\"console\":7}}",
                "t.json: session.console: found 7, expected true, false or \"HOST:PORT\"");
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"session\":{\"fulscreen\":true}}",
                "t.json: session.fulscreen: unknown field");
    /* primary_measures: the study page opens on them, in their order */
    s = parse_ok(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],"
                 "\"primary_measures\":[\"speed_mean_ms\",\"ssq_total\"]}");
    assert_int_equal(s->n_primary, 2);
    assert_string_equal(s->primary[0], "speed_mean_ms");
    assert_string_equal(s->primary[1], "ssq_total");
    sim_study_free(s);
    parse_fails(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],\"primary_measures\":[\"sdlp_m\",3]}",
                "t.json: primary_measures[1]: found 3, expected a measure name");
}

static void overlay_moves_start_and_sets_params(void **state)
{
    sim_study *s = parse_ok(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s.json\",\"start\":\"two\","
                            "\"params\":{\"light\":\"night\",\"traffic_density\":12.5,\"traffic_seed\":7}}]}");
    cJSON *sc = cJSON_Parse("{\"terrain\":{\"heightmap\":\"h.pgm\"},\"start_points\":[{\"name\":\"one\"},{\"name\":\"two\"}]}");
    sim_error err;
    assert_int_equal(sim_study_scenario_overlay(sc, &s->conditions[0], &err), 0);
    char *out = cJSON_PrintUnformatted(sc);
    assert_string_equal(out, "{\"terrain\":{\"heightmap\":\"h.pgm\"},"
                             "\"start_points\":[{\"name\":\"two\"},{\"name\":\"one\"}],"
                             "\"traffic\":{\"density\":12.5,\"seed\":7},\"environment\":{\"light\":\"night\"}}");
    free(out);
    snprintf(s->conditions[0].start, sizeof s->conditions[0].start, "three");
    assert_int_equal(sim_study_scenario_overlay(sc, &s->conditions[0], &err), SIM_ENOTFOUND);
    assert_non_null(strstr(err.msg, "start point \"three\" not found"));
    cJSON_Delete(sc);
    sim_study_free(s);
}

static int score(const char *id, const double *v, sim_score *out)
{
    sim_error err;
    return sim_instrument_score(sim_instrument_standard(id), v, out, &err);
}

static void tlx_raw_mean(void **state)
{
    /* 70 + 20 + 55 + 30 + 65 + 40 = 280; raw TLX = 280 / 6 = 46.667. */
    double v[] = {70, 20, 55, 30, 65, 40};
    sim_score sc[SIM_SCORES_MAX];
    assert_int_equal(score("nasa-tlx", v, sc), 7);
    assert_string_equal(sc[0].name, "tlx_mental");
    assert_string_equal(sc[6].name, "tlx_raw");
    NEAR(sc[6].value, 280.0 / 6, 1e-12);
    /* 33 is not on the 5-point grid of the scale. */
    double bad[] = {33, 20, 55, 30, 65, 40};
    sim_error err;
    assert_int_equal(sim_instrument_score(sim_instrument_standard("nasa-tlx"), bad, sc, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "nasa-tlx: mental: found 33"));
}

static void sus_brooke(void **state)
{
    /* Answers 4 2 4 1 5 2 4 2 5 1. Odd items contribute x - 1: 3 + 3 + 4 + 3 + 4 = 17;
     * even items 5 - x: 3 + 4 + 3 + 3 + 4 = 17; (17 + 17) * 2.5 = 85. */
    double v[] = {4, 2, 4, 1, 5, 2, 4, 2, 5, 1};
    sim_score sc[SIM_SCORES_MAX];
    assert_int_equal(score("sus", v, sc), 1);
    NEAR(sc[0].value, 85, 1e-12);
    /* All neutral (3): 5 * 2 + 5 * 2 = 20, * 2.5 = 50. */
    double mid[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    score("sus", mid, sc);
    NEAR(sc[0].value, 50, 1e-12);
}

static void ssq_kennedy(void **state)
{
    /* Items 1..16 answered 1 2 0 1 1 0 1 1 0 1 0 0 0 0 1 0.
     * Nausea (1, 6, 7, 8, 9, 15, 16): 1 + 0 + 1 + 1 + 0 + 1 + 0 = 4 -> 4 * 9.54 = 38.16
     * Oculomotor (1, 2, 3, 4, 5, 9, 11): 1 + 2 + 0 + 1 + 1 + 0 + 0 = 5 -> 5 * 7.58 = 37.90
     * Disorientation (5, 8, 10, 11, 12, 13, 14): 1 + 1 + 1 + 0 + 0 + 0 + 0 = 3 -> 41.76
     * Total (4 + 5 + 3) * 3.74 = 44.88. */
    double v[] = {1, 2, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0};
    sim_score sc[SIM_SCORES_MAX];
    assert_int_equal(score("ssq", v, sc), 4);
    assert_string_equal(sc[0].name, "ssq_nausea");
    NEAR(sc[0].value, 38.16, 1e-9);
    NEAR(sc[1].value, 37.90, 1e-9);
    NEAR(sc[2].value, 41.76, 1e-9);
    NEAR(sc[3].value, 44.88, 1e-9);
    /* Every item severe (3): the maxima Kennedy et al. give, 200.34, 159.18, 292.32
     * and 235.62 (21 * 9.54, 21 * 7.58, 21 * 13.92, 63 * 3.74). */
    double max[16];
    for (int i = 0; i < 16; i++) max[i] = 3;
    score("ssq", max, sc);
    NEAR(sc[0].value, 200.34, 1e-9);
    NEAR(sc[1].value, 159.18, 1e-9);
    NEAR(sc[2].value, 292.32, 1e-9);
    NEAR(sc[3].value, 235.62, 1e-9);
}

static void kss_and_custom(void **state)
{
    double v[] = {7};
    sim_score sc[SIM_SCORES_MAX];
    assert_int_equal(score("kss", v, sc), 1);
    NEAR(sc[0].value, 7, 0);
    double bad[] = {10};
    sim_error err;
    assert_int_equal(sim_instrument_score(sim_instrument_standard("kss"), bad, sc, &err), SIM_EINVAL);
    sim_study *s = parse_ok(HEAD "\"conditions\":[{\"name\":\"a\",\"scenario\":\"s\"}],"
                            "\"questionnaires\":[{\"id\":\"post\",\"when\":\"after_each\",\"instruments\":[\"kss\"],"
                            "\"items\":[{\"id\":\"ease\",\"type\":\"likert\",\"text\":\"Easy?\",\"min\":1,\"max\":7},"
                            "{\"id\":\"note\",\"type\":\"text\",\"text\":\"Anything else?\"}]}]}");
    const sim_questionnaire *q = &s->questionnaires[0];
    assert_int_equal(q->n_instruments, 2);
    assert_int_equal(q->instruments[1].scoring, SIM_SCORE_NONE);
    assert_int_equal(q->instruments[1].items[1].kind, SIM_ITEM_TEXT);
    assert_true(sim_item_value_ok(&q->instruments[1].items[0], 7));
    assert_false(sim_item_value_ok(&q->instruments[1].items[0], 7.5));
    /* kss 6, ease 5, a note: scores kss = 6 and ease = 5; the note is no measure. */
    const char *items[] = {"kss", "ease", "note"};
    double values[] = {6, 5, 0};
    const char *texts[] = {NULL, NULL, "fine"};
    sim_error e2;
    assert_int_equal(sim_questionnaire_check(q, 3, items, values, texts, &e2), 0);
    assert_int_equal(sim_questionnaire_scores(q, 3, items, values, sc, SIM_SCORES_MAX, &e2), 2);
    assert_string_equal(sc[0].name, "kss");
    NEAR(sc[0].value, 6, 0);
    assert_string_equal(sc[1].name, "ease");
    NEAR(sc[1].value, 5, 0);
    assert_int_equal(sim_questionnaire_check(q, 2, items + 1, values + 1, texts + 1, &e2), SIM_EINVAL);
    assert_string_equal(e2.msg, "post: not answered: kss (answer each item or skip it as \"prefer not to answer\")");
    /* Nothing but the note: every scale item left alone is named. */
    assert_int_equal(sim_questionnaire_check(q, 1, items + 2, values + 2, texts + 2, &e2), SIM_EINVAL);
    assert_string_equal(e2.msg, "post: not answered: kss, ease (answer each item or skip it as \"prefer not to "
                                "answer\")");
    values[1] = 8;
    assert_int_equal(sim_questionnaire_check(q, 3, items, values, texts, &e2), SIM_EINVAL);
    assert_string_equal(e2.msg, "post: ease: found 8, expected 1..7 in steps of 1");
    const char *other[] = {"kss", "ease", "mood"};
    values[1] = 5;
    assert_int_equal(sim_questionnaire_check(q, 3, other, values, texts, &e2), SIM_EINVAL);
    assert_string_equal(e2.msg, "post: mood: not an item of this questionnaire");
    /* ease skipped (NAN, no text): accepted, and its measure is missing, not a number. */
    values[1] = SIM_ITEM_MISSING;
    assert_int_equal(sim_questionnaire_check(q, 3, items, values, texts, &e2), 0);
    assert_int_equal(sim_questionnaire_scores(q, 3, items, values, sc, SIM_SCORES_MAX, &e2), 2);
    assert_string_equal(sc[1].name, "ease");
    assert_true(isnan(sc[1].value));
    NEAR(sc[0].value, 6, 0);
    sim_study_free(s);
}

/* The value of a named level of a standard item ("slight"), as the page's choice. */
static double level(const sim_item *it, const char *name)
{
    for (int k = 0; k < it->n_labels; k++)
        if (!strcmp(it->labels[k], name)) return it->min + k * it->step;
    fail_msg("%s: no level '%s'", it->id, name);
    return NAN;
}

static void ssq_from_named_levels_by_hand(void **state)
{
    const sim_instrument *ssq = sim_instrument_standard("ssq");
    assert_int_equal(ssq->items[0].n_labels, 4);
    assert_string_equal(ssq->items[0].labels[3], "severe");
    static const char *const answers[16] = {"slight", "moderate", "none", "severe", "slight", "none", "none",
                                            "moderate", "slight", "none", "slight", "none", "none", "slight",
                                            "moderate", "none"};
    double v[16];
    for (int i = 0; i < 16; i++) v[i] = level(&ssq->items[i], answers[i]);
    /* By hand: values 1 2 0 3 1 0 0 2 1 0 1 0 0 1 2 0.
     * N (1, 6, 7, 8, 9, 15, 16) = 1 + 0 + 0 + 2 + 1 + 2 + 0 = 6 -> 6 * 9.54 = 57.24
     * O (1, 2, 3, 4, 5, 9, 11)  = 1 + 2 + 0 + 3 + 1 + 1 + 1 = 9 -> 9 * 7.58 = 68.22
     * D (5, 8, 10, 11, 12, 13, 14) = 1 + 2 + 0 + 1 + 0 + 0 + 1 = 5 -> 5 * 13.92 = 69.60
     * total (6 + 9 + 5) * 3.74 = 74.80 */
    sim_score sc[SIM_SCORES_MAX];
    assert_int_equal(score("ssq", v, sc), 4);
    NEAR(sc[0].value, 57.24, 1e-9);
    NEAR(sc[1].value, 68.22, 1e-9);
    NEAR(sc[2].value, 69.60, 1e-9);
    NEAR(sc[3].value, 74.80, 1e-9);
    /* Vertigo (item 14, disorientation only) skipped: N and O stand, D and the total
     * are missing (Kennedy et al. give no rule for a missing symptom). */
    v[13] = SIM_ITEM_MISSING;
    assert_int_equal(score("ssq", v, sc), 4);
    NEAR(sc[0].value, 57.24, 1e-9);
    NEAR(sc[1].value, 68.22, 1e-9);
    assert_true(isnan(sc[2].value));
    assert_true(isnan(sc[3].value));
}

static void missing_items_follow_each_rule(void **state)
{
    sim_score sc[SIM_SCORES_MAX];
    /* TLX: a skipped subscale is missing and so is the raw mean; the others stand. */
    double tlx[] = {70, SIM_ITEM_MISSING, 55, 30, 65, 40};
    assert_int_equal(score("nasa-tlx", tlx, sc), 7);
    NEAR(sc[0].value, 70, 0);
    assert_true(isnan(sc[1].value));
    assert_true(isnan(sc[6].value));
    /* SUS (Brooke 1996: an item one cannot answer is marked at the centre point):
     * 4 2 _ 1 5 2 4 2 5 1 -> odd items 3 + 2 + 4 + 3 + 4 = 16, even 17; 33 * 2.5 = 82.5. */
    double sus[] = {4, 2, SIM_ITEM_MISSING, 1, 5, 2, 4, 2, 5, 1};
    assert_int_equal(score("sus", sus, sc), 1);
    NEAR(sc[0].value, 82.5, 1e-12);
    double none[10];
    for (int i = 0; i < 10; i++) none[i] = SIM_ITEM_MISSING;
    score("sus", none, sc);
    assert_true(isnan(sc[0].value));
    /* KSS skipped: missing. */
    double kss[] = {SIM_ITEM_MISSING};
    assert_int_equal(score("kss", kss, sc), 1);
    assert_true(isnan(sc[0].value));
    /* TLX's 21 marks: 0..100 in steps of 5, with the anchors of the form. */
    const sim_instrument *t = sim_instrument_standard("nasa-tlx");
    assert_int_equal((int)((t->items[0].max - t->items[0].min) / t->items[0].step) + 1, 21);
    assert_string_equal(t->items[3].low, "perfect");
    assert_string_equal(t->items[3].high, "failure");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(williams_4_over_8),
        cmocka_unit_test(ssq_from_named_levels_by_hand),
        cmocka_unit_test(missing_items_follow_each_rule),
        cmocka_unit_test(williams_odd_is_doubled),
        cmocka_unit_test(latin_square_positions),
        cmocka_unit_test(random_is_seeded),
        cmocka_unit_test(explicit_orders_practice_and_after),
        cmocka_unit_test(participant_ids_from_count),
        cmocka_unit_test(errors_name_the_path),
        cmocka_unit_test(session_section),
        cmocka_unit_test(overlay_moves_start_and_sets_params),
        cmocka_unit_test(tlx_raw_mean),
        cmocka_unit_test(sus_brooke),
        cmocka_unit_test(ssq_kennedy),
        cmocka_unit_test(kss_and_custom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
