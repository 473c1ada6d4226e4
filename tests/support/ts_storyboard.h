/* ts_storyboard: small OpenSCENARIO files written and run by the storyboard tests
 * (test_storyboard, test_storyboard_esmini): two entities Ego and Target on a road,
 * their Init, one story of events for one actor, and the storyboard engine on the
 * road's lane graph. The XML pieces below build those files. */
#ifndef TS_STORYBOARD_H
#define TS_STORYBOARD_H

#include "sim_lanegraph_road.h"
#include "sim_scenario.h"
#include "sim_storyboard.h"
#include "sim_xosc.h"

#define TS_SB_DT (1.0 / 64)       /* exact in binary: times and positions are too */
#define TS_SB_STRAIGHT "../shared/openscenario/xodr/straight_500m.xodr"

/* A car with a 4 m box centred 1 m ahead of its reference point, without Performance. */
#define TS_SB_CAR                                                                                                   \
    "<Vehicle name=\"c\" vehicleCategory=\"car\"><BoundingBox><Center x=\"1\" y=\"0\" z=\"0.7\"/>"                 \
    "<Dimensions width=\"2\" length=\"4\" height=\"1.4\"/></BoundingBox></Vehicle>"

typedef struct ts_sb_run {
    sim_scenario *sc;
    sim_lanegraph g;
    sim_storyboard sb;
} ts_sb_run;

/* Writes the scenario on road file `road` (a path; NULL: TS_SB_STRAIGHT) with both
 * entities as `vehicle` (NULL: TS_SB_CAR), loads it and starts the storyboard; fails
 * the test when it does not load. `stop`: the storyboard's StopTrigger or NULL. */
void ts_sb_start(ts_sb_run *r, const char *road, const char *vehicle, const char *init, const char *actor,
                 const char *events, const char *stop);
/* Loads the file text (written to a temporary file) as sim_scenario_load does: its
 * code, the first message in msg. */
int ts_sb_load_text(const char *text, sim_scenario **sc, char *msg, size_t size);
void ts_sb_finish(ts_sb_run *r);
/* Steps TS_SB_DT until time t (a multiple of it) or the stop trigger. */
void ts_sb_until(ts_sb_run *r, double t);

#define TELEPORT(who, lane, s)                                                                                    \
    "<Private entityRef=\"" who "\"><PrivateAction><TeleportAction><Position><LanePosition roadId=\"1\" laneId=\"" \
    #lane "\" s=\"" #s "\" offset=\"0\"/></Position></TeleportAction></PrivateAction>"
#define SPEED_BODY(v)                                                                                             \
    "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape=\"step\" "                             \
    "dynamicsDimension=\"time\" value=\"0\"/><SpeedActionTarget><AbsoluteTargetSpeed value=\"" #v "\"/>"           \
    "</SpeedActionTarget></SpeedAction></LongitudinalAction>"
#define SPEED(v) "<PrivateAction>" SPEED_BODY(v) "</PrivateAction>"
#define AT_TIME(t, edge)                                                                                          \
    "<StartTrigger><ConditionGroup><Condition name=\"c\" delay=\"0\" conditionEdge=\"" edge "\"><ByValueCondition>" \
    "<SimulationTimeCondition value=\"" #t "\" rule=\"greaterThan\"/></ByValueCondition></Condition>"            \
    "</ConditionGroup></StartTrigger>"
#define EVENT(name, action, trigger) \
    "<Event name=\"" name "\" priority=\"parallel\"><Action name=\"" name "A\"><PrivateAction>" action "</PrivateAction></Action>" trigger "</Event>"
#define INIT_TWO TELEPORT("Ego", -1, 50) SPEED(10) "</Private>" TELEPORT("Target", -1, 150) SPEED(10) "</Private>"

#endif
