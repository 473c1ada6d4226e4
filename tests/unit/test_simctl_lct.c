/* Unit test of simctl's Lane Change Test scenario writer (simctl/lct_scenario.c): the
 * scenario of a generated track loads in the world model with the standard's geometry. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd_xodr.h"
#include "sim_lct.h"
#include "sim_scenario.h"
#include "simctl.h"

/* simctl's main.c (not linked into module tests) answers this; nothing here runs it. */
const char *simctl_bin_dir(void)
{
    return "bin";
}

/* The scenario of track 1 loads in the world model: one straight road of 3000 m whose
 * right lanes are 3.85 m wide (centres at d = -1.925, -5.775, -9.625), limit 60 km/h, 18
 * lane-change signs naming the target lane, and the task's ideal path (normative model)
 * in the start lane until 30 m before the first sign, in the first target lane from
 * 10 m before it (a 20 m ramp). */
static void lct_scenario_loads(void **state)
{
    (void)state;
    sim_lct_params p;
    sim_lct_params_init(&p);
    sim_lct_track t;
    sim_error err = {0};
    assert_int_equal(sim_lct_track_make(&p, &t, &err), 0);
    cJSON *j = lct_scenario_json(&p, &t);
    assert_non_null(j);
    char *txt = cJSON_Print(j);
    cJSON_Delete(j);
    sim_scenario *sc;
    sim_diag diag = {0};
    int rc = sim_scenario_parse(txt, strlen(txt), "lct.json", NULL, &sc, &diag);
    free(txt);
    if (rc) fail_msg("%s", diag.n ? diag.msgs[0] : "?");
    assert_int_equal(sc->net.n_roads, 1);
    const sim_road *r = &sc->net.roads[0];
    assert_true(fabs(r->length - 3000) < 1e-9);
    double c1, c2, c3;
    assert_true(sim_road_lane_center(r, 500, -1, &c1) && sim_road_lane_center(r, 500, -2, &c2) &&
                sim_road_lane_center(r, 500, -3, &c3));
    assert_true(fabs(c1 + 1.925) < 1e-9 && fabs(c2 + 5.775) < 1e-9 && fabs(c3 + 9.625) < 1e-9);
    assert_true(fabs(sim_road_speed_limit(r, 1000) - 60 / 3.6) < 1e-9);
    assert_int_equal(sc->n_tasks, 1);
    const sim_task *tk = &sc->tasks[0];
    double s_sign = t.change[0].sign_s;
    double d_from = -(t.change[0].from_lane - 0.5) * 3.85, d_to = -(t.change[0].to_lane - 0.5) * 3.85;
    assert_true(fabs(sim_task_ideal_d(tk, s_sign - 31) - d_from) < 1e-9);
    assert_true(fabs(sim_task_ideal_d(tk, s_sign - 10) - d_to) < 1e-9);
    assert_true(fabs(sim_task_ideal_d(tk, s_sign - 20) - (d_from + d_to) / 2) < 1e-6);
    /* 18 lane-change boards where the track puts its signs, each naming the target lane
     * and blank until 40 m (ISO 26022's legibility distance), and the 60 km/h sign */
    int boards = 0;
    for (int i = 0; i < r->n_signs; i++) {
        const sim_sign *g = &r->signs[i];
        if (g->type != SIM_SIGN_LANE_CHANGE) {
            assert_int_equal(g->type, SIM_SIGN_SPEED_LIMIT);
            assert_true(g->legible_m == 0);
            continue;
        }
        assert_true(boards < SIM_LCT_CHANGES);
        assert_true(g->s == t.change[boards].sign_s);
        assert_int_equal(g->lane, -t.change[boards].to_lane);
        assert_true(g->legible_m == 40);
        boards++;
    }
    assert_int_equal(boards, SIM_LCT_CHANGES);
    sim_scenario_free(sc);
    sim_diag_free(&diag);
}

/* legible_m belongs to lane-change boards: given on another sign it is refused with the
 * sign's path; a negative one is refused too. */
static void legible_m_refused_elsewhere(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"{\"s\": 10, \"type\": \"speed_limit\", \"speed_kmh\": 60, \"legible_m\": 40}",
         "roads[0].signs[0]: legible_m is for lane_change signs only"},
        {"{\"s\": 10, \"type\": \"lane_change\", \"lane\": -1, \"legible_m\": -1}",
         "roads[0].signs[0].legible_m"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char txt[1024];
        snprintf(txt, sizeof txt,
                 "{\"format\": 1, \"roads\": [{\"id\": \"r\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0},"
                 " \"segments\": [{\"type\": \"line\", \"length\": 100}],"
                 " \"lanes\": {\"right\": [{\"width\": 3.5}]}, \"signs\": [%s]}]}",
                 bad[k][0]);
        sim_scenario *sc = NULL;
        sim_diag diag = {0};
        assert_int_not_equal(sim_scenario_parse(txt, strlen(txt), "x.json", NULL, &sc, &diag), 0);
        int found = 0;
        for (int i = 0; i < diag.n; i++) found |= strstr(diag.msgs[i], bad[k][1]) != NULL;
        if (!found) fail_msg("case %zu: %s", k, diag.n ? diag.msgs[0] : "(no message)");
        sim_diag_free(&diag);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lct_scenario_loads),
        cmocka_unit_test(legible_m_refused_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
