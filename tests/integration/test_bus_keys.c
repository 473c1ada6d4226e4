/* No message carries a key twice: a real session (simctl run: dispatcher, physics,
 * scripted input, recorder) is tapped on every topic while the operator sends commands
 * (pause, resume, seek, speed_limit, hud), and every line is parsed with a check that
 * refuses a key given twice in any object. sim.tick and control.seek once carried "t"
 * twice (the payload's beside the envelope's), which made `simctl seek 120` jump to the
 * time the command was sent. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>

#include "test_support.h"

/* The first key given twice in one object anywhere in v ("" when none), as a path. */
static bool duplicate_key(const cJSON *v, const char *path, char *out, size_t size)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) return false;
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        char p[256];
        if (cJSON_IsObject(v)) {
            for (const cJSON *prev = v->child; prev != c; prev = prev->next)
                if (strcmp(prev->string, c->string) == 0) {
                    snprintf(out, size, "%s%s%s", path, *path ? "." : "", c->string);
                    return true;
                }
            snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", c->string);
        } else {
            snprintf(p, sizeof p, "%s[%d]", path, i);
        }
        if (duplicate_key(c, p, out, size)) return true;
    }
    return false;
}

static void request(const char *url, const char *req)
{
    int s = nn_socket(AF_SP, NN_REQ);
    assert_true(s >= 0);
    int timeout = 3000;
    nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout, sizeof timeout);
    assert_true(nn_connect(s, url) >= 0);
    assert_true(nn_send(s, req, strlen(req), 0) >= 0);
    char *buf = NULL;
    int n = nn_recv(s, &buf, NN_MSG, 0);
    if (n < 0) fail_msg("%s: no reply from the control endpoint", req);
    /* Published (the reply carries its id on the bus) whether or not a module of this
     * session acts on it: seek and hud are refused or unanswered here, and still pass
     * on the bus with their keys. */
    if (!memmem(buf, (size_t)n, "\"id\":", 5)) fail_msg("%s: not published: %.*s", req, n, buf);
    nn_freemsg(buf);
    nn_close(s);
}

static const char *const WANTED[] = {"sim.tick",      "vehicle.state",  "input.controls",
                                     "ffb.command",   "control.pause",  "control.resume",
                                     "control.seek",  "control.hud",    "control.speed_limit",
                                     "log.status",    "dispatcher.stats", NULL};

typedef struct tap {
    ts_conn *c;
    bool seen[16];
    int lines;
} tap;

/* Reads lines until topic has been seen (NULL: until every WANTED topic has) or the
 * deadline; checks each line on the way. */
static bool read_until(tap *t, const char *topic, double deadline_ms)
{
    static char line[1 << 17];
    while (ts_now_ms() < deadline_ms) {
        bool all = true;
        for (int k = 0; WANTED[k]; k++) {
            if (topic && strcmp(WANTED[k], topic) == 0 && t->seen[k]) return true;
            all &= t->seen[k];
        }
        if (!topic && all) return true;
        int n = ts_read_line(t->c, line, sizeof line, 200);
        if (n < 0) fail_msg("the tap lost the dispatcher");
        if (n == 0) continue;
        t->lines++;
        cJSON *m = cJSON_ParseWithLength(line, (size_t)n);
        if (!m) fail_msg("not JSON: %s", line);
        char dup[256];
        if (duplicate_key(m, "", dup, sizeof dup)) fail_msg("key \"%s\" given twice in: %s", dup, line);
        const cJSON *tp = cJSON_GetObjectItemCaseSensitive(m, "topic");
        for (int k = 0; cJSON_IsString(tp) && WANTED[k]; k++)
            if (strcmp(tp->valuestring, WANTED[k]) == 0) t->seen[k] = true;
        cJSON_Delete(m);
    }
    return false;
}

static void checker_finds_a_repeated_key(void **state)
{
    char dup[64];
    cJSON *m = cJSON_Parse("{\"topic\":\"a\",\"w\":[{\"x\":1},{\"y\":2,\"y\":3}]}");
    assert_true(duplicate_key(m, "", dup, sizeof dup));
    assert_string_equal(dup, "w[1].y");
    cJSON_Delete(m);
    m = cJSON_Parse("{\"topic\":\"a\",\"w\":[{\"x\":1},{\"y\":2,\"z\":3}]}");
    assert_false(duplicate_key(m, "", dup, sizeof dup));
    cJSON_Delete(m);
}

static void every_topic_of_a_session_has_unique_keys(void **state)
{
    int port = ts_free_port(), cport = ts_free_port();
    char bus[64], control[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", cport);
    char out_dir[] = "/tmp/test_bus_keys-XXXXXX";
    assert_non_null(mkdtemp(out_dir));
    char *argv[] = {"simctl", "run", (char *)ts_root("scenarios/lane-change.json"), "--headless",
                    "--no-analysis", "--driver", "script", "--bus", bus, "--control", control,
                    "--out", out_dir, NULL};
    pid_t run = ts_spawn(argv, false);
    assert_true(ts_wait_port(port, 20000));
    tap t = {.c = ts_join(port, "keytap", NULL, NULL)};
    assert_non_null(t.c);
    /* The car is driving and the recorder is logging before the operator acts. */
    assert_true(read_until(&t, "vehicle.state", ts_now_ms() + 30000));
    assert_true(read_until(&t, "log.status", ts_now_ms() + 30000));
    request(control, "{\"cmd\":\"pause\"}");
    assert_true(read_until(&t, "control.pause", ts_now_ms() + 20000));
    request(control, "{\"cmd\":\"resume\"}");
    request(control, "{\"cmd\":\"seek\",\"to\":1}");
    request(control, "{\"cmd\":\"speed_limit\",\"kmh\":50}");
    request(control, "{\"cmd\":\"hud\",\"text\":\"keys\"}");
    bool all = read_until(&t, NULL, ts_now_ms() + 30000);
    for (int k = 0; WANTED[k]; k++)
        if (!t.seen[k]) fprintf(stderr, "never seen: %s\n", WANTED[k]);
    assert_true(all);
    printf("%d lines checked\n", t.lines);
    ts_close(t.c);
    int st = ts_stop(run, SIGINT, 20000);
    assert_true(st != -1);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", out_dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checker_finds_a_repeated_key),
        cmocka_unit_test(every_topic_of_a_session_has_unique_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
