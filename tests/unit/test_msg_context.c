/* context.* messages: encodings byte for byte, decode(encode(x)) == x, and every class
 * of bad request refused with an error naming the field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_context.h"

static char *print(cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static void expect_bad(const char *json, const char *msg)
{
    cJSON *m = cJSON_Parse(json);
    assert_non_null(m);
    sim_msg_context_request r;
    sim_error err = {0};
    int rc = sim_msg_context_request_decode(m, &r, &err);
    if (rc == 0 || strcmp(err.msg, msg) != 0) print_error("%s\n  got: %s\n", json, rc ? err.msg : "ok");
    assert_int_not_equal(rc, 0);
    assert_string_equal(err.msg, msg);
    sim_msg_context_request_free(&r);
    cJSON_Delete(m);
}

static void bad_requests_name_the_field(void **state)
{
    /* unknown op, missing op, bad id */
    expect_bad("{\"id\":1,\"op\":\"poi.nearest\"}",
               "context.request: op: found \"poi.nearest\", expected one of poi.near, poi.search, poi.get, route, "
               "route.cancel, messages.push, messages.list, messages.pop, messages.ack, kv.get, kv.set, table.query");
    expect_bad("{\"id\":1}", "context.request: op: missing, expected one of poi.near, poi.search, poi.get, route, "
                             "route.cancel, messages.push, messages.list, messages.pop, messages.ack, kv.get, kv.set, table.query");
    expect_bad("{\"op\":\"poi.get\",\"poi\":\"x\"}", "context.request: id: missing, expected a string of 1..64 characters or an integer");
    expect_bad("{\"id\":1.5,\"op\":\"poi.get\",\"poi\":\"x\"}", "context.request: id: found 1.5, expected a string of 1..64 characters or an integer");
    /* unknown field (a typo) */
    expect_bad("{\"id\":1,\"op\":\"poi.near\",\"radious\":5}",
               "context.request: radious: unknown field for poi.near, expected one of: x y radius category limit");
    /* wrong types and ranges */
    expect_bad("{\"id\":1,\"op\":\"poi.near\",\"radius\":\"5\"}", "context.request: radius: found \"5\", expected a number in (0, 100000]");
    expect_bad("{\"id\":1,\"op\":\"poi.near\",\"radius\":-5}", "context.request: radius: found -5, expected a number in (0, 100000]");
    expect_bad("{\"id\":1,\"op\":\"poi.near\",\"x\":5}", "context.request: y: missing, expected a number with \"x\"");
    expect_bad("{\"id\":1,\"op\":\"poi.near\",\"x\":5,\"y\":true}", "context.request: y: found true, expected a number in [-1e+07, 1e+07]");
    /* huge limits */
    expect_bad("{\"id\":1,\"op\":\"poi.near\",\"limit\":1000000}", "context.request: limit: found 1e+06, expected an integer in [1, 1000]");
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"t\",\"limit\":0}", "context.request: limit: found 0, expected an integer in [1, 1000]");
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"t\",\"offset\":-1}", "context.request: offset: found -1, expected an integer in [0, 1000000000]");
    /* missing fields */
    expect_bad("{\"id\":1,\"op\":\"poi.search\"}", "context.request: text: missing, expected a string of 1..256 characters");
    expect_bad("{\"id\":1,\"op\":\"poi.get\"}", "context.request: poi: missing, expected a string of 1..63 characters");
    expect_bad("{\"id\":1,\"op\":\"route\"}", "context.request: to: missing, expected \"ego\", {\"x\": X, \"y\": Y} or {\"poi\": ID}");
    expect_bad("{\"id\":1,\"op\":\"route\",\"to\":{\"x\":1}}", "context.request: to: found an object, expected \"ego\", {\"x\": X, \"y\": Y} or {\"poi\": ID}");
    expect_bad("{\"id\":1,\"op\":\"route\",\"to\":{\"poi\":5}}", "context.request: to.poi: found 5, expected a POI id of 1..63 characters");
    expect_bad("{\"id\":1,\"op\":\"route\",\"to\":\"ego\"}", "context.request: to: found \"ego\", expected a point or a POI (the route leads away from the ego)");
    expect_bad("{\"id\":1,\"op\":\"messages.push\",\"text\":\"x\",\"priority\":10}", "context.request: priority: found 10, expected an integer in [0, 9]");
    expect_bad("{\"id\":1,\"op\":\"messages.ack\"}", "context.request: message: missing, expected an integer in [1, 9007199254740992]");
    expect_bad("{\"id\":1,\"op\":\"kv.set\",\"key\":\"k\"}", "context.request: value: missing, expected any JSON value of at most 8192 bytes");
    /* tables and columns must be identifiers: never SQL text */
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"songs; DROP TABLE kv\"}",
               "context.request: table: found \"songs; DROP TABLE kv\", expected a table name ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)");
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"t\",\"where\":[{\"column\":\"a\\\" OR 1=1 --\",\"op\":\"=\",\"value\":1}]}",
               "context.request: where[0].column: found \"a\" OR 1=1 --\", expected a column name ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)");
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"t\",\"where\":[{\"column\":\"a\",\"op\":\"LIKE\",\"value\":1}]}",
               "context.request: where[0].op: found \"LIKE\", expected one of =, !=, <, <=, >, >=");
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"t\",\"where\":[{\"column\":\"a\",\"op\":\"<\",\"value\":null}]}",
               "context.request: where[0].value: found null, expected a number, a string of at most 1024 characters, true/false, or null with = or !=");
    expect_bad("{\"id\":1,\"op\":\"table.query\",\"table\":\"t\",\"order\":\"a DESC; --\"}",
               "context.request: order: found \"a DESC; --\", expected a column name ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)");
    /* huge text */
    char big[1200 + 64];
    snprintf(big, sizeof big, "{\"id\":1,\"op\":\"messages.push\",\"text\":\"%01100d\"}", 0);
    expect_bad(big, "context.request: text: found \"000000000000000000000000000000000000000000000000000000000000...\", expected a string of 1..1024 characters");
    char *huge = malloc(20000);
    int n = snprintf(huge, 20000, "{\"id\":1,\"op\":\"kv.set\",\"key\":\"k\",\"value\":\"");
    memset(huge + n, 'x', 9000);
    strcpy(huge + n + 9000, "\"}");
    expect_bad(huge, "context.request: value: found \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\", expected any JSON value of at most 8192 bytes");
    free(huge);
}

static void requests_round_trip(void **state)
{
    const char *in[] = {
        "{\"topic\":\"context.request\",\"src\":\"nav\",\"seq\":3,\"t\":1.5,\"id\":\"a1\",\"op\":\"poi.near\",\"category\":\"fuel\",\"limit\":1}",
        "{\"id\":7,\"op\":\"route\",\"to\":{\"poi\":\"fuel_east\"}}",
        "{\"id\":8,\"op\":\"route\",\"from\":{\"x\":1,\"y\":2},\"to\":{\"x\":3,\"y\":4}}",
        "{\"id\":9,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"year\",\"op\":\">=\",\"value\":1975}],\"order\":\"year\"}",
        "{\"id\":10,\"op\":\"kv.set\",\"key\":\"k\",\"value\":[1,{\"a\":null}]}",
    };
    const char *want[] = {
        "{\"id\":\"a1\",\"op\":\"poi.near\",\"radius\":1000,\"category\":\"fuel\",\"limit\":1}",
        "{\"id\":7,\"op\":\"route\",\"from\":\"ego\",\"to\":{\"poi\":\"fuel_east\"},\"guide\":true}",
        "{\"id\":8,\"op\":\"route\",\"from\":{\"x\":1,\"y\":2},\"to\":{\"x\":3,\"y\":4},\"guide\":false}",
        "{\"id\":9,\"op\":\"table.query\",\"table\":\"songs\",\"where\":[{\"column\":\"year\",\"op\":\">=\",\"value\":1975}],"
        "\"order\":\"year\",\"desc\":false,\"limit\":100,\"offset\":0}",
        "{\"id\":10,\"op\":\"kv.set\",\"key\":\"k\",\"value\":[1,{\"a\":null}]}",
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        cJSON *m = cJSON_Parse(in[i]);
        sim_msg_context_request r;
        sim_error err;
        assert_int_equal(sim_msg_context_request_decode(m, &r, &err), 0);
        if (i == 0) assert_string_equal(r.src, "nav");
        char *s = print(sim_msg_context_request_encode(&r));
        assert_string_equal(s, want[i]);
        /* and back: the same again */
        cJSON *m2 = cJSON_Parse(s);
        sim_msg_context_request r2;
        assert_int_equal(sim_msg_context_request_decode(m2, &r2, &err), 0);
        char *s2 = print(sim_msg_context_request_encode(&r2));
        assert_string_equal(s2, s);
        cJSON_free(s);
        cJSON_free(s2);
        cJSON_Delete(m);
        cJSON_Delete(m2);
        sim_msg_context_request_free(&r);
        sim_msg_context_request_free(&r2);
    }
}

static void replies_and_events_byte_for_byte(void **state)
{
    sim_msg_context_reply rep = {.id = "42", .id_number = true, .to = "nav", .ok = true, .op = "kv.get"};
    rep.result = cJSON_Parse("{\"key\":\"k\",\"value\":3,\"ok\":\"never twice\"}");
    char *s = print(sim_msg_context_reply_encode(&rep));
    assert_string_equal(s, "{\"id\":42,\"to\":\"nav\",\"ok\":true,\"op\":\"kv.get\",\"key\":\"k\",\"value\":3}");
    cJSON *m = cJSON_Parse(s);
    sim_msg_context_reply back;
    sim_error err;
    assert_int_equal(sim_msg_context_reply_decode(m, &back, &err), 0);
    assert_string_equal(back.id, "42");
    assert_true(back.id_number);
    assert_int_equal((int)cJSON_GetObjectItem(back.result, "value")->valuedouble, 3);
    sim_msg_context_reply_free(&back);
    sim_msg_context_reply_free(&rep);
    cJSON_Delete(m);
    cJSON_free(s);

    sim_msg_context_reply no = {.id = "q", .to = "hmi", .ok = false, .error = "context.request: x: bad"};
    s = print(sim_msg_context_reply_encode(&no));
    assert_string_equal(s, "{\"id\":\"q\",\"to\":\"hmi\",\"ok\":false,\"op\":null,\"error\":\"context.request: x: bad\"}");
    cJSON_free(s);

    sim_msg_context_nearby nb = {.event = "enter", .poi = "fuel_east", .name = "Fuel station Ost", .category = "fuel",
                                 .distance = 49.88, .x = 309, .y = 70};
    s = print(sim_msg_context_nearby_encode(&nb));
    assert_string_equal(s, "{\"event\":\"enter\",\"poi\":\"fuel_east\",\"name\":\"Fuel station Ost\",\"category\":\"fuel\","
                           "\"distance\":49.88,\"x\":309,\"y\":70}");
    m = cJSON_Parse(s);
    sim_msg_context_nearby nb2;
    assert_int_equal(sim_msg_context_nearby_decode(m, &nb2, &err), 0);
    assert_string_equal(nb2.event, "enter");
    assert_string_equal(nb2.poi, "fuel_east");
    cJSON_Delete(m);
    cJSON_free(s);

    sim_msg_context_guidance g = {.route = 2, .next = "left", .index = 2, .road = "v2_0", .distance = 123.5,
                                  .remaining = 200, .eta = 14.4, .off_route = false, .rerouted = true};
    s = print(sim_msg_context_guidance_encode(&g));
    assert_string_equal(s, "{\"route\":2,\"next\":\"left\",\"index\":2,\"road\":\"v2_0\",\"distance\":123.5,\"remaining\":200,"
                           "\"eta\":14.4,\"off_route\":false,\"rerouted\":true,\"arrived\":false}");
    m = cJSON_Parse(s);
    sim_msg_context_guidance g2;
    assert_int_equal(sim_msg_context_guidance_decode(m, &g2, &err), 0);
    assert_int_equal(g2.route, 2);
    assert_true(g2.rerouted);
    cJSON_Delete(m);
    cJSON_free(s);
    m = cJSON_Parse("{\"route\":\"2\"}");
    assert_int_not_equal(sim_msg_context_guidance_decode(m, &g2, &err), 0);
    assert_string_equal(err.msg, "context.guidance: route: found \"2\", expected an integer in [0, 2000000000]");
    cJSON_Delete(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_requests_name_the_field),
        cmocka_unit_test(requests_round_trip),
        cmocka_unit_test(replies_and_events_byte_for_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
