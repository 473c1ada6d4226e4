/* Unit tests of sim_msg_hmi: hmi.touch and surt.response encoded byte for byte, decoded
 * back, and every missing or bad field named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg.h"
#include "sim_msg_hmi.h"

static void expect_json(cJSON *o, const char *want)
{
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, want);
    free(s);
    cJSON_Delete(o);
}

static void encode_bytes(void **state)
{
    (void)state;
    sim_msg_surt_response r = {.trial = 3, .correct = false, .rt_ms = 1234.5, .level = "hard", .target = 2, .chosen = 0};
    expect_json(sim_msg_surt_response_encode(&r),
                "{\"trial\":3,\"correct\":false,\"rt_ms\":1234.5,\"level\":\"hard\",\"target\":2,\"chosen\":0}");
    sim_msg_hmi_touch t = {.page = "centre", .target = "nav.home", .x = 120, .y = NAN};
    expect_json(sim_msg_hmi_touch_encode(&t), "{\"page\":\"centre\",\"target\":\"nav.home\",\"x\":120}");
}

static void round_trip(void **state)
{
    (void)state;
    cJSON *msg = cJSON_Parse("{\"topic\":\"surt.response\",\"src\":\"surt\",\"seq\":1,\"t\":12.25,"
                             "\"trial\":1,\"correct\":true,\"rt_ms\":812,\"level\":\"easy\",\"target\":1,\"chosen\":1}");
    sim_msg_surt_response r;
    sim_error err = {0};
    assert_int_equal(sim_msg_surt_response_decode(msg, &r, &err), 0);
    assert_int_equal(r.trial, 1);
    assert_true(r.correct);
    assert_true(r.rt_ms == 812);
    assert_string_equal(r.level, "easy");
    assert_int_equal(r.chosen, 1);
    cJSON_Delete(msg);
    msg = cJSON_Parse("{\"trial\":2,\"correct\":false,\"rt_ms\":0,\"level\":\"hard\"}");
    assert_int_equal(sim_msg_surt_response_decode(msg, &r, &err), 0);
    assert_int_equal(r.target, SIM_MSG_NO_INT);
    cJSON_Delete(msg);
}

static void bad_fields_named(void **state)
{
    (void)state;
    static const struct { const char *json, *needle; } cases[] = {
        {"{\"correct\":true,\"rt_ms\":1,\"level\":\"easy\"}", "surt.response: trial: missing"},
        {"{\"trial\":0,\"correct\":true,\"rt_ms\":1,\"level\":\"easy\"}", "trial: found 0"},
        {"{\"trial\":1,\"rt_ms\":1,\"level\":\"easy\"}", "correct: missing"},
        {"{\"trial\":1,\"correct\":1,\"rt_ms\":1,\"level\":\"easy\"}", "correct"},
        {"{\"trial\":1,\"correct\":true,\"rt_ms\":-5,\"level\":\"easy\"}", "rt_ms: found -5"},
        {"{\"trial\":1,\"correct\":true,\"rt_ms\":5,\"level\":\"medium\"}", "level: found \"medium\", expected \"easy\" or \"hard\""},
        {"{\"trial\":1,\"correct\":true,\"rt_ms\":5}", "level: missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *msg = cJSON_Parse(cases[i].json);
        sim_msg_surt_response r;
        sim_error err = {0};
        assert_int_not_equal(sim_msg_surt_response_decode(msg, &r, &err), 0);
        if (!strstr(err.msg, cases[i].needle)) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].json, err.msg, cases[i].needle);
        cJSON_Delete(msg);
    }
    cJSON *msg = cJSON_Parse("{\"page\":\"centre\"}");
    sim_msg_hmi_touch t;
    sim_error err = {0};
    assert_int_not_equal(sim_msg_hmi_touch_decode(msg, &t, &err), 0);
    assert_non_null(strstr(err.msg, "hmi.touch: target: missing"));
    cJSON_Delete(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_bytes),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(bad_fields_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
