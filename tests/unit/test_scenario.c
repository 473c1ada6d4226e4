/* Unit tests of sim_scenario: loading a complete small world (tests/data/
 * scenario_small.json), the exact error messages for a broken one, JSON syntax
 * errors with line and column, the ideal-line function and the ground query. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_scenario.h"
#include "sim_grid_image.h"

#include "ts_assert.h"
#define SMALL "tests/data/scenario_small.json"
#define INVALID "tests/data/scenario_invalid.json"

static sim_scenario *load_ok(const char *path)
{
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    int rc = sim_scenario_load(path, &sc, &d);
    for (int i = 0; i < d.n; i++) print_error("%s\n", d.msgs[i]);
    assert_int_equal(rc, 0);
    assert_int_equal(d.n, 0);
    sim_diag_free(&d);
    return sc;
}

static void small_world_loads(void **state)
{
    sim_scenario *sc = load_ok(SMALL);
    assert_string_equal(sc->name, "small test world");
    assert_non_null(sc->terrain);
    assert_int_equal(sc->terrain->height.nx, 5);
    /* Plane 2 m per 100 m east: at x = 50 (u = 1.5, interior) z = 3 exactly. */
    NEAR(sim_terrain_height(sc->terrain, 50, -100), 3.0, 1e-12);
    assert_int_equal(sc->net.n_roads, 2);
    const sim_road *a = &sc->net.roads[0];
    NEAR(a->length, 150, 1e-12);
    assert_int_equal(a->n_geoms, 2);
    NEAR(a->geoms[1].k0, 1.0 / 200, 1e-15);
    assert_int_equal(a->succ.kind, SIM_LINK_ROAD);
    assert_int_equal(a->succ.index, 1);
    NEAR(sim_road_speed_limit(a, 75), 20.0, 1e-12);
    assert_int_equal(a->n_signs, 1);
    assert_int_equal(a->signs[0].lane, -2);
    NEAR(a->signs[0].d, -7.5, 0); /* default: 1 m outside the right lanes */
    assert_true(sim_roadnet_connected(&sc->net, 0, 1));
    /* POI by (road, s, d): (50, -12), z from the terrain plane. */
    assert_int_equal(sc->n_pois, 1);
    NEAR(sc->pois[0].x, 50, 1e-9);
    NEAR(sc->pois[0].y, -12, 1e-9);
    NEAR(sc->pois[0].z, 3, 1e-9);
    assert_string_equal(sc->pois[0].attributes_json, "{\"open\":\"24h\"}");
    /* Start points: right lane along s, left lane against it. */
    int b = sim_scenario_find_start(sc, "begin"), k = sim_scenario_find_start(sc, "back");
    assert_true(b >= 0 && k >= 0);
    NEAR(sc->starts[b].x, 10, 1e-9);
    NEAR(sc->starts[b].y, -1.75, 1e-9);
    NEAR(sc->starts[b].heading, 0, 1e-12);
    NEAR(sc->starts[b].speed, 10, 1e-12);
    NEAR(sc->starts[k].y, 1.75, 1e-9);
    NEAR(fabs(sc->starts[k].heading), M_PI, 1e-12);
    assert_int_equal(sim_scenario_find_start(sc, "nope"), -1);
    int idx = -1;
    sim_error serr = {0};
    assert_int_equal(sim_scenario_start_index(sc, NULL, &idx, &serr), SIM_OK);
    assert_int_equal(idx, 0);
    assert_int_equal(sim_scenario_start_index(sc, "back", &idx, &serr), SIM_OK);
    assert_int_equal(idx, k);
    assert_int_equal(sim_scenario_start_index(sc, "nope", &idx, &serr), SIM_ENOTFOUND);
    assert_non_null(strstr(serr.msg, ": start_points: no start point named \"nope\", expected one of: \"begin\", \"back\""));
    /* Traffic. */
    assert_int_equal(sc->traffic_seed, 7);
    assert_int_equal(sc->n_agents, 1);
    assert_int_equal(sc->agents[0].n_route, 2);
    assert_int_equal(sc->agents[0].route[1], 1);
    NEAR(sc->agents[0].desired_speed, 15, 1e-12);
    NEAR(sc->agents[0].behaviour.headway, 2.0, 0);
    NEAR(sc->agents[0].behaviour.max_decel, 3.0, 0); /* default */
    /* Triggers. */
    assert_int_equal(sc->n_triggers, 2);
    assert_int_equal(sc->triggers[0].action, SIM_ACTION_BRAKE);
    assert_int_equal(sc->triggers[0].agent, 0);
    assert_int_equal(sc->triggers[1].by, SIM_BY_AGENT);
    assert_string_equal(sc->triggers[1].text, "car1 passed");
    /* Environment. */
    assert_int_equal(sc->env.light, SIM_LIGHT_DUSK);
    assert_int_equal(sc->env.weather, SIM_WEATHER_RAIN);
    NEAR(sc->env.visibility, 800, 0);
    assert_string_equal(sc->env.ambient_sound, "rain");
    sim_scenario_free(sc);
}

static void ideal_line_from_lane_changes_and_points(void **state)
{
    sim_scenario *sc = load_ok(SMALL);
    int t1 = sim_scenario_find_task(sc, "T1"), t2 = sim_scenario_find_task(sc, "T2");
    const sim_task *t = &sc->tasks[t1];
    /* Lane -1 centre -1.75, lane -2 centre -5.0 (3.5 + 1.5). Changes at 40 (ramp 20)
     * and 100 (ramp 25): points (10,-1.75) (40,-1.75) (60,-5) (100,-5) (125,-1.75). */
    assert_int_equal(t->n_ideal, 5);
    assert_int_equal(t->sector, 0);
    NEAR(t->tube_half_width, 1.2, 0);
    NEAR(sim_task_ideal_d(t, 0), -1.75, 0);
    NEAR(sim_task_ideal_d(t, 40), -1.75, 0);
    NEAR(sim_task_ideal_d(t, 50), -3.375, 1e-12);
    NEAR(sim_task_ideal_d(t, 60), -5.0, 0);
    NEAR(sim_task_ideal_d(t, 80), -5.0, 0);
    NEAR(sim_task_ideal_d(t, 112.5), -3.375, 1e-12);
    NEAR(sim_task_ideal_d(t, 140), -1.75, 0);
    const sim_task *u = &sc->tasks[t2];
    NEAR(sim_task_ideal_d(u, 55), -3.375, 1e-12);
    NEAR(sim_task_ideal_d(u, 99), -5.0, 0);
    sim_scenario_free(sc);
}

static void ground_under_roads_and_terrain(void **state)
{
    sim_scenario *sc = load_ok(SMALL);
    sim_ground g;
    sim_scenario_ground(sc, 30, -1, &g); /* wet zone s 20..40 */
    assert_true(g.on_road);
    NEAR(g.friction, 0.4, 0);
    NEAR(g.z, 2.6, 1e-12);
    sim_scenario_ground(sc, 10, -1, &g);
    NEAR(g.friction, 1.0, 0);
    assert_int_equal(g.surface, SIM_SURFACE_ASPHALT);
    sim_scenario_ground(sc, 50, -40, &g); /* off road: the terrain */
    assert_false(g.on_road);
    assert_int_equal(g.road, -1);
    NEAR(g.friction, 0.8, 0);
    assert_int_equal(g.surface, SIM_SURFACE_GRASS);
    NEAR(g.z, 3.0, 1e-12);
    NEAR(g.n[0], -0.02 / sqrt(1 + 0.0004), 1e-12);
    /* Road b has its own profile 5 -> 7 m over 50 m: z = 6 halfway, grade 0.04. */
    sim_road_pose p;
    assert_int_equal(sim_road_pose_at(&sc->net, 1, 25, -1, &p), 0);
    sim_scenario_ground(sc, p.x, p.y, &g);
    assert_int_equal(g.road, 1);
    NEAR(g.z, 6.0, 1e-9);
    NEAR(g.n[2], 1 / sqrt(1 + 0.04 * 0.04), 1e-12);
    char *json = sim_scenario_where_json(sc, 50, -2);
    assert_string_equal(json, "{\"road\":\"a\",\"s\":50,\"d\":-2,\"lane\":-1,\"on_road\":true,"
                              "\"distance\":0,\"z\":3,\"terrain_z\":3}");
    free(json);
    json = sim_scenario_where_json(sc, 50, -30);
    assert_string_equal(json, "{\"road\":\"a\",\"s\":50,\"d\":-30,\"lane\":0,\"on_road\":false,"
                              "\"distance\":23.5,\"z\":3,\"terrain_z\":3}");
    free(json);
    sim_scenario_free(sc);
}

static void invalid_scenario_reports_every_error(void **state)
{
    static const char *const expect[] = {
        INVALID ": terrain.spacing: found 0, expected a number > 0",
        INVALID ": terrain.heightmap: found \"missing.pgm\", expected a readable PGM height map "
                "(tests/data/missing.pgm: cannot open: No such file or directory)",
        INVALID ": roads[1].id: found \"a\" again, expected a unique road id",
        INVALID ": roads[0].lenght: unknown field, expected one of: id, name, start, segments, "
                "lanes, speed_limits, signs, surface, elevation, predecessor, successor, junction",
        INVALID ": roads[0].segments[1].length: found -5, expected a number > 0",
        INVALID ": roads[0].segments[2]: found start (100.500, 0.000), expected the previous "
                "segment's end (100.000, 0.000): gap 0.500 m over 0.01 m",
        INVALID ": roads[0].segments[3].type: found \"spiral\", expected one of: line, arc, clothoid",
        INVALID ": roads[0].lanes.right[1].width: found 0, expected a number > 0",
        INVALID ": roads[0].lanes.right[1].mark: found \"dotted\", expected one of: none, solid, dashed",
        INVALID ": roads[1].lanes: found no lanes, expected at least one lane in left or right",
        INVALID ": roads[0].successor.road: found \"nowhere\", expected the id of a road",
        INVALID ": start_points[0].s: found 5000, expected a number in [0, 110]",
        INVALID ": start_points[0].lane: found -3, expected a lane of road \"a\": one of -1, -2",
        INVALID ": traffic.agents[0].desired_speed_kmh: found \"fast\", expected a number in [1, 400]",
        INVALID ": triggers[0].s_end: found 5, expected a number > s_start (10)",
        INVALID ": triggers[0].by: found \"ghost\", expected the id of a traffic agent",
        INVALID ": triggers[0].action.text: missing, expected a non-empty string",
        INVALID ": tasks[0].ideal.points[2]: found s = 10, expected s > 20 (ascending)",
        INVALID ": environment.weather: found \"hail\", expected one of: clear, cloudy, rain, fog, snow",
    };
    sim_diag d = {0};
    sim_scenario *sc = (sim_scenario *)1;
    assert_int_equal(sim_scenario_load(INVALID, &sc, &d), SIM_EINVAL);
    assert_null(sc);
    assert_int_equal(d.n, (int)(sizeof expect / sizeof expect[0]));
    for (int i = 0; i < d.n; i++) assert_string_equal(d.msgs[i], expect[i]);
    sim_diag_free(&d);
    assert_int_equal(sim_scenario_validate(INVALID, NULL), SIM_EINVAL);
    assert_int_equal(sim_scenario_validate(SMALL, NULL), 0);
}

static void syntax_errors_give_line_and_column(void **state)
{
    sim_diag d = {0};
    sim_scenario *sc;
    const char *bad = "{\n  \"name\": \"x\",\n  \"roads\": [1, 2,,]\n}\n";
    assert_int_equal(sim_scenario_parse(bad, strlen(bad), "mem.json", NULL, &sc, &d), SIM_EINVAL);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], "mem.json:3:18: JSON syntax error near \",]\"");
    sim_diag_free(&d);
    const char *trunc = "{\"name\": \"x\",\n \"roads\": [";
    assert_int_equal(sim_scenario_parse(trunc, strlen(trunc), "t.json", NULL, &sc, &d), SIM_EINVAL);
    /* cJSON points at the array left open. */
    assert_string_equal(d.msgs[0], "t.json:2:11: JSON syntax error near \"[\"");
    sim_diag_free(&d);
    const char *trail = "{}\n}";
    assert_int_equal(sim_scenario_parse(trail, strlen(trail), "g.json", NULL, &sc, &d), SIM_EINVAL);
    assert_string_equal(d.msgs[0], "g.json:2:1: unexpected text after the JSON value: \"}\"");
    sim_diag_free(&d);
    assert_int_equal(sim_scenario_parse("[]", 2, "a.json", NULL, &sc, &d), SIM_EINVAL);
    assert_string_equal(d.msgs[0], "a.json: (top level): found an array of 0 elements, expected an object");
    sim_diag_free(&d);
    const char *dup = "{\"name\":\"a\",\"name\":\"b\",\"roads\":[],"
                      "\"pois\":[{\"id\":\"p\",\"category\":\"fuel\",\"position\":{\"x\":1,\"y\":2,\"road\":\"r\",\"s\":0}}]}";
    assert_int_equal(sim_scenario_parse(dup, strlen(dup), "d.json", NULL, &sc, &d), SIM_EINVAL);
    assert_int_equal(d.n, 4);
    assert_string_equal(d.msgs[0], "d.json: name: found this field twice, expected it once");
    assert_string_equal(d.msgs[1], "d.json: roads: found an empty array, expected at least one road");
    assert_string_equal(d.msgs[2], "d.json: pois[0].position: found both x/y and road, expected one "
                                   "form: {\"x\", \"y\"} or {\"road\", \"s\", \"d\"}");
    assert_string_equal(d.msgs[3], "d.json: pois[0].position.road: found \"r\", expected the id of a road");
    sim_diag_free(&d);
    /* Not NUL-terminated: only len bytes are read. */
    char buf[4] = {'{', '}', 'x', 'x'};
    assert_int_equal(sim_scenario_parse(buf, 2, "n.json", NULL, &sc, &d), SIM_EINVAL);
    assert_string_equal(d.msgs[0], "n.json: name: missing, expected a non-empty string");
    assert_string_equal(d.msgs[1], "n.json: roads: missing, expected an array");
    sim_diag_free(&d);
    assert_int_equal(sim_scenario_load("/nonexistent/s.json", &sc, &d), SIM_EIO);
    assert_string_equal(d.msgs[0], "/nonexistent/s.json: cannot open: No such file or directory");
    sim_diag_free(&d);
    /* The one-message form the nodes use: the first problem, and a hint when more. */
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err("/nonexistent/s.json", &sc, &err), SIM_EIO);
    assert_string_equal(err.msg, "/nonexistent/s.json: cannot open: No such file or directory");
    assert_null(sc);
    assert_int_equal(sim_scenario_load_err(INVALID, &sc, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "tests/data/scenario_invalid.json: terrain.spacing: found 0, expected a number > 0 "
                                 "(and more: see simctl validate)");
}

/* A lane width typo of absurd size is refused by the loader, and roads spread over an
 * absurd area are refused by the index, instead of allocating gigabytes (found by
 * fuzz_scenario; the input is in fuzz/corpus/fuzz_scenario/regression-wide-lane.json). */
static void absurd_sizes_are_refused(void **state)
{
    sim_diag d = {0};
    sim_scenario *sc;
    const char *wide = "{\"name\":\"w\",\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},"
                       "\"segments\":[{\"type\":\"line\",\"length\":50}],"
                       "\"lanes\":{\"right\":[{\"width\":3.5e9}]}}]}";
    assert_int_equal(sim_scenario_parse(wide, strlen(wide), "w.json", NULL, &sc, &d), SIM_EINVAL);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], "w.json: roads[0].lanes.right[0].width: found 3.5e+09, expected a lane width in (0, 50] m");
    sim_diag_free(&d);
    sim_roadnet net = {0};
    net.n_roads = 0;
    sim_error err = {0};
    assert_int_equal(sim_roadnet_build_index(&net, &err), SIM_OK); /* nothing to index is fine */
    sim_roadnet_free(&net);
}

static void junction_and_route_errors(void **state)
{
    /* Road a enters junction j through connecting road c; road b is not linked to j,
     * road d is a plain road used as a wrong "connecting" road; agent route a -> b is
     * not connected. */
    const char *js =
        "{\"name\":\"j\",\"roads\":["
        "{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},\"segments\":[{\"type\":\"line\",\"length\":50}],"
        "\"lanes\":{\"right\":[{\"width\":3}]},\"successor\":{\"junction\":\"j\"}},"
        "{\"id\":\"c\",\"junction\":\"j\",\"start\":{\"x\":50,\"y\":0},\"segments\":[{\"type\":\"line\",\"length\":10}],"
        "\"lanes\":{\"right\":[{\"width\":3}]},\"predecessor\":{\"road\":\"a\",\"contact\":\"end\"}},"
        "{\"id\":\"b\",\"start\":{\"x\":0,\"y\":50},\"segments\":[{\"type\":\"line\",\"length\":50}],"
        "\"lanes\":{\"right\":[{\"width\":3}]}},"
        "{\"id\":\"d\",\"start\":{\"x\":0,\"y\":90},\"segments\":[{\"type\":\"line\",\"length\":50}],"
        "\"lanes\":{\"right\":[{\"width\":3}]},\"predecessor\":{\"junction\":\"k\"}}],"
        "\"junctions\":[{\"id\":\"j\",\"connections\":["
        "{\"incoming\":\"a\",\"connecting\":\"c\",\"lanes\":[[-1,-1],[-2,-1]]},"
        "{\"incoming\":\"b\",\"connecting\":\"d\"},"
        "{\"incoming\":\"x\",\"connecting\":\"c\"}]}],"
        "\"traffic\":{\"agents\":[{\"id\":\"v\",\"start\":{\"road\":\"a\",\"s\":1,\"lane\":-1},"
        "\"route\":[\"a\",\"c\",\"b\"],\"desired_speed_kmh\":50}]}}";
    static const char *const expect[] = {
        "m.json: roads[3].predecessor.junction: found \"k\", expected the id of a junction",
        "m.json: junctions[0].connections[0].lanes[1]: found lane -2, expected a lane of road \"a\"",
        "m.json: junctions[0].connections[1].incoming: road \"b\" links to no junction \"j\", "
        "expected its predecessor or successor to be {\"junction\": \"j\"}",
        "m.json: junctions[0].connections[1].connecting: road \"d\" has no \"junction\": \"j\", "
        "expected a connecting road of this junction",
        "m.json: junctions[0].connections[2].incoming: found \"x\", expected the id of a road",
        "m.json: traffic.agents[0].route[2]: found \"b\", expected a road connected to \"c\"",
    };
    sim_diag d = {0};
    sim_scenario *sc;
    assert_int_equal(sim_scenario_parse(js, strlen(js), "m.json", NULL, &sc, &d), SIM_EINVAL);
    assert_int_equal(d.n, (int)(sizeof expect / sizeof expect[0]));
    for (int i = 0; i < d.n; i++) assert_string_equal(d.msgs[i], expect[i]);
    sim_diag_free(&d);
}

/* "cabs" (docs/cabs.md): each cab's name, start point and vehicle file; a wrong
 * start, a name that cannot go into a topic and a name given twice are named. */
static void cabs_section(void **state)
{
    (void)state;
    const char *head = "{\"name\":\"c\",\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},"
                       "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":{\"right\":[{\"width\":3}]}}],"
                       "\"start_points\":[{\"name\":\"s1\",\"road\":\"a\",\"s\":5,\"lane\":-1},"
                       "{\"name\":\"s2\",\"road\":\"a\",\"s\":40,\"lane\":-1}],";
    char js[2048];
    snprintf(js, sizeof js, "%s\"cabs\":[{\"name\":\"a\",\"start\":\"s1\"},"
             "{\"name\":\"b\",\"start\":\"s2\",\"vehicle\":\"vehicles/x.json\"}]}", head);
    sim_diag d = {0};
    sim_scenario *sc;
    assert_int_equal(sim_scenario_parse(js, strlen(js), "c.json", NULL, &sc, &d), 0);
    assert_int_equal(sc->n_cabs, 2);
    assert_string_equal(sc->cabs[0].name, "a");
    assert_int_equal(sc->cabs[0].start, 0);
    assert_null(sc->cabs[0].vehicle);
    assert_string_equal(sc->cabs[1].name, "b");
    assert_int_equal(sc->cabs[1].start, 1);
    assert_string_equal(sc->cabs[1].vehicle, "vehicles/x.json");
    sim_scenario_free(sc);
    snprintf(js, sizeof js, "%s\"cabs\":[{\"name\":\"a.b\",\"start\":\"s1\"},"
             "{\"name\":\"b\",\"start\":\"nowhere\"},{\"name\":\"b\",\"start\":\"s1\",\"seat\":1}]}", head);
    static const char *const expect[] = {
        "c.json: cabs[0].name: \"a.b\": expected 1 to 32 of A-Z a-z 0-9 _ -",
        "c.json: cabs[1].start: no start point named \"nowhere\"",
    };
    assert_int_equal(sim_scenario_parse(js, strlen(js), "c.json", NULL, &sc, &d), SIM_EINVAL);
    assert_int_equal(d.n, 4);
    assert_string_equal(d.msgs[0], expect[0]);
    assert_string_equal(d.msgs[1], expect[1]);
    assert_string_equal(d.msgs[2], "c.json: cabs[2].seat: unknown field, expected one of: name, start, vehicle");
    assert_string_equal(d.msgs[3], "c.json: cabs[2].name: found \"b\" again, expected a unique cab name");
    sim_diag_free(&d);
}

/* Writes len bytes to dir/name. */
static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void raw_terrain_and_friction_map(void **state)
{
    char dir[] = "/tmp/test_scenario_XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* 3x2 float32 grid, all 2.0 except one; friction PGM 3x2 all white (-> max). */
    float h[6] = {2, 2, 2, 2, 2, 2};
    put_file(dir, "h.f32", h, sizeof h);
    static const unsigned char fr[] = "P5 3 2 255\n\xff\xff\xff\xff\xff\xff";
    put_file(dir, "f.pgm", fr, sizeof fr - 1);
    const char *js =
        "{\"name\":\"raw\",\"terrain\":{\"heightmap\":\"h.f32\",\"width\":3,\"height\":2,"
        "\"spacing\":10,\"height_scale\":1.5,\"height_offset\":-1,"
        "\"friction\":{\"map\":\"f.pgm\",\"min\":0.2,\"max\":0.7},\"surface\":\"gravel\"},"
        "\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},"
        "\"segments\":[{\"type\":\"line\",\"length\":5}],\"lanes\":{\"right\":[{\"width\":3}]}}]}";
    sim_diag d = {0};
    sim_scenario *sc;
    assert_int_equal(sim_scenario_parse(js, strlen(js), "raw.json", dir, &sc, &d), 0);
    sim_ground g;
    sim_scenario_ground(sc, 15, 50, &g); /* off the road */
    NEAR(g.z, -1 + 1.5 * 2, 1e-12);
    NEAR(g.friction, 0.7, 1e-12);
    assert_int_equal(g.surface, SIM_SURFACE_GRAVEL);
    sim_scenario_free(sc);
    /* Wrong size: the raw reader's message, under the field's path. */
    const char *bad = "{\"name\":\"raw\",\"terrain\":{\"heightmap\":\"h.f32\",\"width\":4,\"height\":2,"
                      "\"spacing\":10},\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},"
                      "\"segments\":[{\"type\":\"line\",\"length\":5}],\"lanes\":{\"right\":[{\"width\":3}]}}]}";
    assert_int_equal(sim_scenario_parse(bad, strlen(bad), "raw.json", dir, &sc, &d), SIM_EINVAL);
    assert_int_equal(d.n, 1);
    char expect[512];
    snprintf(expect, sizeof expect, "raw.json: terrain.heightmap: found \"h.f32\", expected a "
             "readable float32 height map (%s/h.f32: raw float32 grid of 24 bytes: expected 32 "
             "(4x2 x 4))", dir);
    assert_string_equal(d.msgs[0], expect);
    sim_diag_free(&d);
    char path[256];
    snprintf(path, sizeof path, "%s/h.f32", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/f.pgm", dir);
    unlink(path);
    rmdir(dir);
}

/* Loads a scenario whose terrain object is `terrain` (JSON) from dir; NULL on error
 * with the messages in d. */
static sim_scenario *parse_with_terrain(const char *dir, const char *terrain, sim_diag *d)
{
    char js[1024];
    snprintf(js, sizeof js, "{\"name\":\"t\",\"terrain\":%s,\"roads\":[{\"id\":\"a\",\"start\":"
             "{\"x\":0,\"y\":0},\"segments\":[{\"type\":\"line\",\"length\":5}],\"lanes\":"
             "{\"right\":[{\"width\":3}]}}]}", terrain);
    sim_scenario *sc = NULL;
    sim_scenario_parse(js, strlen(js), "t.json", dir, &sc, d);
    return sc;
}

static void png_terrain_equals_pgm_terrain(void **state)
{
    char dir[] = "/tmp/test_scenario_XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* One 16-bit map written both ways; the PNG doubles as a friction map. */
    sim_grid g;
    assert_int_equal(sim_grid_fractal(&g, 17, 11, 3, 3, 5.0, 0.5, NULL), 0);
    unsigned char *bp, *bn;
    size_t lp, ln;
    assert_int_equal(sim_grid_encode_pgm16(&g, &bp, &lp, NULL), 0);
    assert_int_equal(sim_grid_encode_png16(&g, &bn, &ln, NULL), 0);
    put_file(dir, "h.pgm", bp, lp);
    put_file(dir, "h.png", bn, ln);
    put_file(dir, "png-named.pgm", bn, ln);
    free(bp);
    free(bn);
    sim_grid_free(&g);
    sim_diag d = {0};
    sim_scenario *a = parse_with_terrain(dir, "{\"heightmap\":\"h.pgm\",\"spacing\":4,"
                                         "\"height_scale\":30,\"friction\":{\"map\":\"h.pgm\","
                                         "\"min\":0.3,\"max\":0.9}}", &d);
    /* .png: PNG by default; the friction map is recognised by its bytes. */
    sim_scenario *b = parse_with_terrain(dir, "{\"heightmap\":\"h.png\",\"spacing\":4,"
                                         "\"height_scale\":30,\"friction\":{\"map\":\"h.png\","
                                         "\"min\":0.3,\"max\":0.9}}", &d);
    sim_scenario *c = parse_with_terrain(dir, "{\"heightmap\":\"png-named.pgm\",\"format\":"
                                         "\"png\",\"spacing\":4,\"height_scale\":30}", &d);
    for (int i = 0; i < d.n; i++) print_error("%s\n", d.msgs[i]);
    assert_int_equal(d.n, 0);
    assert_true(a && b && c);
    int varied = 0;
    for (double x = -5; x < 75; x += 3.7)
        for (double y = -5; y < 50; y += 2.9) {
            sim_ground ga, gb, gc;
            sim_scenario_ground(a, x, y, &ga);
            sim_scenario_ground(b, x, y, &gb);
            sim_scenario_ground(c, x, y, &gc);
            assert_true(ga.z == gb.z && ga.z == gc.z && ga.friction == gb.friction);
            varied += fabs(ga.z - 15.0) > 3.0;
        }
    assert_true(varied > 10); /* a real relief, not a flat map compared with itself */
    sim_scenario_free(a);
    sim_scenario_free(b);
    sim_scenario_free(c);
    /* A PNG under a .pgm name, read as PGM: both readers' findings named. */
    assert_null(parse_with_terrain(dir, "{\"heightmap\":\"png-named.pgm\",\"spacing\":4}", &d));
    assert_int_equal(d.n, 1);
    char expect[512];
    snprintf(expect, sizeof expect, "t.json: terrain.heightmap: found \"png-named.pgm\", "
             "expected a readable PGM height map (%s/png-named.pgm: not a binary PGM: expected "
             "magic \"P5\" at the start)", dir);
    assert_string_equal(d.msgs[0], expect);
    sim_diag_free(&d);
    assert_null(parse_with_terrain(dir, "{\"heightmap\":\"h.pgm\",\"format\":\"png\","
                                   "\"spacing\":4}", &d));
    assert_int_equal(d.n, 1);
    snprintf(expect, sizeof expect, "t.json: terrain.heightmap: found \"h.pgm\", expected a "
             "readable PNG height map (%s/h.pgm: not a PNG: expected the 8-byte PNG signature "
             "at the start)", dir);
    assert_string_equal(d.msgs[0], expect);
    sim_diag_free(&d);
    const char *names[] = {"h.pgm", "h.png", "png-named.pgm"};
    for (int i = 0; i < 3; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void diag_caps_messages(void **state)
{
    sim_diag d = {0};
    for (int i = 0; i < SIM_DIAG_MAX + 5; i++) sim_diag_add(&d, "m%d", i);
    assert_int_equal(d.n, SIM_DIAG_MAX);
    assert_int_equal(d.dropped, 5);
    assert_string_equal(d.msgs[3], "m3");
    sim_diag_free(&d);
    sim_diag_add(NULL, "ignored");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_world_loads),
        cmocka_unit_test(ideal_line_from_lane_changes_and_points),
        cmocka_unit_test(ground_under_roads_and_terrain),
        cmocka_unit_test(invalid_scenario_reports_every_error),
        cmocka_unit_test(syntax_errors_give_line_and_column),
        cmocka_unit_test(junction_and_route_errors),
        cmocka_unit_test(absurd_sizes_are_refused),
        cmocka_unit_test(raw_terrain_and_friction_map),
        cmocka_unit_test(png_terrain_equals_pgm_terrain),
        cmocka_unit_test(diag_caps_messages),
        cmocka_unit_test(cabs_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
