/* sim_metrics_tlc: time to line crossing (Godthelp, Milgram & Blaauw 1984; SAE J2944
 * section on TLC) in the road frame.
 *
 * The car keeps its current path: a circle of curvature kappa relative to the road (the
 * car's yaw rate / speed minus the road's curvature), starting at heading psi relative to
 * the road. After arc length sigma its centre has moved sideways by
 *   Y(sigma) = (cos psi - cos(psi + kappa sigma)) / kappa      (sigma sin psi for kappa 0).
 * A wheel reaches the left boundary when Y = left - width/2 - d, the right one when
 * Y = -(d - width/2 - right); TLC is the smallest such sigma over v. The first-order
 * TLC keeps the lateral speed v sin(psi) instead: distance / v_lat. */
#include "sim_measures.h"

#include <math.h>
#include <string.h>

#define KAPPA_STRAIGHT 1e-12 /* 1/m: below it the path is a straight line */

void sim_tlc_params_init(sim_tlc_params *p)
{
    p->width = 1.8;
    p->horizon = 20.0;
    p->threshold = 1.0;
}

/* Smallest sigma > 0 where the circle's sideways displacement equals target (!= 0);
 * INFINITY when it never does. */
static double reach(double psi, double kappa, double target)
{
    if (fabs(kappa) < KAPPA_STRAIGHT) {
        double sp = sin(psi);
        return target * sp > 0 ? target / sp : INFINITY;
    }
    double c = cos(psi) - kappa * target;
    if (c < -1.0 || c > 1.0) return INFINITY;
    double phi0 = acos(c), best = INFINITY;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        double base = sgn * phi0;
        /* Heading angles phi = base + 2 pi m; the path reaches them in the direction it
         * turns: the first one above psi (left turn) or below it (right turn). */
        double m = kappa > 0 ? floor((psi - base) / (2 * M_PI)) + 1
                             : ceil((psi - base) / (2 * M_PI)) - 1;
        double sigma = (base + 2 * M_PI * m - psi) / kappa;
        if (sigma > 0 && sigma < best) best = sigma;
    }
    return best;
}

static int distances(const sim_tlc_sample *s, const sim_tlc_params *p, double *to_left,
                     double *to_right)
{
    if (isnan(s->d) || isnan(s->psi) || isnan(s->v) || isnan(s->left) || isnan(s->right))
        return -1;
    *to_left = s->left - p->width / 2 - s->d;
    *to_right = s->d - p->width / 2 - s->right;
    return 0;
}

double sim_tlc_circular(const sim_tlc_sample *s, const sim_tlc_params *p)
{
    double dl, dr;
    if (distances(s, p, &dl, &dr) || isnan(s->kappa)) return NAN;
    if (dl <= 0 || dr <= 0) return 0.0;
    if (!(s->v > 0)) return INFINITY;
    double sigma = fmin(reach(s->psi, s->kappa, dl), reach(s->psi, s->kappa, -dr));
    double t = sigma / s->v;
    return t <= p->horizon ? t : INFINITY;
}

double sim_tlc_first_order(const sim_tlc_sample *s, const sim_tlc_params *p)
{
    double dl, dr;
    if (distances(s, p, &dl, &dr)) return NAN;
    if (dl <= 0 || dr <= 0) return 0.0;
    double vlat = s->v * sin(s->psi);
    double t = vlat > 0 ? dl / vlat : vlat < 0 ? dr / -vlat : INFINITY;
    return t <= p->horizon ? t : INFINITY;
}

int sim_tlc_compute(const sim_tlc_sample *s, size_t n, const sim_tlc_params *p, double *tlc,
                    double *tlc1, sim_tlc_summary *sum, sim_error *err)
{
    memset(sum, 0, sizeof *sum);
    sum->min = sum->min_first_order = sum->minima_mean = NAN;
    if (!(p->width >= 0 && p->horizon > 0 && p->threshold >= 0))
        return sim_error_set(err, SIM_EINVAL, "TLC: width %g m, horizon %g s and threshold %g s "
                             "must not be negative", p->width, p->horizon, p->threshold);
    for (size_t i = 1; i < n; i++)
        if (!(s[i].t >= s[i - 1].t))
            return sim_error_set(err, SIM_EINVAL, "TLC: sample %zu: time %g s is before the "
                                 "previous sample's", i, s[i].t);
    double minima = 0;
    for (size_t i = 0; i < n; i++) {
        double v = sim_tlc_circular(&s[i], p), v1 = sim_tlc_first_order(&s[i], p);
        if (tlc) tlc[i] = v;
        if (tlc1) tlc1[i] = v1;
        if (isfinite(v) && !(v >= sum->min)) sum->min = v;
        if (isfinite(v1) && !(v1 >= sum->min_first_order)) sum->min_first_order = v1;
        if (v < p->threshold && i + 1 < n) sum->time_below += s[i + 1].t - s[i].t;
    }
    if (!tlc) return 0;
    /* Local minima: a finite, positive value below its left neighbour and below the
     * first different value to its right (a plateau counts once). */
    for (size_t i = 1; i + 1 < n; i++) {
        double v = tlc[i];
        if (!(isfinite(v) && v > 0) || !(tlc[i - 1] > v || isnan(tlc[i - 1]))) continue;
        size_t j = i + 1;
        while (j < n && tlc[j] == v) j++;
        if (j < n && tlc[j] > v) {
            minima += v;
            sum->n_minima++;
        }
        i = j - 1;
    }
    if (sum->n_minima) sum->minima_mean = minima / (double)sum->n_minima;
    return 0;
}
