/* The scenarios shipped in scenarios/ load without a single validation error and
 * have the features they promise (run from the repository root, as `make unit`
 * does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_scenario.h"

#include "ts_assert.h"

static sim_scenario *load(const char *path)
{
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    int rc = sim_scenario_load(path, &sc, &d);
    for (int i = 0; i < d.n; i++) print_error("%s\n", d.msgs[i]);
    assert_int_equal(rc, 0);
    sim_diag_free(&d);
    return sc;
}

static double total_length(const sim_scenario *sc, const char *prefix)
{
    double L = 0;
    for (int i = 0; i < sc->net.n_roads; i++)
        if (strncmp(sc->net.roads[i].id, prefix, strlen(prefix)) == 0) L += sc->net.roads[i].length;
    return L;
}

static void lane_change(void **state)
{
    sim_scenario *sc = load("scenarios/lane-change.json");
    const sim_road *r = &sc->net.roads[0];
    NEAR(r->length, 3000, 0);
    assert_int_equal(r->sections[0].n_right, 4); /* three lanes and a shoulder */
    NEAR(sim_road_speed_limit(r, 1500), 60 / 3.6, 1e-12);
    int lc = 0;
    for (int i = 0; i < r->n_signs; i++) lc += r->signs[i].type == SIM_SIGN_LANE_CHANGE;
    assert_int_equal(lc, 14);
    assert_int_equal(sc->n_tasks, 2);
    /* The first sign (s 250) sends the driver from lane -2 (centre -5.25) to lane -1
     * (centre -1.75) over a 30 m ramp. */
    const sim_task *t = &sc->tasks[0];
    NEAR(sim_task_ideal_d(t, 250), -5.25, 1e-12);
    NEAR(sim_task_ideal_d(t, 265), -3.5, 1e-12);
    NEAR(sim_task_ideal_d(t, 280), -1.75, 1e-12);
    NEAR(t->tube_half_width, 1.0, 0);
    assert_true(sim_scenario_find_start(sc, "start") >= 0);
    sim_scenario_free(sc);
}

static void motorway(void **state)
{
    sim_scenario *sc = load("scenarios/motorway.json");
    NEAR(total_length(sc, "mw_"), 10000, 1e-6);
    int clothoids = 0;
    for (int i = 0; i < sc->net.n_roads; i++)
        for (int g = 0; g < sc->net.roads[i].n_geoms; g++)
            clothoids += sc->net.roads[i].geoms[g].type == SIM_GEOM_CLOTHOID;
    assert_int_equal(clothoids, 4);
    int ramp = sim_roadnet_find_road(&sc->net, "onramp"), thr = sim_roadnet_find_road(&sc->net, "mw_through");
    assert_true(sim_roadnet_connected(&sc->net, ramp, thr));
    /* The ramp ends beside the acceleration lane's centre line. */
    sim_road_pose end;
    sim_road_pose_at(&sc->net, ramp, sc->net.roads[ramp].length, -3.75 / 2, &end);
    sim_road_loc loc;
    assert_int_equal(sim_roadnet_locate(&sc->net, end.x + 1, end.y, &loc), 0);
    assert_int_equal(loc.road, thr);
    assert_int_equal(loc.lane.lane, -5);
    assert_true(sc->n_agents >= 6);
    sim_scenario_free(sc);
}

static void rural(void **state)
{
    sim_scenario *sc = load("scenarios/rural.json");
    assert_non_null(sc->terrain);
    assert_int_equal(sc->terrain->height.nx, 257);
    const sim_road *r = &sc->net.roads[0];
    assert_int_equal(r->sections[0].n_left, 2);
    assert_int_equal(r->sections[0].n_right, 2);
    /* Crests and dips along the road (sampled every 10 m). */
    int extrema = 0;
    double z0 = sim_road_height(&sc->net, 0, 0, 0), z1 = sim_road_height(&sc->net, 0, 10, 0);
    for (double s = 20; s <= r->length; s += 10) {
        double z2 = sim_road_height(&sc->net, 0, s, 0);
        extrema += (z1 - z0) * (z2 - z1) < 0;
        z0 = z1, z1 = z2;
    }
    assert_true(extrema >= 6);
    /* The wet stretch. */
    sim_road_pose p;
    sim_road_pose_at(&sc->net, 0, 1450, -1.6, &p);
    sim_ground g;
    sim_scenario_ground(sc, p.x, p.y, &g);
    assert_true(g.on_road);
    NEAR(g.friction, 0.45, 0);
    sim_road_pose_at(&sc->net, 0, 1000, -1.6, &p);
    sim_scenario_ground(sc, p.x, p.y, &g);
    NEAR(g.friction, 1.0, 0);
    sim_road_pose_at(&sc->net, 0, 1000, -30, &p);
    sim_scenario_ground(sc, p.x, p.y, &g);
    assert_false(g.on_road);
    NEAR(g.friction, 0.6, 0);
    sim_scenario_free(sc);
}

static void town(void **state)
{
    sim_scenario *sc = load("scenarios/town.json");
    assert_int_equal(sc->net.n_junctions, 9);
    static const char *const cats[] = {"fuel", "restaurant", "parking", "hotel"};
    for (int c = 0; c < 4; c++) {
        int found = 0;
        for (int i = 0; i < sc->n_pois; i++) found += strcmp(sc->pois[i].category, cats[c]) == 0;
        assert_true(found >= 1);
    }
    for (int i = 0; i < sc->net.n_roads; i++)
        NEAR(sim_road_speed_limit(&sc->net.roads[i], 1.0), 50 / 3.6, 1e-12);
    /* Every agent's route was checked for connectivity by the loader. */
    assert_int_equal(sc->n_agents, 4);
    assert_int_equal(sc->agents[0].n_route, 3);
    sim_scenario_free(sc);
}

/* scenarios/crossing-lights.json: four heads under one controller whose 57 s cycle
 * gives each axis green, amber, all red and red-amber; every head stands where a
 * driver stopped at its line sees it. The eye is about 2 m behind the car's front,
 * which stops at the line, in the centre of the 3.25 m lane; a head within 30 degrees
 * of straight ahead is inside the default 60 degree view. */
static void crossing_lights(void **state)
{
    (void)state;
    sim_scenario *sc = load("scenarios/crossing-lights.json");
    const sim_lights *L = &sc->net.lights;
    assert_int_equal(L->n_heads, 4);
    assert_int_equal(L->n_ctls, 1);
    double cycle = 0;
    for (int p = 0; p < L->ctls[0].n_phases; p++) cycle += L->ctls[0].phases[p].duration;
    NEAR(cycle, 57, 1e-12);
    for (int i = 0; i < L->n_heads; i++) {
        const sim_light_head *h = &L->heads[i];
        double ahead = fabs(h->s - h->stop_s) + 2.0; /* from the eye to the head, along the road */
        double aside = fabs(h->t) - 3.25 / 2;        /* from the lane's centre */
        double deg = atan2(aside, ahead) * 180 / M_PI;
        if (!(deg > 5 && deg < 30)) fail_msg("%s: %.1f degrees from straight ahead at the stop line", h->id, deg);
        NEAR(fabs(h->s - h->stop_s), 10, 1e-9);
        assert_true(h->orientation == (h->stop_s < h->s ? 1 : -1)); /* the line before the head */
    }
    assert_int_equal(sc->n_agents, 3);
    sim_scenario_free(sc);
}

/* One misspelt field of a road ("segmnts" in roads[0]) is one message, the unknown
 * field with the name meant: not also "segments: missing" and a follow-on error for
 * every speed limit, start point, trigger, sector and task on the road that then had
 * no length (48 messages for scenarios/lane-change.json). */
static void one_typo_one_error(void **state)
{
    (void)state;
    const char *files[] = {"scenarios/lane-change.json", "scenarios/rural.json", "scenarios/town.json",
                           "scenarios/motorway.json", "scenarios/crossing-lights.json"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char *text;
        size_t len;
        sim_error err = {0};
        assert_int_equal(sim_file_read(files[f], &text, &len, &err), 0);
        char *at = strstr(text, "\"segments\"");
        assert_non_null(at);
        memmove(at + 5, at + 6, strlen(at + 6) + 1); /* "segments" -> "segmnts" */
        sim_diag d = {0};
        sim_scenario *sc = NULL;
        assert_int_equal(sim_scenario_parse(text, strlen(text), files[f], "scenarios", &sc, &d), SIM_EINVAL);
        if (d.n != 1) fail_msg("%s: %zu messages, the first: %s", files[f], (size_t)d.n, d.n ? d.msgs[0] : "");
        assert_non_null(strstr(d.msgs[0], "roads[0].segmnts: unknown field (did you mean \"segments\"?)"));
        sim_diag_free(&d);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lane_change),
        cmocka_unit_test(motorway),
        cmocka_unit_test(rural),
        cmocka_unit_test(town),
        cmocka_unit_test(crossing_lights),
        cmocka_unit_test(one_typo_one_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
