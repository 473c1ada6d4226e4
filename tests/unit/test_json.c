/* Unit tests of the one JSON reader (common/base/sim_json.c): typed reads by dotted
 * path, the message form, unknown and twice-given keys, stopping at the first error or
 * collecting every one, syntax errors with line and column, enum names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim_json.h"
#include "ts_assert.h"

static const char DOC[] = "{\"engine\": {\"max_rpm\": 6500, \"name\": \"m42\", \"turbo\": false},\n"
                          " \"gears\": [3.5, 2.1], \"mode\": \"rain\", \"_note\": \"comments pass\"}";

static cJSON *parse(sim_json *j)
{
    cJSON *root;
    assert_int_equal(sim_json_parse(j, DOC, strlen(DOC), &root), SIM_OK);
    return root;
}

static void typed_reads_by_path(void **state)
{
    sim_error err = {0};
    sim_json j = {.file = "car.json", .err = &err};
    cJSON *root = parse(&j);
    double rpm;
    assert_int_equal(sim_json_num(&j, root, "", "engine.max_rpm", true, 0, SIM_JSON_RANGE, 500, 9000, &rpm), SIM_OK);
    assert_near(6500, rpm, 0);
    const char *name;
    assert_int_equal(sim_json_str(&j, root, "", "engine.name", true, NULL, &name), SIM_OK);
    assert_string_equal(name, "m42");
    bool turbo = true;
    assert_int_equal(sim_json_bool(&j, root, "", "engine.turbo", true, true, &turbo), SIM_OK);
    assert_false(turbo);
    int n;
    /* Missing and not required: the default. */
    assert_int_equal(sim_json_int(&j, root, "", "engine.cylinders", false, 4, 1, 16, &n), SIM_OK);
    assert_int_equal(n, 4);
    static const char *const modes[] = {"dry", "rain", "snow", NULL};
    assert_int_equal(sim_json_enum(&j, root, "", "mode", 0, modes, -1, &n), SIM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(j.errors, 0);
    /* The errors: "FILE: PATH: found X, expected Y". */
    assert_int_equal(sim_json_num(&j, root, "", "engine.max_rpm", true, 0, SIM_JSON_RANGE, 500, 6000, &rpm),
                     SIM_ERANGE);
    assert_string_equal(err.msg, "car.json: engine.max_rpm: found 6500, expected a number in [500, 6000]");
    assert_near(0, rpm, 0); /* the default after an error */
    sim_json k = {.file = "car.json", .err = &err};
    assert_int_equal(sim_json_int(&k, root, "", "engine.name", true, 0, 0, 9, &n), SIM_EINVAL);
    assert_string_equal(err.msg, "car.json: engine.name: found \"m42\", expected an integer in [0, 9]");
    sim_json l = {.file = "car.json", .err = &err};
    assert_int_equal(sim_json_str(&l, root, "", "engine.fuel", true, NULL, &name), SIM_EINVAL);
    assert_string_equal(err.msg, "car.json: engine.fuel: missing, expected a non-empty string");
    sim_json m = {.file = "car.json", .err = &err};
    static const char *const dry[] = {"dry", "wet"};
    assert_int_equal(sim_json_enum(&m, root, "", "mode", 0, dry, 2, &n), SIM_EINVAL);
    assert_string_equal(err.msg, "car.json: mode: found \"rain\", expected one of: dry, wet");
    cJSON_Delete(root);
}

static void report(void *user, const char *msg)
{
    int *count = user;
    (*count)++;
    if (*count == 1) assert_string_equal(msg, "x.json: gears: unknown field, expected one of: engine, mode");
    if (*count == 2) assert_string_equal(msg, "x.json: engine.turbo: found false, expected a number");
}

static void unknown_keys_and_collecting(void **state)
{
    int count = 0;
    sim_json j = {.file = "x.json", .report = report, .user = &count};
    cJSON *root = parse(&j);
    static const char *const top[] = {"engine", "mode", NULL};
    assert_int_equal(sim_json_keys(&j, root, "", top, -1), SIM_EINVAL);
    double x;
    sim_json_num(&j, root, "", "engine.turbo", true, 1, SIM_JSON_ANY, 0, 0, &x);
    assert_int_equal(count, 2);
    assert_int_equal(j.errors, 2);
    cJSON_Delete(root);
    sim_error err = {0};
    sim_json k = {.file = "d.json", .err = &err};
    cJSON *d = cJSON_Parse("{\"a\":1,\"b\":2,\"a\":3}");
    static const char *const ab[] = {"a", "b"};
    assert_int_equal(sim_json_keys(&k, d, "p", ab, 2), SIM_EINVAL);
    assert_string_equal(err.msg, "d.json: p.a: found this field twice, expected it once");
    cJSON_Delete(d);
}

static void syntax_errors(void **state)
{
    sim_error err = {0};
    sim_json j = {.file = "bad.json", .err = &err};
    cJSON *root;
    const char *text = "{\n  \"a\": 1,\n  \"b\": ]\n}";
    assert_int_equal(sim_json_parse(&j, text, strlen(text), &root), SIM_EINVAL);
    assert_null(root);
    assert_string_equal(err.msg, "bad.json:3:8: JSON syntax error near \"]\"");
    sim_json k = {.err = &err};
    assert_int_equal(sim_json_parse(&k, "{} x", 4, &root), SIM_EINVAL);
    assert_string_equal(err.msg, "line 1, column 4: unexpected text after the JSON value: \"x\"");
    /* Issue 21: what cJSON takes but no reader should get. */
    sim_json f = {.file = "f.json", .err = &err};
    const char *inf = "{\"wheels\":[{\"mass\":1e999}]}";
    assert_int_equal(sim_json_parse(&f, inf, strlen(inf), &root), SIM_ERANGE);
    assert_null(root);
    assert_string_equal(err.msg, "f.json: wheels[0].mass: refused: a number too large for a double (it reads as infinite)");
    const char *latin1 = "{\"name\":\"Stra\xdfe\"}";
    f.errors = 0; /* err keeps a reader's first error */
    assert_int_equal(sim_json_parse(&f, latin1, strlen(latin1), &root), SIM_EINVAL);
    assert_string_equal(err.msg, "f.json: name: refused: a string that is not valid UTF-8");
    const char *key = "{\"na\xffme\":1}";
    f.errors = 0;
    assert_int_equal(sim_json_parse(&f, key, strlen(key), &root), SIM_EINVAL);
    assert_string_equal(err.msg, "f.json: (top level): refused: key \"na?me\" is not valid UTF-8");
    const char *utf8 = "{\"name\":\"Stra\xc3\x9f" "e\",\"big\":-1.7e308}";
    assert_int_equal(sim_json_parse(&f, utf8, strlen(utf8), &root), SIM_OK);
    cJSON_Delete(root);
}

static void enum_names(void **state)
{
    static const char *const names[] = {"day", "dusk", "night", NULL};
    assert_int_equal(sim_enum_parse("dusk", names, -1), 1);
    assert_int_equal(sim_enum_parse("Dusk", names, -1), -1);
    assert_int_equal(sim_enum_parse("night", names, 2), -1);
    assert_int_equal(sim_enum_parse(NULL, names, -1), -1);
    char buf[32];
    assert_string_equal(sim_enum_list(names, -1, buf, sizeof buf), "day, dusk, night");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_reads_by_path),
        cmocka_unit_test(unknown_keys_and_collecting),
        cmocka_unit_test(syntax_errors),
        cmocka_unit_test(enum_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
