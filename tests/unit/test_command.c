/* test_command: operator commands validated the same way off the bus as at the
 * endpoint, and control.ack encoded byte for byte and decoded with named errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_command.h"

static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    return j;
}

static void bus_messages_are_held_to_the_endpoint_rules(void **state)
{
    (void)state;
    sim_error err;
    const char *cmd = NULL;
    cJSON *ok = parse("{\"topic\":\"control.traffic\",\"src\":\"dispatcher\",\"seq\":3,\"t\":1.5,\"density\":0.5}");
    assert_int_equal(sim_command_validate_message(ok, &cmd, &err), SIM_OK);
    assert_string_equal(cmd, "traffic");
    cJSON_Delete(ok);

    cJSON *bad = parse("{\"topic\":\"control.restart\",\"src\":\"x\",\"seq\":1,\"t\":0,\"at\":42}");
    assert_int_equal(sim_command_validate_message(bad, &cmd, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "restart: \"at\" must be a string");
    cJSON_Delete(bad);

    cJSON *unknown = parse("{\"topic\":\"control.fly\",\"src\":\"x\",\"seq\":1,\"t\":0}");
    assert_int_equal(sim_command_validate_message(unknown, &cmd, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "unknown command \"fly\""));
    cJSON_Delete(unknown);

    cJSON *other = parse("{\"topic\":\"vehicle.state\"}");
    assert_int_equal(sim_command_validate_message(other, &cmd, &err), SIM_EINVAL);
    cJSON_Delete(other);
}

static void ack_round_trip_is_byte_exact(void **state)
{
    (void)state;
    cJSON *command = parse("{\"topic\":\"control.light\",\"src\":\"dispatcher\",\"seq\":9,\"t\":2,\"id\":\"c17\",\"mode\":\"dusk\"}");
    sim_command_ack a;
    sim_command_ack_for(command, false, "no render node draws dusk", &a);
    cJSON *p = sim_command_ack_encode(&a);
    char *text = cJSON_PrintUnformatted(p);
    assert_string_equal(text, "{\"cmd\":\"light\",\"id\":\"c17\",\"ok\":false,\"error\":\"no render node draws dusk\"}");
    sim_command_ack b;
    sim_error err;
    assert_int_equal(sim_command_ack_decode(p, &b, &err), SIM_OK);
    assert_string_equal(b.cmd, "light");
    assert_string_equal(b.id, "c17");
    assert_false(b.ok);
    assert_string_equal(b.error, "no render node draws dusk");
    free(text);
    cJSON_Delete(p);

    /* no id in the command: null; ok: error null */
    cJSON *plain = parse("{\"topic\":\"control.pause\",\"src\":\"x\",\"seq\":1,\"t\":0,\"id\":7}");
    sim_command_ack_for(plain, true, "ignored", &a);
    p = sim_command_ack_encode(&a);
    text = cJSON_PrintUnformatted(p);
    assert_string_equal(text, "{\"cmd\":\"pause\",\"id\":\"7\",\"ok\":true,\"error\":null}");
    free(text);
    cJSON_Delete(p);
    cJSON_Delete(plain);
    cJSON_Delete(command);
}

static void ack_decode_names_the_field(void **state)
{
    (void)state;
    sim_command_ack a;
    sim_error err;
    cJSON *j = parse("{\"cmd\":\"pause\",\"ok\":\"yes\"}");
    assert_int_equal(sim_command_ack_decode(j, &a, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "control.ack: \"ok\" must be true or false");
    cJSON_Delete(j);
    j = parse("{\"cmd\":\"pause\",\"ok\":false}");
    assert_int_equal(sim_command_ack_decode(j, &a, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "must say why in \"error\""));
    cJSON_Delete(j);
    j = parse("{\"ok\":true}");
    assert_int_equal(sim_command_ack_decode(j, &a, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "control.ack: \"cmd\" must be a command name");
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bus_messages_are_held_to_the_endpoint_rules),
        cmocka_unit_test(ack_round_trip_is_byte_exact),
        cmocka_unit_test(ack_decode_names_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
