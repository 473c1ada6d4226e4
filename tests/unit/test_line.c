/* Unit tests of the bus framing (sim_linebuf), the header check (sim_msg_parse and
 * the dispatcher's scanner sim_msg_scan) and the control command validation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_command.h"
#include "sim_line.h"
#include "sim_net.h"

typedef struct {
    char lines[8][128];
    int n;
} collected;

static int collect(const char *line, size_t len, void *user)
{
    collected *c = user;
    snprintf(c->lines[c->n++], sizeof c->lines[0], "%.*s", (int)len, line);
    return 0;
}

static void framing_across_reads_and_line_ends(void **state)
{
    sim_linebuf lb;
    assert_int_equal(sim_linebuf_init(&lb, 16), SIM_OK);
    collected c = {0};
    const char *input = "ab\ncd\r\n\n\r\nefgh";
    /* Feed one byte at a time: the same lines must come out as from one read. */
    for (size_t i = 0; i < strlen(input); i++) assert_int_equal(sim_linebuf_feed(&lb, input + i, 1, collect, &c), SIM_LINE_OK);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.lines[0], "ab");
    assert_string_equal(c.lines[1], "cd");
    assert_int_equal(sim_linebuf_feed(&lb, "ij\n", 3, collect, &c), SIM_LINE_OK);
    assert_string_equal(c.lines[2], "efghij");
    sim_linebuf_free(&lb);
}

static void framing_limit_is_exact(void **state)
{
    sim_linebuf lb;
    sim_linebuf_init(&lb, 8);
    collected c = {0};
    /* 8 bytes plus CR LF: allowed (the \r is not part of the line). */
    assert_int_equal(sim_linebuf_feed(&lb, "12345678\r\n", 10, collect, &c), SIM_LINE_OK);
    assert_string_equal(c.lines[0], "12345678");
    assert_int_equal(sim_linebuf_feed(&lb, "1234", 4, collect, &c), SIM_LINE_OK);
    assert_int_equal(sim_linebuf_feed(&lb, "56789", 5, collect, &c), SIM_LINE_TOO_LONG);
    assert_int_equal(c.n, 1);
    sim_linebuf_free(&lb);
}

static void expect_scan(const char *line, int rc, const char *topic_or_error)
{
    char topic[16];
    double t;
    sim_error err = {0};
    int got = sim_msg_scan(line, strlen(line), topic, sizeof topic, &t, &err);
    assert_int_equal(got, rc);
    if (rc == SIM_OK) assert_string_equal(topic, topic_or_error);
    else assert_string_equal(err.msg, topic_or_error);
}

static void scanner_accepts_and_rejects_like_the_protocol_says(void **state)
{
    expect_scan("{\"topic\":\"a.b\",\"x\":[1,2.5e-3,{\"y\":null}],\"z\":true}", SIM_OK, "a.b");
    expect_scan(" {\"x\":\"}\",\"topic\":\"q\\u00e9\"} ", SIM_OK, "q\xc3\xa9");
    /* Refused since issue 21: a duplicated key routed by the first value arrived as the
     * last in Python clients. */
    expect_scan("{\"topic\":\"first\",\"topic\":\"second\"}", SIM_EINVAL,
                "refused: key \"topic\" given twice in one object (at byte 17)");
    expect_scan("[1,2]", SIM_EINVAL, "a message must be a JSON object");
    expect_scan("nope", SIM_EINVAL, "not valid JSON (at byte 0)");
    expect_scan("{\"x\":1}", SIM_EINVAL, "missing \"topic\" (a string)");
    expect_scan("{\"topic\":7}", SIM_EINVAL, "\"topic\" must be a non-empty string");
    expect_scan("{\"topic\":\"\"}", SIM_EINVAL, "\"topic\" must be a non-empty string");
    expect_scan("{\"topic\":\"0123456789abcdef\"}", SIM_EINVAL, "\"topic\" is longer than 15 bytes");
    expect_scan("{\"topic\":\"a\"}x", SIM_EINVAL, "unexpected data after the JSON value (at byte 13)");
    expect_scan("{\"topic\":\"a\",\"n\":01}", SIM_EINVAL, "not valid JSON: expected ',' or '}' (at byte 18)");
    expect_scan("{\"topic\":\"a\",\"s\":\"\\x\"}", SIM_EINVAL, "not valid JSON: bad escape in a string (at byte 20)");
    expect_scan("{\"topic\":\"a\\u0000b\"}", SIM_EINVAL, "\"topic\" contains a NUL character");
    /* Deep nesting is refused, not recursed into without bound. */
    char deep[600] = "{\"topic\":\"a\",\"x\":";
    for (int i = 0; i < 200; i++) strcat(deep, "[");
    expect_scan(deep, SIM_EINVAL, "not valid JSON: nested too deeply (at byte 145)");
    double t = 0;
    char topic[32];
    const char *tick = "{\"topic\":\"sim.tick\",\"n\":3,\"t\":0.03}";
    assert_int_equal(sim_msg_scan(tick, strlen(tick), topic, sizeof topic, &t, NULL), SIM_OK);
    assert_true(t == 0.03);
    assert_int_equal(sim_msg_scan("{\"topic\":\"x\"}", 13, topic, sizeof topic, &t, NULL), SIM_OK);
    assert_true(isnan(t));
}

/* Regression: "t" was converted with strtod on the line in place, which is not
 * NUL-terminated, so a line ending in a number (or "0x...") was read past its end.
 * The line sits in an allocation of exactly its length (ASan sees an over-read), and
 * the bytes that follow it in a larger buffer must not change the result. */
static void scanner_reads_t_within_the_line(void **state)
{
    const char *cases[] = {"{\"topic\":\"sim.tick\",\"t\":1", "{\"topic\":\"sim.tick\",\"t\":0x1"};
    for (size_t i = 0; i < 2; i++) {
        size_t len = strlen(cases[i]);
        char *exact = malloc(len);
        assert_non_null(exact);
        memcpy(exact, cases[i], len);
        double t = 0;
        char topic[32];
        assert_int_equal(sim_msg_scan(exact, len, topic, sizeof topic, &t, NULL), SIM_EINVAL);
        assert_true(isnan(t));
        free(exact);
    }
    /* A valid line followed by digits in the same buffer: t is the line's own 2.5. */
    const char *buf = "{\"topic\":\"sim.tick\",\"t\":2.5}99";
    double t = 0;
    char topic[32];
    assert_int_equal(sim_msg_scan(buf, strlen(buf) - 2, topic, sizeof topic, &t, NULL), SIM_OK);
    assert_true(t == 2.5);
}

/* Each case the protocol refuses (issue 21), by the dispatcher's scanner and by the
 * clients' sim_msg_parse alike, with an error naming it. */
static void expect_both(const char *line, const char *scan_error, const char *parse_error)
{
    expect_scan(line, SIM_EINVAL, scan_error);
    cJSON *msg = NULL;
    const char *topic;
    sim_error err = {0};
    assert_int_not_equal(sim_msg_parse(line, strlen(line), &msg, &topic, &err), SIM_OK);
    assert_null(msg);
    assert_string_equal(err.msg, parse_error);
}

static void refused_lines_are_named(void **state)
{
    expect_both("{\"topic\":\"a\",\"x\":{\"k\":1,\"j\":2,\"k\":3}}",
                "refused: key \"k\" given twice in one object (at byte 30)",
                "x: refused: key \"k\" given twice");
    /* The same key written two ways is the same key. */
    expect_both("{\"topic\":\"a\",\"t\\u0041\":1,\"tA\":2}",
                "refused: key \"tA\" given twice in one object (at byte 25)",
                "(top level): refused: key \"tA\" given twice");
    /* In different objects a key may repeat. */
    expect_scan("{\"topic\":\"a\",\"x\":{\"k\":1},\"y\":{\"k\":2},\"z\":[{\"k\":1},{\"k\":2}]}", SIM_OK, "a");
    expect_both("{\"topic\":\"a\",\"s\":\"caf\xe9\"}", "refused: invalid UTF-8 in a string (at byte 21)",
                "s: refused: a string that is not valid UTF-8");
    expect_both("{\"topic\":\"a\",\"s\":\"\xc0\xaf\"}", "refused: invalid UTF-8 in a string (at byte 18)",
                "s: refused: a string that is not valid UTF-8");
    expect_scan("{\"topic\":\"a\",\"s\":\"\\ud800x\"}", SIM_EINVAL,
                "refused: unpaired UTF-16 surrogate in a \\u escape (at byte 24)");
    expect_scan("{\"topic\":\"a\",\"s\":\"caf\xc3\xa9 \xf0\x9f\x9a\x97 \\ud83d\\ude97\"}", SIM_OK, "a");
    /* cJSON cuts at \u0000, other readers do not: refused in keys and values. */
    expect_scan("{\"topic\":\"a\",\"x\":{\"k\":1,\"k\\u0000\":2}}", SIM_EINVAL,
                "refused: \\u0000 in a string (at byte 32)");
    expect_both("{\"topic\":\"a\",\"t\":1e999}", "refused: number out of range (not a finite double) (at byte 17)",
                "t: refused: a number too large for a double (it reads as infinite)");
    expect_both("{\"topic\":\"a\",\"v\":[1,-1e400]}", "refused: number out of range (not a finite double) (at byte 20)",
                "v[1]: refused: a number too large for a double (it reads as infinite)");
    expect_both("{\"topic\":\"a\",\"t\":-1e308}", "refused: \"t\" is -1e+308, expected a time of at most 1e+09 s in magnitude",
                "refused: \"t\" is -1e+308, expected a time of at most 1e+09 s in magnitude");
    expect_scan("{\"topic\":\"a\",\"t\":1e9,\"big\":1e308}", SIM_OK, "a");
    /* A line made only of keys cannot overflow the key table. */
    static char many[70000];
    size_t n = (size_t)sprintf(many, "{\"topic\":\"a\"");
    for (int i = 0; n < 65000; i++) n += (size_t)sprintf(many + n, ",\"%x\":0", i);
    strcpy(many + n, "}");
    expect_scan(many, SIM_OK, "a");
}

static void expect_control(const char *req, const char *error)
{
    cJSON *out = NULL;
    const char *cmd;
    sim_error err = {0};
    int rc = sim_command_parse(req, strlen(req), &out, &cmd, &err);
    if (!error) {
        assert_int_equal(rc, SIM_OK);
        cJSON_Delete(out);
    } else {
        assert_int_equal(rc, SIM_EINVAL);
        assert_null(out);
        assert_string_equal(err.msg, error);
    }
}

static void control_commands_are_validated(void **state)
{
    expect_control("{\"cmd\":\"pause\"}", NULL);
    expect_control("{\"cmd\":\"restart\",\"at\":\"start\"}", NULL);
    expect_control("{\"cmd\":\"speed_limit\",\"kmh\":0}", NULL);
    expect_control("{\"cmd\":\"traffic\",\"freeze\":false}", NULL);
    expect_control("{\"cmd\":\"sound\",\"on\":true}", NULL);
    expect_control("{\"cmd\":\"restart\",\"at\":\"\"}", "restart: \"at\" must name a start point");
    expect_control("{\"cmd\":\"speed_limit\",\"kmh\":-5}", "speed_limit: \"kmh\" must be a number from 0 (no limit) to 1000");
    expect_control("{\"cmd\":\"traffic\"}", "traffic: give \"density\" (0..1) or \"freeze\" (true/false)");
    expect_control("{\"cmd\":\"traffic\",\"density\":2}", "traffic: \"density\" must be a number from 0 to 1");
    expect_control("{\"cmd\":\"sound\"}", "sound: \"on\" must be true or false (missing)");
    expect_control("{\"cmd\":\"hud\",\"text\":5}", "hud: \"text\" must be a string");
    expect_control("{}", "missing \"cmd\" (a string naming the command)");
    expect_control("{\"cmd\":\"jump\"}", "unknown command \"jump\" (expected pause, resume, restart, speed_limit, "
                                        "hud, traffic, light, sound, stop, status, seek, automation or signal)");
    expect_control("{\"cmd\":\"automation\"}", "automation: give \"mode\", \"set_kmh\", \"gap_s\" or \"tor\"");
    expect_control("{\"cmd\":\"automation\",\"mode\":\"l5\"}",
                   "automation: \"mode\" must be \"manual\", \"acc\", \"lc\", \"l2\" or \"l3\"");
    expect_control("{\"cmd\":\"automation\",\"gap_s\":0.2}", "automation: \"gap_s\" must be a number from 0.8 to 3.0");
    expect_control("[]", "a request must be a JSON object");
}

static void loopback_rule(void **state)
{
    assert_true(sim_net_is_loopback("127.0.0.1"));
    assert_true(sim_net_is_loopback("127.1.2.3"));
    assert_true(sim_net_is_loopback("::1"));
    assert_true(sim_net_is_loopback("localhost"));
    assert_false(sim_net_is_loopback("0.0.0.0"));
    assert_false(sim_net_is_loopback("127.0.0.1.example.com"));
    assert_false(sim_net_is_loopback("10.0.0.1"));
    assert_true(sim_net_url_is_loopback("tcp://127.0.0.1:7701"));
    assert_true(sim_net_url_is_loopback("ipc:///tmp/x"));
    assert_false(sim_net_url_is_loopback("tcp://*:7701"));
    assert_false(sim_net_url_is_loopback("tcp://0.0.0.0:7701"));
    assert_true(sim_net_token_equal("abc", "abc"));
    assert_false(sim_net_token_equal("abc", "abd"));
    assert_false(sim_net_token_equal("abc", "ab"));
    assert_false(sim_net_token_equal("abc", NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(framing_across_reads_and_line_ends),
        cmocka_unit_test(framing_limit_is_exact),
        cmocka_unit_test(scanner_accepts_and_rejects_like_the_protocol_says),
        cmocka_unit_test(scanner_reads_t_within_the_line),
        cmocka_unit_test(refused_lines_are_named),
        cmocka_unit_test(control_commands_are_validated),
        cmocka_unit_test(loopback_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
