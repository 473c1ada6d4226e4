/* Unit tests of sim_cli (option parsing) and sim_error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sim_cli.h"
#include "sim_error.h"

static void parses_options_and_positionals(void **state)
{
    const char *bus = "127.0.0.1:7700";
    int rate = 250;
    double gain = 1.0;
    bool lockstep = false;
    sim_opt opts[] = {
        {"bus", SIM_OPT_STRING, &bus, "HOST:PORT", "dispatcher"},
        {"rate-hz", SIM_OPT_INT, &rate, "HZ", "rate"},
        {"gain", SIM_OPT_DOUBLE, &gain, "G", "gain"},
        {"lockstep", SIM_OPT_FLAG, &lockstep, NULL, "lockstep"},
    };
    char *argv[] = {"prog", "run", "--bus", "10.0.0.1:9", "a.json", "--rate-hz=100",
                    "--lockstep", "--gain", "0.5", "--", "--literal"};
    int npos = -1;
    int rc = sim_cli_parse("prog", NULL, opts, 4, 11, argv, 1, &npos);
    assert_int_equal(rc, SIM_CLI_OK);
    assert_string_equal(bus, "10.0.0.1:9");
    assert_int_equal(rate, 100);
    assert_true(gain == 0.5);
    assert_true(lockstep);
    assert_int_equal(npos, 3);
    assert_string_equal(argv[1], "run");
    assert_string_equal(argv[2], "a.json");
    assert_string_equal(argv[3], "--literal");
}

static void rejects_unknown_and_bad_values(void **state)
{
    int rate = 250;
    sim_opt opts[] = {{"rate-hz", SIM_OPT_INT, &rate, "HZ", "rate"}};
    char *a1[] = {"prog", "--nope"};
    assert_int_equal(sim_cli_parse("prog", NULL, opts, 1, 2, a1, 1, NULL), SIM_CLI_ERROR);
    char *a2[] = {"prog", "--rate-hz", "12x"};
    assert_int_equal(sim_cli_parse("prog", NULL, opts, 1, 3, a2, 1, NULL), SIM_CLI_ERROR);
    assert_int_equal(rate, 250);
    char *a3[] = {"prog", "--rate-hz"};
    assert_int_equal(sim_cli_parse("prog", NULL, opts, 1, 2, a3, 1, NULL), SIM_CLI_ERROR);
}

static void whole_string_numbers(void **state)
{
    double v = 7;
    assert_true(sim_cli_number("-2.5e1", &v));
    assert_true(v == -25.0);
    const char *bad[] = {"", " ", "abc", "1x", "nan", "inf", "-inf", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 7;
        assert_false(sim_cli_number(bad[i], &v));
        assert_true(v == 7);
    }
}

static void error_set_and_prefix(void **state)
{
    sim_error err = {0};
    int rc = sim_error_set(&err, SIM_EINVAL, "roads[%d].length: expected > 0, found %g", 2, -1.0);
    assert_int_equal(rc, SIM_EINVAL);
    sim_error_prefix(&err, "%s", "a.json");
    assert_string_equal(err.msg, "a.json: roads[2].length: expected > 0, found -1");
    assert_int_equal(sim_error_set(NULL, SIM_EIO, "x"), SIM_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_options_and_positionals),
        cmocka_unit_test(rejects_unknown_and_bad_values),
        cmocka_unit_test(whole_string_numbers),
        cmocka_unit_test(error_set_and_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
