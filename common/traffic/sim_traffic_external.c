/* sim_traffic_external: other cabs' cars among the agents (see sim_traffic.h,
 * docs/cabs.md): placed from outside, seen by every agent, never driven. */
#include "sim_traffic_impl.h"

#include <math.h>

int sim_traffic_add_external(sim_traffic *t, double length, double width, sim_error *err)
{
    if (t->g->n_lanes == 0) return sim_error_set(err, SIM_EINVAL, "traffic: no lanes for another cab's car");
    sim_traffic_spec spec = {.model = 0, .lane = 0, .s = 0, .speed = 0};
    int slot = sim_traffic_add_agent(t, &spec, false, err);
    if (slot < 0) return slot;
    sim_traffic_agent *a = &t->agents[slot];
    a->external = true;
    a->length = length;
    a->width = width;
    a->next_lane = -1;
    a->active = false; /* until it is placed on a lane */
    t->n_active--;
    return slot;
}

void sim_traffic_place_external(sim_traffic *t, int slot, double x, double y, double heading, double speed)
{
    sim_traffic_agent *a = &t->agents[slot];
    if (speed < 0) { /* moving backwards: its direction of motion counts, as the ego's */
        heading += M_PI;
        speed = -speed;
    }
    sim_lg_pos pos;
    bool on = sim_lanegraph_locate(t->g, x, y, a->active ? a->lane : -1, 0.5, &pos) &&
              cos(pos.heading - heading) >= 0;
    if (on != a->active) t->n_active += on ? 1 : -1;
    a->active = on;
    a->x = x;
    a->y = y;
    a->heading = heading;
    a->v = speed;
    a->a = 0;
    a->prev_lane = a->lane;
    a->prev_s = a->s;
    if (!on) return;
    a->lane = pos.lane;
    a->s = pos.s;
    a->lat = pos.lat;
    a->lane2 = -1;
    a->next_lane = -1;
}
