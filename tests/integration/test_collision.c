/* Collisions and stalls with the real modules.
 *
 * 1. A frozen lead car: a real dispatcher, traffic-node and recorder on
 *    scenarios/rural.json; the operator freezes the traffic (`simctl traffic freeze`),
 *    and the test plays physics: the ego drives in lane -1 at 20 m/s from s = 190 m
 *    into the tractor standing at s = 900 m and stops 0.3 m inside it (as a car
 *    pushed back by the other body does). The drive log must have one `collision`
 *    event naming the tractor with the relative speed (20 m/s), and the analysis must
 *    count one collision in the task and report no negative headway, THW or TTC
 *    (before the fix nothing was logged and tasks.csv said headway_min_m -0.3).
 * 2. A car that never moves on: `simctl run` headless on a rural copy whose tractor
 *    brakes to a standstill for good; the scripted driver stops behind it. The session
 *    ends by itself, after --stall-s of simulated time, with exit status 3 and an
 *    `ego_stalled` mark in the log (before, it ran until killed). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_road.h"
#include "sim_scenario.h"
#include "test_support.h"
#include "ts_drive.h"

#define DT 0.01
#define EGO_SPEED 20.0

static void frozen_lead_car_is_a_collision(void **state)
{
    char out[] = "/tmp/test_collision_XXXXXX";
    assert_non_null(mkdtemp(out));
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *phys = ts_join(d.port, "physics", "[\"sim.ack\",\"traffic.\",\"control.ack\",\"dispatcher.joined\"]", NULL);
    assert_non_null(phys);
    char bus[64], logs[1100];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(logs, sizeof logs, "%s/logs", out);
    const char *scenario = ts_root("scenarios/rural.json");
    char *rec_argv[] = {"recorder", "--bus", bus, "--out", logs, "--study", "c", "--subject", "s1",
                        "--scenario", (char *)scenario, NULL};
    pid_t rec = ts_spawn(rec_argv, false);
    char *tn_argv[] = {"traffic-node", "--bus", bus, "--scenario", (char *)scenario, "--lockstep", NULL};
    pid_t tn = ts_spawn(tn_argv, false);
    assert_true(rec > 0 && tn > 0);
    for (int joined = 0; joined < 2;) {
        cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 10000, NULL, 0);
        assert_non_null(j);
        const char *name = cJSON_GetObjectItem(j, "name")->valuestring;
        joined += strcmp(name, "traffic") == 0 || strcmp(name, "recorder") == 0;
        cJSON_Delete(j);
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "\"%s\" traffic freeze --control %s >/dev/null", ts_bin("simctl"), d.control_url);
    assert_int_equal(system(cmd), 0); /* exits 0 only once traffic acted on it */

    sim_scenario *sc = NULL;
    sim_error err = {0};
    assert_int_equal(sim_scenario_load_err(scenario, &sc, &err), 0);
    int road = sc->starts[0].road;
    double d_lane;
    assert_true(sim_road_lane_center(&sc->net.roads[road], 190, -1, &d_lane));
    /* The tractor (4 m long in traffic's models? its size comes with traffic.state)
     * stands at s = 900; the ego stops when its box is 0.3 m inside the tractor's. */
    double s = 190, stop_s = NAN, collision_t = NAN;
    int collisions = 0;
    char line[70000];
    for (uint64_t n = 0; n < 6000; n++) {
        double t = n * DT, v = isnan(stop_s) || s < stop_s ? EGO_SPEED : 0;
        if (!isnan(stop_s) && s + v * DT > stop_s) v = 0, s = stop_s;
        sim_road_pose p;
        sim_road_pose_at(&sc->net, road, s, d_lane, &p);
        char msg[600];
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"vehicle.state\",\"t\":%.2f,\"speed\":%.3f,\"pos\":[%.4f,%.4f,0],\"heading\":%.6f}",
                 t, v, p.x, p.y, p.heading);
        assert_true(ts_send_line(phys, msg));
        snprintf(msg, sizeof msg, "{\"topic\":\"sim.tick\",\"t\":%.2f,\"n\":%llu,\"dt\":0.01,\"run\":0,\"paused\":false}", t,
                 (unsigned long long)n);
        assert_true(ts_send_line(phys, msg));
        /* traffic.collision (if any) comes before this tick's traffic.state, then the ack */
        for (;;) {
            int len = ts_read_line(phys, line, sizeof line, 10000);
            assert_true(len > 0);
            cJSON *j = cJSON_Parse(line);
            assert_non_null(j);
            const char *topic = cJSON_GetObjectItem(j, "topic")->valuestring;
            if (strcmp(topic, "traffic.collision") == 0) {
                collisions++;
                collision_t = t;
                assert_string_equal(cJSON_GetObjectItem(j, "other")->valuestring, "tractor");
                assert_true(fabs(cJSON_GetObjectItem(j, "rel_speed")->valuedouble - EGO_SPEED) < 0.01);
            } else if (strcmp(topic, "traffic.state") == 0 && isnan(stop_s)) {
                const cJSON *lead = cJSON_GetObjectItem(j, "lead");
                const cJSON *gap = lead ? cJSON_GetObjectItem(lead, "gap") : NULL;
                const cJSON *id = lead ? cJSON_GetObjectItem(lead, "id") : NULL;
                if (cJSON_IsNumber(gap) && cJSON_IsString(id) && !strcmp(id->valuestring, "tractor") &&
                    gap->valuedouble < 30)
                    stop_s = s + gap->valuedouble + 0.3;
            }
            bool ack = strcmp(topic, "sim.ack") == 0;
            cJSON_Delete(j);
            if (ack) break;
        }
        s += v * DT;
        if (!isnan(collision_t) && t > collision_t + 2) break;
    }
    assert_int_equal(collisions, 1); /* touching for seconds is one collision */
    /* The recorder drains what the bus holds for it at a clean stop and closes the log
     * (which it may hold locked while it writes). */
    assert_int_equal(ts_stop(rec, SIGTERM, 10000), 0);
    assert_int_equal(ts_stop(tn, SIGTERM, 5000), 0);
    ts_close(phys);
    ts_dispatcher_stop(&d);
    sim_scenario_free(sc);
    snprintf(cmd, sizeof cmd, "%s/logs/c", out);
    char path[2400];
    ts_drive_find_log(cmd, path, sizeof path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_true(ts_drive_query(db, "SELECT max(t) FROM samples") >= collision_t + 1.9);
    assert_true(ts_drive_query(db, "SELECT min(headway_dist) FROM samples") < 0); /* the boxes did overlap */
    assert_int_equal((int)ts_drive_query(db, "SELECT count(*) FROM events WHERE kind = 'collision' AND name = 'tractor'"), 1);
    assert_true(fabs(ts_drive_query(db, "SELECT json_extract(json, '$.rel_speed') FROM events WHERE kind = 'collision'") -
                     EGO_SPEED) < 0.01);
    sqlite3_close(db);

    char report[1200];
    snprintf(report, sizeof report, "%s/report", out);
    const char *args[] = {"report", path, "--out", report, NULL};
    static char text[65536];
    assert_int_equal(ts_run("analysis", args, text, sizeof text), 0);
    char csv[1300], v[64];
    snprintf(csv, sizeof csv, "%s/tasks.csv", report);
    ts_drive_csv_field(csv, "task", v, sizeof v);
    assert_string_equal(v, "keep_lane_winding");
    ts_drive_csv_field(csv, "collisions", v, sizeof v);
    assert_string_equal(v, "1");
    ts_drive_csv_field(csv, "headway_min_m", v, sizeof v);
    assert_true(v[0] && atof(v) == 0.0);
    ts_drive_csv_field(csv, "thw_min_s", v, sizeof v); /* the last sample still moving, 1.5 cm away */
    assert_true(v[0] && atof(v) >= 0.0 && atof(v) < 0.05);
    ts_drive_csv_field(csv, "ttc_min_s", v, sizeof v);
    assert_true(v[0] && atof(v) == 0.0);
    if (getenv("KEEP")) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    assert_int_equal(system(cmd), 0);
}

static void stalled_car_ends_the_session(void **state)
{
    char out[] = "/tmp/test_stall_XXXXXX";
    assert_non_null(mkdtemp(out));
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    char *argv[] = {"simctl", "run", (char *)ts_root("tests/data/rural_stopped_tractor.json"), "--headless",
                    "--stall-s", "30", "--no-analysis", "--out", out, "--bus", bus, "--control", control, NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int st = ts_stop(pid, 0, TS_SESSION_HANG_MS);
    assert_true(st != -1 && WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 3);
    char dir[1200], path[2400];
    snprintf(dir, sizeof dir, "%s/logs/default", out);
    ts_drive_find_log(dir, path, sizeof path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal((int)ts_drive_query(db, "SELECT count(*) FROM events WHERE kind = 'mark' AND name = 'ego_stalled'"), 1);
    /* it stood (within a metre of where it stood 30 s before) for the 30 s asked */
    double t_mark = ts_drive_query(db, "SELECT t FROM events WHERE name = 'ego_stalled'");
    char sql[600];
    snprintf(sql, sizeof sql,
             "WITH a AS (SELECT x AS ax, y AS ay FROM samples WHERE t >= %.3f ORDER BY t LIMIT 1) "
             "SELECT max((x - ax) * (x - ax) + (y - ay) * (y - ay)) FROM samples, a WHERE t BETWEEN %.3f AND %.3f",
             t_mark - 30, t_mark - 30, t_mark);
    assert_true(ts_drive_query(db, sql) <= 1.0);
    /* (the clock runs on while the modules shut down, for as long as that takes on a
     * loaded machine: samples after the mark are not counted) */
    sqlite3_close(db);
    char cmd[1300];
    if (getenv("KEEP")) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frozen_lead_car_is_a_collision),
        cmocka_unit_test(stalled_car_ends_the_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
