/* sim_lanegraph: the lanes traffic drives on, as a graph of its own.
 *
 * Every drivable lane of every lane section of the road network, in its direction of
 * travel, becomes one graph lane: s runs from 0 at its entry to `length` at its exit
 * (for a lane travelled against the road's s, the other way round). A lane knows its successors and predecessors (end to
 * end links and junction connections), its left and right neighbours in the direction
 * of travel (same direction only: nobody overtakes in the oncoming lane), its speed
 * limit and its centre line sampled every `step` metres (position, heading, curvature).
 * Poses between samples are interpolated, so the traffic core never evaluates road
 * geometry itself: sim_lanegraph_road.c builds the graph from the road model (the only
 * file that reads it), sim_lanegraph_ring/straight build test tracks without one.
 *
 * Junction lanes (lanes of a junction's connecting roads) carry the list of other
 * junction lanes they conflict with (their centre lines pass within
 * SIM_LG_CONFLICT_DIST): vehicles on conflicting lanes are never in the junction
 * together. The incoming lanes carry their approach rank (signs at their end).
 *
 * Ownership: the graph owns every array; sim_lanegraph_free releases them. Pure: no
 * I/O, no globals. */
#ifndef SIM_LANEGRAPH_H
#define SIM_LANEGRAPH_H

#include <stdbool.h>

#include "sim_error.h"

#define SIM_LG_MAX_LINKS 8        /* successors / predecessors kept per lane */
#define SIM_LG_STEP 2.0           /* m between centre-line samples */
#define SIM_LG_CONFLICT_DIST 2.8  /* m: junction lanes whose centres come closer conflict */
#define SIM_LG_STOP_CLEAR 5.0     /* m: a vehicle waiting to enter a junction keeps its front
                                     this far from other approaches' paths through it */

/* Approach rank of a lane entering a junction: who gives way to whom. */
enum { SIM_LG_YIELD = 0, SIM_LG_UNSIGNED = 1, SIM_LG_PRIORITY = 2 };

typedef struct sim_lg_lane {
    int road, lane_id;        /* where it comes from: road index and lane id (left +, right -) */
    int section;              /* the road's lane section (0 on test tracks) */
    double s0;                /* road s where the section starts */
    int junction;             /* junction index for a connecting road's lane, else -1 */
    bool forward;             /* runs with the road's s */
    double length, width;     /* m */
    int left, right;          /* neighbour lanes in the direction of travel, -1: none */
    int succ[SIM_LG_MAX_LINKS], n_succ;
    int pred[SIM_LG_MAX_LINKS], n_pred;
    int rank;                 /* SIM_LG_YIELD/UNSIGNED/PRIORITY at the lane's exit */
    bool stop_sign;           /* a stop sign at the exit: halt before entering */
    double setback;           /* m before the exit where a vehicle waiting to enter the
                                 junction stops: clear of the paths of the others (long
                                 vehicles swing wide) */
    int pt0, n_pts;           /* samples pt0 .. pt0+n_pts-1, the last one at `length` */
    int conf0, n_conf;        /* conflicting junction lanes: conf[conf0 .. conf0+n_conf-1] */
} sim_lg_lane;

typedef struct sim_lanegraph {
    sim_lg_lane *lanes;
    int n_lanes, cap_lanes;
    double *px, *py, *ph, *pk; /* sample position (m), heading (rad), curvature (1/m) */
    float *pv;                 /* speed limit at the sample (m/s, 0: none) */
    int n_pts, cap_pts;
    int *conf;
    int n_conf;
    int n_junctions;
} sim_lanegraph;

void sim_lanegraph_free(sim_lanegraph *g);

/* Builder: a new lane with n_pts samples to fill (indices returned in *pt0). Returns
 * the lane index or a negative SIM_E* code. Samples are every length/(n_pts-1) m. */
int sim_lanegraph_add_lane(sim_lanegraph *g, int n_pts, int *pt0, sim_error *err);
/* Links a -> b (successor / predecessor both ways); ignores duplicates and lanes full. */
void sim_lanegraph_link(sim_lanegraph *g, int a, int b);
/* Computes the junction conflicts once lanes and samples are complete. */
int sim_lanegraph_finish(sim_lanegraph *g, sim_error *err);

/* Test tracks: a ring of n_lanes lanes (counter-clockwise, lane 0 the outer, rightmost
 * one) of centre radius radius for lane 0, and a straight road along +x of length m.
 * limit in m/s. */
int sim_lanegraph_ring(sim_lanegraph *g, double radius, int n_lanes, double width, double limit,
                       sim_error *err);
int sim_lanegraph_straight(sim_lanegraph *g, double length, int n_lanes, double width,
                           double limit, sim_error *err);

/* Pose at s on lane (clamped to [0, length]) shifted lat metres to the left. */
void sim_lanegraph_pose(const sim_lanegraph *g, int lane, double s, double lat, double *x,
                        double *y, double *heading);
double sim_lanegraph_curvature(const sim_lanegraph *g, int lane, double s);
double sim_lanegraph_limit(const sim_lanegraph *g, int lane, double s);
/* Lane with (road, lane id) whose section holds road s (-1: none). */
int sim_lanegraph_find(const sim_lanegraph *g, int road, int lane_id, double road_s);
/* The road's s of lane s, and lane s of the road's s. */
double sim_lanegraph_road_s(const sim_lanegraph *g, int lane, double s);
double sim_lanegraph_lane_s(const sim_lanegraph *g, int lane, double road_s);

/* Where a world point lies: the lane whose centre line is nearest within its width
 * (|lat| <= width/2 + margin). hint: a lane to try first (its neighbours, successors
 * and predecessors too), or -1. Returns false when the point is on no lane. */
typedef struct sim_lg_pos {
    int lane;
    double s, lat;           /* lat: left of the centre line, m */
    double heading;          /* the lane's heading at s */
} sim_lg_pos;
bool sim_lanegraph_locate(const sim_lanegraph *g, double x, double y, int hint, double margin,
                          sim_lg_pos *out);

#endif
