/* sim_motion_filter: a continuous transfer function N(s)/D(s) (order <= 3, proper) run
 * at a fixed step by the bilinear (Tustin) transform, the building block of the washout
 * (docs/motion.md). Tustin keeps a stable filter stable and its step and sine responses
 * within O((w dt)^2) of the continuous ones, which the unit tests check by hand-solved
 * responses. Plain storage owned by the caller; no allocation. */
#ifndef SIM_MOTION_FILTER_H
#define SIM_MOTION_FILTER_H

#include "sim_error.h"

#define SIM_MOTION_FILTER_ORDER 3

typedef struct sim_motion_filter {
    int n;                                   /* order */
    double b[SIM_MOTION_FILTER_ORDER + 1];   /* digital numerator, z^-k */
    double a[SIM_MOTION_FILTER_ORDER + 1];   /* digital denominator, a[0] = 1 */
    double w[SIM_MOTION_FILTER_ORDER];       /* transposed direct form II state */
} sim_motion_filter;

/* num and den hold the coefficients of s^0 .. s^n (den[n] != 0; num may be shorter in
 * effect: its s^n coefficient may be 0). dt > 0. SIM_EINVAL on a bad order or dt. */
int sim_motion_filter_init(sim_motion_filter *f, int n, const double *num, const double *den,
                           double dt, sim_error *err);
/* One step: the output for input x. */
double sim_motion_filter_step(sim_motion_filter *f, double x);
/* Back to rest (zero state). */
void sim_motion_filter_reset(sim_motion_filter *f);

#endif
