/* sim_road_geom: reference-line pieces (line, arc, spiral, poly3, paramPoly3) and
 * polynomial records (see sim_road.h). */
#include "sim_road.h"
#include "sim_road_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sim_poly3_eval(const sim_poly3 *recs, int n, double s, double *deriv)
{
    if (n <= 0) {
        if (deriv) *deriv = 0.0;
        return 0.0;
    }
    int lo = 0, hi = n - 1;
    while (lo < hi) { /* last record with s0 <= s; the first one before it */
        int mid = (lo + hi + 1) / 2;
        if (recs[mid].s0 <= s) lo = mid;
        else hi = mid - 1;
    }
    const sim_poly3 *p = &recs[lo];
    double ds = s - p->s0;
    if (deriv) *deriv = p->b + ds * (2.0 * p->c + 3.0 * p->d * ds);
    return p->a + ds * (p->b + ds * (p->c + ds * p->d));
}

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

static double curv_rate(const sim_geom *g)
{
    return g->type == SIM_GEOM_CLOTHOID ? (g->k1 - g->k0) / g->length : 0.0;
}

/* poly3: v(u) and its derivatives. */
static double p3(const double *c, double u) { return c[0] + u * (c[1] + u * (c[2] + u * c[3])); }
static double p3d(const double *c, double u) { return c[1] + u * (2.0 * c[2] + 3.0 * u * c[3]); }
static double p3dd(const double *c, double u) { return 2.0 * c[2] + 6.0 * u * c[3]; }

/* Gauss-Legendre over [a, b] cut into pieces of at most GL_PIECE: the integrands
 * (square roots of polynomials) are smooth, and over 0.125 of the parameter five
 * points leave errors far below 1e-9 m. */
#define GL_PIECE 0.125
static double integrate(double (*f)(const sim_geom *, double), const sim_geom *g, double a, double b)
{
    int m = (int)ceil(fabs(b - a) / GL_PIECE);
    if (m < 1) m = 1;
    double acc = 0.0, w = (b - a) / m;
    for (int k = 0; k < m; k++) {
        double half = 0.5 * w, mid = a + (k + 0.5) * w, s = 0.0;
        for (int i = 0; i < 5; i++) s += gl_w[i] * f(g, mid + half * gl_x[i]);
        acc += s * half;
    }
    return acc;
}

static double poly3_speed(const sim_geom *g, double u)
{
    double v1 = p3d(g->poly, u);
    return sqrt(1.0 + v1 * v1);
}

/* Arc length of poly3 v(u) from u0 to u1. */
static double poly3_arc(const sim_geom *g, double u0, double u1) { return integrate(poly3_speed, g, u0, u1); }

/* paramPoly3: speed |(u'(p), v'(p))| and arc length from p0 to p1 (Gauss-Legendre). */
static double pp3_speed(const sim_geom *g, double p) { return hypot(p3d(g->poly, p), p3d(g->poly + 4, p)); }

static double pp3_arc(const sim_geom *g, double p0, double p1) { return integrate(pp3_speed, g, p0, p1); }

/* u at arc length target, starting from u0 where the arc length is s0: Newton on
 * L(u) - target with L' = sqrt(1 + v'^2) >= 1, which converges monotonically. */
static double poly3_u_at(const sim_geom *g, double u0, double s0, double target)
{
    double u = u0;
    for (int it = 0; it < 50; it++) {
        double v1 = p3d(g->poly, u), f = s0 + poly3_arc(g, u0, u) - target;
        double du = f / sqrt(1.0 + v1 * v1);
        u -= du;
        if (fabs(du) < 1e-13) break;
    }
    return u;
}

static bool finite8(const double *p)
{
    for (int i = 0; i < 8; i++)
        if (!isfinite(p[i])) return false;
    return true;
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
        !isfinite(g->hdg0) || !finite8(g->poly) || !isfinite(g->u_max))
        return sim_error_set(err, SIM_ERANGE, "curvature, polynomial or start pose not finite");
    if (g->length > SIM_GEOM_MAX_LENGTH)
        return sim_error_set(err, SIM_ERANGE, "length %g: expected at most %g m", g->length,
                             SIM_GEOM_MAX_LENGTH);
    if (g->type == SIM_GEOM_LINE) g->k0 = g->k1 = 0.0;
    if (g->type == SIM_GEOM_ARC) g->k1 = g->k0;
    g->pc[0] = cos(g->hdg0), g->pc[1] = sin(g->hdg0), g->pc[2] = g->pc[3] = 0.0;
    if (g->type == SIM_GEOM_ARC && g->k0 != 0.0) {
        double R = 1.0 / g->k0, cx = g->x0 - R * g->pc[1], cy = g->y0 + R * g->pc[0];
        g->pc[0] = cx, g->pc[1] = cy, g->pc[2] = atan2(g->y0 - cy, g->x0 - cx);
    }
    if (g->type == SIM_GEOM_LINE || g->type == SIM_GEOM_ARC) return SIM_OK;
    int n = (int)floor(g->length / SIM_CLOTHOID_STEP) + 2;
    if (g->type == SIM_GEOM_PARAMPOLY3 && n < 16) n = 16;
    g->tab = malloc(sizeof *g->tab * 2 * (size_t)n);
    if (!g->tab) return sim_error_set(err, SIM_ENOMEM, "geometry table: out of memory");
    if (g->type == SIM_GEOM_PARAMPOLY3) {
        /* s is the curve's arc length scaled to the length attribute (as esmini does):
         * tab[i] = arc length at p_i = i P / (n - 1), P = 1 (normalized) or length. */
        double P = g->normalized ? 1.0 : g->length, acc = 0.0;
        g->tab[0] = 0.0;
        for (int i = 1; i < n; i++) {
            acc += pp3_arc(g, P * (i - 1) / (n - 1), P * i / (n - 1));
            g->tab[i] = acc;
        }
        g->n_tab = n;
        if (!(acc > 0)) { /* a curve that does not move: p proportional to s */
            free(g->tab);
            g->tab = NULL;
            g->n_tab = 0;
        }
        return SIM_OK;
    }
    if (g->type == SIM_GEOM_POLY3) {
        /* tab[i] = u at arc length i * step (scaled so that the end falls on u_max when
         * u_max is given); tab[n-1] = u at the end. */
        double scale = 1.0;
        if (g->u_max > 0) scale = poly3_arc(g, 0.0, g->u_max) / g->length;
        double u = 0.0, s = 0.0;
        for (int i = 0; i < n; i++) {
            double target = fmin(i * SIM_CLOTHOID_STEP, g->length) * scale;
            u = poly3_u_at(g, u, s, target);
            s = target;
            g->tab[i] = u;
        }
        if (g->u_max <= 0) g->u_max = g->tab[n - 1];
        g->tab[n] = scale; /* n entries of u, then the scale */
        g->n_tab = n;
        return SIM_OK;
    }
    double c = curv_rate(g), x = g->x0, y = g->y0;
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

/* Local (u, v) -> world. */
static void to_world(const sim_geom *g, double u, double v, double *x, double *y)
{
    double c = cos(g->hdg0), s = sin(g->hdg0);
    *x = g->x0 + u * c - v * s;
    *y = g->y0 + u * s + v * c;
}

static double poly3_u(const sim_geom *g, double ds)
{
    ds = fmin(fmax(ds, 0.0), g->length);
    if (!g->tab) return ds;
    double scale = g->tab[g->n_tab];
    int i = (int)(ds / SIM_CLOTHOID_STEP);
    if (i >= g->n_tab - 1) i = g->n_tab - 2;
    if (i < 0) i = 0;
    return poly3_u_at(g, g->tab[i], i * SIM_CLOTHOID_STEP * scale, ds * scale);
}

static double pp3_param(const sim_geom *g, double ds)
{
    ds = fmin(fmax(ds, 0.0), g->length);
    double P = g->normalized ? 1.0 : g->length;
    if (!g->tab) return P * ds / g->length;
    int n = g->n_tab;
    double total = g->tab[n - 1], target = ds * total / g->length;
    int lo = 0, hi = n - 2;
    while (lo < hi) { /* last table point at or before target */
        int mid = (lo + hi + 1) / 2;
        if (g->tab[mid] <= target) lo = mid;
        else hi = mid - 1;
    }
    double p0 = P * lo / (n - 1), p1 = P * (lo + 1) / (n - 1), p = p0;
    if (g->tab[lo + 1] > g->tab[lo]) p = p0 + (p1 - p0) * (target - g->tab[lo]) / (g->tab[lo + 1] - g->tab[lo]);
    for (int it = 0; it < 30; it++) {
        double sp = pp3_speed(g, p);
        if (!(sp > 1e-12)) break;
        double dp = (g->tab[lo] + pp3_arc(g, p0, p) - target) / sp;
        p = fmin(fmax(p - dp, p0), p1);
        if (fabs(dp) < 1e-14 * (1.0 + P)) break;
    }
    return p;
}

void sim_geom_eval(const sim_geom *g, double t, double *x, double *y, double *hdg)
{
    switch (g->type) {
    case SIM_GEOM_CLOTHOID:
        if (g->tab) {
            double c = curv_rate(g);
            int i = (int)(t / SIM_CLOTHOID_STEP);
            if (i >= g->n_tab) i = g->n_tab - 1;
            if (i < 0) i = 0;
            double dx, dy;
            clothoid_step(g, c, i * SIM_CLOTHOID_STEP, t, &dx, &dy);
            *x = g->tab[2 * i] + dx;
            *y = g->tab[2 * i + 1] + dy;
            *hdg = g->hdg0 + t * (g->k0 + 0.5 * c * t);
            return;
        }
        break;
    case SIM_GEOM_POLY3: {
        double u = poly3_u(g, t);
        to_world(g, u, p3(g->poly, u), x, y);
        *hdg = g->hdg0 + atan(p3d(g->poly, u));
        return;
    }
    case SIM_GEOM_PARAMPOLY3: {
        double p = pp3_param(g, t);
        to_world(g, p3(g->poly, p), p3(g->poly + 4, p), x, y);
        *hdg = g->hdg0 + atan2(p3d(g->poly + 4, p), p3d(g->poly, p));
        return;
    }
    default:
        break;
    }
    /* Line and arc in one closed form: the chord 2 sin(kt/2)/k along the mean heading,
     * which is well conditioned as k goes to 0. */
    double k = g->k0, half = 0.5 * k * t;
    double chord = fabs(half) < 1e-9 ? t : 2.0 * sin(half) / k;
    *x = g->x0 + chord * cos(g->hdg0 + half);
    *y = g->y0 + chord * sin(g->hdg0 + half);
    *hdg = g->hdg0 + k * t;
}

double sim_geom_curvature(const sim_geom *g, double t)
{
    switch (g->type) {
    case SIM_GEOM_POLY3: {
        double u = poly3_u(g, t), v1 = p3d(g->poly, u);
        return p3dd(g->poly, u) / pow(1.0 + v1 * v1, 1.5);
    }
    case SIM_GEOM_PARAMPOLY3: {
        double p = pp3_param(g, t);
        double u1 = p3d(g->poly, p), v1 = p3d(g->poly + 4, p);
        double u2 = p3dd(g->poly, p), v2 = p3dd(g->poly + 4, p);
        double sp = u1 * u1 + v1 * v1;
        return sp > 0 ? (u1 * v2 - v1 * u2) / pow(sp, 1.5) : 0.0;
    }
    default:
        return g->k0 + curv_rate(g) * t;
    }
}

double sim_geom_speed(const sim_geom *g, double t)
{
    if (g->type != SIM_GEOM_PARAMPOLY3) return 1.0;
    if (g->tab) return g->tab[g->n_tab - 1] / g->length;
    double P = g->normalized ? 1.0 : g->length;
    return pp3_speed(g, pp3_param(g, t)) * P / g->length;
}


double sim_geom_cost(const sim_geom *g)
{
    double chunks = fmax(1.0, ceil(g->length / sim_chunk_length(g)));
    double table = g->type == SIM_GEOM_LINE || g->type == SIM_GEOM_ARC ? 0 : g->length / SIM_CLOTHOID_STEP + 18;
    /* A polynomial's table point costs an integration over 16 pieces to build. */
    if (g->type == SIM_GEOM_POLY3 || g->type == SIM_GEOM_PARAMPOLY3) table *= 16;
    return chunks + table;
}

double sim_chunk_length(const sim_geom *g)
{
    /* Poly pieces before sim_geom_prepare have no curvature bound: short chunks. */
    if (g->type == SIM_GEOM_POLY3 || g->type == SIM_GEOM_PARAMPOLY3) return 2.0;
    double kmax = fmax(fabs(g->k0), fabs(g->k1));
    return fmin(SIM_CHUNK_MAX, kmax > 0 ? 0.5 / kmax : SIM_CHUNK_MAX);
}
