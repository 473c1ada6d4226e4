/* sim_road_locate: projection of world points onto reference lines, the spatial
 * index over the roads' lane areas, and (x, y) -> road, s, t, lane (see sim_road.h). */
#include "sim_road.h"
#include "sim_road_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Projection of p onto piece g restricted to local [a, b]. Writes the local foot t,
 * the offset d in the foot's frame, the along-tangent residual l (0 for a true
 * perpendicular foot) and whether the foot is perpendicular inside [a, b]. */
typedef struct proj {
    double t, d, l;
    bool inside;
} proj;

static void foot_frame(const sim_geom *g, double t, double px, double py, proj *out)
{
    double x, y, h;
    sim_geom_eval(g, t, &x, &y, &h);
    double ex = px - x, ey = py - y, c = cos(h), s = sin(h);
    out->t = t;
    out->l = ex * c + ey * s;
    out->d = -ex * s + ey * c;
}

static void project_newton(const sim_geom *g, double px, double py, double a, double b,
                           proj *out)
{
    /* Start from the projection onto the chord of [a, b], then Newton on
     * f(t) = (p - r(t)) . tangent(t), f' = -(1 - k d). */
    double xa, ya, ha, xb, yb, hb;
    sim_geom_eval(g, a, &xa, &ya, &ha);
    sim_geom_eval(g, b, &xb, &yb, &hb);
    double cx = xb - xa, cy = yb - ya, cl2 = cx * cx + cy * cy;
    double t = a + (cl2 > 0 ? ((px - xa) * cx + (py - ya) * cy) / cl2 : 0.0) * (b - a);
    t = fmin(fmax(t, a), b);
    for (int it = 0; it < 30; it++) {
        foot_frame(g, t, px, py, out);
        double den = 1.0 - sim_geom_curvature(g, t) * out->d;
        if (den < 0.25) den = 0.25; /* near the centre of curvature: damped step */
        double tn = fmin(fmax(t + out->l / (den * sim_geom_speed(g, t)), a), b);
        if (fabs(tn - t) < 1e-11) break;
        t = tn;
    }
    foot_frame(g, t, px, py, out);
    out->inside = fabs(out->l) < 1e-6;
}

/* cheap: a point whose foot falls outside [a, b] only needs to be known as outside
 * (not the nearer end), which spares the trigonometry. */
static void project_piece(const sim_geom *g, double px, double py, double a, double b,
                          proj *out, bool cheap)
{
    if (g->type == SIM_GEOM_LINE) {
        double c = g->pc[0], s = g->pc[1], ex = px - g->x0, ey = py - g->y0;
        double t = ex * c + ey * s;
        out->d = -ex * s + ey * c;
        out->inside = t >= a && t <= b;
        out->t = fmin(fmax(t, a), b);
        out->l = t - out->t;
        return;
    }
    if (g->type == SIM_GEOM_ARC && fabs(g->k0) > 1e-6) {
        double k = g->k0, R = 1.0 / k, cx = g->pc[0], cy = g->pc[1];
        double dlt = atan2(py - cy, px - cx) - g->pc[2]; /* in (-3 pi, 3 pi) */
        if (k > 0) {
            while (dlt < 0) dlt += 2 * M_PI;
            while (dlt >= 2 * M_PI) dlt -= 2 * M_PI;
        } else {
            while (dlt > 0) dlt -= 2 * M_PI;
            while (dlt <= -2 * M_PI) dlt += 2 * M_PI;
        }
        double ex = px - cx, ey = py - cy, t = dlt / k, r = sqrt(ex * ex + ey * ey);
        if (t >= a && t <= b && r > 0) {
            out->t = t;
            out->d = k > 0 ? R - r : R + r;
            out->l = 0.0;
            out->inside = true;
            return;
        }
        if (cheap) {
            out->inside = false;
            out->t = a, out->d = 0.0, out->l = INFINITY;
            return;
        }
        /* Outside the piece: the nearer end. */
        proj pa, pb;
        foot_frame(g, a, px, py, &pa);
        foot_frame(g, b, px, py, &pb);
        *out = hypot(pa.l, pa.d) <= hypot(pb.l, pb.d) ? pa : pb;
        out->inside = false;
        return;
    }
    project_newton(g, px, py, a, b, out);
}

static int piece_chunks(const sim_geom *g, double *len)
{
    double n = ceil(g->length / sim_chunk_length(g));
    if (!(n >= 1)) n = 1;
    if (n > 1e8) n = 1e8; /* only absurd input gets here; sim_geom_cost lets loaders refuse it */
    *len = g->length / n;
    return (int)n;
}

static void project_chunk(const sim_geom *g, int c, int n, double cl, double px, double py, proj *p)
{
    project_piece(g, px, py, c * cl, c + 1 == n ? g->length : (c + 1) * cl, p, false);
}

void sim_road_project(const sim_road *r, double x, double y, double *s, double *d, double *dist,
                      bool *inside)
{
    /* Nearest foot over all chunks, by distance to the reference line. */
    double best = INFINITY;
    *s = 0.0;
    *d = 0.0;
    *inside = false;
    for (int gi = 0; gi < r->n_geoms; gi++) {
        const sim_geom *g = &r->geoms[gi];
        double cl;
        int n = piece_chunks(g, &cl);
        for (int c = 0; c < n; c++) {
            proj p;
            project_chunk(g, c, n, cl, x, y, &p);
            double dd = hypot(p.l, p.d);
            if (dd < best) {
                best = dd;
                *s = g->s0 + p.t;
                *d = p.d;
                *inside = p.inside;
            }
        }
    }
    *dist = best;
}

/* ---- candidates ---------------------------------------------------------------- */

/* One road's answer for the point: its projection and how far it is from the lanes. */
typedef struct cand {
    int road;
    double s, t, off;
    bool on;
    sim_lane_info li;
} cand;

#define MAX_CANDS 64

typedef struct cset {
    const sim_roadnet *net;
    const sim_locate_query *q;
    bool on_only;       /* keep only candidates whose lanes hold the point */
    cand c[MAX_CANDS];
    int n;
    int best_off;       /* index of the nearest off-road candidate, -1 */
} cset;

static bool better_same_road(const cand *a, const cand *b)
{
    if (a->on != b->on) return a->on;
    return a->on ? fabs(a->t - a->li.center_d) < fabs(b->t - b->li.center_d) : a->off < b->off;
}

static void consider(cset *cs, int ri, const sim_geom *g, const proj *p)
{
    const sim_road *r = &cs->net->roads[ri];
    cand k = {.road = ri};
    k.s = fmin(fmax(g->s0 + p->t, 0.0), r->length);
    k.t = sim_road_h_to_t(r, k.s, p->d);
    /* The widest extent first: most candidates in a cell miss by far. */
    double excess = fmax(0.0, fmax(p->d - r->left_width, -p->d - r->right_width));
    if (cs->on_only && (!p->inside || excess > 0.0)) return;
    if (p->inside && excess == 0.0) {
        k.on = sim_road_lane_at(r, k.s, k.t, &k.li);
        if (k.on && cs->q->drivable_only && !sim_lane_type_drivable(k.li.type)) k.on = false;
    }
    if (!k.on) {
        if (cs->on_only) return;
        if (excess == 0.0) { /* within the widest extent: measure from the lanes at s */
            double lw, rw, c = sim_road_lane_offset(r, k.s);
            sim_road_width(r, k.s, &lw, &rw);
            excess = fmax(0.0, fmax(k.t - (c + lw), (c - rw) - k.t));
        }
        k.off = hypot(p->l, excess);
        memset(&k.li, 0, sizeof k.li);
    }
    for (int i = 0; i < cs->n; i++)
        if (cs->c[i].road == ri) {
            if (better_same_road(&k, &cs->c[i])) cs->c[i] = k;
            return;
        }
    if (cs->n < MAX_CANDS) {
        cs->c[cs->n++] = k;
        return;
    }
    /* Full (only in absurd networks): replace the worst off-road one. */
    for (int i = 0; i < cs->n; i++)
        if (!cs->c[i].on && (k.on || k.off < cs->c[i].off)) {
            cs->c[i] = k;
            return;
        }
}

static void consider_road(cset *cs, int ri, double x, double y)
{
    const sim_road *r = &cs->net->roads[ri];
    for (int gi = 0; gi < r->n_geoms; gi++) {
        const sim_geom *g = &r->geoms[gi];
        double cl;
        int n = piece_chunks(g, &cl);
        for (int c = 0; c < n; c++) {
            proj p;
            project_chunk(g, c, n, cl, x, y, &p);
            consider(cs, ri, g, &p);
        }
    }
}

static double wrap_pi(double a)
{
    a = fmod(a, 2 * M_PI);
    if (a > M_PI) a -= 2 * M_PI;
    if (a < -M_PI) a += 2 * M_PI;
    return a;
}

/* Heading of travel in the candidate's lane at its s. */
static double travel_heading(const cset *cs, const cand *k)
{
    const sim_road *r = &cs->net->roads[k->road];
    double x, y, h;
    sim_road_ref_point(r, k->s, 0.0, &x, &y, &h);
    return sim_road_lane_forward(r, k->li.lane) ? h : h + M_PI;
}

/* Among on-road candidates: near the asked height, then aligned with the asked
 * heading, then the smallest |t|. */
static bool better_on(const cset *cs, const cand *a, const cand *b)
{
    const sim_locate_query *q = cs->q;
    if (!isnan(q->z)) {
        bool na = fabs(sim_road_height(cs->net, a->road, a->s, a->t) - q->z) < 3.0;
        bool nb = fabs(sim_road_height(cs->net, b->road, b->s, b->t) - q->z) < 3.0;
        if (na != nb) return na;
    }
    if (!isnan(q->heading)) {
        double da = fabs(wrap_pi(travel_heading(cs, a) - q->heading));
        double db = fabs(wrap_pi(travel_heading(cs, b) - q->heading));
        if (fabs(da - db) > 1e-9) return da < db;
    }
    return fabs(a->t) < fabs(b->t);
}

static int pick(const cset *cs, bool on_only)
{
    int best = -1;
    for (int i = 0; i < cs->n; i++) {
        const cand *k = &cs->c[i];
        if (!k->on) continue;
        if (best < 0 || better_on(cs, k, &cs->c[best])) best = i;
    }
    if (best >= 0 || on_only) return best;
    for (int i = 0; i < cs->n; i++)
        if (best < 0 || cs->c[i].off < cs->c[best].off) best = i;
    return best;
}

static void fill_loc(const sim_roadnet *net, const cand *c, sim_road_loc *out)
{
    const sim_road *r = &net->roads[c->road];
    memset(out, 0, sizeof *out);
    out->road = c->road;
    out->s = c->s;
    out->d = c->t;
    out->on_road = c->on;
    out->distance = c->on ? 0.0 : c->off;
    double x, y, h;
    sim_road_ref_point(r, c->s, 0.0, &x, &y, &h);
    out->heading = h;
    out->z = sim_road_height(net, c->road, c->s, c->t);
    if (c->on) {
        out->lane = c->li;
        out->lane_offset = c->t - c->li.center_d;
    } else {
        out->lane.section = sim_road_section_at(r, c->s);
    }
}

static void brute(cset *cs, double x, double y)
{
    for (int ri = 0; ri < cs->net->n_roads; ri++) consider_road(cs, ri, x, y);
}

/* Uniform grid over the network's extent; each cell lists the chunks whose lane area
 * (bounding box, widened by the road's half width) touches it. */
typedef struct chunk {
    int road, geom;
    double a, b;
    double box[4]; /* lane area's bounding box: xmin, ymin, xmax, ymax */
} chunk;

struct sim_roadnet_index {
    double x0, y0, cell;
    int nx, ny;
    int *start; /* nx*ny + 1 offsets into items */
    int *items;
    chunk *chunks;
    int n_chunks;
};

#define INDEX_CELL 8.0
#define INDEX_MAX_CELLS (1 << 22)
#define INDEX_MAX_ITEMS (1 << 24) /* piece-in-cell entries: 64 MiB of ints */

void sim_roadnet_index_free(struct sim_roadnet_index *ix)
{
    if (!ix) return;
    free(ix->start);
    free(ix->items);
    free(ix->chunks);
    free(ix);
}

static void chunk_box(const sim_roadnet *net, const chunk *c, double box[4])
{
    const sim_road *r = &net->roads[c->road];
    const sim_geom *g = &r->geoms[c->geom];
    box[0] = box[1] = INFINITY;
    box[2] = box[3] = -INFINITY;
    for (int i = 0; i <= 4; i++) {
        double x, y, h;
        sim_geom_eval(g, c->a + (c->b - c->a) * i / 4.0, &x, &y, &h);
        box[0] = fmin(box[0], x);
        box[1] = fmin(box[1], y);
        box[2] = fmax(box[2], x);
        box[3] = fmax(box[3], y);
    }
    /* Widen by the lanes and a margin for the curve's bulge between samples. */
    double w = fmax(r->left_width, r->right_width) + 1.0;
    box[0] -= w, box[1] -= w, box[2] += w, box[3] += w;
}

int sim_roadnet_build_index(sim_roadnet *net, sim_error *err)
{
    for (int ri = 0; ri < net->n_roads; ri++) {
        int rc = sim_road_finish(&net->roads[ri], err);
        if (rc) return rc;
    }
    sim_roadnet_index_free(net->index);
    net->index = NULL;
    struct sim_roadnet_index *ix = calloc(1, sizeof *ix);
    if (!ix) return sim_error_set(err, SIM_ENOMEM, "road index: out of memory");
    int n = 0;
    for (int ri = 0; ri < net->n_roads; ri++)
        for (int gi = 0; gi < net->roads[ri].n_geoms; gi++) {
            double cl;
            n += piece_chunks(&net->roads[ri].geoms[gi], &cl);
        }
    ix->chunks = malloc(sizeof *ix->chunks * (size_t)(n ? n : 1));
    double (*boxes)[4] = malloc(sizeof *boxes * (size_t)(n ? n : 1));
    if (!ix->chunks || !boxes) goto nomem;
    double ext[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    n = 0;
    for (int ri = 0; ri < net->n_roads; ri++)
        for (int gi = 0; gi < net->roads[ri].n_geoms; gi++) {
            const sim_geom *g = &net->roads[ri].geoms[gi];
            double cl;
            int m = piece_chunks(g, &cl);
            for (int c = 0; c < m; c++, n++) {
                ix->chunks[n] = (chunk){ri, gi, c * cl, c + 1 == m ? g->length : (c + 1) * cl, {0}};
                chunk_box(net, &ix->chunks[n], boxes[n]);
                memcpy(ix->chunks[n].box, boxes[n], sizeof boxes[n]);
                ext[0] = fmin(ext[0], boxes[n][0]);
                ext[1] = fmin(ext[1], boxes[n][1]);
                ext[2] = fmax(ext[2], boxes[n][2]);
                ext[3] = fmax(ext[3], boxes[n][3]);
            }
        }
    ix->n_chunks = n;
    if (n == 0) {
        ext[0] = ext[1] = 0.0;
        ext[2] = ext[3] = 1.0;
    }
    ix->cell = INDEX_CELL;
    double wx = ext[2] - ext[0], wy = ext[3] - ext[1];
    if (!isfinite(wx) || !isfinite(wy) || wx > 1e8 || wy > 1e8) {
        free(boxes);
        sim_roadnet_index_free(ix);
        return sim_error_set(err, SIM_ERANGE, "road index: the roads span %g x %g m (at most 1e8 m each way)", wx, wy);
    }
    while ((wx / ix->cell + 1) * (wy / ix->cell + 1) > INDEX_MAX_CELLS) ix->cell *= 2;
    ix->x0 = ext[0];
    ix->y0 = ext[1];
    ix->nx = (int)(wx / ix->cell) + 1;
    ix->ny = (int)(wy / ix->cell) + 1;
    size_t ncell = (size_t)ix->nx * (size_t)ix->ny;
    ix->start = calloc(ncell + 1, sizeof *ix->start);
    if (!ix->start) goto nomem;
    /* The entries first, from the boxes alone: pieces whose lane areas each span much
     * of the map (absurd lane widths) would take long to list, overflow the int
     * offsets and make the index larger than the roads themselves. */
    double total = 0;
    for (int k = 0; k < n; k++) {
        double ci = floor((boxes[k][2] - ix->x0) / ix->cell) - floor((boxes[k][0] - ix->x0) / ix->cell) + 1;
        double cj = floor((boxes[k][3] - ix->y0) / ix->cell) - floor((boxes[k][1] - ix->y0) / ix->cell) + 1;
        total += ci * cj;
    }
    if (total > INDEX_MAX_ITEMS) {
        double cell = ix->cell;
        free(boxes);
        sim_roadnet_index_free(ix);
        return sim_error_set(err, SIM_ETOOBIG,
                             "road index: the roads' lane areas cover %.0f cells of %g m in all "
                             "(at most %d): are some lanes far too wide?",
                             total, cell, INDEX_MAX_ITEMS);
    }
    /* Two passes: count per cell, then fill (compressed rows). */
    for (int pass = 0; pass < 2; pass++) {
        int *fill = NULL;
        if (pass == 1) {
            for (size_t c = 0; c < ncell; c++) ix->start[c + 1] += ix->start[c];
            ix->items = malloc(sizeof *ix->items * (size_t)(ix->start[ncell] ? ix->start[ncell] : 1));
            fill = calloc(ncell, sizeof *fill);
            if (!ix->items || !fill) {
                free(fill);
                goto nomem;
            }
        }
        for (int k = 0; k < n; k++) {
            int i0 = (int)((boxes[k][0] - ix->x0) / ix->cell), i1 = (int)((boxes[k][2] - ix->x0) / ix->cell);
            int j0 = (int)((boxes[k][1] - ix->y0) / ix->cell), j1 = (int)((boxes[k][3] - ix->y0) / ix->cell);
            if (i1 >= ix->nx) i1 = ix->nx - 1;
            if (j1 >= ix->ny) j1 = ix->ny - 1;
            for (int j = j0; j <= j1; j++)
                for (int i = i0; i <= i1; i++) {
                    size_t c = (size_t)j * (size_t)ix->nx + (size_t)i;
                    if (pass == 0) ix->start[c + 1]++;
                    else ix->items[ix->start[c] + fill[c]++] = k;
                }
        }
        free(fill);
    }
    free(boxes);
    net->index = ix;
    return SIM_OK;
nomem:
    free(boxes);
    sim_roadnet_index_free(ix);
    return sim_error_set(err, SIM_ENOMEM, "road index: out of memory");
}

/* Candidates from the chunks listed in cell (i, j); lines and arcs project in closed
 * form onto their whole piece, so each piece once per cell. */
static void scan_cell(cset *cs, int i, int j, double x, double y, bool box_filter)
{
    const struct sim_roadnet_index *ix = cs->net->index;
    if (i < 0 || j < 0 || i >= ix->nx || j >= ix->ny) return;
    size_t c = (size_t)j * (size_t)ix->nx + (size_t)i;
    const sim_geom *done = NULL;
    for (int k = ix->start[c]; k < ix->start[c + 1]; k++) {
        const chunk *ch = &ix->chunks[ix->items[k]];
        /* Outside the piece's lane area: it cannot hold the point. */
        if (box_filter && (x < ch->box[0] || y < ch->box[1] || x > ch->box[2] || y > ch->box[3]))
            continue;
        const sim_road *road = &cs->net->roads[ch->road];
        const sim_geom *g = &road->geoms[ch->geom];
        proj p;
        if (g->type == SIM_GEOM_LINE || g->type == SIM_GEOM_ARC) {
            if (g == done) continue;
            done = g;
            if (cs->on_only && g->type == SIM_GEOM_ARC && fabs(g->k0) > 1e-6) {
                /* Beyond the lanes' widest extent from the arc: no need for its angle. */
                double ex = x - g->pc[0], ey = y - g->pc[1], R = 1.0 / g->k0, r = sqrt(ex * ex + ey * ey);
                double d = g->k0 > 0 ? R - r : R + r;
                if (d > road->left_width || -d > road->right_width) continue;
            }
            project_piece(g, x, y, 0.0, g->length, &p, cs->on_only);
        } else {
            project_piece(g, x, y, ch->a, ch->b, &p, cs->on_only);
        }
        consider(cs, ch->road, g, &p);
    }
}

/* Nearest road off every lane: the cells in growing square rings round the point's
 * cell (the point clamped into the grid) until no unseen cell can be nearer than the
 * best candidate. A chunk is listed in every cell its lane area (plus 1 m) touches,
 * so a road at distance D shows in a cell of ring at most D / cell + 1. */
static void ring_search(cset *cs, double x, double y)
{
    const struct sim_roadnet_index *ix = cs->net->index;
    int ci = (int)fmin(fmax((x - ix->x0) / ix->cell, 0.0), ix->nx - 1);
    int cj = (int)fmin(fmax((y - ix->y0) / ix->cell, 0.0), ix->ny - 1);
    int rmax = ix->nx > ix->ny ? ix->nx : ix->ny;
    for (int rr = 0; rr <= rmax; rr++) {
        for (int j = cj - rr; j <= cj + rr; j++) {
            if (j == cj - rr || j == cj + rr) {
                for (int i = ci - rr; i <= ci + rr; i++) scan_cell(cs, i, j, x, y, false);
            } else {
                scan_cell(cs, ci - rr, j, x, y, false);
                if (rr > 0) scan_cell(cs, ci + rr, j, x, y, false);
            }
        }
        int b = pick(cs, false);
        if (b >= 0 && (cs->c[b].on || cs->c[b].off < (rr - 1) * ix->cell)) return;
    }
}

static int locate(const sim_roadnet *net, const sim_locate_query *q, bool nearest, sim_road_loc *out)
{
    if (net->n_roads == 0) return SIM_ENOTFOUND;
    cset cs = {.net = net, .q = q};
    const struct sim_roadnet_index *ix = net->index;
    if (!ix) {
        brute(&cs, q->x, q->y);
    } else {
        double fi = (q->x - ix->x0) / ix->cell, fj = (q->y - ix->y0) / ix->cell;
        /* The point's cell, keeping only roads whose lanes hold it; when none does and
         * the nearest road is wanted, every candidate of growing rings of cells. */
        cs.on_only = true;
        if (fi >= 0 && fj >= 0 && fi < ix->nx && fj < ix->ny) scan_cell(&cs, (int)fi, (int)fj, q->x, q->y, true);
        cs.on_only = false;
        if (pick(&cs, true) < 0 && nearest) ring_search(&cs, q->x, q->y);
    }
    int b = pick(&cs, !nearest);
    if (b < 0) return SIM_ENOTFOUND;
    fill_loc(net, &cs.c[b], out);
    return SIM_OK;
}

static sim_locate_query plain(double x, double y)
{
    return (sim_locate_query){.x = x, .y = y, .z = NAN, .heading = NAN};
}

int sim_roadnet_locate(const sim_roadnet *net, double x, double y, sim_road_loc *out)
{
    sim_locate_query q = plain(x, y);
    return locate(net, &q, true, out);
}

int sim_roadnet_locate_query(const sim_roadnet *net, const sim_locate_query *q, sim_road_loc *out)
{
    return locate(net, q, true, out);
}

int sim_roadnet_locate_on_road(const sim_roadnet *net, double x, double y, sim_road_loc *out)
{
    sim_locate_query q = plain(x, y);
    return locate(net, &q, false, out);
}

int sim_roadnet_locate_brute(const sim_roadnet *net, double x, double y, sim_road_loc *out)
{
    if (net->n_roads == 0) return SIM_ENOTFOUND;
    sim_locate_query q = plain(x, y);
    cset cs = {.net = net, .q = &q};
    brute(&cs, x, y);
    int b = pick(&cs, false);
    if (b < 0) return SIM_ENOTFOUND;
    fill_loc(net, &cs.c[b], out);
    return SIM_OK;
}

static int by_abs_t(const void *a, const void *b)
{
    double x = fabs(((const sim_road_loc *)a)->d), y = fabs(((const sim_road_loc *)b)->d);
    return x < y ? -1 : x > y;
}

int sim_roadnet_locate_all(const sim_roadnet *net, double x, double y, sim_road_loc *out, int max)
{
    if (net->n_roads == 0) return 0;
    sim_locate_query q = plain(x, y);
    cset cs = {.net = net, .q = &q};
    const struct sim_roadnet_index *ix = net->index;
    if (!ix) {
        brute(&cs, x, y);
    } else {
        double fi = (x - ix->x0) / ix->cell, fj = (y - ix->y0) / ix->cell;
        cs.on_only = true;
        if (fi >= 0 && fj >= 0 && fi < ix->nx && fj < ix->ny) scan_cell(&cs, (int)fi, (int)fj, x, y, true);
    }
    int n = 0;
    for (int i = 0; i < cs.n; i++)
        if (cs.c[i].on) {
            if (n < max) fill_loc(net, &cs.c[i], &out[n]);
            n++;
        }
    if (n <= max) qsort(out, (size_t)n, sizeof *out, by_abs_t);
    return n;
}
