/* Unit tests of traffic.state and traffic.event (sim_msg_traffic): the encoding byte
 * for byte, decoding back, defaults, bad entries left out with the others kept, and
 * errors that name the field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_traffic.h"

static sim_msg_traffic_vehicle car(void)
{
    sim_msg_traffic_vehicle v = {.id = "lead", .model = "car", .road = "mw_west",
                                 .pos = {400.00049, -5.625, 0}, .heading = 0.123456,
                                 .size = {4.5, 1.8, 1.5}, .velocity = {30.5551, 0, 0},
                                 .brake = true, .lane = -3, .s = 400.0004};
    return v;
}

static void state_bytes(void **state)
{
    sim_msg_traffic_vehicle v[1] = {car()};
    sim_msg_traffic_state m = {.run = 2, .total = 9, .ambient = 4, .vehicles = v, .n_vehicles = 1,
                               .lead = {.valid = true, .id = "lead", .gap = 42.1234, .speed = 30.5551,
                                        .thw = 1.5, .ttc = INFINITY}};
    cJSON *o = sim_msg_traffic_state_encode(&m);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"run\":2,\"total\":9,\"ambient\":4,\"frozen\":false,\"vehicles\":[{\"id\":\"lead\",\"model\":\"car\","
                           "\"pos\":[400,-5.625,0],\"heading\":0.1235,\"size\":[4.5,1.8,1.5],"
                           "\"velocity\":[30.555,0,0],\"brake\":true,\"indicator\":\"off\","
                           "\"road\":\"mw_west\",\"lane\":-3,\"s\":400}],"
                           "\"lead\":{\"id\":\"lead\",\"gap\":42.123,\"speed\":30.555,\"thw\":1.5,\"ttc\":null}}");
    free(s);
    cJSON_Delete(o);
    m.lead.valid = false;
    m.n_vehicles = 0;
    m.frozen = true;
    o = sim_msg_traffic_state_encode(&m);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"run\":2,\"total\":9,\"ambient\":4,\"frozen\":true,\"vehicles\":[],\"lead\":null}");
    free(s);
    cJSON_Delete(o);
}

static void state_round_trip(void **state)
{
    sim_msg_traffic_vehicle v[2] = {car(), car()};
    snprintf(v[1].id, sizeof v[1].id, "a17");
    v[1].left = true;
    v[1].road[0] = '\0';
    v[1].has_ref = true; /* an OpenSCENARIO entity: its reference point 1.4 m behind the centre */
    v[1].pos_ref[0] = 398.6;
    v[1].pos_ref[1] = -5.625;
    sim_msg_traffic_state m = {.run = 1, .total = 2, .vehicles = v, .n_vehicles = 2,
                               .lead = {.valid = true, .id = "a17", .gap = 3, .speed = 0, .thw = INFINITY, .ttc = 0.5}};
    cJSON *o = sim_msg_traffic_state_encode(&m);
    sim_msg_traffic_vehicle back[2];
    sim_msg_traffic_state d = {.vehicles = back};
    sim_error err = {0};
    assert_int_equal(sim_msg_traffic_state_decode(o, &d, 2, &err), SIM_OK);
    assert_int_equal(d.n_vehicles, 2);
    assert_int_equal(d.run, 1);
    assert_string_equal(back[1].id, "a17");
    assert_string_equal(back[1].road, "");
    assert_true(back[1].left && !back[1].right && back[1].brake);
    assert_int_equal(back[0].lane, -3);
    assert_true(fabs(back[0].pos[0] - 400.0) < 1e-9);
    assert_false(back[0].has_ref);
    assert_true(back[1].has_ref && back[1].pos_ref[0] == 398.6 && back[1].pos_ref[1] == -5.625 && back[1].pos_ref[2] == 0);
    assert_true(d.lead.valid && isinf(d.lead.thw) && d.lead.ttc == 0.5);
    /* max caps what is read */
    assert_int_equal(sim_msg_traffic_state_decode(o, &d, 1, &err), SIM_OK);
    assert_int_equal(d.n_vehicles, 1);
    cJSON_Delete(o);
}

/* What the physics node relies on: defaults for a bare entry, and a bad entry left out
 * with the good ones kept (and named in the error). */
static void state_lenient_entries(void **state)
{
    cJSON *o = cJSON_Parse("{\"vehicles\":[{\"pos\":[1,2,3]},{\"heading\":1},"
                           "{\"pos\":[4,5,6],\"size\":[10,2.5,3],\"velocity\":[1,0,0]},{\"pos\":[1,\"x\",3]}]}");
    sim_msg_traffic_vehicle v[8];
    sim_msg_traffic_state d = {.vehicles = v};
    sim_error err = {0};
    assert_int_equal(sim_msg_traffic_state_decode(o, &d, 8, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "traffic.state: vehicles[1].pos: missing, expected an array of 3 numbers");
    assert_int_equal(d.n_vehicles, 2);
    assert_int_equal(d.skipped, 2);
    assert_true(v[0].size[0] == 4.5 && v[0].size[1] == 1.8 && v[0].size[2] == 1.5 && v[0].heading == 0);
    assert_true(v[1].size[0] == 10 && v[1].velocity[0] == 1);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"vehicles\":[{\"pos\":[1,2,3],\"indicator\":\"hazard\"},{\"pos\":[1,2,3],\"indicator\":\"up\"}]}");
    assert_int_equal(sim_msg_traffic_state_decode(o, &d, 8, &err), SIM_EINVAL);
    assert_int_equal(d.n_vehicles, 1);
    assert_true(v[0].left && v[0].right);
    assert_non_null(strstr(err.msg, "traffic.state: vehicles[1].indicator: found \"up\""));
    cJSON_Delete(o);
    o = cJSON_Parse("{\"vehicles\":7}");
    assert_int_equal(sim_msg_traffic_state_decode(o, &d, 8, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "traffic.state: vehicles: found 7, expected an array");
    cJSON_Delete(o);
}

static void event_bytes_and_back(void **state)
{
    sim_msg_traffic_event e = {.trigger = "brake", .action = "brake", .agent = "car5", .by = "ego"};
    cJSON *o = sim_msg_traffic_event_encode(&e);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"trigger\":\"brake\",\"action\":\"brake\",\"agent\":\"car5\",\"by\":\"ego\"}");
    free(s);
    sim_msg_traffic_event d;
    assert_int_equal(sim_msg_traffic_event_decode(o, &d, NULL), SIM_OK);
    assert_string_equal(d.agent, "car5");
    cJSON_Delete(o);
    sim_msg_traffic_event h = {.trigger = "bend", .action = "hud_text", .by = "ego", .text = "Curve ahead"};
    o = sim_msg_traffic_event_encode(&h);
    s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"trigger\":\"bend\",\"action\":\"hud_text\",\"agent\":null,\"by\":\"ego\",\"text\":\"Curve ahead\"}");
    free(s);
    assert_int_equal(sim_msg_traffic_event_decode(o, &d, NULL), SIM_OK);
    assert_string_equal(d.text, "Curve ahead");
    assert_string_equal(d.agent, "");
    cJSON_Delete(o);
    sim_error err = {0};
    o = cJSON_Parse("{\"trigger\":\"x\",\"action\":\"fly\",\"by\":\"ego\"}");
    assert_int_equal(sim_msg_traffic_event_decode(o, &d, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "traffic.event: action: found \"fly\""));
    cJSON_Delete(o);
}

/* traffic.ego: byte-exact, back, and a negative speed refused naming the field. */
static void ego_bytes_and_back(void **state)
{
    sim_msg_traffic_ego e = {.id = "Ego", .x = 12.5, .y = -3.25, .heading = 0.5, .speed = 30, .x_ref = 11.25, .y_ref = -3.75};
    cJSON *o = sim_msg_traffic_ego_encode(&e);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"id\":\"Ego\",\"x\":12.5,\"y\":-3.25,\"heading\":0.5,\"speed\":30,\"x_ref\":11.25,\"y_ref\":-3.75}");
    free(s);
    sim_msg_traffic_ego d;
    assert_int_equal(sim_msg_traffic_ego_decode(o, &d, NULL), SIM_OK);
    assert_string_equal(d.id, "Ego");
    assert_true(d.x == 12.5 && d.y == -3.25 && d.heading == 0.5 && d.speed == 30);
    assert_true(d.x_ref == 11.25 && d.y_ref == -3.75);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"id\":\"Ego\",\"x\":1,\"y\":2,\"heading\":0,\"speed\":1}"); /* no reference point: x, y */
    assert_int_equal(sim_msg_traffic_ego_decode(o, &d, NULL), SIM_OK);
    assert_true(d.x_ref == 1 && d.y_ref == 2);
    cJSON_Delete(o);
    sim_error err = {0};
    o = cJSON_Parse("{\"id\":\"Ego\",\"x\":1,\"y\":2,\"heading\":0,\"speed\":-1}");
    assert_int_equal(sim_msg_traffic_ego_decode(o, &d, &err), SIM_ERANGE);
    assert_non_null(strstr(err.msg, "traffic.ego"));
    assert_non_null(strstr(err.msg, "speed"));
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_bytes),
        cmocka_unit_test(state_round_trip),
        cmocka_unit_test(state_lenient_entries),
        cmocka_unit_test(event_bytes_and_back),
        cmocka_unit_test(ego_bytes_and_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
