/* yield: giving way at junctions (see yield.h). */
#include "yield.h"

#include <math.h>

/* Whether vehicle v is one to give way to at junction j. */
static int must_yield_to(const in_junction_span *j, const sim_msg_traffic_vehicle *v)
{
    double rx = v->pos[0] - j->cx, ry = v->pos[1] - j->cy, dist = hypot(rx, ry);
    if (dist > IN_YIELD_RANGE_M) return 0;
    double hx = cos(j->heading), hy = sin(j->heading);
    double vx = v->velocity[0], vy = v->velocity[1], speed = hypot(vx, vy);
    /* going our way (the vehicle ahead, or one that turned in before us): the
     * lead-vehicle gap handles it */
    if (speed > 0.5 && (vx * hx + vy * hy) / speed > cos(30 * M_PI / 180)) return 0;
    if (dist < IN_YIELD_BUSY_M) return speed > 0.5; /* crossing inside the junction now */
    if (speed < 1.0) return 0;                       /* waiting: it gives way to us */
    double closing = -(vx * rx + vy * ry) / dist;    /* speed towards the centre */
    if (closing < 0.5 || dist / closing > IN_YIELD_ETA_S) return 0;
    /* from the right: to the right of our direction of travel (cross product < 0) */
    return hx * ry - hy * rx < 0;
}

double in_yield_speed_cap(const in_junction_span *spans, int n_spans, double s,
                          const sim_msg_traffic_vehicle *veh, int n_veh)
{
    for (int k = 0; k < n_spans; k++) {
        const in_junction_span *j = &spans[k];
        if (s > j->s0 - 0.5) continue;           /* entered or passed: clear it, do not stop */
        if (j->s0 - s > IN_YIELD_LOOK_M) return INFINITY; /* the next one is still far */
        for (int i = 0; i < n_veh; i++)
            if (must_yield_to(j, &veh[i])) {
                double room = j->s0 - IN_YIELD_STOP_M - s;
                return room > 0 ? sqrt(2.0 * IN_YIELD_DECEL * room) : 0.0;
            }
        return INFINITY;
    }
    return INFINITY;
}
