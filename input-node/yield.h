/* yield: the scripted driver gives way at junctions. The path knows where it enters
 * and leaves each junction (in_junction_span, from route.c); traffic.state tells where
 * the other vehicles are. Approaching a junction, the driver stops before its entry
 * while a vehicle comes from the right towards it (priority to the right, the rule of
 * the shipped town's junctions, which have no signs) or another vehicle is crossing
 * inside it, and goes once the way is clear. Pure: no I/O, no globals. */
#ifndef INPUT_NODE_YIELD_H
#define INPUT_NODE_YIELD_H

#include <stddef.h>

#include "sim_msg_traffic.h"

#define IN_YIELD_LOOK_M 40.0     /* m before a junction's entry where the driver looks */
#define IN_YIELD_STOP_M 2.0      /* m before the entry where it stops when it must */
#define IN_YIELD_DECEL 2.5       /* m/s^2 it brakes with */
#define IN_YIELD_RANGE_M 45.0    /* m from the junction's centre a vehicle may matter */
#define IN_YIELD_ETA_S 6.0       /* s: a vehicle arriving later than this is let be */
#define IN_YIELD_BUSY_M 9.0      /* m: a vehicle this near the centre is in the junction */

typedef struct in_junction_span {
    double s0, s1;               /* path distance of the entry and the exit, m */
    double cx, cy;               /* the junction's centre along the path (mid-point), m */
    double heading;              /* direction of travel at the entry, rad */
} in_junction_span;

/* The speed (m/s) the driver may have at path distance s so as to stop in time for
 * the next junction it must give way at; INFINITY when nothing asks it to. */
double in_yield_speed_cap(const in_junction_span *spans, int n_spans, double s,
                          const sim_msg_traffic_vehicle *veh, int n_veh);

#endif
