/* Unit tests of the messages that modules used to build by hand: log.status,
 * log.error, session.module (sim_msg_log), sim.end (sim_msg_sim) and input.button
 * (sim_msg_input), bus.error (sim_msg_log) and bridge.status (sim_msg_sensor). The bytes are the ones the modules published before they had one
 * definition, so no reader sees a change. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_input.h"
#include "sim_msg_log.h"
#include "sim_msg_sensor.h"
#include "sim_msg_sim.h"

static void assert_bytes(cJSON *o, const char *want)
{
    assert_non_null(o);
    char *got = cJSON_PrintUnformatted(o);
    assert_string_equal(got, want);
    free(got);
    cJSON_Delete(o);
}

static void log_status_bytes_and_round_trip(void **state)
{
    (void)state;
    static sim_msg_log_status m = {.file = "logs/s/a.sqlite", .rows = 12, .synced = 11, .pending = 3, .samples = 10,
                                   .events = 2, .run = 1, .bad_messages = 0};
    assert_bytes(sim_msg_log_status_encode(&m),
                 "{\"file\":\"logs/s/a.sqlite\",\"rows\":12,\"synced\":11,\"pending\":3,\"samples\":10,\"events\":2,"
                 "\"run\":1,\"bad_messages\":0,\"error\":null}");
    snprintf(m.error, sizeof m.error, "disk full");
    m.run = -1;
    cJSON *o = sim_msg_log_status_encode(&m);
    static sim_msg_log_status back;
    assert_int_equal(sim_msg_log_status_decode(o, &back, NULL), SIM_OK);
    assert_string_equal(back.file, m.file);
    assert_string_equal(back.error, "disk full");
    assert_true(back.run == -1);
    assert_int_equal(back.rows, 12);
    cJSON_Delete(o);
    /* a field of the wrong type is named */
    o = cJSON_Parse("{\"file\":3}");
    sim_error err = {0};
    assert_int_equal(sim_msg_log_status_decode(o, &back, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "log.status: file"));
    cJSON_Delete(o);
}

static void log_error_bytes(void **state)
{
    (void)state;
    static sim_msg_log_error m = {.file = "", .error = "cannot create logs/x: Permission denied", .pending = 0};
    assert_bytes(sim_msg_log_error_encode(&m),
                 "{\"file\":\"\",\"error\":\"cannot create logs/x: Permission denied\",\"pending\":0}");
}

static void session_module_bytes(void **state)
{
    (void)state;
    sim_msg_session_module m = {.module = "physics-node", .what = "crashed", .status = 0, .signal = 9, .run = 2};
    assert_bytes(sim_msg_session_module_encode(&m),
                 "{\"module\":\"physics-node\",\"what\":\"crashed\",\"status\":0,\"signal\":9,\"run\":2}");
    cJSON *o = cJSON_Parse("{\"module\":\"recorder\",\"what\":\"config_error\",\"status\":1,\"signal\":0,\"run\":0}");
    sim_msg_session_module back;
    assert_int_equal(sim_msg_session_module_decode(o, &back, NULL), SIM_OK);
    assert_string_equal(back.what, "config_error");
    assert_true(back.status == 1);
    cJSON_Delete(o);
}

static void sim_end_and_input_button_bytes(void **state)
{
    (void)state;
    sim_msg_end e = {.reason = "the end of the last test sector"};
    assert_bytes(sim_msg_end_encode(&e), "{\"reason\":\"the end of the last test sector\"}");
    sim_msg_input_button b = {.role = "gear_up", .pressed = true};
    assert_bytes(sim_msg_input_button_encode(&b), "{\"role\":\"gear_up\",\"pressed\":true}");
    cJSON *o = cJSON_Parse("{\"role\":\"horn\",\"pressed\":\"yes\"}");
    sim_error err = {0};
    assert_int_equal(sim_msg_input_button_decode(o, &b, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "input.button: pressed"));
    cJSON_Delete(o);
}

/* bus.error: a module's own report that its bus dropped messages (sim_bus). */
static void bus_error_bytes_and_round_trip(void **state)
{
    (void)state;
    sim_msg_bus_error m = {.dropped = 12345678901ull, .error = "send queue full"};
    assert_bytes(sim_msg_bus_error_encode(&m), "{\"dropped\":12345678901,\"error\":\"send queue full\"}");
    cJSON *o = cJSON_Parse("{\"dropped\":7,\"error\":\"x\"}");
    sim_msg_bus_error back;
    assert_int_equal(sim_msg_bus_error_decode(o, &back, NULL), SIM_OK);
    assert_true(back.dropped == 7);
    assert_string_equal(back.error, "x");
    cJSON_Delete(o);
    o = cJSON_Parse("{\"dropped\":-1,\"error\":\"x\"}");
    sim_error err = {0};
    assert_int_equal(sim_msg_bus_error_decode(o, &back, &err), SIM_ERANGE);
    assert_non_null(strstr(err.msg, "bus.error: dropped"));
    cJSON_Delete(o);
}

/* bridge.status: what the Python bridges publish (clients/python), read back by C. */
static void bridge_status_round_trip(void **state)
{
    (void)state;
    sim_msg_bridge_status m = {.name = "pupil", .kind = "pupil", .publishes = "gaze.sample", .connected = true,
                               .rate_hz = 200, .dropped = 3, .calibration_age_s = 61.5};
    cJSON *o = sim_msg_bridge_status_encode(&m);
    assert_non_null(o);
    sim_msg_bridge_status back;
    assert_int_equal(sim_msg_bridge_status_decode(o, &back, NULL), SIM_OK);
    assert_string_equal(back.publishes, "gaze.sample");
    assert_true(back.connected);
    assert_true(back.rate_hz == 200 && back.dropped == 3 && back.calibration_age_s == 61.5);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log_status_bytes_and_round_trip),
        cmocka_unit_test(log_error_bytes),
        cmocka_unit_test(session_module_bytes),
        cmocka_unit_test(sim_end_and_input_button_bytes),
        cmocka_unit_test(bus_error_bytes_and_round_trip),
        cmocka_unit_test(bridge_status_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
