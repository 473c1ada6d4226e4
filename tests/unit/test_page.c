/* Unit tests of sim_page: what the console's gateway makes of a page's messages,
 * line for line: forwarded (src filled, token replaced, whitespace gone), answered by
 * the gateway, or refused with the reason the page is shown. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim_page.h"

static void expect_line(const char *in, const char *name, bool welcomed, const char *token, const char *want)
{
    sim_page_result r;
    sim_error err = {0};
    assert_int_equal(sim_page_check(in, strlen(in), name, welcomed, token, &r, &err), SIM_OK);
    if (r.action != SIM_PAGE_FORWARD) fail_msg("%s: not forwarded (%s)", in, err.msg);
    assert_string_equal(r.line, want);
    sim_page_result_free(&r);
}

static void expect_refused(const char *in, size_t len, const char *name, const char *want)
{
    sim_page_result r;
    sim_error err = {0};
    assert_int_equal(sim_page_check(in, len, name, true, NULL, &r, &err), SIM_OK);
    assert_int_equal(r.action, SIM_PAGE_REFUSED);
    assert_null(r.line);
    assert_null(r.msg);
    if (strcmp(err.msg, want) != 0) fail_msg("got \"%s\", want \"%s\"", err.msg, want);
}

static void forwarded(void **state)
{
    (void)state;
    expect_line("{ \"topic\" : \"hello\", \"name\":\"surt\",\n \"subscribe\":[\"sim.tick\"], \"token\":\"page's\"}", "", false,
                "bus-secret", "{\"topic\":\"hello\",\"name\":\"surt\",\"subscribe\":[\"sim.tick\"],\"token\":\"bus-secret\"}");
    expect_line("{\"topic\":\"hello\",\"name\":\"surt\",\"token\":\"x\"}", "", false, NULL, "{\"topic\":\"hello\",\"name\":\"surt\"}");
    expect_line("{\"topic\":\"log.mark\",\"seq\":1,\"t\":2.5,\"name\":\"m\"}", "console", true, NULL,
                "{\"topic\":\"log.mark\",\"seq\":1,\"t\":2.5,\"name\":\"m\",\"src\":\"console\"}");
    expect_line("{\"topic\":\"log.mark\",\"src\":\"console\",\"name\":\"m\"}", "console", true, NULL,
                "{\"topic\":\"log.mark\",\"src\":\"console\",\"name\":\"m\"}");
    /* before the welcome the dispatcher refuses it (a line before hello): passed on as is */
    expect_line("{\"topic\":\"x\",\"src\":\"physics\"}", "", false, NULL, "{\"topic\":\"x\",\"src\":\"physics\"}");
    sim_page_result r;
    sim_error err = {0};
    const char *hello = "{\"topic\":\"hello\",\"name\":\"hmi\"}";
    assert_int_equal(sim_page_check(hello, strlen(hello), "", false, NULL, &r, &err), SIM_OK);
    assert_true(r.hello);
    assert_string_equal(r.hello_name, "hmi");
    sim_page_result_free(&r);
}

static void for_the_gateway(void **state)
{
    (void)state;
    sim_page_result r;
    sim_error err = {0};
    const char *cmd = "{\"topic\":\"console.command\",\"req\":4,\"cmd\":\"pause\"}";
    assert_int_equal(sim_page_check(cmd, strlen(cmd), "console", true, NULL, &r, &err), SIM_OK);
    assert_int_equal(r.action, SIM_PAGE_COMMAND);
    assert_string_equal(cJSON_GetObjectItem(r.msg, "cmd")->valuestring, "pause");
    assert_null(r.line);
    sim_page_result_free(&r);
    const char *roads = "{\"topic\":\"console.roads\",\"req\":1}";
    assert_int_equal(sim_page_check(roads, strlen(roads), "", false, NULL, &r, &err), SIM_OK);
    assert_int_equal(r.action, SIM_PAGE_ROADS);
    sim_page_result_free(&r);
}

static void refused(void **state)
{
    (void)state;
    expect_refused("not JSON", 8, "p", "frame refused: not JSON (expected one JSON object per frame)");
    expect_refused("[1,2]", 5, "p", "frame refused: expected a JSON object with a non-empty string \"topic\"");
    expect_refused("{\"topic\":\"\"}", 12, "p", "frame refused: expected a JSON object with a non-empty string \"topic\"");
    expect_refused("{\"topic\":7}", 11, "p", "frame refused: expected a JSON object with a non-empty string \"topic\"");
    const char *forged = "{\"topic\":\"log.mark\",\"src\":\"physics\"}";
    expect_refused(forged, strlen(forged), "surt", "frame refused: src \"physics\" is not this page's name \"surt\"");
    const char *num = "{\"topic\":\"log.mark\",\"src\":3}";
    expect_refused(num, strlen(num), "surt", "frame refused: src is not a string (this page's name is \"surt\")");
    /* what the dispatcher would refuse is refused here, with the bus's own words */
    const char *latin1 = "{\"topic\":\"c\xff" "onsole.command\",\"cmd\":\"pause\"}";
    expect_refused(latin1, strlen(latin1), "surt", "frame refused: refused: invalid UTF-8 in a string (at byte 11)");
    const char *twice = "{\"topic\":\"log.mark\",\"topic\":\"sim.end\"}";
    expect_refused(twice, strlen(twice), "surt", "frame refused: refused: key \"topic\" given twice in one object (at byte 20)");
    const char *other = "{\"topic\":\"console.shutdown\"}";
    expect_refused(other, strlen(other), "surt",
                   "frame refused: unknown gateway request \"console.shutdown\" (expected console.command or console.roads)");
    /* 65536 bytes pass, one more does not: the bus's line limit */
    size_t n = SIM_PAGE_MAX_LINE + 1;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    memcpy(big, "{\"topic\":\"a\",\"x\":\"", 18);
    memcpy(big + n - 2, "\"}", 2);
    memset(big + 18, 'x', n - 20);
    big[n] = '\0';
    expect_refused(big, n, "p", "frame refused: over 65536 bytes (the bus's line limit)");
    sim_page_result r;
    sim_error err = {0};
    big[n - 3] = '"';
    big[n - 2] = '}';
    assert_int_equal(sim_page_check(big, n - 1, "", false, NULL, &r, &err), SIM_OK);
    assert_int_equal(r.action, SIM_PAGE_FORWARD);
    assert_int_equal(strlen(r.line), SIM_PAGE_MAX_LINE);
    sim_page_result_free(&r);
    /* one under the limit, but the src the gateway adds would take it over: refused */
    assert_int_equal(sim_page_check(big, n - 1, "page", true, NULL, &r, &err), SIM_OK);
    assert_int_equal(r.action, SIM_PAGE_REFUSED);
    free(big);
}

/* Each role may send its own topics and context requests; everything else is refused
 * with words naming what it may send (issue 45: page roles). */
static void roles(void **state)
{
    (void)state;
    static const struct {
        sim_page_role role;
        const char *topic;
        bool allowed;
    } cases[] = {
        {SIM_PAGE_ROLE_OPERATOR, "console.command", true}, {SIM_PAGE_ROLE_OPERATOR, "log.mark", true},
        {SIM_PAGE_ROLE_OPERATOR, "study.go", true},        {SIM_PAGE_ROLE_HMI, "hmi.touch", true},
        {SIM_PAGE_ROLE_HMI, "hmi.cluster.swipe", true},    {SIM_PAGE_ROLE_HMI, "hmi.", false},
        {SIM_PAGE_ROLE_HMI, "hmix", false},                {SIM_PAGE_ROLE_HMI, "console.command", false},
        {SIM_PAGE_ROLE_HMI, "study.answer", false},        {SIM_PAGE_ROLE_HMI, "log.mark", false},
        {SIM_PAGE_ROLE_HMI, "context.request", true},      {SIM_PAGE_ROLE_HMI, "console.roads", true},
        {SIM_PAGE_ROLE_SURT, "surt.response", true},       {SIM_PAGE_ROLE_SURT, "surt.responses", false},
        {SIM_PAGE_ROLE_SURT, "hmi.touch", false},          {SIM_PAGE_ROLE_SURT, "console.command", false},
        {SIM_PAGE_ROLE_QUESTIONNAIRE, "study.answer", true}, {SIM_PAGE_ROLE_QUESTIONNAIRE, "study.go", false},
        {SIM_PAGE_ROLE_QUESTIONNAIRE, "console.command", false}, {SIM_PAGE_ROLE_PAGE, "context.request", true},
        {SIM_PAGE_ROLE_PAGE, "hmi.touch", false},          {SIM_PAGE_ROLE_PAGE, "console.command", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_error err = {0};
        int rc = sim_page_role_allows(cases[i].role, cases[i].topic, &err);
        if ((rc == SIM_OK) != cases[i].allowed)
            fail_msg("%s page, %s: %s", sim_page_role_name(cases[i].role), cases[i].topic, rc ? err.msg : "allowed");
    }
    sim_error err = {0};
    assert_int_equal(sim_page_role_allows(SIM_PAGE_ROLE_HMI, "study.answer", &err), SIM_EINVAL);
    assert_string_equal(err.msg, "frame refused: an hmi page may send hmi.* and context requests, not \"study.answer\"");
    assert_int_equal(sim_page_role_allows(SIM_PAGE_ROLE_QUESTIONNAIRE, "console.command", &err), SIM_EINVAL);
    assert_string_equal(err.msg, "console.command: refused: operator commands come only from the console's operator "
                                 "page (/), which holds its cookie; this is a questionnaire page");
    sim_page_role role = SIM_PAGE_ROLE_PAGE;
    assert_int_equal(sim_page_role_parse("surt", &role, &err), SIM_OK);
    assert_int_equal(role, SIM_PAGE_ROLE_SURT);
    assert_int_equal(sim_page_role_parse("page", &role, &err), SIM_EINVAL); /* only by naming none */
    assert_int_equal(sim_page_role_parse("Operator", &role, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "unknown role \"Operator\" (expected operator, hmi, surt or questionnaire)");
    /* the topic the gateway checks is the message's */
    sim_page_result r;
    const char *msg = "{\"topic\":\"hmi.touch\",\"x\":1}";
    assert_int_equal(sim_page_check(msg, strlen(msg), "hmi", true, NULL, &r, &err), SIM_OK);
    assert_string_equal(r.topic, "hmi.touch");
    sim_page_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forwarded),
        cmocka_unit_test(for_the_gateway),
        cmocka_unit_test(refused),
        cmocka_unit_test(roles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
