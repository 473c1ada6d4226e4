/* sim_tire: the tyre models of the full vehicle model (see sim_tire.h).
 *
 * The Magic Formula follows Pacejka, "Tyre and Vehicle Dynamics" (2nd ed. 2006),
 * section 4.3.2 (the MF 5.2/6.1 pure-slip equations), with the coefficients of the
 * book's 205/60R15 car tyre (appendix 3, table A3.1; see docs/vehicle.md):
 *
 *   F = D sin(C atan(B x - E (B x - atan(B x)))),  dfz = (Fz - Fz0) / Fz0
 *   Fx0: C = pCx1, D = (pDx1 + pDx2 dfz) Fz, E = pEx1 + pEx2 dfz + pEx3 dfz^2,
 *        K = Fz (pKx1 + pKx2 dfz) exp(pKx3 dfz), B = K / (C D), x = kappa
 *   Fy0: C = pCy1, D = (pDy1 + pDy2 dfz) Fz, E = pEy1 + pEy2 dfz,
 *        K = pKy1 Fz0 sin(2 atan(Fz / (pKy2 Fz0))), B = K / (C D), x = tan(alpha)
 *   Mz0 = -t Fy0, t = Dt cos(Ct atan(Bt a - Et (Bt a - atan(Bt a)))) cos(alpha),
 *        Bt = qBz1 + qBz2 dfz + qBz3 dfz^2, Ct = qCz1, Dt = Fz R0 (qDz1 + qDz2 dfz) / Fz0,
 *        Et = qEz1 + qEz2 dfz, a = tan(alpha)
 *
 * Left out, because the car has no camber and its four tyres are not mirrored left and
 * right: the camber terms, the shifts S_H and S_V (conicity, ply steer), the residual
 * moment Mzr and the asymmetric curvature terms pEy3 and qEz4. What stays is the odd
 * (left-right symmetric) part of the tyre.
 *
 * Combined slip uses the normalised-slip friction ellipse: each slip is divided by the
 * slip where its pure force peaks, the two are combined into one resultant slip s, and
 * each pure curve is read at s and shared by direction. At full sliding the forces lie
 * on the ellipse with the two peak forces as semi-axes, as section 5.7 of the car-model
 * paper asks. */
#include "sim_tire.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>


/* The inner loop's helpers must be inlined for the lookups of the two directions to
 * overlap (GCC's heuristics otherwise keep the twice-called ones out of line: 20 %
 * slower). */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

#define ATAN_H (SIM_TIRE_ATAN_MAX / (SIM_TIRE_ATAN_NODES - 1))
#define SHAPE_H (SIM_TIRE_SHAPE_MAX / (SIM_TIRE_SHAPE_NODES - 1))
#define LOAD_H ((SIM_TIRE_DFZ_MAX - SIM_TIRE_DFZ_MIN) / (SIM_TIRE_LOAD_NODES - 1))

/* Cubic Hermite interpolation at x = s h, 0 <= s < nodes - 1, from the cubics of the
 * intervals (cubic_fill). With the node counts of sim_tire.h the error is below 1e-7 of
 * the peak for atan and sin(C atan g), C <= 3 (h^4/384 times the fourth derivative;
 * the tests measure it), far inside the accuracy of any tyre data; a lookup is several
 * times cheaper than the libm calls. */
HOT double cubic(const double (*c)[4], double s)
{
    int i = (int)s;
    double t = s - i;
    return c[i][0] + t * (c[i][1] + t * (c[i][2] + t * c[i][3]));
}

/* A table's intervals from f's value and slope at the nodes x0 + i h. */
typedef void node_fn(const sim_tire_params *p, double x, double *value, double *slope);
static void cubic_fill(double (*c)[4], int nodes, double x0, double h, node_fn *f,
                       const sim_tire_params *p)
{
    double v0, d0, v1, d1;
    f(p, x0, &v0, &d0);
    for (int i = 0; i + 1 < nodes; i++, v0 = v1, d0 = d1) {
        f(p, x0 + (i + 1) * h, &v1, &d1);
        double m0 = h * d0, m1 = h * d1;
        c[i][0] = v0;
        c[i][1] = m0;
        c[i][2] = 3.0 * (v1 - v0) - 2.0 * m0 - m1;
        c[i][3] = 2.0 * (v0 - v1) + m0 + m1;
    }
}

/* atan(x) for x >= 0 from the table; past its end pi/2 - atan(1/x) by its series (the
 * first term left out is below 2e-12 there). */
HOT double table_atan(const sim_tire_tables *t, double x)
{
    if (x < SIM_TIRE_ATAN_MAX)
        return cubic(t->atan, x * (1.0 / ATAN_H));
    double r = 1.0 / x, r2 = r * r;
    return M_PI_2 - r * (1.0 - r2 * (1.0 / 3 - r2 * (1.0 / 5 - r2 * (1.0 / 7 - r2 / 9))));
}

static double clamp_e(double e) { return e > 1.0 ? 1.0 : e; }

/* The coefficients the tables depend on, in the order of sim_tire_tables.key. */
#define KEY_N 12
static void table_key(const sim_tire_params *p, double key[KEY_N])
{
    const double k[KEY_N] = {p->fz0,  p->pky2, p->pcx1, p->pcy1, p->pex1, p->pex2,
                             p->pex3, p->pey1, p->pey2, p->pkx1, p->pkx2, p->pkx3};
    for (int i = 0; i < KEY_N; i++)
        key[i] = k[i];
}

/* The tables when they were made for the current coefficients, else NULL (compared
 * field by field: this runs on every evaluation). */
HOT const sim_tire_tables *tables_of(const sim_tire_params *p)
{
    const double *k = p->tables.key;
    if (!p->tables.ready || k[0] != p->fz0 || k[1] != p->pky2 || k[2] != p->pcx1 ||
        k[3] != p->pcy1 || k[4] != p->pex1 || k[5] != p->pex2 || k[6] != p->pex3 ||
        k[7] != p->pey1 || k[8] != p->pey2 || k[9] != p->pkx1 || k[10] != p->pkx2 ||
        k[11] != p->pkx3)
        return NULL;
    return &p->tables;
}

/* The normalised curves sin(C atan(g)), g = u - E(u - atan u) = (1 - E) u + E atan u, of
 * both directions at ux, uy >= 0 (g >= 0 there for every E <= 1). One function for the
 * two, so that it is inlined into its one caller and the two chains of lookups overlap. */
static void shapes(const sim_tire_params *p, const sim_tire_tables *t, double ux, double ex,
                   double uy, double ey, double *fx, double *fy)
{
    if (!t) {
        *fx = sin(p->pcx1 * atan((1.0 - ex) * ux + ex * atan(ux)));
        *fy = sin(p->pcy1 * atan((1.0 - ey) * uy + ey * atan(uy)));
        return;
    }
    double gx = (1.0 - ex) * ux + ex * table_atan(t, ux);
    double gy = (1.0 - ey) * uy + ey * table_atan(t, uy);
    *fx = gx < SIM_TIRE_SHAPE_MAX ? cubic(t->shape_x, gx * (1.0 / SHAPE_H))
                                  : sin(p->pcx1 * table_atan(t, gx));
    *fy = gy < SIM_TIRE_SHAPE_MAX ? cubic(t->shape_y, gy * (1.0 / SHAPE_H))
                                  : sin(p->pcy1 * table_atan(t, gy));
}

/* The u = B x where the curve peaks: C atan(g(u)) = pi/2, i.e. g(u) = tan(pi / 2C).
 * g is increasing (g' = 1 - E + E / (1 + u^2) >= min(1, 1 - E) > 0) and convex for E < 0,
 * concave for 0 < E < 1, so Newton's method converges monotonically after its first
 * step. C <= 1 has no peak (the curve rises for ever): a large u stands for it. Only
 * sim_tire_prepare and unprepared or out-of-range evaluations solve it. */
static double peak_u(double c, double e)
{
    if (c <= 1.0)
        return 1e3;
    double target = tan(M_PI / (2.0 * c));
    double u = target;
    for (int i = 0; i < 60; i++) {
        double g = (1.0 - e) * u + e * atan(u) - target;
        double dg = 1.0 - e + e / (1.0 + u * u);
        double next = u - g / (dg > 1e-9 ? dg : 1e-9);
        next = next < 1e-6 ? 1e-6 : (next > 1e3 ? 1e3 : next);
        double step = fabs(next - u);
        u = next;
        if (step <= 1e-13 * (1.0 + u))
            break;
    }
    return u;
}

/* du/dE of the peak, from g(u, E) = target: (u - atan u) / g'(u). */
static double peak_u_by_e(double u, double e)
{
    return (u - atan(u)) / (1.0 - e + e / (1.0 + u * u));
}

static double kx_per_newton(const sim_tire_params *p, double dfz)
{
    return (p->pkx1 + p->pkx2 * dfz) * exp(p->pkx3 * dfz);
}

static double ex_at(const sim_tire_params *p, double dfz)
{
    return clamp_e(p->pex1 + dfz * (p->pex2 + dfz * p->pex3));
}

static double ey_at(const sim_tire_params *p, double dfz) { return clamp_e(p->pey1 + p->pey2 * dfz); }

/* The functions the tables hold, with their slopes. */
static void node_atan(const sim_tire_params *p, double x, double *v, double *d)
{
    (void)p;
    *v = atan(x);
    *d = 1.0 / (1.0 + x * x);
}

static void node_shape(double c, double g, double *v, double *d)
{
    double w = atan(g);
    *v = sin(c * w);
    *d = c * cos(c * w) / (1.0 + g * g);
}

static void node_shape_x(const sim_tire_params *p, double g, double *v, double *d)
{
    node_shape(p->pcx1, g, v, d);
}

static void node_shape_y(const sim_tire_params *p, double g, double *v, double *d)
{
    node_shape(p->pcy1, g, v, d);
}

static void node_kx(const sim_tire_params *p, double dfz, double *v, double *d)
{
    *v = kx_per_newton(p, dfz);
    *d = p->pkx2 * exp(p->pkx3 * dfz) + p->pkx3 * *v;
}

/* The peak's u at this load and du/d dfz = du/dE dE/d dfz (zero where E is clamped at
 * 1 or the curve has no peak). */
static void node_peak(double c, double e, double de, double *v, double *d)
{
    *v = peak_u(c, e);
    *d = c > 1.0 && *v < 1e3 && e < 1.0 ? peak_u_by_e(*v, e) * de : 0.0;
}

static void node_peak_x(const sim_tire_params *p, double dfz, double *v, double *d)
{
    node_peak(p->pcx1, ex_at(p, dfz), p->pex2 + 2.0 * p->pex3 * dfz, v, d);
}

static void node_peak_y(const sim_tire_params *p, double dfz, double *v, double *d)
{
    node_peak(p->pcy1, ey_at(p, dfz), p->pey2, v, d);
}

void sim_tire_prepare(sim_tire_params *p)
{
    sim_tire_tables *t = &p->tables;
    t->ready = 0;
    table_key(p, t->key);
    t->inv_fz0 = 1.0 / p->fz0;
    t->inv_ky_load = 1.0 / (p->pky2 * p->fz0);
    cubic_fill(t->atan, SIM_TIRE_ATAN_NODES, 0.0, ATAN_H, node_atan, p);
    cubic_fill(t->shape_x, SIM_TIRE_SHAPE_NODES, 0.0, SHAPE_H, node_shape_x, p);
    cubic_fill(t->shape_y, SIM_TIRE_SHAPE_NODES, 0.0, SHAPE_H, node_shape_y, p);
    cubic_fill(t->load[SIM_TIRE_LOAD_KX], SIM_TIRE_LOAD_NODES, SIM_TIRE_DFZ_MIN, LOAD_H, node_kx, p);
    cubic_fill(t->load[SIM_TIRE_LOAD_PEAK_X], SIM_TIRE_LOAD_NODES, SIM_TIRE_DFZ_MIN, LOAD_H,
               node_peak_x, p);
    cubic_fill(t->load[SIM_TIRE_LOAD_PEAK_Y], SIM_TIRE_LOAD_NODES, SIM_TIRE_DFZ_MIN, LOAD_H,
               node_peak_y, p);
    t->ready = 1;
}

/* The coefficients of the two pure-slip curves at one load and where they peak. The
 * stiffnesses stay apart from B = K / (C D) so that the caller can fold the divisions:
 * Ky = ky2 / x1. */
typedef struct mf_load {
    double dfz;
    double dx, ex, kx, upx;      /* longitudinal D, E, K and the peak's B x */
    double dy, ey, ky2, x1, upy; /* lateral */
} mf_load;

/* False where the tyre has no grip or no stiffness at this load (no force). */
HOT bool mf_at_load(const sim_tire_params *p, const sim_tire_tables *t, double fz,
                    double mu_road, mf_load *m)
{
    double dfz = t ? (fz - p->fz0) * t->inv_fz0 : (fz - p->fz0) / p->fz0;
    m->dfz = dfz;
    m->dx = (p->pdx1 + p->pdx2 * dfz) * p->lambda_mux * mu_road * fz;
    m->dy = (p->pdy1 + p->pdy2 * dfz) * p->lambda_muy * mu_road * fz;
    m->ex = ex_at(p, dfz);
    m->ey = ey_at(p, dfz);
    double kxn;
    if (t && dfz >= SIM_TIRE_DFZ_MIN && dfz < SIM_TIRE_DFZ_MAX) {
        double s = (dfz - SIM_TIRE_DFZ_MIN) * (1.0 / LOAD_H);
        kxn = cubic(t->load[SIM_TIRE_LOAD_KX], s);
        m->upx = cubic(t->load[SIM_TIRE_LOAD_PEAK_X], s);
        m->upy = cubic(t->load[SIM_TIRE_LOAD_PEAK_Y], s);
    } else {
        kxn = kx_per_newton(p, dfz);
        m->upx = peak_u(p->pcx1, m->ex);
        m->upy = peak_u(p->pcy1, m->ey);
    }
    m->kx = fz * kxn;
    /* Ky = pKy1 Fz0 sin(2 atan(x)), with sin(2 atan x) = 2x / (1 + x^2). */
    double x = t ? fz * t->inv_ky_load : fz / (p->pky2 * p->fz0);
    m->ky2 = p->pky1 * p->fz0 * 2.0 * x;
    m->x1 = 1.0 + x * x;
    return m->dx > 1e-9 && m->dy > 1e-9 && m->kx > 0.0 && m->ky2 > 0.0;
}

static double brush_mu(const sim_tire_params *p, double fz, double mu_road)
{
    double mu = p->brush_mu * (1.0 + p->brush_mu_load * (fz - p->fz0) / p->fz0);
    return (mu > 0.05 ? mu : 0.05) * mu_road;
}

void sim_tire_peak_slip(const sim_tire_params *p, double fz, double *kappa_peak, double *slip_y_peak)
{
    double kp = 0.1, sp = 0.1;
    mf_load m;
    if (fz < 1.0)
        fz = 1.0;
    if (p->model == SIM_TIRE_BRUSH) {
        double mu = brush_mu(p, fz, 1.0);
        kp = 3.0 * mu / p->brush_cx;
        sp = 3.0 * mu / p->brush_cy;
    } else if (mf_at_load(p, tables_of(p), fz, 1.0, &m)) {
        kp = m.upx * p->pcx1 * m.dx / m.kx;            /* u_peak / B */
        sp = m.upy * p->pcy1 * m.dy * m.x1 / m.ky2;
    }
    if (kappa_peak)
        *kappa_peak = kp;
    if (slip_y_peak)
        *slip_y_peak = sp;
}

void sim_tire_peak_force(const sim_tire_params *p, double fz, double mu_road, double *fx_peak,
                         double *fy_peak)
{
    double dx = 0.0, dy = 0.0;
    if (fz > 0.0 && mu_road > 0.0) {
        if (p->model == SIM_TIRE_BRUSH) {
            dx = dy = brush_mu(p, fz, mu_road) * fz;
        } else {
            double dfz = (fz - p->fz0) / p->fz0;
            dx = (p->pdx1 + p->pdx2 * dfz) * p->lambda_mux * mu_road * fz;
            dy = (p->pdy1 + p->pdy2 * dfz) * p->lambda_muy * mu_road * fz;
        }
    }
    *fx_peak = dx > 0.0 ? dx : 0.0;
    *fy_peak = dy > 0.0 ? dy : 0.0;
}

static sim_tire_forces eval_brush(const sim_tire_params *p, double fz, double kappa,
                                  double slip_y, double mu_road)
{
    sim_tire_forces f = {0, 0, 0};
    double mu = brush_mu(p, fz, mu_road);
    double limit = 3.0 * mu * fz;
    double tx = p->brush_cx * fz * kappa / limit;   /* theta * sigma, per direction */
    double ty = p->brush_cy * fz * slip_y / limit;
    double t = sqrt(tx * tx + ty * ty);
    if (t < 1e-12)
        return f;
    /* Parabolic pressure: F = mu Fz (1 - (1 - t)^3) until the whole patch slides. */
    double one_minus = t < 1.0 ? 1.0 - t : 0.0;
    double fmag = mu * fz * (1.0 - one_minus * one_minus * one_minus);
    f.fx = fmag * tx / t;
    f.fy = fmag * ty / t;
    f.mz = -mu * fz * p->brush_half_length * ty * one_minus * one_minus * one_minus;
    return f;
}

/* Pneumatic trail at slip tan(alpha) = a >= 0: Dt cos(Ct atan(Bt a - Et (Bt a -
 * atan(Bt a)))) cos(alpha). It passes zero near the peak of the side force (the patch
 * slides) and turns slightly negative beyond, which lightens the steering at the limit. */
static double pneumatic_trail(const sim_tire_params *p, double fz, double dfz, double a)
{
    double bt = p->qbz1 + p->qbz2 * dfz + p->qbz3 * dfz * dfz;
    double dt = fz * (p->qdz1 + p->qdz2 * dfz) * p->radius / p->fz0;
    double et = clamp_e(p->qez1 + p->qez2 * dfz);
    double ba = bt * a;
    double cos_alpha = 1.0 / sqrt(1.0 + a * a);
    return dt * cos(p->qcz1 * atan(ba - et * (ba - atan(ba)))) * cos_alpha;
}

static sim_tire_forces eval(const sim_tire_params *p, double fz, double kappa, double slip_y,
                            double mu_road, bool moment)
{
    sim_tire_forces f = {0, 0, 0};
    if (!(fz > 0.0) || !(mu_road > 0.0))
        return f;
    if (p->model == SIM_TIRE_BRUSH)
        return eval_brush(p, fz, kappa, slip_y, mu_road);
    const sim_tire_tables *t = tables_of(p);
    mf_load m;
    if (!mf_at_load(p, t, fz, mu_road, &m))
        return f;
    /* Normalised slips n = slip B / u_peak (1 at the pure-slip peak); both curves are
     * read at s u_peak, s = |n|, and share their force by the direction of n. With
     * B = K / (C D), n = (kappa Kx b, slip_y ky2 a) / (a b): the length and the
     * direction come from q = |(kappa Kx b, slip_y ky2 a)| with two independent
     * divisions. */
    double a = p->pcx1 * m.dx * m.upx, b = p->pcy1 * m.dy * m.upy * m.x1;
    double qx = kappa * m.kx * b, qy = slip_y * m.ky2 * a;
    double q = sqrt(qx * qx + qy * qy), inv_ab = 1.0 / (a * b);
    double s = q * inv_ab;
    if (!(s >= 1e-12))
        return f;
    double inv_q = 1.0 / q, cx, cy;
    shapes(p, t, s * m.upx, m.ex, s * m.upy, m.ey, &cx, &cy);
    f.fx = m.dx * cx * qx * inv_q;
    f.fy = m.dy * cy * qy * inv_q;
    /* The trail is read at the equivalent lateral slip s tan(alpha_peak) = s u_peak / B,
     * which is |tan alpha| under pure side slip. */
    if (moment)
        f.mz = -pneumatic_trail(p, fz, m.dfz, s * b / m.ky2) * f.fy;
    return f;
}

sim_tire_forces sim_tire_eval(const sim_tire_params *p, double fz, double kappa, double slip_y,
                              double mu_road)
{
    return eval(p, fz, kappa, slip_y, mu_road, true);
}

sim_tire_forces sim_tire_eval_forces(const sim_tire_params *p, double fz, double kappa,
                                     double slip_y, double mu_road)
{
    return eval(p, fz, kappa, slip_y, mu_road, false);
}
