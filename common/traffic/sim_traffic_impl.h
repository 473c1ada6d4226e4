/* sim_traffic_impl: what the traffic core's files share (not a public interface). */
#ifndef SIM_TRAFFIC_IMPL_H
#define SIM_TRAFFIC_IMPL_H

#include <math.h>

#include "sim_traffic.h"
#include "sim_rand.h"

#define TR_EGO(t) ((t)->cap)
/* sim_traffic_lights.c: the gap to the line of a light the agent is to stop at
 * (INFINITY: none), and the ego's crossing of a line on red between two poses. */
double tr_light_gap(const sim_traffic *t, const sim_traffic_agent *a);
void tr_ego_crossed(sim_traffic *t, bool had_prev, const sim_lg_pos *prev);
#define TR_STOP_MARGIN 2.5   /* m between a waiting vehicle's front and the stop line */
#define TR_WAITING_SPEED 0.3 /* m/s: slower than this at the stop line is waiting */

/* xorshift64* seeded through splitmix64 (sim_rand): small, fast, the same everywhere. */
static inline double tr_unit(uint64_t *s) { return sim_rand_unit(sim_rand_xorshift(s)); }

static inline double tr_len(const sim_traffic *t, int a)
{
    return a == TR_EGO(t) ? t->ego.length : t->agents[a].length;
}
/* Speed along the lane. */
static inline double tr_speed(const sim_traffic *t, int a)
{
    return a == TR_EGO(t) ? t->ego.speed : t->agents[a].v;
}

/* A vehicle found near another: who, the gap bumper to bumper (m) and its speed. */
typedef struct tr_near {
    int who;                   /* slot, TR_EGO, or -1 none */
    double gap, v;
} tr_near;

/* Nearest vehicle ahead of (lane, s) for a vehicle `self` of length len, looking on
 * through `next` (the lane after this one, -1: none) and then first successors, up to
 * range m; stops at none. Likewise behind, looking back through all predecessors. */
tr_near tr_ahead(const sim_traffic *t, int self, double len, int lane, double s, int next,
                 double range);
tr_near tr_behind(const sim_traffic *t, int self, double len, int lane, double s, double range);

/* sim_traffic_drive.c: one agent's decision for this step (acceleration in a->a, lane
 * changes and junction reservations started). */
void tr_decide(sim_traffic *t, int slot, double dt);
/* The lane an agent takes at the exit of lane `lane` (route, else a random successor),
 * -1 when none: *stuck says the route goes on from another lane of this road. */
int tr_choose_next(sim_traffic *t, sim_traffic_agent *a, int lane, bool *stuck);
/* sim_traffic_world.c: after the agents moved: triggers, ambient traffic, the lead. */
void tr_world_after_step(sim_traffic *t, double dt);
/* Whether the road index `road` continues the agent's route (advances route_i). */
void tr_route_enter(sim_traffic_agent *a, const int *pool, int road);

#endif
