/* OpenSCENARIO files that esmini plays and this reader refused (issue 39), each loaded
 * and run against a case solved by hand: storyboard element references qualified by
 * their parents' names (OpenSCENARIO 1.1, "E::EA"), relativeDistanceType
 * "cartesianDistance" (OpenSCENARIO 1.0's name of euclidianDistance), and a
 * LanePosition s past its road's end continuing onto the next road, joined start to
 * end or end to end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT

#define ELEMENT_STATE(type, ref)                                                                                    \
    "<StartTrigger><ConditionGroup><Condition name=\"st\" delay=\"0\" conditionEdge=\"none\"><ByValueCondition>"      \
    "<StoryboardElementStateCondition storyboardElementType=\"" type "\" storyboardElementRef=\"" ref "\" "          \
    "state=\"endTransition\"/></ByValueCondition></Condition></ConditionGroup></StartTrigger>"

/* E (a step to 20 m/s at the first tick after 1 s, 65 DT) ends in that tick; Then,
 * waiting on "E::EA" (the action qualified by its event) or on the full path
 * "S::A::G::M::E", sets 30 m/s the tick after. */
static void qualified(const char *ref_event)
{
    char events[2048];
    snprintf(events, sizeof events, "%s<Event name=\"Then\" priority=\"parallel\"><Action name=\"ThenA\"><PrivateAction>"
             SPEED_BODY(30) "</PrivateAction></Action>%s</Event>",
             EVENT("E", SPEED_BODY(20), AT_TIME(1, "rising")), ref_event);
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego", events, NULL);
    ts_sb_until(&r, 65 * DT);
    NEAR(r.sb.ent[0].v, 20, 0);
    ts_sb_until(&r, 66 * DT);
    NEAR(r.sb.ent[0].v, 30, 0);
    ts_sb_finish(&r);
}

static void test_qualified_references(void **state)
{
    (void)state;
    qualified(ELEMENT_STATE("action", "E::EA"));
    qualified(ELEMENT_STATE("event", "S::A::G::M::E"));
    qualified(ELEMENT_STATE("event", "M::E"));
}

/* A qualification that is not the element's parents is refused, naming the reference. */
static void test_wrong_qualification_refused(void **state)
{
    (void)state;
    char path[PATH_MAX], text[8192], msg[512];
    assert_non_null(realpath(TS_SB_STRAIGHT, path));
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n<OpenSCENARIO><FileHeader revMajor=\"1\" revMinor=\"1\"/>\n"
             "<RoadNetwork><LogicFile filepath=\"%s\"/></RoadNetwork>\n"
             "<Entities><ScenarioObject name=\"Ego\">" TS_SB_CAR "</ScenarioObject></Entities>\n"
             "<Storyboard><Init><Actions>" TELEPORT("Ego", -1, 50) "</Private></Actions></Init>\n"
             "<Story name=\"S\"><Act name=\"A\"><ManeuverGroup name=\"G\" maximumExecutionCount=\"1\"><Actors "
             "selectTriggeringEntities=\"false\"><EntityRef entityRef=\"Ego\"/></Actors><Maneuver name=\"M\">"
             EVENT("E", SPEED_BODY(20), AT_TIME(1, "rising")) EVENT("F", SPEED_BODY(30), ELEMENT_STATE("action", "M::EA"))
             "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story></Storyboard></OpenSCENARIO>\n",
             path);
    sim_scenario *sc = NULL;
    assert_int_equal(ts_sb_load_text(text, &sc, msg, sizeof msg), SIM_ENOTFOUND);
    assert_non_null(strstr(msg, "\"M::EA\""));
}

/* cartesianDistance is the euclidean distance: Ego at 20 m/s closes on Target at 10 m/s
 * 100 m ahead in the same lane, the distance 100 - 10 t passes 59.9 m in the tick
 * after 4.0 s, 257 DT, where Target stops. */
static void test_cartesian_distance(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, TELEPORT("Ego", -1, 50) SPEED(20) "</Private>" TELEPORT("Target", -1, 150) SPEED(10) "</Private>",
                "Target",
                EVENT("E", SPEED_BODY(0),
                      "<StartTrigger><ConditionGroup><Condition name=\"near\" delay=\"0\" conditionEdge=\"none\">"
                      "<ByEntityCondition><TriggeringEntities triggeringEntitiesRule=\"any\"><EntityRef entityRef=\"Ego\"/>"
                      "</TriggeringEntities><EntityCondition><RelativeDistanceCondition entityRef=\"Target\" "
                      "relativeDistanceType=\"cartesianDistance\" value=\"59.9\" freespace=\"false\" rule=\"lessThan\"/>"
                      "</EntityCondition></ByEntityCondition></Condition></ConditionGroup></StartTrigger>"),
                NULL);
    ts_sb_until(&r, 256 * DT);
    NEAR(r.sb.ent[1].v, 10, 0);
    ts_sb_until(&r, 257 * DT);
    NEAR(r.sb.ent[1].v, 0, 0);
    ts_sb_finish(&r);
}

/* Two 100 m roads with one 3.5 m lane each side: road 1 along +x from the origin, road
 * 2 from x 100 along +x (contact start) or from x 200 back towards x 100 (contact end,
 * its lane 1 continuing road 1's lane -1). */
static void write_two_roads(char *path, bool end_to_end)
{
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    static const char *const lanes =
        "<lanes><laneSection s=\"0\"><left><lane id=\"1\" type=\"driving\"><link><predecessor id=\"%d\"/>"
        "<successor id=\"%d\"/></link><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>"
        "<center><lane id=\"0\" type=\"none\"/></center><right><lane id=\"-1\" type=\"driving\"><link>"
        "<predecessor id=\"%d\"/><successor id=\"%d\"/></link><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
        "</lane></right></laneSection></lanes></road>\n";
    fprintf(f, "<?xml version=\"1.0\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"4\"/>\n"
               "<road id=\"1\" length=\"100\" junction=\"-1\"><link><successor elementType=\"road\" elementId=\"2\" "
               "contactPoint=\"%s\"/></link><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/>"
               "</geometry></planView>",
            end_to_end ? "end" : "start");
    fprintf(f, lanes, 0, end_to_end ? -1 : 1, 0, end_to_end ? 1 : -1);
    fprintf(f, "<road id=\"2\" length=\"100\" junction=\"-1\"><link><%s elementType=\"road\" elementId=\"1\" "
               "contactPoint=\"end\"/></link><planView><geometry s=\"0\" x=\"%s\" y=\"0\" hdg=\"%s\" length=\"100\">"
               "<line/></geometry></planView>",
            end_to_end ? "successor" : "predecessor", end_to_end ? "200" : "100", end_to_end ? "3.141592653589793" : "0");
    if (end_to_end) fprintf(f, lanes, 0, -1, 0, 1);
    else fprintf(f, lanes, 1, 0, -1, 0);
    fputs("</OpenDRIVE>\n", f);
    fclose(f);
}

/* LanePosition road 1, lane -1, s 130: 30 m into road 2, at x 130, y -1.75 (the lane's
 * centre) and heading 0 both ways. */
static void test_lane_position_past_road_end(void **state)
{
    (void)state;
    for (int end_to_end = 0; end_to_end < 2; end_to_end++) {
        char road[] = "/tmp/test_storyboard_esmini_XXXXXX.xodr";
        write_two_roads(road, end_to_end);
        ts_sb_run r;
        ts_sb_start(&r, road, NULL, TELEPORT("Ego", -1, 130) "</Private>" TELEPORT("Target", -1, 10) "</Private>", "Ego",
                    EVENT("E", SPEED_BODY(1), AT_TIME(1, "rising")), NULL);
        unlink(road);
        const sim_sb_state_ent *ego = &r.sb.ent[0];
        NEAR(ego->x, 130, 1e-6);
        NEAR(ego->y, -1.75, 1e-6);
        NEAR(cos(ego->heading), 1, 1e-9);
        assert_true(ego->on_lane);
        assert_int_equal(r.g.lanes[ego->lane].lane_id, end_to_end ? 1 : -1);
        ts_sb_finish(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qualified_references),
        cmocka_unit_test(test_wrong_qualification_refused),
        cmocka_unit_test(test_cartesian_distance),
        cmocka_unit_test(test_lane_position_past_road_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
