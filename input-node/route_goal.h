/* route_goal: where the scripted driver turns. Straight on is not enough to reach
 * every task (scenarios/town.json starts on road h0_0 and its task is on h1_0, a
 * street away): at each junction the path takes the connection from which the next
 * task not yet driven is nearest by the road graph (common/routing's A*), and goes
 * straight on when every task is behind it. */
#ifndef INPUT_NODE_ROUTE_GOAL_H
#define INPUT_NODE_ROUTE_GOAL_H

#include <stdbool.h>

#include "sim_route_roads.h"
#include "sim_scenario.h"

typedef struct in_goals {
    const sim_scenario *sc;   /* borrowed */
    sim_route_map map;
    bool have_map;
    bool *done;               /* per task: the path has driven it */
} in_goals;

/* Builds the route graph of the scenario's roads; without tasks nothing is built. */
int in_goals_init(in_goals *g, const sim_scenario *sc, sim_error *err);
void in_goals_free(in_goals *g);
/* The path reached s on road (a point inside a task marks the task driven). */
void in_goals_passed(in_goals *g, int road, double s);
/* Of n candidate lanes (sim_roadnet_lane_next's), the one from which the first task
 * not yet driven is nearest; -1 when there is no such task or none reaches it. */
int in_goals_choose(const in_goals *g, const sim_lane_ref *cand, int n);

#endif
