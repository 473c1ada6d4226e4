/* latency_calc: the self-test's figures (see latency_calc.h). */
#include "latency_calc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* nearest rank; sorts v */
static double quantile(double *v, int n, double q)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(q * n) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

void lat_evaluate(const lat_step *steps, size_t n_steps, const lat_frame *frames, size_t n_frames,
                  double settle_s, double limit_s, lat_result *out)
{
    memset(out, 0, sizeof *out);
    out->steps = (int)n_steps;
    out->frame_s = out->median_ms = out->p95_ms = out->p99_ms = out->chain_median_ms = NAN;
    out->max_disagreement_ms = NAN;
    for (int k = 0; k < 7; k++) out->stage_ms[k] = NAN;
    double *iv = malloc((n_frames + 1) * sizeof *iv);
    double *meas = malloc((n_steps + 1) * sizeof *meas), *own = malloc((n_steps + 1) * sizeof *own);
    double *st[7];
    for (int k = 0; k < 7; k++) st[k] = malloc((n_steps + 1) * sizeof *st[k]);
    bool ok = iv && meas && own;
    for (int k = 0; k < 7; k++) ok = ok && st[k];
    if (!ok) goto done;
    int ni = 0;
    for (size_t i = 1; i < n_frames; i++) iv[ni++] = frames[i].swap_end - frames[i - 1].swap_end;
    out->frame_s = quantile(iv, ni, 0.5);
    int m = 0, ns = 0;
    double worst = NAN;
    for (size_t s = 0; s < n_steps; s++) {
        const lat_step *p = &steps[s];
        double prev_off = s > 0 ? steps[s - 1].off : -INFINITY;
        bool seen_before = false;
        size_t first = n_frames;
        for (size_t i = 0; i < n_frames; i++) {
            const lat_frame *f = &frames[i];
            if (f->swap_end <= p->on - settle_s) seen_before = true;
            /* after the previous step's off has had time to show, and before this
             * step's input: a lit patch there would show an input before it happened */
            if (f->swap_end < p->on && f->swap_end > prev_off + limit_s && f->lit) out->causality_violations++;
            if (first == n_frames && f->swap_end >= p->on && f->swap_end <= p->off + limit_s && f->lit) first = i;
        }
        if (!seen_before || first == n_frames) continue;
        const lat_frame *f = &frames[first];
        double d = (f->swap_end - p->on) * 1e3;
        meas[m++] = d;
        if (isfinite(f->total_ms)) {
            own[ns] = f->total_ms;
            for (int k = 0; k < 7; k++) st[k][ns] = f->stage_ms[k];
            ns++;
            double dis = fabs(d - f->total_ms);
            if (!(worst >= dis)) worst = dis;
            /* one frame: the frame in flight when the input came (a frame drawn longer
             * holds the input back longer), this one, or the median interval */
            double slot = first > 0 ? f->swap_end - frames[first - 1].swap_end : 0;
            if (first > 1 && frames[first - 1].swap_end - frames[first - 2].swap_end > slot)
                slot = frames[first - 1].swap_end - frames[first - 2].swap_end;
            if (isfinite(out->frame_s) && slot < out->frame_s) slot = out->frame_s;
            if (dis > slot * 1e3) out->disagreements++;
        }
    }
    out->measured = m;
    out->max_disagreement_ms = worst;
    double *c = malloc((size_t)(m + 1) * sizeof *c);
    if (c) {
        memcpy(c, meas, (size_t)m * sizeof *c);
        out->median_ms = quantile(c, m, 0.5);
        memcpy(c, meas, (size_t)m * sizeof *c);
        out->p95_ms = quantile(c, m, 0.95);
        memcpy(c, meas, (size_t)m * sizeof *c);
        out->p99_ms = quantile(c, m, 0.99);
        free(c);
    }
    out->chain_median_ms = quantile(own, ns, 0.5);
    for (int k = 0; k < 7; k++) out->stage_ms[k] = quantile(st[k], ns, 0.5);
done:
    free(iv);
    free(meas);
    free(own);
    for (int k = 0; k < 7; k++) free(st[k]);
}
