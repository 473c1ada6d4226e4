/* Unit tests of the dispatcher's rules and queues without a socket (dispatcher/route.c,
 * dispatcher/queue.c): hello validation, which lines a connection may send,
 * subscription and state-topic matching, reference counts and the backlog bound. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "route.h"
#include "sim_error.h"
#include "sim_topics.h"

static route_verdict hello(const char *line, const char *token, route_hello *out, const char **why)
{
    return route_hello_parse(line, strlen(line), token, NULL, out, why);
}

static void expect_refused(const char *line, const char *token, route_verdict v, const char *why_expected)
{
    route_hello h;
    const char *why = NULL;
    assert_int_equal(hello(line, token, &h, &why), v);
    assert_non_null(why);
    assert_string_equal(why, why_expected);
    assert_null(h.subs);
}

static void hello_accepted_fields(void **state)
{
    route_hello h;
    const char *why = "x";
    assert_int_equal(hello("{\"topic\":\"hello\",\"name\":\"physics\",\"subscribe\":[\"input.\",\"sim.\"],"
                           "\"lockstep\":true}",
                           NULL, &h, &why),
                     ROUTE_OK);
    assert_null(why);
    assert_string_equal(h.name, "physics");
    assert_false(h.all);
    assert_int_equal(h.n_subs, 2);
    assert_string_equal(h.subs[0], "input.");
    assert_string_equal(h.subs[1], "sim.");
    assert_true(h.lockstep);
    assert_false(h.durable);
    route_hello_free(&h);

    /* No "subscribe": everything. */
    assert_int_equal(hello("{\"topic\":\"hello\",\"name\":\"tap\",\"durable\":true}", NULL, &h, &why), ROUTE_OK);
    assert_true(h.all);
    assert_int_equal(h.n_subs, 0);
    assert_true(h.durable);
    route_hello_free(&h);

    /* An empty list subscribes to nothing, which is not "all". */
    assert_int_equal(hello("{\"topic\":\"hello\",\"name\":\"quiet\",\"subscribe\":[]}", NULL, &h, &why), ROUTE_OK);
    assert_false(h.all);
    assert_int_equal(h.n_subs, 0);
    route_hello_free(&h);
}

/* "acts_on": operator commands only (not status), kept so that the endpoint knows
 * whom to wait for; a name is matched whole (speed_limit is not "limit"). */
static void hello_acts_on(void **state)
{
    route_hello h;
    const char *why = "x";
    assert_int_equal(hello("{\"topic\":\"hello\",\"name\":\"physics\",\"acts_on\":[\"pause\",\"speed_limit\"]}",
                           NULL, &h, &why), ROUTE_OK);
    assert_string_equal(h.acts_on, ",pause,speed_limit,");
    assert_true(route_acts_on(h.acts_on, "pause"));
    assert_true(route_acts_on(h.acts_on, "speed_limit"));
    assert_false(route_acts_on(h.acts_on, "limit"));
    assert_false(route_acts_on(h.acts_on, "resume"));
    assert_false(route_acts_on("", "pause"));
    route_hello_free(&h);
    expect_refused("{\"topic\":\"hello\",\"name\":\"x\",\"acts_on\":[\"fly\"]}", NULL, ROUTE_REFUSED,
                   "hello: every \"acts_on\" entry must name an operator command (docs/protocol.md)");
    expect_refused("{\"topic\":\"hello\",\"name\":\"x\",\"acts_on\":[\"status\"]}", NULL, ROUTE_REFUSED,
                   "hello: every \"acts_on\" entry must name an operator command (docs/protocol.md)");
    expect_refused("{\"topic\":\"hello\",\"name\":\"x\",\"acts_on\":\"pause\"}", NULL, ROUTE_REFUSED,
                   "hello: \"acts_on\" must be an array of command names");
}

static void hello_name_rules(void **state)
{
    const char *msg = "hello: \"name\" must be a string of 1 to 64 bytes";
    expect_refused("{\"topic\":\"hello\"}", NULL, ROUTE_REFUSED, msg);
    expect_refused("{\"topic\":\"hello\",\"name\":\"\"}", NULL, ROUTE_REFUSED, msg);
    expect_refused("{\"topic\":\"hello\",\"name\":7}", NULL, ROUTE_REFUSED, msg);
    char line[256];
    char name[66];
    memset(name, 'a', 65);
    name[65] = '\0';
    snprintf(line, sizeof line, "{\"topic\":\"hello\",\"name\":\"%s\"}", name);
    expect_refused(line, NULL, ROUTE_REFUSED, msg);
    name[64] = '\0'; /* exactly 64 bytes: allowed */
    snprintf(line, sizeof line, "{\"topic\":\"hello\",\"name\":\"%s\"}", name);
    route_hello h;
    const char *why;
    assert_int_equal(hello(line, NULL, &h, &why), ROUTE_OK);
    assert_int_equal(strlen(h.name), 64);
    route_hello_free(&h);
    expect_refused("{\"topic\":\"hello\",\"name\":\"a\\u0000b\"}", NULL, ROUTE_REFUSED,
                   "hello: strings must not contain \\u0000");
}

static void hello_subscribe_and_flags(void **state)
{
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\",\"subscribe\":\"sim.\"}", NULL, ROUTE_REFUSED,
                   "hello: \"subscribe\" must be an array of topic prefixes (strings)");
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\",\"subscribe\":[\"a\",3]}", NULL, ROUTE_REFUSED,
                   "hello: every \"subscribe\" entry must be a string of at most 256 bytes");
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\",\"lockstep\":1}", NULL, ROUTE_REFUSED,
                   "hello: \"lockstep\" and \"durable\" must be true or false");
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\",\"durable\":\"yes\"}", NULL, ROUTE_REFUSED,
                   "hello: \"lockstep\" and \"durable\" must be true or false");
    /* 65 prefixes: one too many. */
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "{\"topic\":\"hello\",\"name\":\"m\",\"subscribe\":[");
    for (int i = 0; i < 65; i++) n += (size_t)snprintf(line + n, sizeof line - n, "%s\"p%d\"", i ? "," : "", i);
    snprintf(line + n, sizeof line - n, "]}");
    expect_refused(line, NULL, ROUTE_REFUSED, "hello: \"subscribe\" has more than 64 prefixes");
    /* A prefix of 257 bytes. */
    char big[300];
    memset(big, 'x', 257);
    big[257] = '\0';
    snprintf(line, sizeof line, "{\"topic\":\"hello\",\"name\":\"m\",\"subscribe\":[\"%s\"]}", big);
    expect_refused(line, NULL, ROUTE_REFUSED,
                   "hello: every \"subscribe\" entry must be a string of at most 256 bytes");
}

static void hello_token(void **state)
{
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\"}", "s3cret", ROUTE_REFUSED_CLOSE,
                   "hello: this dispatcher requires a \"token\"");
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\",\"token\":\"s3cre\"}", "s3cret", ROUTE_REFUSED_CLOSE,
                   "hello: wrong token");
    expect_refused("{\"topic\":\"hello\",\"name\":\"m\",\"token\":1}", "s3cret", ROUTE_REFUSED_CLOSE,
                   "hello: wrong token");
    /* The token is checked before the name: a stranger learns nothing else. */
    expect_refused("{\"topic\":\"hello\",\"token\":\"no\"}", "s3cret", ROUTE_REFUSED_CLOSE, "hello: wrong token");
    route_hello h;
    const char *why;
    assert_int_equal(hello("{\"topic\":\"hello\",\"name\":\"m\",\"token\":\"s3cret\"}", "s3cret", &h, &why), ROUTE_OK);
    route_hello_free(&h);
}

static void line_rules(void **state)
{
    const char *why;
    assert_int_equal(route_classify("hello", false, &why), ROUTE_LINE_HELLO);
    assert_null(why);
    assert_int_equal(route_classify("vehicle.state", false, &why), ROUTE_LINE_REFUSE);
    assert_string_equal(why, "the first message must be {\"topic\":\"hello\",\"name\":...}; line dropped");
    assert_int_equal(route_classify("hello", true, &why), ROUTE_LINE_REFUSE);
    assert_string_equal(why, "hello was already said on this connection; line dropped");
    assert_int_equal(route_classify("dispatcher.joined", true, &why), ROUTE_LINE_REFUSE);
    assert_string_equal(why, "topics beginning with \"dispatcher.\" are reserved for the dispatcher; line dropped");
    assert_int_equal(route_classify("dispatcher", true, &why), ROUTE_LINE_FORWARD);
    assert_int_equal(route_classify("vehicle.state", true, &why), ROUTE_LINE_FORWARD);
    assert_true(route_is_error_topic("log.error"));
    assert_false(route_is_error_topic(".error"));
    assert_false(route_is_error_topic("log.errors"));
}

static void subscriptions_are_prefixes(void **state)
{
    char *subs[] = {"vehicle.", "sim.tick"};
    assert_true(route_subs_match(subs, 2, false, "vehicle.state"));
    assert_true(route_subs_match(subs, 2, false, "sim.tick"));
    assert_true(route_subs_match(subs, 2, false, "sim.ticks")); /* a prefix, not a topic */
    assert_false(route_subs_match(subs, 2, false, "sim.pause"));
    assert_false(route_subs_match(subs, 2, false, "vehicle"));
    assert_false(route_subs_match(subs, 0, false, "vehicle.state"));
    assert_true(route_subs_match(NULL, 0, true, "anything"));
    char **copy = route_subs_copy(subs, 2);
    assert_non_null(copy);
    assert_ptr_not_equal(copy[0], subs[0]);
    assert_string_equal(copy[1], "sim.tick");
    route_subs_free(copy, 2);
    assert_null(route_subs_copy(subs, 0));
}

static void state_patterns(void **state)
{
    route_patterns pt;
    assert_int_equal(route_patterns_parse("*.state,,sim.tick,traffic.*", &pt), SIM_OK);
    assert_int_equal(pt.n, 3);
    assert_true(route_patterns_match(&pt, "vehicle.state"));
    assert_true(route_patterns_match(&pt, ".state"));
    assert_false(route_patterns_match(&pt, "vehicle.states"));
    assert_true(route_patterns_match(&pt, "sim.tick"));
    assert_false(route_patterns_match(&pt, "sim.tick2"));
    assert_true(route_patterns_match(&pt, "traffic.event"));
    assert_false(route_patterns_match(&pt, "traffic"));
    route_patterns_free(&pt);
    /* At most 16 patterns are kept. */
    char csv[256] = "";
    for (int i = 0; i < 20; i++) snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "t%d,", i);
    assert_int_equal(route_patterns_parse(csv, &pt), SIM_OK);
    assert_int_equal(pt.n, ROUTE_MAX_STATE_PATTERNS);
    assert_true(route_patterns_match(&pt, "t15"));
    assert_false(route_patterns_match(&pt, "t16"));
    route_patterns_free(&pt);
}

static void queue_references(void **state)
{
    msgbuf *m = msg_new("{\"topic\":\"a\"}", 13, "a", false);
    assert_non_null(m);
    assert_int_equal(m->len, 14); /* newline appended */
    assert_int_equal(m->data[13], '\n');
    assert_string_equal(m->topic, "a");
    msgvec q1 = {0}, q2 = {0};
    assert_int_equal(msgvec_push(&q1, m), SIM_OK);
    assert_int_equal(msgvec_push(&q2, m), SIM_OK);
    assert_int_equal(m->refs, 3);
    msg_unref(m); /* the sender's reference */
    assert_int_equal(msgvec_count(&q1), 1);
    assert_int_equal(q1.bytes, 14);
    msgbuf *p = msgvec_pop(&q1);
    assert_ptr_equal(p, m);
    assert_int_equal(q1.bytes, 0);
    assert_null(msgvec_pop(&q1));
    msg_unref(p);
    assert_int_equal(m->refs, 1); /* q2's */
    msgvec_clear(&q2);            /* frees m (ASan checks it) */
    msgvec_clear(&q1);
}

static void queue_fifo_across_growth(void **state)
{
    msgvec q = {0};
    msgbuf *m[40];
    for (int i = 0; i < 40; i++) {
        char line[16];
        int n = snprintf(line, sizeof line, "%d", i);
        m[i] = msg_new(line, (size_t)n, "t", false);
        assert_int_equal(msgvec_push(&q, m[i]), SIM_OK);
        msg_unref(m[i]);
        if (i % 3 == 2) { /* consume some on the way: the front is reused */
            msgbuf *p = msgvec_pop(&q);
            msg_unref(p);
        }
    }
    /* 13 popped (i = 2, 5, ..., 38): 27 left, the oldest being message 13. */
    assert_int_equal(msgvec_count(&q), 27);
    msgbuf *p = msgvec_pop(&q);
    assert_memory_equal(p->data, "13\n", 3);
    msg_unref(p);
    msgvec_clear(&q);
}

static void backlog_keeps_the_newest(void **state)
{
    char *subs[] = {"sim."};
    backlog *b = backlog_new("recorder", subs, 1, false);
    assert_non_null(b);
    assert_string_equal(b->name, "recorder");
    assert_string_equal(b->subs[0], "sim.");
    /* Each message is 9 bytes with its newline; a limit of 35 keeps three (27). */
    for (int i = 0; i < 5; i++) {
        char line[24]; /* room for any int: -Wformat-truncation at -O1 */
        snprintf(line, sizeof line, "message%d", i);
        msgbuf *m = msg_new(line, 8, "sim.tick", true);
        backlog_add(b, m, 35);
        msg_unref(m);
    }
    assert_int_equal(msgvec_count(&b->q), 3);
    assert_int_equal(b->dropped, 2);
    assert_int_equal(b->q.bytes, 27);
    msgbuf *first = msgvec_pop(&b->q);
    assert_memory_equal(first->data, "message2\n", 9);
    msg_unref(first);
    /* One message larger than the limit is still kept: never lose the newest. */
    msgbuf *big = msg_new("0123456789012345678901234567890123456789", 40, "sim.tick", true);
    backlog_add(b, big, 35);
    msg_unref(big);
    assert_int_equal(msgvec_count(&b->q), 1);
    assert_int_equal(b->dropped, 4);
    backlog_free(b);
}

/* The ownership rules as route.c spelled them before sim_topics.def: the table must
 * give every topic the same family and every family the same words. */
static bool old_is_prefix(const char *topic, const char *prefix)
{
    return strncmp(topic, prefix, strlen(prefix)) == 0;
}

static route_family old_topic_family(const char *topic)
{
    if (strcmp(topic, "sim.end") == 0) return ROUTE_FAMILY_END;
    if ((old_is_prefix(topic, "sim.") && strcmp(topic, "sim.ack") != 0) || strcmp(topic, "vehicle.state") == 0 ||
        strcmp(topic, "vehicle.early.state") == 0 || strcmp(topic, "ffb.command") == 0)
        return ROUTE_FAMILY_CLOCK;
    if (strcmp(topic, "traffic.state") == 0 || strcmp(topic, "traffic.event") == 0 ||
        strcmp(topic, "traffic.collision") == 0 || strcmp(topic, "traffic.ego") == 0 ||
        strcmp(topic, "traffic.engine") == 0 || old_is_prefix(topic, "signal."))
        return ROUTE_FAMILY_TRAFFIC;
    if (strcmp(topic, "input.controls") == 0 || strcmp(topic, "input.button") == 0) return ROUTE_FAMILY_INPUT;
    if (strcmp(topic, "log.status") == 0 || strcmp(topic, "log.error") == 0) return ROUTE_FAMILY_RECORDER;
    if (strcmp(topic, "context.reply") == 0 || strcmp(topic, "context.nearby") == 0 ||
        strcmp(topic, "context.guidance") == 0)
        return ROUTE_FAMILY_CONTEXT;
    if (old_is_prefix(topic, "session.")) return ROUTE_FAMILY_SESSION;
    if (old_is_prefix(topic, "control.") && strcmp(topic, "control.ack") != 0) return ROUTE_FAMILY_CONTROL;
    return ROUTE_FAMILY_NONE;
}

static void families_from_the_topic_table(void **state)
{
    (void)state;
    static const char *const extra[] = {
        "sim.", "sim", "sim.foo", "sim.ticks", "sim.ack.x", "sim.endx", "vehicle.", "vehicle.states", "ffb.",
        "traffic.", "traffic.foo", "signal.", "signal.foo", "signal.red", "input.", "input.axes", "log.",
        "log.errors", "context.", "context.request", "session.", "session.x.y", "sessions", "control.",
        "control.ackx", "control.pause", "control.a.b", "dispatcher.joined", "hud.text", "", ".", "x.sim.tick",
        "odometer.state", "gaze.sample", "sensor.eda", "task.start", "vehicle.collision", "render.latency",
    };
    char buf[300];
    size_t checked = 0;
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const char *name = sim_topics[i].name;
        assert_int_equal(route_topic_family(name), old_topic_family(name));
        for (const char *tail = "x"; tail; tail = strcmp(tail, "x") == 0 ? ".y" : NULL) {
            snprintf(buf, sizeof buf, "%s%s", name, tail);
            assert_int_equal(route_topic_family(buf), old_topic_family(buf));
            checked++;
        }
        snprintf(buf, sizeof buf, "%s", name);
        buf[strlen(buf) - 1] = '\0'; /* one letter short */
        assert_int_equal(route_topic_family(buf), old_topic_family(buf));
        checked += 2;
    }
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
        if (route_topic_family(extra[i]) != old_topic_family(extra[i])) fail_msg("family of '%s'", extra[i]);
        checked++;
    }
    assert_true(checked > 200);
    assert_int_equal(route_topic_family("sim.tick"), ROUTE_FAMILY_CLOCK);
    assert_int_equal(route_topic_family("control.ack"), ROUTE_FAMILY_NONE);
    assert_int_equal(route_topic_family("session.anything"), ROUTE_FAMILY_SESSION);

    static const char *const words[ROUTE_FAMILIES] = {
        "sim.* (but sim.ack and sim.end), vehicle.state, vehicle.early.state and ffb.command",
        "traffic.state, traffic.event, traffic.collision, traffic.ego, traffic.engine and signal.*",
        "input.controls and input.button", "log.status and log.error",
        "context.reply, context.nearby and context.guidance", "session.*", "control.* (but control.ack)", "sim.end"};
    char w[ROUTE_FAMILY_WORDS];
    for (int f = 0; f < ROUTE_FAMILIES; f++) assert_string_equal(route_family_topics(f, w, sizeof w), words[f]);
    assert_string_equal(route_family_topics(ROUTE_FAMILY_NONE, w, sizeof w), "no family");
    char small[12]; /* cut, never overrun */
    assert_string_equal(route_family_topics(ROUTE_FAMILY_CLOCK, small, sizeof small), "sim.* (but ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hello_accepted_fields),
        cmocka_unit_test(hello_name_rules),
        cmocka_unit_test(hello_acts_on),
        cmocka_unit_test(hello_subscribe_and_flags),
        cmocka_unit_test(hello_token),
        cmocka_unit_test(line_rules),
        cmocka_unit_test(subscriptions_are_prefixes),
        cmocka_unit_test(state_patterns),
        cmocka_unit_test(queue_references),
        cmocka_unit_test(queue_fifo_across_growth),
        cmocka_unit_test(backlog_keeps_the_newest),
        cmocka_unit_test(families_from_the_topic_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
