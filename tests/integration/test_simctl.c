/* Integration tests of simctl: tap/send/operator commands against a real dispatcher,
 * the supervisor of `simctl run` (a module killed with -9 is back within a second,
 * Ctrl-C ends the session with status 0), and bus clients reconnecting by themselves
 * when the dispatcher restarts under them. */
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

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>
#include <pthread.h>
#include <sqlite3.h>

#include "test_support.h"

static int run_simctl(const char *const *args, char *out, size_t out_size)
{
    return ts_run("simctl", args, out, out_size);
}

/* Reads membership news on c until topic (dispatcher.joined or .left) names name. */
static bool member_news(ts_conn *c, const char *topic, const char *name, int ms)
{
    double end = ts_now_ms() + ms;
    while (ts_now_ms() < end) {
        cJSON *m = ts_expect_topic(c, topic, (int)(end - ts_now_ms()) + 1, NULL, 0);
        if (!m) return false;
        const cJSON *n = cJSON_GetObjectItem(m, "name");
        bool match = cJSON_IsString(n) && strcmp(n->valuestring, name) == 0;
        cJSON_Delete(m);
        if (match) return true;
    }
    return false;
}

/* Runs simctl status until its output holds want (the dispatcher acts on what it was
 * sent asynchronously): true when it did within ms. */
static bool status_shows(const char *url, const char *want, int ms, char *out, size_t size)
{
    const char *status[] = {"status", "--control", url, NULL};
    for (double end = ts_now_ms() + ms; ts_now_ms() < end; ts_sleep_ms(20))
        if (run_simctl(status, out, size) == 0 && strstr(out, want)) return true;
    return false;
}

static void send_tap_and_operator_commands(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char bus[64], out[8192];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *obs = ts_join(d.port, "observer", "[\"x.\",\"control.\"]", NULL);
    assert_non_null(obs);

    const char *send[] = {"send", "x.hello", "{\"a\":[1,2],\"b\":\"z\"}", "--bus", bus, NULL};
    assert_int_equal(run_simctl(send, out, sizeof out), 0);
    cJSON *m = ts_expect_topic(obs, "x.hello", 20000, NULL, 0);
    assert_non_null(m);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(m, "a")), 2);
    assert_string_equal(cJSON_GetObjectItem(m, "src")->valuestring, "simctl-send");
    assert_int_equal(cJSON_GetObjectItem(m, "seq")->valueint, 1);
    cJSON_Delete(m);
    const char *bad[] = {"send", "x.y", "[1]", "--bus", bus, NULL};
    assert_int_equal(run_simctl(bad, out, sizeof out), 2);
    /* A documented topic is checked by its definition: an hud.text every render node
     * would refuse is refused here, exit 1 (it used to go out with status 0), and a
     * good one goes out. The observer sees only the good one. */
    ts_conn *hobs = ts_join(d.port, "hud-observer", "[\"hud.\"]", NULL);
    assert_non_null(hobs);
    const char *badhud[] = {"send", "hud.text", "{\"area\":\"middle\",\"text\":\"Slow down\"}", "--bus", bus, NULL};
    assert_int_equal(run_simctl(badhud, out, sizeof out), 1);
    if (!strstr(out, "hud.text: \"area\" must be one of") || !strstr(out, "nothing was sent")) fail_msg("%s", out);
    const char *goodhud[] = {"send", "hud.text", "{\"area\":\"center\",\"text\":\"Slow down\"}", "--bus", bus, NULL};
    assert_int_equal(run_simctl(goodhud, out, sizeof out), 0);
    m = ts_expect_topic(hobs, "hud.text", 20000, NULL, 0);
    assert_non_null(m);
    assert_string_equal(cJSON_GetObjectItem(m, "area")->valuestring, "center");
    cJSON_Delete(m);
    ts_close(hobs);

    /* Published with an id; nobody on this bus acts on them, and simctl says so. */
    const char *hud[] = {"hud", "Turn left", "--control", d.control_url, NULL};
    assert_int_equal(run_simctl(hud, out, sizeof out), 1);
    assert_non_null(strstr(out, "no module acts on hud"));
    m = ts_expect_topic(obs, "control.hud", 20000, NULL, 0);
    assert_non_null(m);
    assert_string_equal(cJSON_GetObjectItem(m, "text")->valuestring, "Turn left");
    cJSON_Delete(m);
    const char *sl[] = {"speed-limit", "80", "--control", d.control_url, NULL};
    assert_int_equal(run_simctl(sl, out, sizeof out), 1);
    m = ts_expect_topic(obs, "control.speed_limit", 20000, NULL, 0);
    assert_non_null(m);
    assert_int_equal(cJSON_GetObjectItem(m, "kmh")->valueint, 80);
    cJSON_Delete(m);
    const char *tr[] = {"traffic", "density", "0.5", "freeze", "--control", d.control_url, NULL};
    assert_int_equal(run_simctl(tr, out, sizeof out), 1);
    assert_non_null(strstr(out, "no module acts on traffic"));
    m = ts_expect_topic(obs, "control.traffic", 20000, NULL, 0);
    assert_true(cJSON_GetObjectItem(m, "density")->valuedouble == 0.5);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(m, "freeze")));
    cJSON_Delete(m);
    const char *light[] = {"light", "noon", "--control", d.control_url, NULL};
    assert_int_equal(run_simctl(light, out, sizeof out), 1);
    assert_non_null(strstr(out, "\"day\", \"dusk\" or \"night\""));
    const char *restart[] = {"restart", "--control", d.control_url, NULL};
    assert_int_equal(run_simctl(restart, out, sizeof out), 2);
    const char *unknown[] = {"frobnicate", NULL};
    assert_int_equal(run_simctl(unknown, out, sizeof out), 2);
    /* A module's error report stays visible in the operator's status. */
    /* (its age in whole seconds: at most the time since it was sent; under load one
     * simctl status took over a second, and "0 s ago" within 2 s failed) */
    double sent = ts_now_ms();
    ts_send_line(obs, "{\"topic\":\"log.error\",\"src\":\"recorder\",\"error\":\"disk full: /logs\"}");
    assert_true(status_shows(d.control_url, "s ago): disk full: /logs", 20000, out, sizeof out));
    double waited_s = (ts_now_ms() - sent) / 1000.0;
    const char *err_line = strstr(out, "ERROR from recorder (log.error, ");
    int ago = -1;
    assert_non_null(err_line);
    assert_int_equal(sscanf(err_line, "ERROR from recorder (log.error, %d s ago): disk full: /logs", &ago), 1);
    if (ago < 0 || ago > waited_s + 1) fail_msg("the error's age %d s, sent %.1f s before:\n%s", ago, waited_s, out);
    assert_non_null(strstr(out, "observer"));
    /* A durable module that went away shows as such, with what is kept for it. */
    ts_conn *dur = ts_join(d.port, "recorder", "[\"x.\"]", "\"durable\":true");
    assert_non_null(dur);
    ts_close(dur);
    assert_true(member_news(obs, "dispatcher.left", "recorder", 20000));
    ts_send_line(obs, "{\"topic\":\"x.kept\"}");
    assert_true(status_shows(d.control_url, "AWAY recorder: 1 messages kept for it", 2000, out, sizeof out));

    /* tap prints exactly what passes (once it has joined: its hello is seen). */
    char tapcmd[512];
    snprintf(tapcmd, sizeof tapcmd, "%s tap x. --count 1 --timeout 5 --bus %s", ts_bin("simctl"), bus);
    FILE *tap = popen(tapcmd, "r");
    assert_true(member_news(obs, "dispatcher.joined", "simctl-tap", 20000));
    ts_conn *pub = ts_join(d.port, "pub", "[]", NULL);
    ts_send_line(pub, "{\"topic\":\"x.tapped\",\"v\":  1}");
    char line[256] = "";
    assert_non_null(fgets(line, sizeof line, tap));
    assert_string_equal(line, "{\"topic\":\"x.tapped\",\"v\":  1}\n");
    assert_int_equal(WEXITSTATUS(pclose(tap)), 0);
    ts_close(pub);
    ts_close(obs);
    ts_dispatcher_stop(&d);
}

/* Whether a module named `name` is joined to the dispatcher on port within ms: a
 * newcomer finds it among the welcome's peers (it may have joined before the
 * newcomer, so dispatcher.joined alone could be missed). */
static bool peer_present_within(int port, const char *name, double ms)
{
    double t0 = ts_now_ms();
    bool found = false;
    while (!found && ts_now_ms() - t0 < ms) {
        ts_conn *probe = ts_connect(port);
        if (probe) {
            ts_send_line(probe, "{\"topic\":\"hello\",\"name\":\"probe\",\"subscribe\":[]}");
            cJSON *w = ts_expect_topic(probe, "dispatcher.welcome", 1000, NULL, 0);
            const cJSON *p;
            cJSON_ArrayForEach(p, cJSON_GetObjectItem(w, "peers"))
                found |= strcmp(cJSON_GetObjectItem(p, "name")->valuestring, name) == 0;
            cJSON_Delete(w);
            ts_close(probe);
        }
        if (!found) ts_sleep_ms(20);
    }
    return found;
}

/* A bus client (simctl tap, which uses sim_bus) reconnects by itself when the
 * dispatcher is restarted on the same port. */
static void clients_reconnect_after_dispatcher_restart(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char bus[64], listen[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", d.port);
    /* The observer joins first: dispatcher.joined goes only to those already there. */
    ts_conn *obs = ts_join(d.port, "observer", "[]", NULL);
    char *tap_argv[] = {"simctl", "tap", "nothing.", "--bus", bus, "--timeout", "20", NULL};
    pid_t tap = ts_spawn(tap_argv, false);
    cJSON *j = ts_expect_topic(obs, "dispatcher.joined", 10000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    ts_close(obs);
    ts_stop(d.pid, SIGKILL, 2000); /* waits until it is gone: the port is free */
    char *argv[] = {"dispatcher", "--listen", listen, "--control", "none", NULL};
    d.pid = ts_spawn(argv, false);
    assert_true(ts_wait_port(d.port, 20000));
    assert_true(peer_present_within(d.port, "simctl-tap", 20000));
    ts_stop(tap, SIGINT, 2000);
    ts_dispatcher_stop(&d);
}

static pid_t child_named(pid_t parent, const char *exe)
{
    char path[128], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", parent, parent);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n")) {
        char comm[256] = "";
        snprintf(path, sizeof path, "/proc/%s/comm", tok);
        FILE *c = fopen(path, "r");
        if (!c) continue;
        if (fgets(comm, sizeof comm, c)) comm[strcspn(comm, "\n")] = '\0';
        fclose(c);
        if (strcmp(comm, exe) == 0) return (pid_t)atoi(tok);
    }
    return -1;
}

static void run_restarts_killed_modules_and_stops_on_ctrl_c(void **state)
{
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    char out_dir[] = "/tmp/simctl-run-XXXXXX";
    assert_non_null(mkdtemp(out_dir));
    char *argv[] = {"simctl", "run", (char *)ts_root("scenarios/lane-change.json"), "--interactive", "--no-analysis",
                    "--driver", "script", "--bus", bus, "--control", control, "--out", out_dir, NULL};
    pid_t run = ts_spawn(argv, false);
    assert_true(ts_wait_port(port, 20000));

    /* A module killed with -9: the others go on, dispatcher.left is seen, and the
     * supervisor has it back (deadlines generous: how soon is a matter of the load,
     * the time is printed). */
    ts_conn *obs = ts_join(port, "observer", "[\"nothing.\"]", NULL);
    assert_non_null(obs);
    pid_t rec = -1;
    for (double t0 = ts_now_ms(); rec < 0 && ts_now_ms() - t0 < 20000; ts_sleep_ms(20))
        rec = child_named(run, "recorder");
    /* The recorder is part of every session: without it there is nothing to check. */
    if (rec <= 0) fail_msg("simctl run started no recorder within 20 s");
    assert_true(peer_present_within(port, "recorder", 20000));
    {
        kill(rec, SIGKILL);
        double t0 = ts_now_ms();
        /* By name: peer_present_within's probe comes and goes on the bus too. */
        assert_true(member_news(obs, "dispatcher.left", "recorder", 20000));
        assert_true(member_news(obs, "dispatcher.joined", "recorder", 20000));
        printf("# recorder back after %.0f ms\n", ts_now_ms() - t0);
    }
    ts_close(obs);

    /* The dispatcher itself killed: back too. */
    pid_t disp = child_named(run, "dispatcher");
    assert_true(disp > 0);
    kill(disp, SIGKILL);
    double t0 = ts_now_ms();
    pid_t again = -1;
    while (ts_now_ms() - t0 < 20000 && (again < 0 || again == disp)) {
        again = child_named(run, "dispatcher");
        ts_sleep_ms(10);
    }
    assert_true(again > 0 && again != disp);
    assert_true(ts_wait_port(port, 20000));
    /* ... and the modules reconnect to the new one by themselves. */
    assert_true(peer_present_within(port, "recorder", 20000));
    printf("# dispatcher back and the recorder on it after %.0f ms\n", ts_now_ms() - t0);
    int st = ts_stop(run, SIGINT, 10000);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    /* Nothing is left behind. */
    assert_false(ts_wait_port(port, 200));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", out_dir);
    assert_int_equal(system(cmd), 0);
}

/* Whether pid has ended: gone, or a zombie nobody has reaped yet (an orphan's parent
 * is then init or a subreaper, not this test). */
static bool ended(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')');
    return !close || close[2] == 'Z' || close[2] == 'X';
}

/* simctl killed with -9 in the middle of a session: every module it started ends too
 * (PR_SET_PDEATHSIG), instead of driving and logging on under PID 1. */
static void modules_end_when_simctl_is_killed(void **state)
{
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    char out_dir[] = "/tmp/simctl-kill-XXXXXX";
    assert_non_null(mkdtemp(out_dir));
    char *argv[] = {"simctl", "run", (char *)ts_root("scenarios/lane-change.json"), "--headless", "--until", "3600",
                    "--no-analysis", "--bus", bus, "--control", control, "--out", out_dir, NULL};
    pid_t run = ts_spawn(argv, false);
    assert_true(ts_wait_port(port, 20000));
    const char *names[] = {"dispatcher", "physics-node", "recorder", "input-node"};
    enum { N = sizeof names / sizeof *names };
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = -1;
        for (double t0 = ts_now_ms(); pids[i] < 0 && ts_now_ms() - t0 < 20000; ts_sleep_ms(20))
            pids[i] = child_named(run, names[i]);
        if (pids[i] < 0) fail_msg("simctl run started no %s within 20 s", names[i]);
    }
    assert_true(peer_present_within(port, "recorder", 20000));
    assert_true(peer_present_within(port, "physics", 20000));
    kill(run, SIGKILL);
    int st = ts_stop(run, 0, 10000);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    double t0 = ts_now_ms();
    for (int i = 0; i < N; i++) {
        while (!ended(pids[i]) && ts_now_ms() - t0 < 20000) ts_sleep_ms(10);
        if (!ended(pids[i])) {
            kill(pids[i], SIGKILL); /* leave nothing behind, then fail */
            fail_msg("%s (pid %d) still runs 20 s after simctl was killed", names[i], (int)pids[i]);
        }
    }
    printf("# every module ended %.0f ms after simctl was killed\n", ts_now_ms() - t0);
    assert_false(ts_wait_port(port, 200));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", out_dir);
    assert_int_equal(system(cmd), 0);
}

static void validate_and_where(void **state)
{
    char out[16384];
    const char *ok[] = {"validate", ts_root("scenarios/lane-change.json"), ts_root("scenarios/motorway.json"),
                        ts_root("scenarios/rural.json"), ts_root("scenarios/town.json"), NULL};
    assert_int_equal(run_simctl(ok, out, sizeof out), 0);
    const char *bad[] = {"validate", ts_root("tests/data/scenario_invalid.json"), NULL};
    assert_int_equal(run_simctl(bad, out, sizeof out), 1);
    assert_non_null(strstr(out, "scenario_invalid.json: roads[0].segments[1].length: found -5, expected a number > 0"));
    const char *usage[] = {"validate", NULL};
    assert_int_equal(run_simctl(usage, out, sizeof out), 2);
    /* Regression: run only checked that the scenario was readable, so a directory or
     * an invalid file started a session whose modules failed and were restarted
     * forever. It is loaded first now, and refused with the loader's messages. */
    const char *run_dir[] = {"run", ts_root("scenarios"), "--headless", "--no-analysis", NULL};
    assert_int_equal(run_simctl(run_dir, out, sizeof out), 1);
    assert_non_null(strstr(out, "scenarios: not a regular file"));
    const char *run_bad[] = {"run", ts_root("tests/data/scenario_invalid.json"), "--headless", NULL};
    assert_int_equal(run_simctl(run_bad, out, sizeof out), 1);
    assert_non_null(strstr(out, "roads[0].segments[1].length: found -5"));
    const char *where[] = {"where", ts_root("scenarios/lane-change.json"), "100", "-1.75", NULL};
    assert_int_equal(run_simctl(where, out, sizeof out), 0);
    cJSON *w = cJSON_Parse(out);
    assert_non_null(w);
    assert_string_equal(cJSON_GetObjectItem(w, "road")->valuestring, "track");
    assert_true(cJSON_GetObjectItem(w, "s")->valuedouble == 100.0);
    cJSON_Delete(w);
}

/* Regression: numeric arguments were read with strtod unchecked or half-checked, so
 * "traffic density abc" sent density 0, "speed-limit ''" cleared the limit and "nan"
 * passed as a time. All are refused before anything is sent (no dispatcher here). */
static void bad_numbers_are_refused(void **state)
{
    char out[8192];
    const char *none = "tcp://127.0.0.1:1";
    const char *cases[][6] = {
        {"traffic", "density", "abc", "--control", none, NULL},
        {"speed-limit", "", "--control", none, NULL},
        {"speed-limit", "nan", "--control", none, NULL},
        {"seek", "inf", "--control", none, NULL},
        {"where", "x.json", "nan", "0", NULL},
        {"run", "--until", "nan", NULL},
        {"tap", "--timeout", "1e300", NULL},
        {"send", "x.y", "--timeout", "-1", NULL},
        {"tap", "--count", "-5", NULL},
        {"replay", "x.sqlite", "--speed", "1e-300", NULL},
        {"send", "", NULL},
        {"send", "dispatcher.joined", NULL},
        {"status", "stray", NULL},
    };
    const char *expect[] = {"traffic: density 'abc' is not a number", "speed-limit: '' is not a number",
                            "speed-limit: 'nan' is not a number", "seek: 'inf' is not a time",
                            "simctl where: expected FILE X Y", "--until expects 'end' or a number",
                            "--timeout 1e+300: expected 0..31536000 seconds", "--timeout -1: expected",
                            "--count -5: expected", "--speed 1e-300: expected 0.001..1000",
                            "TOPIC '': expected a non-empty topic", "TOPIC 'dispatcher.joined': expected",
                            "simctl status: unexpected argument 'stray'"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(run_simctl(cases[i], out, sizeof out), 2);
        if (!strstr(out, expect[i])) fail_msg("case %zu: %s", i, out);
    }
}

/* A control endpoint answering a status request with entries that lack fields. */
static void *fake_status_server(void *arg)
{
    int s = *(int *)arg;
    char *req = NULL;
    if (nn_recv(s, &req, NN_MSG, 0) >= 0) {
        nn_freemsg(req);
        const char *reply = "{\"ok\":true,\"modules\":[{},{\"name\":5}],\"errors\":[{},{\"error\":\"disk full\"}]}";
        nn_send(s, reply, strlen(reply), 0);
    }
    return NULL;
}

/* Regression: the status table dereferenced every field of the reply unchecked, so a
 * reply from another program or version on the control port crashed simctl. */
static void status_survives_a_reply_without_fields(void **state)
{
    char url[128], out[8192];
    snprintf(url, sizeof url, "ipc:///tmp/simctl-test-%d.ipc", (int)getpid());
    int s = nn_socket(AF_SP, NN_REP);
    assert_true(s >= 0);
    assert_true(nn_bind(s, url) >= 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, fake_status_server, &s), 0);
    const char *status[] = {"status", "--control", url, NULL};
    assert_int_equal(run_simctl(status, out, sizeof out), 0);
    pthread_join(th, NULL);
    nn_close(s);
    assert_non_null(strstr(out, "ERROR from ? (?, 0 s ago): disk full"));
    assert_non_null(strstr(out, "0    ?"));
}

/* Runs a headless session for `until` seconds of simulated time into out_dir and
 * returns the path of its drive log (static buffer). */
static const char *headless_run_of(const char *scenario, const char *out_dir, const char *until)
{
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    char *argv[] = {"simctl", "run", (char *)ts_root(scenario), "--headless", "--until",
                    (char *)until, "--no-analysis", "--bus", bus, "--control", control, "--out", (char *)out_dir, NULL};
    int st = ts_stop(ts_spawn(argv, false), 0, TS_SESSION_HANG_MS);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    static char path[1024];
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls %s/logs/default/*.sqlite", out_dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(fgets(path, sizeof path, p));
    pclose(p);
    path[strcspn(path, "\n")] = '\0';
    return path;
}

static const char *headless_run(const char *out_dir, const char *until)
{
    return headless_run_of("scenarios/lane-change.json", out_dir, until);
}

/* Every sample of a log as text, in order. */
static char *dump_samples(const char *log, int *rows, double *t_max)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT * FROM samples ORDER BY run, tick", -1, &st, NULL), SQLITE_OK);
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    *rows = 0;
    *t_max = -1;
    int t_col = -1;
    for (int c = 0; c < sqlite3_column_count(st); c++)
        if (!strcmp(sqlite3_column_name(st, c), "t")) t_col = c;
    while (sqlite3_step(st) == SQLITE_ROW) {
        (*rows)++;
        if (sqlite3_column_double(st, t_col) > *t_max) *t_max = sqlite3_column_double(st, t_col);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            size_t n = strlen(v ? v : "") + 2;
            if (len + n + 1 > cap) out = realloc(out, cap *= 2);
            len += (size_t)snprintf(out + len, cap - len, "%s|", v ? v : "");
        }
        out[len++] = '\n';
        out[len] = '\0';
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

/* The main job's promise: a headless lockstep run stops exactly at --until, and the
 * same scenario with the scripted driver gives byte-identical samples every time. */
static void headless_runs_are_exact_and_reproducible(void **state)
{
    char a[] = "/tmp/simctl-repro-a-XXXXXX", b[] = "/tmp/simctl-repro-b-XXXXXX";
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    int rows_a, rows_b;
    double tmax_a, tmax_b;
    char log_a[1024];
    snprintf(log_a, sizeof log_a, "%s", headless_run(a, "12"));
    char *da = dump_samples(log_a, &rows_a, &tmax_a);
    /* the second into folders that do not exist yet: simctl makes the whole path, and
     * every module's file lands there (context-server's database could not be opened) */
    char nested[128], ctx[160];
    snprintf(nested, sizeof nested, "%s/study/day1", b);
    char *db = dump_samples(headless_run(nested, "12"), &rows_b, &tmax_b);
    snprintf(ctx, sizeof ctx, "%s/context.db", nested);
    assert_int_equal(access(ctx, R_OK), 0);
    assert_int_equal(rows_a, 1201); /* ticks 0..1200, every 10 ms */
    assert_true(tmax_a == 12.0);
    assert_int_equal(rows_b, rows_a);
    assert_string_equal(da, db);
    free(da);
    free(db);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", a, b);
    assert_int_equal(system(cmd), 0);
}

static double query_double(const char *log, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The scripted driver follows the road graph: through the town's junctions (slowing
 * down for the turns) and from the motorway's on-ramp onto the motorway. */
static void scripted_driver_follows_the_road_graph(void **state)
{
    char a[] = "/tmp/simctl-town-XXXXXX", b[] = "/tmp/simctl-mw-XXXXXX";
    assert_non_null(mkdtemp(a));
    assert_non_null(mkdtemp(b));
    const char *town = headless_run_of("scenarios/town.json", a, "60");
    /* Several streets and junction roads, never stuck, never off the roads. It may
     * stand a while to give way at a junction (input-node/yield.c, issue 22), not for
     * long: at most 20 of the 50 s after the start. */
    assert_true(query_double(town, "SELECT COUNT(DISTINCT road) FROM samples") >= 5);
    assert_true(query_double(town, "SELECT COUNT(*) FROM samples WHERE t > 10 AND speed < 0.5") < 2000);
    assert_true(query_double(town, "SELECT COUNT(*) FROM samples WHERE road IS NULL OR road = ''") == 0);
    /* It slows for the turns: well under the 50 km/h limit somewhere after the start. */
    assert_true(query_double(town, "SELECT MIN(speed) FROM samples WHERE t > 10") < 40.0 / 3.6);
    const char *mw = headless_run_of("scenarios/motorway.json", b, "60");
    assert_true(query_double(mw, "SELECT COUNT(*) FROM samples WHERE road = 'mw_east'") > 0);
    /* At speed (the ramp allows 80 km/h), though the traffic on the motorway decides how
     * fast it gets there: it merges behind the scenario's merging car. */
    assert_true(query_double(mw, "SELECT MAX(speed) FROM samples") > 70.0 / 3.6);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", a, b);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(send_tap_and_operator_commands),
        cmocka_unit_test(clients_reconnect_after_dispatcher_restart),
        cmocka_unit_test(run_restarts_killed_modules_and_stops_on_ctrl_c),
        cmocka_unit_test(modules_end_when_simctl_is_killed),
        cmocka_unit_test(validate_and_where),
        cmocka_unit_test(bad_numbers_are_refused),
        cmocka_unit_test(status_survives_a_reply_without_fields),
        cmocka_unit_test(headless_runs_are_exact_and_reproducible),
        cmocka_unit_test(scripted_driver_follows_the_road_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
