/* RelativeClearanceCondition (issue 39), solved by hand at steps of 1/64 s: Ego in lane
 * -1 from s 50 at 10 m/s, Target standing at s 150 in lane -1 or in lane 1 beside it
 * (relative lane +1, the other way). The condition on the Ego (50 m ahead, 10 behind,
 * reference points) stops holding when the gap 100 - 10 t reaches 50 m: at t = 5 s
 * (tick 320); its falling edge stops the Ego (a step to 0 m/s) in that tick. A Target
 * in a lane the other way counts only with oppositeLanes, and only in a lane the
 * ranges name. */
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

#define CLEAR(opposite, ranges)                                                                                    \
    "<StartTrigger><ConditionGroup><Condition name=\"c\" delay=\"0\" conditionEdge=\"falling\"><ByEntityCondition>" \
    "<TriggeringEntities triggeringEntitiesRule=\"any\"><EntityRef entityRef=\"Ego\"/></TriggeringEntities>"         \
    "<EntityCondition><RelativeClearanceCondition distanceForward=\"50\" distanceBackward=\"10\" freeSpace=\"false\" " \
    "oppositeLanes=\"" opposite "\">" ranges "</RelativeClearanceCondition></EntityCondition></ByEntityCondition>"   \
    "</Condition></ConditionGroup></StartTrigger>"
#define STOP "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape=\"step\" dynamicsDimension=\"time\" " \
             "value=\"0\"/><SpeedActionTarget><AbsoluteTargetSpeed value=\"0\"/></SpeedActionTarget></SpeedAction>"     \
             "</LongitudinalAction>"
#define INIT(lane) TELEPORT("Ego", -1, 50) SPEED(10) "</Private>" TELEPORT("Target", lane, 150) SPEED(0) "</Private>"

/* stops at 5 s when `stops`, else still 10 m/s at 8 s */
static void run(const char *init, const char *events, bool stops)
{
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, init, "Ego", events, NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, 5 - DT);
    NEAR(ego->v, 10, 1e-12);
    ts_sb_until(&r, 5);
    NEAR(ego->v, stops ? 0 : 10, 1e-12);
    ts_sb_until(&r, 8);
    NEAR(ego->v, stops ? 0 : 10, 1e-12);
    ts_sb_finish(&r);
}

static void test_same_lane(void **state)
{
    (void)state;
    run(INIT(-1), EVENT("S", STOP, CLEAR("false", "<RelativeLaneRange from=\"0\" to=\"0\"/>")), true);
    run(INIT(-1), EVENT("S", STOP, CLEAR("false", "")), true); /* no range: every lane */
    run(INIT(-1), EVENT("S", STOP, CLEAR("false", "<EntityRef entityRef=\"Ego\"/>")), false); /* only itself: none */
}

static void test_opposite_lane(void **state)
{
    (void)state;
    run(INIT(1), EVENT("S", STOP, CLEAR("false", "<RelativeLaneRange from=\"-1\" to=\"1\"/>")), false);
    run(INIT(1), EVENT("S", STOP, CLEAR("true", "<RelativeLaneRange from=\"-1\" to=\"1\"/>")), true);
    run(INIT(1), EVENT("S", STOP, CLEAR("true", "<RelativeLaneRange from=\"0\" to=\"0\"/>")), false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_lane),
        cmocka_unit_test(test_opposite_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
