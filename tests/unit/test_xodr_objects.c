/* OpenDRIVE <objects> and <signals> (sim_xodr_objects.c) against the shared files:
 * exact counts, the speed signs of straight_500m_signs.xodr as the limits of the lanes
 * they face (worked out by hand from the file below), object and head positions, a
 * repeat expanded, an outline's corners, and errors naming the element. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_road.h"
#include "sim_xodr.h"
#include "test_support.h"
#include "ts_assert.h"

static void load(const char *rel, sim_roadnet *net, sim_xodr_report *rep)
{
    sim_error err = {0};
    int rc = sim_xodr_load(ts_root(rel), net, rep, &err);
    if (rc) fail_msg("%s: %s", rel, err.msg);
}

#define KMH(v) ((v) / 3.6)

/* straight_500m_signs.xodr: one 500 m road along +x, 19 signals. Speed signs facing
 * traffic along s ("+", lane -1): 50 at 0, 30 at 100, 50 at 200, 50 at 350 (the
 * "de_274-50" named one); against s ("-", lane 1, driven from 500 down): 50 at 500,
 * 70 at 260 (cn jin), 30 at 200, 50 at 100. Not limits: cn shi (a minimum), se a-20,
 * de 123, se c-27, se c-28. */
static void speed_signs_become_lane_limits(void **state)
{
    (void)state;
    sim_roadnet net;
    sim_xodr_report rep;
    load("../shared/openscenario/xodr/straight_500m_signs.xodr", &net, &rep);
    assert_int_equal(rep.n_signals, 19);
    assert_int_equal(rep.n_speed_signs, 14);
    assert_int_equal(rep.n_light_heads, 0);
    char unsup[400];
    sim_xodr_unsupported_text(&rep, unsup, sizeof unsup);
    assert_non_null(strstr(unsup, "signal cn/shi (1), signal se/a-20 (1), signal de/123 (1), signal se/c-27 (1), "
                                  "signal se/c-28 (1)"));
    const sim_road *r = &net.roads[0];
    assert_int_equal(r->n_signs, 14);
    /* along s, lane -1 */
    NEAR(sim_road_lane_speed_limit(r, 50, -1), KMH(50), 1e-9);
    NEAR(sim_road_lane_speed_limit(r, 150, -1), KMH(30), 1e-9);
    NEAR(sim_road_lane_speed_limit(r, 230, -1), KMH(50), 1e-9);
    NEAR(sim_road_lane_speed_limit(r, 499, -1), KMH(50), 1e-9);
    /* against s, lane 1 */
    NEAR(sim_road_lane_speed_limit(r, 400, 1), KMH(50), 1e-9);
    NEAR(sim_road_lane_speed_limit(r, 230, 1), KMH(70), 1e-9);
    NEAR(sim_road_lane_speed_limit(r, 150, 1), KMH(30), 1e-9);
    NEAR(sim_road_lane_speed_limit(r, 50, 1), KMH(50), 1e-9);
    /* the 70 sign: drawn at s 260, t 3.57, facing the traffic against s */
    int found = 0;
    for (int i = 0; i < r->n_signs; i++)
        if (r->signs[i].type == SIM_SIGN_SPEED_LIMIT && fabs(r->signs[i].value - KMH(70)) < 1e-9) {
            NEAR(r->signs[i].s, 260, 0);
            NEAR(r->signs[i].d, 3.57, 0);
            assert_int_equal(r->signs[i].facing, -1);
            found++;
        }
    assert_int_equal(found, 1);
    /* 15 poles; pole "8" at s 80, t -3.57, zOffset -0.2 on a flat road along x */
    assert_int_equal(rep.n_objects, 15);
    assert_int_equal(net.objects.n, 15);
    assert_int_equal(rep.n_by_kind[SIM_OBJ_POLE], 15);
    const sim_world_object *p8 = NULL;
    for (int i = 0; i < net.objects.n; i++)
        if (strcmp(net.objects.items[i].id, "8") == 0) p8 = &net.objects.items[i];
    assert_non_null(p8);
    NEAR(p8->x, 80, 1e-9);
    NEAR(p8->y, -3.57, 1e-9);
    NEAR(p8->z, -0.2, 1e-9);
    NEAR(p8->height, 2.35, 0);
    NEAR(p8->width, 0.06, 1e-12); /* radius 0.03 */
    sim_roadnet_free(&net);
}

/* fabriksgatan_traffic_lights.xodr: three heads on road "3": "1" a vehicle head at s
 * 109, t -4 for the traffic along s, "2" and "3" pedestrian heads turned by hOffset. */
static void traffic_light_heads(void **state)
{
    (void)state;
    sim_roadnet net;
    sim_xodr_report rep;
    load("../shared/openscenario/xodr/fabriksgatan_traffic_lights.xodr", &net, &rep);
    assert_int_equal(rep.n_signals, 3);
    assert_int_equal(rep.n_light_heads, 3);
    assert_int_equal(net.lights.n_heads, 3);
    assert_int_equal(net.objects.n, 2);
    int road = sim_roadnet_find_road(&net, "3");
    const sim_light_head *h = &net.lights.heads[sim_lights_find_head(&net.lights, "1")];
    assert_int_equal(h->kind, SIM_HEAD_VEHICLE);
    assert_int_equal(h->road, road);
    assert_int_equal(h->orientation, 1);
    NEAR(h->s, 109, 0);
    NEAR(h->stop_s, 109, 0);
    NEAR(h->t, -4, 0);
    NEAR(h->z_offset, 3.4, 0);
    NEAR(h->height, 0.8, 0);
    assert_int_equal(h->controller, -1);
    sim_road_pose p;
    sim_road_pose_at(&net, road, 109, -4, &p);
    NEAR(h->x, p.x, 1e-9);
    NEAR(h->y, p.y, 1e-9);
    /* it looks back along the road, at the traffic coming */
    NEAR(remainder(h->heading - (p.heading + M_PI), 2 * M_PI), 0, 1e-9);
    const sim_light_head *ped = &net.lights.heads[sim_lights_find_head(&net.lights, "2")];
    assert_int_equal(ped->kind, SIM_HEAD_PEDESTRIAN);
    sim_road_pose_at(&net, road, 114, 4, &p);
    NEAR(remainder(ped->heading - (p.heading + M_PI + 1.57), 2 * M_PI), 0, 1e-9);
    sim_roadnet_free(&net);
}

/* fabriksgatan.xodr: 16 <objects> and 16 <signals>, every one empty. */
static void empty_containers_count_nothing(void **state)
{
    (void)state;
    sim_roadnet net;
    sim_xodr_report rep;
    load("../shared/opendrive/fabriksgatan.xodr", &net, &rep);
    assert_int_equal(rep.n_object_containers, 16);
    assert_int_equal(rep.n_signal_containers, 16);
    assert_int_equal(rep.n_objects, 0);
    assert_int_equal(rep.n_signals, 0);
    assert_int_equal(net.objects.n, 0);
    sim_roadnet_free(&net);
}

/* mw_100m.xodr: two railings repeated every 4 m (one from s 0, one from s 4, up to the
 * road's 1000 m: 251 + 250) and two rail poles every 4 m from s 0.1 (250 each). */
static void repeats_expanded(void **state)
{
    (void)state;
    sim_roadnet net;
    sim_xodr_report rep;
    load("../shared/opendrive/mw_100m.xodr", &net, &rep);
    assert_int_equal(rep.n_objects, 4);
    assert_int_equal(rep.n_objects_placed, 1001);
    assert_int_equal(rep.n_by_kind[SIM_OBJ_GUARD_RAIL], 501);
    assert_int_equal(rep.n_by_kind[SIM_OBJ_POLE], 500);
    for (int i = 0; i < net.objects.n; i++) {
        const sim_world_object *o = &net.objects.items[i];
        if (o->kind == SIM_OBJ_GUARD_RAIL) NEAR(o->length, 4.0, 0); /* reaches the next one */
        if (o->kind == SIM_OBJ_POLE) NEAR(o->height, 0.55, 0);
    }
    sim_roadnet_free(&net);
}

/* crest-curve.xodr: Building1 at s 250, t -5, hdg -0.15 with a local outline whose
 * corner (u 25, v -10) lies at the object's position + R(heading) (25, -10). */
static void outline_corners_in_world(void **state)
{
    (void)state;
    sim_roadnet net;
    sim_xodr_report rep;
    load("../shared/openscenario/xodr/crest-curve.xodr", &net, &rep);
    const sim_world_object *b = NULL;
    for (int i = 0; i < net.objects.n; i++)
        if (strcmp(net.objects.items[i].id, "2") == 0) b = &net.objects.items[i];
    assert_non_null(b);
    assert_int_equal(b->kind, SIM_OBJ_BUILDING);
    assert_int_equal(b->n_outline, 4);
    sim_road_pose p;
    sim_road_pose_at(&net, 0, 250, -5, &p);
    double h = p.heading - 0.15;
    NEAR(b->heading, h, 1e-9);
    NEAR(b->outline[4], p.x + 25 * cos(h) + 10 * sin(h), 1e-9);
    NEAR(b->outline[5], p.y + 25 * sin(h) - 10 * cos(h), 1e-9);
    NEAR(b->height, 10, 0);
    sim_roadnet_free(&net);
}

static void errors_name_the_element(void **state)
{
    (void)state;
    const char *xml =
        "<OpenDRIVE><road id=\"r\" junction=\"-1\" length=\"100\">"
        "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry></planView>"
        "<lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center><right><lane id=\"-1\" type=\"driving\">"
        "<width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes>"
        "<objects>\n<object id=\"7\" s=\"120\" t=\"2\"/></objects></road></OpenDRIVE>";
    sim_roadnet net;
    sim_error err = {0};
    assert_int_not_equal(sim_xodr_parse(xml, strlen(xml), "o.xodr", &net, NULL, &err), SIM_OK);
    assert_string_equal(err.msg, "o.xodr: 2: <object> id 7 has s 120, expected 0..100 (the road's length)");
    assert_int_equal(net.n_roads, 0);
    const char *xml2 =
        "<OpenDRIVE><road id=\"r\" junction=\"-1\" length=\"100\">"
        "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry></planView>"
        "<lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center><right><lane id=\"-1\" type=\"driving\">"
        "<width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes>"
        "<signals><signal id=\"s\" s=\"10\" t=\"-2\" country=\"de\" type=\"274\" value=\"50\" unit=\"knots\"/>"
        "</signals></road></OpenDRIVE>";
    assert_int_not_equal(sim_xodr_parse(xml2, strlen(xml2), "s.xodr", &net, NULL, &err), SIM_OK);
    assert_string_equal(err.msg, "s.xodr: 1: <signal> id s has unit \"knots\", expected km/h, m/s or mph");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(speed_signs_become_lane_limits), cmocka_unit_test(traffic_light_heads),
        cmocka_unit_test(empty_containers_count_nothing), cmocka_unit_test(repeats_expanded),
        cmocka_unit_test(outline_corners_in_world),      cmocka_unit_test(errors_name_the_element),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
