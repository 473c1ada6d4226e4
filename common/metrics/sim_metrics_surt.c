/* sim_metrics_surt: Surrogate Reference Task responses (ISO/TS 14198), as the console's
 * SuRT page publishes them (surt.response): count, correct rate, time per response. */
#include "sim_measures.h"

#include <math.h>
#include <stdlib.h>

void sim_surt_compute(const sim_surt_response *r, size_t n, sim_surt_summary *sum)
{
    sum->responses = n;
    sum->correct = 0;
    double *rt = n ? malloc(n * sizeof *rt) : NULL;
    double first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (r[i].correct) sum->correct++;
        if (rt) rt[i] = r[i].rt;
        /* The first trial was displayed rt before its response. */
        double shown = r[i].t - (isfinite(r[i].rt) ? r[i].rt : 0);
        if (shown < first) first = shown;
        if (r[i].t > last) last = r[i].t;
    }
    sum->correct_rate = n ? (double)sum->correct / (double)n : NAN;
    sum->rt_mean = rt ? sim_stats_mean(rt, n) : NAN;
    sum->rt_median = rt ? sim_stats_percentile(rt, n, 50) : NAN;
    sum->rate = n && last > first ? (double)n / (last - first) * 60.0 : NAN;
    free(rt);
}
