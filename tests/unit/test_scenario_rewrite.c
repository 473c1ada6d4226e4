/* Unit tests of sim_scenario_rewrite (a study condition's copy of a scenario): every
 * field of sim_scenario_file_fields made absolute and nothing else touched (field-exact
 * on a small scenario); the fields are the ones the loader joins (a scenario rewritten
 * and loaded from another folder names the same files as the original loaded from its
 * own); scenarios/motorway-sumo.json and scenarios/rural.json copied into a temporary
 * folder load there with every file (SUMO routes, height map) resolving to one that
 * exists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_file.h"
#include "sim_scenario.h"
#include "sim_scenario_rewrite.h"
#include "sim_study.h"

static sim_study *study(const char *scenario, const char *start)
{
    char text[1024], st[128] = "";
    if (start[0]) snprintf(st, sizeof st, "\"start\":\"%s\",", start);
    snprintf(text, sizeof text,
             "{\"name\":\"t\",\"participants\":{\"count\":1},\"design\":{\"type\":\"latin-square\"},"
             "\"conditions\":[{\"name\":\"a\",\"scenario\":\"%s\",%s\"params\":{\"light\":\"night\"}}]}",
             scenario, st);
    sim_study *s = NULL;
    sim_error err = {0};
    int rc = sim_study_parse(text, strlen(text), "t.json", &s, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    return s;
}

static void paths_field_exact(void **state)
{
    (void)state;
    cJSON *sc = cJSON_Parse("{\"name\":\"x\",\"terrain\":{\"heightmap\":\"h.pgm\",\"friction\":{\"map\":\"/abs/f.png\"}},"
                            "\"roads\":{\"opendrive\":\"../od/r.xodr\"},\"description\":\"h.pgm\","
                            "\"traffic\":{\"engine\":\"sumo\",\"sumo\":{\"net\":\"n.net.xml\","
                            "\"routes\":[\"a.rou.xml\",\"/r/b.rou.xml\",7,\"\"]}}}");
    sim_error err = {0};
    assert_int_equal(sim_scenario_rewrite_paths(sc, "/data/scen", &err), 0);
    char *out = cJSON_PrintUnformatted(sc);
    assert_string_equal(out, "{\"name\":\"x\",\"terrain\":{\"heightmap\":\"/data/scen/h.pgm\",\"friction\":{\"map\":\"/abs/f.png\"}},"
                             "\"roads\":{\"opendrive\":\"/data/scen/../od/r.xodr\"},\"description\":\"h.pgm\","
                             "\"traffic\":{\"engine\":\"sumo\",\"sumo\":{\"net\":\"/data/scen/n.net.xml\","
                             "\"routes\":[\"/data/scen/a.rou.xml\",\"/r/b.rou.xml\",7,\"\"]}}}");
    free(out);
    cJSON_Delete(sc);
    /* JSON roads (an array) and a friction number: not file fields, left as they are. */
    sc = cJSON_Parse("{\"roads\":[{\"id\":\"a\"}],\"terrain\":{\"heightmap\":7,\"friction\":0.5}}");
    assert_int_equal(sim_scenario_rewrite_paths(sc, "/d", &err), 0);
    out = cJSON_PrintUnformatted(sc);
    assert_string_equal(out, "{\"roads\":[{\"id\":\"a\"}],\"terrain\":{\"heightmap\":7,\"friction\":0.5}}");
    free(out);
    cJSON_Delete(sc);
}

#define ROAD "\"roads\": [{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0}, \"segments\": " \
             "[{\"type\": \"line\", \"length\": 100}], \"lanes\": {\"right\": [{\"width\": 3.5}]}}]"

/* The loader resolves a SUMO scenario's files against its folder; the rewritten copy,
 * loaded from elsewhere, resolves them to the same names. */
static void loader_and_rewrite_agree(void **state)
{
    (void)state;
    const char *text = "{\"format\": 1, \"name\": \"x\", " ROAD ", \"start_points\": [{\"name\": \"s\", \"road\": \"a\", "
                       "\"s\": 10, \"lane\": -1}], \"traffic\": {\"engine\": \"sumo\", \"sumo\": {\"net\": \"n.net.xml\", "
                       "\"routes\": [\"a.rou.xml\", \"sub/b.rou.xml\"]}}}";
    sim_diag d = {0};
    sim_scenario *orig = NULL, *copy = NULL;
    assert_int_equal(sim_scenario_parse(text, strlen(text), "t.json", "/data/scen", &orig, &d), 0);
    cJSON *j = cJSON_Parse(text);
    sim_error err = {0};
    assert_int_equal(sim_scenario_rewrite_paths(j, "/data/scen", &err), 0);
    char *rw = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    assert_int_equal(sim_scenario_parse(rw, strlen(rw), "copy.json", "/out/drives/P01", &copy, &d), 0);
    free(rw);
    assert_string_equal(orig->sumo.net, "/data/scen/n.net.xml");
    assert_string_equal(copy->sumo.net, orig->sumo.net);
    assert_int_equal(copy->sumo.n_routes, 2);
    for (int i = 0; i < 2; i++) assert_string_equal(copy->sumo.routes[i], orig->sumo.routes[i]);
    assert_string_equal(copy->sumo.routes[1], "/data/scen/sub/b.rou.xml");
    sim_scenario_free(orig);
    sim_scenario_free(copy);
    sim_diag_free(&d);
}

/* The condition's copy written into a fresh folder (as a drive's), loaded from there. */
static sim_scenario *copy_and_load(const char *scenario, const char *start, char *dir, char *copy_path)
{
    sim_study *s = study(scenario, start);
    char *text = NULL;
    sim_error err = {0};
    int rc = sim_scenario_rewrite(scenario, &s->conditions[0], &text, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    sim_study_free(s);
    strcpy(dir, "/tmp/test_scenario_rewrite.XXXXXX");
    assert_non_null(mkdtemp(dir));
    sprintf(copy_path, "%s/copy.json", dir);
    FILE *f = fopen(copy_path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    rc = sim_scenario_load(copy_path, &sc, &d);
    for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
    assert_int_equal(rc, 0);
    sim_diag_free(&d);
    return sc;
}

static void motorway_sumo_copy_resolves(void **state)
{
    (void)state;
    char dir[64], path[128], real[PATH_MAX], want[PATH_MAX + 64];
    sim_scenario *sc = copy_and_load("scenarios/motorway-sumo.json", "curves", dir, path);
    assert_int_equal(sc->traffic_engine, SIM_TRAFFIC_ENGINE_SUMO);
    assert_int_equal(sc->sumo.n_routes, 1);
    assert_non_null(realpath("scenarios", real));
    snprintf(want, sizeof want, "%s/motorway-sumo.rou.xml", real);
    assert_string_equal(sc->sumo.routes[0], want);
    assert_int_equal(access(sc->sumo.routes[0], R_OK), 0);
    assert_null(sc->sumo.net); /* netconvert makes it from the roads */
    assert_string_equal(sc->starts[0].name, "curves"); /* the condition's start first */
    sim_scenario_free(sc);
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* nothing else was written there */
}

static void rural_heightmap_copy_resolves(void **state)
{
    (void)state;
    char dir[64], path[128];
    sim_scenario *sc = copy_and_load("scenarios/rural.json", "", dir, path);
    assert_non_null(sc->terrain); /* read from scenarios/rural-terrain.pgm, not dir */
    sim_scenario_free(sc);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_field_exact),
        cmocka_unit_test(loader_and_rewrite_agree),
        cmocka_unit_test(motorway_sumo_copy_resolves),
        cmocka_unit_test(rural_heightmap_copy_resolves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
