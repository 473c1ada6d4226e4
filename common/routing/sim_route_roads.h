/* sim_route_roads: the route graph of a road network, and routes between world points.
 *
 * The one file that knows the road model (sim_road.h): every road becomes up to two
 * graph nodes, one per direction that has a driving lane (right lanes with s, left
 * lanes against it); road-to-road links and junction connections (with a lane link
 * from a lane of that direction, when the connection lists lanes) become edges. Node
 * lengths are the reference line's, speed limits the road's; the polyline runs along
 * the centre of the innermost driving lane of the direction driven.
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
    int *node_of;             /* [2 * road + (dir < 0)]: node index or -1 */
    double *lane_d;           /* per node: lateral offset of the polyline */
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

/* The sample function for sim_route_polyline (user: the map). */
void sim_route_map_sample(const sim_route_graph *g, int node, double t, double *x, double *y,
                          void *user);

/* Id of the road a node belongs to. */
const char *sim_route_map_road_id(const sim_route_map *m, int node);

#endif
