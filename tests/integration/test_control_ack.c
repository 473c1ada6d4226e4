/* Integration tests of command acknowledgement (docs/protocol.md, "Acknowledgements"):
 * the endpoint's reply lists who acted and who refused, waits only for the modules
 * that declared the command, says "no module acts on X" when nobody does; physics
 * refuses an unknown start point and a live seek with the reason; a control message
 * published straight onto the bus is held to the endpoint's rules; simctl send stamps
 * the simulation time; simctl tap without a dispatcher, or with a wrong token, fails. */
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

#include "test_audio.h"
#include "test_support.h"

typedef struct session {
    ts_dispatcher d;
    pid_t physics;
    ts_conn *obs; /* sees control.* and sim.tick */
    char bus[64];
} session;

/* The endpoint's wait for acks in these tests: generous, so that a module or the test
 * itself held up on a loaded machine is not reported silent. A reply still comes as
 * soon as every declared module has answered; only ownerless commands wait it out. */
#define TEST_ACK_WAIT_MS "2000"
static const char *const ack_wait_args[] = {"--ack-wait-ms", TEST_ACK_WAIT_MS, NULL};

static void session_start(session *s)
{
    assert_true(ts_dispatcher_start(&s->d, ack_wait_args));
    snprintf(s->bus, sizeof s->bus, "127.0.0.1:%d", s->d.port);
    s->obs = ts_join(s->d.port, "observer", "[\"control.\",\"sim.tick\"]", NULL);
    assert_non_null(s->obs);
    char *argv[] = {"physics-node", "--bus", s->bus, "--vehicle", (char *)ts_root("vehicles/bmw-318i.json"),
                    "--scenario", (char *)ts_root("scenarios/motorway.json"), NULL};
    s->physics = ts_spawn(argv, false);
    assert_true(s->physics > 0);
    /* physics has joined (and declared what it acts on) once it ticks */
    cJSON *t = ts_expect_topic(s->obs, "sim.tick", 5000, NULL, 0);
    assert_non_null(t);
    cJSON_Delete(t);
}

static void session_stop(session *s)
{
    ts_stop(s->physics, SIGTERM, 5000);
    ts_close(s->obs);
    ts_dispatcher_stop(&s->d);
}

static int simctl(const session *s, const char *a1, const char *a2, char *out, size_t size)
{
    const char *args[] = {a1, a2 ? a2 : "--control", a2 ? "--control" : s->d.control_url, a2 ? s->d.control_url : NULL,
                          NULL};
    return ts_run("simctl", args, out, size);
}

/* The next control.ack on c from src, parsed (caller frees). */
static cJSON *next_ack(ts_conn *c, const char *src)
{
    for (;;) {
        cJSON *m = ts_expect_topic(c, "control.ack", 3000, NULL, 0);
        if (!m) return NULL;
        const cJSON *from = cJSON_GetObjectItem(m, "src");
        if (cJSON_IsString(from) && strcmp(from->valuestring, src) == 0) return m;
        cJSON_Delete(m);
    }
}

static void physics_acts_and_refuses_with_reasons(void **state)
{
    session s;
    session_start(&s);
    char out[4096];
    assert_int_equal(simctl(&s, "pause", NULL, out, sizeof out), 0);
    assert_non_null(strstr(out, "pause: done by physics"));
    /* the command went out with an id, and physics answered that id */
    cJSON *cmd = ts_expect_topic(s.obs, "control.pause", 2000, NULL, 0);
    assert_non_null(cmd);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cmd, "id")));
    double id = cJSON_GetObjectItem(cmd, "id")->valuedouble;
    cJSON_Delete(cmd);
    cJSON *ack = next_ack(s.obs, "physics");
    assert_non_null(ack);
    assert_true(id == 1);
    assert_string_equal(cJSON_GetObjectItem(ack, "id")->valuestring, "1");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);

    assert_int_equal(simctl(&s, "restart", "nowhere", out, sizeof out), 1);
    assert_non_null(strstr(out, "REFUSED by physics"));
    assert_non_null(strstr(out, "no start point named \"nowhere\""));
    assert_int_equal(simctl(&s, "seek", "3", out, sizeof out), 1);
    assert_non_null(strstr(out, "a live session cannot jump in time"));
    /* nobody on the bus acts on light, hud, traffic, sound or speed_limit */
    assert_int_equal(simctl(&s, "light", "night", out, sizeof out), 1);
    assert_non_null(strstr(out, "no module acts on light"));
    assert_int_equal(simctl(&s, "speed-limit", "80", out, sizeof out), 1);
    assert_non_null(strstr(out, "no module acts on speed_limit"));
    assert_int_equal(simctl(&s, "resume", NULL, out, sizeof out), 0);
    assert_int_equal(simctl(&s, "restart", "curves", out, sizeof out), 0);
    assert_non_null(strstr(out, "restart: done by physics"));
    cJSON *t = ts_expect_topic(s.obs, "sim.tick", 3000, NULL, 0);
    while (t && cJSON_GetObjectItem(t, "run")->valueint != 1) {
        cJSON_Delete(t);
        t = ts_expect_topic(s.obs, "sim.tick", 3000, NULL, 0);
    }
    assert_non_null(t);
    cJSON_Delete(t);
    assert_int_equal(simctl(&s, "stop", NULL, out, sizeof out), 0);
    assert_non_null(strstr(out, "stop: done by physics"));
    int st = ts_stop(s.physics, 0, 5000);
    assert_true(WIFEXITED(st));
    s.physics = -1;
    session_stop(&s);
}

/* A command published straight onto the bus skips the endpoint: physics checks it
 * with the same rules, refuses it on the bus and does not act. */
static void bus_commands_are_validated_by_the_module(void **state)
{
    session s;
    session_start(&s);
    assert_true(ts_send_line(s.obs, "{\"topic\":\"control.restart\",\"at\":42}"));
    cJSON *ack = next_ack(s.obs, "physics");
    assert_non_null(ack);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    assert_string_equal(cJSON_GetObjectItem(ack, "error")->valuestring, "restart: \"at\" must be a string");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(ack, "id")));
    cJSON_Delete(ack);
    /* still run 0, ticking on */
    for (int i = 0; i < 5; i++) {
        cJSON *t = ts_expect_topic(s.obs, "sim.tick", 3000, NULL, 0);
        assert_non_null(t);
        assert_int_equal(cJSON_GetObjectItem(t, "run")->valueint, 0);
        cJSON_Delete(t);
    }
    /* simctl send refuses it before it reaches the bus */
    char out[2048];
    const char *send[] = {"send", "control.restart", "{\"at\":42}", "--bus", s.bus, NULL};
    assert_int_equal(ts_run("simctl", send, out, sizeof out), 2);
    assert_non_null(strstr(out, "restart: \"at\" must be a string"));
    session_stop(&s);
}

/* The reply waits for every module that declared the command and no longer; one that
 * declared and stays silent is named; a refusal beside an acceptance is not "ok". */
static void reply_lists_acted_refused_and_silent(void **state)
{
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, ack_wait_args));
    ts_conn *lamp = ts_join(d.port, "lamp", "[\"control.\"]", "\"acts_on\":[\"light\"]");
    ts_conn *mute = ts_join(d.port, "mute", "[\"control.\"]", "\"acts_on\":[\"light\",\"sound\"]");
    assert_non_null(lamp);
    assert_non_null(mute);
    /* an unknown command in acts_on is refused at hello */
    ts_conn *bad = ts_connect(d.port);
    ts_send_line(bad, "{\"topic\":\"hello\",\"name\":\"bad\",\"acts_on\":[\"fly\"]}");
    cJSON *e = ts_expect_topic(bad, "dispatcher.error", 2000, NULL, 0);
    assert_non_null(e);
    assert_non_null(strstr(cJSON_GetObjectItem(e, "error")->valuestring, "acts_on"));
    cJSON_Delete(e);
    ts_close(bad);

    /* simctl runs beside the test, which answers for the modules meanwhile */
    char cmdline[512];
    snprintf(cmdline, sizeof cmdline, "'%s' light night --control '%s' 2>&1", ts_bin("simctl"), d.control_url);
    double t0 = ts_now_ms();
    FILE *p = popen(cmdline, "r");
    cJSON *m = ts_expect_topic(lamp, "control.light", 3000, NULL, 0);
    assert_non_null(m);
    char ackline[256];
    snprintf(ackline, sizeof ackline, "{\"topic\":\"control.ack\",\"cmd\":\"light\",\"id\":%.0f,\"ok\":true}",
             cJSON_GetObjectItem(m, "id")->valuedouble);
    cJSON_Delete(m);
    ts_send_line(lamp, ackline);
    char out[4096];
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    double waited = ts_now_ms() - t0;
    assert_int_equal(WEXITSTATUS(st), 1);
    assert_non_null(strstr(out, "light: done by lamp"));
    assert_non_null(strstr(out, "light: NO ANSWER from mute"));
    assert_true(waited >= atoi(TEST_ACK_WAIT_MS)); /* the whole wait was given to mute */
    m = ts_expect_topic(mute, "control.light", 3000, NULL, 0); /* the one it let pass */
    assert_non_null(m);
    cJSON_Delete(m);

    /* mute answers too, with a refusal: the reply comes as soon as both answered */
    p = popen(cmdline, "r");
    m = ts_expect_topic(mute, "control.light", 3000, NULL, 0);
    assert_non_null(m);
    double id = cJSON_GetObjectItem(m, "id")->valuedouble;
    cJSON_Delete(m);
    snprintf(ackline, sizeof ackline,
             "{\"topic\":\"control.ack\",\"cmd\":\"light\",\"id\":\"%.0f\",\"ok\":false,\"error\":\"no lamp here\"}", id);
    ts_send_line(mute, ackline);
    snprintf(ackline, sizeof ackline, "{\"topic\":\"control.ack\",\"cmd\":\"light\",\"id\":\"%.0f\",\"ok\":true,\"error\":null}", id);
    ts_send_line(lamp, ackline);
    got = fread(out, 1, sizeof out - 1, p);
    out[got] = '\0';
    st = pclose(p);
    assert_int_equal(WEXITSTATUS(st), 1);
    assert_non_null(strstr(out, "light: done by lamp"));
    assert_non_null(strstr(out, "light: REFUSED by mute: no lamp here"));
    assert_null(strstr(out, "NO ANSWER"));
    ts_close(lamp);
    ts_close(mute);
    ts_dispatcher_stop(&d);
}

/* simctl send stamps the dispatcher's latest simulation time, not 0. */
static void send_stamps_simulation_time(void **state)
{
    session s;
    session_start(&s);
    ts_conn *x = ts_join(s.d.port, "x", "[\"x.\",\"sim.tick\"]", NULL);
    double t = 0;
    while (t < 0.2) {
        cJSON *tick = ts_expect_topic(x, "sim.tick", 3000, NULL, 0);
        assert_non_null(tick);
        t = cJSON_GetObjectItem(tick, "t")->valuedouble;
        cJSON_Delete(tick);
    }
    char out[1024];
    const char *send[] = {"send", "x.mark", "{\"v\":1}", "--bus", s.bus, NULL};
    assert_int_equal(ts_run("simctl", send, out, sizeof out), 0);
    cJSON *m = ts_expect_topic(x, "x.mark", 3000, NULL, 0);
    assert_non_null(m);
    assert_true(cJSON_GetObjectItem(m, "t")->valuedouble >= t);
    cJSON_Delete(m);
    ts_close(x);
    session_stop(&s);
}

static void tap_without_dispatcher_or_with_wrong_token_fails(void **state)
{
    char bus[64], out[2048];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    const char *tap[] = {"tap", "--bus", bus, NULL};
    assert_int_equal(ts_run("simctl", tap, out, sizeof out), 1);
    assert_non_null(strstr(out, "no dispatcher answered at 127.0.0.1:"));

    ts_dispatcher d;
    const char *extra[] = {"--token", "s3cret", NULL};
    assert_true(ts_dispatcher_start(&d, extra));
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    const char *tap2[] = {"tap", "--bus", bus, "--token", "wrong", NULL};
    assert_int_equal(ts_run("simctl", tap2, out, sizeof out), 1);
    assert_non_null(strstr(out, "wrong token"));
    const char *pause[] = {"pause", "--control", d.control_url, "--token", "wrong", NULL};
    assert_int_equal(ts_run("simctl", pause, out, sizeof out), 1);
    assert_non_null(strstr(out, "wrong token"));
    ts_dispatcher_stop(&d);
}

/* The module names in the reply line "CMD: done by NAME" of out, sorted, joined by
 * commas into buf. */
static const char *done_by(const char *out, const char *cmd, char *buf, size_t size)
{
    char names[8][32];
    int n = 0;
    char key[48];
    snprintf(key, sizeof key, "%s: done by ", cmd);
    for (const char *p = strstr(out, key); p && n < 8; p = strstr(p + 1, key)) {
        p += strlen(key);
        snprintf(names[n++], sizeof names[0], "%.*s", (int)strcspn(p, "\n"), p);
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char t[32];
                memcpy(t, names[i], 32);
                memcpy(names[i], names[j], 32);
                memcpy(names[j], t, 32);
            }
    buf[0] = 0;
    for (int i = 0; i < n; i++) snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "", names[i]);
    return buf;
}

/* Every command of docs/protocol.md's table, in a session of physics, the scripted
 * driver, sound-node and render-node (offscreen): each is acted on and acknowledged
 * by exactly the modules the table names; traffic, whose node this session does not
 * start (test_traffic_node covers it), gets the honest refusal. The scripted driver keeps the operator's speed limit. */
static void every_command_is_answered_by_its_owners(void **state)
{
    char dir[64], audio[128];
    assert_true(ta_disk_audio(dir, sizeof dir, audio, sizeof audio));
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, ack_wait_args));
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *obs = ts_join(d.port, "observer", "[\"dispatcher.joined\",\"vehicle.state\"]", NULL);
    const char *sc = ts_root("scenarios/lane-change.json");
    char *phys[] = {"physics-node", "--bus", bus, "--vehicle", (char *)ts_root("vehicles/bmw-318i.json"), "--scenario",
                    (char *)sc, "--lockstep", "--wait-for", "input", NULL};
    char *input[] = {"input-node", "--bus", bus, "--driver", "script", "--scenario", (char *)sc, "--lockstep", NULL};
    char *sound[] = {"sound-node", "--bus", bus, "--scenario", (char *)sc, NULL};
    /* Mesa's driver leaks a little at exit under ASan (see test_render_node.c) */
    ts_children_without_leak_detection();
    char *render[] = {"render-node", "--bus", bus, "--scenario", (char *)sc, "--offscreen", "--size", "160x90", NULL};
    pid_t pids[4] = {ts_spawn(phys, false), ts_spawn(input, false), ts_spawn(sound, false), ts_spawn(render, false)};
    for (int joined = 0; joined < 4;) {
        cJSON *j = ts_expect_topic(obs, "dispatcher.joined", 20000, NULL, 0);
        assert_non_null(j);
        const char *name = cJSON_GetObjectItem(j, "name")->valuestring;
        joined += !strcmp(name, "physics") || !strcmp(name, "input") || !strcmp(name, "sound") || !strcmp(name, "render");
        cJSON_Delete(j);
    }
    static const struct {
        const char *a1, *a2;
        int status;
        const char *acted, *says;
    } table[] = {
        {"speed-limit", "30", 0, "input,render", NULL},
        {"pause", NULL, 0, "input,physics,render,sound", NULL}, /* render: the PAUSED panel */
        {"resume", NULL, 0, "input,physics,sound", NULL},
        {"sound", "off", 0, "sound", NULL},
        {"sound", "on", 0, "sound", NULL},
        {"restart", "start", 0, "input,physics", NULL},
        {"restart", "nowhere", 1, "", "REFUSED by physics"},
        {"seek", "3", 1, "", "REFUSED by physics: a live session cannot jump in time"},
        {"hud", "Left lane please", 0, "render", NULL},
        {"light", "night", 0, "render", NULL},
        {"light", "noon", 1, "", "\"day\", \"dusk\" or \"night\""},
        {"traffic", "freeze", 1, "", "no module acts on traffic"},
    };
    char out[4096], names[256];
    /* render-node joins the bus before its first frame (GL set-up, terrain): wait
     * until it answers at all, with a deadline */
    const char *clear[] = {"hud", "", "--control", d.control_url, NULL};
    double deadline = ts_now_ms() + 30000;
    while (ts_run("simctl", clear, out, sizeof out) != 0 && ts_now_ms() < deadline) {
    }
    assert_non_null(strstr(out, "hud: done by render"));
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const char *args[] = {table[i].a1, table[i].a2 ? table[i].a2 : "--control", table[i].a2 ? "--control" : d.control_url,
                              table[i].a2 ? d.control_url : NULL, NULL};
        int st = ts_run("simctl", args, out, sizeof out);
        if (st != table[i].status || strcmp(done_by(out, strcmp(table[i].a1, "speed-limit") ? table[i].a1 : "speed_limit",
                                                    names, sizeof names), table[i].acted) ||
            (table[i].says && !strstr(out, table[i].says)))
            fail_msg("simctl %s %s: status %d, done by '%s', expected %d, '%s' (%s); output:\n%s", table[i].a1,
                     table[i].a2 ? table[i].a2 : "", st, names, table[i].status, table[i].acted,
                     table[i].says ? table[i].says : "", out);
    }
    /* The restart began a new run, a fresh start: the operator's 30 km/h went with it
     * (docs/render.md, issue 22: overrides no longer outlive a restart), so after 20 s
     * the scripted driver holds the road's 60 km/h. */
    double t0 = -1, prev = -1, vmax = 0, v = 0;
    for (;;) {
        cJSON *m = ts_expect_topic(obs, "vehicle.state", 10000, NULL, 0);
        assert_non_null(m);
        double t = cJSON_GetObjectItem(m, "t")->valuedouble;
        v = cJSON_GetObjectItem(m, "speed")->valuedouble * 3.6;
        cJSON_Delete(m);
        if (t0 < 0 || t < prev) t0 = t, vmax = 0; /* from here, or from the new run */
        prev = t;
        if (t > t0 + 15 && v > vmax) vmax = v;
        if (t >= t0 + 30) break;
    }
    assert_true(fabs(v - 60) < 2);
    assert_true(vmax < 62);

    /* paused first, so that a loaded machine's lockstep backlog is not in the way */
    const char *pause[] = {"pause", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", pause, out, sizeof out), 0);
    const char *stop[] = {"stop", "--control", d.control_url, NULL};
    int stop_status = ts_run("simctl", stop, out, sizeof out);
    if (stop_status != 0) fail_msg("simctl stop: status %d:\n%s", stop_status, out);
    assert_string_equal(done_by(out, "stop", names, sizeof names), "input,physics,sound");
    for (int i = 0; i < 4; i++) {
        int st = ts_stop(pids[i], 0, 5000);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    ts_close(obs);
    ts_dispatcher_stop(&d);
    unlink(audio);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(physics_acts_and_refuses_with_reasons),
        cmocka_unit_test(bus_commands_are_validated_by_the_module),
        cmocka_unit_test(reply_lists_acted_refused_and_silent),
        cmocka_unit_test(send_stamps_simulation_time),
        cmocka_unit_test(tap_without_dispatcher_or_with_wrong_token_fails),
        cmocka_unit_test(every_command_is_answered_by_its_owners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
