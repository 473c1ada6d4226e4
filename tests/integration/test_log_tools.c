/* Integration tests of the drive-log tools of simctl: `simctl export` (files, bounds,
 * exit codes) and `simctl replay` (every logged state on the bus in order, pause and
 * resume through control messages). Skipped while bin/simctl lacks the commands. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_drivelog.h"
#include "test_support.h"

enum { N = 100 }; /* samples: 1 s of run 0; sector S1 on ticks 50..79 */

typedef struct fixture {
    char dir[64];
    char log[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_log_tools.XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->log, sizeof f->log, "%s/drive.sqlite", f->dir);
    sim_drivelog_writer *w;
    if (sim_drivelog_writer_open(f->log, NULL, &w, NULL)) return -1;
    for (int k = 0; k < N; k++) {
        sim_drivelog_sample s;
        sim_drivelog_sample_init(&s);
        s.tick = k;
        s.t = k * 0.01;
        s.speed = k;
        s.x = 2.0 * k;
        s.y = 1.0;
        s.z = 0.0;
        s.heading = 0.25;
        s.gear = 3;
        if (k >= 50 && k < 80) snprintf(s.sector, sizeof s.sector, "S1");
        if (sim_drivelog_append_sample(w, &s, NULL)) return -1;
    }
    if (sim_drivelog_append_event(w, 0, 0.6, "button", "horn", "{\"pressed\":true}", NULL) ||
        sim_drivelog_append_event(w, 0, 0.9, "control", "pause", NULL, NULL) ||
        sim_drivelog_writer_close(w, NULL))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* Runs simctl with args and returns its exit code (-1 when it did not exit in 10 s). */
static int simctl(char *const args[])
{
    char *argv[16] = {"simctl"};
    int n = 1;
    for (; args[n - 1] && n < 15; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int status = ts_stop(pid, 0, 10000);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The command exists and answers --help: a test of it fails (never skips) when not. */
static void need_command(const char *name)
{
    char *args[] = {(char *)name, "--help", NULL};
    int rc = simctl(args);
    if (rc != 0) fail_msg("simctl %s --help exited with %d: the command is missing or broken", name, rc);
}

static int count_lines(const char *path, char *first_data, size_t size)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, fp)) {
        if (n == 1) snprintf(first_data, size, "%s", line);
        n++;
    }
    fclose(fp);
    return n;
}

static void export_by_sector(void **state)
{
    fixture *f = *state;
    need_command("export");
    char out[128], path[160], first[4096];
    snprintf(out, sizeof out, "%s/csv/sub", f->dir);
    char *ok[] = {"export", f->log, "--csv", out, "--from", "sector:S1", "--to", "sector:S1", NULL};
    assert_int_equal(simctl(ok), 0);
    snprintf(path, sizeof path, "%s/samples.csv", out);
    assert_int_equal(count_lines(path, first, sizeof first), 1 + 30);
    assert_string_equal(first, "0,50,0.5,50,,,,,,,,100,1,0,0.25,,,,,,,3,,S1,,\r\n");
    snprintf(path, sizeof path, "%s/events.csv", out);
    assert_int_equal(count_lines(path, first, sizeof first), 1 + 1); /* the horn at 0.6 s */
    assert_string_equal(first, "0,0.6,button,horn,\"{\"\"pressed\"\":true}\"\r\n");

    char *bad_bound[] = {"export", f->log, "--csv", out, "--from", "soon", NULL};
    assert_int_equal(simctl(bad_bound), 2);
    char *no_csv[] = {"export", f->log, NULL};
    assert_int_equal(simctl(no_csv), 2);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.sqlite", f->dir);
    char *no_log[] = {"export", missing, "--csv", out, NULL};
    assert_int_equal(simctl(no_log), 1);

    /* Issue 21: existing CSVs are kept without --force, and the log itself always (a log
     * named samples.csv was overwritten by its own export). */
    char *again[] = {"export", f->log, "--csv", out, NULL};
    assert_int_equal(simctl(again), 1);
    snprintf(path, sizeof path, "%s/samples.csv", out);
    assert_int_equal(count_lines(path, first, sizeof first), 1 + 30); /* untouched */
    char *forced[] = {"export", f->log, "--csv", out, "--force", NULL};
    assert_int_equal(simctl(forced), 0);
    assert_true(count_lines(path, first, sizeof first) > 1 + 30);
    char self_dir[160], self[200], cmd[600];
    snprintf(self_dir, sizeof self_dir, "%s/self", f->dir);
    snprintf(self, sizeof self, "%s/samples.csv", self_dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", self_dir, f->log, self);
    assert_int_equal(system(cmd), 0);
    char *onto_itself[] = {"export", self, "--csv", self_dir, "--force", NULL};
    assert_int_equal(simctl(onto_itself), 1);
    sim_drivelog_reader *r;
    assert_int_equal(sim_drivelog_reader_open(self, &r, NULL), 0); /* still a drive log */
    sim_drivelog_reader_close(r);
}

/* Reads vehicle.state lines until count have arrived or timeout_ms passes; checks that
 * they continue the sequence speed == index. */
static int read_states(ts_conn *c, int *next, int count, int timeout_ms)
{
    double end = ts_now_ms() + timeout_ms;
    int got = 0;
    char line[4096];
    while (got < count && ts_now_ms() < end) {
        if (ts_read_line(c, line, sizeof line, 20) <= 0) continue;
        cJSON *m = cJSON_Parse(line);
        assert_non_null(m);
        if (!strcmp(cJSON_GetObjectItem(m, "topic")->valuestring, "vehicle.state")) {
            assert_int_equal((int)cJSON_GetObjectItem(m, "speed")->valuedouble, *next);
            assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "pos"), 0)->valuedouble == 2.0 * *next);
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(m, "replay")));
            (*next)++;
            got++;
        }
        cJSON_Delete(m);
    }
    return got;
}

static bool is_dispatcher(const char *line)
{
    static const char prefix[] = "{\"topic\":\"dispatcher.";
    return strncmp(line, prefix, sizeof prefix - 1) == 0;
}

/* A log recorded with --all: replay sends the raw state messages (vehicle and traffic)
 * as they were logged, in the order of their simulation time. */
static void replay_raw_messages(void **state)
{
    fixture *f = *state;
    need_command("replay");
    char path[160];
    snprintf(path, sizeof path, "%s/all.sqlite", f->dir);
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(path, NULL, &w, NULL), 0);
    char lines[20][160];
    for (int k = 0; k < 10; k++) {
        double t = k * 0.01;
        snprintf(lines[2 * k], sizeof lines[0],
                 "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%d,\"t\":%g,\"speed\":%d}", k, t, k);
        snprintf(lines[2 * k + 1], sizeof lines[0],
                 "{\"topic\":\"traffic.state\",\"src\":\"traffic\",\"seq\":%d,\"t\":%g,\"agents\":[]}", k, t);
        /* traffic first in the table: replay orders by t, then arrival */
        assert_int_equal(sim_drivelog_append_message(w, 0, t, "traffic.state", "traffic", k, lines[2 * k + 1],
                                                     strlen(lines[2 * k + 1]), NULL), 0);
        assert_int_equal(sim_drivelog_append_message(w, 0, t, "vehicle.state", "physics", k, lines[2 * k],
                                                     strlen(lines[2 * k]), NULL), 0);
        const char *tick = "{\"topic\":\"sim.tick\"}"; /* not a state: not replayed */
        assert_int_equal(sim_drivelog_append_message(w, 0, t, "sim.tick", NULL, -1, tick, strlen(tick), NULL), 0);
    }
    assert_int_equal(sim_drivelog_writer_close(w, NULL), 0);

    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char bus[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *tap = ts_join(d.port, "tap", "[\"vehicle.\",\"traffic.\",\"sim.\"]", NULL);
    assert_non_null(tap);
    char *argv[] = {"simctl", "replay", path, "--bus", bus, "--speed", "10", NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    char line[4096];
    for (int i = 0; i < 20; i++) {
        do /* dispatcher.joined/left reach everyone */
            assert_true(ts_read_line(tap, line, sizeof line, 5000) > 0);
        while (is_dispatcher(line));
        assert_string_equal(line, lines[i % 2 == 0 ? i + 1 : i - 1]); /* traffic, vehicle, ... */
    }
    int status = ts_stop(pid, 0, 5000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    while (ts_read_line(tap, line, sizeof line, 100) > 0) /* no sim.tick */
        assert_true(is_dispatcher(line));
    ts_close(tap);
    ts_dispatcher_stop(&d);
}

static void replay_with_pause(void **state)
{
    fixture *f = *state;
    need_command("replay");
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char bus[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *tap = ts_join(d.port, "tap", "[\"vehicle.\"]", NULL);
    assert_non_null(tap);
    char *argv[] = {"simctl", "replay", f->log, "--bus", bus, "--speed", "1", NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    int next = 0;
    assert_int_equal(read_states(tap, &next, 20, 30000), 20);
    /* Pause, then seek to the start while paused: the replay shows where the seek
     * landed (state 0), which tells that it has taken the pause too, however late
     * (the dispatcher keeps the order). States on the way before it continue the
     * sequence; after it nothing comes while paused. */
    assert_true(ts_send_line(tap, "{\"topic\":\"control.pause\",\"src\":\"test\"}"));
    assert_true(ts_send_line(tap, "{\"topic\":\"control.seek\",\"src\":\"test\",\"to\":0}"));
    bool landed = false;
    char line[4096];
    for (double end = ts_now_ms() + 30000; !landed && ts_now_ms() < end;) {
        if (ts_read_line(tap, line, sizeof line, 200) <= 0) continue;
        cJSON *m = cJSON_Parse(line);
        assert_non_null(m);
        if (!strcmp(cJSON_GetObjectItem(m, "topic")->valuestring, "vehicle.state")) {
            int speed = (int)cJSON_GetObjectItem(m, "speed")->valuedouble;
            if (speed == 0) landed = true;
            else assert_int_equal(speed, next++);
        }
        cJSON_Delete(m);
    }
    assert_true(landed);
    next = 0;
    assert_int_equal(read_states(tap, &next, 1, 400), 0);
    /* Resumed: the whole log from where the seek landed, to the end. */
    /* through the operator's endpoint: replay acts on it and says so */
    char out[1024];
    const char *resume[] = {"resume", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", resume, out, sizeof out), 0);
    assert_non_null(strstr(out, "resume: done by replay"));
    assert_int_equal(read_states(tap, &next, N, 30000), N);
    assert_int_equal(next, N);
    int status = ts_stop(pid, 0, 30000); /* exits by itself after the last state */
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ts_close(tap);
    ts_dispatcher_stop(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(export_by_sector, setup, teardown),
        cmocka_unit_test_setup_teardown(replay_with_pause, setup, teardown),
        cmocka_unit_test_setup_teardown(replay_raw_messages, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
