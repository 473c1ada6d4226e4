/* Unit tests of sim_msg_automation: automation.state and automation.event encoded byte
 * for byte, decoded back, and bad fields named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_automation.h"

static void state_bytes_and_back(void **state)
{
    (void)state;
    sim_msg_automation_state m = {.mode = "l3", .tor = "pending", .set_speed = 30.5, .time_gap = 1.8,
                                  .lateral = true, .longitudinal = true, .steer_deg = -2.5,
                                  .driver_steer_deg = 0.25, .driver_brake = 0, .hands_on = -1};
    cJSON *o = sim_msg_automation_state_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"mode\":\"l3\",\"tor\":\"pending\",\"set_speed\":30.5,\"time_gap\":1.8,\"lateral\":true,"
                           "\"longitudinal\":true,\"steer_deg\":-2.5,\"driver_steer_deg\":0.25,\"driver_brake\":0,"
                           "\"hands_on\":null}");
    sim_msg_automation_state back;
    sim_error err = {0};
    assert_int_equal(sim_msg_automation_state_decode(o, &back, &err), SIM_OK);
    assert_string_equal(back.tor, "pending");
    assert_int_equal(back.hands_on, -1);
    assert_true(back.set_speed == 30.5 && back.steer_deg == -2.5 && back.lateral);
    free(s);
    cJSON_Delete(o);
    const char *bad[][2] = {
        {"{\"tor\":\"none\"}", "automation.state: \"mode\" must be a string (missing)"},
        {"{\"mode\":\"acc\",\"tor\":\"none\",\"set_speed\":\"fast\"}", "automation.state: \"set_speed\" must be a number"},
        {"{\"mode\":\"acc\",\"tor\":\"none\",\"set_speed\":1,\"time_gap\":1,\"lateral\":false,\"longitudinal\":true,"
         "\"steer_deg\":0,\"driver_steer_deg\":0,\"driver_brake\":0,\"hands_on\":1}",
         "automation.state: \"hands_on\" must be true, false or null"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *b = cJSON_Parse(bad[i][0]);
        assert_int_equal(sim_msg_automation_state_decode(b, &back, &err), SIM_EINVAL);
        assert_string_equal(err.msg, bad[i][1]);
        cJSON_Delete(b);
    }
}

static void event_bytes_and_back(void **state)
{
    (void)state;
    sim_msg_automation_event m = {.event = "handover", .mode = "manual", .reason = "brake", .takeover_s = 2.5};
    cJSON *o = sim_msg_automation_event_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"event\":\"handover\",\"mode\":\"manual\",\"reason\":\"brake\",\"takeover_s\":2.5}");
    free(s);
    cJSON_Delete(o);
    sim_msg_automation_event cue = {.event = "cue", .mode = "l3", .takeover_s = NAN, .cues = "hud,chime"};
    o = sim_msg_automation_event_encode(&cue);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"event\":\"cue\",\"mode\":\"l3\",\"reason\":null,\"cues\":\"hud,chime\"}");
    sim_msg_automation_event back;
    sim_error err = {0};
    assert_int_equal(sim_msg_automation_event_decode(o, &back, &err), SIM_OK);
    assert_string_equal(back.cues, "hud,chime");
    assert_string_equal(back.reason, "");
    assert_true(isnan(back.takeover_s));
    free(s);
    cJSON_Delete(o);
    cJSON *b = cJSON_Parse("{\"event\":\"handover\",\"mode\":\"manual\",\"takeover_s\":\"soon\"}");
    assert_int_equal(sim_msg_automation_event_decode(b, &back, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "automation.event: \"takeover_s\" must be a number");
    cJSON_Delete(b);
    b = cJSON_Parse("{\"event\":\"a-very-long-event-name\",\"mode\":\"l3\"}");
    assert_int_equal(sim_msg_automation_event_decode(b, &back, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "automation.event: \"event\" must be a string of at most 15 bytes");
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_bytes_and_back),
        cmocka_unit_test(event_bytes_and_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
