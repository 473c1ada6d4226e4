/* route_goal: the scripted driver's choice at junctions (see route_goal.h). */
#include "route_goal.h"

#include <math.h>
#include <stdlib.h>

int in_goals_init(in_goals *g, const sim_scenario *sc, sim_error *err)
{
    *g = (in_goals){.sc = sc};
    if (sc->n_tasks == 0) return SIM_OK;
    g->done = calloc((size_t)sc->n_tasks, sizeof *g->done);
    if (!g->done) return sim_error_set(err, SIM_ENOMEM, "path: out of memory");
    int rc = sim_route_map_build(&g->map, &sc->net, err);
    if (rc) {
        free(g->done);
        g->done = NULL;
        return rc;
    }
    g->have_map = true;
    return SIM_OK;
}

void in_goals_free(in_goals *g)
{
    if (g->have_map) sim_route_map_free(&g->map);
    free(g->done);
    *g = (in_goals){0};
}

void in_goals_passed(in_goals *g, int road, double s)
{
    for (int i = 0; g->done && i < g->sc->n_tasks; i++) {
        const sim_task *t = &g->sc->tasks[i];
        if (t->road == road && s >= t->s_start && s <= t->s_end) g->done[i] = true;
    }
}

static int node_of(const sim_route_map *m, int road, int section, int dir)
{
    return m->node_of[2 * (m->first[road] + section) + (dir < 0)];
}

/* Where task t begins on the graph: its road in the direction its start lane runs,
 * at its first s in that direction. */
static bool task_entry(const in_goals *g, const sim_task *t, sim_route_pos *pos)
{
    const sim_road *r = &g->sc->net.roads[t->road];
    sim_lane_info li;
    if (!sim_road_lane_at(r, t->s_start, sim_task_ideal_d(t, t->s_start), &li) || li.lane == 0) return false;
    int dir = sim_road_lane_forward(r, li.lane) ? 1 : -1;
    /* against s the entry is the task's end: just inside it, in the section before */
    double s = dir > 0 ? t->s_start : nextafter(t->s_end, -INFINITY);
    int node = node_of(&g->map, t->road, sim_road_section_at(r, s), dir);
    if (node < 0) return false;
    const sim_route_node *nd = &g->map.g.nodes[node];
    double from_start = s - g->map.s0[node];
    pos->node = node;
    pos->t = fmin(nd->length, fmax(0.0, dir > 0 ? from_start : nd->length - from_start));
    return true;
}

int in_goals_choose(const in_goals *g, const sim_lane_ref *cand, int n)
{
    if (!g->have_map || n < 2) return -1;
    sim_route_pos goal;
    int k = 0;
    while (k < g->sc->n_tasks && g->done[k]) k++;
    if (k == g->sc->n_tasks || !task_entry(g, &g->sc->tasks[k], &goal)) return -1;
    int best = -1;
    double best_len = INFINITY;
    for (int i = 0; i < n; i++) {
        int node = node_of(&g->map, cand[i].road, cand[i].section, cand[i].dir);
        if (node < 0) continue;
        sim_route_pos from = {node, 0.0};
        sim_route r;
        sim_error err = {0};
        if (sim_route_find(&g->map.g, &from, 1, &goal, 1, true, &r, &err)) continue; /* not from here */
        if (r.length < best_len) best_len = r.length, best = i;
        sim_route_free(&r);
    }
    return best;
}
