/* sim_motion_filter: Tustin discretization of a continuous transfer function
 * (sim_motion_filter.h). */
#include "sim_motion_filter.h"

#include <string.h>

/* p (degree dp) times (1 + sign z^-1): in place, degree dp + 1. */
static void mul_lin(double *p, int dp, double sign)
{
    for (int k = dp + 1; k >= 1; k--) p[k] += sign * p[k - 1];
}

int sim_motion_filter_init(sim_motion_filter *f, int n, const double *num, const double *den,
                           double dt, sim_error *err)
{
    if (n < 1 || n > SIM_MOTION_FILTER_ORDER)
        return sim_error_set(err, SIM_EINVAL, "filter order %d, expected 1..%d", n, SIM_MOTION_FILTER_ORDER);
    if (!(dt > 0)) return sim_error_set(err, SIM_EINVAL, "filter step %g, expected > 0", dt);
    if (den[n] == 0) return sim_error_set(err, SIM_EINVAL, "filter denominator's s^%d coefficient is 0", n);
    memset(f, 0, sizeof *f);
    f->n = n;
    /* s = c (1 - z^-1) / (1 + z^-1); times (1 + z^-1)^n: s^k -> c^k (1-z^-1)^k (1+z^-1)^(n-k) */
    double c = 2.0 / dt, B[SIM_MOTION_FILTER_ORDER + 1] = {0}, A[SIM_MOTION_FILTER_ORDER + 1] = {0};
    double ck = 1;
    for (int k = 0; k <= n; k++, ck *= c) {
        double p[SIM_MOTION_FILTER_ORDER + 2] = {1};
        int d = 0;
        for (int i = 0; i < k; i++) mul_lin(p, d++, -1);
        for (int i = k; i < n; i++) mul_lin(p, d++, +1);
        for (int i = 0; i <= n; i++) {
            B[i] += num[k] * ck * p[i];
            A[i] += den[k] * ck * p[i];
        }
    }
    for (int i = 0; i <= n; i++) {
        f->b[i] = B[i] / A[0];
        f->a[i] = A[i] / A[0];
    }
    return SIM_OK;
}

double sim_motion_filter_step(sim_motion_filter *f, double x)
{
    double y = f->b[0] * x + f->w[0];
    /* the washout's orders written out (the loop's arithmetic, term by term) */
    if (f->n == 3) {
        f->w[0] = f->b[1] * x - f->a[1] * y + f->w[1];
        f->w[1] = f->b[2] * x - f->a[2] * y + f->w[2];
        f->w[2] = f->b[3] * x - f->a[3] * y + 0;
        return y;
    }
    if (f->n == 2) {
        f->w[0] = f->b[1] * x - f->a[1] * y + f->w[1];
        f->w[1] = f->b[2] * x - f->a[2] * y + 0;
        return y;
    }
    for (int i = 1; i <= f->n; i++) {
        double next = i < f->n ? f->w[i] : 0;
        f->w[i - 1] = f->b[i] * x - f->a[i] * y + next;
    }
    return y;
}

void sim_motion_filter_reset(sim_motion_filter *f)
{
    memset(f->w, 0, sizeof f->w);
}
