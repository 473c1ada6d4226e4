/* sim_motion_fidelity: the vestibular model and the per-axis comparison
 * (sim_motion_fidelity.h). */
#include "sim_motion_fidelity.h"

#include <math.h>
#include <stdbool.h>

int sim_motion_vestibular_init(sim_motion_vestibular *v, double dt, sim_error *err)
{
    /* 0.4 (10 s + 1) / ((5 s + 1)(0.016 s + 1)) = (4 s + 0.4) / (0.08 s^2 + 5.016 s + 1) */
    static const double on[3] = {0.4, 4, 0}, od[3] = {1, 5.016, 0.08};
    /* 177 s^2 / ((30 s + 1)(5.9 s + 1)(0.005 s + 1)) */
    double a = 30, b = 5.9, c = 0.005;
    double cn[4] = {0, 0, a * b, 0}, cd[4] = {1, a + b + c, a * b + a * c + b * c, a * b * c};
    int rc = SIM_OK;
    for (int k = 0; k < 3 && !rc; k++) {
        rc = sim_motion_filter_init(&v->oto[k], 2, on, od, dt, err);
        if (!rc) rc = sim_motion_filter_init(&v->canal[k], 3, cn, cd, dt, err);
    }
    return rc;
}

void sim_motion_vestibular_step(sim_motion_vestibular *v, const double f[3], const double w[3], double pf[3],
                                double pw[3])
{
    for (int k = 0; k < 3; k++) {
        pf[k] = sim_motion_filter_step(&v->oto[k], f[k]);
        pw[k] = sim_motion_filter_step(&v->canal[k], w[k]);
    }
}

/* Pearson correlation of x[0..n) with y[0..n). */
static double pearson(const double *x, const double *y, size_t n)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
    }
    double mx = sx / (double)n, my = sy / (double)n;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* Counting stretches of a condition sample by sample. */
typedef struct tally {
    bool was;
    int count;
    size_t on;
} tally;

static void tally_add(tally *t, bool on)
{
    if (on && !t->was) t->count++;
    if (on) t->on++;
    t->was = on;
}

int sim_motion_stretches(const unsigned *flags, size_t n, double dt, double *seconds)
{
    tally t = {0};
    for (size_t i = 0; i < n; i++) tally_add(&t, flags[i] != 0);
    if (seconds) *seconds = (double)t.on * dt;
    return t.count;
}

void sim_motion_compare(const double *car, const double *plat, size_t n, double dt, double th,
                        sim_motion_axis_fidelity *out)
{
    double se = 0;
    tally t = {0};
    for (size_t i = 0; i < n; i++) {
        se += (car[i] - plat[i]) * (car[i] - plat[i]);
        tally_add(&t, fabs(plat[i]) > th && plat[i] * car[i] < 0);
    }
    out->rmse = n ? sqrt(se / (double)n) : NAN;
    out->corr = n > 1 ? pearson(car, plat, n) : NAN;
    out->false_cues = t.count;
    out->false_cue_s = (double)t.on * dt;
    /* the delay: the lag at which the platform's series best matches the car's */
    double best = -INFINITY;
    out->delay_s = NAN;
    size_t max_lag = (size_t)(SIM_MOTION_MAX_DELAY_S / dt + 0.5);
    for (size_t lag = 0; lag <= max_lag && lag + 2 < n; lag++) {
        double r = pearson(car, plat + lag, n - lag);
        if (!isnan(r) && r > best) best = r, out->delay_s = (double)lag * dt;
    }
}
