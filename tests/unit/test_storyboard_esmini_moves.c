/* How the storyboard's entities move where esmini's default controller decides what
 * the standard leaves open (issue 39), each against a case solved by hand on the shared
 * straight road (straight_500m.xodr: lanes -1 and 1 of 3.07 m, along +x), time steps
 * of 1/64 s: a teleport turned round drives its lane backwards; a lane offset after a
 * lane change into the lane the other way is measured from that lane; an entity whose
 * trajectory ended goes straight on; at a road's end the speed drops to 0 the step
 * after arriving; a SynchronizeAction with a standing master keeps the speed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT
#define T0 (65 * DT) /* the first tick after 1 s */
#define AT(who, lane, s, orientation, v)                                                                            \
    "<Private entityRef=\"" who "\"><PrivateAction><TeleportAction><Position><LanePosition roadId=\"1\" laneId=\"" \
    #lane "\" s=\"" #s "\" offset=\"0\">" orientation "</LanePosition></Position></TeleportAction></PrivateAction>" \
    SPEED(v) "</Private>"

/* Lane -1 at s 200, heading relative pi, 10 m/s: after 2 s at s 180 (x 180), still in
 * the lane's centre (y -1.535), heading pi. */
static void test_teleport_reversed(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL,
                AT("Ego", -1, 200, "<Orientation type=\"relative\" h=\"3.141592653589793\"/>", 10) AT("Target", -1, 50, "", 0),
                "Ego", EVENT("E", SPEED_BODY(10), AT_TIME(100, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    assert_true(ego->reverse);
    ts_sb_until(&r, 2.0);
    NEAR(ego->x, 180, 1e-6);
    NEAR(ego->y, -1.535, 1e-6);
    NEAR(cos(ego->heading), -1, 1e-9);
    NEAR(ego->odometer, 20, 1e-9);
    ts_sb_finish(&r);
}

/* A step lane change from lane -1 into lane 1 (the other way: the car keeps its graph
 * lane at offset 3.07) at 65 DT, then an absolute LaneOffset of 1 m (step) at 129 DT:
 * 1 m left of lane 1's centre, offset 4.07, y 2.535 (not 1 m from lane -1's centre). */
static void test_lane_offset_after_change(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("Change", "<LateralAction><LaneChangeAction><LaneChangeActionDynamics dynamicsShape=\"step\" "
                                "dynamicsDimension=\"time\" value=\"0\"/><LaneChangeTarget><RelativeTargetLane entityRef=\"Ego\" "
                                "value=\"1\"/></LaneChangeTarget></LaneChangeAction></LateralAction>", AT_TIME(1, "rising"))
                EVENT("Offset", "<LateralAction><LaneOffsetAction continuous=\"false\"><LaneOffsetActionDynamics "
                                "dynamicsShape=\"step\"/><LaneOffsetTarget><AbsoluteTargetLaneOffset value=\"1\"/>"
                                "</LaneOffsetTarget></LaneOffsetAction></LateralAction>", AT_TIME(2, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + DT);
    NEAR(ego->lat, 3.07, 1e-9);
    ts_sb_until(&r, 130 * DT);
    NEAR(ego->lat, 4.07, 1e-9);
    NEAR(ego->y, 2.535, 1e-6);
    ts_sb_finish(&r);
}

/* A polyline from (100, -1.535) to (110, -0.535) at 5 m/s, heading atan(0.1): once it
 * ended the entity is off the lanes and goes on in that heading, 5 m per second:
 * dx = 5 cos, dy = 5 sin over the next 64 ticks (it was not put back on lane -1). */
static void test_trajectory_end_goes_on(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, AT("Ego", -1, 100, "", 5) AT("Target", -1, 300, "", 0), "Ego",
                EVENT("T", "<RoutingAction><FollowTrajectoryAction><TrajectoryRef><Trajectory name=\"t\" closed=\"false\">"
                           "<Shape><Polyline><Vertex><Position><WorldPosition x=\"100\" y=\"-1.535\"/></Position></Vertex>"
                           "<Vertex><Position><WorldPosition x=\"110\" y=\"-0.535\"/></Position></Vertex></Polyline></Shape>"
                           "</Trajectory></TrajectoryRef><TimeReference><None/></TimeReference><TrajectoryFollowingMode "
                           "followingMode=\"position\"/></FollowTrajectoryAction></RoutingAction>", AT_TIME(0.5, "rising")),
                NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, 4.0); /* 10.05 m at 5 m/s: ended by 2.6 s */
    assert_false(ego->on_lane);
    assert_int_equal(ego->path_inst, -1);
    double x = ego->x, y = ego->y, h = atan2(1, 10);
    NEAR(ego->heading, h, 1e-9);
    ts_sb_until(&r, 5.0);
    NEAR(ego->x - x, 5 * cos(h), 1e-9);
    NEAR(ego->y - y, 5 * sin(h), 1e-9);
    ts_sb_finish(&r);
}

/* Lane -1 from s 490 at 10 m/s: at the road's end (500, no successor) at 64 DT, held
 * there keeping 10 m/s that step (a TeleportAction on EndOfRoad 0 s sends it on at
 * that speed), its speed 0 the next step when it is held again. */
static void test_end_of_road_stops(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, AT("Ego", -1, 490, "", 10) AT("Target", -1, 50, "", 0), "Ego",
                EVENT("E", SPEED_BODY(10), AT_TIME(100, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, 64 * DT);
    NEAR(ego->s, 500, 1e-9);
    NEAR(ego->v, 10, 0);
    assert_true(ego->end_of_road);
    ts_sb_until(&r, 65 * DT);
    NEAR(ego->s, 500, 1e-9);
    NEAR(ego->v, 0, 0);
    NEAR(ego->odometer, 10, 1e-5); /* the lane's last sample lies 1e-6 m inside its end */
    ts_sb_finish(&r);
}

/* Ego synchronised (final speed 20 m/s) with Target, which stands: Ego keeps its
 * 10 m/s and the action runs on (it jumped to 20 m/s before). */
static void test_synchronize_standing_master(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, AT("Ego", -1, 50, "", 10) AT("Target", -1, 150, "", 0), "Ego",
                EVENT("Sync", "<SynchronizeAction masterEntityRef=\"Target\"><TargetPositionMaster><WorldPosition x=\"250\" "
                              "y=\"-1.535\"/></TargetPositionMaster><TargetPosition><WorldPosition x=\"300\" y=\"-1.535\"/>"
                              "</TargetPosition><FinalSpeed><AbsoluteSpeed value=\"20\"/></FinalSpeed></SynchronizeAction>",
                      AT_TIME(1, "rising")), NULL);
    ts_sb_until(&r, T0 + 1.0);
    NEAR(r.sb.ent[0].v, 10, 0);
    assert_int_equal(r.sb.state[sim_sb_model_find_element(&r.sc->xosc->model, "SyncA")], SIM_SB_ST_RUNNING);
    ts_sb_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_teleport_reversed),
        cmocka_unit_test(test_lane_offset_after_change),
        cmocka_unit_test(test_trajectory_end_goes_on),
        cmocka_unit_test(test_end_of_road_stops),
        cmocka_unit_test(test_synchronize_standing_master),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
