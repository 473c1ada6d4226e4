/* Unit test of the HUD's speed unit (render-node/hud.c) and the scenario's
 * environment.speed_unit that sets it: km/h by default, mph where the scenario says
 * (Town03's limits are given in mph: a 25 mph limit reads 25, not 40). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hud.h"
#include "sim_scenario.h"

double rn_now(void) { return 0.0; } /* main.c's clock, left out of this test */

static void texts_in_either_unit(void **state)
{
    (void)state;
    rn_hud h;
    rn_hud_init(&h);
    char speed[32], limit[16];
    rn_hud_speed_texts(&h, speed, limit);
    assert_string_equal(speed, "");
    assert_string_equal(limit, "");
    double v = 26.8224; /* 60 mph */
    h.speed_kmh = (int)lround(v * 3.6);
    h.speed_mph = (int)lround(v * 3.6 / RN_KMH_PER_MPH);
    h.limit_kmh = 25 * RN_KMH_PER_MPH; /* an OpenDRIVE limit of 25 mph */
    rn_hud_speed_texts(&h, speed, limit);
    assert_string_equal(speed, "97 km/h");
    assert_string_equal(limit, "40");
    h.mph = true;
    rn_hud_speed_texts(&h, speed, limit);
    assert_string_equal(speed, "60 mph");
    assert_string_equal(limit, "25");
}

static sim_scenario *parse(const char *env, sim_diag *d)
{
    char js[512];
    snprintf(js, sizeof js,
             "{\"name\":\"u\",%s\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},"
             "\"segments\":[{\"type\":\"line\",\"length\":50}],\"lanes\":{\"right\":[{\"width\":3.5}]}}]}",
             env);
    sim_scenario *sc = NULL;
    sim_scenario_parse(js, strlen(js), "u.json", ".", &sc, d);
    return sc;
}

static void scenario_speed_unit(void **state)
{
    (void)state;
    sim_diag d = {0};
    sim_scenario *sc = parse("", &d);
    assert_non_null(sc);
    assert_false(sc->env.speed_mph);
    sim_scenario_free(sc);
    sc = parse("\"environment\":{\"speed_unit\":\"mph\"},", &d);
    assert_non_null(sc);
    assert_true(sc->env.speed_mph);
    sim_scenario_free(sc);
    sc = parse("\"environment\":{\"speed_unit\":\"kmh\"},", &d);
    assert_non_null(sc);
    assert_false(sc->env.speed_mph);
    sim_scenario_free(sc);
    sim_diag bad = {0};
    sc = parse("\"environment\":{\"speed_unit\":\"knots\"},", &bad);
    assert_null(sc);
    char all[2048] = "";
    for (int i = 0; i < bad.n && i < 8; i++)
        strncat(all, bad.msgs[i], sizeof all - strlen(all) - 1);
    printf("%s\n", all);
    assert_non_null(strstr(all, "environment.speed_unit"));
    sim_diag_free(&bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(texts_in_either_unit),
        cmocka_unit_test(scenario_speed_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
