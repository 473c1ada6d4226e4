/* Unit tests of common/osi: a GroundTruth's bytes against the protobuf wire format
 * written out here by hand (tag = field number << 3 | wire type), the timestamp split,
 * the ids, and the frame conversions (the host's box centre from its centre of gravity
 * under yaw, pitch and roll; a traffic vehicle's from its point on the road).
 * tests/scripts/test_export_osi.sh decodes a real trace with Google's protobuf. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_osi.h"

static void encode(const sim_osi_ground_truth *gt, uint8_t **buf, size_t *len)
{
    size_t cap = 0;
    sim_error err = {0};
    assert_int_equal(sim_osi_groundtruth_encode(gt, buf, &cap, len, &err), 0);
}

/* version 3.8.0 (field 1), timestamp (2), host id (3): each a length-delimited message. */
static void test_empty_ground_truth_bytes(void **state)
{
    (void)state;
    sim_osi_ground_truth gt = {.t = 1.005, .host_id = 1};
    uint8_t *buf = NULL;
    size_t len = 0;
    encode(&gt, &buf, &len);
    const uint8_t want[] = {
        0x0a, 6, 0x08, 3, 0x10, 8, 0x18, 0,                 /* version {major 3, minor 8, patch 0} */
        0x12, 7, 0x08, 1, 0x10, 0xc0, 0x96, 0xb1, 0x02,     /* timestamp {seconds 1, nanos 5000000} */
        0x1a, 2, 0x08, 1,                                   /* host_vehicle_id {value 1} */
    };
    assert_int_equal(len, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    free(buf);
}

/* One moving object with only an id, type and position: field 5 of GroundTruth. */
static void test_object_bytes(void **state)
{
    (void)state;
    sim_osi_object o;
    sim_osi_object_clear(&o);
    o.id = 300;
    o.type = SIM_OSI_MO_PEDESTRIAN;
    o.position[0] = 1.0, o.position[1] = -2.0, o.position[2] = 0.5;
    sim_osi_ground_truth gt = {.t = 0, .host_id = 1, .objects = &o, .n_objects = 1};
    uint8_t *buf = NULL;
    size_t len = 0;
    encode(&gt, &buf, &len);
    /* the object: id {value 300} = 0a 03 08 ac 02; base {position {x 1 y -2 z 0.5}} =
     * 12 (2+27) 12 27 09 <8> 11 <8> 19 <8>; type 3 = 18 03 */
    uint8_t want[64];
    size_t n = 0;
    want[n++] = 0x2a, want[n++] = 5 + 31 + 2;
    want[n++] = 0x0a, want[n++] = 3, want[n++] = 0x08, want[n++] = 0xac, want[n++] = 0x02;
    want[n++] = 0x12, want[n++] = 29, want[n++] = 0x12, want[n++] = 27;
    const double xyz[3] = {1.0, -2.0, 0.5};
    for (int k = 0; k < 3; k++) {
        want[n++] = (uint8_t)(((k + 1) << 3) | 1);
        memcpy(want + n, &xyz[k], 8); /* little-endian IEEE 754 on this machine, as on the wire */
        n += 8;
    }
    want[n++] = 0x18, want[n++] = 3;
    /* after version (8 bytes), timestamp {seconds 0, nanos 0} (6) and host (4) */
    assert_int_equal(len, 8 + 6 + 4 + n);
    assert_memory_equal(buf + 18, want, n);
    free(buf);
}

static void test_bad_time_refused(void **state)
{
    (void)state;
    sim_osi_ground_truth gt = {.t = -0.01, .host_id = 1};
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    sim_error err = {0};
    assert_int_equal(sim_osi_groundtruth_encode(&gt, &buf, &cap, &len, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "-0.01"));
    gt.t = NAN;
    assert_int_equal(sim_osi_groundtruth_encode(&gt, &buf, &cap, &len, &err), SIM_EINVAL);
    free(buf);
}

static void test_ids(void **state)
{
    (void)state;
    /* FNV-1a 64 of "" is 0xcbf29ce484222325; kept to 53 bits */
    assert_int_equal(sim_osi_id(""), 0xcbf29ce484222325ull & ((1ull << 53) - 1));
    /* of "a": 0xaf63dc4c8601ec8c */
    assert_int_equal(sim_osi_id("a"), 0xaf63dc4c8601ec8cull & ((1ull << 53) - 1));
    assert_int_not_equal(sim_osi_id("a1"), sim_osi_id("a2"));
    assert_true(sim_osi_id("lead") > SIM_OSI_HOST_ID);
}

static void test_host_box_centre(void **state)
{
    (void)state;
    sim_osi_ego_geometry g = {.box_half = {2, 1, 0.5}, .box_offset = {1, 0, 0}, .rear_axle = {-1, 0, -0.2},
                              .front_axle = {1.5, 0, -0.2}, .wheel_radius = 0.3};
    sim_msg_vehicle_state s;
    sim_msg_vehicle_state_clear(&s);
    s.pos[0] = 10, s.pos[1] = 20, s.pos[2] = 0.5;
    s.heading = M_PI / 2, s.pitch = 0, s.roll = 0;
    s.vel[0] = 0, s.vel[1] = 5, s.vel[2] = 0;
    s.ang_vel_body[0] = 0, s.ang_vel_body[1] = 0, s.ang_vel_body[2] = 0.5; /* turning left */
    s.accel_body[0] = 1, s.accel_body[1] = 0, s.accel_body[2] = 0;
    s.brake = 0.2;
    sim_osi_object o;
    sim_osi_object_from_vehicle(&s, &g, &o);
    /* heading +y: the box centre 1 m ahead of the COG is at (10, 21) */
    assert_float_equal(o.position[0], 10, 1e-12);
    assert_float_equal(o.position[1], 21, 1e-12);
    assert_float_equal(o.position[2], 0.5, 1e-12);
    assert_float_equal(o.dimension[0], 4, 0);
    assert_float_equal(o.dimension[2], 1, 0);
    /* omega (0, 0, 0.5) x r (0, 1, 0) = (-0.5, 0, 0) added to the COG's (0, 5, 0) */
    assert_float_equal(o.velocity[0], -0.5, 1e-12);
    assert_float_equal(o.velocity[1], 5, 1e-12);
    assert_float_equal(o.acceleration[1], 1, 1e-12);
    assert_float_equal(o.orientation_rate[2], 0.5, 1e-12);
    assert_float_equal(o.bbcenter_to_rear[0], -2, 1e-12);
    assert_float_equal(o.bbcenter_to_front[0], 0.5, 1e-12);
    assert_float_equal(o.bbcenter_to_rear[2], -0.2, 1e-12);
    assert_int_equal(o.brake_light, SIM_OSI_BRAKE_NORMAL);
    assert_int_equal(o.id, SIM_OSI_HOST_ID);

    /* nose down (pitch +0.1, ISO 8855) with heading 0: the box centre ahead sinks by sin 0.1 */
    s.heading = 0, s.pitch = 0.1, s.roll = 0;
    sim_osi_object_from_vehicle(&s, &g, &o);
    assert_float_equal(o.position[0], 10 + cos(0.1), 1e-12);
    assert_float_equal(o.position[2], 0.5 - sin(0.1), 1e-12);
    /* right side down (roll +0.2): an offset to the left rises */
    g.box_offset[0] = 0, g.box_offset[1] = 1;
    s.pitch = 0, s.roll = 0.2;
    sim_osi_object_from_vehicle(&s, &g, &o);
    assert_float_equal(o.position[1], 20 + cos(0.2), 1e-12);
    assert_float_equal(o.position[2], 0.5 + sin(0.2), 1e-12);
    assert_float_equal(o.orientation[0], 0.2, 0);
}

static void test_traffic_vehicle(void **state)
{
    (void)state;
    sim_msg_traffic_vehicle v = {.id = "lead", .model = "truck", .pos = {5, 6, 1}, .heading = 0.3,
                                 .size = {12, 2.5, 3.6}, .velocity = {20, 1, 0}, .brake = true, .left = true,
                                 .right = true};
    sim_osi_object o;
    sim_osi_object_from_traffic(&v, &o);
    assert_float_equal(o.position[2], 1 + 1.8, 0);
    assert_float_equal(o.position[0], 5, 0);
    assert_float_equal(o.orientation[2], 0.3, 0);
    assert_int_equal(o.type, SIM_OSI_MO_VEHICLE);
    assert_int_equal(o.vehicle_type, SIM_OSI_VC_HEAVY_TRUCK);
    assert_int_equal(o.indicator, SIM_OSI_IND_WARNING);
    assert_int_equal(o.brake_light, SIM_OSI_BRAKE_NORMAL);
    assert_int_equal(o.id, sim_osi_id("lead"));
    assert_string_equal(o.name, "lead");
    assert_true(isnan(o.acceleration[0]));
    snprintf(v.model, sizeof v.model, "pedestrian");
    sim_osi_object_from_traffic(&v, &o);
    assert_int_equal(o.type, SIM_OSI_MO_PEDESTRIAN);
    assert_true(o.vehicle_type < 0);
    assert_int_equal(o.indicator, 0);
    snprintf(v.model, sizeof v.model, "tractor");
    sim_osi_object_from_traffic(&v, &o);
    assert_int_equal(o.vehicle_type, SIM_OSI_VC_OTHER);
}

static void test_environment(void **state)
{
    (void)state;
    sim_osi_environment e;
    sim_osi_environment_from(SIM_LIGHT_DAY, 10.5, SIM_WEATHER_CLEAR, 10000, 2.5, &e);
    assert_int_equal(e.seconds_since_midnight, 37802);
    assert_int_equal(e.fog, 3);                  /* [10000, 40000[: good visibility */
    assert_int_equal(e.precipitation, 2);        /* none */
    assert_int_equal(e.ambient_illumination, 9); /* LEVEL8: daylight */
    sim_osi_environment_from(SIM_LIGHT_NIGHT, 23.999, SIM_WEATHER_RAIN, 50, 10, &e);
    assert_int_equal(e.seconds_since_midnight, 6); /* 86396.4 + 10 s, past midnight */
    assert_int_equal(e.fog, 8);                    /* [50, 200[: thick */
    assert_int_equal(e.precipitation, 1);          /* other: no intensity */
    assert_int_equal(e.ambient_illumination, 2);
    sim_osi_environment_from(SIM_LIGHT_DUSK, 12, SIM_WEATHER_FOG, 49.9, 0, &e);
    assert_int_equal(e.fog, 9);
    assert_int_equal(e.ambient_illumination, 5);
    sim_osi_environment_from(SIM_LIGHT_DAY, 12, SIM_WEATHER_CLOUDY, 40000, 0, &e);
    assert_int_equal(e.fog, 2);
    assert_int_equal(e.ambient_illumination, 8);
    /* on the wire: field 12 of GroundTruth, ambient_illumination (1), time_of_day (2),
     * precipitation (6), fog (7) */
    sim_osi_ground_truth gt = {.t = 0, .host_id = 1, .env = &e};
    uint8_t *buf = NULL;
    size_t len = 0;
    encode(&gt, &buf, &len);
    const uint8_t want[] = {0x62, 12, 0x08, 8, 0x12, 4, 0x08, 0xc0, 0xd1, 0x02 /* 43200 */, 0x30, 2, 0x38, 2};
    assert_int_equal(len, 18 + sizeof want);
    assert_memory_equal(buf + 18, want, sizeof want);
    free(buf);
}

static void test_traffic_lights(void **state)
{
    (void)state;
    sim_light_head h = {.id = "north", .kind = SIM_HEAD_VEHICLE, .x = 10, .y = 0, .z = 1, .heading = M_PI / 2,
                        .z_offset = 3, .height = 0.9, .width = 0.3};
    sim_osi_light l[3];
    assert_int_equal(sim_osi_lights_from_head(&h, SIM_SIGNAL_RED_AMBER, l), 3);
    int modes[3] = {l[0].mode, l[1].mode, l[2].mode};
    assert_int_equal(l[0].color, 2);
    assert_int_equal(l[1].color, 3);
    assert_int_equal(l[2].color, 4);
    assert_int_equal(modes[0], 3);
    assert_int_equal(modes[1], 3);
    assert_int_equal(modes[2], 2);
    /* the housing 0.07 + 0.125 m in front of the post, along the face's look (+y) */
    assert_float_equal(l[0].position[0], 10, 1e-12);
    assert_float_equal(l[0].position[1], 0.195, 1e-12);
    assert_float_equal(l[0].position[2], 1 + 3 + 0.75, 1e-12); /* 5/6 of 0.9 */
    assert_float_equal(l[2].position[2], 1 + 3 + 0.15, 1e-12);
    assert_float_equal(l[1].dimension[2], 0.3, 1e-12);
    assert_float_equal(l[1].yaw, M_PI / 2, 0);
    assert_int_equal(l[0].id, sim_osi_id("north/red"));
    assert_string_equal(l[0].name, "north");
    sim_osi_lights_from_head(&h, SIM_SIGNAL_FLASHING_AMBER, l);
    assert_int_equal(l[0].mode, 2);
    assert_int_equal(l[1].mode, 4);
    sim_osi_lights_from_head(&h, SIM_SIGNAL_OFF, l);
    assert_int_equal(l[0].mode + l[1].mode + l[2].mode, 6);
    /* a pedestrian head: red and green, at 3/4 and 1/4; amber lights neither */
    h.kind = SIM_HEAD_PEDESTRIAN;
    assert_int_equal(sim_osi_lights_from_head(&h, SIM_SIGNAL_AMBER, l), 2);
    assert_int_equal(l[0].color, 2);
    assert_int_equal(l[1].color, 4);
    assert_int_equal(l[0].icon, 15);
    assert_int_equal(l[0].mode, 2);
    assert_int_equal(l[1].mode, 2);
    assert_float_equal(l[1].position[2], 1 + 3 + 0.225, 1e-12);
    sim_osi_lights_from_head(&h, SIM_SIGNAL_GREEN, l);
    assert_int_equal(l[1].mode, 3);
    /* on the wire: GroundTruth field 7 */
    sim_osi_ground_truth gt = {.t = 0, .host_id = 1, .lights = l, .n_lights = 2};
    uint8_t *buf = NULL;
    size_t len = 0;
    encode(&gt, &buf, &len);
    assert_int_equal(buf[18], 0x3a);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_ground_truth_bytes), cmocka_unit_test(test_object_bytes),
        cmocka_unit_test(test_bad_time_refused),         cmocka_unit_test(test_ids),
        cmocka_unit_test(test_host_box_centre),          cmocka_unit_test(test_traffic_vehicle),
        cmocka_unit_test(test_environment),              cmocka_unit_test(test_traffic_lights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
