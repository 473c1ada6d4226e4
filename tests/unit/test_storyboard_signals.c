/* OpenSCENARIO traffic signals against cases solved by hand: the storyboard on the
 * shared straight road with a lights model made here (head "7" on a fixed-time
 * controller: green 2 s, amber 1 s, red 3 s from t = 0; head "8" on none), stepped at
 * 1/64 s as traffic-node does it (the lights updated at the tick's time, what each
 * signal shows handed to the storyboard, the step, then the storyboard's requests set
 * as holds on the heads): a TrafficSignalCondition fires at the tick the controller
 * turns red (t = 3), a TrafficSignalStateAction started at t = 4 + 1/64 holds head 7
 * green (the model reports it in the same tick), which a second condition sees one
 * step later; an Init action sets head 8 red; the state words; bad states refused. */
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

#include "sim_lanegraph_road.h"
#include "sim_lights.h"
#include "sim_scenario.h"
#include "sim_storyboard.h"
#include "sim_xosc.h"

#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT (1.0 / 64)

#define SIGNAL_EVENT(name, trigger, action)                                                                             \
    "<Event name=\"" name "\" priority=\"parallel\" maximumExecutionCount=\"1\"><Action name=\"" name "a\">"            \
    "<GlobalAction>" action "</GlobalAction></Action><StartTrigger><ConditionGroup><Condition name=\"" name "c\" "        \
    "delay=\"0\" conditionEdge=\"none\"><ByValueCondition>" trigger "</ByValueCondition></Condition></ConditionGroup>"     \
    "</StartTrigger></Event>"
#define SET_FLAG(v) "<ParameterAction parameterRef=\"Flag\"><SetAction value=\"" v "\"/></ParameterAction>"
#define SIGNAL_ACTION(id, state)                                                                                          \
    "<InfrastructureAction><TrafficSignalAction><TrafficSignalStateAction name=\"" id "\" state=\"" state "\"/>"         \
    "</TrafficSignalAction></InfrastructureAction>"

/* The shared straight road with three traffic-light heads, 7 and 9 for vehicles, 8 for
 * pedestrians (OpenDRIVE dynamic signals 1000001 and 1000002), written to road. */
static void write_road(char *road)
{
    FILE *in = fopen("../shared/openscenario/xodr/straight_500m.xodr", "r");
    assert_non_null(in);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = 0;
    char *at = strstr(text, "<signals>");
    assert_non_null(at);
    at += strlen("<signals>");
    int fd = mkstemps(road, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "%.*s", (int)(at - text), text);
    static const char *const heads[][3] = {{"7", "100", "1000001"}, {"8", "110", "1000002"}, {"9", "200", "1000001"}};
    for (int i = 0; i < 3; i++)
        fprintf(f, "<signal s=\"%s\" t=\"-4\" id=\"%s\" name=\"h%s\" dynamic=\"yes\" orientation=\"+\" zOffset=\"3\" "
                   "type=\"%s\" country=\"OpenDRIVE\" subtype=\"-1\" height=\"0.8\" width=\"0.4\"/>\n",
                heads[i][1], heads[i][0], heads[i][0], heads[i][2]);
    fprintf(f, "%s", at);
    fclose(f);
}

/* Writes the scenario on that road (with `signals` in its RoadNetwork) and loads it:
 * rc, and the first message. */
static int load_net(const char *signals, const char *init, const char *events, sim_scenario **sc, char *msg, size_t size)
{
    char road[] = "/tmp/test_storyboard_signals_XXXXXX.xodr";
    write_road(road);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fprintf(f, "<?xml version=\"1.0\"?>\n<OpenSCENARIO><FileHeader revMajor=\"1\" revMinor=\"2\"/>\n"
               "<ParameterDeclarations><ParameterDeclaration name=\"Flag\" parameterType=\"double\" value=\"0\"/>"
               "</ParameterDeclarations>\n<RoadNetwork><LogicFile filepath=\"%s\"/>%s</RoadNetwork>\n"
               "<Entities><ScenarioObject name=\"Ego\"><Vehicle name=\"c\" vehicleCategory=\"car\"><BoundingBox>"
               "<Center x=\"1\" y=\"0\" z=\"0.7\"/><Dimensions width=\"2\" length=\"4\" height=\"1.4\"/></BoundingBox>"
               "</Vehicle></ScenarioObject></Entities>\n<Storyboard><Init><Actions>%s<Private entityRef=\"Ego\">"
               "<PrivateAction><TeleportAction><Position><LanePosition roadId=\"1\" laneId=\"-1\" s=\"10\" offset=\"0\"/>"
               "</Position></TeleportAction></PrivateAction></Private></Actions></Init>\n"
               "<Story name=\"S\"><Act name=\"A\"><ManeuverGroup name=\"G\" maximumExecutionCount=\"1\"><Actors "
               "selectTriggeringEntities=\"false\"/><Maneuver name=\"M\">%s</Maneuver></ManeuverGroup><StartTrigger/>"
               "</Act></Story></Storyboard></OpenSCENARIO>\n",
            road, signals, init, events);
    fclose(f);
    int rc = ts_sb_load_text(text, sc, msg, size);
    free(text);
    unlink(road);
    return rc;
}

static int load(const char *init, const char *events, sim_scenario **sc, char *msg, size_t size)
{
    return load_net("", init, events, sc, msg, size);
}

typedef struct world {
    sim_scenario *sc;
    sim_lanegraph g;
    sim_storyboard sb;
    sim_lights L;      /* the scenario's (its heads and controllers), moved here */
    sim_lights_run R;
    double start[8];   /* when events E1.. started (NAN: not yet) */
} world;

/* Head 7's controller made here (for scenarios without TrafficSignals). */
static void hand_controller(sim_lights *L)
{
    sim_error err = {0};
    assert_int_equal(sim_lights_find_head(L, "7"), 0);
    int heads[] = {0};
    double dur[] = {2, 1, 3};
    sim_light_state st[] = {SIM_SIGNAL_GREEN, SIM_SIGNAL_AMBER, SIM_SIGNAL_RED};
    assert_int_equal(sim_lights_add_controller(L, "c", heads, 1, dur, st, 3, 0.0, &err), 0);
}

static int target(const world *w, int k)
{
    return w->sb.sig_ctl[k] ? sim_lights_find_controller(&w->L, w->sb.sig_name[k]) : sim_lights_find_head(&w->L, w->sb.sig_name[k]);
}

/* The storyboard's requests become holds and phase moves, as traffic-node's
 * apply_signals makes them. */
static int apply(world *w, double t)
{
    int n = 0;
    for (int k = 0; k < w->sb.n_sig; k++) {
        int i = target(w, k), req = w->sb.sig_req[k];
        if (req < 0 || i < 0) continue;
        n += (w->sb.sig_ctl[k] ? sim_lights_set_phase(&w->L, &w->R, i, req, t) : sim_lights_set_head(&w->R, i, req)) == SIM_OK;
    }
    return n;
}

/* signals: the RoadNetwork's TrafficSignals, "" for head 7's controller made by hand */
static void open_world_net(world *w, const char *signals, const char *init, const char *events)
{
    char msg[512];
    memset(w, 0, sizeof *w);
    for (int i = 0; i < 8; i++) w->start[i] = NAN;
    int rc = load_net(signals, init, events, &w->sc, msg, sizeof msg);
    if (rc) fprintf(stderr, "%s\n", msg);
    assert_int_equal(rc, SIM_OK);
    sim_error err = {0};
    assert_int_equal(sim_lanegraph_from_roads_merge(&w->g, &w->sc->net, true, &err), SIM_OK);
    assert_int_equal(sim_storyboard_init(&w->sb, &w->sc->xosc->model, &w->g, &err), SIM_OK);
    w->L = w->sc->net.lights;
    assert_int_equal(w->L.n_heads, 3);
    if (!signals[0]) hand_controller(&w->L);
    assert_int_equal(sim_lights_run_init(&w->R, &w->L, &err), SIM_OK);
    apply(w, 0);
    sim_lights_update(&w->L, &w->R, 0);
}

static void open_world(world *w, const char *init, const char *events)
{
    open_world_net(w, "", init, events);
}

/* One tick at t: lights at t, the storyboard sees them, steps to t, its actions apply. */
static void tick(world *w, double t)
{
    sim_lights_update(&w->L, &w->R, t);
    for (int k = 0; k < w->sb.n_sig; k++) {
        int i = target(w, k);
        if (i >= 0)
            sim_storyboard_set_signal(&w->sb, k, w->sb.sig_ctl[k] ? sim_lights_phase_at(&w->L, &w->R, i, t) : (int)w->R.state[i]);
    }
    sim_storyboard_step(&w->sb, DT);
    NEAR(w->sb.t, t, 0);
    if (apply(w, t)) sim_lights_update(&w->L, &w->R, t);
    for (int k = 0; k < w->sb.n_events; k++) {
        const sim_sb_element *el = &w->sc->xosc->model.elements[w->sb.events[k].element];
        if (el->type == SIM_SB_E_EVENT && w->sb.events[k].transition == SIM_SB_TR_START && el->name[0] == 'E')
            w->start[el->name[1] - '0'] = t;
    }
}

static void close_world(world *w)
{
    sim_lights_run_free(&w->R);
    w->sc->net.lights = w->L; /* the scenario frees them */
    sim_storyboard_free(&w->sb);
    sim_lanegraph_free(&w->g);
    sim_scenario_free(w->sc);
}

static void test_condition_and_action(void **state)
{
    (void)state;
    world w;
    open_world(&w, "<GlobalAction>" SIGNAL_ACTION("8", "on;off") "</GlobalAction>",
               SIGNAL_EVENT("E1", "<TrafficSignalCondition name=\"7\" state=\"on;off;off\"/>", SET_FLAG("1"))
               SIGNAL_EVENT("E2", "<SimulationTimeCondition value=\"4\" rule=\"greaterThan\"/>", SIGNAL_ACTION("7", "off;off;on"))
               SIGNAL_EVENT("E3", "<TrafficSignalCondition name=\"7\" state=\"green\"/>", SET_FLAG("2")));
    assert_int_equal(w.sb.n_sig, 2);
    /* Init: head 8 (no controller) held red from the start */
    assert_int_equal(w.R.state[1], SIM_SIGNAL_RED);
    assert_int_equal(w.R.state[0], SIM_SIGNAL_GREEN);
    double amber_at = NAN, green_again_at = NAN;
    for (int i = 1; i <= 5 * 64; i++) {
        double t = i * DT;
        tick(&w, t);
        if (isnan(amber_at) && w.R.state[0] == SIM_SIGNAL_AMBER) amber_at = t;
        if (isnan(green_again_at) && t > 3 && w.R.state[0] == SIM_SIGNAL_GREEN) green_again_at = t;
    }
    NEAR(amber_at, 2.0, 0);
    NEAR(w.start[1], 3.0, 0);               /* red begins at 2 + 1 */
    NEAR(w.start[2], 4.0 + DT, 0);          /* the first tick after 4 */
    NEAR(green_again_at, 4.0 + DT, 0);     /* the hold, reported in the same tick */
    assert_int_equal(w.R.hold[0], SIM_SIGNAL_GREEN);
    assert_int_equal(w.R.state[1], SIM_SIGNAL_RED);
    NEAR(w.start[3], DT, 0);                /* phase 0's green, the first step */
    close_world(&w);
}

/* A condition on the held state: it sees the action one step after the action started. */
static void test_condition_sees_action_next_step(void **state)
{
    (void)state;
    world w;
    open_world(&w, "",
               SIGNAL_EVENT("E1", "<SimulationTimeCondition value=\"0.5\" rule=\"greaterOrEqual\"/>", SIGNAL_ACTION("7", "red"))
               SIGNAL_EVENT("E2", "<TrafficSignalCondition name=\"7\" state=\"on;off;off\"/>", SET_FLAG("1")));
    for (int i = 1; i <= 64; i++) tick(&w, i * DT);
    NEAR(w.start[1], 0.5, 0);
    assert_int_equal(w.R.state[0], SIM_SIGNAL_RED);        /* held, though phase 0 is green until 2 */
    NEAR(w.start[2], 0.5 + DT, 0);
    close_world(&w);
}

/* RoadNetwork TrafficSignals: controller "main" over heads 7 and 8 (go 2 s: 7 green, 8
 * red; caution 1 s: 7 amber, 8 red; stop 3 s: 7 red, 8 green), "side" over head 9
 * starting 1.5 s after main (a 4 s, b 4 s); controller conditions on main's phases,
 * and a controller action moving main back to "go" at 4 + 1/64. */
#define CONTROLLERS                                                                                                       \
    "<TrafficSignals><TrafficSignalController name=\"main\">"                                                          \
    "<Phase name=\"go\" duration=\"2\"><TrafficSignalState trafficSignalId=\"7\" state=\"off;off;on\"/>"               \
    "<TrafficSignalState trafficSignalId=\"8\" state=\"on;off\"/></Phase>"                                              \
    "<Phase name=\"caution\" duration=\"1\"><TrafficSignalState trafficSignalId=\"7\" state=\"off;on;off\"/>"          \
    "<TrafficSignalState trafficSignalId=\"8\" state=\"on;off\"/></Phase>"                                              \
    "<Phase name=\"stop\" duration=\"3\"><TrafficSignalState trafficSignalId=\"7\" state=\"on;off;off\"/>"             \
    "<TrafficSignalState trafficSignalId=\"8\" state=\"off;on\"/></Phase></TrafficSignalController>"                    \
    "<TrafficSignalController name=\"side\" delay=\"1.5\" reference=\"main\">"                                         \
    "<Phase name=\"a\" duration=\"4\"><TrafficSignalState trafficSignalId=\"9\" state=\"green\"/></Phase>"            \
    "<Phase name=\"b\" duration=\"4\"><TrafficSignalState trafficSignalId=\"9\" state=\"red\"/></Phase>"              \
    "</TrafficSignalController></TrafficSignals>"
#define CTL_COND(ctl, phase) "<TrafficSignalControllerCondition trafficSignalControllerRef=\"" ctl "\" phase=\"" phase "\"/>"
#define CTL_ACTION(ctl, phase)                                                                                            \
    "<InfrastructureAction><TrafficSignalAction><TrafficSignalControllerAction trafficSignalControllerRef=\"" ctl        \
    "\" phase=\"" phase "\"/></TrafficSignalAction></InfrastructureAction>"

static void test_controllers(void **state)
{
    (void)state;
    world w;
    open_world_net(&w, CONTROLLERS, "",
                   SIGNAL_EVENT("E1", CTL_COND("main", "stop"), SET_FLAG("1"))
                   SIGNAL_EVENT("E2", "<SimulationTimeCondition value=\"4\" rule=\"greaterThan\"/>", CTL_ACTION("main", "go"))
                   SIGNAL_EVENT("E3", "<TrafficSignalCondition name=\"8\" state=\"off;on\"/>", SET_FLAG("2")));
    assert_int_equal(w.L.n_ctls, 2);
    const sim_light_controller *m = &w.L.ctls[0], *side = &w.L.ctls[1];
    assert_string_equal(m->id, "main");
    assert_int_equal(m->n_heads, 2);
    assert_int_equal(m->heads[0], 0);
    assert_int_equal(m->heads[1], 1);
    assert_int_equal(m->n_phases, 3);
    NEAR(m->phases[1].duration, 1, 0);
    assert_int_equal(m->phases[2].states[0], SIM_SIGNAL_RED);
    assert_int_equal(m->phases[2].states[1], SIM_SIGNAL_GREEN);
    NEAR(m->offset, 0, 0);
    NEAR(side->offset, 1.5, 0);
    assert_int_equal(side->heads[0], 2);
    double amber[2] = {NAN, NAN}, nine_green = NAN, nine_red = NAN;
    for (int i = 1; i <= 8 * 64; i++) {
        double t = i * DT;
        bool was_amber = w.R.state[0] == SIM_SIGNAL_AMBER;
        tick(&w, t);
        if (!was_amber && w.R.state[0] == SIM_SIGNAL_AMBER) amber[isnan(amber[0]) ? 0 : 1] = t;
        if (isnan(nine_green) && w.R.state[2] == SIM_SIGNAL_GREEN) nine_green = t;
        if (!isnan(nine_green) && isnan(nine_red) && w.R.state[2] == SIM_SIGNAL_RED) nine_red = t;
    }
    NEAR(w.start[1], 3.0, 0);         /* main enters stop at 2 + 1 */
    NEAR(w.start[3], 3.0, 0);         /* and head 8 turns green with it */
    NEAR(w.start[2], 4.0 + DT, 0);
    NEAR(amber[0], 2.0, 0);
    NEAR(amber[1], 4.0 + DT + 2, 0);  /* go again from 4 + 1/64, caution 2 s later */
    NEAR(nine_green, 1.5, 0);         /* side's a: its delay after main's phase 0 (b's red before) */
    NEAR(nine_red, 1.5 + 4, 0);       /* then b, after a's 4 s */
    close_world(&w);
}

static void test_state_words(void **state)
{
    (void)state;
    assert_int_equal(sim_xosc_light_state("on;off;off"), SIM_SIGNAL_RED);
    assert_int_equal(sim_xosc_light_state("on;on;off"), SIM_SIGNAL_RED_AMBER);
    assert_int_equal(sim_xosc_light_state("off;on;off"), SIM_SIGNAL_AMBER);
    assert_int_equal(sim_xosc_light_state("off;off;on"), SIM_SIGNAL_GREEN);
    assert_int_equal(sim_xosc_light_state("off;off;off"), SIM_SIGNAL_OFF);
    assert_int_equal(sim_xosc_light_state("off;flashing;off"), SIM_SIGNAL_FLASHING_AMBER);
    assert_int_equal(sim_xosc_light_state("on;off"), SIM_SIGNAL_RED);
    assert_int_equal(sim_xosc_light_state("off;on"), SIM_SIGNAL_GREEN);
    assert_int_equal(sim_xosc_light_state("green"), SIM_SIGNAL_GREEN);
    assert_int_equal(sim_xosc_light_state("on;off;on"), -1);
    assert_int_equal(sim_xosc_light_state("on;off;off;off"), -1);
    assert_int_equal(sim_xosc_light_state("on"), -1);
    assert_int_equal(sim_xosc_light_state("on;;off"), -1);
    assert_int_equal(sim_xosc_light_state(""), -1);
    assert_int_equal(sim_xosc_light_state("blue"), -1);
}

static void test_bad_state_refused(void **state)
{
    (void)state;
    sim_scenario *sc = NULL;
    char msg[512];
    assert_int_not_equal(load("", SIGNAL_EVENT("E1", "<SimulationTimeCondition value=\"1\" rule=\"greaterThan\"/>",
                                               SIGNAL_ACTION("7", "on;on;on")), &sc, msg, sizeof msg), SIM_OK);
    assert_non_null(strstr(msg, "state \"on;on;on\" of signal \"7\""));
    assert_non_null(strstr(msg, ".xosc: 7: <TrafficSignalStateAction> state"));
    assert_int_not_equal(load("", SIGNAL_EVENT("E1", "<TrafficSignalCondition name=\"7\" state=\"purple\"/>", SET_FLAG("1")),
                              &sc, msg, sizeof msg), SIM_OK);
    assert_non_null(strstr(msg, ".xosc: 7: <TrafficSignalCondition> state \"purple\" of signal \"7\""));
    /* a controller action naming a phase the controller lacks; a reference to nothing */
    assert_int_not_equal(load_net(CONTROLLERS, "", SIGNAL_EVENT("E1", CTL_COND("main", "amber"), SET_FLAG("1")), &sc, msg,
                                  sizeof msg), SIM_OK);
    assert_non_null(strstr(msg, "controller \"main\" has no phase \"amber\""));
    assert_int_not_equal(load_net(CONTROLLERS, "", SIGNAL_EVENT("E1", CTL_COND("north", "go"), SET_FLAG("1")), &sc, msg,
                                  sizeof msg), SIM_OK);
    assert_non_null(strstr(msg, "names controller \"north\", which <RoadNetwork> <TrafficSignals> does not declare"));
}

/* Controllers against the heads: a signal no head has, a reference to nothing, a loop. */
static void test_controller_errors(void **state)
{
    (void)state;
    static const struct { const char *xml, *msg; } cases[] = {
        {"<TrafficSignals><TrafficSignalController name=\"c\"><Phase name=\"p\" duration=\"1\">"
         "<TrafficSignalState trafficSignalId=\"42\" state=\"red\"/></Phase></TrafficSignalController></TrafficSignals>",
         "<TrafficSignalState> trafficSignalId \"42\": no traffic-light head"},
        {"<TrafficSignals><TrafficSignalController name=\"c\" reference=\"x\"><Phase name=\"p\" duration=\"1\">"
         "<TrafficSignalState trafficSignalId=\"7\" state=\"red\"/></Phase></TrafficSignalController></TrafficSignals>",
         "\"c\": reference \"x\" is no controller"},
        {"<TrafficSignals><TrafficSignalController name=\"c\" reference=\"d\"><Phase name=\"p\" duration=\"1\">"
         "<TrafficSignalState trafficSignalId=\"7\" state=\"red\"/></Phase></TrafficSignalController>"
         "<TrafficSignalController name=\"d\" reference=\"c\"><Phase name=\"p\" duration=\"1\">"
         "<TrafficSignalState trafficSignalId=\"8\" state=\"red\"/></Phase></TrafficSignalController></TrafficSignals>",
         "its references make a loop"},
        {"<TrafficSignals><TrafficSignalController name=\"c\"><Phase name=\"p\" duration=\"1\">"
         "<TrafficSignalState trafficSignalId=\"7\" state=\"red\"/></Phase></TrafficSignalController>"
         "<TrafficSignalController name=\"d\"><Phase name=\"p\" duration=\"1\">"
         "<TrafficSignalState trafficSignalId=\"7\" state=\"red\"/></Phase></TrafficSignalController></TrafficSignals>",
         "<TrafficSignalController> \"d\": "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_scenario *sc = NULL;
        char msg[512];
        assert_int_not_equal(load_net(cases[i].xml, "", "", &sc, msg, sizeof msg), SIM_OK);
        if (!strstr(msg, cases[i].msg)) fail_msg("case %zu: %s", i, msg);
        assert_non_null(strstr(msg, ".xosc: 4: <TrafficSignal"));
    }
    sim_scenario *sc = NULL;
    char msg[512];
    assert_int_not_equal(load_net("<TrafficSignals><TrafficSignalController name=\"c\"><Phase name=\"p\" duration=\"0\"/>"
                                  "</TrafficSignalController></TrafficSignals>", "", "", &sc, msg, sizeof msg), SIM_OK);
    assert_non_null(strstr(msg, "phase \"p\": duration 0, expected seconds > 0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_condition_and_action),
        cmocka_unit_test(test_condition_sees_action_next_step),
        cmocka_unit_test(test_controllers),
        cmocka_unit_test(test_controller_errors),
        cmocka_unit_test(test_state_words),
        cmocka_unit_test(test_bad_state_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
