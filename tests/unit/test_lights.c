/* Traffic lights: the pure model (sim_lights) on a controller solved by hand, a head
 * red then green at the phase times, holds and phase moves, refused definitions; the
 * traffic core stopping an agent at a red line and letting it go at green (a straight
 * test track, no scenario); the bus messages byte for byte; the `signal` command's
 * validation; a red-light crossing of the ego as a drive-log event. */
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

#include "sim_command.h"
#include "sim_drivelog.h"
#include "sim_lights.h"
#include "sim_msg.h"
#include "sim_msg_signal.h"
#include "sim_recording.h"
#include "sim_scenario.h"
#include "sim_traffic_setup.h"
#include "sim_traffic.h"
#include "ts_assert.h"

/* Two heads, one controller: 10 s head a red / b green, 3 s a red / b amber, 12 s a
 * green / b red, 2 s a amber / b red (a 27 s cycle), offset 5 s. */
static void two_heads(sim_lights *L)
{
    memset(L, 0, sizeof *L);
    sim_error err = {0};
    sim_light_head h = {.id = "a", .road = -1};
    assert_int_equal(sim_lights_add_head(L, &h, &err), 0);
    h.id = "b";
    assert_int_equal(sim_lights_add_head(L, &h, &err), 1);
    int heads[] = {0, 1};
    double dur[] = {10, 3, 12, 2};
    sim_light_state st[] = {SIM_SIGNAL_RED, SIM_SIGNAL_GREEN, SIM_SIGNAL_RED, SIM_SIGNAL_AMBER,
                            SIM_SIGNAL_GREEN, SIM_SIGNAL_RED, SIM_SIGNAL_AMBER, SIM_SIGNAL_RED};
    assert_int_equal(sim_lights_add_controller(L, "c", heads, 2, dur, st, 4, 5.0, &err), 0);
}

static void red_then_green_at_the_phase_times(void **state)
{
    (void)state;
    sim_lights L;
    two_heads(&L);
    NEAR(sim_lights_cycle(&L, 0), 27, 0);
    sim_lights_run R;
    sim_error err = {0};
    assert_int_equal(sim_lights_run_init(&R, &L, &err), 0);
    /* t 5 (the offset) starts phase 0; t 0 lies 5 s before it, at 22 of the cycle:
     * phase 2 (13..25) */
    assert_int_equal(sim_lights_update(&L, &R, 0.0), 2); /* the first update tells all */
    assert_int_equal(R.state[0], SIM_SIGNAL_GREEN);
    assert_int_equal(sim_lights_update(&L, &R, 2.99), 0);
    assert_int_equal(sim_lights_update(&L, &R, 3.0), 1); /* phase 3: a amber */
    assert_int_equal(R.state[0], SIM_SIGNAL_AMBER);
    assert_int_equal(sim_lights_update(&L, &R, 4.99), 0);
    assert_int_equal(sim_lights_update(&L, &R, 5.0), 2);
    assert_int_equal(R.state[0], SIM_SIGNAL_RED);
    assert_int_equal(R.state[1], SIM_SIGNAL_GREEN);
    assert_int_equal(sim_lights_update(&L, &R, 14.99), 0);
    assert_int_equal(sim_lights_update(&L, &R, 15.0), 1); /* b to amber, a stays red */
    assert_true(R.changed[1] && !R.changed[0]);
    assert_int_equal(R.state[1], SIM_SIGNAL_AMBER);
    assert_int_equal(sim_lights_update(&L, &R, 17.99), 0);
    assert_int_equal(sim_lights_update(&L, &R, 18.0), 2);
    assert_int_equal(R.state[0], SIM_SIGNAL_GREEN);
    assert_int_equal(R.state[1], SIM_SIGNAL_RED);
    assert_int_equal(sim_lights_phase_at(&L, &R, 0, 18.0), 2);
    /* a cycle later, the same */
    assert_int_equal(sim_lights_update(&L, &R, 45.0), 0);
    assert_int_equal(R.state[0], SIM_SIGNAL_GREEN);
    assert_int_equal(sim_lights_update(&L, &R, 30.0), 1); /* 30 = 5 + 25: phase 3, a amber */
    assert_int_equal(R.state[0], SIM_SIGNAL_AMBER);

    /* the operator holds a in flashing amber; b runs on */
    assert_int_equal(sim_lights_set_head(&R, 0, SIM_SIGNAL_FLASHING_AMBER), 0);
    sim_lights_update(&L, &R, 32.0); /* 32 = 5 + 27: phase 0 again */
    assert_int_equal(R.state[0], SIM_SIGNAL_FLASHING_AMBER);
    assert_int_equal(R.state[1], SIM_SIGNAL_GREEN);
    /* the controller to phase 2 at t 33: a green (hold released) until 45, amber to 47 */
    assert_int_equal(sim_lights_set_phase(&L, &R, 0, 2, 33.0), 0);
    sim_lights_update(&L, &R, 33.0);
    assert_int_equal(R.state[0], SIM_SIGNAL_GREEN);
    sim_lights_update(&L, &R, 44.99);
    assert_int_equal(R.state[0], SIM_SIGNAL_GREEN);
    sim_lights_update(&L, &R, 45.0);
    assert_int_equal(R.state[0], SIM_SIGNAL_AMBER);
    sim_lights_update(&L, &R, 47.0);
    assert_int_equal(R.state[0], SIM_SIGNAL_RED);
    assert_int_equal(sim_lights_set_phase(&L, &R, 0, 4, 50.0), SIM_EINVAL);
    assert_int_equal(sim_lights_set_head(&R, 2, SIM_SIGNAL_RED), SIM_EINVAL);
    assert_int_equal(sim_lights_set_head(&R, 0, SIM_SIGNAL_STATE_COUNT), SIM_EINVAL);
    sim_lights_run_free(&R);
    sim_lights_free(&L);
}

static void bad_definitions_are_refused(void **state)
{
    (void)state;
    sim_lights L;
    two_heads(&L);
    sim_error err = {0};
    sim_light_head h = {.id = "a"};
    assert_int_equal(sim_lights_add_head(&L, &h, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "traffic light head \"a\" again, expected unique ids");
    h.id = "c";
    assert_int_equal(sim_lights_add_head(&L, &h, &err), 2);
    int heads[] = {2, 0};
    double dur[] = {5};
    sim_light_state st[] = {SIM_SIGNAL_RED, SIM_SIGNAL_RED};
    assert_int_equal(sim_lights_add_controller(&L, "d", heads, 2, dur, st, 1, 0, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "controller \"d\": head \"a\" belongs to controller \"c\" already");
    double zero[] = {0};
    assert_int_equal(sim_lights_add_controller(&L, "d", heads, 1, zero, st, 1, 0, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "controller \"d\": phase 0 lasts 0 s, expected > 0");
    assert_int_equal(sim_lights_add_controller(&L, "c", heads, 1, dur, st, 1, 0, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "traffic light controller \"c\" again, expected unique ids");
    assert_int_equal(sim_light_state_parse("red_amber"), SIM_SIGNAL_RED_AMBER);
    assert_int_equal(sim_light_state_parse("blue"), -1);
    assert_string_equal(sim_light_state_name(SIM_SIGNAL_FLASHING_AMBER), "flashing_amber");
    sim_lights_free(&L);
}

/* The traffic core on a straight 400 m lane: a stop line at s 200; the agent starting
 * at s 100 at 15 m/s halts with its front at most LIGHT_LINE_MARGIN + a little before
 * the line while it is red, and passes it once green. */
static void core_stops_at_red_goes_at_green(void **state)
{
    (void)state;
    sim_lanegraph g = {0};
    sim_error err = {0};
    assert_int_equal(sim_lanegraph_straight(&g, 400, 1, 3.5, 20, &err), 0);
    sim_traffic_params p;
    sim_traffic_params_default(&p);
    p.max_agents = 4;
    sim_traffic t;
    assert_int_equal(sim_traffic_init(&t, &g, &p, &err), 0);
    sim_traffic_spec sp = {.lane = 0, .s = 100, .speed = 15,
                           .b = {.desired_speed = 15, .headway = 1.5, .max_accel = 1.5, .max_decel = 3, .min_gap = 2}};
    int slot = sim_traffic_add_agent(&t, &sp, false, &err);
    assert_true(slot >= 0);
    sim_traffic_stop stop = {.lane = 0, .s = 200, .head = 0};
    sim_light_state st = SIM_SIGNAL_RED;
    sim_traffic_set_lights(&t, &stop, 1, &st);
    const sim_traffic_agent *a = &t.agents[slot];
    for (int k = 0; k < 3000; k++) { /* 30 s of red */
        sim_traffic_step(&t, 0.01);
        assert_true(a->s + 0.5 * a->length <= 200.0);
    }
    assert_true(a->v < 0.01);
    assert_true(a->s + 0.5 * a->length > 198.0); /* at the line, not short of it */
    st = SIM_SIGNAL_GREEN;
    for (int k = 0; k < 1000; k++) sim_traffic_step(&t, 0.01);
    assert_true(a->s > 220);
    /* amber as it arrives too close to stop: it goes on (a second agent at 15 m/s, 5 m
     * before the line when it turns) */
    sim_traffic_free(&t);
    assert_int_equal(sim_traffic_init(&t, &g, &p, &err), 0);
    sp.s = 200 - 5 - 2.25;
    slot = sim_traffic_add_agent(&t, &sp, false, &err);
    st = SIM_SIGNAL_AMBER;
    sim_traffic_set_lights(&t, &stop, 1, &st);
    for (int k = 0; k < 100; k++) sim_traffic_step(&t, 0.01);
    assert_true(t.agents[slot].s > 200);
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
}

/* The ego crossing the line on red is noted once, with its speed; on green not. */
static void ego_crossing_on_red(void **state)
{
    (void)state;
    sim_lanegraph g = {0};
    sim_error err = {0};
    assert_int_equal(sim_lanegraph_straight(&g, 400, 1, 3.5, 20, &err), 0);
    sim_traffic_params p;
    sim_traffic_params_default(&p);
    p.max_agents = 2;
    sim_traffic t;
    assert_int_equal(sim_traffic_init(&t, &g, &p, &err), 0);
    sim_traffic_stop stop = {.lane = 0, .s = 200, .head = 3};
    sim_light_state st[4] = {SIM_SIGNAL_OFF, SIM_SIGNAL_OFF, SIM_SIGNAL_OFF, SIM_SIGNAL_GREEN};
    sim_traffic_set_lights(&t, &stop, 1, st);
    double y = 0;
    sim_lanegraph_pose(&g, 0, 0, 0, &(double){0}, &y, &(double){0});
    int crossings = 0;
    for (int k = 0; k < 100; k++) { /* 190 .. 209.8 m, front at +2.25 */
        if (k == 50) st[3] = SIM_SIGNAL_RED;
        sim_traffic_set_ego(&t, 190 + 0.2 * k, y, 0, 20, 4.5, 1.8);
        if (t.ego_ran_red >= 0) {
            crossings++;
            assert_int_equal(t.ego_ran_red, 3);
            NEAR(t.ego_ran_red_speed, 20, 0);
            t.ego_ran_red = -1;
        }
    }
    assert_int_equal(crossings, 0); /* the front passed 200 at k 39, on green */
    for (int k = 0; k < 100; k++) { /* back at 180 and on: the front passes 200 at k 89 */
        sim_traffic_set_ego(&t, 180 + 0.2 * k, y, 0, 20, 4.5, 1.8);
        if (t.ego_ran_red >= 0) crossings++, t.ego_ran_red = -1;
    }
    assert_int_equal(crossings, 1);
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
}

static void messages_byte_exact(void **state)
{
    (void)state;
    sim_msg_signal_state m = {.id = "north", .state = "red_amber", .controller = "c1", .phase = 2};
    cJSON *o = sim_msg_signal_state_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"id\":\"north\",\"state\":\"red_amber\",\"controller\":\"c1\",\"phase\":2}");
    sim_msg_signal_state back;
    sim_error err = {0};
    assert_int_equal(sim_msg_signal_state_decode(o, &back, &err), 0);
    assert_string_equal(back.controller, "c1");
    assert_int_equal(back.phase, 2);
    free(s);
    cJSON_Delete(o);
    sim_msg_signal_state free_head = {.id = "7", .state = "off", .phase = SIM_MSG_NO_INT};
    o = sim_msg_signal_state_encode(&free_head);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"id\":\"7\",\"state\":\"off\"}");
    free(s);
    cJSON_Delete(o);
    /* a head that says where it stands (SUMO's), and a place given in part refused */
    sim_msg_signal_state sumo = {.id = "sumo:106:3", .state = "red", .controller = "sumo:106", .phase = SIM_MSG_NO_INT};
    sim_msg_signal_where w = {.pos = {8.01, -142.995, 0}, .heading = -1.5646, .stop_a = {7.31, -142.999, 0},
                              .stop_b = {3.81, -143.021, 0}};
    o = sim_msg_signal_state_encode_where(&sumo, &w);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"id\":\"sumo:106:3\",\"state\":\"red\",\"controller\":\"sumo:106\",\"pos\":[8.01,-142.995,0],"
                           "\"heading\":-1.5646,\"stop_a\":[7.31,-142.999,0],\"stop_b\":[3.81,-143.021,0]}");
    sim_msg_signal_where wb;
    assert_int_equal(sim_msg_signal_where_decode(o, &wb, &err), 0);
    assert_true(wb.pos[1] == -142.995 && wb.heading == -1.5646 && wb.stop_b[0] == 3.81);
    free(s);
    cJSON_DeleteItemFromObject(o, "heading");
    assert_int_equal(sim_msg_signal_where_decode(o, &wb, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "found 3 of them"));
    cJSON_Delete(o);
    o = cJSON_Parse("{\"id\":\"north\",\"state\":\"red\"}");
    assert_int_equal(sim_msg_signal_where_decode(o, &wb, &err), 0);
    assert_true(isnan(wb.pos[0]) && isnan(wb.heading));
    cJSON_Delete(o);
    sim_msg_signal_red_run r = {.head = "north", .speed = 12.5, .road = "main"};
    o = sim_msg_signal_red_run_encode(&r);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"head\":\"north\",\"speed\":12.5,\"road\":\"main\"}");
    free(s);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"id\":\"north\"}");
    assert_int_equal(sim_msg_signal_state_decode(o, &back, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "signal.state: \"state\" must be a light state");
    cJSON_Delete(o);
    o = cJSON_Parse("{\"head\":\"n\",\"speed\":-3}");
    assert_int_not_equal(sim_msg_signal_red_run_decode(o, &r, &err), SIM_OK);
    assert_non_null(strstr(err.msg, "speed"));
    cJSON_Delete(o);
}

static void command_validated(void **state)
{
    (void)state;
    const char *good[] = {"{\"cmd\":\"signal\",\"head\":\"north\",\"state\":\"red\"}",
                          "{\"cmd\":\"signal\",\"controller\":\"c1\",\"phase\":0}"};
    const char *bad[][2] = {
        {"{\"cmd\":\"signal\"}", "signal: give \"head\" (with \"state\") or \"controller\" (with \"phase\")"},
        {"{\"cmd\":\"signal\",\"head\":\"n\"}", "signal: \"state\" must be a string (missing)"},
        {"{\"cmd\":\"signal\",\"controller\":\"c\",\"phase\":1.5}", "signal: \"phase\" must be a phase number from 0"},
        {"{\"cmd\":\"signal\",\"head\":\"n\",\"controller\":\"c\",\"state\":\"red\"}",
         "signal: give \"head\" (with \"state\") or \"controller\" (with \"phase\")"}};
    sim_error err = {0};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        cJSON *o = cJSON_Parse(good[i]);
        assert_int_equal(sim_command_validate(o, NULL, &err), 0);
        cJSON_Delete(o);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *o = cJSON_Parse(bad[i][0]);
        assert_int_equal(sim_command_validate(o, NULL, &err), SIM_EINVAL);
        assert_string_equal(err.msg, bad[i][1]);
        cJSON_Delete(o);
    }
}

/* The recorder's logic: signal.red_run and signal.state become events "signal". */
static void red_run_is_a_drive_log_event(void **state)
{
    (void)state;
    char dir[64] = "/tmp/test_lights.XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/drive.sqlite", dir);
    sim_error err = {0};
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(path, NULL, &w, &err), 0);
    sim_recording rec;
    sim_recording_init(&rec, false, -1);
    const char *lines[] = {
        "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":1,\"t\":9.9,\"n\":990,\"dt\":0.01,\"run\":0,\"paused\":false}",
        "{\"topic\":\"signal.state\",\"src\":\"traffic\",\"seq\":1,\"t\":9.9,\"id\":\"north\",\"state\":\"red\"}",
        "{\"topic\":\"signal.red_run\",\"src\":\"traffic\",\"seq\":2,\"t\":9.91,\"head\":\"north\",\"speed\":25,"
        "\"road\":\"main\"}"};
    for (size_t i = 0; i < 3; i++) {
        cJSON *msg = cJSON_Parse(lines[i]);
        assert_int_equal(sim_recording_feed(&rec, w, cJSON_GetObjectItem(msg, "topic")->valuestring, msg, lines[i],
                                            strlen(lines[i]), &err), 0);
        cJSON_Delete(msg);
    }
    assert_int_equal(sim_drivelog_writer_close(w, &err), 0);
    sim_drivelog_reader *r;
    assert_int_equal(sim_drivelog_reader_open(path, &r, &err), 0);
    sim_drivelog_event *e;
    size_t n;
    assert_int_equal(sim_drivelog_read_events(r, sim_drivelog_range_all(), &e, &n, &err), 0);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].kind, "signal") == 0 && strcmp(e[i].name, "red_run") == 0) {
            NEAR(e[i].t, 9.91, 0);
            assert_string_equal(e[i].json, lines[2]);
            found++;
        }
    assert_int_equal(found, 1);
    sim_drivelog_events_free(e, n);
    sim_drivelog_reader_close(r);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The scenario's traffic_lights: heads placed by the road, a controller naming them,
 * stop lines on the lanes they control; every mistake named by its path. */
#define ROAD "\"roads\": [{\"id\": \"main\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 90}, " \
    "\"segments\": [{\"type\": \"line\", \"length\": 300}], \"lanes\": {\"left\": [{\"width\": 3.5}], " \
    "\"right\": [{\"width\": 3.5}, {\"width\": 3.5}]}}], "
static void scenario_section(void **state)
{
    (void)state;
    const char *good = "{\"name\": \"l\", " ROAD
        "\"traffic_lights\": {\"heads\": [{\"id\": \"a\", \"road\": \"main\", \"s\": 150, \"t\": -8, \"stop_s\": 148},"
        "{\"id\": \"b\", \"road\": \"main\", \"s\": 160, \"t\": 5, \"orientation\": \"-\"}],"
        "\"controllers\": [{\"id\": \"k\", \"heads\": [\"b\", \"a\"], \"offset\": 2, \"phases\": ["
        "{\"duration\": 10, \"states\": [\"green\", \"red\"]}, {\"duration\": 20, \"states\": [\"red\", \"green\"]}]}]}}";
    sim_scenario *sc;
    sim_diag d = {0};
    int rc = sim_scenario_parse(good, strlen(good), "l.json", ".", &sc, &d);
    if (rc) fail_msg("%s", d.n ? d.msgs[0] : "?");
    const sim_lights *L = &sc->net.lights;
    assert_int_equal(L->n_heads, 2);
    const sim_light_head *a = &L->heads[0];
    /* the road runs north (+y): t -8 is east of it, the head faces south */
    NEAR(a->x, 8, 1e-9);
    NEAR(a->y, 150, 1e-9);
    NEAR(remainder(a->heading - (-M_PI / 2), 2 * M_PI), 0, 1e-9);
    NEAR(a->stop_s, 148, 0);
    NEAR(a->z_offset, 3, 0);
    assert_int_equal(L->heads[1].orientation, -1);
    assert_int_equal(L->n_ctls, 1);
    assert_int_equal(L->ctls[0].heads[0], 1);
    assert_int_equal(L->ctls[0].phases[1].states[1], SIM_SIGNAL_GREEN);
    /* stop lines: head a on lanes -1 and -2 at s 148, head b on lane 1 at road s 160 */
    sim_traffic_setup su;
    sim_error err = {0};
    assert_int_equal(sim_traffic_setup_init(&su, sc, 0, &err), 0);
    assert_int_equal(su.n_stops, 3);
    for (int i = 0; i < su.n_stops; i++) {
        const sim_lg_lane *l = &su.graph.lanes[su.stops[i].lane];
        NEAR(sim_lanegraph_road_s(&su.graph, su.stops[i].lane, su.stops[i].s), su.stops[i].head == 0 ? 148 : 160, 1e-9);
        assert_true(l->forward == (su.stops[i].head == 0));
    }
    sim_traffic_setup_free(&su);
    sim_scenario_free(sc);
    sim_diag_free(&d);
    const char *bad = "{\"name\": \"l\", " ROAD
        "\"traffic_lights\": {\"heads\": [{\"id\": \"a\", \"road\": \"main\", \"s\": 150, \"t\": -8},"
        "{\"id\": \"a\", \"road\": \"main\", \"s\": 10, \"t\": 5}, {\"id\": \"c\", \"road\": \"main\", \"s\": 10, "
        "\"t\": 5, \"lanes\": [-3]}],"
        "\"controllers\": [{\"id\": \"k\", \"heads\": [\"a\", \"z\"], \"phases\": ["
        "{\"duration\": 10, \"states\": [\"green\", \"blue\"]}, {\"duration\": 0, \"states\": [\"red\"]}]}]}}";
    assert_int_equal(sim_scenario_parse(bad, strlen(bad), "l.json", ".", &sc, &d), SIM_EINVAL);
    const char *want[] = {
        "l.json: traffic_lights.heads[1]: traffic light head \"a\" again, expected unique ids",
        "l.json: traffic_lights.heads[2].lanes[0]: found -3, expected a lane id of the head's road",
        "l.json: traffic_lights.controllers[0].heads[1]: found \"z\", expected the id of a head (traffic_lights.heads, "
        "or an OpenDRIVE signal id)",
        "l.json: traffic_lights.controllers[0].phases[0].states[1]: found \"blue\", expected off, red, red_amber, amber, "
        "green or flashing_amber",
        "l.json: traffic_lights.controllers[0].phases[1].duration: found 0, expected a number in [0.1, 3600]",
        "l.json: traffic_lights.controllers[0].phases[1].states: has 1 states, expected one per head (2)"};
    assert_int_equal(d.n, (int)(sizeof want / sizeof *want));
    for (int i = 0; i < d.n; i++) assert_string_equal(d.msgs[i], want[i]);
    sim_diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(red_then_green_at_the_phase_times), cmocka_unit_test(bad_definitions_are_refused),
        cmocka_unit_test(core_stops_at_red_goes_at_green),   cmocka_unit_test(ego_crossing_on_red),
        cmocka_unit_test(messages_byte_exact),               cmocka_unit_test(command_validated),
        cmocka_unit_test(red_run_is_a_drive_log_event),      cmocka_unit_test(scenario_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
