/* Integration test of the SUMO co-simulation (real dispatcher, traffic-node and the real
 * `sumo` it starts; the test plays physics as test_traffic_node does). Town03 with
 * SUMO's traffic (scenarios/town03-sumo.json): every vehicle stands in a lane of the
 * scenario's own road model (`simctl where` says so for a few), no two boxes overlap,
 * two runs give byte-identical traffic.state streams, the ego put in front of a SUMO
 * car makes that car brake to a stop behind it (and the same car drives on in the run
 * where the ego stays away), the lead vehicle's gap agrees with the boxes to a few
 * centimetres; density, freeze and restart are acted on; SUMO killed with SIGKILL is
 * said (traffic.event) and the node ends with status 1; a missing `sumo` stops the
 * node and `simctl run` with status 1 and words naming the package. */
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

#include <dirent.h>
#include <sqlite3.h>

#include "sim_msg_traffic.h"
#include "sim_road.h"
#include "sim_scenario.h"
#include "sumo_session.h"
#include "test_support.h"

#define SCENARIO "scenarios/town03-sumo.json"

/* scenario for the helpers of sumo_session.h */
static void session_start(session *s, const char *sumo) { sumo_session_open(s, SCENARIO, sumo); }

static void town03_on_lanes_apart_and_the_same_twice(void **state)
{
    enum { TICKS = 400 };
    size_t cap = 64u << 20;
    char *stream[2] = {malloc(cap), malloc(cap)};
    int most = 0;
    for (int run = 0; run < 2; run++) {
        session s;
        session_start(&s, NULL);
        stream[run][0] = 0;
        for (int k = 0; k < TICKS; k++) {
            tick(&s, stream[run], cap);
            if (run) continue;
            all_on_lanes(&s);
            char which[200] = "";
            int n = overlaps(&s, which, sizeof which);
            if (n) fail_msg("tick %d: %d pairs of boxes overlap, %s", k, n, which);
            if (s.st.n_vehicles > most) most = s.st.n_vehicles;
        }
        if (!run) {
            assert_true(s.st.total >= s.st.n_vehicles);
            for (int i = 0; i < 3 && i < s.st.n_vehicles; i++) where_says_lane(&s, &s.veh[i]);
        }
        session_stop(&s);
    }
    fprintf(stderr, "vehicles within 300 m of the ego: up to %d\n", most);
    double median, p95, most_off;
    assert_true(lane_offsets_summary(&median, &p95, &most_off) > 1000);
    fprintf(stderr, "SUMO's cars off OpenDRIVE's lane centre (%d samples going straight on roads): median %.3f m, "
            "95th percentile %.3f m, most %.3f m\n", n_offsets, median, p95, most_off);
    /* The net's offset applied: half the cars within millimetres of OpenDRIVE's lane
     * centre; the rest within SUMO's approximation of lanes whose width varies along
     * the road (a SUMO lane has one width). */
    assert_true(median < 0.01);
    assert_true(most_off < 0.3); /* 0.165 m before Town03 had SUMO's guessed lights, 0.254 m with them */
    assert_true(most >= 20); /* a town's traffic, not a handful */
    assert_true(strlen(stream[0]) > TICKS * 1000);
    assert_string_equal(stream[0], stream[1]);
    free(stream[0]);
    free(stream[1]);
}

/* The ego put 30 m ahead of a SUMO car in its lane, standing: that car brakes to a stop
 * behind it. The same car, in the run where the ego stays where it was, drives on. */
static void ego_makes_the_car_behind_brake(void **state)
{
    enum { BEFORE = 200, AFTER = 800 };
    char victim[64] = "";
    double min_speed[2] = {1e9, 1e9}, min_gap = 1e9;
    bool braked = false;
    for (int run = 0; run < 2; run++) {
        session s;
        session_start(&s, NULL);
        for (int k = 0; k < BEFORE; k++) tick(&s, NULL, 0);
        if (run == 0) {
            for (int i = 0; i < s.st.n_vehicles && !victim[0]; i++) {
                const sim_msg_traffic_vehicle *v = &s.veh[i];
                double x, y, h;
                if (hypot(v->velocity[0], v->velocity[1]) > 6 && ahead_in_lane(&s, v, 30, &x, &y, &h) &&
                    ahead_in_lane(&s, v, 40, &x, &y, &h) && ahead_in_lane(&s, v, 30, &x, &y, &h)) {
                    snprintf(victim, sizeof victim, "%s", v->id);
                    s.ex = x, s.ey = y, s.eh = h;
                }
            }
            assert_true(victim[0]);
            fprintf(stderr, "the ego stands 30 m ahead of SUMO's %s\n", victim);
        }
        for (int k = 0; k < AFTER; k++) {
            tick(&s, NULL, 0);
            const sim_msg_traffic_vehicle *v = find(&s, victim);
            if (!v) continue;
            double speed = hypot(v->velocity[0], v->velocity[1]);
            if (speed < min_speed[run]) min_speed[run] = speed;
            if (run) continue;
            braked = braked || v->brake;
            /* behind the ego, never into it: the gap along the ego's heading */
            double along = (s.ex - v->pos[0]) * cos(s.eh) + (s.ey - v->pos[1]) * sin(s.eh);
            double gap = along - 0.5 * (EGO_LEN + v->size[0]);
            if (gap < min_gap) min_gap = gap;
        }
        session_stop(&s);
    }
    fprintf(stderr, "%s: least speed %.2f m/s with the ego ahead (least gap %.2f m), %.2f m/s without\n", victim,
            min_speed[0], min_gap, min_speed[1]);
    assert_true(braked);
    assert_true(min_speed[0] < 0.5);
    assert_true(min_gap > 0 && min_gap < 10);
    assert_true(min_speed[1] > 3);
}

/* The ego 20 m behind a car in its lane on a straight stretch, at its speed: that car is
 * the lead, and the gap SUMO reports is the boxes' gap (the net's offset and the
 * bumper-to-centre shift right) to a few centimetres. Then density, freeze and restart through the operator. */
static void lead_and_operator_commands(void **state)
{
    session s;
    session_start(&s, NULL);
    tick(&s, NULL, 0);
    int fresh = s.st.total;
    for (int k = 1; k < 200; k++) tick(&s, NULL, 0);
    char lead[64] = "";
    for (int i = 0; i < s.st.n_vehicles && !lead[0]; i++) {
        const sim_msg_traffic_vehicle *v = &s.veh[i];
        double x, y, h;
        double speed = hypot(v->velocity[0], v->velocity[1]);
        /* on a straight stretch, where SUMO's gap along the lane is the boxes' gap */
        double h2;
        if (speed > 3 && ahead_in_lane(&s, v, 15, &x, &y, &h2) && ahead_in_lane(&s, v, -20, &x, &y, &h) &&
            fabs(remainder(h - v->heading, 2 * M_PI)) < 0.002 && fabs(remainder(h2 - v->heading, 2 * M_PI)) < 0.002) {
            ahead_in_lane(&s, v, -20, &s.ex, &s.ey, &s.eh);
            s.ev = speed;
            snprintf(lead, sizeof lead, "%s", v->id);
        }
    }
    assert_true(lead[0]);
    tick(&s, NULL, 0);
    tick(&s, NULL, 0); /* the ego is in SUMO from the step after it was moved */
    assert_true(s.st.lead.valid);
    assert_string_equal(s.st.lead.id, lead);
    const sim_msg_traffic_vehicle *v = find(&s, lead);
    assert_non_null(v);
    double along = (v->pos[0] - s.ex) * cos(s.eh) + (v->pos[1] - s.ey) * sin(s.eh);
    double gap = along - 0.5 * (EGO_LEN + v->size[0]);
    fprintf(stderr, "lead %s: gap %.3f m in traffic.state, %.3f m between the boxes along the ego; THW %.2f s\n", lead, s.st.lead.gap, gap,
            s.st.lead.thw);
    assert_true(fabs(s.st.lead.gap - gap) < 0.05);
    assert_true(fabs(s.st.lead.thw - s.st.lead.gap / s.ev) < 0.01);

    /* freeze: nobody moves; unfreeze: they drive on */
    char line[512];
    snprintf(line, sizeof line, "\"%s\" traffic freeze --control %s >/dev/null", ts_bin("simctl"), s.d.control_url);
    assert_int_equal(system(line), 0);
    cJSON *ack = ts_expect_topic(s.phys, "control.ack", 10000, NULL, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);
    tick(&s, NULL, 0);
    assert_true(s.st.frozen);
    char frozen[70000];
    snprintf(frozen, sizeof frozen, "%s", strstr(s.line, "\"vehicles\""));
    for (int k = 0; k < 50; k++) tick(&s, NULL, 0);
    assert_string_equal(strstr(s.line, "\"vehicles\""), frozen);
    snprintf(line, sizeof line, "\"%s\" traffic unfreeze --control %s >/dev/null", ts_bin("simctl"), s.d.control_url);
    assert_int_equal(system(line), 0);
    cJSON_Delete(ts_expect_topic(s.phys, "control.ack", 10000, NULL, 0));
    for (int k = 0; k < 50; k++) tick(&s, NULL, 0);
    assert_false(s.st.frozen);
    assert_string_not_equal(strstr(s.line, "\"vehicles\""), frozen);

    /* restart: a fresh SUMO, its traffic at the session's start again */
    int before = s.st.total;
    snprintf(line, sizeof line, "\"%s\" restart start --control %s >/dev/null", ts_bin("simctl"), s.d.control_url);
    assert_int_equal(system(line), 0);
    ack = ts_expect_topic(s.phys, "control.ack", 60000, NULL, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);
    s.tick = 0; /* as physics does: a restart's ticks count from 0 again */
    tick(&s, NULL, 0);
    assert_int_equal(s.st.total, fresh); /* the same SUMO as at the start */
    /* density: the demand's scale (simulation.setScale): 0 refused (SUMO would never
     * insert again), 20 s at 0.05 then 20 s at 1 */
    snprintf(line, sizeof line, "\"%s\" traffic density 0 --control %s >/dev/null 2>&1", ts_bin("simctl"),
             s.d.control_url);
    assert_int_not_equal(system(line), 0);
    ack = ts_expect_topic(s.phys, "control.ack", 10000, NULL, 0);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(ack, "ok")));
    assert_non_null(strstr(cJSON_GetObjectItem(ack, "error")->valuestring, "at least 0.05"));
    cJSON_Delete(ack);
    int change[2];
    const char *scales[2] = {"0.05", "1"};
    for (int i = 0; i < 2; i++) {
        snprintf(line, sizeof line, "\"%s\" traffic density %s --control %s >/dev/null", ts_bin("simctl"), scales[i],
                 s.d.control_url);
        assert_int_equal(system(line), 0);
        ack = ts_expect_topic(s.phys, "control.ack", 10000, NULL, 0);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
        cJSON_Delete(ack);
        int at = s.st.total;
        for (int k = 0; k < 2000; k++) tick(&s, NULL, 0);
        change[i] = s.st.total - at;
    }
    fprintf(stderr, "vehicles in SUMO: %d at the start, %d before the restart, %d after it; in 20 s at density "
            "0.05 %+d, at density 1 %+d\n", fresh, before, fresh, change[0], change[1]);
    /* (with Town03's guessed lights cars take longer to arrive: -9 before them, -1 with) */
    assert_true(change[0] < 0);
    assert_true(change[1] > change[0] + 12);
    session_stop(&s);
}

/* kill -9 of SUMO: the node says so on the bus (traffic.event, trigger "sumo", the
 * signal in its text) and ends with status 1, which ends a session. */
static void sumo_killed(void **state)
{
    session s;
    session_start(&s, NULL);
    for (int k = 0; k < 10; k++) tick(&s, NULL, 0);
    pid_t sumo = ts_child_of(s.node, "sumo");
    assert_true(sumo > 0);
    assert_int_equal(kill(sumo, SIGKILL), 0);
    send_tick(&s);
    cJSON *ev = ts_expect_topic(s.phys, "traffic.event", 30000, NULL, 0);
    assert_non_null(ev);
    assert_string_equal(cJSON_GetObjectItem(ev, "trigger")->valuestring, "sumo");
    assert_non_null(strstr(cJSON_GetObjectItem(ev, "text")->valuestring, "killed by signal 9"));
    cJSON_Delete(ev);
    int status;
    assert_int_equal(waitpid(s.node, &status, 0), s.node);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    ts_close(s.phys);
    ts_dispatcher_stop(&s.d);
    sim_scenario_free(s.sc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s.dir);
    assert_int_equal(system(cmd), 0);
}

/* The drive log of a session's out folder (the newest .sqlite under logs/default), or "". */
static void drive_log(const char *out, char *path, size_t cap)
{
    char d[300];
    snprintf(d, sizeof d, "%s/logs/default", out);
    path[0] = 0;
    DIR *dir = opendir(d);
    if (!dir) return;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strstr(e->d_name, ".sqlite") && !strstr(e->d_name, ".sqlite-")) snprintf(path, cap, "%s/%s", d, e->d_name);
    closedir(dir);
}

static int count_rows(const char *path, const char *sql)
{
    sqlite3 *db;
    int n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

/* The same in a whole session: `simctl run` ends with status 1, and the drive log holds
 * both the traffic.event naming the signal and simctl's session.module event (which
 * makes the run's tasks suspect in the analysis, docs/drivelog.md); its meta names SUMO. */
static void sumo_killed_in_a_session(void **state)
{
    char out[200], log[600];
    snprintf(out, sizeof out, "/tmp/test_sumo_killed.%d", (int)getpid());
    unsetenv("SIM_SUMO");
    char *argv[] = {"simctl", "run", (char *)ts_root(SCENARIO), "--headless", "--lockstep", "--driver", "script",
                    "--until", "300", "--out", out, NULL};
    pid_t simctl = ts_spawn(argv, false);
    assert_true(simctl > 0);
    /* driving: the log has samples */
    int rows = 0;
    for (int k = 0; k < 2400 && rows < 200; k++) {
        ts_sleep_ms(50);
        drive_log(out, log, sizeof log);
        if (log[0]) rows = count_rows(log, "SELECT count(*) FROM samples");
    }
    assert_true(rows >= 200);
    pid_t node = ts_child_of(simctl, "traffic-node");
    assert_true(node > 0);
    pid_t sumo = ts_child_of(node, "sumo");
    assert_true(sumo > 0);
    assert_int_equal(kill(sumo, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(simctl, &status, 0), simctl);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_int_equal(count_rows(log, "SELECT count(*) FROM events WHERE kind = 'traffic' AND name = 'sumo' AND "
                                     "json LIKE '%killed by signal 9%'"),
                     1);
    assert_int_equal(count_rows(log, "SELECT count(*) FROM events WHERE kind = 'session' AND json LIKE "
                                     "'%\"module\":\"traffic-node\"%'"),
                     1);
    assert_int_equal(count_rows(log, "SELECT count(*) FROM meta WHERE key = 'traffic_engine_version' AND value LIKE "
                                     "'SUMO %'"),
                     1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    assert_int_equal(system(cmd), 0);
}

/* No SUMO: the node and `simctl run` stop with status 1 and name what to install. */
static void sumo_missing(void **state)
{
    char out[8192], dir[128];
    setenv("SIM_SUMO", "/nonexistent/sumo", 1);
    const char *args[] = {"--scenario", ts_root(SCENARIO), "--bus", "127.0.0.1:1", NULL};
    assert_int_equal(ts_run("traffic-node", args, out, sizeof out), 1);
    assert_non_null(strstr(out, "/nonexistent/sumo is not there"));
    assert_non_null(strstr(out, "apt-get install sumo sumo-tools"));
    snprintf(dir, sizeof dir, "/tmp/test_sumo_missing.%d", (int)getpid());
    const char *run[] = {"run", ts_root(SCENARIO), "--headless", "--lockstep", "--until", "5", "--out", dir, NULL};
    assert_int_equal(ts_run("simctl", run, out, sizeof out), 1);
    assert_non_null(strstr(out, "apt-get install sumo sumo-tools"));
    unsetenv("SIM_SUMO");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sumo_missing),
        cmocka_unit_test(town03_on_lanes_apart_and_the_same_twice),
        cmocka_unit_test(ego_makes_the_car_behind_brake),
        cmocka_unit_test(lead_and_operator_commands),
        cmocka_unit_test(sumo_killed),
        cmocka_unit_test(sumo_killed_in_a_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
