/* OpenDRIVE <controller>s (sim_xodr_controllers.c) on the shared
 * fabriksgatan_traffic_lights.xodr, which has three heads and no controllers: the test
 * adds two controllers to it (in memory) and a junction entry for each, and checks the
 * default fixed-time program solved by hand; a scenario's own controller and an
 * OpenSCENARIO file's taking heads away; and the errors naming the element.
 *
 * Controllers: "10" holds vehicle head 1, "11" pedestrian heads 2 and 3 (and signal 99,
 * which the file does not have: counted, not an error). Junction 4 lists 11 with
 * sequence 2 and 10 with sequence 1, so 10 takes the first slot. A slot is 20 s green +
 * 3 s amber + 2 s all red = 25 s; two groups: a 50 s cycle, 10 from 0 s, 11 from 25 s.
 *   head 1: green [0, 20), amber [20, 23), red [23, 49), red_amber [49, 50), green at 50;
 *   heads 2, 3: red until 25, green [25, 45), red [45, 75), green again at 75.
 * Without the junction entries each group is alone (a 50 s cycle from 0 s each): all
 * three heads green at once at 0 s. */
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

#include "sim_file.h"
#include "sim_road.h"
#include "sim_scenario.h"
#include "sim_xodr.h"
#include "test_support.h"
#include "ts_xodr.h"

#define CONTROLLERS TS_FAB_CONTROLLERS
#define JUNCTION_ENTRIES TS_FAB_JUNCTION_ENTRIES

static char *with_controllers(const char *controllers, const char *entries)
{
    char *text = ts_fab_with_controllers(controllers, entries);
    assert_non_null(text);
    return text;
}

static void parse(const char *text, sim_roadnet *net, sim_xodr_report *rep)
{
    sim_error err = {0};
    int rc = sim_xodr_parse(text, strlen(text), "fab.xodr", net, rep, &err);
    if (rc) fail_msg("%s", err.msg);
}

/* The states of heads 1, 2, 3 at t, as names joined by spaces. */
static const char *states_at(const sim_lights *L, double t)
{
    static char buf[64];
    sim_lights_run R;
    assert_int_equal(sim_lights_run_init(&R, L, NULL), 0);
    sim_lights_update(L, &R, t);
    snprintf(buf, sizeof buf, "%s %s %s", sim_light_state_name(R.state[sim_lights_find_head(L, "1")]),
             sim_light_state_name(R.state[sim_lights_find_head(L, "2")]),
             sim_light_state_name(R.state[sim_lights_find_head(L, "3")]));
    sim_lights_run_free(&R);
    return buf;
}

static void junction_groups_take_turns(void **state)
{
    (void)state;
    char *text = with_controllers(CONTROLLERS, JUNCTION_ENTRIES);
    sim_roadnet net;
    sim_xodr_report rep;
    parse(text, &net, &rep);
    free(text);
    assert_int_equal(rep.n_controllers, 2);
    assert_int_equal(rep.n_controlled_heads, 3);
    assert_int_equal(rep.n_controls_not_heads, 1);
    assert_int_equal(rep.n_controllers_running, 2);
    const sim_lights *L = &net.lights;
    assert_int_equal(L->n_groups, 2);
    assert_int_equal(L->n_ctls, 2);
    int c10 = sim_lights_find_controller(L, "10"), c11 = sim_lights_find_controller(L, "11");
    assert_true(c10 >= 0 && c11 >= 0);
    assert_int_equal(L->groups[sim_lights_find_group(L, "10")].junction, sim_roadnet_find_junction(&net, "4"));
    assert_int_equal(L->groups[sim_lights_find_group(L, "10")].sequence, 1);
    assert_true(sim_lights_cycle(L, c10) == 50 && sim_lights_cycle(L, c11) == 50);
    assert_true(L->ctls[c10].offset == 0 && L->ctls[c11].offset == 25);
    static const struct { double t; const char *want; } at[] = {
        {0, "green red red"},       {19.99, "green red red"}, {20, "amber red red"},     {22.99, "amber red red"},
        {23, "red red red"},        {24.5, "red red red"},    {25, "red green green"},   {44.99, "red green green"},
        {45, "red red red"},        {48, "red red red"},      {49, "red_amber red red"}, {50, "green red red"},
        {75, "red green green"},    {120.5, "amber red red"},
    };
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        const char *got = states_at(L, at[i].t);
        if (strcmp(got, at[i].want)) fail_msg("at %g s: %s, expected %s", at[i].t, got, at[i].want);
    }
    sim_roadnet_free(&net);
}

static void lone_groups_each_their_own_cycle(void **state)
{
    (void)state;
    char *text = with_controllers(CONTROLLERS, "");
    sim_roadnet net;
    sim_xodr_report rep;
    parse(text, &net, &rep);
    free(text);
    assert_int_equal(rep.n_controllers_running, 2);
    assert_string_equal(states_at(&net.lights, 0), "green green green");
    assert_string_equal(states_at(&net.lights, 20), "amber red red");
    assert_string_equal(states_at(&net.lights, 30), "red red red");
    assert_string_equal(states_at(&net.lights, 49.5), "red_amber red red");
    sim_roadnet_free(&net);
    /* the file as shipped: no controllers, the heads dark */
    char *plain;
    size_t len;
    assert_int_equal(sim_file_read(ts_root(TS_FAB_LIGHTS), &plain, &len, NULL), 0);
    parse(plain, &net, &rep);
    free(plain);
    assert_int_equal(rep.n_controllers, 0);
    assert_int_equal(net.lights.n_ctls, 0);
    assert_string_equal(states_at(&net.lights, 0), "off off off");
    sim_roadnet_free(&net);
}

/* A scenario over the file whose traffic_lights controller runs head 1: group 10 runs
 * nothing (its head is taken), group 11 keeps its default program, now alone at the
 * junction: a 50 s cycle from 0 s (it is the only one left to take turns). */
static void scenario_controller_wins(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_xodr_controllers.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/fab.xodr", dir);
    assert_int_equal(ts_fab_write(path, CONTROLLERS, JUNCTION_ENTRIES), 0);
    static const char scenario[] =
        "{\"name\":\"t\",\"roads\":{\"opendrive\":\"fab.xodr\"},\"traffic_lights\":{\"controllers\":[{\"id\":\"mine\","
        "\"heads\":[\"1\"],\"phases\":[{\"duration\":10,\"states\":[\"red\"]},{\"duration\":10,\"states\":[\"green\"]}]}]}}";
    sim_scenario *sc = NULL;
    sim_diag diag = {0};
    int rc = sim_scenario_parse(scenario, strlen(scenario), "t.json", dir, &sc, &diag);
    for (int i = 0; i < diag.n; i++) print_message("%s\n", diag.msgs[i]);
    sim_diag_free(&diag);
    assert_int_equal(rc, 0);
    const sim_lights *L = &sc->net.lights;
    assert_int_equal(L->n_ctls, 2);
    assert_int_equal(L->groups[sim_lights_find_group(L, "10")].controller, -1);
    int c11 = L->groups[sim_lights_find_group(L, "11")].controller;
    assert_int_equal(c11, sim_lights_find_controller(L, "11"));
    assert_true(L->ctls[c11].offset == 0 && sim_lights_cycle(L, c11) == 50);
    assert_string_equal(states_at(L, 0), "red green green");
    assert_string_equal(states_at(L, 10), "green green green"); /* "mine" at its phase 1 */
    sim_scenario_free(sc);
    unlink(path);
    rmdir(dir);
}

/* An OpenSCENARIO file's TrafficSignalControllers over the same file
 * (tests/data/fabriksgatan_signal_controllers.xosc, its LogicFile pointed at the file
 * with controllers): "main" runs head 1 and "ped" heads 2 and 3, so neither OpenDRIVE
 * controller runs anything, and the file loads (without the defaults dropped first,
 * "main" would find head 1 owned by controller 10). */
static void openscenario_controllers_win(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_xodr_controllers.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char xodr[256], xosc[256];
    snprintf(xodr, sizeof xodr, "%s/fab.xodr", dir);
    snprintf(xosc, sizeof xosc, "%s/signals.xosc", dir);
    assert_int_equal(ts_fab_write(xodr, CONTROLLERS, JUNCTION_ENTRIES), 0);
    char *text;
    size_t len;
    assert_int_equal(sim_file_read(ts_root("tests/data/fabriksgatan_signal_controllers.xosc"), &text, &len, NULL), 0);
    const char *from = "../../../shared/openscenario/xodr/fabriksgatan_traffic_lights.xodr";
    char *at = strstr(text, from);
    assert_non_null(at);
    char *edited = malloc(len + 1);
    assert_non_null(edited);
    snprintf(edited, len + 1, "%.*sfab.xodr%s", (int)(at - text), text, at + strlen(from));
    free(text);
    FILE *f = fopen(xosc, "w");
    assert_non_null(f);
    assert_true(fputs(edited, f) >= 0);
    assert_int_equal(fclose(f), 0);
    free(edited);
    sim_scenario *sc = NULL;
    sim_diag diag = {0};
    int rc = sim_scenario_load(xosc, &sc, &diag);
    for (int i = 0; i < diag.n; i++) print_message("%s\n", diag.msgs[i]);
    sim_diag_free(&diag);
    assert_int_equal(rc, 0);
    const sim_lights *L = &sc->net.lights;
    assert_int_equal(L->n_groups, 2);
    assert_int_equal(L->n_ctls, 2);
    assert_true(sim_lights_find_controller(L, "main") >= 0 && sim_lights_find_controller(L, "ped") >= 0);
    assert_int_equal(L->groups[0].controller, -1);
    assert_int_equal(L->groups[1].controller, -1);
    assert_int_equal(L->n_default, 0);
    sim_scenario_free(sc);
    unlink(xodr);
    unlink(xosc);
    rmdir(dir);
}

static void expect_error(const char *controllers, const char *entries, const char *words)
{
    char *text = with_controllers(controllers, entries);
    sim_roadnet net;
    sim_error err = {0};
    assert_int_not_equal(sim_xodr_parse(text, strlen(text), "fab.xodr", &net, NULL, &err), 0);
    free(text);
    print_message("%s\n", err.msg);
    if (!strstr(err.msg, words) || strncmp(err.msg, "fab.xodr: ", 10) != 0)
        fail_msg("\"%s\" does not say \"%s\"", err.msg, words);
}

static void errors_name_the_element(void **state)
{
    (void)state;
    expect_error("<controller name=\"x\"><control signalId=\"1\"/></controller>", "", "<controller> has no id");
    expect_error(CONTROLLERS "<controller id=\"10\"/>", "", "controller \"10\" again");
    expect_error("<controller id=\"5\"><control type=\"0\"/></controller>", "", "<control> has no signalId");
    expect_error(CONTROLLERS, "<controller id=\"77\" sequence=\"1\"/>",
                 "of junction 4 names controller \"77\", which the file does not have");
    expect_error(CONTROLLERS, "<controller id=\"10\" sequence=\"x\"/>", "sequence");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(junction_groups_take_turns),
        cmocka_unit_test(lone_groups_each_their_own_cycle),
        cmocka_unit_test(scenario_controller_wins),
        cmocka_unit_test(openscenario_controllers_win),
        cmocka_unit_test(errors_name_the_element),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
