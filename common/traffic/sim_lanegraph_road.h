/* sim_lanegraph_road: the traffic lane graph of a road network (see sim_lanegraph.h).
 * The only part of the traffic core that knows the road model's API. */
#ifndef SIM_LANEGRAPH_ROAD_H
#define SIM_LANEGRAPH_ROAD_H

#include "sim_lanegraph.h"
#include "sim_road.h"

/* Builds *g (which it owns afterwards; free with sim_lanegraph_free) from net. The
 * graph's lanes name roads by their index in net. Merge lanes (full width where they
 * start, narrowing below a car's width only towards their end) are kept when
 * keep_merge_lanes: an OpenSCENARIO storyboard drives on them (highway_merge's
 * on-ramp); the traffic core's agents do not (they merge before). */
int sim_lanegraph_from_roads_merge(sim_lanegraph *g, const sim_roadnet *net, bool keep_merge_lanes, sim_error *err);

#endif
