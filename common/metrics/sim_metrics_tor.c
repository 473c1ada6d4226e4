/* sim_metrics_tor: take-over measures (see sim_metrics_tor.h). */
#include "sim_metrics_tor.h"

#include <math.h>
#include <string.h>

static double at(const double *col, size_t i)
{
    return col ? col[i] : NAN;
}

int sim_metrics_tor(const sim_tor_samples *smp, const sim_tor_events *ev, sim_tor_result *r, sim_error *err)
{
    memset(r, 0, sizeof *r);
    if (!smp->t || !isfinite(ev->t_tor) || !isfinite(ev->t_end) || ev->t_end < ev->t_tor)
        return sim_error_set(err, SIM_EINVAL, "tor: expected samples with t and a TOR window t_tor <= t_end");
    const double *t = smp->t;
    size_t n = smp->n, i0 = 0;
    while (i0 < n && t[i0] < ev->t_tor - 1e-9) i0++;
    size_t i1 = i0;
    while (i1 < n && t[i1] <= ev->t_end + 1e-9) i1++;
    r->i0 = i0, r->i1 = i1;

    r->takeover_time = isfinite(ev->takeover_s) ? ev->takeover_s
                       : isfinite(ev->t_handover) ? ev->t_handover - ev->t_tor : NAN;
    r->hands_on_time = !ev->hands_on_mapped ? NAN : ev->hands_on_at_tor ? 0.0
                       : isfinite(ev->t_hands_on) ? ev->t_hands_on - ev->t_tor : NAN;
    r->mrm = isfinite(ev->t_mrm);
    r->mrm_stopped = isfinite(ev->t_mrm_stopped);
    r->lane_change_time = r->brake_time = r->manoeuvre_time = NAN;
    r->max_lat_accel = r->max_long_accel = r->min_long_accel = r->min_ttc = r->min_thw = NAN;

    double lane0 = i0 < n ? at(smp->lane, i0) : NAN;
    sim_metrics_samples ms = {.n = n, .t = t, .headway = smp->headway};
    for (size_t i = i0; i < i1; i++) {
        double lane = at(smp->lane, i);
        if (isnan(r->lane_change_time) && isfinite(lane0) && isfinite(lane) && lane != lane0)
            r->lane_change_time = t[i] - ev->t_tor;
        /* Before the hand-over the brake is the automation's, not the driver's. */
        if (isnan(r->brake_time) && isfinite(ev->t_handover) && t[i] >= ev->t_handover - 1e-9 &&
            at(smp->brake, i) > SIM_TOR_BRAKE)
            r->brake_time = t[i] - ev->t_tor;
        double v = at(smp->speed, i), lat = fabs(at(smp->yaw_rate, i) * v), a = at(smp->accel, i);
        if (isfinite(lat) && !(lat <= r->max_lat_accel)) r->max_lat_accel = lat;
        if (isfinite(a)) {
            if (!(fabs(a) <= r->max_long_accel)) r->max_long_accel = fabs(a);
            if (!(a >= r->min_long_accel)) r->min_long_accel = a;
        }
        double h = at(smp->headway, i);
        if (!isfinite(h)) continue;
        if (isfinite(v) && v > 0 && !(h / v >= r->min_thw)) r->min_thw = h / v;
        double num, den;
        sim_metrics_closing(&ms, i, &num, &den);
        if (isfinite(num) && num > 0 && !(h * den / num >= r->min_ttc)) r->min_ttc = h * den / num;
    }
    r->manoeuvre_time = fmin(r->lane_change_time, r->brake_time); /* fmin ignores a NAN */
    return SIM_OK;
}
