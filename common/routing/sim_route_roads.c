/* sim_route_roads: the road network as a route graph (sim_route_roads.h). */
#include "sim_route_roads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Innermost driving lane on one side: its centre offset, or false. */
static bool driving_lane(const sim_road *r, int dir, double *d)
{
    int n = dir > 0 ? r->n_right : r->n_left;
    const sim_lane *lanes = dir > 0 ? r->right : r->left;
    for (int k = 0; k < n; k++)
        if (lanes[k].type == SIM_LANE_DRIVING) return sim_road_lane_center(r, lanes[k].id, d);
    return false;
}

static int node_at(const sim_route_map *m, int road, int dir)
{
    if (road < 0 || road >= m->net->n_roads) return -1;
    return m->node_of[2 * road + (dir < 0)];
}

/* Whether a connection carries a lane of the incoming road's direction dir. */
static bool carries(const sim_connection *c, int dir)
{
    if (c->n_lanes == 0) return true;
    for (int i = 0; i < c->n_lanes; i++)
        if ((dir > 0 && c->lanes[i].from < 0) || (dir < 0 && c->lanes[i].from > 0)) return true;
    return false;
}

static int add_edges(sim_route_map *m, int road, int dir, int from)
{
    const sim_roadnet *net = m->net;
    const sim_road_link *l = dir > 0 ? &net->roads[road].succ : &net->roads[road].pred;
    if (l->kind == SIM_LINK_ROAD) {
        int to = node_at(m, l->index, l->contact == SIM_CONTACT_START ? 1 : -1);
        return to >= 0 ? sim_route_graph_add_edge(&m->g, from, to) : SIM_OK;
    }
    if (l->kind != SIM_LINK_JUNCTION || l->index < 0 || l->index >= net->n_junctions) return SIM_OK;
    const sim_junction *j = &net->junctions[l->index];
    for (int i = 0; i < j->n_conns; i++) {
        const sim_connection *c = &j->conns[i];
        if (c->incoming != road || !carries(c, dir)) continue;
        int to = node_at(m, c->connecting, c->contact == SIM_CONTACT_START ? 1 : -1);
        if (to >= 0 && sim_route_graph_add_edge(&m->g, from, to)) return SIM_ENOMEM;
    }
    return SIM_OK;
}

static int add_node(sim_route_map *m, int road, int dir, double lane_d, int *cap_d)
{
    const sim_roadnet *net = m->net;
    const sim_road *r = &net->roads[road];
    sim_road_pose a, b;
    sim_road_pose_at(net, road, 0, 0, &a);
    sim_road_pose_at(net, road, r->length, 0, &b);
    sim_route_node n = {.length = r->length, .junction = r->junction, .road = road, .dir = dir};
    if (dir > 0) {
        n.x0 = a.x, n.y0 = a.y, n.h0 = a.heading;
        n.x1 = b.x, n.y1 = b.y, n.h1 = b.heading;
    } else {
        n.x0 = b.x, n.y0 = b.y, n.h0 = b.heading + M_PI;
        n.x1 = a.x, n.y1 = a.y, n.h1 = a.heading + M_PI;
    }
    int id = sim_route_graph_add_node(&m->g, &n);
    if (id < 0) return id;
    if (id >= *cap_d) {
        int c = *cap_d ? 2 * *cap_d : 64;
        double *d = realloc(m->lane_d, (size_t)c * sizeof *d);
        if (!d) return SIM_ENOMEM;
        m->lane_d = d;
        *cap_d = c;
    }
    m->lane_d[id] = lane_d;
    m->node_of[2 * road + (dir < 0)] = id;
    /* Limits in the order driven. */
    for (int k = 0; k < r->n_limits; k++) {
        const sim_speed_limit *sl = &r->limits[dir > 0 ? k : r->n_limits - 1 - k];
        double t0 = dir > 0 ? sl->s_start : r->length - sl->s_end;
        double t1 = dir > 0 ? sl->s_end : r->length - sl->s_start;
        if (sl->speed > 0 && sim_route_graph_add_limit(&m->g, id, t0, t1, sl->speed) == SIM_ENOMEM)
            return SIM_ENOMEM;
    }
    return id;
}

int sim_route_map_build(sim_route_map *m, const sim_roadnet *net, sim_error *err)
{
    memset(m, 0, sizeof *m);
    sim_route_graph_init(&m->g);
    m->net = net;
    m->node_of = malloc((size_t)(2 * net->n_roads + 1) * sizeof *m->node_of);
    if (!m->node_of) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    for (int i = 0; i < 2 * net->n_roads; i++) m->node_of[i] = -1;
    int cap_d = 0;
    for (int r = 0; r < net->n_roads; r++) {
        if (net->roads[r].length <= 0) continue;
        for (int dir = 1; dir >= -1; dir -= 2) {
            double d;
            if (!driving_lane(&net->roads[r], dir, &d)) continue;
            if (add_node(m, r, dir, d, &cap_d) < 0) goto oom;
        }
    }
    for (int n = 0; n < m->g.n_nodes; n++)
        if (add_edges(m, m->g.nodes[n].road, m->g.nodes[n].dir, n)) goto oom;
    if (sim_route_graph_finish(&m->g)) goto oom;
    return SIM_OK;
oom:
    sim_route_map_free(m);
    return sim_error_set(err, SIM_ENOMEM, "out of memory building the route graph");
}

void sim_route_map_free(sim_route_map *m)
{
    sim_route_graph_free(&m->g);
    free(m->node_of);
    free(m->lane_d);
    memset(m, 0, sizeof *m);
}

void sim_route_map_sample(const sim_route_graph *g, int node, double t, double *x, double *y, void *user)
{
    const sim_route_map *m = user;
    const sim_route_node *n = &g->nodes[node];
    double s = n->dir > 0 ? t : n->length - t;
    sim_road_pose p;
    sim_road_pose_at(m->net, n->road, s, m->lane_d[node], &p);
    *x = p.x;
    *y = p.y;
}

const char *sim_route_map_road_id(const sim_route_map *m, int node)
{
    return m->net->roads[m->g.nodes[node].road].id;
}

int sim_route_map_positions(const sim_route_map *m, const sim_route_end *e, sim_route_pos out[2])
{
    sim_road_loc loc;
    if (sim_roadnet_locate(m->net, e->x, e->y, &loc) || loc.road < 0) return 0;
    int fwd = node_at(m, loc.road, 1), back = node_at(m, loc.road, -1);
    double len = m->net->roads[loc.road].length;
    double s = fmin(fmax(loc.s, 0), len);
    int want = 0; /* +1 / -1: one direction; 0: both */
    if (isfinite(e->heading)) {
        want = cos(e->heading - loc.heading) >= 0 ? 1 : -1;
    } else if (loc.on_road) {
        want = loc.d <= 0 ? 1 : -1;
    }
    int n = 0;
    if (fwd >= 0 && want >= 0) out[n++] = (sim_route_pos){fwd, s};
    if (back >= 0 && want <= 0) out[n++] = (sim_route_pos){back, len - s};
    if (n == 0) { /* the wanted direction has no lane: take what there is */
        if (fwd >= 0) out[n++] = (sim_route_pos){fwd, s};
        if (back >= 0) out[n++] = (sim_route_pos){back, len - s};
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
    rc = sim_route_polyline(out, &m->g, step, sim_route_map_sample, (void *)m);
    if (rc) {
        sim_route_free(out);
        return sim_error_set(err, rc, "out of memory");
    }
    return SIM_OK;
}
