/* route: the scripted driver's path from a scenario (from the start point along the
 * road graph, straight on where it can, at the tasks' ideal lane, as world-frame
 * points). */
#ifndef INPUT_NODE_ROUTE_H
#define INPUT_NODE_ROUTE_H

#include "sim_driver.h"
#include "sim_error.h"
#include "yield.h"

/* Loads the scenario and builds the path from start point `start` (NULL: the first)
 * along the road graph (see route.c), with the speed limit (m/s, 0: none) at each point in a new
 * array *limits (the caller frees it and the path). */
int in_route_build(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                sim_error *err);
/* The same, also with where the path crosses junctions, in path order, in a new array
 * *spans (n_spans of them; the caller frees it). */
int in_route_build_spans(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                         in_junction_span **spans, int *n_spans, sim_error *err);

#endif
