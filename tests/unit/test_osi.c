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
#include "sim_scenario.h"

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

/* A road of a scenario JSON text, its lanes sampled every 2 m. */
static sim_scenario *road_scenario(const char *road, sim_osi_road_lanes *L)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"name\": \"r\", \"roads\": [%s]}", road);
    sim_scenario *sc = NULL;
    sim_diag d = {0};
    int rc = sim_scenario_parse(text, strlen(text), "r.json", ".", &sc, &d);
    if (rc) fail_msg("%s", d.n ? d.msgs[0] : "?");
    sim_error err = {0};
    assert_int_equal(sim_osi_lanes_from_net(&sc->net, 2.0, L, &err), 0);
    return sc;
}

static const sim_osi_lane *lane_by_id(const sim_osi_road_lanes *L, uint64_t id)
{
    for (size_t i = 0; i < L->n_lanes; i++)
        if (L->lanes[i].id == id) return &L->lanes[i];
    fail_msg("no lane %llu", (unsigned long long)id);
    return NULL;
}

static const sim_osi_boundary *boundary_by_id(const sim_osi_road_lanes *L, uint64_t id)
{
    for (size_t i = 0; i < L->n_boundaries; i++)
        if (L->boundaries[i].id == id) return &L->boundaries[i];
    fail_msg("no boundary %llu", (unsigned long long)id);
    return NULL;
}

/* A straight road 5 m long from (10, 20) heading north (+y): its left is -x. Lane 1
 * (3.5 m, dashed outer mark) and lane -1 (3 m, solid), a solid centre line. Samples at
 * s 0, 2, 4 and the end 5; lane 1's centre at t 1.75 (x 8.25), lane -1's at t -1.5
 * (x 11.5); borders at x 6.5, 10, 13. */
static void test_lanes_straight(void **state)
{
    (void)state;
    sim_osi_road_lanes L;
    sim_scenario *sc = road_scenario(
        "{\"id\": \"st\", \"start\": {\"x\": 10, \"y\": 20, \"heading_deg\": 90}, \"segments\": [{\"type\": \"line\", "
        "\"length\": 5}], \"lanes\": {\"center_mark\": \"solid\", \"left\": [{\"width\": 3.5, \"mark\": \"dashed\"}], "
        "\"right\": [{\"width\": 3, \"mark\": \"solid\"}]}}",
        &L);
    assert_int_equal(L.n_lanes, 2);
    assert_int_equal(L.n_boundaries, 3);
    uint64_t b0 = sim_osi_boundary_id("st", 0, 0), b1 = sim_osi_boundary_id("st", 0, 1);
    uint64_t bm1 = sim_osi_boundary_id("st", 0, -1);
    const sim_osi_lane *l1 = lane_by_id(&L, sim_osi_lane_id("st", 0, 1));
    const sim_osi_lane *r1 = lane_by_id(&L, sim_osi_lane_id("st", 0, -1));
    const double ys[4] = {20, 22, 24, 25};
    assert_int_equal(l1->n_centerline, 4);
    assert_int_equal(r1->n_centerline, 4);
    for (int i = 0; i < 4; i++) {
        assert_float_equal(l1->centerline[i][0], 8.25, 1e-9);
        assert_float_equal(l1->centerline[i][1], ys[i], 1e-9);
        assert_float_equal(l1->centerline[i][2], 0, 1e-9);
        assert_float_equal(r1->centerline[i][0], 11.5, 1e-9);
        assert_float_equal(r1->centerline[i][1], ys[i], 1e-9);
    }
    /* right-hand traffic: lane -1 runs along s; left and right seen along the points */
    assert_true(r1->forward);
    assert_false(l1->forward);
    assert_int_equal(l1->type, SIM_OSI_LANE_DRIVING);
    assert_true(l1->left_boundary == b1 && l1->right_boundary == b0);
    assert_true(r1->left_boundary == b0 && r1->right_boundary == bm1);
    assert_true(l1->left_adjacent == 0 && l1->right_adjacent == r1->id);
    assert_true(r1->left_adjacent == l1->id && r1->right_adjacent == 0);
    const double xs[3] = {10, 6.5, 13};
    const int types[3] = {SIM_OSI_LB_SOLID, SIM_OSI_LB_DASHED, SIM_OSI_LB_SOLID};
    const uint64_t ids[3] = {b0, b1, bm1};
    for (int k = 0; k < 3; k++) {
        const sim_osi_boundary *b = boundary_by_id(&L, ids[k]);
        assert_int_equal(b->type, types[k]);
        assert_int_equal(b->color, 3);
        assert_int_equal(b->n_points, 4);
        for (int i = 0; i < 4; i++) {
            assert_float_equal(b->points[i].position[0], xs[k], 1e-9);
            assert_float_equal(b->points[i].position[1], ys[i], 1e-9);
            assert_float_equal(b->points[i].width, SIM_OSI_MARK_WIDTH, 0);
        }
    }
    sim_osi_road_lanes_free(&L);
    sim_scenario_free(sc);
}

/* A quarter circle of radius 50 turning left from (0, 0) heading +x: the centre of
 * the circle at (0, 50); a point at (s, t) is at radius 50 - t, angle s / 50:
 * ((50 - t) sin(s/50), 50 - (50 - t) cos(s/50)). One right lane 4 m wide (centre at
 * radius 52, outer border 54) with no mark; 25 pi m sampled at 0, 2, ..., 78 and the
 * end (41 points), the last at (52, 50) and (54, 50). */
static void test_lanes_curved(void **state)
{
    (void)state;
    sim_osi_road_lanes L;
    const double len = 25 * M_PI;
    char road[512];
    snprintf(road, sizeof road,
             "{\"id\": \"arc\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0}, \"segments\": [{\"type\": \"arc\", "
             "\"length\": %.17g, \"curvature\": 0.02}], \"lanes\": {\"right\": [{\"width\": 4, \"mark\": \"none\"}]}}",
             len);
    sim_scenario *sc = road_scenario(road, &L);
    assert_int_equal(L.n_lanes, 1);
    assert_int_equal(L.n_boundaries, 2);
    const sim_osi_lane *l = lane_by_id(&L, sim_osi_lane_id("arc", 0, -1));
    const sim_osi_boundary *outer = boundary_by_id(&L, sim_osi_boundary_id("arc", 0, -1));
    const sim_osi_boundary *centre = boundary_by_id(&L, sim_osi_boundary_id("arc", 0, 0));
    assert_int_equal(l->n_centerline, 41);
    assert_int_equal(outer->n_points, 41);
    assert_int_equal(outer->type, SIM_OSI_LB_NO_LINE);
    assert_int_equal(outer->color, 0);
    for (int i = 0; i < 41; i++) {
        double s = i == 40 ? len : 2.0 * i, a = s / 50;
        assert_float_equal(l->centerline[i][0], 52 * sin(a), 1e-6);
        assert_float_equal(l->centerline[i][1], 50 - 52 * cos(a), 1e-6);
        assert_float_equal(outer->points[i].position[0], 54 * sin(a), 1e-6);
        assert_float_equal(outer->points[i].position[1], 50 - 54 * cos(a), 1e-6);
        assert_float_equal(outer->points[i].width, 0, 0);
        assert_float_equal(centre->points[i].position[0], 50 * sin(a), 1e-6);
        assert_float_equal(centre->points[i].position[1], 50 - 50 * cos(a), 1e-6);
    }
    assert_float_equal(l->centerline[40][0], 52, 1e-6);
    assert_float_equal(l->centerline[40][1], 50, 1e-6);
    sim_osi_road_lanes_free(&L);
    sim_scenario_free(sc);
    sim_error err = {0};
    assert_int_equal(sim_osi_lanes_from_net(&(sim_roadnet){0}, 0, &L, &err), SIM_EINVAL);
}

/* A LaneBoundary's bytes: GroundTruth field 9 (tag 0x4a), then a Lane in field 10
 * (tag 0x52), after the version, timestamp and host id. */
static void test_lane_bytes(void **state)
{
    (void)state;
    sim_osi_boundary_point p = {.position = {0, 0, 0}, .width = 0.5};
    sim_osi_boundary b = {.id = 7, .type = SIM_OSI_LB_SOLID, .color = 3, .points = &p, .n_points = 1};
    sim_osi_lane ln = {.id = 5, .type = SIM_OSI_LANE_DRIVING, .forward = true};
    sim_osi_road_lanes L = {.lanes = &ln, .n_lanes = 1, .boundaries = &b, .n_boundaries = 1};
    sim_osi_ground_truth gt = {.t = 1.005, .host_id = 1, .lanes = &L};
    uint8_t *buf = NULL;
    size_t len = 0;
    encode(&gt, &buf, &len);
    const uint8_t want[] = {
        0x4a, 50,                                            /* lane_boundary, 50 bytes */
        0x0a, 2, 0x08, 7,                                    /* id {value 7} */
        0x12, 38,                                            /* boundary_line (BoundaryPoint) */
        0x0a, 27, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0x19, 0, 0, 0, 0, 0, 0, 0, 0,
        0x11, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f,                  /* width 0.5 */
        0x1a, 4, 0x08, 3, 0x10, 3,                           /* classification {type solid, color white} */
        0x52, 10,                                            /* lane, 10 bytes */
        0x0a, 2, 0x08, 5,                                    /* id {value 5} */
        0x12, 4, 0x08, 2, 0x20, 1,                           /* classification {type driving, along} */
    };
    assert_int_equal(len, 21 + sizeof want);
    assert_memory_equal(buf + 21, want, sizeof want);
    free(buf);
}

/* An object's lane from the bus's road, s and lane: the Lane of the section holding s
 * (a road of two sections, the second from s 3), none for an unknown road, lane or a
 * lane the section lacks; its bytes: MovingObject field 9 {assigned_lane_id (1)}. */
static void test_assigned_lane(void **state)
{
    (void)state;
    sim_osi_road_lanes L;
    sim_scenario *sc = road_scenario(
        "{\"id\": \"two\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0}, \"segments\": [{\"type\": \"line\", "
        "\"length\": 10}], \"lanes\": [{\"s\": 0, \"right\": [{\"width\": 3}]}, {\"s\": 3, \"right\": [{\"width\": 3}, "
        "{\"width\": 3}]}]}",
        &L);
    assert_int_equal(L.n_lanes, 3);
    const sim_roadnet *net = &sc->net;
    assert_true(sim_osi_assigned_lane(net, "two", 2.9, -1) == sim_osi_lane_id("two", 0, -1));
    assert_true(sim_osi_assigned_lane(net, "two", 3.1, -1) == sim_osi_lane_id("two", 1, -1));
    assert_true(sim_osi_assigned_lane(net, "two", 7, -2) == sim_osi_lane_id("two", 1, -2));
    assert_true(sim_osi_lane_id("two", 0, -1) != sim_osi_lane_id("two", 1, -1));
    assert_true(sim_osi_assigned_lane(net, "two", 1, -2) == 0);
    assert_true(sim_osi_assigned_lane(net, "two", 1, 1) == 0);
    assert_true(sim_osi_assigned_lane(net, "two", 1, 0) == 0);
    assert_true(sim_osi_assigned_lane(net, "two", 1, SIM_MSG_NO_INT) == 0);
    assert_true(sim_osi_assigned_lane(net, "nope", 1, -1) == 0);
    assert_true(sim_osi_assigned_lane(net, "", 1, -1) == 0);
    sim_osi_road_lanes_free(&L);
    sim_scenario_free(sc);
    sim_osi_object o;
    sim_osi_object_clear(&o);
    o.id = 9, o.assigned_lane = 5;
    sim_osi_ground_truth gt = {.t = 1.005, .host_id = 1, .objects = &o, .n_objects = 1};
    uint8_t *buf = NULL;
    size_t len = 0;
    encode(&gt, &buf, &len);
    /* id {9}, base {} (nothing known), type unknown, moving_object_classification {lane 5} */
    const uint8_t want[] = {0x2a, 14, 0x0a, 2, 0x08, 9, 0x12, 0, 0x18, 0, 0x4a, 4, 0x0a, 2, 0x08, 5};
    assert_int_equal(len, 21 + sizeof want);
    assert_memory_equal(buf + 21, want, sizeof want);
    free(buf);
}

/* sim_osi_heads: a head placed by its own signal.state (no scenario), its state
 * changed by id, an unknown state name and an unplaced unknown head ignored. */
static void test_heads(void **state)
{
    (void)state;
    sim_osi_heads h;
    sim_error err = {0};
    assert_int_equal(sim_osi_heads_init(&h, NULL, &err), 0);
    size_t n = 99;
    assert_int_equal(sim_osi_heads_lights(&h, &n, &err), 0);
    assert_int_equal(n, 0);
    sim_msg_signal_state m = {.id = "sumo_j1_0", .state = "red"};
    sim_msg_signal_where w = {.pos = {NAN, NAN, NAN}, .heading = NAN};
    assert_int_equal(sim_osi_heads_signal(&h, &m, &w, &err), 0); /* unknown and unplaced: left out */
    assert_int_equal(h.n_extra, 0);
    w = (sim_msg_signal_where){.pos = {10, 20, 0}, .heading = 0.5};
    assert_int_equal(sim_osi_heads_signal(&h, &m, &w, &err), 0);
    assert_int_equal(sim_osi_heads_lights(&h, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(h.lights[0].color, 2);
    assert_int_equal(h.lights[0].mode, 3); /* red lit */
    assert_int_equal(h.lights[2].mode, 2); /* green off */
    assert_true(fabs(h.lights[0].yaw - 0.5) < 1e-12);
    snprintf(m.state, sizeof m.state, "green"); /* by id, without its place again */
    w = (sim_msg_signal_where){.pos = {NAN, NAN, NAN}, .heading = NAN};
    assert_int_equal(sim_osi_heads_signal(&h, &m, &w, &err), 0);
    snprintf(m.state, sizeof m.state, "purple"); /* not a state: ignored */
    assert_int_equal(sim_osi_heads_signal(&h, &m, &w, &err), 0);
    assert_int_equal(sim_osi_heads_lights(&h, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(h.n_extra, 1);
    assert_int_equal(h.lights[0].mode, 2);
    assert_int_equal(h.lights[2].mode, 3);
    sim_osi_heads_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_ground_truth_bytes), cmocka_unit_test(test_object_bytes),
        cmocka_unit_test(test_bad_time_refused),         cmocka_unit_test(test_ids),
        cmocka_unit_test(test_host_box_centre),          cmocka_unit_test(test_traffic_vehicle),
        cmocka_unit_test(test_environment),              cmocka_unit_test(test_traffic_lights),
        cmocka_unit_test(test_lanes_straight),           cmocka_unit_test(test_lanes_curved),
        cmocka_unit_test(test_lane_bytes),               cmocka_unit_test(test_assigned_lane),
        cmocka_unit_test(test_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
