/* sim_metrics_srr: steering wheel reversal rate (Markkula & Engstrom 2006; standardised in
 * SAE J2944_201506), following the authors' published MATLAB implementation
 * (gmarkkula/SteeringWheelReversalRate, metric_ReversalRate_VTEC.m):
 *   1. low-pass the angle with a 2nd-order Butterworth run forwards and backwards
 *      (MATLAB's filtfilt: zero phase, odd-reflected ends, steady-state start);
 *   2. stationary points: samples where the first difference changes sign from + to -
 *      or - to +, or is exactly 0 (the first sample always is one);
 *   3. upward reversals: walk the stationary points keeping a reference k; a point j
 *      more than gap above k is a reversal (k := j), a point at or below k becomes the
 *      reference; downward reversals are the upward ones of -theta;
 *   4. rate = (up + down) / ((n - 1) / fs) * 60 per minute. */
#include "sim_measures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAD 6 /* 3 * (filter length - 1), as MATLAB's filtfilt */

int sim_srr_butter2(double fs, double fc, double b[3], double a[3], sim_error *err)
{
    if (!(fs > 0 && fc > 0 && fc < fs / 2))
        return sim_error_set(err, SIM_EINVAL, "Butterworth filter: cut-off %g Hz must lie in "
                             "(0, %g) for sample rate %g Hz", fc, fs / 2, fs);
    /* Bilinear transform of 1 / (s^2 + sqrt(2) s + 1) with the cut-off pre-warped. */
    double k = tan(M_PI * fc / fs), k2 = k * k;
    double norm = 1.0 / (1.0 + M_SQRT2 * k + k2);
    b[0] = k2 * norm;
    b[1] = 2.0 * b[0];
    b[2] = b[0];
    a[0] = 1.0;
    a[1] = 2.0 * (k2 - 1.0) * norm;
    a[2] = (1.0 - M_SQRT2 * k + k2) * norm;
    return 0;
}

/* One direct-form II transposed pass over x (in place), states starting at zi * x[0]. */
static void pass(const double b[3], const double a[3], const double zi[2], double *x, size_t n,
                 int dir)
{
    size_t first = dir > 0 ? 0 : n - 1;
    double z1 = zi[0] * x[first], z2 = zi[1] * x[first];
    for (size_t c = 0; c < n; c++) {
        size_t i = dir > 0 ? c : n - 1 - c;
        double in = x[i], y = b[0] * in + z1;
        z1 = b[1] * in - a[1] * y + z2;
        z2 = b[2] * in - a[2] * y;
        x[i] = y;
    }
}

int sim_srr_filtfilt(const double b[3], const double a[3], const double *in, double *out,
                     size_t n, sim_error *err)
{
    if (n == 0) return 0;
    size_t pad = n > PAD ? PAD : 0, m = n + 2 * pad;
    double *x = malloc(m * sizeof *x);
    if (!x) return sim_error_set(err, SIM_ENOMEM, "filtfilt: out of memory for %zu samples", n);
    for (size_t i = 0; i < pad; i++) {
        x[i] = 2.0 * in[0] - in[pad - i];
        x[pad + n + i] = 2.0 * in[n - 1] - in[n - 2 - i];
    }
    memcpy(x + pad, in, n * sizeof *in);
    /* The states that a constant input would hold forever: the filter starts settled. */
    double zi[2];
    zi[0] = (b[1] + b[2] - (a[1] + a[2]) * b[0]) / (1.0 + a[1] + a[2]);
    zi[1] = b[2] - a[2] * b[0] - a[2] * zi[0];
    pass(b, a, zi, x, m, +1);
    pass(b, a, zi, x, m, -1);
    memmove(out, x + pad, n * sizeof *out);
    free(x);
    return 0;
}

static int sgn(double v) { return (v > 0) - (v < 0); }

/* Upward reversals of sign * y over the stationary points ext[0..ne). */
static size_t upward(const double *y, const size_t *ext, size_t ne, double sign, double gap)
{
    size_t count = 0, k = 0;
    for (size_t j = 0; j < ne; j++) {
        double rise = sign * y[ext[j]] - sign * y[ext[k]];
        if (rise > gap) {
            count++;
            k = j;
        } else if (rise <= 0) {
            k = j;
        }
    }
    return count;
}

int sim_srr_compute(const double *theta_deg, size_t n, double fs, double fc, double gap_deg,
                    sim_srr_result *res, sim_error *err)
{
    memset(res, 0, sizeof *res);
    res->rate = NAN;
    if (!(fs > 0) || !(gap_deg >= 0))
        return sim_error_set(err, SIM_EINVAL, "reversal rate: sample rate %g Hz and gap %g deg "
                             "must be positive", fs, gap_deg);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(theta_deg[i]))
            return sim_error_set(err, SIM_EINVAL, "reversal rate: steering angle at sample %zu "
                                 "is not a number", i);
    if (n < 2) return 0;
    res->duration = (double)(n - 1) / fs;
    double *y = malloc(n * sizeof *y);
    size_t *ext = malloc(n * sizeof *ext);
    if (!y || !ext) {
        free(y), free(ext);
        return sim_error_set(err, SIM_ENOMEM, "reversal rate: out of memory for %zu samples", n);
    }
    int ret = 0;
    if (fc > 0) {
        double b[3], a[3];
        if ((ret = sim_srr_butter2(fs, fc, b, a, err)) ||
            (ret = sim_srr_filtfilt(b, a, theta_deg, y, n, err))) {
            free(y), free(ext);
            return ret;
        }
    } else {
        memcpy(y, theta_deg, n * sizeof *y);
    }
    /* d[i] = y[i] - y[i-1], d[0] = 0; sample i < n-1 is stationary when d[i] and d[i+1]
     * have opposite signs or d[i] is 0. */
    size_t ne = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        double di = i ? y[i] - y[i - 1] : 0.0, dn = y[i + 1] - y[i];
        if (abs(sgn(di) - sgn(dn)) == 2 || di == 0) ext[ne++] = i;
    }
    res->up = upward(y, ext, ne, 1.0, gap_deg);
    res->down = upward(y, ext, ne, -1.0, gap_deg);
    res->reversals = res->up + res->down;
    res->rate = (double)res->reversals / res->duration * 60.0;
    free(y), free(ext);
    return 0;
}
