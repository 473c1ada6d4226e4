/* sim_route: routes over a directed graph of drivable pieces, pure computation.
 *
 * The graph knows nothing of roads: a node is a piece of road driven in one direction
 * (a road's right lanes, its left lanes, a junction's connecting road), with its
 * length, entry and exit poses, speed limits along it and the nodes one may drive on
 * to from its exit. An adapter (sim_route_roads.h) builds it from the road network.
 * A position on the graph is (node, t): t the distance driven along the node from its
 * entry, in [0, length].
 *
 * sim_route_find runs A* from one or more start positions to one or more goal
 * positions, minimising the distance driven, with the straight-line distance to the
 * goal as the heuristic: admissible because no piece is shorter than its chord (joins
 * are within 1 cm; see docs/context.md for the bound). The result holds the legs
 * (node, t0, t1), the length (the sum of the legs), the ETA at the speed limits, and
 * the manoeuvres (turn left/right, straight on, exit left/right, U-turn) at the
 * junctions and links it passes, each with its distance from the start.
 *
 * sim_guidance follows a car along a route's polyline: the next manoeuvre and the
 * distance to it, off-route detection, arrival.
 *
 * No I/O, no globals. Ownership: a sim_route_graph owns its arrays (sim_route_graph_free);
 * a sim_route owns its legs, manoeuvres and polyline (sim_route_free); a sim_guidance
 * borrows its route. */
#ifndef SIM_ROUTE_H
#define SIM_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"

#define SIM_ROUTE_STRAIGHT_DEG 30.0  /* |turn| below this is straight on */
#define SIM_ROUTE_UTURN_DEG 150.0    /* |turn| above this is a U-turn */

typedef struct sim_route_node {
    double length;            /* m, > 0 */
    double x0, y0, h0;        /* entry point (m) and heading of travel (rad, CCW from +x) */
    double x1, y1, h1;        /* exit point and heading */
    int junction;             /* junction index when this is a connecting road, else -1 */
    int road, dir;            /* the adapter's: road index, +1 with / -1 against its s */
    int lim0, n_lim;          /* its speed limits in the graph's limit arrays */
    int edge0, n_edges;       /* its successors in the graph's edge array (after finish) */
} sim_route_node;

/* A speed limit over [t0, t1) of a node (distance driven from its entry). */
typedef struct sim_route_limit {
    double t0, t1, speed;     /* m, m, m/s */
} sim_route_limit;

typedef struct sim_route_graph {
    sim_route_node *nodes;
    int n_nodes, cap_nodes;
    int *edge_from, *edge_to;  /* as added; after finish edge_to is grouped by node */
    int n_edges, cap_edges;
    sim_route_limit *limits;
    int n_limits, cap_limits;
    double default_speed;     /* m/s where no limit applies (ETA); default 50 km/h */
    bool finished;
} sim_route_graph;

void sim_route_graph_init(sim_route_graph *g);
void sim_route_graph_free(sim_route_graph *g);
/* Adds a node (edges and limits are added separately); returns its index or SIM_ENOMEM.
 * length must be finite and > 0 (SIM_EINVAL). */
int sim_route_graph_add_node(sim_route_graph *g, const sim_route_node *n);
/* Drive from node `from`'s exit onto node `to`'s entry. */
int sim_route_graph_add_edge(sim_route_graph *g, int from, int to);
int sim_route_graph_add_limit(sim_route_graph *g, int node, double t0, double t1, double speed);
/* Groups the edges by node; call once after adding everything, before routing. */
int sim_route_graph_finish(sim_route_graph *g);
/* Successors of node n (after finish). */
static inline const int *sim_route_graph_next(const sim_route_graph *g, int n, int *count)
{
    *count = g->nodes[n].n_edges;
    return g->edge_to + g->nodes[n].edge0;
}
/* Seconds to drive [t0, t1] of node n at its speed limits. */
double sim_route_graph_time(const sim_route_graph *g, int n, double t0, double t1);

/* A position on the graph. */
typedef struct sim_route_pos {
    int node;
    double t;                 /* m from the node's entry */
} sim_route_pos;

typedef struct sim_route_leg {
    int node;
    double t0, t1;            /* the part of the node driven */
    double at;                /* m from the route's start to this leg's start */
} sim_route_leg;

typedef enum {
    SIM_MAN_DEPART,
    SIM_MAN_STRAIGHT,
    SIM_MAN_LEFT,
    SIM_MAN_RIGHT,
    SIM_MAN_EXIT_LEFT,        /* a branch leaving the straighter way to its left */
    SIM_MAN_EXIT_RIGHT,
    SIM_MAN_UTURN,
    SIM_MAN_ARRIVE
} sim_maneuver_type;

typedef struct sim_maneuver {
    sim_maneuver_type type;
    double at;                /* m from the route's start: where it begins (a junction's entry) */
    double done;              /* m from the start where it is complete (the junction's exit) */
    double x, y;              /* where */
    double angle;             /* rad, the change of heading, left positive */
    int leg;                  /* the leg it leads onto (the last leg for ARRIVE) */
} sim_maneuver;

typedef struct sim_route {
    sim_route_leg *legs;
    int n_legs;
    double length;            /* m, the sum of the legs */
    double eta;               /* s at the speed limits */
    sim_maneuver *mans;       /* DEPART first, ARRIVE last */
    int n_mans;
    double *px, *py, *ps;     /* polyline and its cumulative length (sim_route_polyline) */
    int n_pts;
    int expanded;             /* nodes taken off the open list (for benchmarks) */
} sim_route;

/* Shortest route from any start to any goal. Returns SIM_OK with *out filled (free
 * with sim_route_free), SIM_ENOTFOUND when no goal can be reached (err says so),
 * SIM_EINVAL for a position off the graph, SIM_ENOMEM. With use_heuristic false it is
 * plain Dijkstra (the benchmark's baseline). */
int sim_route_find(const sim_route_graph *g, const sim_route_pos *starts, int n_starts,
                   const sim_route_pos *goals, int n_goals, bool use_heuristic, sim_route *out,
                   sim_error *err);
void sim_route_free(sim_route *r);

/* Point (x, y) at distance t along the node of route leg `leg`; draws the polyline. */
typedef void (*sim_route_sample_fn)(const sim_route_graph *g, int leg, int node, double t, double *x,
                                    double *y, void *user);
/* Fills r's polyline: each leg sampled every `step` metres and at its ends. */
int sim_route_polyline(sim_route *r, const sim_route_graph *g, double step, sim_route_sample_fn fn,
                       void *user);

const char *sim_maneuver_name(sim_maneuver_type t);

/* ---- guidance ------------------------------------------------------------------ */

#define SIM_GUIDE_OFF_M 12.0        /* farther than this from the polyline is off the route */
#define SIM_GUIDE_OFF_HEADING 2.0   /* rad: driving the route backwards counts as off */
#define SIM_GUIDE_OFF_COUNT 3       /* updates in a row before off_route is declared */
#define SIM_GUIDE_ARRIVE_M 10.0     /* this close to the end is arrived */

typedef struct sim_guidance {
    const sim_route *route;   /* borrowed, with its polyline */
    int seg;                  /* polyline segment found last */
    double s;                 /* m along the route */
    double lateral;           /* m from the polyline */
    int next;                 /* index of the next manoeuvre in route->mans: the first not
                                 yet complete (the car may be in its junction) */
    int off_count;
    bool off_route, arrived;
    int band;                 /* announcement band of the distance (see sim_guidance_update) */
} sim_guidance;

/* What an update changed; a navigation display speaks on these. */
typedef struct sim_guidance_change {
    bool next_changed;        /* a manoeuvre was passed: `next` is a new one */
    bool announce;            /* the distance to `next` fell below 500, 200, 100 or 30 m */
    bool went_off;            /* off_route became true */
    bool arrived;             /* arrived became true */
} sim_guidance_change;

void sim_guidance_start(sim_guidance *gd, const sim_route *r);
/* The car is at (x, y) heading `heading` (NaN: unknown). */
void sim_guidance_update(sim_guidance *gd, double x, double y, double heading,
                         sim_guidance_change *ch);
/* Distance from the car to the next manoeuvre, m. */
double sim_guidance_distance(const sim_guidance *gd);

#endif
