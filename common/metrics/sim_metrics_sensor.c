/* sim_metrics_sensor: summary of a lab sensor channel (sensor.<name> values, ECG, EDA,
 * heart rate...) inside a task's time span, for the analysis' sensors.csv and
 * metrics.json (docs/instruments.md). Welford's running mean and sum of squares, so a
 * channel with a large offset (a skin conductance of 1e4 uS +- 0.1) keeps its SD. */
#include "sim_measures.h"

#include <math.h>

void sim_sensor_stats_window(const sim_sensor_value *v, size_t n, double t0, double t1,
                             sim_sensor_stats *out)
{
    double mean = 0, m2 = 0, lo = INFINITY, hi = -INFINITY;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].t >= t0 && v[i].t <= t1) || !isfinite(v[i].value)) continue;
        double x = v[i].value, d = x - mean;
        k++;
        mean += d / (double)k;
        m2 += d * (x - mean);
        if (x < lo) lo = x;
        if (x > hi) hi = x;
    }
    out->count = k;
    out->mean = k ? mean : NAN;
    out->sd = k > 1 ? sqrt(m2 / (double)(k - 1)) : NAN;
    out->min = k ? lo : NAN;
    out->max = k ? hi : NAN;
}
