/* sim_metrics_glance: glances from gaze samples (ISO 15007:2020 definitions; NHTSA
 * visual-manual distraction guidelines, 2013, for the off-road criteria).
 *
 * A sample covers [t_i, t_i+1). A dwell is a run of valid samples in one area; invalid
 * samples or samples in no area (a transition) between two dwells on the same area are
 * bridged when they last no longer than max_gap (a blink does not end a glance). A
 * glance to an area lasts from the end of the previous dwell (so it includes the
 * transition towards the area) to the end of its own dwell. Where the stretch between
 * two dwells holds more than max_gap of invalid data, the glance starts after the last
 * invalid sample and the time before it is lost (assigned to no glance). */
#include "sim_measures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_glance_params_init(sim_glance_params *p)
{
    p->road_area = 0;
    p->max_gap = 0.3;
    p->long_glance = 2.0;
    p->nhtsa_p85 = 2.0;
    p->nhtsa_total = 12.0;
}

int sim_glance_aoi_find(const sim_glance_aoi *aoi, size_t n, double yaw, double pitch)
{
    for (size_t i = 0; i < n; i++)
        if (yaw >= aoi[i].yaw_min && yaw <= aoi[i].yaw_max && pitch >= aoi[i].pitch_min &&
            pitch <= aoi[i].pitch_max)
            return (int)i;
    return -1;
}

void sim_glance_result_free(sim_glance_result *res)
{
    free(res->glances);
    memset(res, 0, sizeof *res);
}

static bool in_dwell(const sim_gaze_sample *s) { return s->valid && s->area >= 0; }

/* End of sample i: the next sample's time (the last sample ends where it starts). */
static double sample_end(const sim_gaze_sample *s, size_t n, size_t i)
{
    return i + 1 < n ? s[i + 1].t : s[i].t;
}

int sim_glance_compute(const sim_gaze_sample *smp, size_t n, size_t n_areas,
                       const sim_glance_params *p, sim_glance_result *res, sim_error *err)
{
    memset(res, 0, sizeof *res);
    res->off_road_p85 = res->off_road_mean = res->long_share = NAN;
    if (n_areas > SIM_GLANCE_AOI_MAX)
        return sim_error_set(err, SIM_EINVAL, "glances: %zu areas of interest, at most %d",
                             n_areas, SIM_GLANCE_AOI_MAX);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(smp[i].t) || (i && smp[i].t < smp[i - 1].t))
            return sim_error_set(err, SIM_EINVAL, "gaze sample %zu: time %g s is not finite or "
                                 "before the previous sample's", i, smp[i].t);
        if (smp[i].valid && smp[i].area >= (int)n_areas)
            return sim_error_set(err, SIM_EINVAL, "gaze sample %zu: area %d, only %zu areas",
                                 i, smp[i].area, n_areas);
    }
    res->n_areas = n_areas;
    res->glances = malloc((n ? n : 1) * sizeof *res->glances);
    if (!res->glances) return sim_error_set(err, SIM_ENOMEM, "glances: out of memory");

    size_t prev_last = 0; /* last sample of the previous dwell */
    bool have_prev = false;
    size_t i = 0;
    while (i < n) {
        if (!in_dwell(&smp[i])) {
            i++;
            continue;
        }
        /* A dwell starting at i: extend it over bridged gaps. */
        size_t first = i, last = i;
        for (size_t j = i + 1; j < n; j++) {
            if (!in_dwell(&smp[j])) continue;
            if (smp[j].area != smp[first].area) break;
            if (smp[j].t - sample_end(smp, n, last) > p->max_gap) break;
            last = j;
        }
        /* The stretch before the dwell: from the previous dwell's end (or the first
         * sample) to this dwell's first sample. */
        size_t from = have_prev ? prev_last + 1 : 0;
        double start = have_prev ? sample_end(smp, n, prev_last) : smp[0].t;
        double invalid = 0, after_invalid = start;
        for (size_t j = from; j < first; j++)
            if (!smp[j].valid) {
                invalid += sample_end(smp, n, j) - smp[j].t;
                after_invalid = sample_end(smp, n, j);
            }
        if (invalid > p->max_gap) {
            res->lost += after_invalid - start;
            start = after_invalid;
        }
        sim_glance *g = &res->glances[res->n++];
        g->area = smp[first].area;
        g->t_start = start;
        g->t_dwell = smp[first].t;
        g->t_end = sample_end(smp, n, last);
        g->duration = g->t_end - g->t_start;
        have_prev = true;
        prev_last = last;
        i = last + 1;
    }

    double *off = malloc((res->n ? res->n : 1) * sizeof *off);
    if (!off) {
        sim_glance_result_free(res);
        return sim_error_set(err, SIM_ENOMEM, "glances: out of memory");
    }
    for (size_t k = 0; k < res->n; k++) {
        const sim_glance *g = &res->glances[k];
        sim_glance_area_summary *a = &res->area[g->area];
        a->count++;
        a->total += g->duration;
        if (g->duration > a->max) a->max = g->duration;
        if (g->area == p->road_area) continue;
        off[res->off_road_count++] = g->duration;
        res->eyes_off_road += g->duration;
        if (g->duration > p->long_glance) res->long_glances++;
    }
    for (size_t a = 0; a < n_areas; a++)
        res->area[a].mean = res->area[a].count ? res->area[a].total / (double)res->area[a].count : NAN;
    if (res->off_road_count) {
        res->off_road_p85 = sim_stats_percentile(off, res->off_road_count, 85);
        res->off_road_mean = res->eyes_off_road / (double)res->off_road_count;
        res->long_share = (double)res->long_glances / (double)res->off_road_count;
    }
    res->nhtsa_pass = !res->off_road_count ||
                      (res->off_road_p85 <= p->nhtsa_p85 && res->eyes_off_road <= p->nhtsa_total);
    free(off);
    return 0;
}
