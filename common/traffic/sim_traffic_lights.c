/* sim_traffic_lights: traffic lights in the traffic core: agents stop at the line of a
 * head showing red, red and amber, or amber when they can do so comfortably, and the
 * ego's crossing of a line on red is noted (sim_traffic.h, docs/traffic.md). */
#include <math.h>

#include "sim_traffic.h"
#include "sim_traffic_impl.h"

/* An agent that would need more than this times its comfortable deceleration to stop
 * at the line as the light turns goes on through (as a driver does at amber). */
#define LIGHT_STOP_FACTOR 1.5
/* m between the front of an agent waiting at a light and its line */
#define LIGHT_LINE_MARGIN 1.0

void sim_traffic_set_lights(sim_traffic *t, const sim_traffic_stop *stops, int n, const sim_light_state *states)
{
    t->stops = stops;
    t->n_stops = stops ? n : 0;
    t->light_states = states;
}

double tr_light_gap(const sim_traffic *t, const sim_traffic_agent *a)
{
    double best = INFINITY, front = a->s + 0.5 * a->length;
    for (int i = 0; i < t->n_stops; i++) {
        const sim_traffic_stop *st = &t->stops[i];
        if (!sim_light_state_stops(t->light_states[st->head])) continue;
        double d;
        if (st->lane == a->lane) d = st->s - front;
        else if (st->lane == a->next_lane && a->next_lane >= 0) d = t->g->lanes[a->lane].length - front + st->s;
        else continue;
        if (d < -0.5) continue; /* its front is over the line: it goes on */
        double need = a->v * a->v / (2 * fmax(d - LIGHT_LINE_MARGIN, 0.1));
        if (need > LIGHT_STOP_FACTOR * a->b.max_decel && a->v > 1.0) continue; /* too close to stop */
        /* as a standing obstacle min_gap beyond where the front is to halt */
        double gap = d - LIGHT_LINE_MARGIN + a->b.min_gap;
        if (gap < best) best = gap;
    }
    return best;
}

static bool is_succ(const sim_lanegraph *g, int lane, int next)
{
    for (int k = 0; k < g->lanes[lane].n_succ; k++)
        if (g->lanes[lane].succ[k] == next) return true;
    return false;
}

void tr_ego_crossed(sim_traffic *t, bool had_prev, const sim_lg_pos *prev)
{
    if (!had_prev || !t->light_states) return;
    const sim_traffic_ego *e = &t->ego;
    double half = 0.5 * e->length;
    for (int i = 0; i < t->n_stops; i++) {
        const sim_traffic_stop *st = &t->stops[i];
        sim_light_state s = t->light_states[st->head];
        if (s != SIM_SIGNAL_RED && s != SIM_SIGNAL_RED_AMBER) continue;
        bool crossed = false;
        if (prev->lane == st->lane && e->pos.lane == st->lane)
            crossed = prev->s + half < st->s && e->pos.s + half >= st->s;
        else if (prev->lane == st->lane && is_succ(t->g, st->lane, e->pos.lane)) /* on into the next lane */
            crossed = prev->s + half < st->s;
        else if (prev->lane != st->lane && e->pos.lane == st->lane)
            crossed = e->pos.s + half >= st->s && e->pos.s + half - st->s < 5.0;
        if (crossed) {
            t->ego_ran_red = st->head;
            t->ego_ran_red_speed = e->speed;
        }
    }
}
