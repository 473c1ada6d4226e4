/* sim_metrics_lct: the Lane Change Test's adaptive reference model (ISO 26022:2010,
 * annex on the adaptive model; Mattes & Hallén 2009). The normative ideal path changes
 * lane along a fixed ramp; the adaptive one follows the participant's own mean lane
 * change, taken from a baseline drive without a secondary task, so that MDEV measures
 * what the secondary task adds rather than the driver's style. A change is a ramp of
 * the normative ideal path (consecutive points with different d); x is measured from
 * the ramp's start. */
#include "sim_measures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAME_D 1e-9

/* d at s by linear interpolation over the samples (s ascending; *k a cursor). */
static double d_at(const double *s, const double *d, size_t n, double at, size_t *k)
{
    while (*k + 1 < n && s[*k + 1] < at) (*k)++;
    if (at < s[0] || at > s[n - 1] || *k + 1 >= n) return NAN;
    double a = s[*k], b = s[*k + 1];
    return b > a ? d[*k] + (d[*k + 1] - d[*k]) * (at - a) / (b - a) : d[*k];
}

int sim_lct_profile_make(const double *s, const double *d, size_t n, const sim_metrics_point *ideal,
                         size_t n_ideal, sim_lct_profile *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    out->x0 = -20;
    out->dx = 1;
    if (n < 2) return sim_error_set(err, SIM_EINVAL, "LCT baseline: %zu samples, too few", n);
    /* s as its running maximum, so that the interpolation sees an ascending axis. */
    double *sm = malloc(n * sizeof *sm);
    if (!sm) return sim_error_set(err, SIM_ENOMEM, "LCT baseline: out of memory");
    for (size_t i = 0; i < n; i++) sm[i] = i && sm[i - 1] > s[i] ? sm[i - 1] : s[i];
    double sum[SIM_LCT_PROFILE_N] = {0};
    size_t k = 0;
    for (size_t p = 0; p + 1 < n_ideal; p++) {
        double from = ideal[p].d, to = ideal[p + 1].d;
        if (fabs(to - from) <= SAME_D) continue;
        double s0 = ideal[p].s, f[SIM_LCT_PROFILE_N];
        bool whole = true;
        for (int j = 0; j < SIM_LCT_PROFILE_N && whole; j++) {
            double v = d_at(sm, d, n, s0 + out->x0 + j * out->dx, &k);
            whole = isfinite(v);
            f[j] = (v - from) / (to - from);
        }
        k = 0;
        if (!whole) continue; /* the drive does not cover this change */
        for (int j = 0; j < SIM_LCT_PROFILE_N; j++) sum[j] += f[j];
        out->n_changes++;
    }
    /* Lane keeping: samples more than 20 m before and 80 m after any change. */
    double off = 0;
    size_t m = 0, cur = 0;
    for (size_t i = 0; i < n; i++) {
        bool keeping = true;
        for (size_t p = 0; p + 1 < n_ideal && keeping; p++)
            if (fabs(ideal[p + 1].d - ideal[p].d) > SAME_D && sm[i] > ideal[p].s - 20 && sm[i] < ideal[p].s + 80)
                keeping = false;
        if (!keeping || !isfinite(d[i])) continue;
        off += d[i] - sim_metrics_ideal_at(ideal, n_ideal, sm[i], &cur);
        m++;
    }
    free(sm);
    if (!out->n_changes)
        return sim_error_set(err, SIM_EINVAL, "LCT baseline: the drive covers no lane change of its track "
                             "from 20 m before to 80 m after its start");
    for (int j = 0; j < SIM_LCT_PROFILE_N; j++) out->shape[j] = sum[j] / (double)out->n_changes;
    out->lane_offset = m ? off / (double)m : 0;
    return 0;
}

int sim_lct_adaptive_path(const sim_lct_profile *pr, const sim_metrics_point *ideal, size_t n_ideal,
                          sim_metrics_point **out, size_t *n_out, sim_error *err)
{
    size_t cap = n_ideal * (SIM_LCT_PROFILE_N + 2) + 2, n = 0;
    sim_metrics_point *pts = malloc(cap * sizeof *pts);
    if (!pts) return sim_error_set(err, SIM_ENOMEM, "LCT adaptive path: out of memory");
    if (n_ideal) pts[n++] = (sim_metrics_point){ideal[0].s, ideal[0].d + pr->lane_offset};
    for (size_t p = 0; p + 1 < n_ideal; p++) {
        double from = ideal[p].d, to = ideal[p + 1].d;
        bool next_ramp = p + 2 < n_ideal && fabs(ideal[p + 2].d - ideal[p + 1].d) > SAME_D;
        if (fabs(to - from) <= SAME_D) {
            /* a kept lane ends where the next change's window begins */
            double end = ideal[p + 1].s + (next_ramp ? pr->x0 : 0);
            if (!n || end > pts[n - 1].s) pts[n++] = (sim_metrics_point){end, to + pr->lane_offset};
            continue;
        }
        /* The profile's window, cut where it would reach into a neighbouring change. */
        double lo = p > 0 ? ideal[p - 1].s : -INFINITY;
        double hi = p + 3 < n_ideal && fabs(ideal[p + 3].d - ideal[p + 2].d) > SAME_D ? ideal[p + 2].s + pr->x0
                    : p + 2 < n_ideal                                                 ? ideal[p + 2].s
                                                                                      : INFINITY;
        for (int j = 0; j < SIM_LCT_PROFILE_N; j++) {
            double x = ideal[p].s + pr->x0 + j * pr->dx;
            if (x <= lo || x >= hi || (n && x <= pts[n - 1].s)) continue;
            pts[n++] = (sim_metrics_point){x, from + pr->shape[j] * (to - from) + pr->lane_offset};
        }
    }
    *out = pts;
    *n_out = n;
    return 0;
}
