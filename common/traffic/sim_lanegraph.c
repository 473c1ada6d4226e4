/* sim_lanegraph: the traffic core's lane graph (see sim_lanegraph.h). */
#include "sim_lanegraph.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_lanegraph_free(sim_lanegraph *g)
{
    free(g->lanes);
    free(g->px);
    free(g->py);
    free(g->ph);
    free(g->pk);
    free(g->pv);
    free(g->conf);
    memset(g, 0, sizeof *g);
}

static int grow(void **p, int cap, size_t size)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (!q) return SIM_ENOMEM;
    *p = q;
    return SIM_OK;
}

int sim_lanegraph_add_lane(sim_lanegraph *g, int n_pts, int *pt0, sim_error *err)
{
    if (n_pts < 2 || n_pts > 50000000 - g->n_pts)
        return sim_error_set(err, SIM_ERANGE, "lane graph: %d samples for a lane, expected 2 or more", n_pts);
    if (g->n_lanes == g->cap_lanes) {
        int cap = g->cap_lanes ? 2 * g->cap_lanes : 64;
        if (grow((void **)&g->lanes, cap, sizeof *g->lanes)) goto oom;
        g->cap_lanes = cap;
    }
    if (g->n_pts + n_pts > g->cap_pts) {
        int cap = g->cap_pts ? g->cap_pts : 4096;
        while (cap < g->n_pts + n_pts) cap *= 2;
        if (grow((void **)&g->px, cap, sizeof *g->px) || grow((void **)&g->py, cap, sizeof *g->py) ||
            grow((void **)&g->ph, cap, sizeof *g->ph) || grow((void **)&g->pk, cap, sizeof *g->pk) ||
            grow((void **)&g->pv, cap, sizeof *g->pv))
            goto oom;
        g->cap_pts = cap;
    }
    sim_lg_lane *l = &g->lanes[g->n_lanes];
    memset(l, 0, sizeof *l);
    l->road = l->lane_id = -1;
    l->junction = -1;
    l->left = l->right = -1;
    l->forward = true;
    l->rank = SIM_LG_UNSIGNED;
    l->pt0 = g->n_pts;
    l->n_pts = n_pts;
    memset(g->pk + g->n_pts, 0, (size_t)n_pts * sizeof *g->pk);
    for (int i = 0; i < n_pts; i++) g->pv[g->n_pts + i] = 0.0f;
    *pt0 = g->n_pts;
    g->n_pts += n_pts;
    return g->n_lanes++;
oom:
    return sim_error_set(err, SIM_ENOMEM, "lane graph: out of memory");
}

static void add_unique(int *list, int *n, int v)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == v) return;
    if (*n < SIM_LG_MAX_LINKS) list[(*n)++] = v;
}

void sim_lanegraph_link(sim_lanegraph *g, int a, int b)
{
    assert(a >= 0 && a < g->n_lanes && b >= 0 && b < g->n_lanes);
    add_unique(g->lanes[a].succ, &g->lanes[a].n_succ, b);
    add_unique(g->lanes[b].pred, &g->lanes[b].n_pred, a);
}

static double lanes_min_dist2(const sim_lanegraph *g, const sim_lg_lane *a, const sim_lg_lane *b)
{
    double best = INFINITY;
    for (int i = 0; i < a->n_pts; i++)
        for (int j = 0; j < b->n_pts; j++) {
            double dx = g->px[a->pt0 + i] - g->px[b->pt0 + j];
            double dy = g->py[a->pt0 + i] - g->py[b->pt0 + j];
            double d2 = dx * dx + dy * dy;
            if (d2 < best) best = d2;
        }
    return best;
}

/* Two lanes of one junction conflict when their centre lines come within
 * SIM_LG_CONFLICT_DIST; parallel lanes of the same connecting road do not (they are
 * ordinary neighbours). */
static bool conflicting(const sim_lanegraph *g, int a, int b)
{
    const sim_lg_lane *la = &g->lanes[a], *lb = &g->lanes[b];
    if (a == b || la->junction < 0 || la->junction != lb->junction) return false;
    if (la->road == lb->road && la->road >= 0) return false;
    return lanes_min_dist2(g, la, lb) < SIM_LG_CONFLICT_DIST * SIM_LG_CONFLICT_DIST;
}

/* Setback of an approach lane: how far before its exit its centre line is
 * SIM_LG_STOP_CLEAR from every path through the junction that does not start on it. */
static double setback(const sim_lanegraph *g, const sim_lg_lane *l)
{
    int j = l->n_succ > 0 ? g->lanes[l->succ[0]].junction : -1;
    if (j < 0) return 0;
    double step = l->length / (l->n_pts - 1), clear2 = SIM_LG_STOP_CLEAR * SIM_LG_STOP_CLEAR;
    for (int i = l->n_pts - 1; i > 0; i--) {
        double x = g->px[l->pt0 + i], y = g->py[l->pt0 + i], back = (l->n_pts - 1 - i) * step;
        if (back > 0.5 * l->length || back > 20.0) return back;
        bool clear = true;
        for (int k = 0; k < g->n_lanes && clear; k++) {
            const sim_lg_lane *o = &g->lanes[k];
            bool own = false;
            for (int m = 0; m < l->n_succ; m++) own |= l->succ[m] == k;
            if (o->junction != j || own) continue;
            for (int p = 0; p < o->n_pts && clear; p++) {
                double dx = g->px[o->pt0 + p] - x, dy = g->py[o->pt0 + p] - y;
                clear = dx * dx + dy * dy >= clear2;
            }
        }
        if (clear) return back;
    }
    return 0;
}

int sim_lanegraph_finish(sim_lanegraph *g, sim_error *err)
{
    for (int a = 0; a < g->n_lanes; a++)
        g->lanes[a].setback = g->lanes[a].junction < 0 ? setback(g, &g->lanes[a]) : 0;
    free(g->conf);
    g->conf = NULL;
    g->n_conf = 0;
    int cap = 0;
    for (int a = 0; a < g->n_lanes; a++) {
        sim_lg_lane *la = &g->lanes[a];
        la->conf0 = g->n_conf;
        la->n_conf = 0;
        if (la->junction < 0) continue;
        if (la->junction >= g->n_junctions) g->n_junctions = la->junction + 1;
        for (int b = 0; b < g->n_lanes; b++) {
            if (!conflicting(g, a, b)) continue;
            if (g->n_conf == cap) {
                cap = cap ? 2 * cap : 256;
                if (grow((void **)&g->conf, cap, sizeof *g->conf))
                    return sim_error_set(err, SIM_ENOMEM, "lane graph: out of memory");
            }
            g->conf[g->n_conf++] = b;
            la->n_conf++;
        }
    }
    return SIM_OK;
}

/* Fills lane samples of a test track: a line from (0, y0) along +x, or a circle of
 * radius r about the origin starting at (r, 0) counter-clockwise, its s scaled so that
 * every lane of the ring shares the reference s of lane 0 (as lanes of one road do). */
static void fill_track(sim_lanegraph *g, int lane, double y0, double r, double length, double limit)
{
    sim_lg_lane *l = &g->lanes[lane];
    l->length = length;
    for (int i = 0; i < l->n_pts; i++) {
        double s = length * i / (l->n_pts - 1);
        int p = l->pt0 + i;
        if (r > 0) {
            double a = 2 * M_PI * s / length;
            g->px[p] = r * cos(a);
            g->py[p] = r * sin(a);
            g->ph[p] = a + M_PI / 2;
            g->pk[p] = 1.0 / r;
        } else {
            g->px[p] = s;
            g->py[p] = y0;
            g->ph[p] = 0;
            g->pk[p] = 0;
        }
        g->pv[p] = (float)limit;
    }
}

#define TRACK_MAX_PTS 100001

static int test_track(sim_lanegraph *g, double radius, double length, int n_lanes, double width,
                      double limit, sim_error *err)
{
    memset(g, 0, sizeof *g);
    if (n_lanes < 1 || n_lanes > 16 || !(width > 0) || (radius <= 0 && !(length > 0)) || length > 1e7 || radius > 1e7)
        return sim_error_set(err, SIM_ERANGE, "lane graph: bad test track");
    double len = radius > 0 ? 2 * M_PI * radius : length;
    /* At most TRACK_MAX_PTS samples a lane: a large ring's chords stay within 0.1 mm. */
    int n_pts = (int)fmin(ceil(len / SIM_LG_STEP) + 1, TRACK_MAX_PTS);
    for (int i = 0; i < n_lanes; i++) {
        int pt0;
        int lane = sim_lanegraph_add_lane(g, n_pts, &pt0, err);
        if (lane < 0) return lane;
        fill_track(g, lane, i * width, radius > 0 ? radius - i * width : 0, len, limit);
        g->lanes[lane].road = 0;
        g->lanes[lane].lane_id = -(i + 1);
        g->lanes[lane].width = width;
        g->lanes[lane].right = i > 0 ? lane - 1 : -1;
    }
    for (int i = 0; i + 1 < n_lanes; i++) g->lanes[i].left = i + 1;
    if (radius > 0)
        for (int i = 0; i < n_lanes; i++) sim_lanegraph_link(g, i, i);
    return sim_lanegraph_finish(g, err);
}

int sim_lanegraph_ring(sim_lanegraph *g, double radius, int n_lanes, double width, double limit,
                       sim_error *err)
{
    if (!(radius > n_lanes * width)) return sim_error_set(err, SIM_ERANGE, "lane graph: ring too small");
    /* Lane 0 (rightmost, counter-clockwise) is the outer one; its left neighbours
     * lie inside. */
    return test_track(g, radius, 0, n_lanes, width, limit, err);
}

int sim_lanegraph_straight(sim_lanegraph *g, double length, int n_lanes, double width,
                           double limit, sim_error *err)
{
    /* Lane i lies at y = i * width: its left neighbour (i + 1) at +y. */
    return test_track(g, 0, length, n_lanes, width, limit, err);
}

/* Sample index and fraction for s on lane. */
static int sample_at(const sim_lanegraph *g, const sim_lg_lane *l, double s, double *f)
{
    if (!(s > 0)) s = 0;
    if (s > l->length) s = l->length;
    double u = s / l->length * (l->n_pts - 1);
    int i = (int)u;
    if (i >= l->n_pts - 1) i = l->n_pts - 2;
    *f = u - i;
    return l->pt0 + i;
}

static double wrap(double a)
{
    while (a > M_PI) a -= 2 * M_PI;
    while (a < -M_PI) a += 2 * M_PI;
    return a;
}

void sim_lanegraph_pose(const sim_lanegraph *g, int lane, double s, double lat, double *x,
                        double *y, double *heading)
{
    const sim_lg_lane *l = &g->lanes[lane];
    double f;
    int p = sample_at(g, l, s, &f);
    double h = g->ph[p] + f * wrap(g->ph[p + 1] - g->ph[p]);
    *x = g->px[p] + f * (g->px[p + 1] - g->px[p]) - lat * sin(h);
    *y = g->py[p] + f * (g->py[p + 1] - g->py[p]) + lat * cos(h);
    *heading = h;
}

double sim_lanegraph_curvature(const sim_lanegraph *g, int lane, double s)
{
    double f;
    int p = sample_at(g, &g->lanes[lane], s, &f);
    return g->pk[p] + f * (g->pk[p + 1] - g->pk[p]);
}

double sim_lanegraph_limit(const sim_lanegraph *g, int lane, double s)
{
    double f;
    int p = sample_at(g, &g->lanes[lane], s, &f);
    return g->pv[f < 0.5 ? p : p + 1];
}

int sim_lanegraph_find(const sim_lanegraph *g, int road, int lane_id, double road_s)
{
    int best = -1;
    for (int i = 0; i < g->n_lanes; i++) {
        const sim_lg_lane *l = &g->lanes[i];
        if (l->road != road || l->lane_id != lane_id) continue;
        if (road_s >= l->s0 && road_s <= l->s0 + l->length) return i;
        if (best < 0 || fabs(road_s - l->s0) < fabs(road_s - g->lanes[best].s0)) best = i;
    }
    return best;
}

double sim_lanegraph_road_s(const sim_lanegraph *g, int lane, double s)
{
    const sim_lg_lane *l = &g->lanes[lane];
    return l->forward ? l->s0 + s : l->s0 + l->length - s;
}

double sim_lanegraph_lane_s(const sim_lanegraph *g, int lane, double road_s)
{
    const sim_lg_lane *l = &g->lanes[lane];
    return l->forward ? road_s - l->s0 : l->s0 + l->length - road_s;
}

/* Projects (x, y) on one lane's centre line: the nearest sample, then the segment
 * beside it. */
static bool project(const sim_lanegraph *g, int lane, double x, double y, double margin,
                    sim_lg_pos *out, double *best)
{
    const sim_lg_lane *l = &g->lanes[lane];
    int bi = 0;
    double bd = INFINITY;
    for (int i = 0; i < l->n_pts; i++) {
        double dx = x - g->px[l->pt0 + i], dy = y - g->py[l->pt0 + i];
        double d2 = dx * dx + dy * dy;
        if (d2 < bd) {
            bd = d2;
            bi = i;
        }
    }
    if (bi == l->n_pts - 1) bi--;
    double seg = l->length / (l->n_pts - 1);
    int a = l->pt0 + bi;
    for (int k = 0; k < 2; k++) {
        double ex = g->px[a + 1] - g->px[a], ey = g->py[a + 1] - g->py[a];
        double len = hypot(ex, ey);
        if (len <= 0) break;
        double t = ((x - g->px[a]) * ex + (y - g->py[a]) * ey) / (len * len);
        if (t < 0 && a > l->pt0 && k == 0) { /* the foot lies on the segment before */
            a--;
            continue;
        }
        if (t < 0) t = 0;
        if (t > 1) t = 1;
        double lat = ((y - g->py[a]) * ex - (x - g->px[a]) * ey) / len;
        double fx = g->px[a] + t * ex - x, fy = g->py[a] + t * ey - y;
        double dist = sqrt(fx * fx + fy * fy);
        if (fabs(lat) > 0.5 * l->width + margin || dist >= *best) return false;
        *best = dist;
        out->lane = lane;
        out->s = ((a - l->pt0) + t) * seg;
        out->lat = lat;
        out->heading = g->ph[a] + t * wrap(g->ph[a + 1] - g->ph[a]);
        return true;
    }
    return false;
}

bool sim_lanegraph_locate(const sim_lanegraph *g, double x, double y, int hint, double margin,
                          sim_lg_pos *out)
{
    double best = INFINITY;
    bool found = false;
    if (hint >= 0 && hint < g->n_lanes) {
        const sim_lg_lane *l = &g->lanes[hint];
        int near[2 + 2 * SIM_LG_MAX_LINKS + 1], n = 0;
        near[n++] = hint;
        if (l->left >= 0) near[n++] = l->left;
        if (l->right >= 0) near[n++] = l->right;
        for (int i = 0; i < l->n_succ; i++) near[n++] = l->succ[i];
        for (int i = 0; i < l->n_pred && n < (int)(sizeof near / sizeof *near); i++) near[n++] = l->pred[i];
        for (int i = 0; i < n; i++) found |= project(g, near[i], x, y, margin, out, &best);
        if (found && fabs(out->lat) <= 0.5 * g->lanes[out->lane].width) return true;
    }
    for (int i = 0; i < g->n_lanes; i++) found |= project(g, i, x, y, margin, out, &best);
    return found;
}
