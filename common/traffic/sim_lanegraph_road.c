/* sim_lanegraph_road: builds the traffic lane graph from the road model (sim_road.h).
 *
 * The one file of the traffic core that reads the road model: when the road API
 * changes, this file changes and nothing else. Every driving lane becomes a graph lane
 * in its direction of travel (right lanes with the road's s, left lanes against it);
 * end-to-end road links and junction lane links become successor links; signs at a
 * lane's exit (stop, yield, priority) set its approach rank. */
#include "sim_lanegraph_road.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIGN_REACH 60.0 /* m before a lane's exit within which a junction sign applies */

static const sim_lane *road_lane(const sim_road *r, int id)
{
    if (id < 0 && -id <= r->n_right) return &r->right[-id - 1];
    if (id > 0 && id <= r->n_left) return &r->left[id - 1];
    return NULL;
}

static bool driving(const sim_road *r, int id)
{
    const sim_lane *l = road_lane(r, id);
    return l && l->type == SIM_LANE_DRIVING;
}

static double wrap(double a)
{
    while (a > M_PI) a -= 2 * M_PI;
    while (a < -M_PI) a += 2 * M_PI;
    return a;
}

static int add_road_lane(sim_lanegraph *g, const sim_roadnet *net, int ri, int id, sim_error *err)
{
    const sim_road *r = &net->roads[ri];
    double d;
    if (!sim_road_lane_center(r, id, &d) || !(r->length > 0))
        return sim_error_set(err, SIM_EINVAL, "lane graph: road '%s' lane %d has no centre", r->id, id);
    int n = (int)ceil(r->length / SIM_LG_STEP) + 1, pt0;
    int lane = sim_lanegraph_add_lane(g, n, &pt0, err);
    if (lane < 0) return lane;
    sim_lg_lane *l = &g->lanes[lane];
    l->road = ri;
    l->lane_id = id;
    l->forward = id < 0;
    l->junction = r->junction;
    l->length = r->length;
    l->width = road_lane(r, id)->width;
    double ds = r->length / (n - 1);
    for (int i = 0; i < n; i++) {
        double s = l->forward ? i * ds : r->length - i * ds;
        sim_road_pose p;
        sim_road_pose_at(net, ri, s, d, &p);
        g->px[pt0 + i] = p.x;
        g->py[pt0 + i] = p.y;
        g->ph[pt0 + i] = l->forward ? p.heading : wrap(p.heading + M_PI);
        double lim = sim_road_speed_limit(r, s);
        g->pv[pt0 + i] = (float)lim;
    }
    for (int i = 0; i < n; i++) {
        int a = i > 0 ? i - 1 : i, b = i < n - 1 ? i + 1 : i;
        g->pk[pt0 + i] = wrap(g->ph[pt0 + b] - g->ph[pt0 + a]) / ((b - a) * ds);
    }
    /* Signs at the exit, on this lane's side of the road. */
    for (int k = 0; k < r->n_signs; k++) {
        const sim_sign *sg = &r->signs[k];
        double to_exit = l->forward ? r->length - sg->s : sg->s;
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

/* The lane a vehicle in `lane` of road ri reaches through the end link `link`. */
static void link_exit(sim_lanegraph *g, const sim_roadnet *net, const int *first, int lane,
                      const sim_road_link *link)
{
    const sim_lg_lane *l = &g->lanes[lane];
    if (link->kind == SIM_LINK_ROAD && link->index >= 0 && link->index < net->n_roads) {
        const sim_road *q = &net->roads[link->index];
        /* Travelling on with the next road's s keeps right lanes right. */
        bool same = (l->forward && link->contact == SIM_CONTACT_START) ||
                    (!l->forward && link->contact == SIM_CONTACT_END);
        int id = same ? l->lane_id : -l->lane_id;
        if (driving(q, id)) {
            int to = sim_lanegraph_find(g, link->index, id);
            if (to >= 0) sim_lanegraph_link(g, lane, to);
        }
    } else if (link->kind == SIM_LINK_JUNCTION && link->index >= 0 && link->index < net->n_junctions) {
        const sim_junction *j = &net->junctions[link->index];
        for (int c = 0; c < j->n_conns; c++) {
            const sim_connection *cn = &j->conns[c];
            if (cn->incoming != l->road) continue;
            for (int k = 0; k < cn->n_lanes; k++) {
                if (cn->lanes[k].from != l->lane_id) continue;
                int to = sim_lanegraph_find(g, cn->connecting, cn->lanes[k].to);
                if (to >= 0) sim_lanegraph_link(g, lane, to);
            }
        }
    }
}

int sim_lanegraph_from_roads(sim_lanegraph *g, const sim_roadnet *net, sim_error *err)
{
    memset(g, 0, sizeof *g);
    int *first = calloc((size_t)net->n_roads + 1, sizeof *first);
    if (!first) return sim_error_set(err, SIM_ENOMEM, "lane graph: out of memory");
    int ret = SIM_OK;
    for (int ri = 0; ri < net->n_roads && ret >= 0; ri++) {
        const sim_road *r = &net->roads[ri];
        first[ri] = g->n_lanes;
        for (int k = 1; k <= r->n_right && ret >= 0; k++)
            if (driving(r, -k)) ret = add_road_lane(g, net, ri, -k, err);
        for (int k = 1; k <= r->n_left && ret >= 0; k++)
            if (driving(r, k)) ret = add_road_lane(g, net, ri, k, err);
    }
    for (int i = 0; i < g->n_lanes && ret >= 0; i++) {
        sim_lg_lane *l = &g->lanes[i];
        const sim_road *r = &net->roads[l->road];
        int k = abs(l->lane_id), sign = l->lane_id < 0 ? -1 : 1;
        /* Left in the direction of travel is towards the centre line on either side. */
        if (k > 1 && driving(r, sign * (k - 1))) l->left = sim_lanegraph_find(g, l->road, sign * (k - 1));
        if (driving(r, sign * (k + 1))) l->right = sim_lanegraph_find(g, l->road, sign * (k + 1));
        link_exit(g, net, first, i, l->forward ? &r->succ : &r->pred);
    }
    g->n_junctions = net->n_junctions;
    free(first);
    if (ret >= 0) ret = sim_lanegraph_finish(g, err);
    if (ret < 0) sim_lanegraph_free(g);
    return ret < 0 ? ret : SIM_OK;
}
