/* sim_tire: the tyre models of the full vehicle model (see sim_tire.h).
 *
 * The Magic Formula follows Pacejka, "Tyre and Vehicle Dynamics" (2006), section 4.3
 * (MF 5.2), keeping the pure-slip terms without camber, shifts or turn slip: the
 * coefficients of the book's 205/60R15 example apply directly. Combined slip uses the
 * normalised-slip friction ellipse: each slip is divided by the slip where its pure
 * force peaks, the two are combined into one resultant slip s, and each pure curve is
 * read at s and shared by direction. At full sliding the forces lie on the ellipse with
 * the two peak forces as semi-axes, as section 5.7 of the car-model paper asks. */
#include "sim_tire.h"

#include <math.h>
#include <stdbool.h>

double sim_magic_formula(double x, double B, double C, double D, double E)
{
    double bx = B * x;
    return D * sin(C * atan(bx - E * (bx - atan(bx))));
}

/* The normalised curve F(u) = sin(C atan(g)), g = u - E(u - atan u), and dF/du. */
static void curve_point(double C, double E, double u, double *f, double *df)
{
    double g = u - E * (u - atan(u));
    double dg = 1.0 - E * (1.0 - 1.0 / (1.0 + u * u));
    double a = C * atan(g);
    *f = sin(a);
    *df = cos(a) * C * dg / (1.0 + g * g);
}

static void curve_make(sim_tire_curve *t, double C, double E)
{
    double h = SIM_TIRE_CURVE_U_MAX / (SIM_TIRE_CURVE_NODES - 1);
    for (int i = 0; i < SIM_TIRE_CURVE_NODES; i++)
        curve_point(C, E, i * h, &t->value[i], &t->slope[i]);
    t->c = C;
    t->e = E;
    t->ready = 1;
}

/* Cubic Hermite interpolation of the odd function F; the exact formula past U_MAX.
 * With 512 intervals the error is below 1e-6 of the peak (see the tests), far inside
 * the accuracy of any tyre data, and the lookup is several times cheaper than the
 * three atan/sin calls of the formula. */
static double curve_eval(const sim_tire_curve *t, double u)
{
    double a = fabs(u), f;
    if (a >= SIM_TIRE_CURVE_U_MAX) {
        double df;
        curve_point(t->c, t->e, a, &f, &df);
    } else {
        const double h = SIM_TIRE_CURVE_U_MAX / (SIM_TIRE_CURVE_NODES - 1);
        double s = a / h;
        int i = (int)s;
        double x = s - i, x2 = x * x, x3 = x2 * x;
        f = (2 * x3 - 3 * x2 + 1) * t->value[i] + (x3 - 2 * x2 + x) * h * t->slope[i] +
            (3 * x2 - 2 * x3) * t->value[i + 1] + (x3 - x2) * h * t->slope[i + 1];
    }
    return u < 0.0 ? -f : f;
}

/* The u = Bx where the Magic Formula peaks: C atan(u - E(u - atan u)) = pi/2. Newton's
 * method on g(u) = u - E(u - atan u) - tan(pi / 2C); g is monotonic for E <= 1. */
static double mf_peak_u(double C, double E)
{
    if (C <= 1.0)
        return 1e3; /* no peak: the curve rises monotonically */
    double target = tan(M_PI / (2.0 * C));
    double u = target;
    for (int i = 0; i < 8; i++) {
        double g = u - E * (u - atan(u)) - target;
        double dg = 1.0 - E * (1.0 - 1.0 / (1.0 + u * u));
        if (dg < 1e-6)
            dg = 1e-6;
        u -= g / dg;
        if (u < 1e-6)
            u = 1e-6;
    }
    return u;
}

static double clamp_e(double e) { return e > 1.0 ? 1.0 : e; }

/* Coefficients of the two pure-slip curves at one load. */
typedef struct mf_curves {
    double bx, cx, dx, ex;
    double by, cy, dy, ey;
    double dfz;
} mf_curves;

static mf_curves mf_at_load(const sim_tire_params *p, double fz, double mu_road)
{
    mf_curves m;
    double dfz = (fz - p->fz0) / p->fz0;
    m.dfz = dfz;
    m.cx = p->pcx1;
    m.dx = (p->pdx1 + p->pdx2 * dfz) * p->lambda_mux * mu_road * fz;
    m.ex = clamp_e(p->pex1 + p->pex2 * dfz);
    double kx = fz * (p->pkx1 + p->pkx2 * dfz) * exp(p->pkx3 * dfz);
    m.bx = m.dx > 1e-9 ? kx / (m.cx * m.dx) : 0.0;
    m.cy = p->pcy1;
    m.dy = (p->pdy1 + p->pdy2 * dfz) * p->lambda_muy * mu_road * fz;
    m.ey = clamp_e(p->pey1 + p->pey2 * dfz);
    /* pKy1 Fz0 sin(2 atan(x)), with sin(2 atan x) = 2x / (1 + x^2). */
    double x = fz / (p->pky2 * p->fz0);
    double ky = p->pky1 * p->fz0 * 2.0 * x / (1.0 + x * x);
    m.by = m.dy > 1e-9 ? ky / (m.cy * m.dy) : 0.0;
    return m;
}

static double brush_mu(const sim_tire_params *p, double fz, double mu_road)
{
    double mu = p->brush_mu * (1.0 + p->brush_mu_load * (fz - p->fz0) / p->fz0);
    return (mu > 0.05 ? mu : 0.05) * mu_road;
}

static double peak_ux(const sim_tire_params *p, double ex)
{
    return p->peak_ux > 0.0 && p->pex2 == 0.0 ? p->peak_ux : mf_peak_u(p->pcx1, ex);
}

static double peak_uy(const sim_tire_params *p, double ey)
{
    return p->peak_uy > 0.0 && p->pey2 == 0.0 ? p->peak_uy : mf_peak_u(p->pcy1, ey);
}

void sim_tire_prepare(sim_tire_params *p)
{
    p->peak_ux = mf_peak_u(p->pcx1, clamp_e(p->pex1));
    p->peak_uy = mf_peak_u(p->pcy1, clamp_e(p->pey1));
    p->inv_peak_ux = 1.0 / p->peak_ux;
    p->inv_peak_uy = 1.0 / p->peak_uy;
    p->inv_fz0 = 1.0 / p->fz0;
    p->inv_ky_load = 1.0 / (p->pky2 * p->fz0);
    curve_make(&p->curve_x, p->pcx1, clamp_e(p->pex1));
    curve_make(&p->curve_y, p->pcy1, clamp_e(p->pey1));
}

/* D F(B x) from the table when it fits the current C and E, else the formula. */
static double mf_curve(const sim_tire_curve *t, double x, double B, double C, double D, double E)
{
    if (t->ready && t->c == C && t->e == E)
        return D * curve_eval(t, B * x);
    return sim_magic_formula(x, B, C, D, E);
}

void sim_tire_peak_slip(const sim_tire_params *p, double fz, double *kappa_peak, double *slip_y_peak)
{
    double kp, sp;
    if (fz < 1.0)
        fz = 1.0;
    if (p->model == SIM_TIRE_BRUSH) {
        double mu = brush_mu(p, fz, 1.0);
        kp = 3.0 * mu / p->brush_cx;
        sp = 3.0 * mu / p->brush_cy;
    } else {
        mf_curves m = mf_at_load(p, fz, 1.0);
        kp = peak_ux(p, m.ex) / m.bx;
        sp = peak_uy(p, m.ey) / m.by;
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

/* Pneumatic trail at slip tan(alpha) = alpha_t: Dt cos(Ct atan(Bt a - Et (Bt a -
 * atan(Bt a)))) cos(alpha). It falls to zero as the patch slides, which lightens the
 * steering near the limit. */
static double pneumatic_trail(const sim_tire_params *p, double fz, double dfz, double alpha_t)
{
    double bt = p->qbz1 + p->qbz2 * dfz + p->qbz3 * dfz * dfz;
    double dt = fz * (p->qdz1 + p->qdz2 * dfz) * p->radius / p->fz0;
    double et = clamp_e(p->qez1 + p->qez2 * dfz);
    double ba = bt * alpha_t;
    double cos_alpha = 1.0 / sqrt(1.0 + alpha_t * alpha_t);
    return dt * cos(p->qcz1 * atan(ba - et * (ba - atan(ba)))) * cos_alpha;
}

/* A prepared tyre: mf_at_load's algebra with the divisions folded together (this is
 * the integration's inner loop). With the normalised slips n = slip B / u_peak the
 * curves are read at s u_peak, s = |n|; B = K / (C D) for both directions share one
 * division. */
static sim_tire_forces eval_prepared(const sim_tire_params *p, double fz, double kappa,
                                     double slip_y, double mu_road, bool moment)
{
    sim_tire_forces f = {0, 0, 0};
    double dfz = (fz - p->fz0) * p->inv_fz0;
    double dx = (p->pdx1 + p->pdx2 * dfz) * p->lambda_mux * mu_road * fz;
    double dy = (p->pdy1 + p->pdy2 * dfz) * p->lambda_muy * mu_road * fz;
    if (!(dx > 1e-9) || !(dy > 1e-9))
        return f;
    double kx = fz * (p->pkx1 + p->pkx2 * dfz) * exp(p->pkx3 * dfz);
    double x = fz * p->inv_ky_load, x1 = 1.0 + x * x;
    double ky2 = p->pky1 * p->fz0 * 2.0 * x; /* Ky = ky2 / x1 */
    double cdx = p->pcx1 * dx, cdy = p->pcy1 * dy;
    double inv = 1.0 / (cdx * cdy * x1);
    double bx = kx * cdy * x1 * inv, by = ky2 * cdx * inv;
    double nx = kappa * bx * p->inv_peak_ux, ny = slip_y * by * p->inv_peak_uy;
    double s = sqrt(nx * nx + ny * ny);
    if (s < 1e-12)
        return f;
    double inv_s = 1.0 / s;
    f.fx = dx * curve_eval(&p->curve_x, s * p->peak_ux) * nx * inv_s;
    f.fy = dy * curve_eval(&p->curve_y, s * p->peak_uy) * ny * inv_s;
    if (moment)
        f.mz = -pneumatic_trail(p, fz, dfz, s * p->peak_uy / by) * f.fy;
    return f;
}

static sim_tire_forces eval(const sim_tire_params *p, double fz, double kappa, double slip_y,
                            double mu_road, bool moment)
{
    sim_tire_forces f = {0, 0, 0};
    if (!(fz > 0.0) || !(mu_road > 0.0))
        return f;
    if (p->model == SIM_TIRE_BRUSH)
        return eval_brush(p, fz, kappa, slip_y, mu_road);

    if (p->curve_x.ready && p->curve_y.ready && p->pex2 == 0.0 && p->pey2 == 0.0)
        return eval_prepared(p, fz, kappa, slip_y, mu_road, moment);
    mf_curves m = mf_at_load(p, fz, mu_road);
    double kp = peak_ux(p, m.ex) / m.bx;
    double sp = peak_uy(p, m.ey) / m.by;
    double nx = kappa / kp, ny = slip_y / sp;
    double s = sqrt(nx * nx + ny * ny);
    if (s < 1e-12)
        return f;
    double fx0 = mf_curve(&p->curve_x, s * kp, m.bx, m.cx, m.dx, m.ex);
    /* MF 5.2 reads the lateral curve at alpha* = tan(alpha), which slip_y already is. */
    double alpha = s * sp;
    double fy0 = mf_curve(&p->curve_y, alpha, m.by, m.cy, m.dy, m.ey);
    f.fx = fx0 * nx / s;
    f.fy = fy0 * ny / s;
    if (!moment)
        return f;

    f.mz = -pneumatic_trail(p, fz, m.dfz, alpha) * f.fy;
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
