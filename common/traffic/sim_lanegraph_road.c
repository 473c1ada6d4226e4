/* sim_lanegraph_road: builds the traffic lane graph from the road model (sim_road.h).
 *
 * The one file of the traffic core that reads the road model: when the road API
 * changes, this file changes and nothing else. Every drivable lane of every lane
 * section becomes a graph lane in its direction of travel (sim_road_lane_forward);
 * its successors are the road model's lane graph (sim_roadnet_lane_next: the next
 * section, the linked road, a junction's lane links); signs near a lane's exit
 * (stop, yield, priority) set its approach rank. */
#include "sim_lanegraph_road.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIGN_REACH 60.0 /* m before a lane's exit within which a junction sign applies */
#define MIN_WIDTH 2.5   /* m: narrower lanes are not driven */

static double wrap(double a)
{
    while (a > M_PI) a -= 2 * M_PI;
    while (a < -M_PI) a += 2 * M_PI;
    return a;
}

static bool drivable(const sim_road *r, int section, int id)
{
    const sim_lane *l = id ? sim_road_lane(r, section, id) : NULL;
    return l && sim_lane_type_drivable(l->type);
}

/* Graph lane of (road, section, lane id): lanes of a road are consecutive from
 * first[road]. */
static int lane_of(const sim_lanegraph *g, const int *first, int road, int section, int id)
{
    for (int i = first[road]; i < first[road + 1]; i++)
        if (g->lanes[i].section == section && g->lanes[i].lane_id == id) return i;
    return -1;
}

static int add_road_lane(sim_lanegraph *g, const sim_roadnet *net, int ri, int sec, int id, bool keep_merge,
                         sim_error *err)
{
    const sim_road *r = &net->roads[ri];
    const sim_lane_section *ls = &r->sections[sec];
    double len = ls->s1 - ls->s0;
    if (!(len > 0)) return SIM_OK; /* an empty section: nothing to drive */
    int n = (int)ceil(len / SIM_LG_STEP) + 1, pt0;
    /* A lane narrower than a car somewhere (a taper) is not driven: the lane before
     * it ends there, and vehicles merge before. Except a merge lane, wide where it
     * starts and narrowing only towards its end (an on-ramp's acceleration lane, as
     * OpenSCENARIO's highway_merge drives), when asked: vehicles on it change lanes
     * before its end, or follow its successor link. */
    const sim_lane *rl = sim_road_lane(r, sec, id);
    bool narrowed = false;
    for (int i = 0; i < n; i++) {
        bool narrow = sim_lane_width(rl, len * i / (n - 1)) < MIN_WIDTH;
        if ((narrow && (i == 0 || !keep_merge)) || (narrowed && !narrow)) return SIM_OK;
        narrowed = narrowed || narrow;
    }
    int lane = sim_lanegraph_add_lane(g, n, &pt0, err);
    if (lane < 0) return lane;
    sim_lg_lane *l = &g->lanes[lane];
    l->road = ri;
    l->section = sec;
    l->s0 = ls->s0;
    l->lane_id = id;
    l->forward = sim_road_lane_forward(r, id);
    l->junction = r->junction;
    l->length = len;
    l->width = sim_lane_width(rl, 0.5 * len);
    double ds = len / (n - 1);
    for (int i = 0; i < n; i++) {
        /* Just inside the section at its ends: a section's first s belongs to it. */
        double u = fmin(fmax(i * ds, 1e-6), len - 1e-6);
        double s = l->forward ? ls->s0 + u : ls->s1 - u, t = 0;
        sim_road_lane_center(r, s, id, &t);
        sim_road_pose p;
        sim_road_pose_at(net, ri, s, t, &p);
        g->px[pt0 + i] = p.x;
        g->py[pt0 + i] = p.y;
        g->ph[pt0 + i] = l->forward ? p.heading : wrap(p.heading + M_PI);
        g->pv[pt0 + i] = (float)sim_road_lane_speed_limit(r, s, id);
    }
    for (int i = 0; i < n; i++) {
        int a = i > 0 ? i - 1 : i, b = i < n - 1 ? i + 1 : i;
        g->pk[pt0 + i] = wrap(g->ph[pt0 + b] - g->ph[pt0 + a]) / ((b - a) * ds);
    }
    /* Signs at the exit, on this lane's side of the road. */
    for (int k = 0; k < r->n_signs; k++) {
        const sim_sign *sg = &r->signs[k];
        double to_exit = l->forward ? ls->s1 - sg->s : sg->s - ls->s0;
        if (to_exit < 0 || to_exit > SIGN_REACH || (sg->d > 0) == l->forward) continue;
        if (sg->type == SIM_SIGN_STOP) {
            l->rank = SIM_LG_YIELD;
            l->stop_sign = true;
        } else if (sg->type == SIM_SIGN_YIELD) {
            l->rank = SIM_LG_YIELD;
        } else if (sg->type == SIM_SIGN_PRIORITY) {
            l->rank = SIM_LG_PRIORITY;
        }
    }
    return lane;
}

/* The neighbour in the direction of travel: `side` +1 left, -1 right. Only lanes of
 * the same section running the same way (nobody overtakes in the oncoming lane). */
static int neighbour(const sim_lanegraph *g, const sim_roadnet *net, const int *first, int lane, int side)
{
    const sim_lg_lane *l = &g->lanes[lane];
    const sim_road *r = &net->roads[l->road];
    int step = (l->forward ? 1 : -1) * side; /* left of travel along s is towards larger ids */
    int id = l->lane_id + step;
    if (id == 0) id += step;
    if (!drivable(r, l->section, id) || sim_road_lane_forward(r, id) != l->forward) return -1;
    return lane_of(g, first, l->road, l->section, id);
}

int sim_lanegraph_from_roads_merge(sim_lanegraph *g, const sim_roadnet *net, bool keep_merge_lanes, sim_error *err)
{
    memset(g, 0, sizeof *g);
    int *first = calloc((size_t)net->n_roads + 1, sizeof *first);
    if (!first) return sim_error_set(err, SIM_ENOMEM, "lane graph: out of memory");
    int ret = SIM_OK;
    for (int ri = 0; ri < net->n_roads && ret >= 0; ri++) {
        const sim_road *r = &net->roads[ri];
        first[ri] = g->n_lanes;
        for (int sec = 0; sec < r->n_sections && ret >= 0; sec++) {
            const sim_lane_section *ls = &r->sections[sec];
            for (int k = 1; k <= ls->n_right && ret >= 0; k++)
                if (drivable(r, sec, -k)) ret = add_road_lane(g, net, ri, sec, -k, keep_merge_lanes, err);
            for (int k = 1; k <= ls->n_left && ret >= 0; k++)
                if (drivable(r, sec, k)) ret = add_road_lane(g, net, ri, sec, k, keep_merge_lanes, err);
        }
    }
    first[net->n_roads] = g->n_lanes;
    for (int i = 0; i < g->n_lanes && ret >= 0; i++) {
        sim_lg_lane *l = &g->lanes[i];
        l->left = neighbour(g, net, first, i, 1);
        l->right = neighbour(g, net, first, i, -1);
        sim_lane_ref from = {l->road, l->section, l->lane_id, l->forward ? 1 : -1}, next[SIM_LG_MAX_LINKS];
        int n = sim_roadnet_lane_next(net, &from, next, SIM_LG_MAX_LINKS);
        for (int k = 0; k < n && k < SIM_LG_MAX_LINKS; k++) {
            if (next[k].road < 0 || next[k].road >= net->n_roads) continue;
            int to = lane_of(g, first, next[k].road, next[k].section, next[k].lane);
            /* Only lanes travelled the way the graph lane runs. */
            if (to >= 0 && (g->lanes[to].forward ? 1 : -1) == next[k].dir) sim_lanegraph_link(g, i, to);
        }
    }
    g->n_junctions = net->n_junctions;
    free(first);
    if (ret >= 0) ret = sim_lanegraph_finish(g, err);
    if (ret < 0) sim_lanegraph_free(g);
    return ret < 0 ? ret : SIM_OK;
}
