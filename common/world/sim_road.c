/* sim_road: reference-line geometry, lanes, and point location in a road network
 * (see sim_road.h). */
#include "sim_road.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- geometry ---------------------------------------------------------------- */

/* 5-point Gauss-Legendre on [-1, 1]: exact for polynomials up to degree 9, so over a
 * table step of 2 m (heading change well under 1 rad) the integration error of
 * cos/sin of the quadratic heading is below 1e-12 m. */
static const double gl_x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                               0.5384693101056831, 0.9061798459386640};
static const double gl_w[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                               0.4786286704993665, 0.2369268850561891};

/* Displacement along a clothoid from local arc length t0 to t1, where the heading is
 * h(t) = hdg0 + k0 t + c t^2 / 2. */
static void clothoid_step(const sim_geom *g, double c, double t0, double t1, double *dx,
                          double *dy)
{
    double half = 0.5 * (t1 - t0), mid = 0.5 * (t1 + t0), sx = 0.0, sy = 0.0;
    for (int i = 0; i < 5; i++) {
        double t = mid + half * gl_x[i];
        double h = g->hdg0 + t * (g->k0 + 0.5 * c * t);
        sx += gl_w[i] * cos(h);
        sy += gl_w[i] * sin(h);
    }
    *dx = sx * half;
    *dy = sy * half;
}

static double geom_curv_rate(const sim_geom *g)
{
    return g->type == SIM_GEOM_CLOTHOID ? (g->k1 - g->k0) / g->length : 0.0;
}

static double geom_curvature(const sim_geom *g, double t)
{
    return g->k0 + geom_curv_rate(g) * t;
}

int sim_geom_prepare(sim_geom *g, sim_error *err)
{
    free(g->tab);
    g->tab = NULL;
    g->n_tab = 0;
    if (!isfinite(g->length) || g->length <= 0.0)
        return sim_error_set(err, SIM_ERANGE, "length %g: expected a finite number > 0",
                             g->length);
    if (!isfinite(g->k0) || !isfinite(g->k1) || !isfinite(g->x0) || !isfinite(g->y0) ||
        !isfinite(g->hdg0))
        return sim_error_set(err, SIM_ERANGE, "curvature or start pose not finite");
    if (g->length > SIM_GEOM_MAX_LENGTH)
        return sim_error_set(err, SIM_ERANGE, "length %g: expected at most %g m", g->length,
                             SIM_GEOM_MAX_LENGTH);
    if (g->type == SIM_GEOM_LINE) g->k0 = g->k1 = 0.0;
    if (g->type == SIM_GEOM_ARC) g->k1 = g->k0;
    if (g->type != SIM_GEOM_CLOTHOID) return SIM_OK;
    int n = (int)floor(g->length / SIM_CLOTHOID_STEP) + 1;
    g->tab = malloc(sizeof *g->tab * 2 * (size_t)n);
    if (!g->tab) return sim_error_set(err, SIM_ENOMEM, "clothoid table: out of memory");
    double c = geom_curv_rate(g), x = g->x0, y = g->y0;
    g->tab[0] = x;
    g->tab[1] = y;
    for (int i = 1; i < n; i++) {
        double dx, dy;
        clothoid_step(g, c, (i - 1) * SIM_CLOTHOID_STEP, i * SIM_CLOTHOID_STEP, &dx, &dy);
        x += dx;
        y += dy;
        g->tab[2 * i] = x;
        g->tab[2 * i + 1] = y;
    }
    g->n_tab = n;
    return SIM_OK;
}

void sim_geom_free(sim_geom *g)
{
    free(g->tab);
    g->tab = NULL;
    g->n_tab = 0;
}

void sim_geom_eval(const sim_geom *g, double t, double *x, double *y, double *hdg)
{
    t = fmin(fmax(t, 0.0), g->length);
    if (g->type == SIM_GEOM_CLOTHOID && g->tab) {
        double c = geom_curv_rate(g);
        int i = (int)(t / SIM_CLOTHOID_STEP);
        if (i >= g->n_tab) i = g->n_tab - 1;
        double dx, dy;
        clothoid_step(g, c, i * SIM_CLOTHOID_STEP, t, &dx, &dy);
        *x = g->tab[2 * i] + dx;
        *y = g->tab[2 * i + 1] + dy;
        *hdg = g->hdg0 + t * (g->k0 + 0.5 * c * t);
        return;
    }
    /* Line and arc in one closed form: the chord 2 sin(kt/2)/k along the mean heading,
     * which is well conditioned as k goes to 0. */
    double k = g->k0, half = 0.5 * k * t;
    double chord = fabs(half) < 1e-9 ? t : 2.0 * sin(half) / k;
    *x = g->x0 + chord * cos(g->hdg0 + half);
    *y = g->y0 + chord * sin(g->hdg0 + half);
    *hdg = g->hdg0 + k * t;
}

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
        double den = 1.0 - geom_curvature(g, t) * out->d;
        if (den < 0.25) den = 0.25; /* near the centre of curvature: damped step */
        double tn = fmin(fmax(t + out->l / den, a), b);
        if (fabs(tn - t) < 1e-11) break;
        t = tn;
    }
    foot_frame(g, t, px, py, out);
    out->inside = fabs(out->l) < 1e-6;
}

static void project_piece(const sim_geom *g, double px, double py, double a, double b,
                          proj *out)
{
    if (g->type == SIM_GEOM_LINE) {
        double c = cos(g->hdg0), s = sin(g->hdg0), ex = px - g->x0, ey = py - g->y0;
        double t = ex * c + ey * s;
        out->d = -ex * s + ey * c;
        out->inside = t >= a && t <= b;
        out->t = fmin(fmax(t, a), b);
        out->l = t - out->t;
        return;
    }
    if (g->type == SIM_GEOM_ARC && fabs(g->k0) > 1e-6) {
        double k = g->k0, R = 1.0 / k;
        double cx = g->x0 - R * sin(g->hdg0), cy = g->y0 + R * cos(g->hdg0);
        double ang0 = atan2(g->y0 - cy, g->x0 - cx), ang = atan2(py - cy, px - cx);
        double dlt = ang - ang0;
        if (k > 0) {
            dlt = fmod(dlt, 2 * M_PI);
            if (dlt < 0) dlt += 2 * M_PI;
        } else {
            dlt = fmod(dlt, 2 * M_PI);
            if (dlt > 0) dlt -= 2 * M_PI;
        }
        double t = dlt / k, r = hypot(px - cx, py - cy);
        if (t >= a && t <= b && r > 0) {
            out->t = t;
            out->d = k > 0 ? R - r : R + r;
            out->l = 0.0;
            out->inside = true;
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

/* ---- lanes, limits, elevation ---------------------------------------------- */

bool sim_road_lane_at(const sim_road *r, double d, sim_lane_info *info)
{
    memset(info, 0, sizeof *info);
    bool left = d > 0 || (d == 0 && r->n_right == 0);
    const sim_lane *lanes = left ? r->left : r->right;
    int n = left ? r->n_left : r->n_right;
    double ad = fabs(d), inner = 0.0;
    sim_mark_type inner_mark = r->center_mark;
    for (int k = 0; k < n; k++) {
        double outer = inner + lanes[k].width;
        if (ad <= outer) {
            info->lane = lanes[k].id;
            info->width = lanes[k].width;
            info->type = lanes[k].type;
            double sg = left ? 1.0 : -1.0;
            info->center_d = sg * 0.5 * (inner + outer);
            if (left) {
                info->left_d = outer, info->left_mark = lanes[k].mark;
                info->right_d = inner, info->right_mark = inner_mark;
            } else {
                info->left_d = -inner, info->left_mark = inner_mark;
                info->right_d = -outer, info->right_mark = lanes[k].mark;
            }
            return true;
        }
        inner = outer;
        inner_mark = lanes[k].mark;
    }
    return false;
}

bool sim_road_lane_center(const sim_road *r, int lane, double *d)
{
    if (lane == 0 || lane > r->n_left || lane < -r->n_right) return false;
    const sim_lane *lanes = lane > 0 ? r->left : r->right;
    int want = lane > 0 ? lane : -lane; /* safe: lane >= -n_right */
    double inner = 0.0;
    for (int k = 0; k < want - 1; k++) inner += lanes[k].width;
    double c = inner + 0.5 * lanes[want - 1].width;
    *d = lane > 0 ? c : -c;
    return true;
}

double sim_road_speed_limit(const sim_road *r, double s)
{
    for (int i = 0; i < r->n_limits; i++)
        if (s >= r->limits[i].s_start && s <= r->limits[i].s_end) return r->limits[i].speed;
    return 0.0;
}

const sim_surface_zone *sim_road_zone_at(const sim_road *r, double s)
{
    for (int i = 0; i < r->n_zones; i++)
        if (s >= r->zones[i].s_start && s <= r->zones[i].s_end) return &r->zones[i];
    return NULL;
}

/* Index of the piece holding road arc length s (binary search on s0). */
static int geom_at(const sim_road *r, double s)
{
    int lo = 0, hi = r->n_geoms - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (r->geoms[mid].s0 <= s) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Piecewise cubic Hermite through the profile with centred-difference slopes;
 * writes dz/ds to *slope. */
static double profile_z(const sim_road *r, double s, double *slope)
{
    int n = r->n_elev;
    const double *S = r->elev_s, *Z = r->elev_z;
    *slope = 0.0;
    if (n == 0) return 0.0;
    if (n == 1 || s <= S[0]) return Z[0];
    if (s >= S[n - 1]) return Z[n - 1];
    int i = 0;
    while (i + 2 < n && S[i + 1] <= s) i++;
    double h = S[i + 1] - S[i], u = (s - S[i]) / h;
    double m0 = i > 0 ? (Z[i + 1] - Z[i - 1]) / (S[i + 1] - S[i - 1]) : (Z[1] - Z[0]) / h;
    double m1 = i + 2 < n ? (Z[i + 2] - Z[i]) / (S[i + 2] - S[i]) : (Z[i + 1] - Z[i]) / h;
    double u2 = u * u, u3 = u2 * u;
    *slope = ((6 * u2 - 6 * u) * Z[i] + (3 * u2 - 4 * u + 1) * h * m0 + (-6 * u2 + 6 * u) * Z[i + 1] +
              (3 * u2 - 2 * u) * h * m1) / h;
    return (2 * u3 - 3 * u2 + 1) * Z[i] + (u3 - 2 * u2 + u) * h * m0 +
           (-2 * u3 + 3 * u2) * Z[i + 1] + (u3 - u2) * h * m1;
}

static void road_point(const sim_road *r, double s, double d, double *x, double *y, double *h)
{
    if (r->n_geoms == 0) { /* an empty (invalid) road: the origin, never a crash */
        *x = *y = *h = 0.0;
        return;
    }
    const sim_geom *g = &r->geoms[geom_at(r, s)];
    sim_geom_eval(g, s - g->s0, x, y, h);
    *x -= d * sin(*h);
    *y += d * cos(*h);
}

static double height_at(const sim_roadnet *net, const sim_road *r, double s, double x, double y)
{
    double slope;
    if (r->elev_mode == SIM_ELEV_PROFILE) return profile_z(r, s, &slope);
    return net->terrain ? sim_terrain_height(net->terrain, x, y) : 0.0;
}

double sim_road_height(const sim_roadnet *net, int road, double s, double d)
{
    const sim_road *r = &net->roads[road];
    double x, y, h;
    road_point(r, fmin(fmax(s, 0.0), r->length), d, &x, &y, &h);
    return height_at(net, r, s, x, y);
}

double sim_road_surface(const sim_roadnet *net, int road, double s, double d, double n[3])
{
    const sim_road *r = &net->roads[road];
    double x, y, h;
    s = fmin(fmax(s, 0.0), r->length);
    road_point(r, s, d, &x, &y, &h);
    if (r->elev_mode == SIM_ELEV_PROFILE) {
        /* Grade g along the heading, level across: n = (-g cos h, -g sin h, 1) / |.|. */
        double g, z = profile_z(r, s, &g), inv = 1.0 / sqrt(1.0 + g * g);
        n[0] = -g * cos(h) * inv;
        n[1] = -g * sin(h) * inv;
        n[2] = inv;
        return z;
    }
    if (net->terrain) {
        sim_terrain_sample smp;
        sim_terrain_eval(net->terrain, x, y, &smp);
        memcpy(n, smp.n, sizeof smp.n);
        return smp.z;
    }
    n[0] = n[1] = 0.0;
    n[2] = 1.0;
    return 0.0;
}

int sim_road_pose_at(const sim_roadnet *net, int road, double s, double d, sim_road_pose *out)
{
    if (road < 0 || road >= net->n_roads) return SIM_ENOTFOUND;
    const sim_road *r = &net->roads[road];
    int rc = r->n_geoms == 0 ? SIM_EINVAL : (s >= 0.0 && s <= r->length) ? SIM_OK : SIM_ERANGE;
    s = fmin(fmax(s, 0.0), r->length);
    road_point(r, s, d, &out->x, &out->y, &out->heading);
    out->z = height_at(net, r, s, out->x, out->y);
    return rc;
}

/* ---- projection and location ---------------------------------------------- */

/* Pieces are cut into chunks short enough for the chord-started Newton iteration
 * (heading change at most 0.5 rad) and for a tight spatial index. */
#define CHUNK_MAX 25.0

static double chunk_length(const sim_geom *g)
{
    double kmax = fmax(fabs(g->k0), fabs(g->k1));
    return fmin(CHUNK_MAX, kmax > 0 ? 0.5 / kmax : CHUNK_MAX);
}

static int piece_chunks(const sim_geom *g, double *len)
{
    double n = ceil(g->length / chunk_length(g));
    if (!(n >= 1)) n = 1;
    if (n > 1e8) n = 1e8; /* only absurd input gets here; sim_geom_cost lets loaders refuse it */
    *len = g->length / n;
    return (int)n;
}

double sim_geom_cost(const sim_geom *g)
{
    double chunks = fmax(1.0, ceil(g->length / chunk_length(g)));
    double table = g->type == SIM_GEOM_CLOTHOID ? g->length / SIM_CLOTHOID_STEP + 1 : 0;
    return chunks + table;
}

/* One candidate answer: road, its projection, and how far it is from the lanes. */
typedef struct cand {
    int road;
    double s, d, off;
    bool on;
} cand;

static void consider(const sim_road *r, int ri, const sim_geom *g, const proj *p, cand *best)
{
    double excess = fmax(0.0, fmax(p->d - r->left_width, -p->d - r->right_width));
    double off = hypot(p->l, excess);
    bool on = p->inside && excess == 0.0;
    if (on) {
        sim_lane_info li;
        on = sim_road_lane_at(r, p->d, &li);
    }
    bool better;
    if (best->road < 0) better = true;
    else if (on != best->on) better = on;
    else if (on) better = fabs(p->d) < fabs(best->d);
    else better = off < best->off;
    if (better) {
        best->road = ri;
        best->s = g->s0 + p->t;
        best->d = p->d;
        best->off = on ? 0.0 : off;
        best->on = on;
    }
}

static void road_consider_all(const sim_road *r, int ri, double x, double y, cand *best)
{
    for (int gi = 0; gi < r->n_geoms; gi++) {
        const sim_geom *g = &r->geoms[gi];
        double cl;
        int n = piece_chunks(g, &cl);
        for (int c = 0; c < n; c++) {
            proj p;
            project_piece(g, x, y, c * cl, c + 1 == n ? g->length : (c + 1) * cl, &p);
            consider(r, ri, g, &p, best);
        }
    }
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
            project_piece(g, x, y, c * cl, c + 1 == n ? g->length : (c + 1) * cl, &p);
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

static void fill_loc(const sim_roadnet *net, const cand *c, sim_road_loc *out)
{
    const sim_road *r = &net->roads[c->road];
    memset(out, 0, sizeof *out);
    out->road = c->road;
    out->s = c->s;
    out->d = c->d;
    out->on_road = c->on;
    out->distance = c->off;
    double x, y, h;
    road_point(r, c->s, c->d, &x, &y, &h);
    out->heading = h;
    out->z = height_at(net, r, c->s, x, y);
    sim_road_lane_at(r, c->d, &out->lane);
}

int sim_roadnet_locate_brute(const sim_roadnet *net, double x, double y, sim_road_loc *out)
{
    if (net->n_roads == 0) return SIM_ENOTFOUND;
    cand best = {.road = -1};
    for (int ri = 0; ri < net->n_roads; ri++) road_consider_all(&net->roads[ri], ri, x, y, &best);
    if (best.road < 0) return SIM_ENOTFOUND;
    fill_loc(net, &best, out);
    return SIM_OK;
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

#define INDEX_CELL 16.0
#define INDEX_MAX_CELLS (1 << 22)
#define INDEX_MAX_ITEMS (1 << 24) /* piece-in-cell entries: 64 MiB of ints */

static void index_free(struct sim_roadnet_index *ix)
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
    index_free(net->index);
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
        index_free(ix);
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
    /* Two passes: count per cell, then fill (compressed rows). */
    for (int pass = 0; pass < 2; pass++) {
        int *fill = NULL;
        if (pass == 1) {
            /* Summed as size_t first: pieces whose lane areas each span much of the map
             * (absurd lane widths) would overflow the int offsets and make the index
             * larger than the roads themselves. */
            size_t total = 0;
            for (size_t c = 0; c < ncell; c++) total += (size_t)ix->start[c + 1];
            if (total > INDEX_MAX_ITEMS) {
                double cell = ix->cell;
                free(boxes);
                index_free(ix);
                return sim_error_set(err, SIM_ETOOBIG,
                                     "road index: the roads' lane areas cover %zu cells of %g m in all "
                                     "(at most %d): are some lanes far too wide?",
                                     total, cell, INDEX_MAX_ITEMS);
            }
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
    index_free(ix);
    return sim_error_set(err, SIM_ENOMEM, "road index: out of memory");
}

/* The indexed search; on a miss, the nearest road by brute force when `nearest`. */
static int locate(const sim_roadnet *net, double x, double y, bool nearest, sim_road_loc *out)
{
    const struct sim_roadnet_index *ix = net->index;
    if (net->n_roads == 0) return SIM_ENOTFOUND;
    if (!ix) {
        int rc = sim_roadnet_locate_brute(net, x, y, out);
        return rc || nearest || out->on_road ? rc : SIM_ENOTFOUND;
    }
    double fi = (x - ix->x0) / ix->cell, fj = (y - ix->y0) / ix->cell;
    if (fi >= 0 && fj >= 0 && fi < ix->nx && fj < ix->ny) {
        size_t c = (size_t)(int)fj * (size_t)ix->nx + (size_t)(int)fi;
        cand best = {.road = -1};
        const sim_geom *done = NULL;
        for (int k = ix->start[c]; k < ix->start[c + 1]; k++) {
            const chunk *ch = &ix->chunks[ix->items[k]];
            /* Outside the piece's lane area: it cannot hold the point. */
            if (x < ch->box[0] || y < ch->box[1] || x > ch->box[2] || y > ch->box[3]) continue;
            const sim_road *r = &net->roads[ch->road];
            const sim_geom *g = &r->geoms[ch->geom];
            proj p;
            if (g->type == SIM_GEOM_CLOTHOID) {
                project_piece(g, x, y, ch->a, ch->b, &p);
            } else {
                /* Lines and arcs project in closed form onto the whole piece; its
                 * chunks sit next to each other in the cell, so once is enough. */
                if (g == done) continue;
                done = g;
                project_piece(g, x, y, 0.0, g->length, &p);
            }
            consider(r, ch->road, g, &p, &best);
        }
        if (best.road >= 0 && best.on) {
            fill_loc(net, &best, out);
            return SIM_OK;
        }
    }
    /* Off every road's lanes: the nearest road, by searching them all. */
    return nearest ? sim_roadnet_locate_brute(net, x, y, out) : SIM_ENOTFOUND;
}

int sim_roadnet_locate(const sim_roadnet *net, double x, double y, sim_road_loc *out)
{
    return locate(net, x, y, true, out);
}

int sim_roadnet_locate_on_road(const sim_roadnet *net, double x, double y, sim_road_loc *out)
{
    return locate(net, x, y, false, out);
}

/* ---- ownership and lookup --------------------------------------------------- */

void sim_road_free(sim_road *r)
{
    for (int i = 0; i < r->n_geoms; i++) sim_geom_free(&r->geoms[i]);
    for (int i = 0; i < r->n_signs; i++) free(r->signs[i].text);
    free(r->geoms);
    free(r->left);
    free(r->right);
    free(r->limits);
    free(r->signs);
    free(r->zones);
    free(r->elev_s);
    free(r->elev_z);
    free(r->id);
    free(r->name);
    memset(r, 0, sizeof *r);
}

void sim_roadnet_free(sim_roadnet *net)
{
    for (int i = 0; i < net->n_roads; i++) sim_road_free(&net->roads[i]);
    for (int i = 0; i < net->n_junctions; i++) {
        sim_junction *j = &net->junctions[i];
        for (int c = 0; c < j->n_conns; c++) free(j->conns[c].lanes);
        free(j->conns);
        free(j->id);
        free(j->name);
    }
    free(net->roads);
    free(net->junctions);
    index_free(net->index);
    memset(net, 0, sizeof *net);
}

static bool links_to(const sim_road_link *l, sim_link_kind kind, int index)
{
    return l->kind == kind && l->index == index;
}

/* Junction j holds a connection between incoming road a and connecting road b. */
static bool junction_joins(const sim_roadnet *net, int j, int a, int b)
{
    const sim_junction *jn = &net->junctions[j];
    for (int c = 0; c < jn->n_conns; c++)
        if ((jn->conns[c].incoming == a && jn->conns[c].connecting == b) ||
            (jn->conns[c].incoming == b && jn->conns[c].connecting == a))
            return true;
    return false;
}

bool sim_roadnet_connected(const sim_roadnet *net, int a, int b)
{
    if (a < 0 || b < 0 || a >= net->n_roads || b >= net->n_roads) return false;
    const sim_road *ra = &net->roads[a], *rb = &net->roads[b];
    if (links_to(&ra->pred, SIM_LINK_ROAD, b) || links_to(&ra->succ, SIM_LINK_ROAD, b) ||
        links_to(&rb->pred, SIM_LINK_ROAD, a) || links_to(&rb->succ, SIM_LINK_ROAD, a))
        return true;
    const sim_road_link *ends[4] = {&ra->pred, &ra->succ, &rb->pred, &rb->succ};
    for (int i = 0; i < 4; i++)
        if (ends[i]->kind == SIM_LINK_JUNCTION && ends[i]->index >= 0 &&
            ends[i]->index < net->n_junctions && junction_joins(net, ends[i]->index, a, b))
            return true;
    return false;
}

int sim_roadnet_find_road(const sim_roadnet *net, const char *id)
{
    for (int i = 0; i < net->n_roads; i++)
        if (net->roads[i].id && strcmp(net->roads[i].id, id) == 0) return i;
    return -1;
}

int sim_roadnet_find_junction(const sim_roadnet *net, const char *id)
{
    for (int i = 0; i < net->n_junctions; i++)
        if (net->junctions[i].id && strcmp(net->junctions[i].id, id) == 0) return i;
    return -1;
}

/* ---- names ---------------------------------------------------------------- */

static const char *const mark_names[] = {"none", "solid", "dashed"};
static const char *const lane_names[] = {"driving", "shoulder", "median", "sidewalk", "parking"};
static const char *const sign_names[] = {"speed_limit", "lane_change", "stop",
                                         "yield",       "priority",    "text"};

static int parse_name(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

#define NAMES_N(a) ((int)(sizeof(a) / sizeof((a)[0])))
const char *sim_mark_name(sim_mark_type m) { return mark_names[m]; }
int sim_mark_parse(const char *name) { return parse_name(mark_names, NAMES_N(mark_names), name); }
const char *sim_lane_type_name(sim_lane_type t) { return lane_names[t]; }
int sim_lane_type_parse(const char *name)
{
    return parse_name(lane_names, NAMES_N(lane_names), name);
}
const char *sim_sign_type_name(sim_sign_type t) { return sign_names[t]; }
int sim_sign_type_parse(const char *name)
{
    return parse_name(sign_names, NAMES_N(sign_names), name);
}
