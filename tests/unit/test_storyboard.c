/* The storyboard engine against hand-computed motion on the shared straight road
 * (straight_500m.xodr: lanes -1 and 1 of 3.07 m, the road along +x), with time steps of
 * 1/64 s so that times and positions are exact in binary: a step speed change, linear
 * and sinusoidal lane changes (their offsets at a quarter, the middle and the end), a
 * relative-distance trigger firing at the tick the distance is crossed, delays and
 * edges, element states, parameters; and every shared scenario run headless with the
 * storyboard driving every entity, to its stop trigger, twice with identical states. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT
#define XOSC_DIR "../shared/openscenario/xosc/"

typedef ts_sb_run run;
#define start(r, init, actor, events, stop) ts_sb_start(r, NULL, NULL, init, actor, events, stop)
#define finish ts_sb_finish
#define until ts_sb_until

/* Ego at s 50 and 10 m/s; at the first tick after 2 s (129 * DT) a step to 20 m/s:
 * s(4 s) = 50 + 129 * DT * 10 + 127 * DT * 20 = 109.84375. */
static void test_step_speed(void **state)
{
    (void)state;
    run r;
    start(&r, INIT_TWO, "Ego",
          EVENT("E", "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape=\"step\" dynamicsDimension=\"time\" "
                     "value=\"0\"/><SpeedActionTarget><AbsoluteTargetSpeed value=\"20\"/></SpeedActionTarget></SpeedAction>"
                     "</LongitudinalAction>", AT_TIME(2, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    NEAR(ego->s, 50, 1e-12);
    until(&r, 128 * DT);
    NEAR(ego->v, 10, 0);
    until(&r, 129 * DT);
    NEAR(ego->v, 20, 0);
    until(&r, 4.0);
    NEAR(ego->s, 109.84375, 1e-9);
    NEAR(ego->x, 109.84375, 1e-6); /* the road runs along +x */
    NEAR(ego->y, -1.535, 1e-6);
    finish(&r);
}

/* Linear speed change by rate: 10 -> 20 m/s at 2 m/s^2 takes 5 s; at its middle 15 m/s. */
static void test_linear_speed_rate(void **state)
{
    (void)state;
    run r;
    start(&r, INIT_TWO, "Ego",
          EVENT("E", "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape=\"linear\" dynamicsDimension=\"rate\" "
                     "value=\"2\"/><SpeedActionTarget><AbsoluteTargetSpeed value=\"20\"/></SpeedActionTarget></SpeedAction>"
                     "</LongitudinalAction>", AT_TIME(1, "rising")), NULL);
    until(&r, 65 * DT); /* started at t0 = 65 DT */
    until(&r, 65 * DT + 2.5);
    NEAR(r.sb.ent[0].v, 15, 1e-9);
    NEAR(r.sb.ent[0].a, 2, 1e-6);
    until(&r, 65 * DT + 5.0);
    NEAR(r.sb.ent[0].v, 20, 1e-9);
    until(&r, 65 * DT + 6.0);
    NEAR(r.sb.ent[0].v, 20, 0);
    finish(&r);
}

/* A lane change from lane -1 into lane 1 (3.07 m to the left, the lane the other way:
 * the car keeps its lane and moves its offset) over 4 s from t0 = 65 DT. */
static void lane_change(const char *shape, double quarter)
{
    char ev[1024];
    snprintf(ev, sizeof ev,
             EVENT("E", "<LateralAction><LaneChangeAction><LaneChangeActionDynamics dynamicsShape=\"%s\" "
                        "dynamicsDimension=\"time\" value=\"4\"/><LaneChangeTarget><RelativeTargetLane entityRef=\"Ego\" "
                        "value=\"1\"/></LaneChangeTarget></LaneChangeAction></LateralAction>", AT_TIME(1, "rising")),
             shape);
    run r;
    start(&r, INIT_TWO, "Ego", ev, NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    double t0 = 65 * DT;
    until(&r, t0);
    NEAR(ego->lat, 0, 0);
    until(&r, t0 + 1.0);
    NEAR(ego->lat, 3.07 * quarter, 1e-9);
    until(&r, t0 + 2.0);
    NEAR(ego->lat, 3.07 / 2, 1e-9); /* both shapes are half way at the middle */
    NEAR(ego->y, -1.535 + 3.07 / 2, 1e-6);
    until(&r, t0 + 4.0);
    NEAR(ego->lat, 3.07, 1e-9);
    NEAR(ego->y, 1.535, 1e-6);
    /* the longitudinal motion went on unchanged */
    NEAR(ego->s, 50 + 10 * (t0 + 4.0), 1e-9);
    assert_int_equal(r.sb.state[sim_sb_model_find_element(&r.sc->xosc->model, "EA")], SIM_SB_ST_COMPLETE);
    finish(&r);
}

static void test_lane_change_linear(void **state)
{
    (void)state;
    lane_change("linear", 0.25);
}

static void test_lane_change_sinusoidal(void **state)
{
    (void)state;
    lane_change("sinusoidal", 0.5 - 0.5 * cos(M_PI / 4));
}

/* Ego at 20 m/s closes on Target at 10 m/s 100 m ahead: the distance is 100 - 10 t and
 * crosses 59.9 m between t = 4.0 (60 m) and the next tick, 257 DT; the event starts
 * there, not a tick earlier or later, and Target stops at once. */
static void test_relative_distance_trigger(void **state)
{
    (void)state;
    run r;
    start(&r, TELEPORT("Ego", -1, 50) SPEED(20) "</Private>" TELEPORT("Target", -1, 150) SPEED(10) "</Private>", "Target",
          EVENT("E", "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape=\"step\" dynamicsDimension=\"time\" "
                     "value=\"0\"/><SpeedActionTarget><AbsoluteTargetSpeed value=\"0\"/></SpeedActionTarget></SpeedAction>"
                     "</LongitudinalAction>",
                "<StartTrigger><ConditionGroup><Condition name=\"near\" delay=\"0\" conditionEdge=\"rising\">"
                "<ByEntityCondition><TriggeringEntities triggeringEntitiesRule=\"any\"><EntityRef entityRef=\"Ego\"/>"
                "</TriggeringEntities><EntityCondition><RelativeDistanceCondition entityRef=\"Target\" "
                "relativeDistanceType=\"longitudinal\" value=\"59.9\" freespace=\"false\" rule=\"lessThan\"/>"
                "</EntityCondition></ByEntityCondition></Condition></ConditionGroup></StartTrigger>"),
          NULL);
    int ev = sim_sb_model_find_element(&r.sc->xosc->model, "E");
    double fired = -1;
    while (r.sb.t < 6 && fired < 0) {
        sim_storyboard_step(&r.sb, DT);
        for (int k = 0; k < r.sb.n_events; k++)
            if (r.sb.events[k].element == ev && r.sb.events[k].transition == SIM_SB_TR_START) fired = r.sb.t;
    }
    NEAR(fired, 257 * DT, 0);
    NEAR(r.sb.ent[1].v, 0, 0);
    NEAR(r.sb.ent[1].s, 150 + 10 * 257 * DT, 1e-9);
    NEAR(sim_storyboard_long_dist(&r.sb, 0, 1, false), 100 - 10 * 257 * DT, 1e-9);
    /* freespace: bumper to bumper, the boxes' half lengths off */
    NEAR(sim_storyboard_long_dist(&r.sb, 0, 1, true), 100 - 10 * 257 * DT - 4, 1e-9);
    finish(&r);
}

/* A delay of 1 s after a rising edge; a stop trigger on an element's end; a parameter
 * set by one event and read by another's ParameterCondition. */
static void test_delay_states_parameters(void **state)
{
    (void)state;
    run r;
    start(&r, INIT_TWO, "Ego",
          "<Event name=\"Set\" priority=\"parallel\"><Action name=\"SetA\"><GlobalAction><ParameterAction parameterRef=\"Flag\">"
          "<SetAction value=\"7\"/></ParameterAction></GlobalAction></Action>"
          "<StartTrigger><ConditionGroup><Condition name=\"c\" delay=\"1\" conditionEdge=\"rising\"><ByValueCondition>"
          "<SimulationTimeCondition value=\"2\" rule=\"greaterOrEqual\"/></ByValueCondition></Condition></ConditionGroup>"
          "</StartTrigger></Event>"
          EVENT("Go", SPEED_BODY(0), "<StartTrigger><ConditionGroup><Condition name=\"p\" delay=\"0\" conditionEdge=\"none\">"
                                "<ByValueCondition><ParameterCondition parameterRef=\"Flag\" value=\"7\" rule=\"equalTo\"/>"
                                "</ByValueCondition></Condition></ConditionGroup></StartTrigger>"),
          "<StopTrigger><ConditionGroup><Condition name=\"end\" delay=\"0\" conditionEdge=\"rising\"><ByValueCondition>"
          "<StoryboardElementStateCondition storyboardElementType=\"event\" storyboardElementRef=\"Go\" state=\"endTransition\"/>"
          "</ByValueCondition></Condition></ConditionGroup></StopTrigger>");
    const sim_sb_model *m = &r.sc->xosc->model;
    int set = sim_sb_model_find_element(m, "Set"), go = sim_sb_model_find_element(m, "Go");
    until(&r, 3.0 - DT);
    assert_int_equal(r.sb.state[set], SIM_SB_ST_STANDBY);
    until(&r, 3.0); /* true from t = 2.0 exactly, fires 1 s later */
    assert_int_equal(r.sb.state[set], SIM_SB_ST_RUNNING);
    assert_false(r.sb.done);
    until(&r, 3.0 + DT); /* the parameter is 7 once the set action ran */
    assert_string_equal(r.sb.pvalue[sim_sb_model_find_param(m, "Flag")], "7");
    assert_int_equal(r.sb.state[go], SIM_SB_ST_RUNNING);
    until(&r, 3.0 + 3 * DT);
    assert_true(r.sb.done);
    NEAR(r.sb.ent[0].v, 0, 0);
    finish(&r);
}

/* ---- the shared scenarios ---------------------------------------------------------- */

typedef struct shared_run {
    const char *file;
    double end;                    /* s: when the stop trigger fires (-1: it does not) */
    int collisions;                /* ticks with two boxes overlapping */
} shared_run;

/* With every entity driven by the storyboard (as esmini's default controller does).
 * The collisions: in cut-in, cut-in_simple and straight_500m the ego has no action that slows
 * it for the stopped vehicle ahead (the scenarios are made for a driver or an ADAS to
 * brake). lane_change_simple: an entity held at the end of its road keeps its speed the
 * step it arrives (Act 2's EndOfRoad of 0 s teleports it on at that speed) and stops
 * the next (Act 1's of 2.5 s), as the file's own comment says esmini does.
 * synchronize: its four maneuvers from the ManeuverCatalog run; NPC4 stops in front of
 * the ego, which nothing slows (made for a person at the wheel: interactiveDriver). */
static const shared_run RUNS[] = {
    {"acc-test.xosc", 33.25, 0},     {"cut-in.xosc", 21.75, 71},          {"cut-in_simple.xosc", 16.02, 61},
    {"distance_test.xosc", 25.68, 0}, {"drive_when_close.xosc", 40.0, 0}, {"follow_ghost.xosc", 22.02, 0},
    {"lane_change.xosc", 16.58, 0},  {"lane_change_simple.xosc", 183.23, 0}, {"slow-lead-vehicle.xosc", 11.32, 0},
    {"speed-profile.xosc", 14.01, 0}, {"straight_500m.xosc", 30.0, 50},   {"synchronize.xosc", 28.37, 69},
    {"traffic_lights.xosc", 30.0, 0}, {"trajectory-test.xosc", 29.21, 0}, {"highway_merge.xosc", 14.22, 0},
    {"ltap-od.xosc", 9.47, 70},
};

static void run_shared(const shared_run *sr, sim_sb_state_ent *final, int *n_final)
{
    char path[256];
    snprintf(path, sizeof path, XOSC_DIR "%s", sr->file);
    run r;
    sim_diag d = {0};
    sim_error err = {0};
    assert_int_equal(sim_scenario_load(path, &r.sc, &d), SIM_OK);
    assert_int_equal(sim_lanegraph_from_roads_merge(&r.g, &r.sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&r.sb, &r.sc->xosc->model, &r.g, &err), SIM_OK);
    const sim_sb_model *m = &r.sc->xosc->model;
    int coll = 0;
    for (int k = 0; k < 20000 && !r.sb.done; k++) {
        sim_storyboard_step(&r.sb, 0.01);
        for (int a = 0; a < m->n_entities; a++)
            for (int b = a + 1; b < m->n_entities; b++)
                coll += r.sb.ent[a].placed && r.sb.ent[b].placed && sim_storyboard_overlap(&r.sb, a, b);
    }
    if (sr->end >= 0) {
        assert_true(r.sb.done);
        NEAR(r.sb.t, sr->end, 0.005);
    } else {
        assert_false(r.sb.done);
    }
    if (coll != sr->collisions) fprintf(stderr, "%s: %d ticks with a collision\n", sr->file, coll);
    assert_int_equal(coll, sr->collisions);
    if (strcmp(sr->file, "cut-in.xosc") == 0) { /* the overtaker ended in the ego's lane, -3, at its centre */
        assert_int_equal(r.g.lanes[r.sb.ent[1].lane].lane_id, -3);
        assert_int_equal(r.g.lanes[r.sb.ent[0].lane].lane_id, -3);
        NEAR(r.sb.ent[1].lat, 0, 1e-9);
    }
    *n_final = m->n_entities;
    memcpy(final, r.sb.ent, (size_t)m->n_entities * sizeof *final);
    finish(&r);
}

static void test_shared_scenarios(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof RUNS / sizeof *RUNS; i++) {
        sim_sb_state_ent a[16], b[16];
        int na, nb;
        run_shared(&RUNS[i], a, &na);
        run_shared(&RUNS[i], b, &nb); /* a second run: the very same states */
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, (size_t)na * sizeof *a);
    }
}

/* A snapshot taken mid-run (cut-in.xosc at 4 s, before the cut-in) and read into a
 * fresh storyboard continues bit for bit as the run it was taken from; bytes of another
 * length, or with a lane out of the graph, are refused and change nothing. */
static void test_snapshot_continues(void **state)
{
    (void)state;
    run a, b;
    sim_diag d = {0};
    sim_error err = {0};
    assert_int_equal(sim_scenario_load(XOSC_DIR "cut-in.xosc", &a.sc, &d), SIM_OK);
    assert_int_equal(sim_lanegraph_from_roads_merge(&a.g, &a.sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&a.sb, &a.sc->xosc->model, &a.g, &err), SIM_OK);
    for (int k = 0; k < 400; k++) sim_storyboard_step(&a.sb, 0.01);
    size_t n = sim_storyboard_snapshot_size(&a.sb);
    unsigned char *buf = malloc(n);
    assert_int_equal(sim_storyboard_snapshot_write(&a.sb, buf, n), n);
    assert_int_equal(sim_storyboard_snapshot_write(&a.sb, buf, n - 1), 0);
    b = a;
    assert_int_equal(sim_storyboard_init(&b.sb, &a.sc->xosc->model, &a.g, &err), SIM_OK);
    assert_int_equal(sim_storyboard_snapshot_read(&b.sb, buf, n - 1, &err), SIM_EINVAL);
    unsigned char *bad = malloc(n);
    memcpy(bad, buf, n);
    size_t ent0 = n; /* find the first entity: its bytes equal a.sb.ent[0] */
    for (size_t off = 0; off + sizeof(sim_sb_state_ent) <= n && ent0 == n; off++)
        if (memcmp(buf + off, &a.sb.ent[0], sizeof(sim_sb_state_ent)) == 0) ent0 = off;
    assert_true(ent0 < n);
    sim_sb_state_ent e0 = a.sb.ent[0];
    e0.lane = a.g.n_lanes + 7;
    memcpy(bad + ent0, &e0, sizeof e0);
    assert_int_equal(sim_storyboard_snapshot_read(&b.sb, bad, n, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "entity 0"));
    assert_true(b.sb.t == 0 && b.sb.step == 0);
    assert_int_equal(sim_storyboard_snapshot_read(&b.sb, buf, n, &err), SIM_OK);
    for (int k = 0; k < 1800 && !a.sb.done; k++) {
        sim_storyboard_step(&a.sb, 0.01);
        sim_storyboard_step(&b.sb, 0.01);
        assert_memory_equal(a.sb.ent, b.sb.ent, (size_t)a.sc->xosc->model.n_entities * sizeof *a.sb.ent);
        assert_int_equal(a.sb.n_events, b.sb.n_events);
    }
    assert_true(a.sb.done && b.sb.done);
    assert_true(a.sb.t == b.sb.t);
    free(bad);
    free(buf);
    sim_storyboard_free(&b.sb);
    finish(&a);
    sim_diag_free(&d);
}

/* AssignRoute through a junction (traffic_lights.xosc: the ego's route from road 3 lane
 * -1 to road 2 lane 1): at road 3's end, of the three junction lanes (to roads 11, 12,
 * 13; the first is 11) the ego takes road 13, the one common/routing's shortest route
 * to the goal runs on, and arrives on road 2, lane 1. */
static void test_route_through_junction(void **state)
{
    (void)state;
    run r;
    sim_diag d = {0};
    sim_error err = {0};
    assert_int_equal(sim_scenario_load(XOSC_DIR "traffic_lights.xosc", &r.sc, &d), SIM_OK);
    assert_int_equal(sim_lanegraph_from_roads_merge(&r.g, &r.sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&r.sb, &r.sc->xosc->model, &r.g, &err), SIM_OK);
    char roads[64] = "";
    int last = -1;
    for (int k = 0; k < 1000; k++) {
        sim_storyboard_step(&r.sb, 0.01);
        const sim_sb_state_ent *e = &r.sb.ent[0];
        int road = e->on_lane ? r.g.lanes[e->lane].road : -1;
        if (road != last && road >= 0 && strlen(roads) < 50) {
            strcat(roads, r.sc->net.roads[road].id);
            strcat(roads, " ");
        }
        last = road;
    }
    assert_string_equal(roads, "3 13 2 ");
    assert_int_equal(r.g.lanes[r.sb.ent[0].lane].lane_id, 1);
    finish(&r);
    sim_diag_free(&d);
}

/* RoutePositions from a route catalog (ltap-od.xosc's Init): the ego at pathS 0 of
 * HostStraightRoute, lane 1, is at its first waypoint (road 0, lane 1, s 63); the NPC
 * at pathS $NPCStartPointS = 150 of TargetLeftTurnRoute, lane -1, is 150 m on from that
 * route's first waypoint (road 2, lane -1, s 100) along road 2: s 250. */
static void test_route_position(void **state)
{
    (void)state;
    run r;
    sim_diag d = {0};
    sim_error err = {0};
    assert_int_equal(sim_scenario_load(XOSC_DIR "ltap-od.xosc", &r.sc, &d), SIM_OK);
    assert_int_equal(sim_lanegraph_from_roads_merge(&r.g, &r.sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&r.sb, &r.sc->xosc->model, &r.g, &err), SIM_OK);
    static const struct { const char *road; int lane; double s; } want[2] = {{"0", 1, 63.0}, {"2", -1, 250.0}};
    for (int e = 0; e < 2; e++) {
        const sim_sb_state_ent *s = &r.sb.ent[e];
        assert_true(s->on_lane);
        assert_string_equal(r.sc->net.roads[r.g.lanes[s->lane].road].id, want[e].road);
        assert_int_equal(r.g.lanes[s->lane].lane_id, want[e].lane);
        NEAR(sim_lanegraph_road_s(&r.g, s->lane, s->s), want[e].s, 1e-6);
    }
    finish(&r);
    sim_diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_speed),
        cmocka_unit_test(test_linear_speed_rate),
        cmocka_unit_test(test_lane_change_linear),
        cmocka_unit_test(test_lane_change_sinusoidal),
        cmocka_unit_test(test_relative_distance_trigger),
        cmocka_unit_test(test_delay_states_parameters),
        cmocka_unit_test(test_shared_scenarios),
        cmocka_unit_test(test_snapshot_continues),
        cmocka_unit_test(test_route_through_junction),
        cmocka_unit_test(test_route_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
