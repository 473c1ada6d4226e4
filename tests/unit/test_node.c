/* Unit tests of the module skeleton's envelope reader (sim_envelope_read): the one
 * place every module's {topic, src, seq, t} comes from, so the one check of t (finite)
 * holds for all of them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim_node.h"

static int read_line(const char *line, sim_envelope *env, cJSON **keep)
{
    *keep = cJSON_Parse(line);
    assert_non_null(*keep);
    return sim_envelope_read(*keep, line, strlen(line), env);
}

static void reads_every_field(void **state)
{
    (void)state;
    const char *line = "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":42,\"t\":1.25,\"speed\":3}";
    sim_envelope env;
    cJSON *msg;
    assert_int_equal(read_line(line, &env, &msg), SIM_OK);
    assert_string_equal(env.topic, "vehicle.state");
    assert_string_equal(env.src, "physics");
    assert_int_equal(env.seq, 42);
    assert_true(env.t == 1.25);
    assert_ptr_equal(env.line, line);
    assert_int_equal(env.len, strlen(line));
    cJSON_Delete(msg);
}

/* The drift the skeleton ended: one reader let infinity through as a time. */
static void time_that_is_not_finite_is_absent(void **state)
{
    (void)state;
    const char *lines[] = {
        "{\"topic\":\"sim.tick\",\"t\":1e999}",   /* cJSON reads it as +inf */
        "{\"topic\":\"sim.tick\",\"t\":-1e999}",
        "{\"topic\":\"sim.tick\",\"t\":\"3\"}",
        "{\"topic\":\"sim.tick\",\"t\":null}",
        "{\"topic\":\"sim.tick\"}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        sim_envelope env;
        cJSON *msg;
        assert_int_equal(read_line(lines[i], &env, &msg), SIM_OK);
        assert_true(isnan(env.t));
        cJSON_Delete(msg);
    }
}

static void missing_or_odd_src_and_seq(void **state)
{
    (void)state;
    sim_envelope env;
    cJSON *msg;
    assert_int_equal(read_line("{\"topic\":\"x\",\"src\":7,\"seq\":-3}", &env, &msg), SIM_OK);
    assert_null(env.src);
    assert_int_equal(env.seq, -1);
    cJSON_Delete(msg);
    assert_int_equal(read_line("{\"topic\":\"x\",\"seq\":1e300}", &env, &msg), SIM_OK);
    assert_int_equal(env.seq, -1);
    cJSON_Delete(msg);
    assert_int_equal(read_line("{\"topic\":3,\"t\":2}", &env, &msg), SIM_EINVAL);
    assert_string_equal(env.topic, "");
    assert_true(env.t == 2);
    cJSON_Delete(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_field),
        cmocka_unit_test(time_that_is_not_finite_is_absent),
        cmocka_unit_test(missing_or_odd_src_and_seq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
