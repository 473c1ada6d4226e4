/* Integration tests of physics-node against a real dispatcher: lockstep ticks wait for
 * every participant's sim.ack, the car answers the controls, a rerun with the same
 * inputs gives byte-identical messages, pause/resume/restart, real-time pacing, and
 * command-line errors. */
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

#include <sys/stat.h>

#include "test_support.h"

static pid_t start_physics(const ts_dispatcher *d, const char *extra1, const char *extra2)
{
    char bus[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d->port);
    char *argv[] = {"physics-node", "--bus", bus, "--vehicle", (char *)ts_root("vehicles/bmw-318i.json"),
                    (char *)extra1, (char *)extra2, NULL};
    return ts_spawn(argv, false);
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(j) ? j->valuedouble : NAN;
}

static pid_t start_physics2(const ts_dispatcher *d, const char *a1, const char *a2, const char *a3,
                           const char *a4, const char *a5)
{
    char bus[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d->port);
    char *argv[] = {"physics-node", "--bus", bus, "--vehicle", (char *)ts_root("vehicles/bmw-318i.json"),
                    (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, NULL};
    return ts_spawn(argv, false);
}

/* One lockstep session: a driver with full throttle and a little steering answers
 * ticks 0..n_ticks-1; every vehicle.state line is appended to log (if non-NULL).
 * Returns the speed at the end. */
static double drive_lockstep(int n_ticks, char *log, size_t log_size)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *drv = ts_join(d.port, "driver", "[\"sim.tick\",\"vehicle.state\"]", "\"lockstep\":true");
    assert_non_null(drv);
    pid_t pid = start_physics(&d, "--lockstep", NULL);
    assert_true(pid > 0);
    double speed = 0.0;
    size_t used = 0;
    char line[70000];
    for (int n = 0; n < n_ticks; n++) {
        cJSON *state = ts_expect_topic(drv, "vehicle.state", 5000, line, sizeof line);
        assert_non_null(state);
        speed = num(state, "speed");
        cJSON_Delete(state);
        if (log) {
            size_t l = strlen(line);
            assert_true(used + l + 2 < log_size);
            memcpy(log + used, line, l);
            used += l;
            log[used++] = '\n';
            log[used] = 0;
        }
        cJSON *tick = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
        assert_non_null(tick);
        assert_int_equal((int)num(tick, "n"), n);
        assert_true(fabs(num(tick, "t") - n * 0.01) < 1e-12);
        cJSON_Delete(tick);
        char msg[200];
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"input.controls\",\"src\":\"driver\",\"seq\":%d,\"t\":%.2f,"
                 "\"throttle\":1,\"steer\":%.3f,\"brake\":0,\"clutch\":0}",
                 2 * n + 1, n * 0.01, 0.02 * sin(n * 0.05));
        assert_true(ts_send_line(drv, msg));
        snprintf(msg, sizeof msg, "{\"topic\":\"sim.ack\",\"src\":\"driver\",\"seq\":%d,\"n\":%d}", 2 * n + 2, n);
        assert_true(ts_send_line(drv, msg));
    }
    ts_close(drv);
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_dispatcher_stop(&d);
    return speed;
}

/* Regression: an ack's "n" was converted to an integer before the comparison, so
 * n = 0.5 or -0.9 acknowledged tick 0 (and a huge or negative n was undefined
 * behaviour). Only the exact tick number counts. */
static void malformed_acks_do_not_count(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *drv = ts_join(d.port, "driver", "[\"sim.tick\"]", "\"lockstep\":true");
    assert_non_null(drv);
    pid_t pid = start_physics(&d, "--lockstep", NULL);
    assert_true(pid > 0);
    cJSON *tick = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_non_null(tick);
    assert_int_equal((int)num(tick, "n"), 0);
    cJSON_Delete(tick);
    const char *bad[] = {"0.5", "-0.9", "-1", "1e300", "\"0\""};
    for (int i = 0; i < 5; i++) {
        char msg[160];
        snprintf(msg, sizeof msg, "{\"topic\":\"sim.ack\",\"src\":\"driver\",\"seq\":%d,\"n\":%s}", i + 1, bad[i]);
        assert_true(ts_send_line(drv, msg));
    }
    /* None of them moves the clock. */
    assert_null(ts_expect_topic(drv, "sim.tick", 500, NULL, 0));
    assert_true(ts_send_line(drv, "{\"topic\":\"sim.ack\",\"src\":\"driver\",\"seq\":9,\"n\":0}"));
    tick = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_non_null(tick);
    assert_int_equal((int)num(tick, "n"), 1);
    cJSON_Delete(tick);
    ts_close(drv);
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_dispatcher_stop(&d);
}

/* In lockstep the car moves only as the driver answers, and accelerates as told. */
static void lockstep_follows_the_driver(void **state)
{
    double v = drive_lockstep(300, NULL, 0);
    printf("after 3 s of full throttle in lockstep: %.2f m/s\n", v);
    assert_true(v > 8.0 && v < 14.0); /* 0-100 km/h in about 9 s */
}

/* Same scenario, same inputs: byte-identical vehicle.state messages. */
static void lockstep_runs_are_byte_identical(void **state)
{
    static char a[1 << 20], b[1 << 20];
    drive_lockstep(150, a, sizeof a);
    drive_lockstep(150, b, sizeof b);
    assert_true(strlen(a) > 1000);
    assert_string_equal(a, b);
}

/* Without an answer the clock stands; pause freezes it; restart begins a new run at
 * tick 0. */
static void waits_pauses_and_restarts(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *drv = ts_join(d.port, "driver", "[\"sim.tick\"]", "\"lockstep\":true");
    ts_conn *op = ts_join(d.port, "operator", "[]", NULL);
    assert_non_null(drv);
    assert_non_null(op);
    pid_t pid = start_physics(&d, "--lockstep", NULL);
    cJSON *t = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_non_null(t);
    assert_int_equal((int)num(t, "n"), 0);
    cJSON_Delete(t);
    /* no ack: nothing more comes */
    assert_null(ts_expect_topic(drv, "sim.tick", 300, NULL, 0));
    assert_true(ts_send_line(drv, "{\"topic\":\"sim.ack\",\"src\":\"driver\",\"n\":0}"));
    t = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_int_equal((int)num(t, "n"), 1);
    cJSON_Delete(t);
    assert_true(ts_send_line(op, "{\"topic\":\"control.pause\",\"src\":\"dispatcher\"}"));
    t = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(t, "paused")));
    assert_int_equal((int)num(t, "n"), 1);
    cJSON_Delete(t);
    assert_true(ts_send_line(drv, "{\"topic\":\"sim.ack\",\"src\":\"driver\",\"n\":1}"));
    assert_null(ts_expect_topic(drv, "sim.tick", 300, NULL, 0)); /* paused */
    assert_true(ts_send_line(op, "{\"topic\":\"control.resume\",\"src\":\"dispatcher\"}"));
    t = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0); /* the resume notice */
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(t, "paused")));
    cJSON_Delete(t);
    t = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_int_equal((int)num(t, "n"), 2);
    cJSON_Delete(t);
    assert_true(ts_send_line(op, "{\"topic\":\"control.restart\",\"src\":\"dispatcher\",\"at\":\"origin\"}"));
    t = ts_expect_topic(drv, "sim.tick", 30000, NULL, 0);
    assert_int_equal((int)num(t, "n"), 0);
    assert_int_equal((int)num(t, "run"), 1);
    cJSON_Delete(t);
    /* stop ends the node by itself */
    assert_true(ts_send_line(op, "{\"topic\":\"control.stop\",\"src\":\"dispatcher\"}"));
    assert_int_equal(ts_stop(pid, 0, 30000), 0);
    ts_close(drv);
    ts_close(op);
    ts_dispatcher_stop(&d);
}

/* In real time, 50 ticks at 100 Hz take half a second of wall clock. */
static void real_time_is_paced(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *c = ts_join(d.port, "watch", "[\"sim.tick\"]", NULL);
    pid_t pid = start_physics(&d, "--model", "simple");
    cJSON *t = ts_expect_topic(c, "sim.tick", 30000, NULL, 0);
    assert_non_null(t);
    int n0 = (int)num(t, "n");
    cJSON_Delete(t);
    double t0 = ts_now_ms();
    int n = n0;
    while (n < n0 + 50) {
        t = ts_expect_topic(c, "sim.tick", 30000, NULL, 0);
        assert_non_null(t);
        n = (int)num(t, "n");
        cJSON_Delete(t);
    }
    double ms = ts_now_ms() - t0;
    printf("50 ticks in %.0f ms of wall clock\n", ms);
    /* Never ahead of the clock. The upper bound only catches a node that does not
     * pace at all (a loaded CI machine may hold it up for seconds). */
    assert_true(ms > 400 && ms < 10000);
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_close(c);
    ts_dispatcher_stop(&d);
}

/* A scenario's start point, road position and end: on a short straight road the car
 * starts in lane -1 at s = 20, reports s, d and the lane as it drives, and sim.end
 * comes once it passes the end of the last test sector (s = 40). */
/* What `simctl where FILE X Y` says (parsed; caller frees). */
static cJSON *simctl_where(const char *file, double x, double y)
{
    char cmd[512], out[1024];
    snprintf(cmd, sizeof cmd, "\"%s\" where %s %.6f %.6f", ts_bin("simctl"), file, x, y);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    cJSON *o = cJSON_Parse(out);
    assert_non_null(o);
    return o;
}

static void drives_on_a_scenario_road(void **state)
{
    char path[] = "/tmp/physics-scenario-XXXXXX.json";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    const char *json =
        "{\"format\": 1, \"name\": \"short\", \"roads\": [{\"id\": \"r\", "
        "\"start\": {\"x\": 100, \"y\": 50, \"heading_deg\": 90}, "
        "\"segments\": [{\"type\": \"line\", \"length\": 200}], "
        "\"lanes\": {\"right\": [{\"width\": 3.5, \"mark\": \"dashed\"}, {\"width\": 3.5, \"mark\": \"solid\"}]}}], "
        "\"start_points\": [{\"name\": \"a\", \"road\": \"r\", \"s\": 20, \"lane\": -1, \"speed_kmh\": 20}], "
        "\"sectors\": [{\"id\": \"S\", \"road\": \"r\", \"s_start\": 20, \"s_end\": 40}]}";
    assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);

    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *drv = ts_join(d.port, "driver", "[\"sim.\",\"vehicle.state\"]", "\"lockstep\":true");
    pid_t pid = start_physics2(&d, "--lockstep", "--scenario", path, "--start", "a");
    bool ended = false;
    double s0 = NAN, s_last = NAN;
    char line[70000];
    for (int n = 0; n < 800 && !ended; n++) {
        cJSON *st = ts_expect_topic(drv, "vehicle.state", 30000, NULL, 0);
        assert_non_null(st);
        s_last = num(st, "s");
        if (n == 0) {
            s0 = s_last;
            const cJSON *pos = cJSON_GetObjectItem(st, "pos");
            assert_true(fabs(cJSON_GetArrayItem(pos, 0)->valuedouble - (100 + 1.75)) < 0.05);
            assert_true(fabs(cJSON_GetArrayItem(pos, 1)->valuedouble - 70) < 0.05);
            assert_true(fabs(num(st, "heading") - M_PI / 2) < 0.01);
        }
        assert_int_equal((int)num(st, "lane"), -1);
        assert_true(fabs(num(st, "d") + 1.75) < 0.3 && fabs(num(st, "lane_offset")) < 0.3);
        /* what physics knows rides along: the tick and run this state belongs to, the
         * road it located the car on, and its acceleration (accel_body's x) */
        assert_true(num(st, "tick") == n && num(st, "run") == 0);
        assert_string_equal(cJSON_GetObjectItem(st, "road")->valuestring, "r");
        assert_true(num(st, "accel") == cJSON_GetArrayItem(cJSON_GetObjectItem(st, "accel_body"), 0)->valuedouble);
        if (n % 100 == 0) { /* the same place as `simctl where` says */
            const cJSON *pos = cJSON_GetObjectItem(st, "pos");
            cJSON *w = simctl_where(path, cJSON_GetArrayItem(pos, 0)->valuedouble, cJSON_GetArrayItem(pos, 1)->valuedouble);
            assert_string_equal(cJSON_GetObjectItem(w, "road")->valuestring, cJSON_GetObjectItem(st, "road")->valuestring);
            assert_int_equal((int)num(w, "lane"), (int)num(st, "lane"));
            assert_true(fabs(num(w, "s") - num(st, "s")) < 0.001 && fabs(num(w, "d") - num(st, "d")) < 0.001);
            cJSON_Delete(w);
        }
        cJSON_Delete(st);
        /* sim.end (if any) comes before this tick's sim.tick */
        for (;;) {
            int len = ts_read_line(drv, line, sizeof line, 30000);
            assert_true(len > 0);
            if (strstr(line, "\"topic\":\"sim.end\"")) {
                ended = true;
                continue;
            }
            if (strstr(line, "\"topic\":\"sim.tick\""))
                break;
        }
        char msg[160];
        snprintf(msg, sizeof msg, "{\"topic\":\"input.controls\",\"src\":\"driver\",\"throttle\":0.5}");
        assert_true(ts_send_line(drv, msg));
        snprintf(msg, sizeof msg, "{\"topic\":\"sim.ack\",\"src\":\"driver\",\"n\":%d}", n);
        assert_true(ts_send_line(drv, msg));
    }
    printf("scenario road: s from %.2f to %.2f, sim.end %s\n", s0, s_last, ended ? "seen" : "missing");
    assert_true(fabs(s0 - 20.0) < 0.05);
    assert_true(ended && s_last >= 40.0 && s_last < 42.0);
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_close(drv);
    ts_dispatcher_stop(&d);

    /* an unknown start point is refused, naming the known ones */
    char *argv[] = {"physics-node", "--scenario", path, "--start", "nowhere", NULL};
    pid = ts_spawn(argv, false);
    int st = ts_stop(pid, 0, 30000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    unlink(path);
}

/* What physics published while the dispatcher was away was dropped and counted
 * (sim_bus_dropped); back on the bus the node says so once as bus.error, and the
 * operator sees it in `simctl status`. Before, the counter was read by nobody. */
static void dropped_messages_reach_simctl_status(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *obs = ts_join(d.port, "observer", "[\"sim.tick\"]", NULL);
    pid_t pid = start_physics(&d, NULL, NULL);
    cJSON *tick = ts_expect_topic(obs, "sim.tick", 30000, NULL, 0); /* the clock runs */
    assert_non_null(tick);
    cJSON_Delete(tick);
    ts_close(obs);
    ts_stop(d.pid, SIGKILL, 5000); /* gone, and its ports free */
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", d.port);
    char *argv[] = {"dispatcher", "--listen", listen, "--control", d.control_url, NULL};
    d.pid = ts_spawn(argv, false);
    assert_true(ts_wait_port(d.port, 20000));
    const char *args[] = {"status", "--control", d.control_url, NULL};
    char out[8192] = "";
    const char *line = NULL;
    for (double t0 = ts_now_ms(); !line && ts_now_ms() - t0 < 20000; ts_sleep_ms(50)) {
        if (ts_run("simctl", args, out, sizeof out) == 0) line = strstr(out, "ERROR from physics (bus.error");
    }
    if (!line) fail_msg("simctl status never showed physics' dropped messages:\n%s", out);
    printf("%.*s\n", (int)strcspn(line, "\n"), line);
    assert_non_null(strstr(line, "messages published while the dispatcher was away were dropped"));
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_dispatcher_stop(&d);
}

static void rejects_bad_options(void **state)
{
    char *a1[] = {"physics-node", "--model", "fancy", NULL};
    char *a2[] = {"physics-node", "--rate-hz", "1000", "--publish-hz", "300", NULL};
    char *a3[] = {"physics-node", "--vehicle", "/nonexistent.json", NULL};
    char *a4[] = {"physics-node", "--frobnicate", NULL};
    int want[] = {2, 2, 1, 2};
    char **all[] = {a1, a2, a3, a4};
    for (int i = 0; i < 4; i++) {
        pid_t pid = ts_spawn(all[i], false);
        int st = ts_stop(pid, 0, 30000);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), want[i]);
    }
    /* Regressions: a FIFO as the vehicle file hung in fopen (now refused at once); a
     * scenario error named the file twice ("x: x: cannot open"). */
    char fifo[] = "/tmp/test_physics_fifo_XXXXXX";
    assert_non_null(mkdtemp(fifo));
    char path[64], cmd[256], out[1024];
    snprintf(path, sizeof path, "%s/v.json", fifo);
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(cmd, sizeof cmd, "timeout 5 %s --vehicle %s 2>&1; echo rc=$?", ts_bin("physics-node"), path);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    assert_non_null(strstr(out, "v.json: not a regular file"));
    assert_non_null(strstr(out, "rc=1"));
    unlink(path);
    rmdir(fifo);
    p = popen("timeout 5 \"$SIM_BIN/physics-node\" --vehicle \"$SIM_ROOT/vehicles/bmw-318i.json\" --scenario /nonexistent/s.json 2>&1", "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    assert_string_equal(out, "physics-node: /nonexistent/s.json: cannot open: No such file or directory\n");
}

/* --wait-for: the clock does not start until the named modules are there, so tick 0
 * is the first thing a late driver and recorder see. */
static void clock_waits_for_named_modules(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *obs = ts_join(d.port, "observer", "[\"sim.tick\"]", NULL);
    pid_t pid = start_physics2(&d, "--lockstep", "--wait-for", "recorder,input", NULL, NULL);
    char line[4096];
    /* physics joins, but no tick comes while recorder and input are missing. */
    cJSON *j = ts_expect_topic(obs, "dispatcher.joined", 30000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    ts_conn *rec = ts_join(d.port, "recorder", "[\"nothing.\"]", NULL);
    assert_null(ts_expect_topic(obs, "sim.tick", 400, line, sizeof line));
    ts_conn *in = ts_join(d.port, "input", "[\"sim.tick\"]", "\"lockstep\":true");
    cJSON *t = ts_expect_topic(obs, "sim.tick", 30000, NULL, 0);
    assert_non_null(t);
    assert_true(num(t, "n") == 0);
    cJSON_Delete(t);
    ts_close(in);
    ts_close(rec);
    ts_close(obs);
    int st = ts_stop(pid, SIGTERM, 30000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ts_dispatcher_stop(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lockstep_follows_the_driver),
        cmocka_unit_test(malformed_acks_do_not_count),
        cmocka_unit_test(lockstep_runs_are_byte_identical),
        cmocka_unit_test(waits_pauses_and_restarts),
        cmocka_unit_test(real_time_is_paced),
        cmocka_unit_test(drives_on_a_scenario_road),
        cmocka_unit_test(rejects_bad_options),
        cmocka_unit_test(dropped_messages_reach_simctl_status),
        cmocka_unit_test(clock_waits_for_named_modules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
