/* Integration test of traffic-node (real dispatcher and traffic-node processes; the
 * test plays physics: it publishes the ego's vehicle.state and sim.tick and waits for
 * the node's sim.ack, as the lockstep clock does). Two runs with the same scenario and
 * ego give byte-identical traffic.state streams; `simctl traffic density 0.5` halves
 * the ambient traffic, `freeze` stops every vehicle and `unfreeze` lets them go on;
 * every command is acknowledged; a bad scenario stops the node before the session. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "sim_file.h"
#include "sim_road.h"
#include "sim_scenario.h"
#include "test_support.h"

#define DT 0.01
#define EGO_SPEED 30.0

typedef struct session {
    ts_dispatcher d;
    pid_t node;
    ts_conn *phys;
    sim_scenario *sc;
    int road;
    double d_lane, s0;
    uint64_t tick, seq;
    int run;
    char line[70000];
} session;

/* Starts the node (again) with the session's options; waits until it has joined. */
static void node_start(session *s, const char *scenario, const char *state_path)
{
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", s->d.port);
    char *argv[] = {"traffic-node", "--bus", bus, "--scenario", (char *)ts_root(scenario), "--lockstep",
                    state_path ? "--state" : NULL, (char *)state_path, NULL};
    s->node = ts_spawn(argv, false);
    assert_true(s->node > 0);
    /* The node is there once the dispatcher says so. */
    for (;;) {
        cJSON *j = ts_expect_topic(s->phys, "dispatcher.joined", 10000, NULL, 0);
        assert_non_null(j);
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool it = cJSON_IsString(name) && strcmp(name->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
}

static void session_start_with(session *s, const char *scenario, const char *state_path)
{
    memset(s, 0, sizeof *s);
    assert_true(ts_dispatcher_start(&s->d, NULL));
    s->phys = ts_join(s->d.port, "physics", "[\"sim.ack\",\"traffic.\",\"control.ack\",\"dispatcher.joined\"]", NULL);
    assert_non_null(s->phys);
    node_start(s, scenario, state_path);
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err(ts_root(scenario), &s->sc, &err), 0);
    const sim_start_point *st = &s->sc->starts[sim_scenario_find_start(s->sc, "motorway")];
    s->road = st->road;
    s->s0 = st->s;
    assert_true(sim_road_lane_center(&s->sc->net.roads[st->road], st->s, st->lane, &s->d_lane));
}

static void session_start(session *s, const char *scenario) { session_start_with(s, scenario, NULL); }

static void session_stop(session *s)
{
    assert_int_equal(ts_stop(s->node, SIGTERM, 5000), 0);
    ts_close(s->phys);
    ts_dispatcher_stop(&s->d);
    sim_scenario_free(s->sc);
}

/* One tick: the ego's state, the tick, and the node's traffic.state and ack for it.
 * Appends the traffic.state line to stream (when given). Returns the state parsed. */
static cJSON *tick(session *s, char *stream, size_t cap)
{
    double t = s->tick * DT;
    sim_road_pose p;
    sim_road_pose_at(&s->sc->net, s->road, s->s0 + EGO_SPEED * t, s->d_lane, &p);
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"speed\":%.1f,"
             "\"pos\":[%.4f,%.4f,0],\"heading\":%.6f}",
             (unsigned long long)++s->seq, t, EGO_SPEED, p.x, p.y, p.heading);
    assert_true(ts_send_line(s->phys, msg));
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"n\":%llu,\"dt\":0.01,"
             "\"run\":%d,\"paused\":false}",
             (unsigned long long)++s->seq, t, (unsigned long long)s->tick, s->run);
    assert_true(ts_send_line(s->phys, msg));
    cJSON *state = ts_expect_topic(s->phys, "traffic.state", 10000, s->line, sizeof s->line);
    assert_non_null(state);
    if (stream) {
        assert_true(strlen(stream) + strlen(s->line) + 2 < cap);
        strcat(stream, s->line);
        strcat(stream, "\n");
    }
    cJSON *ack = ts_expect_topic(s->phys, "sim.ack", 10000, NULL, 0);
    assert_non_null(ack);
    assert_int_equal((uint64_t)cJSON_GetObjectItem(ack, "n")->valuedouble, s->tick);
    cJSON_Delete(ack);
    s->tick++;
    return state;
}

static int field(const cJSON *o, const char *k) { return (int)cJSON_GetObjectItem(o, k)->valuedouble; }

static void run_once(char *stream, size_t cap, int ticks)
{
    session s;
    session_start(&s, "scenarios/motorway.json");
    stream[0] = '\0';
    for (int k = 0; k < ticks; k++) cJSON_Delete(tick(&s, stream, cap));
    session_stop(&s);
}

static void same_input_same_bytes(void **state)
{
    size_t cap = 64u << 20;
    char *a = malloc(cap), *b = malloc(cap);
    run_once(a, cap, 1500);
    run_once(b, cap, 1500);
    assert_true(strlen(a) > 1500 * 200);
    assert_string_equal(a, b);
    /* Traffic worth the name: ambient vehicles around the ego, a lead vehicle at times. */
    assert_non_null(strstr(a, "\"id\":\"a1")); /* ambient ids are a<uid>, after the 9 scenario agents */
    assert_non_null(strstr(a, "\"lead\":{\"id\""));
    free(a);
    free(b);
}

/* Sends an operator command through simctl and waits for the node's control.ack. */
static void command(session *s, const char *args, const char *cmd)
{
    char line[512];
    snprintf(line, sizeof line, "\"%s\" %s --control %s >/dev/null", ts_bin("simctl"), args, s->d.control_url);
    assert_int_equal(system(line), 0);
    cJSON *ack = ts_expect_topic(s->phys, "control.ack", 10000, NULL, 0);
    assert_non_null(ack);
    assert_string_equal(cJSON_GetObjectItem(ack, "cmd")->valuestring, cmd);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);
}

/* How many vehicles of `now` are also in `then`, and how many of those stand where
 * they stood (the lists follow the moving ego, so they differ at their edges). */
static void compare(const cJSON *then, const cJSON *now, int *common, int *same)
{
    *common = *same = 0;
    const cJSON *v, *w;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(now, "vehicles"))
    {
        cJSON_ArrayForEach(w, cJSON_GetObjectItem(then, "vehicles"))
        {
            if (strcmp(cJSON_GetObjectItem(v, "id")->valuestring, cJSON_GetObjectItem(w, "id")->valuestring)) continue;
            (*common)++;
            *same += cJSON_Compare(cJSON_GetObjectItem(v, "pos"), cJSON_GetObjectItem(w, "pos"), true);
        }
    }
}

static void density_and_freeze(void **state)
{
    session s;
    session_start(&s, "scenarios/motorway.json");
    cJSON *st = NULL;
    for (int k = 0; k < 300; k++) {
        cJSON_Delete(st);
        st = tick(&s, NULL, 0);
    }
    int before = field(st, "ambient");
    assert_true(before >= 20);
    command(&s, "traffic density 0.5", "traffic");
    for (int k = 0; k < 300; k++) { /* within 3 s */
        cJSON_Delete(st);
        st = tick(&s, NULL, 0);
    }
    int after = field(st, "ambient");
    fprintf(stderr, "ambient vehicles: %d, at density 0.5: %d\n", before, after);
    /* The target follows the lane length around the moving ego, so half of what was
     * there give or take a quarter. */
    assert_true(abs(2 * after - before) <= before / 4);

    command(&s, "traffic freeze", "traffic");
    cJSON_Delete(st);
    st = tick(&s, NULL, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(st, "frozen")));
    cJSON *frozen = cJSON_Duplicate(st, true);
    for (int k = 0; k < 200; k++) {
        const cJSON *v;
        cJSON_ArrayForEach(v, cJSON_GetObjectItem(st, "vehicles"))
        {
            const cJSON *vel = cJSON_GetObjectItem(v, "velocity");
            assert_true(cJSON_GetArrayItem(vel, 0)->valuedouble == 0 && cJSON_GetArrayItem(vel, 1)->valuedouble == 0);
        }
        cJSON_Delete(st);
        st = tick(&s, NULL, 0);
    }
    int common, same;
    compare(frozen, st, &common, &same);
    assert_true(common >= 10);
    assert_int_equal(same, common); /* nobody moved in 2 s */
    command(&s, "traffic unfreeze", "traffic");
    for (int k = 0; k < 100; k++) {
        cJSON_Delete(st);
        st = tick(&s, NULL, 0);
    }
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(st, "frozen")));
    compare(frozen, st, &common, &same);
    assert_true(common >= 10);
    assert_int_equal(same, 0); /* every one of them drove on */
    cJSON_Delete(frozen);
    /* Commands straight onto the bus are held to the same rules, and refused with why. */
    const char *bad[][2] = {{"{\"topic\":\"control.traffic\",\"src\":\"test\",\"id\":\"7\",\"density\":2}", "density"},
                            {"{\"topic\":\"control.restart\",\"src\":\"test\",\"id\":\"8\",\"at\":\"nowhere\"}", "nowhere"}};
    for (int i = 0; i < 2; i++) {
        assert_true(ts_send_line(s.phys, bad[i][0]));
        cJSON *ack = ts_expect_topic(s.phys, "control.ack", 10000, NULL, 0);
        assert_non_null(ack);
        assert_true(cJSON_IsFalse(cJSON_GetObjectItem(ack, "ok")));
        assert_non_null(strstr(cJSON_GetObjectItem(ack, "error")->valuestring, bad[i][1]));
        cJSON_Delete(ack);
    }
    cJSON_Delete(st);
    session_stop(&s);
}

/* The payload of a traffic.state line from "total" on: what the traffic is, without
 * the envelope and the run number. */
static const char *traffic_of(const char *line)
{
    const char *p = strstr(line, "\"total\"");
    assert_non_null(p);
    return p;
}

/* control.restart: the traffic afterwards is the traffic of a fresh start, byte for
 * byte (the ego back at its start, the clock from 0 in the next run). */
static void restart_is_a_fresh_start(void **state)
{
    enum { N = 300 };
    static char fresh[N][65536];
    session s;
    session_start(&s, "scenarios/motorway.json");
    for (int k = 0; k < N; k++) {
        cJSON_Delete(tick(&s, NULL, 0));
        snprintf(fresh[k], sizeof fresh[k], "%s", traffic_of(s.line));
    }
    for (int k = 0; k < 200; k++) cJSON_Delete(tick(&s, NULL, 0)); /* drive on: the traffic changes */
    assert_string_not_equal(fresh[N - 1], traffic_of(s.line));
    command(&s, "restart motorway", "restart");
    s.tick = 0;
    s.run = 1;
    for (int k = 0; k < N; k++) {
        cJSON_Delete(tick(&s, NULL, 0));
        assert_string_equal(fresh[k], traffic_of(s.line));
    }
    session_stop(&s);
}

/* Bad traffic set-up is refused before the session: the node exits 1 naming it. */
/* The ego's state and the tick with nobody to answer: the node is down. */
static void tick_unanswered(session *s)
{
    double t = s->tick * DT;
    sim_road_pose p;
    sim_road_pose_at(&s->sc->net, s->road, s->s0 + EGO_SPEED * t, s->d_lane, &p);
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"speed\":%.1f,"
             "\"pos\":[%.4f,%.4f,0],\"heading\":%.6f}",
             (unsigned long long)++s->seq, t, EGO_SPEED, p.x, p.y, p.heading);
    assert_true(ts_send_line(s->phys, msg));
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"n\":%llu,\"dt\":0.01,"
             "\"run\":%d,\"paused\":false}",
             (unsigned long long)++s->seq, t, (unsigned long long)s->tick, s->run);
    assert_true(ts_send_line(s->phys, msg));
    s->tick++;
}

/* Largest distance (m) between a vehicle of a and the same vehicle (by id) of b;
 * counts the vehicles found in both. */
static double largest_offset(const cJSON *a, const cJSON *b, int *common)
{
    double worst = 0;
    *common = 0;
    const cJSON *va, *vb;
    cJSON_ArrayForEach(va, cJSON_GetObjectItem(a, "vehicles")) {
        const char *id = cJSON_GetObjectItem(va, "id")->valuestring;
        cJSON_ArrayForEach(vb, cJSON_GetObjectItem(b, "vehicles")) {
            if (strcmp(cJSON_GetObjectItem(vb, "id")->valuestring, id) != 0) continue;
            const cJSON *pa = cJSON_GetObjectItem(va, "pos"), *pb = cJSON_GetObjectItem(vb, "pos");
            double dx = cJSON_GetArrayItem(pa, 0)->valuedouble - cJSON_GetArrayItem(pb, 0)->valuedouble;
            double dy = cJSON_GetArrayItem(pa, 1)->valuedouble - cJSON_GetArrayItem(pb, 1)->valuedouble;
            double d = sqrt(dx * dx + dy * dy);
            if (d > worst) worst = d;
            (*common)++;
        }
    }
    return worst;
}

/* Issue 21: a traffic-node killed at 40 s restarted the scenario from t = 0 (agents up
 * to 551 m off, triggers firing twice). With --state (simctl run sets it) the restarted
 * node continues from its snapshot of the last tick it had and steps the ticks it
 * missed: killed at tick 700 of 1500, away for 50 ticks (0.5 s), its vehicles at the
 * end are within 0.5 m of an uninterrupted run's (docs/traffic.md, "Restart with state"). */
static void restart_continues_from_the_snapshot(void **state)
{
    enum { TICKS = 1500, KILL_AT = 700, AWAY = 50 };
    session a;
    session_start(&a, "scenarios/motorway.json");
    cJSON *want = NULL;
    for (int k = 0; k < TICKS; k++) {
        cJSON_Delete(want);
        want = tick(&a, NULL, 0);
    }
    session_stop(&a);

    char snap[128];
    snprintf(snap, sizeof snap, "/tmp/test_traffic_snapshot.%d", (int)getpid());
    char slot[160];
    for (int k = 0; k < 2; k++) {
        snprintf(slot, sizeof slot, "%s.%d", snap, k);
        unlink(slot);
    }
    session b;
    session_start_with(&b, "scenarios/motorway.json", snap);
    for (int k = 0; k < KILL_AT; k++) cJSON_Delete(tick(&b, NULL, 0));
    kill(b.node, SIGKILL);
    ts_stop(b.node, SIGKILL, 5000);
    cJSON *left = ts_expect_topic(b.phys, "dispatcher.left", 10000, NULL, 0);
    assert_non_null(left);
    cJSON_Delete(left);
    for (int k = 0; k < AWAY; k++) tick_unanswered(&b);
    node_start(&b, "scenarios/motorway.json", snap);
    cJSON *got = NULL;
    while (b.tick < TICKS) {
        cJSON_Delete(got);
        got = tick(&b, NULL, 0);
    }
    int common = 0;
    double worst = largest_offset(want, got, &common);
    print_message("restart after %d ticks away: %d vehicles in common, largest offset %.3f m\n", AWAY, common, worst);
    assert_true(common >= 5);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(got, "vehicles")),
                     cJSON_GetArraySize(cJSON_GetObjectItem(want, "vehicles")));
    assert_true(worst < 0.5);
    cJSON_Delete(want);
    cJSON_Delete(got);
    session_stop(&b);
    snprintf(slot, sizeof slot, "%s.0", snap);
    assert_int_equal(access(slot, F_OK), -1); /* a clean stop removes it */
}

static void bad_scenario_refused(void **state)
{
    char dir[] = "/tmp/test_traffic_node_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], cmd[512];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"name\":\"bad\",\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
          "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":{\"right\":[{\"width\":3.5}]}},"
          "{\"id\":\"b\",\"start\":{\"x\":0,\"y\":50,\"heading_deg\":0},\"segments\":[{\"type\":\"line\",\"length\":100}],"
          "\"lanes\":{\"right\":[{\"width\":3.5}]}}],"
          "\"traffic\":{\"agents\":[{\"id\":\"x\",\"start\":{\"road\":\"a\",\"s\":10,\"lane\":-1},\"route\":[\"a\",\"b\"],"
          "\"desired_speed_kmh\":50}]},"
          "\"triggers\":[{\"id\":\"t\",\"road\":\"a\",\"s_start\":1,\"s_end\":2,\"action\":{\"type\":\"brake\",\"agent\":\"ghost\",\"decel\":5,\"duration_s\":1}}]}",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "\"%s\" --scenario %s --bus 127.0.0.1:1 2>%s/err.txt", ts_bin("traffic-node"), path, dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    char *err;
    size_t n;
    snprintf(cmd, sizeof cmd, "%s/err.txt", dir);
    assert_int_equal(sim_file_read(cmd, &err, &n, NULL), 0);
    assert_non_null(strstr(err, "traffic.agents[0].route[1]"));
    free(err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_input_same_bytes),
        cmocka_unit_test(density_and_freeze),
        cmocka_unit_test(restart_is_a_fresh_start),
        cmocka_unit_test(restart_continues_from_the_snapshot),
        cmocka_unit_test(bad_scenario_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
