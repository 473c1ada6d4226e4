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

double sim_magic_formula(double x, double B, double C, double D, double E)
{
    double bx = B * x;
    return D * sin(C * atan(bx - E * (bx - atan(bx))));
}

#define ATAN_H (SIM_TIRE_ATAN_MAX / (SIM_TIRE_ATAN_NODES - 1))
#define SIN_MAX M_PI_2
#define SIN_H (SIN_MAX / (SIM_TIRE_SIN_NODES - 1))

/* Cubic Hermite interpolation on the nodes i h; 0 <= x < (nodes - 1) h. With the node
 * counts of sim_tire.h the error is below 1e-9 for atan and sin(C w), C <= 3 (h^4/384
 * times the fourth derivative), far inside the accuracy of any tyre data; a lookup is
 * several times cheaper than the libm call. */
static double hermite(const double *v, const double *d, double h, double x)
{
    double s = x / h;
    int i = (int)s;
    double t = s - i, t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * v[i] + (t3 - 2 * t2 + t) * h * d[i] +
           (3 * t2 - 2 * t3) * v[i + 1] + (t3 - t2) * h * d[i + 1];
}

/* atan(x) for x >= 0 from the table; past its end pi/2 - atan(1/x) by its series (the
 * first term left out is below 2e-12 there). */
static double table_atan(const sim_tire_tables *t, double x)
{
    if (x < SIM_TIRE_ATAN_MAX)
        return hermite(t->atan_v, t->atan_d, ATAN_H, x);
    double r = 1.0 / x, r2 = r * r;
    return M_PI_2 - r * (1.0 - r2 * (1.0 / 3 - r2 * (1.0 / 5 - r2 * (1.0 / 7 - r2 / 9))));
}

static bool tables_fit(const sim_tire_params *p, bool lateral)
{
    const sim_tire_tables *t = &p->tables;
    return t->ready && (lateral ? t->cy == p->pcy1 : t->cx == p->pcx1);
}

/* The normalised curve sin(C atan(g)), g = u - E(u - atan u) = (1 - E) u + E atan u, for
 * u >= 0. g >= 0 there for every E <= 1, so atan(g) lies in [0, pi/2). */
static double shape(const sim_tire_params *p, bool lateral, double u, double e)
{
    double c = lateral ? p->pcy1 : p->pcx1;
    if (tables_fit(p, lateral)) {
        const sim_tire_tables *t = &p->tables;
        double w = table_atan(t, (1.0 - e) * u + e * table_atan(t, u));
        if (w < SIN_MAX)
            return lateral ? hermite(t->siny_v, t->siny_d, SIN_H, w)
                           : hermite(t->sinx_v, t->sinx_d, SIN_H, w);
        return sin(c * w);
    }
    return sin(c * atan((1.0 - e) * u + e * atan(u)));
}

/* The u = B x where the curve peaks: C atan(g(u)) = pi/2, i.e. g(u) = tan(pi / 2C).
 * g is increasing (g' = 1 - E + E / (1 + u^2) >= min(1, 1 - E) > 0) and convex for E < 0,
 * concave for 0 < E < 1, so Newton's method converges monotonically after its first
 * step; it starts at the peak of the nominal load, which a load-dependent E moves only
 * a little. C <= 1 has no peak (the curve rises for ever): a large u stands for it. */
static double peak_u(const sim_tire_params *p, bool lateral, double e, double start)
{
    double c = lateral ? p->pcy1 : p->pcx1;
    if (c <= 1.0)
        return 1e3;
    bool tab = tables_fit(p, lateral);
    double target = tab ? (lateral ? p->tables.gy : p->tables.gx) : tan(M_PI / (2.0 * c));
    double u = start > 0.0 ? start : target;
    for (int i = 0; i < 40; i++) {
        double at = tab ? table_atan(&p->tables, u) : atan(u);
        double g = (1.0 - e) * u + e * at - target;
        double dg = 1.0 - e + e / (1.0 + u * u);
        double next = u - g / (dg > 1e-9 ? dg : 1e-9);
        next = next < 1e-6 ? 1e-6 : (next > 1e3 ? 1e3 : next);
        double step = fabs(next - u);
        u = next;
        if (step <= 1e-12 * (1.0 + u))
            break;
    }
    return u;
}

static double clamp_e(double e) { return e > 1.0 ? 1.0 : e; }

void sim_tire_prepare(sim_tire_params *p)
{
    sim_tire_tables *t = &p->tables;
    t->ready = 0;
    for (int i = 0; i < SIM_TIRE_ATAN_NODES; i++) {
        double x = i * ATAN_H;
        t->atan_v[i] = atan(x);
        t->atan_d[i] = 1.0 / (1.0 + x * x);
    }
    for (int i = 0; i < SIM_TIRE_SIN_NODES; i++) {
        double w = i * SIN_H;
        t->sinx_v[i] = sin(p->pcx1 * w);
        t->sinx_d[i] = p->pcx1 * cos(p->pcx1 * w);
        t->siny_v[i] = sin(p->pcy1 * w);
        t->siny_d[i] = p->pcy1 * cos(p->pcy1 * w);
    }
    t->cx = p->pcx1;
    t->cy = p->pcy1;
    t->gx = p->pcx1 > 1.0 ? tan(M_PI / (2.0 * p->pcx1)) : 0.0;
    t->gy = p->pcy1 > 1.0 ? tan(M_PI / (2.0 * p->pcy1)) : 0.0;
    t->ready = 1;
    p->peak_ux = peak_u(p, false, clamp_e(p->pex1), 0.0);
    p->peak_uy = peak_u(p, true, clamp_e(p->pey1), 0.0);
}

/* The coefficients of the two pure-slip curves at one load. */
typedef struct mf_load {
    double dfz;
    double dx, ex, bx; /* longitudinal D, E, B */
    double dy, ey, by; /* lateral */
} mf_load;

/* False where the tyre has no grip or no stiffness at this load (no force). */
static bool mf_at_load(const sim_tire_params *p, double fz, double mu_road, mf_load *m)
{
    double dfz = (fz - p->fz0) / p->fz0;
    m->dfz = dfz;
    m->dx = (p->pdx1 + p->pdx2 * dfz) * p->lambda_mux * mu_road * fz;
    m->dy = (p->pdy1 + p->pdy2 * dfz) * p->lambda_muy * mu_road * fz;
    double kx = fz * (p->pkx1 + p->pkx2 * dfz) * exp(p->pkx3 * dfz);
    /* pKy1 Fz0 sin(2 atan(x)), with sin(2 atan x) = 2x / (1 + x^2). */
    double x = fz / (p->pky2 * p->fz0);
    double ky = p->pky1 * p->fz0 * 2.0 * x / (1.0 + x * x);
    if (!(m->dx > 1e-9) || !(m->dy > 1e-9) || !(kx > 0.0) || !(ky > 0.0))
        return false;
    m->ex = clamp_e(p->pex1 + dfz * (p->pex2 + dfz * p->pex3));
    m->ey = clamp_e(p->pey1 + p->pey2 * dfz);
    m->bx = kx / (p->pcx1 * m->dx);
    m->by = ky / (p->pcy1 * m->dy);
    return true;
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
    } else if (mf_at_load(p, fz, 1.0, &m)) {
        kp = peak_u(p, false, m.ex, p->peak_ux) / m.bx;
        sp = peak_u(p, true, m.ey, p->peak_uy) / m.by;
    }
    if (kappa_peak)
        *kappa_peak = kp;
    if (slip_y_peak)
        *slip_y_peak = sp;
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
    mf_load m;
    if (!mf_at_load(p, fz, mu_road, &m))
        return f;
    /* Normalised slips n = slip B / u_peak (1 at the pure-slip peak); both curves are
     * read at s u_peak, s = |n|, and share their force by the direction of n. */
    double upx = peak_u(p, false, m.ex, p->peak_ux);
    double upy = peak_u(p, true, m.ey, p->peak_uy);
    double nx = kappa * m.bx / upx, ny = slip_y * m.by / upy;
    double s = sqrt(nx * nx + ny * ny);
    if (s < 1e-12)
        return f;
    double inv_s = 1.0 / s;
    f.fx = m.dx * shape(p, false, s * upx, m.ex) * nx * inv_s;
    f.fy = m.dy * shape(p, true, s * upy, m.ey) * ny * inv_s;
    /* The trail is read at the equivalent lateral slip s tan(alpha_peak), which is
     * |tan alpha| under pure side slip. */
    if (moment)
        f.mz = -pneumatic_trail(p, fz, m.dfz, s * upy / m.by) * f.fy;
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
