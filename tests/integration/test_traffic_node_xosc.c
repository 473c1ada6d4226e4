/* Integration test of traffic-node with an OpenSCENARIO scenario (real dispatcher and
 * traffic-node; the test plays physics, the lockstep clock). With --scenario-ego the
 * storyboard drives every entity of the shared cut-in: two runs give byte-identical
 * traffic.state and storyboard.event streams, the cut-in event is on the bus at its
 * tick, and sim.end comes at the stop trigger. With the ego the person's car (the
 * test's vehicle.state), the storyboard's conditions read that car: driven at the
 * scenario's speed the cut-in happens, left standing it never does; the ego is not
 * published as a vehicle of its own. Killed mid-scenario and restarted with its --state
 * snapshot, the node continues the storyboard: from the restart on, its lines are those
 * of a run that was never interrupted (the cut-in after the restart, the stop at the
 * same tick). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_road.h"
#include "sim_scenario.h"
#include "test_support.h"

#define SCENARIO "../shared/openscenario/xosc/cut-in.xosc"
#define DT 0.01

typedef struct session {
    ts_dispatcher d;
    pid_t node;
    ts_conn *phys;
    uint64_t tick, seq;
    char line[70000];
} session;

/* traffic-node on s's bus (with --state when state_path), waited for until it joined */
static void node_start(session *s, bool scenario_ego, const char *state_path)
{
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", s->d.port);
    char *argv[] = {"traffic-node", "--bus", bus, "--scenario", (char *)ts_root(SCENARIO), "--lockstep",
                    scenario_ego ? "--scenario-ego" : "--lockstep", state_path ? "--state" : NULL, (char *)state_path,
                    NULL};
    s->node = ts_spawn(argv, false);
    assert_true(s->node > 0);
    for (;;) {
        cJSON *j = ts_expect_topic(s->phys, "dispatcher.joined", 10000, NULL, 0);
        assert_non_null(j);
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool it = cJSON_IsString(name) && strcmp(name->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
}

static void session_start_with(session *s, bool scenario_ego, const char *state_path)
{
    memset(s, 0, sizeof *s);
    assert_true(ts_dispatcher_start(&s->d, NULL));
    s->phys = ts_join(s->d.port, "physics", "[\"sim.ack\",\"sim.end\",\"traffic.\",\"storyboard.\",\"dispatcher.joined\"]", NULL);
    assert_non_null(s->phys);
    node_start(s, scenario_ego, state_path);
}

static void session_start(session *s, bool scenario_ego) { session_start_with(s, scenario_ego, NULL); }

static void session_stop(session *s)
{
    assert_int_equal(ts_stop(s->node, SIGTERM, 5000), 0);
    ts_close(s->phys);
    ts_dispatcher_stop(&s->d);
}

/* One tick with the ego's centre at (x, y) heading h at speed v; every line the node
 * says for it, up to its ack, is appended to stream. */
static void tick(session *s, double x, double y, double h, double v, char *stream, size_t cap)
{
    double t = s->tick * DT;
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"speed\":%.3f,"
             "\"pos\":[%.4f,%.4f,0],\"heading\":%.6f}",
             (unsigned long long)++s->seq, t, v, x, y, h);
    assert_true(ts_send_line(s->phys, msg));
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"n\":%llu,\"dt\":0.01,"
             "\"run\":0,\"paused\":false}",
             (unsigned long long)++s->seq, t, (unsigned long long)s->tick);
    assert_true(ts_send_line(s->phys, msg));
    for (;;) {
        int n = ts_read_line(s->phys, s->line, sizeof s->line, 10000);
        assert_true(n > 0);
        if (strstr(s->line, "\"topic\":\"sim.ack\"")) break;
        if (strstr(s->line, "\"topic\":\"dispatcher.")) continue;
        assert_true(strlen(stream) + (size_t)n + 2 < cap);
        strcat(stream, s->line);
        strcat(stream, "\n");
    }
    s->tick++;
}

static void run_scenario_ego(char *stream, size_t cap)
{
    session s;
    session_start(&s, true);
    stream[0] = '\0';
    for (int k = 0; k < 2200; k++) tick(&s, 0, 0, 0, 0, stream, cap); /* the person's car is not looked at */
    session_stop(&s);
}

static void scenario_ego_same_bytes(void **state)
{
    (void)state;
    size_t cap = 64u << 20;
    char *a = malloc(cap), *b = malloc(cap);
    run_scenario_ego(a, cap);
    run_scenario_ego(b, cap);
    assert_string_equal(a, b);
    /* the storyboard's ego on traffic.ego (for physics to put the car there), the
     * overtaker in traffic.state */
    assert_non_null(strstr(a, "\"topic\":\"traffic.ego\",\"src\":\"traffic\""));
    assert_non_null(strstr(a, "\"id\":\"Ego\",\"x\":"));
    assert_non_null(strstr(a, "\"id\":\"OverTaker\""));
    /* storyboard entities carry OpenSCENARIO's reference point beside the box's centre */
    assert_non_null(strstr(a, "\"pos_ref\":["));
    assert_non_null(strstr(a, "\"x_ref\":"));
    /* the cut-in at 6.24 s (the overtaker 0.4 s ahead of the ego), the stop at 21.75 s */
    assert_non_null(strstr(a, "\"t\":6.24,\"element\":\"CutInEvent\",\"kind\":\"event\",\"transition\":\"startTransition\""));
    const char *end = strstr(a, "\"topic\":\"sim.end\"");
    assert_non_null(end);
    assert_non_null(strstr(end - 80 > a ? end - 80 : a, "\"t\":21.75"));
    free(a);
    free(b);
}

/* The person's car on lane -3 of road 0 from the ego's start, at speed v. */
static bool person_run(double v)
{
    sim_scenario *sc;
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err(ts_root(SCENARIO), &sc, &err), 0);
    const sim_start_point *st = &sc->starts[0];
    session s;
    session_start(&s, false);
    size_t cap = 64u << 20;
    char *stream = malloc(cap);
    stream[0] = '\0';
    for (int k = 0; k < 1000; k++) {
        sim_road_pose p;
        sim_road_lane_pose(&sc->net, st->road, st->s + v * k * DT, st->lane, 0, &p);
        tick(&s, p.x, p.y, p.heading, v, stream, cap);
    }
    session_stop(&s);
    bool cut_in = strstr(stream, "\"element\":\"CutInEvent\",\"kind\":\"event\",\"transition\":\"startTransition\"") != NULL;
    assert_null(strstr(stream, "\"id\":\"Ego\"")); /* the person's car is the ego, not traffic */
    assert_non_null(strstr(stream, "\"id\":\"OverTaker\""));
    free(stream);
    sim_scenario_free(sc);
    return cut_in;
}

static void person_ego_conditions(void **state)
{
    (void)state;
    assert_true(person_run(30.0));
    assert_false(person_run(0.0));
}

/* The stream without the sender's sequence numbers (a restarted node counts afresh). */
static void strip_seq(char *s)
{
    char *w = s;
    for (const char *r = s; *r;) {
        if (strncmp(r, "\"seq\":", 6) == 0) {
            r += 6;
            while (*r >= '0' && *r <= '9') r++;
            if (*r == ',') r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* 2200 ticks with the storyboard driving every entity; with kill_at > 0 the node is
 * killed (SIGKILL: no clean stop, the snapshot stays) after tick kill_at - 1 and a new
 * one started with the same --state. stream gets the lines from tick kill_at on. */
static void run_restarted(int kill_at, const char *state_path, char *stream, size_t cap)
{
    session s;
    session_start_with(&s, true, state_path);
    size_t before_cap = 64u << 20;
    char *before = malloc(before_cap);
    before[0] = stream[0] = '\0';
    for (int k = 0; k < 2200; k++) {
        if (k == 400 && kill_at > 0) {
            assert_int_equal(ts_stop(s.node, SIGKILL, 5000) & 0x7f, SIGKILL);
            node_start(&s, true, state_path);
        }
        tick(&s, 0, 0, 0, 0, k < 400 ? before : stream, k < 400 ? before_cap : cap);
    }
    session_stop(&s);
    free(before);
    strip_seq(stream);
}

static void restart_continues_storyboard(void **state)
{
    (void)state;
    char dir[] = "/tmp/tn_xosc_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/snap", dir);
    size_t cap = 64u << 20;
    char *a = malloc(cap), *b = malloc(cap);
    run_restarted(0, NULL, a, cap);
    run_restarted(400, path, b, cap);
    /* the cut-in (6.24 s) comes after the restart (4.00 s): the storyboard was continued */
    assert_non_null(strstr(b, "\"t\":6.24,\"element\":\"CutInEvent\",\"kind\":\"event\",\"transition\":\"startTransition\""));
    assert_non_null(strstr(b, "\"topic\":\"sim.end\""));
    assert_string_equal(a, b);
    free(a);
    free(b);
    char f[80];
    for (int k = 0; k < 2; k++) {
        snprintf(f, sizeof f, "%s.%d", path, k);
        unlink(f);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restart_continues_storyboard),
        cmocka_unit_test(scenario_ego_same_bytes),
        cmocka_unit_test(person_ego_conditions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
