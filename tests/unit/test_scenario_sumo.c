/* Unit tests of a scenario's "traffic": {"engine": "sumo"} (sim_scenario_sumo.c): the
 * fields and defaults, files resolved beside the scenario, and what SUMO does not do
 * refused with the field named: agents, density, triggers, a sumo section without the
 * engine; JSON roads taken (exported for netconvert), but not with traffic lights,
 * which their export does not carry; guessed lights or pedestrians beside a network
 * given. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sim_scenario.h"

#define ROAD "\"roads\": [{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0}, \"segments\": " \
             "[{\"type\": \"line\", \"length\": 100}], \"lanes\": {\"right\": [{\"width\": 3.5}]}}]"

static int parse(const char *text, sim_scenario **sc, char *first, size_t cap)
{
    sim_diag d = {0};
    int rc = sim_scenario_parse(text, strlen(text), "t.json", "/data", sc, &d);
    first[0] = 0;
    if (d.n) snprintf(first, cap, "%s", d.msgs[0]);
    sim_diag_free(&d);
    return rc;
}

static void fields_and_defaults(void **state)
{
    sim_scenario *sc;
    char msg[512];
    assert_int_equal(parse("{\"format\": 1, \"name\": \"x\", " ROAD ", \"traffic\": {\"engine\": \"sumo\", \"seed\": 9, "
                           "\"sumo\": {\"net\": \"n.net.xml\", \"routes\": [\"a.rou.xml\", \"b.rou.xml\"], "
                           "\"warmup_s\": 5}}}",
                           &sc, msg, sizeof msg),
                     0);
    assert_int_equal(sc->traffic_engine, SIM_TRAFFIC_ENGINE_SUMO);
    assert_int_equal(sc->traffic_seed, 9);
    assert_string_equal(sc->sumo.net, "/data/n.net.xml");
    assert_int_equal(sc->sumo.n_routes, 2);
    assert_string_equal(sc->sumo.routes[1], "/data/b.rou.xml");
    assert_true(sc->sumo.warmup_s == 5 && sc->sumo.period_s == 2 && sc->sumo.end_s == 3600);
    assert_false(sc->sumo.tls_guess);
    assert_true(sc->sumo.pedestrian_period_s == 0);
    sim_scenario_free(sc);
    /* JSON roads and no network named: netconvert gets their OpenDRIVE export */
    assert_int_equal(parse("{\"format\": 1, \"name\": \"x\", " ROAD ", \"traffic\": {\"engine\": \"sumo\"}}", &sc, msg,
                           sizeof msg),
                     0);
    assert_null(sc->sumo.net);
    assert_null(sc->opendrive);
    sim_scenario_free(sc);
    assert_int_equal(parse("{\"format\": 1, \"name\": \"x\", " ROAD "}", &sc, msg, sizeof msg), 0);
    assert_int_equal(sc->traffic_engine, SIM_TRAFFIC_ENGINE_OWN);
    sim_scenario_free(sc);
}

static void refusals(void **state)
{
    static const struct { const char *traffic, *words; } cases[] = {
        {"{\"engine\": \"sumo\", \"density\": 5, \"sumo\": {\"net\": \"n\"}}", "traffic.density: found 5"},
        {"{\"sumo\": {\"net\": \"n\"}}", "traffic.sumo: found a sumo section"},
        {"{\"engine\": \"carla\"}", "traffic.engine"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\", \"period\": 1}}", "period"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\", \"routes\": [3]}}", "traffic.sumo.routes[0]"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\"}, \"agents\": [{\"id\": \"c\", \"start\": {\"road\": \"a\", "
         "\"s\": 10, \"lane\": -1}, \"desired_speed_kmh\": 50}]}",
         "traffic.agents: found 1 agents"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\", \"tls_guess\": true}}", "traffic.sumo.tls_guess: found true"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\", \"tls_guess\": 1}}", "traffic.sumo.tls_guess"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\", \"pedestrian_period_s\": 2}}",
         "traffic.sumo.pedestrian_period_s: found 2 with traffic.sumo.net"},
        {"{\"engine\": \"sumo\", \"sumo\": {\"net\": \"n\", \"pedestrian_period_s\": -1}}",
         "traffic.sumo.pedestrian_period_s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024], msg[512];
        snprintf(text, sizeof text, "{\"format\": 1, \"name\": \"x\", " ROAD ", \"traffic\": %s}", cases[i].traffic);
        sim_scenario *sc = NULL;
        assert_int_equal(parse(text, &sc, msg, sizeof msg), SIM_EINVAL);
        if (!strstr(msg, cases[i].words)) fail_msg("case %zu: \"%s\" lacks \"%s\"", i, msg, cases[i].words);
    }
}

/* JSON roads with traffic lights: refused, naming the section (SUMO would get no lights). */
static void json_lights_refused(void **state)
{
    sim_scenario *sc = NULL;
    char msg[512];
    assert_int_equal(parse("{\"format\": 1, \"name\": \"x\", " ROAD ", \"traffic\": {\"engine\": \"sumo\"}, "
                           "\"traffic_lights\": {\"heads\": [{\"id\": \"h\", \"road\": \"a\", \"s\": 90, \"t\": -5}]}}",
                           &sc, msg, sizeof msg),
                     SIM_EINVAL);
    if (!strstr(msg, "traffic_lights: found 1 heads")) fail_msg("\"%s\"", msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields_and_defaults),
        cmocka_unit_test(refusals),
        cmocka_unit_test(json_lights_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
