/* sim_route_roads: the road network as a route graph (sim_route_roads.h). */
#include "sim_route_roads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEXT 64 /* successor lanes looked at per lane */

/* Innermost drivable lane of a section whose traffic runs in direction dir, or 0. */
static int section_lane(const sim_road *r, int sec, int dir)
{
    const sim_lane_section *ls = &r->sections[sec];
    for (int side = 0; side < 2; side++) {
        const sim_lane *lanes = side ? ls->left : ls->right;
        int n = side ? ls->n_left : ls->n_right;
        for (int k = 0; k < n; k++)
            if (sim_lane_type_drivable(lanes[k].type) && (sim_road_lane_forward(r, lanes[k].id) ? 1 : -1) == dir)
                return lanes[k].id;
    }
    return 0;
}

static int node_at(const sim_route_map *m, int road, int sec, int dir)
{
    if (road < 0 || road >= m->net->n_roads || sec < 0 || sec >= m->net->roads[road].n_sections) return -1;
    return m->node_of[2 * (m->first[road] + sec) + (dir < 0)];
}

static int add_node(sim_route_map *m, int road, int sec, int dir, int lane, int *cap)
{
    const sim_roadnet *net = m->net;
    const sim_road *r = &net->roads[road];
    const sim_lane_section *ls = &r->sections[sec];
    sim_road_pose a, b;
    sim_road_pose_at(net, road, ls->s0, 0, &a);
    sim_road_pose_at(net, road, ls->s1, 0, &b);
    sim_route_node n = {.length = ls->s1 - ls->s0, .junction = r->junction, .road = road, .dir = dir};
    if (!(n.length > 0)) return SIM_OK; /* an empty section joins nothing */
    if (dir > 0) {
        n.x0 = a.x, n.y0 = a.y, n.h0 = a.heading;
        n.x1 = b.x, n.y1 = b.y, n.h1 = b.heading;
    } else {
        n.x0 = b.x, n.y0 = b.y, n.h0 = b.heading + M_PI;
        n.x1 = a.x, n.y1 = a.y, n.h1 = a.heading + M_PI;
    }
    int id = sim_route_graph_add_node(&m->g, &n);
    if (id < 0) return id;
    if (id >= *cap) {
        int c = *cap ? 2 * *cap : 64;
        int *se = realloc(m->section, (size_t)c * sizeof *se);
        if (se) m->section = se;
        int *la = realloc(m->lane, (size_t)c * sizeof *la);
        if (la) m->lane = la;
        double *s0 = realloc(m->s0, (size_t)c * sizeof *s0);
        if (s0) m->s0 = s0;
        if (!se || !la || !s0) return SIM_ENOMEM;
        *cap = c;
    }
    m->section[id] = sec;
    m->lane[id] = lane;
    m->s0[id] = ls->s0;
    m->node_of[2 * (m->first[road] + sec) + (dir < 0)] = id;
    /* The road's limits over this section, in the order driven. */
    for (int k = 0; k < r->n_limits; k++) {
        const sim_speed_limit *sl = &r->limits[dir > 0 ? k : r->n_limits - 1 - k];
        double lo = fmax(sl->s_start, ls->s0), hi = fmin(sl->s_end, ls->s1);
        if (!(hi > lo) || !(sl->speed > 0)) continue;
        double t0 = dir > 0 ? lo - ls->s0 : ls->s1 - hi, t1 = dir > 0 ? hi - ls->s0 : ls->s1 - lo;
        if (sim_route_graph_add_limit(&m->g, id, t0, t1, sl->speed) == SIM_ENOMEM) return SIM_ENOMEM;
    }
    return id;
}

/* Edges from node n: every lane of its section running its way, to the sections
 * their successor lanes are in (each target once). */
static int add_edges(sim_route_map *m, int n)
{
    const sim_route_node *nd = &m->g.nodes[n];
    const sim_road *r = &m->net->roads[nd->road];
    const sim_lane_section *ls = &r->sections[m->section[n]];
    int done[MAX_NEXT * 4], n_done = 0;
    for (int side = 0; side < 2; side++) {
        const sim_lane *lanes = side ? ls->left : ls->right;
        int count = side ? ls->n_left : ls->n_right;
        for (int k = 0; k < count; k++) {
            if (!sim_lane_type_drivable(lanes[k].type) || (sim_road_lane_forward(r, lanes[k].id) ? 1 : -1) != nd->dir)
                continue;
            sim_lane_ref from = {nd->road, m->section[n], lanes[k].id, nd->dir}, next[MAX_NEXT];
            int nn = sim_roadnet_lane_next(m->net, &from, next, MAX_NEXT);
            for (int i = 0; i < nn && i < MAX_NEXT; i++) {
                int to = node_at(m, next[i].road, next[i].section, next[i].dir);
                bool seen = to < 0;
                for (int j = 0; j < n_done && !seen; j++) seen = done[j] == to;
                if (seen) continue;
                if (sim_route_graph_add_edge(&m->g, n, to)) return SIM_ENOMEM;
                if (n_done < (int)(sizeof done / sizeof done[0])) done[n_done++] = to;
            }
        }
    }
    return SIM_OK;
}

int sim_route_map_build(sim_route_map *m, const sim_roadnet *net, sim_error *err)
{
    memset(m, 0, sizeof *m);
    sim_route_graph_init(&m->g);
    m->net = net;
    int total = 0;
    m->first = malloc((size_t)(net->n_roads + 1) * sizeof *m->first);
    if (!m->first) goto oom;
    for (int r = 0; r < net->n_roads; r++) {
        m->first[r] = total;
        total += net->roads[r].n_sections;
    }
    m->node_of = malloc((size_t)(2 * total + 1) * sizeof *m->node_of);
    if (!m->node_of) goto oom;
    for (int i = 0; i < 2 * total; i++) m->node_of[i] = -1;
    int cap = 0;
    for (int r = 0; r < net->n_roads; r++)
        for (int sec = 0; sec < net->roads[r].n_sections; sec++)
            for (int dir = 1; dir >= -1; dir -= 2) {
                int lane = section_lane(&net->roads[r], sec, dir);
                if (lane && add_node(m, r, sec, dir, lane, &cap) < 0) goto oom;
            }
    for (int n = 0; n < m->g.n_nodes; n++)
        if (add_edges(m, n)) goto oom;
    if (sim_route_graph_finish(&m->g)) goto oom;
    return SIM_OK;
oom:
    sim_route_map_free(m);
    return sim_error_set(err, SIM_ENOMEM, "out of memory building the route graph");
}

void sim_route_map_free(sim_route_map *m)
{
    sim_route_graph_free(&m->g);
    free(m->first);
    free(m->node_of);
    free(m->section);
    free(m->lane);
    free(m->s0);
    memset(m, 0, sizeof *m);
}

typedef struct poly_ctx {
    const sim_route_map *m;
    const int *lane;          /* per leg */
} poly_ctx;

static void sample(const sim_route_graph *g, int leg, int node, double t, double *x, double *y, void *user)
{
    const poly_ctx *c = user;
    const sim_route_node *n = &g->nodes[node];
    double s = c->m->s0[node] + (n->dir > 0 ? t : n->length - t);
    sim_road_pose p;
    if (sim_road_lane_pose(c->m->net, n->road, s, c->lane[leg], 0, &p) == SIM_ENOTFOUND)
        sim_road_pose_at(c->m->net, n->road, s, 0, &p);
    *x = p.x;
    *y = p.y;
}

/* Whether lane `lane` of node a's section leads into node b, and into lane `want` of it
 * (*exact) when want is not 0. */
static bool leads(const sim_route_map *m, int a, int lane, int b, int want, bool *exact)
{
    const sim_route_node *na = &m->g.nodes[a], *nb = &m->g.nodes[b];
    sim_lane_ref from = {na->road, m->section[a], lane, na->dir}, next[MAX_NEXT];
    int n = sim_roadnet_lane_next(m->net, &from, next, MAX_NEXT);
    bool any = false;
    *exact = false;
    for (int i = 0; i < n && i < MAX_NEXT; i++) {
        if (next[i].road != nb->road || next[i].section != m->section[b] || next[i].dir != nb->dir) continue;
        any = true;
        if (next[i].lane == want) *exact = true;
    }
    return any;
}

int sim_route_map_polyline(const sim_route_map *m, sim_route *r, double step)
{
    int *lane = malloc((size_t)(r->n_legs ? r->n_legs : 1) * sizeof *lane);
    if (!lane) return SIM_ENOMEM;
    for (int i = r->n_legs - 1; i >= 0; i--) {
        int node = r->legs[i].node;
        lane[i] = m->lane[node];
        if (i == r->n_legs - 1) continue;
        const sim_road *rd = &m->net->roads[m->g.nodes[node].road];
        const sim_lane_section *ls = &rd->sections[m->section[node]];
        int best = 0, best_rank = 0; /* rank 2: into the next leg's lane, 1: into its section */
        for (int side = 0; side < 2 && best_rank < 2; side++) {
            const sim_lane *lanes = side ? ls->left : ls->right;
            int count = side ? ls->n_left : ls->n_right;
            for (int k = 0; k < count && best_rank < 2; k++) {
                if (!sim_lane_type_drivable(lanes[k].type) ||
                    (sim_road_lane_forward(rd, lanes[k].id) ? 1 : -1) != m->g.nodes[node].dir)
                    continue;
                bool exact;
                if (!leads(m, node, lanes[k].id, r->legs[i + 1].node, lane[i + 1], &exact)) continue;
                int rank = exact ? 2 : 1;
                if (rank > best_rank) best = lanes[k].id, best_rank = rank;
            }
        }
        if (best) lane[i] = best;
    }
    poly_ctx c = {m, lane};
    int rc = sim_route_polyline(r, &m->g, step, sample, &c);
    free(lane);
    return rc;
}

const char *sim_route_map_road_id(const sim_route_map *m, int node)
{
    return m->net->roads[m->g.nodes[node].road].id;
}

int sim_route_map_positions(const sim_route_map *m, const sim_route_end *e, sim_route_pos out[2])
{
    sim_locate_query q = {.x = e->x, .y = e->y, .z = NAN, .heading = e->heading, .drivable_only = true};
    sim_road_loc loc;
    if (sim_roadnet_locate_query(m->net, &q, &loc) || loc.road < 0) return 0;
    const sim_road *r = &m->net->roads[loc.road];
    double s = fmin(fmax(loc.s, 0), r->length);
    int sec = sim_road_section_at(r, s);
    int fwd = node_at(m, loc.road, sec, 1), back = node_at(m, loc.road, sec, -1);
    int want = 0; /* +1 / -1: one direction; 0: both */
    if (isfinite(e->heading)) want = cos(e->heading - loc.heading) >= 0 ? 1 : -1;
    else if (loc.on_road && loc.lane.lane) want = sim_road_lane_forward(r, loc.lane.lane) ? 1 : -1;
    int n = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++) { /* the wanted direction, else what there is */
        if (fwd >= 0 && (pass || want >= 0)) out[n++] = (sim_route_pos){fwd, fmin(fmax(s - m->s0[fwd], 0), m->g.nodes[fwd].length)};
        if (back >= 0 && (pass || want <= 0)) {
            double t = m->s0[back] + m->g.nodes[back].length - s;
            out[n++] = (sim_route_pos){back, fmin(fmax(t, 0), m->g.nodes[back].length)};
        }
    }
    return n;
}

int sim_route_map_route(const sim_route_map *m, const sim_route_end *from, const sim_route_end *to,
                        double step, sim_route *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    sim_route_pos a[2], b[2];
    int na = sim_route_map_positions(m, from, a);
    if (!na) return sim_error_set(err, SIM_ENOTFOUND, "from: (%g, %g) is near no drivable road", from->x, from->y);
    sim_route_end goal = *to;
    goal.heading = NAN; /* arriving from either side is fine */
    int nb = sim_route_map_positions(m, &goal, b);
    if (!nb) return sim_error_set(err, SIM_ENOTFOUND, "to: (%g, %g) is near no drivable road", to->x, to->y);
    int rc = sim_route_find(&m->g, a, na, b, nb, true, out, err);
    if (rc) return rc;
    rc = sim_route_map_polyline(m, out, step);
    if (rc) {
        sim_route_free(out);
        return sim_error_set(err, rc, "out of memory");
    }
    return SIM_OK;
}
