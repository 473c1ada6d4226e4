/* sim_route: the route graph, A* over it and the manoeuvres of a route (sim_route.h). */
#include "sim_route.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Joins between pieces may be up to 1 cm apart (docs/scenario.md): the heuristic is
 * lowered by this much so that it stays below the true remaining distance. */
#define JOIN_SLACK 0.05

static int grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return SIM_OK;
    int c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return SIM_ENOMEM;
    *p = q;
    *cap = c;
    return SIM_OK;
}

void sim_route_graph_init(sim_route_graph *g)
{
    memset(g, 0, sizeof *g);
    g->default_speed = 50.0 / 3.6;
}

void sim_route_graph_free(sim_route_graph *g)
{
    free(g->nodes);
    free(g->edge_from);
    free(g->edge_to);
    free(g->limits);
    sim_route_graph_init(g);
}

int sim_route_graph_add_node(sim_route_graph *g, const sim_route_node *n)
{
    if (!isfinite(n->length) || n->length <= 0) return SIM_EINVAL;
    if (grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof *g->nodes)) return SIM_ENOMEM;
    sim_route_node *d = &g->nodes[g->n_nodes];
    *d = *n;
    d->lim0 = d->n_lim = d->edge0 = d->n_edges = 0;
    g->finished = false;
    return g->n_nodes++;
}

int sim_route_graph_add_edge(sim_route_graph *g, int from, int to)
{
    if (from < 0 || from >= g->n_nodes || to < 0 || to >= g->n_nodes) return SIM_EINVAL;
    int cap = g->cap_edges;
    if (grow((void **)&g->edge_from, &cap, g->n_edges + 1, sizeof *g->edge_from)) return SIM_ENOMEM;
    cap = g->cap_edges;
    if (grow((void **)&g->edge_to, &cap, g->n_edges + 1, sizeof *g->edge_to)) return SIM_ENOMEM;
    g->cap_edges = cap;
    g->edge_from[g->n_edges] = from;
    g->edge_to[g->n_edges++] = to;
    g->finished = false;
    return SIM_OK;
}

/* Limits must be added node by node (each node's limits contiguous). */
int sim_route_graph_add_limit(sim_route_graph *g, int node, double t0, double t1, double speed)
{
    if (node < 0 || node >= g->n_nodes || !(t1 > t0) || !(speed > 0)) return SIM_EINVAL;
    sim_route_node *n = &g->nodes[node];
    if (n->n_lim && n->lim0 + n->n_lim != g->n_limits) return SIM_EINVAL;
    if (grow((void **)&g->limits, &g->cap_limits, g->n_limits + 1, sizeof *g->limits)) return SIM_ENOMEM;
    if (!n->n_lim) n->lim0 = g->n_limits;
    g->limits[g->n_limits++] = (sim_route_limit){t0, t1, speed};
    n->n_lim++;
    return SIM_OK;
}

/* Counting sort of the edges by their source node. */
int sim_route_graph_finish(sim_route_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++) g->nodes[i].n_edges = 0;
    for (int e = 0; e < g->n_edges; e++) g->nodes[g->edge_from[e]].n_edges++;
    int acc = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        g->nodes[i].edge0 = acc;
        acc += g->nodes[i].n_edges;
    }
    int *to = malloc((size_t)(g->n_edges ? g->n_edges : 1) * sizeof *to);
    int *fill = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *fill);
    if (!to || !fill) {
        free(to);
        free(fill);
        return SIM_ENOMEM;
    }
    for (int e = 0; e < g->n_edges; e++) {
        int f = g->edge_from[e];
        to[g->nodes[f].edge0 + fill[f]++] = g->edge_to[e];
    }
    /* edge_from follows the new order so that the arrays stay consistent. */
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_edges; k++) g->edge_from[g->nodes[i].edge0 + k] = i;
    /* A graph without edges (one road, no junction) has no edge_to array at all:
     * memcpy from/to NULL is undefined even for 0 bytes (UBSan stops the server). */
    if (g->n_edges) memcpy(g->edge_to, to, (size_t)g->n_edges * sizeof *to);
    free(to);
    free(fill);
    g->finished = true;
    return SIM_OK;
}

double sim_route_graph_time(const sim_route_graph *g, int n, double t0, double t1)
{
    const sim_route_node *nd = &g->nodes[n];
    if (t1 <= t0) return 0;
    double covered = 0, time = 0;
    for (int i = 0; i < nd->n_lim; i++) {
        const sim_route_limit *l = &g->limits[nd->lim0 + i];
        double a = fmax(t0, l->t0), b = fmin(t1, l->t1);
        if (b > a) {
            covered += b - a;
            time += (b - a) / l->speed;
        }
    }
    double rest = (t1 - t0) - covered;
    if (rest > 0) time += rest / g->default_speed;
    return time;
}

const char *sim_maneuver_name(sim_maneuver_type t)
{
    static const char *names[] = {"depart", "straight", "left", "right", "exit_left", "exit_right",
                                  "uturn", "arrive"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

void sim_route_free(sim_route *r)
{
    if (!r) return;
    free(r->legs);
    free(r->mans);
    free(r->px);
    free(r->py);
    free(r->ps);
    memset(r, 0, sizeof *r);
}

/* ---- A* -------------------------------------------------------------------------- */

/* An open-list entry: reaching node's entry (goal < 0) or a goal (goal >= 0) from
 * node's entry (start < 0) or from start position `start` on the same node. */
typedef struct open_entry {
    double f, g;
    int node, goal, start;
} open_entry;

typedef struct heap {
    open_entry *e;
    int n, cap;
} heap;

static int heap_push(heap *h, open_entry x)
{
    if (grow((void **)&h->e, &h->cap, h->n + 1, sizeof *h->e)) return SIM_ENOMEM;
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h->e[p].f <= x.f) break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = x;
    return SIM_OK;
}

static open_entry heap_pop(heap *h)
{
    open_entry top = h->e[0], last = h->e[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->e[c + 1].f < h->e[c].f) c++;
        if (last.f <= h->e[c].f) break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n) h->e[i] = last;
    return top;
}

typedef struct search {
    const sim_route_graph *g;
    const sim_route_pos *goals;
    int n_goals;
    bool heur;
    double *best;      /* cost to each node's entry */
    int *parent;       /* node driven before, -1 none */
    int *pstart;       /* >= 0: the parent was driven from that start position */
    heap open;
} search;

static double heuristic(const search *s, int n)
{
    if (!s->heur) return 0;
    const sim_route_node *a = &s->g->nodes[n];
    double h = INFINITY;
    for (int j = 0; j < s->n_goals; j++) {
        const sim_route_node *b = &s->g->nodes[s->goals[j].node];
        double d = hypot(b->x0 - a->x0, b->y0 - a->y0) + s->goals[j].t;
        if (d < h) h = d;
    }
    return fmax(0, h - JOIN_SLACK);
}

/* Node n's entry reached at cost g, from parent (driven from start position ps, or
 * from its entry when ps < 0). */
static int reach(search *s, int n, double g, int parent, int ps)
{
    if (g >= s->best[n]) return SIM_OK;
    s->best[n] = g;
    s->parent[n] = parent;
    s->pstart[n] = ps;
    if (heap_push(&s->open, (open_entry){g + heuristic(s, n), g, n, -1, -1})) return SIM_ENOMEM;
    /* Goals on this node, reached from its entry. */
    for (int j = 0; j < s->n_goals; j++)
        if (s->goals[j].node == n &&
            heap_push(&s->open, (open_entry){g + s->goals[j].t, g + s->goals[j].t, n, j, -1}))
            return SIM_ENOMEM;
    return SIM_OK;
}

static int add_leg(sim_route *r, int *cap, int node, double t0, double t1)
{
    if (grow((void **)&r->legs, cap, r->n_legs + 1, sizeof *r->legs)) return SIM_ENOMEM;
    r->legs[r->n_legs++] = (sim_route_leg){node, t0, t1, 0};
    return SIM_OK;
}

/* Legs from the goal entry back to the start, then reversed. */
static int build_legs(const search *s, const sim_route_pos *starts, open_entry goal, sim_route *r)
{
    int cap = 0;
    int n = goal.node;
    double t_goal = s->goals[goal.goal].t;
    if (goal.start >= 0) return add_leg(r, &cap, n, starts[goal.start].t, t_goal);
    if (add_leg(r, &cap, n, 0, t_goal)) return SIM_ENOMEM;
    for (int guard = 0; guard <= s->g->n_nodes + 1; guard++) {
        int p = s->parent[n], ps = s->pstart[n];
        assert(p >= 0);
        if (ps >= 0) {
            if (add_leg(r, &cap, p, starts[ps].t, s->g->nodes[p].length)) return SIM_ENOMEM;
            break;
        }
        if (add_leg(r, &cap, p, 0, s->g->nodes[p].length)) return SIM_ENOMEM;
        n = p;
    }
    for (int i = 0, j = r->n_legs - 1; i < j; i++, j--) {
        sim_route_leg t = r->legs[i];
        r->legs[i] = r->legs[j];
        r->legs[j] = t;
    }
    /* A leg of zero length at the start (starting exactly at a node's exit) says nothing. */
    if (r->n_legs > 1 && r->legs[0].t1 - r->legs[0].t0 <= 0) {
        memmove(r->legs, r->legs + 1, (size_t)(r->n_legs - 1) * sizeof *r->legs);
        r->n_legs--;
    }
    return SIM_OK;
}

static int build_maneuvers(const sim_route_graph *g, sim_route *r);

static int check_pos(const sim_route_graph *g, const sim_route_pos *p, const char *what, int i,
                     sim_error *err)
{
    if (p->node < 0 || p->node >= g->n_nodes)
        return sim_error_set(err, SIM_EINVAL, "%s[%d]: node %d, expected 0..%d", what, i, p->node,
                             g->n_nodes - 1);
    if (!(p->t >= 0 && p->t <= g->nodes[p->node].length))
        return sim_error_set(err, SIM_EINVAL, "%s[%d]: t %g, expected 0..%g", what, i, p->t,
                             g->nodes[p->node].length);
    return SIM_OK;
}

int sim_route_find(const sim_route_graph *g, const sim_route_pos *starts, int n_starts,
                   const sim_route_pos *goals, int n_goals, bool use_heuristic, sim_route *out,
                   sim_error *err)
{
    memset(out, 0, sizeof *out);
    assert(g->finished);
    if (n_starts < 1 || n_goals < 1) return sim_error_set(err, SIM_EINVAL, "no start or no goal");
    for (int i = 0; i < n_starts; i++)
        if (check_pos(g, &starts[i], "start", i, err)) return SIM_EINVAL;
    for (int i = 0; i < n_goals; i++)
        if (check_pos(g, &goals[i], "goal", i, err)) return SIM_EINVAL;

    search s = {.g = g, .goals = goals, .n_goals = n_goals, .heur = use_heuristic};
    size_t nn = (size_t)g->n_nodes;
    s.best = malloc(nn * sizeof *s.best);
    s.parent = malloc(nn * sizeof *s.parent);
    s.pstart = malloc(nn * sizeof *s.pstart);
    int rc = SIM_ENOMEM;
    if (!s.best || !s.parent || !s.pstart) goto done;
    for (size_t i = 0; i < nn; i++) {
        s.best[i] = INFINITY;
        s.parent[i] = s.pstart[i] = -1;
    }
    /* From each start: its own node's goals ahead, and the node's successors. */
    for (int k = 0; k < n_starts; k++) {
        const sim_route_pos *st = &starts[k];
        for (int j = 0; j < n_goals; j++)
            if (goals[j].node == st->node && goals[j].t >= st->t) {
                double c = goals[j].t - st->t;
                if (heap_push(&s.open, (open_entry){c, c, st->node, j, k})) goto done;
            }
        int ne;
        const int *next = sim_route_graph_next(g, st->node, &ne);
        double c = g->nodes[st->node].length - st->t;
        for (int e = 0; e < ne; e++)
            if (reach(&s, next[e], c, st->node, k)) goto done;
    }
    while (s.open.n) {
        open_entry x = heap_pop(&s.open);
        if (x.goal >= 0) {
            rc = build_legs(&s, starts, x, out);
            if (rc) goto done;
            rc = build_maneuvers(g, out);
            goto done;
        }
        if (x.g > s.best[x.node]) continue; /* stale */
        out->expanded++;
        int ne;
        const int *next = sim_route_graph_next(g, x.node, &ne);
        double c = x.g + g->nodes[x.node].length;
        for (int e = 0; e < ne; e++)
            if (reach(&s, next[e], c, x.node, -1)) goto done;
    }
    rc = sim_error_set(err, SIM_ENOTFOUND, "no route: the goal cannot be reached from the start");
done:
    if (rc == SIM_ENOMEM) sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (rc) {
        int expanded = out->expanded;
        sim_route_free(out);
        out->expanded = expanded;
    }
    free(s.best);
    free(s.parent);
    free(s.pstart);
    free(s.open.e);
    return rc;
}

/* ---- manoeuvres ------------------------------------------------------------------ */

static double wrap(double a)
{
    while (a > M_PI) a -= 2 * M_PI;
    while (a <= -M_PI) a += 2 * M_PI;
    return a;
}

/* The change of heading when driving from node `from` onto `to` (through the junction
 * when `to` is a connecting road), and the exit heading of the way taken. */
static double option_angle(const sim_route_graph *g, int from, int to)
{
    const sim_route_node *a = &g->nodes[from], *b = &g->nodes[to];
    return wrap((b->junction >= 0 ? b->h1 : b->h0) - a->h1);
}

static sim_maneuver_type classify(const sim_route_graph *g, int from, double angle)
{
    double deg = fabs(angle) * 180.0 / M_PI;
    if (deg >= SIM_ROUTE_UTURN_DEG) return SIM_MAN_UTURN;
    if (deg >= SIM_ROUTE_STRAIGHT_DEG) return angle > 0 ? SIM_MAN_LEFT : SIM_MAN_RIGHT;
    int ne;
    const int *next = sim_route_graph_next(g, from, &ne);
    double straightest = angle;
    for (int e = 0; e < ne; e++) {
        double a = option_angle(g, from, next[e]);
        if (fabs(a) < fabs(straightest)) straightest = a;
    }
    if (fabs(angle) <= fabs(straightest) + 1e-9) return SIM_MAN_STRAIGHT;
    return angle > straightest ? SIM_MAN_EXIT_LEFT : SIM_MAN_EXIT_RIGHT;
}

static int add_man(sim_route *r, int *cap, sim_maneuver m)
{
    if (grow((void **)&r->mans, cap, r->n_mans + 1, sizeof *r->mans)) return SIM_ENOMEM;
    r->mans[r->n_mans++] = m;
    return SIM_OK;
}

static int build_maneuvers(const sim_route_graph *g, sim_route *r)
{
    double at = 0, eta = 0;
    for (int i = 0; i < r->n_legs; i++) {
        sim_route_leg *l = &r->legs[i];
        l->at = at;
        at += l->t1 - l->t0;
        eta += sim_route_graph_time(g, l->node, l->t0, l->t1);
    }
    r->length = at;
    r->eta = eta;
    int cap = 0;
    const sim_route_node *first = &g->nodes[r->legs[0].node], *last = &g->nodes[r->legs[r->n_legs - 1].node];
    if (add_man(r, &cap, (sim_maneuver){SIM_MAN_DEPART, 0, 0, first->x0, first->y0, 0, 0})) return SIM_ENOMEM;
    for (int i = 0; i + 1 < r->n_legs; i++) {
        int a = r->legs[i].node, b = r->legs[i + 1].node;
        const sim_route_node *na = &g->nodes[a], *nb = &g->nodes[b];
        bool enters_junction = nb->junction >= 0 && nb->junction != na->junction;
        if (nb->junction >= 0 && !enters_junction) continue; /* inside a junction */
        if (na->junction >= 0 && nb->junction < 0) continue; /* leaving it: said on entry */
        double angle, done = r->legs[i + 1].at;
        if (enters_junction) {
            int k = i + 1; /* the last leg inside this junction */
            while (k + 1 < r->n_legs && g->nodes[r->legs[k + 1].node].junction == nb->junction) k++;
            angle = wrap(g->nodes[r->legs[k].node].h1 - na->h1);
            done = r->legs[k].at + (r->legs[k].t1 - r->legs[k].t0);
        } else {
            angle = wrap(nb->h0 - na->h1);
            if (na->n_edges < 2 && fabs(angle) * 180.0 / M_PI < SIM_ROUTE_STRAIGHT_DEG)
                continue; /* the road just goes on */
        }
        sim_maneuver m = {classify(g, a, angle), r->legs[i + 1].at, done, nb->x0, nb->y0, angle, i + 1};
        if (add_man(r, &cap, m)) return SIM_ENOMEM;
    }
    return add_man(r, &cap, (sim_maneuver){SIM_MAN_ARRIVE, r->length, r->length, last->x1, last->y1, 0, r->n_legs - 1});
}

/* ---- polyline -------------------------------------------------------------------- */

int sim_route_polyline(sim_route *r, const sim_route_graph *g, double step, sim_route_sample_fn fn,
                       void *user)
{
    assert(step > 0);
    int cap = 0;
    double *px = NULL, *py = NULL, *ps = NULL;
    int n = 0;
    for (int i = 0; i < r->n_legs; i++) {
        const sim_route_leg *l = &r->legs[i];
        double len = l->t1 - l->t0;
        int k = (int)ceil(len / step);
        if (k < 1) k = 1;
        for (int j = (i == 0 ? 0 : 1); j <= k; j++) {
            if (n + 1 > cap) {
                int c = cap ? 2 * cap : 256;
                double *a = realloc(px, (size_t)c * sizeof *a);
                if (a) px = a;
                double *b = realloc(py, (size_t)c * sizeof *b);
                if (b) py = b;
                double *d = realloc(ps, (size_t)c * sizeof *d);
                if (d) ps = d;
                if (!a || !b || !d) {
                    free(px);
                    free(py);
                    free(ps);
                    return SIM_ENOMEM;
                }
                cap = c;
            }
            double t = l->t0 + len * j / k;
            fn(g, i, l->node, t, &px[n], &py[n], user);
            ps[n] = l->at + (t - l->t0);
            n++;
        }
    }
    free(r->px);
    free(r->py);
    free(r->ps);
    r->px = px;
    r->py = py;
    r->ps = ps;
    r->n_pts = n;
    if (n && r->n_mans) {
        r->mans[0].x = px[0];
        r->mans[0].y = py[0];
        r->mans[r->n_mans - 1].x = px[n - 1];
        r->mans[r->n_mans - 1].y = py[n - 1];
    }
    return SIM_OK;
}
