/* FollowTrajectoryAction along a Clothoid and a Nurbs (issue 39), solved by hand at steps of
 * 1/64 s: from the world point (100, 0) heading 0, curvature 0.1 and no change of it is
 * a circle of radius 10; a quarter of it (length 5 pi) in 4 s (startTime 0, stopTime 4,
 * times relative to the action's start at the first tick after 1 s, T0) is at
 * (100 + 10 sin 45deg, 10 - 10 cos 45deg) after 2 s and at (110, 10) after 4 s. A
 * clothoid proper: curvature 0 growing at 0.01 per m over 20 m turns its heading by
 * 0.01 * 20^2 / 2 = 2 rad at its end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_sb_nurbs.h"
#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT
#define T0 (65 * DT)

#define CLOTHOID(attrs)                                                                                           \
    "<RoutingAction><FollowTrajectoryAction><Trajectory name=\"c\" closed=\"false\"><Shape><Clothoid " attrs ">"  \
    "<Position><WorldPosition x=\"100\" y=\"0\" h=\"0\"/></Position></Clothoid></Shape></Trajectory>"           \
    "<TimeReference><Timing domainAbsoluteRelative=\"relative\" scale=\"1\" offset=\"0\"/></TimeReference>"      \
    "<TrajectoryFollowingMode followingMode=\"follow\"/></FollowTrajectoryAction></RoutingAction>"

static void test_quarter_circle(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("C", CLOTHOID("curvature=\"0.1\" curvaturePrime=\"0\" length=\"15.707963267948966\" "
                                    "startTime=\"0\" stopTime=\"4\""), AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 2);
    NEAR(ego->x, 100 + 10 * sin(M_PI / 4), 1e-9);
    NEAR(ego->y, 10 - 10 * cos(M_PI / 4), 1e-9);
    assert_true(ego->path_inst >= 0);
    ts_sb_until(&r, T0 + 4);
    NEAR(ego->x, 110, 1e-9);
    NEAR(ego->y, 10, 1e-9);
    assert_int_equal(ego->path_inst, -1);
    ts_sb_finish(&r);
}

/* 1.0's curvatureDot, no times: at the entity's 10 m/s, 20 m in 2 s. The heading of
 * the last chord is the mean of the heading over it: 0.005 s^2 between 19.6875 and
 * 20 m, (0.005 / 3) (20^3 - 19.6875^3) / 0.3125 = 1.968913 rad. */
static void test_clothoid(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("C",
                      "<RoutingAction><FollowTrajectoryAction><Trajectory name=\"c\" closed=\"false\"><Shape>"
                      "<Clothoid curvature=\"0\" curvatureDot=\"0.01\" length=\"20\"><Position><WorldPosition x=\"100\" "
                      "y=\"0\" h=\"0\"/></Position></Clothoid></Shape></Trajectory><TimeReference><None/></TimeReference>"
                      "<TrajectoryFollowingMode followingMode=\"follow\"/></FollowTrajectoryAction></RoutingAction>",
                      AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 2 - DT);
    assert_true(ego->path_inst >= 0);
    ts_sb_until(&r, T0 + 2);
    assert_int_equal(ego->path_inst, -1);
    double a = 19.6875, b = 20, mean = 0.005 / 3 * (b * b * b - a * a * a) / (b - a);
    NEAR(mean, 1.968913, 1e-6);
    NEAR(atan2(sin(ego->heading), cos(ego->heading)), atan2(sin(mean), cos(mean)), 1e-3);
    ts_sb_finish(&r);
}

/* Nurbs: a quadratic Bezier (order 3, knots 0 0 0 1 1 1) at u = 1/2 weighs its points
 * 1/4, 1/2, 1/4: (0, 4, 0) gives 2; weights (1, 2, 1) make it (0 + 4 + 0) / 1.5. The
 * quarter circle of radius 10 about (100, 0) from (110, 0) through the corner (110, 10)
 * weighted cos 45deg to (100, 10), times 0, 2, 4: after 2 s at 45 degrees,
 * (107.0711, 7.0711), after 4 s at (100, 10). */
static void test_nurbs(void **state)
{
    (void)state;
    const double kn[] = {0, 0, 0, 1, 1, 1}, w1[] = {1, 1, 1}, w2[] = {1, 2, 1}, v[] = {0, 4, 0};
    NEAR(sim_sb_nurbs_value(kn, 3, w1, v, 3, 0.5), 2, 1e-12);
    NEAR(sim_sb_nurbs_value(kn, 3, w2, v, 3, 0.5), 4 / 1.5, 1e-12);
    NEAR(sim_sb_nurbs_value(kn, 3, w1, v, 3, 1), 0, 1e-12);
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("N",
                      "<RoutingAction><FollowTrajectoryAction><Trajectory name=\"n\" closed=\"false\"><Shape><Nurbs order=\"3\">"
                      "<ControlPoint time=\"0\" weight=\"1\"><Position><WorldPosition x=\"110\" y=\"0\"/></Position></ControlPoint>"
                      "<ControlPoint time=\"2\" weight=\"0.7071067811865476\"><Position><WorldPosition x=\"110\" y=\"10\"/>"
                      "</Position></ControlPoint><ControlPoint time=\"4\" weight=\"1\"><Position><WorldPosition x=\"100\" "
                      "y=\"10\"/></Position></ControlPoint><Knot value=\"0\"/><Knot value=\"0\"/><Knot value=\"0\"/>"
                      "<Knot value=\"1\"/><Knot value=\"1\"/><Knot value=\"1\"/></Nurbs></Shape></Trajectory><TimeReference>"
                      "<Timing domainAbsoluteRelative=\"relative\" scale=\"1\" offset=\"0\"/></TimeReference>"
                      "<TrajectoryFollowingMode followingMode=\"position\"/></FollowTrajectoryAction></RoutingAction>",
                      AT_TIME(1, "rising")), NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + 2);
    NEAR(ego->x, 100 + 10 * cos(M_PI / 4), 1e-6);
    NEAR(ego->y, 10 * sin(M_PI / 4), 1e-6);
    ts_sb_until(&r, T0 + 4);
    NEAR(ego->x, 100, 1e-9);
    NEAR(ego->y, 10, 1e-9);
    assert_int_equal(ego->path_inst, -1);
    ts_sb_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quarter_circle),
        cmocka_unit_test(test_clothoid),
        cmocka_unit_test(test_nurbs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
