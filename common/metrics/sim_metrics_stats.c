/* sim_metrics_stats: mean and percentiles shared by the secondary-task measures
 * (sim_measures.h). Only finite values count, so callers can pass NAN for "none". */
#include "sim_measures.h"

#include <math.h>
#include <stdlib.h>

double sim_stats_mean(const double *v, size_t n)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            sum += v[i];
            k++;
        }
    return k ? sum / (double)k : NAN;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sim_stats_percentile(const double *v, size_t n, double p)
{
    double *c = n ? malloc(n * sizeof *c) : NULL;
    size_t k = 0;
    if (n && !c) return NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) c[k++] = v[i];
    double out = NAN;
    if (k) {
        qsort(c, k, sizeof *c, dbl_cmp);
        /* Rank on (k - 1): p = 0 is the smallest, p = 100 the largest value. */
        double r = fmin(fmax(p, 0.0), 100.0) / 100.0 * (double)(k - 1);
        size_t lo = (size_t)floor(r);
        size_t hi = lo + 1 < k ? lo + 1 : lo;
        out = c[lo] + (r - (double)lo) * (c[hi] - c[lo]);
    }
    free(c);
    return out;
}
