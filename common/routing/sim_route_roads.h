/* sim_route_roads: the route graph of a road network, and routes between world points.
 *
 * The one file that knows the road model (sim_road.h). A graph node is a lane section
 * of a road driven in one direction: the section's drivable lanes whose traffic runs
 * that way (right lanes with s in right-hand traffic). Edges follow the lane graph
 * (sim_roadnet_lane_next): from any of a node's lanes to the section its successor
 * lane lies in, across sections, linked roads and junction connections with their
 * lane links. Node lengths are the reference line's over the section, speed limits
 * the road's records; the polyline runs along the centre of the innermost drivable
 * lane of the direction driven.
 *
 * Pure. Ownership: a sim_route_map borrows the network (it must outlive the map) and
 * owns its graph (sim_route_map_free). */
#ifndef SIM_ROUTE_ROADS_H
#define SIM_ROUTE_ROADS_H

#include "sim_road.h"
#include "sim_route.h"

typedef struct sim_route_map {
    sim_route_graph g;
    const sim_roadnet *net;
    int *first;               /* per road: index into node_of of its section 0 */
    int *node_of;             /* [2 * (first[road] + section) + (dir < 0)]: node or -1 */
    int *section, *lane;      /* per node: its section and the lane the polyline follows */
    double *s0;               /* per node: road s where its section starts */
} sim_route_map;

int sim_route_map_build(sim_route_map *m, const sim_roadnet *net, sim_error *err);
void sim_route_map_free(sim_route_map *m);

/* One end of a route: a world point and, for a car, its heading (NaN when any
 * direction will do: both directions of the road are tried). */
typedef struct sim_route_end {
    double x, y, heading;
} sim_route_end;

/* Graph positions for a world point: the located road at its s, in the direction
 * matching the heading (or, without one, the lane side the point is on; off the
 * lanes both directions). Returns how many (0..2) were written. */
int sim_route_map_positions(const sim_route_map *m, const sim_route_end *e, sim_route_pos out[2]);

/* Shortest route from one world point to another, with its polyline every `step`
 * metres. Errors as sim_route_find, plus SIM_ENOTFOUND when an end is near no road. */
int sim_route_map_route(const sim_route_map *m, const sim_route_end *from, const sim_route_end *to,
                        double step, sim_route *out, sim_error *err);

/* Fills r's polyline every `step` metres along lane centres: the lanes are chosen
 * from the destination backwards so that each leg's lane leads into the next leg's
 * (a lane change shows only where no lane of a leg continues into the next). */
int sim_route_map_polyline(const sim_route_map *m, sim_route *r, double step);

/* Id of the road a node belongs to. */
const char *sim_route_map_road_id(const sim_route_map *m, int node);

#endif
