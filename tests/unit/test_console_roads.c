/* Unit tests of the console's map (console/roads.c): a straight 100 m road along +x
 * with two right lanes of 3.5 m is sampled every 2 m (51 points per line), its left
 * edge on the reference line (no left lanes), its right edge at y = -7 m; a trigger's
 * zone over s 20..30 is the polygon of that stretch; POIs and start points at their
 * world positions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "sim_scenario.h"

static const char SCENARIO[] =
    "{\"format\":1,\"name\":\"map test\","
    "\"roads\":[{\"id\":\"r\",\"start\":{\"x\":10,\"y\":5,\"heading_deg\":0},"
    "\"segments\":[{\"type\":\"line\",\"length\":100}],"
    "\"lanes\":{\"right\":[{\"width\":3.5},{\"width\":3.5}]}}],"
    "\"start_points\":[{\"name\":\"go\",\"road\":\"r\",\"s\":10,\"lane\":-1}],"
    "\"pois\":[{\"id\":\"p1\",\"name\":\"Fuel\",\"category\":\"fuel\",\"position\":{\"x\":50,\"y\":20}}],"
    "\"triggers\":[{\"id\":\"z\",\"road\":\"r\",\"s_start\":20,\"s_end\":30,"
    "\"action\":{\"type\":\"log_mark\",\"text\":\"zone\"}}]}";

static double at(const cJSON *line, int i, int k)
{
    return cJSON_GetArrayItem(cJSON_GetArrayItem(line, i), k)->valuedouble;
}

static void straight_road(void **state)
{
    (void)state;
    sim_scenario *sc = NULL;
    sim_diag diag = {0};
    if (sim_scenario_parse(SCENARIO, strlen(SCENARIO), "test", NULL, &sc, &diag) != 0)
        fail_msg("scenario: %s", diag.n ? diag.msgs[0] : "?");
    char *json = NULL;
    assert_int_equal(console_roads_json(sc, &json), 0);
    cJSON *map = cJSON_Parse(json);
    assert_non_null(map);
    const cJSON *road = cJSON_GetArrayItem(cJSON_GetObjectItem(map, "roads"), 0);
    assert_string_equal(cJSON_GetObjectItem(road, "id")->valuestring, "r");
    const cJSON *left = cJSON_GetObjectItem(road, "left"), *right = cJSON_GetObjectItem(road, "right"),
                *center = cJSON_GetObjectItem(road, "center");
    assert_int_equal(cJSON_GetArraySize(left), 51);
    assert_int_equal(cJSON_GetArraySize(right), 51);
    assert_int_equal(cJSON_GetArraySize(center), 51);
    for (int i = 0; i <= 50; i++) {
        assert_true(fabs(at(center, i, 0) - (10 + 2.0 * i)) < 0.006);
        assert_true(fabs(at(center, i, 1) - 5) < 0.006);
        assert_true(fabs(at(left, i, 1) - 5) < 0.006);
        assert_true(fabs(at(right, i, 1) - (5 - 7)) < 0.006);
    }
    const cJSON *trig = cJSON_GetArrayItem(cJSON_GetObjectItem(map, "triggers"), 0);
    assert_string_equal(cJSON_GetObjectItem(trig, "id")->valuestring, "z");
    assert_string_equal(cJSON_GetObjectItem(trig, "action")->valuestring, "log_mark");
    const cJSON *poly = cJSON_GetObjectItem(trig, "polygon");
    assert_int_equal(cJSON_GetArraySize(poly), 12); /* 6 points along each edge, 2 m apart */
    assert_true(fabs(at(poly, 0, 0) - 30) < 0.006 && fabs(at(poly, 0, 1) - 5) < 0.006);
    assert_true(fabs(at(poly, 5, 0) - 40) < 0.006);
    assert_true(fabs(at(poly, 6, 0) - 40) < 0.006 && fabs(at(poly, 6, 1) + 2) < 0.006);
    assert_true(fabs(at(poly, 11, 0) - 30) < 0.006);
    const cJSON *poi = cJSON_GetArrayItem(cJSON_GetObjectItem(map, "pois"), 0);
    assert_string_equal(cJSON_GetObjectItem(poi, "name")->valuestring, "Fuel");
    assert_true(cJSON_GetObjectItem(poi, "x")->valuedouble == 50 && cJSON_GetObjectItem(poi, "y")->valuedouble == 20);
    const cJSON *start = cJSON_GetArrayItem(cJSON_GetObjectItem(map, "starts"), 0);
    assert_string_equal(cJSON_GetObjectItem(start, "name")->valuestring, "go");
    assert_true(fabs(cJSON_GetObjectItem(start, "x")->valuedouble - 20) < 0.006);
    assert_true(fabs(cJSON_GetObjectItem(start, "y")->valuedouble - (5 - 1.75)) < 0.006);
    cJSON_Delete(map);
    free(json);
    sim_scenario_free(sc);
    sim_diag_free(&diag);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(straight_road)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
