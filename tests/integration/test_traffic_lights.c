/* Integration test of traffic lights and speed signs in traffic-node (real dispatcher,
 * traffic-node and simctl; the test plays physics in lockstep, as test_traffic_node.c).
 *
 * tests/data/traffic_light.json: head "north" at s 300 shows red from t 0 to 15, green
 * to 45; the car starting at s 200 in lane -1 waits at the line on red and drives on
 * at green; the ego, driven by the test at 25 m/s in lane -2 from s 50, crosses the
 * line at t = 9.91 s on red: signal.red_run. `simctl signal north red` holds the head
 * (acknowledged, signal.state red on the next tick), `simctl signal controller c1 1`
 * moves the controller back to its green phase; an unknown head is refused in the ack.
 * A hold outlives a kill -9 and a restart with --state (the snapshot keeps the holds).
 *
 * tests/data/speed_signs.json: esmini's straight_500m_signs.xodr, where the speed signs
 * are the lanes' only limits in each direction; two agents wanting 100 km/h keep to
 * them (30 between the signs at 100 and 200, 70 against s between 260 and 200).
 *
 * A whole headless session (simctl run) on traffic_light.json: the scripted driver,
 * starting at s 230 at 40 km/h, stops with its front before the line until the light
 * turns green at 15 s and drives on; the drive log holds the heads' states as events
 * and no red-light crossing. On traffic_light_sudden.json the head turns from green to
 * red without amber at 4.5 s, when the driver is some 10 m before the line at 13.8 m/s:
 * it cannot stop, crosses on red, and the drive log has one `signal` `red_run` event
 * with its speed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"
#include "ts_assert.h"
#include "ts_xodr.h"

#define DT 0.05

typedef struct session {
    ts_dispatcher d;
    pid_t node;
    ts_conn *phys;
    uint64_t tick, seq;
    double ego_s, ego_v, ego_d;  /* the ego: on the x axis road, s = x, d = y */
    double ego_end;              /* s where it stops (0: never) */
    /* what the last tick brought */
    char state_of[4][16];        /* per head seen (index by name below): last state */
    int n_state_msgs;
    bool red_run;
    char red_head[64];
    double red_speed;
    cJSON *traffic;              /* the tick's traffic.state */
} session;

/* Starts the node (again), with --state PATH when state_path; waits until it joined. */
static void node_start(session *s, const char *scenario, const char *state_path)
{
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", s->d.port);
    const char *file = scenario[0] == '/' ? scenario : ts_root(scenario); /* a test's own file, or the repo's */
    char *argv[] = {"traffic-node", "--bus", bus, "--scenario", (char *)file, "--lockstep",
                    state_path ? "--state" : NULL, (char *)state_path, NULL};
    s->node = ts_spawn(argv, false);
    assert_true(s->node > 0);
    for (;;) {
        cJSON *j = ts_expect_topic(s->phys, "dispatcher.joined", 10000, NULL, 0);
        assert_non_null(j);
        bool it = strcmp(cJSON_GetObjectItem(j, "name")->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
}

static void session_start_with(session *s, const char *scenario, const char *state_path)
{
    memset(s, 0, sizeof *s);
    assert_true(ts_dispatcher_start(&s->d, NULL));
    s->phys = ts_join(s->d.port, "physics",
                      "[\"sim.ack\",\"traffic.state\",\"signal.\",\"control.ack\",\"dispatcher.\"]", NULL);
    assert_non_null(s->phys);
    node_start(s, scenario, state_path);
}

static void session_start(session *s, const char *scenario) { session_start_with(s, scenario, NULL); }

static void session_stop(session *s)
{
    cJSON_Delete(s->traffic);
    assert_int_equal(ts_stop(s->node, SIGTERM, 5000), 0);
    ts_close(s->phys);
    ts_dispatcher_stop(&s->d);
}

/* north 0, south 1 (traffic_light.json); OpenDRIVE heads "1", "2", "3": 0, 1, 2 */
static int head_index(const char *id)
{
    if (id[0] >= '1' && id[0] <= '3' && !id[1]) return id[0] - '1';
    return strcmp(id, "north") == 0 ? 0 : strcmp(id, "south") == 0 ? 1 : 2;
}

/* One tick: the ego's state and the tick, then every line up to the node's ack. */
static void tick(session *s)
{
    double t = s->tick * DT;
    double x = s->ego_s + s->ego_v * t, v = s->ego_v;
    if (s->ego_end > 0 && x >= s->ego_end) x = s->ego_end, v = 0;
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"speed\":%.3f,"
             "\"pos\":[%.4f,%.4f,0],\"heading\":0}",
             (unsigned long long)++s->seq, t, v, x, s->ego_d);
    assert_true(ts_send_line(s->phys, msg));
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.2f,\"n\":%llu,\"dt\":%g,"
             "\"run\":0,\"paused\":false}",
             (unsigned long long)++s->seq, t, (unsigned long long)s->tick, DT);
    assert_true(ts_send_line(s->phys, msg));
    s->n_state_msgs = 0;
    s->red_run = false;
    cJSON_Delete(s->traffic);
    s->traffic = NULL;
    static char line[70000];
    for (;;) {
        int n = ts_read_line(s->phys, line, sizeof line, 10000);
        assert_true(n > 0);
        cJSON *j = cJSON_Parse(line);
        assert_non_null(j);
        const char *topic = cJSON_GetObjectItem(j, "topic")->valuestring;
        if (strcmp(topic, "signal.state") == 0) {
            int h = head_index(cJSON_GetObjectItem(j, "id")->valuestring);
            snprintf(s->state_of[h], sizeof s->state_of[h], "%s", cJSON_GetObjectItem(j, "state")->valuestring);
            s->n_state_msgs++;
        } else if (strcmp(topic, "signal.red_run") == 0) {
            s->red_run = true;
            snprintf(s->red_head, sizeof s->red_head, "%s", cJSON_GetObjectItem(j, "head")->valuestring);
            s->red_speed = cJSON_GetObjectItem(j, "speed")->valuedouble;
        } else if (strcmp(topic, "traffic.state") == 0) {
            cJSON_Delete(s->traffic);
            s->traffic = j;
            continue;
        } else if (strcmp(topic, "sim.ack") == 0) {
            assert_int_equal((uint64_t)cJSON_GetObjectItem(j, "n")->valuedouble, s->tick);
            cJSON_Delete(j);
            break;
        }
        cJSON_Delete(j);
    }
    assert_non_null(s->traffic);
    s->tick++;
}

/* The agent called id in the last traffic.state: s and speed; false when absent. */
static bool agent(const session *s, const char *id, double *as, double *v)
{
    const cJSON *veh;
    cJSON_ArrayForEach(veh, cJSON_GetObjectItem(s->traffic, "vehicles")) {
        if (strcmp(cJSON_GetObjectItem(veh, "id")->valuestring, id) != 0) continue;
        *as = cJSON_GetObjectItem(veh, "s")->valuedouble;
        const cJSON *vel = cJSON_GetObjectItem(veh, "velocity");
        *v = hypot(cJSON_GetArrayItem(vel, 0)->valuedouble, cJSON_GetArrayItem(vel, 1)->valuedouble);
        return true;
    }
    return false;
}

/* simctl signal ARGS: its exit status, and the node's control.ack (ok, error). */
static bool command(session *s, const char *args, char *error, size_t cap)
{
    char line[512];
    snprintf(line, sizeof line, "\"%s\" signal %s --control %s >/dev/null 2>&1", ts_bin("simctl"), args,
             s->d.control_url);
    int rc = system(line);
    cJSON *ack = ts_expect_topic(s->phys, "control.ack", 10000, NULL, 0);
    assert_non_null(ack);
    assert_string_equal(cJSON_GetObjectItem(ack, "cmd")->valuestring, "signal");
    bool ok = cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok"));
    const cJSON *e = cJSON_GetObjectItem(ack, "error");
    snprintf(error, cap, "%s", cJSON_IsString(e) ? e->valuestring : "");
    cJSON_Delete(ack);
    assert_int_equal(rc == 0, ok); /* simctl says what the node said */
    return ok;
}

static void agent_waits_on_red_goes_on_green(void **state)
{
    (void)state;
    session s;
    session_start(&s, "tests/data/traffic_light.json");
    s.ego_s = 50;
    s.ego_v = 25;
    s.ego_d = -5.25; /* lane -2's centre */
    s.ego_end = 450;  /* and it stops there, so that the car stays in traffic.state's 300 m */
    tick(&s);
    /* the first tick tells every head */
    assert_int_equal(s.n_state_msgs, 2);
    assert_string_equal(s.state_of[0], "red");
    assert_string_equal(s.state_of[1], "green");
    int red_runs = 0, turned_green_at = -1;
    double as, v, s_at_14 = 0, v_at_14 = -1;
    while (s.tick * DT < 25.0 - 1e-9) {
        tick(&s);
        double t = (s.tick - 1) * DT;
        if (s.red_run) {
            red_runs++;
            assert_string_equal(s.red_head, "north");
            NEAR(s.red_speed, 25, 1e-9);
            /* the ego's front (centre + 2.25 m) reaches s 300 at t = (297.75 - 50) / 25 = 9.91 s */
            assert_true(t >= 9.9 - 1e-9 && t <= 9.95 + 1e-9);
        }
        if (s.n_state_msgs) {
            assert_int_equal(turned_green_at, -1); /* one change in this window */
            turned_green_at = (int)(s.tick - 1);
            assert_string_equal(s.state_of[0], "green");
            assert_string_equal(s.state_of[1], "red");
        }
        assert_true(agent(&s, "car", &as, &v));
        if (t < 15.0 - 1e-9) assert_true(as + 2.25 <= 300.0 + 1e-6); /* never over the line on red */
        if (fabs(t - 14.0) < 1e-9) {
            s_at_14 = as;
            v_at_14 = v;
        }
    }
    assert_int_equal(red_runs, 1);
    NEAR(turned_green_at * DT, 15.0, 1e-9); /* the phase time */
    /* waiting at the line (front within 3 m of it), standing */
    assert_true(s_at_14 + 2.25 > 297.0);
    assert_true(v_at_14 < 0.05);
    /* and gone on at green */
    assert_true(agent(&s, "car", &as, &v));
    assert_true(as > 330);
    assert_true(v > 8);

    /* the operator holds north at red: acknowledged, told on the next tick */
    char err[256];
    assert_true(command(&s, "north red", err, sizeof err));
    tick(&s);
    assert_int_equal(s.n_state_msgs, 1);
    assert_string_equal(s.state_of[0], "red");
    /* the controller to its phase 1 (north green): the hold is released */
    assert_true(command(&s, "controller c1 1", err, sizeof err));
    tick(&s);
    assert_int_equal(s.n_state_msgs, 1);
    assert_string_equal(s.state_of[0], "green");
    /* refused, saying why */
    assert_false(command(&s, "west red", err, sizeof err));
    assert_string_equal(err, "signal: no head \"west\" (the scenario has 2)");
    assert_false(command(&s, "north purple", err, sizeof err));
    assert_non_null(strstr(err, "state \"purple\""));
    assert_false(command(&s, "controller c1 3", err, sizeof err));
    assert_string_equal(err, "signal: controller \"c1\" has phases 0 to 2, not 3");
    session_stop(&s);
}

/* An operator's hold outlives a traffic-node killed with -9 and restarted with its
 * --state snapshot: north held at flashing amber at t = 1 s (its controller shows red
 * there until 15 s, then green), the node killed at t = 2 s and started again; its
 * first tick reports every head, north still flashing amber (south green, phase 0), and
 * at 15 s only south changes (to red), north staying held through the phase change.
 * `simctl signal north auto` then gives it back to c1: green (phase 1, 15 to 45 s). */
static void hold_survives_a_restart(void **state)
{
    (void)state;
    char snap[128], slot[160];
    snprintf(snap, sizeof snap, "/tmp/test_lights_snapshot.%d", (int)getpid());
    for (int k = 0; k < 2; k++) {
        snprintf(slot, sizeof slot, "%s.%d", snap, k);
        unlink(slot);
    }
    session s;
    session_start_with(&s, "tests/data/traffic_light.json", snap);
    s.ego_s = 50;
    s.ego_d = -5.25; /* standing in lane -2 */
    while (s.tick * DT < 1.0 - 1e-9) tick(&s);
    assert_string_equal(s.state_of[0], "red");
    char err[256];
    assert_true(command(&s, "north flashing_amber", err, sizeof err));
    tick(&s);
    assert_int_equal(s.n_state_msgs, 1);
    assert_string_equal(s.state_of[0], "flashing_amber");
    while (s.tick * DT < 2.0 - 1e-9) tick(&s);
    kill(s.node, SIGKILL);
    ts_stop(s.node, SIGKILL, 5000);
    cJSON *left = ts_expect_topic(s.phys, "dispatcher.left", 10000, NULL, 0);
    assert_non_null(left);
    cJSON_Delete(left);
    memset(s.state_of, 0, sizeof s.state_of);
    node_start(&s, "tests/data/traffic_light.json", snap);
    tick(&s);
    assert_int_equal(s.n_state_msgs, 2); /* a fresh node tells every head */
    assert_string_equal(s.state_of[0], "flashing_amber");
    assert_string_equal(s.state_of[1], "green");
    int changes = 0;
    while (s.tick * DT < 16.0 - 1e-9) {
        tick(&s);
        if (!s.n_state_msgs) continue;
        changes++;
        NEAR((s.tick - 1) * DT, 15.0, 1e-9);
        assert_int_equal(s.n_state_msgs, 1);
        assert_string_equal(s.state_of[1], "red");
    }
    assert_int_equal(changes, 1);
    assert_string_equal(s.state_of[0], "flashing_amber");
    assert_true(command(&s, "north auto", err, sizeof err));
    tick(&s);
    assert_int_equal(s.n_state_msgs, 1);
    assert_string_equal(s.state_of[0], "green");
    session_stop(&s);
    snprintf(slot, sizeof slot, "%s.0", snap);
    assert_int_equal(access(slot, F_OK), -1); /* a clean stop removes it */
}

/* OpenDRIVE controllers with nothing else to run them (tests/support/ts_xodr.h: the
 * shared fabriksgatan_traffic_lights.xodr with controller 10 over vehicle head 1 and 11
 * over pedestrian heads 2 and 3, both at junction 4, 10 first): `simctl import-xodr`
 * reports them, and a traffic node on the file alone runs the default program, solved
 * by hand in test_xodr_controllers.c: head 1 green at 0, amber at 20, red at 23,
 * red-and-amber at 49, green at 50; heads 2 and 3 red at 0, green at 25, red at 45. */
static void xodr_controllers_run_by_default(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_traffic_lights.XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fab.xodr", dir);
    assert_int_equal(ts_fab_write(path, TS_FAB_CONTROLLERS, TS_FAB_JUNCTION_ENTRIES), 0);
    static char out[8192];
    assert_int_equal(ts_run("simctl", (const char *const[]){"import-xodr", path, NULL}, out, sizeof out), 0);
    assert_non_null(strstr(out, "controllers: 2 grouping 3 traffic-light heads (1 <control>s name no traffic-light "
                                "head); 2 run the default fixed-time program (green 20 s, amber 3 s, all red 2 s"));
    assert_non_null(strstr(out, "  controller 10 (junction 4, sequence 1): heads 1; cycle 50 s, green from 0 s\n"));
    assert_non_null(strstr(out, "  controller 11 (junction 4, sequence 2): heads 2, 3; cycle 50 s, green from 25 s\n"));

    session s;
    session_start(&s, path);
    s.ego_s = 0;
    s.ego_d = 0;
    tick(&s);
    assert_int_equal(s.n_state_msgs, 3);
    assert_string_equal(s.state_of[0], "green");
    assert_string_equal(s.state_of[1], "red");
    assert_string_equal(s.state_of[2], "red");
    static const struct { double t; const char *s1, *s2; } want[] = {
        {20, "amber", "red"}, {23, "red", "red"}, {25, "red", "green"}, {45, "red", "red"},
        {49, "red_amber", "red"}, {50, "green", "red"},
    };
    size_t k = 0;
    while (s.tick * DT < 50.0 + 1e-9) {
        tick(&s);
        if (!s.n_state_msgs) continue;
        double t = (s.tick - 1) * DT;
        assert_true(k < sizeof want / sizeof *want);
        if (fabs(t - want[k].t) > 1e-9) fail_msg("a change at %.2f s, expected at %g s", t, want[k].t);
        assert_string_equal(s.state_of[0], want[k].s1);
        assert_string_equal(s.state_of[1], want[k].s2);
        assert_string_equal(s.state_of[2], want[k].s2);
        k++;
    }
    assert_int_equal(k, sizeof want / sizeof *want);
    session_stop(&s);
    unlink(path);
    rmdir(dir);
}

static void speed_signs_obeyed(void **state)
{
    (void)state;
    session s;
    session_start(&s, "tests/data/speed_signs.json");
    s.ego_s = 250; /* the ego beside the road (traffic.state lists what is near it) */
    s.ego_d = -60;
    s.ego_v = 0;
    double max_30 = 0, max_along_50 = 0, max_70 = 0, max_against_30 = 0;
    int n30 = 0, n70 = 0;
    while (s.tick * DT < 60.0) {
        tick(&s);
        double as, v;
        if (agent(&s, "along", &as, &v)) {
            /* it starts at its desired 100 km/h and brakes comfortably: by 160 it is down */
            if (as > 160 && as < 195) max_30 = fmax(max_30, v), n30++;
            if (as > 250 && as < 480) max_along_50 = fmax(max_along_50, v);
        }
        if (agent(&s, "against", &as, &v)) {
            if (as < 255 && as > 205) max_70 = fmax(max_70, v), n70++;
            /* the core closes on a lower limit as on any ideal speed (about 1 m/s^2 less
             * a second): held to it from some 40 m past the sign */
            if (as < 158 && as > 110) max_against_30 = fmax(max_against_30, v);
        }
    }
    assert_true(n30 > 10 && n70 > 10);
    assert_true(max_along_50 <= 50 / 3.6 + 0.05 && max_along_50 > 48 / 3.6);
    assert_true(max_30 <= 30 / 3.6 + 0.05 && max_30 > 25 / 3.6);
    /* against s the 30 begins only at its sign at 200 (along s it ends there): before
     * it the agent is faster, slowing down ahead of it as the core does for any lower
     * limit ahead (docs/traffic.md) */
    assert_true(max_70 <= 70 / 3.6 + 0.05 && max_70 > 36 / 3.6);
    assert_true(max_against_30 <= 30 / 3.6 + 0.05);
    session_stop(&s);
}

static double query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* A headless session of scenario for `until` s; the drive log opened. */
static sqlite3 *session_log(const char *scenario, const char *until, char *dir)
{
    assert_non_null(mkdtemp(dir));
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64], out_dir[300];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    snprintf(out_dir, sizeof out_dir, "%s/run", dir);
    char *argv[] = {"simctl", "run", (char *)ts_root(scenario), "--headless", "--until", (char *)until,
                    "--no-analysis", "--bus", bus, "--control", control, "--out", out_dir, NULL};
    int st = ts_stop(ts_spawn(argv, false), 0, 120000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char cmd[400], log[1024];
    snprintf(cmd, sizeof cmd, "ls %s/logs/default/*.sqlite", out_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(fgets(log, sizeof log, p));
    pclose(p);
    log[strcspn(log, "\n")] = '\0';
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

static void remove_dir(const char *dir)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void red_run_in_the_drive_log(void **state)
{
    (void)state;
    char dir[] = "/tmp/sim-lights-XXXXXX";
    sqlite3 *db = session_log("tests/data/traffic_light_sudden.json", "10", dir);
    assert_true(query(db, "SELECT COUNT(*) FROM events WHERE kind = 'signal' AND name = 'red_run'") == 1);
    double t = query(db, "SELECT t FROM events WHERE kind = 'signal' AND name = 'red_run'");
    assert_true(t > 4.5 && t < 6.0); /* after the switch, at the line */
    /* its front (centre + 2.25 m) at the line then, on red */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT s FROM samples WHERE t >= %.3f ORDER BY t LIMIT 1", t - 1e-6);
    assert_true(fabs(query(db, sql) + 2.25 - 300) < 0.3);
    assert_true(fabs(query(db, "SELECT json_extract(json, '$.speed') FROM events WHERE name = 'red_run'") - 13.8) <
                0.3);
    sqlite3_close(db);
    remove_dir(dir);
}

static void scripted_driver_stops_on_red(void **state)
{
    (void)state;
    char dir[] = "/tmp/sim-lights-XXXXXX";
    assert_non_null(mkdtemp(dir));
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64], out_dir[300];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    snprintf(out_dir, sizeof out_dir, "%s/run", dir);
    char *argv[] = {"simctl", "run", (char *)ts_root("tests/data/traffic_light.json"), "--headless", "--until", "25",
                    "--no-analysis", "--bus", bus, "--control", control, "--out", out_dir, NULL};
    int st = ts_stop(ts_spawn(argv, false), 0, 120000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char cmd[400], log[1024];
    snprintf(cmd, sizeof cmd, "ls %s/logs/default/*.sqlite", out_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(fgets(log, sizeof log, p));
    pclose(p);
    log[strcspn(log, "\n")] = '\0';
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    /* the car's centre is 2.25 m behind its front: never past 297.75 before green */
    assert_true(query(db, "SELECT MAX(s) FROM samples WHERE t < 15") <= 297.75);
    assert_true(query(db, "SELECT MAX(s) FROM samples WHERE t < 15") > 294.0); /* at the line */
    assert_true(query(db, "SELECT MAX(speed) FROM samples WHERE t > 10 AND t < 15") < 0.05);
    assert_true(query(db, "SELECT MAX(s) FROM samples") > 350); /* on at green */
    assert_true(query(db, "SELECT COUNT(*) FROM events WHERE kind = 'signal' AND name = 'state'") == 4);
    assert_true(query(db, "SELECT MIN(t) FROM events WHERE kind = 'signal' AND name = 'state' AND "
                          "json LIKE '%\"state\":\"green\"%' AND json LIKE '%north%'") == 15.0);
    assert_true(query(db, "SELECT COUNT(*) FROM events WHERE kind = 'signal' AND name = 'red_run'") == 0);
    sqlite3_close(db);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agent_waits_on_red_goes_on_green),
        cmocka_unit_test(hold_survives_a_restart),
        cmocka_unit_test(xodr_controllers_run_by_default),
        cmocka_unit_test(speed_signs_obeyed),
        cmocka_unit_test(scripted_driver_stops_on_red),
        cmocka_unit_test(red_run_in_the_drive_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
