/* Unit tests of the message definitions (common/protocol/sim_msg_*.c): each encoding
 * byte for byte, decoding back, absent fields, and the errors that name the topic and
 * the field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_json.h"
#include "sim_msg_ffb.h"
#include "sim_msg_input.h"
#include "sim_msg_render.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "ts_assert.h"

static void expect_json(cJSON *o, const char *text)
{
    assert_non_null(o);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, text);
    free(s);
    cJSON_Delete(o);
}

static void tick(void **state)
{
    sim_msg_tick m = {.n = 42, .dt = 0.01, .run = 2, .paused = true};
    expect_json(sim_msg_tick_encode(&m), "{\"n\":42,\"dt\":0.01,\"run\":2,\"paused\":true}");
    cJSON *o = cJSON_Parse("{\"topic\":\"sim.tick\",\"t\":0.42,\"n\":42,\"run\":1}");
    sim_msg_tick d;
    sim_error err = {0};
    assert_int_equal(sim_msg_tick_decode(o, &d, &err), SIM_OK);
    assert_int_equal(d.n, 42);
    assert_int_equal(d.run, 1);
    assert_true(isnan(d.dt));
    assert_false(d.paused);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"n\":4.5,\"paused\":1}");
    assert_int_equal(sim_msg_tick_decode(o, &d, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "sim.tick: n: found 4.5, expected an integer >= 0");
    cJSON_Delete(o);
    /* sim.ack: n required, a whole number. */
    sim_msg_ack a = {.n = 7};
    expect_json(sim_msg_ack_encode(&a), "{\"n\":7}");
    sim_msg_ack b;
    o = cJSON_Parse("{\"topic\":\"sim.ack\",\"n\":7}");
    assert_int_equal(sim_msg_ack_decode(o, &b, &err), SIM_OK);
    assert_int_equal(b.n, 7);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"topic\":\"sim.ack\",\"n\":-0.9}");
    assert_int_equal(sim_msg_ack_decode(o, &b, &err), SIM_ERANGE);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"topic\":\"sim.ack\"}");
    assert_int_equal(sim_msg_ack_decode(o, &b, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "sim.ack: n: missing, expected the number of the tick answered");
    cJSON_Delete(o);
}

static void controls(void **state)
{
    sim_msg_input_controls c = {.steer = -0.5, .steer_deg = -225, .throttle = 0, .brake = 1,
                                .clutch = 0, .gear = 3, .has_gear = false};
    /* No gear without has_gear. */
    expect_json(sim_msg_input_controls_encode(&c),
                "{\"steer\":-0.5,\"steer_deg\":-225,\"throttle\":0,\"brake\":1,\"clutch\":0}");
    c.steer_deg = NAN; /* an absent field is left out */
    c.has_gear = true;
    expect_json(sim_msg_input_controls_encode(&c),
                "{\"steer\":-0.5,\"throttle\":0,\"brake\":1,\"clutch\":0,\"gear\":3}");
    /* A refused message leaves the output as it was. */
    sim_msg_input_controls d = {.steer = 0.1};
    sim_error err = {0};
    cJSON *o = cJSON_Parse("{\"steer\":1.0001}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_ERANGE);
    assert_string_equal(err.msg, "input.controls: steer: found 1.0001, expected a number in [-1, 1]");
    assert_near(0.1, d.steer, 0);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"brake\":\"full\"}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "input.controls: brake: found \"full\", expected a number in [0, 1]");
    cJSON_Delete(o);
    o = cJSON_Parse("{\"gear\":13}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_ERANGE);
    cJSON_Delete(o);
    o = cJSON_Parse("[1]");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "input.controls: found an array of 1 elements, expected a JSON object");
    cJSON_Delete(o);
}

/* The delay stamps (docs/latency.md): written after the controls, read back, absent
 * when zero or NAN, and refused when negative. */
static void controls_stamps(void **state)
{
    sim_msg_input_controls c = {.steer = 0.25, .steer_deg = NAN, .throttle = NAN, .brake = NAN, .clutch = NAN,
                                .stamp = 1234.5, .sent = 1234.5078125};
    expect_json(sim_msg_input_controls_encode(&c), "{\"steer\":0.25,\"stamp\":1234.5,\"sent\":1234.5078125}");
    cJSON *o = cJSON_Parse("{\"steer\":0.25,\"stamp\":1234.5,\"sent\":1234.5078125}");
    sim_msg_input_controls d;
    sim_error err = {0};
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_OK);
    assert_true(d.stamp == 1234.5 && d.sent == 1234.5078125);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"steer\":0.25}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_OK);
    assert_true(isnan(d.stamp) && isnan(d.sent));
    cJSON_Delete(o);
    o = cJSON_Parse("{\"stamp\":-1}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_ERANGE);
    assert_string_equal(err.msg, "input.controls: stamp: found -1, expected a number in [0, 1e+12]");
    cJSON_Delete(o);
}

static void render_latency(void **state)
{
    sim_msg_render_latency m = {.window_s = 0.1, .frames = 6, .min_ms = 30, .median_ms = 35.5, .p95_ms = 40,
                                .max_ms = 41.25, .stage_ms = {1, 0.25, 5, 0.5, 8, 12, 9}};
    expect_json(sim_msg_render_latency_encode(&m),
                "{\"window_s\":0.1,\"frames\":6,\"min_ms\":30,\"median_ms\":35.5,\"p95_ms\":40,\"max_ms\":41.25,"
                "\"device_ms\":1,\"input_ms\":0.25,\"step_ms\":5,\"physics_ms\":0.5,\"wait_ms\":8,\"draw_ms\":12,"
                "\"swap_ms\":9}");
    cJSON *o = sim_msg_render_latency_encode(&m);
    sim_msg_render_latency d;
    sim_error err = {0};
    assert_int_equal(sim_msg_render_latency_decode(o, &d, &err), SIM_OK);
    assert_int_equal(d.frames, 6);
    assert_true(d.p95_ms == 40 && d.stage_ms[6] == 9 && d.stage_ms[1] == 0.25);
    cJSON_DeleteItemFromObject(o, "wait_ms");
    assert_int_equal(sim_msg_render_latency_decode(o, &d, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "render.latency: wait_ms: missing, expected a number");
    cJSON_Delete(o);
    o = cJSON_Parse("{\"window_s\":0.1,\"frames\":0}");
    assert_int_equal(sim_msg_render_latency_decode(o, &d, &err), SIM_ERANGE);
    cJSON_Delete(o);
    assert_string_equal(sim_latency_stage_name(3), "physics");
    assert_null(sim_latency_stage_name(7));
}

static void ffb(void **state)
{
    sim_msg_ffb_command m = {.torque = -0.25, .spring = 0.5, .damper = 0.125, .rumble = 0, .rumble_hz = 30};
    expect_json(sim_msg_ffb_command_encode(&m),
                "{\"torque\":-0.25,\"spring\":0.5,\"damper\":0.125,\"rumble\":0,\"rumble_hz\":30}");
    cJSON *o = cJSON_Parse("{\"torque\":2,\"rumble_hz\":5000}");
    sim_msg_ffb_command d;
    sim_error err = {0};
    assert_int_equal(sim_msg_ffb_command_decode(o, &d, &err), SIM_OK);
    assert_near(1, d.torque, 0);       /* clamped: "as much as allowed" */
    assert_near(1000, d.rumble_hz, 0);
    assert_near(0, d.spring, 0);
    cJSON_Delete(o);
}

static void vehicle_state(void **state)
{
    sim_msg_vehicle_state m;
    sim_msg_vehicle_state_clear(&m);
    m.speed = 12.5;
    m.pos[0] = 1, m.pos[1] = 2, m.pos[2] = 0.5;
    m.heading = 0.25;
    m.gear = 2;
    strcpy(m.model, "simple");
    m.s = 40; /* d, lane and lane_offset absent: null */
    m.n_wheels = 1;
    m.wheel[0] = (sim_msg_wheel){.pos = {1, 1, 0.3}, .omega = 40, .travel = 0.05, .steer = 0, .load = 3000,
                                 .fx = 10, .fy = -5, .slip_ratio = 0.01, .slip_angle = 0.02, .contact = true};
    m.run = 3;
    m.replay = true;
    expect_json(sim_msg_vehicle_state_encode(&m),
                "{\"speed\":12.5,\"pos\":[1,2,0.5],\"heading\":0.25,\"gear\":2,\"model\":\"simple\","
                "\"s\":40,\"d\":null,\"lane\":null,\"lane_offset\":null,"
                "\"wheels\":[{\"pos\":[1,1,0.3],\"omega\":40,\"travel\":0.05,\"steer\":0,\"load\":3000,"
                "\"fx\":10,\"fy\":-5,\"slip_ratio\":0.01,\"slip_angle\":0.02,\"contact\":true}],"
                "\"run\":3,\"replay\":true}");
    /* the delay stamps follow the extras (docs/latency.md) */
    m.n_wheels = 0;
    m.replay = false;
    m.in_stamp = 100.5, m.in_sent = 100.5078125, m.in_recv = 100.515625, m.stepped = 100.52;
    expect_json(sim_msg_vehicle_state_encode(&m),
                "{\"speed\":12.5,\"pos\":[1,2,0.5],\"heading\":0.25,\"gear\":2,\"model\":\"simple\","
                "\"s\":40,\"d\":null,\"lane\":null,\"lane_offset\":null,\"run\":3,"
                "\"in_stamp\":100.5,\"in_sent\":100.5078125,\"in_recv\":100.515625,\"stepped\":100.52}");
    cJSON *back = sim_msg_vehicle_state_encode(&m);
    sim_msg_vehicle_state b;
    sim_error berr = {0};
    assert_int_equal(sim_msg_vehicle_state_decode(back, &b, &berr), SIM_OK);
    assert_true(b.in_stamp == 100.5 && b.in_sent == 100.5078125 && b.in_recv == 100.515625 && b.stepped == 100.52);
    cJSON_Delete(back);
    /* Decoding fills what is well formed and names the first field that is not. */
    cJSON *o = cJSON_Parse("{\"topic\":\"vehicle.state\",\"t\":1,\"speed\":3,\"pos\":[1,2],\"lane\":-1,"
                           "\"sector\":\"S1\",\"wheels\":[{\"omega\":5},{\"contact\":true}]}");
    sim_msg_vehicle_state d;
    sim_error err = {0};
    assert_int_equal(sim_msg_vehicle_state_decode(o, &d, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "vehicle.state: pos: found an array of 2 elements, expected an array of 3 numbers");
    assert_near(3, d.speed, 0);
    assert_true(isnan(d.pos[0]) && isnan(d.heading) && isnan(d.s) && isnan(d.in_stamp) && isnan(d.stepped));
    assert_int_equal(d.lane, -1);
    assert_int_equal(d.gear, SIM_MSG_NO_INT);
    assert_string_equal(d.sector, "S1");
    assert_int_equal(d.n_wheels, 2);
    assert_near(5, d.wheel[0].omega, 0);
    assert_true(d.wheel[1].contact);
    assert_false(d.replay);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tick),
        cmocka_unit_test(controls),
        cmocka_unit_test(controls_stamps),
        cmocka_unit_test(render_latency),
        cmocka_unit_test(ffb),
        cmocka_unit_test(vehicle_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
