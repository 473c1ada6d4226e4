/* sim_metrics_drt: the Detection Response Task's measures (ISO 17488:2016).
 *
 * Each response belongs to the latest stimulus whose onset is at or before it. Measured
 * from that onset, a response sooner than rt_min (100 ms) is early (too fast to be a
 * reaction to the stimulus), one within [rt_min, rt_max] (100..2500 ms) is the
 * stimulus's hit when it has none yet, anything else (a second response, one later than
 * rt_max, one before the first stimulus) is extra. A stimulus without a hit is a miss.
 * An early response does not use up the stimulus: a valid response after it still hits. */
#include "sim_measures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const modality_names[SIM_DRT_NMODALITIES] = {"visual", "tactile", "auditory"};

const char *sim_drt_modality_name(int modality)
{
    return modality >= 0 && modality < SIM_DRT_NMODALITIES ? modality_names[modality] : NULL;
}

int sim_drt_modality_parse(const char *name)
{
    for (int m = 0; name && m < SIM_DRT_NMODALITIES; m++)
        if (!strcmp(name, modality_names[m])) return m;
    return -1;
}

void sim_drt_params_init(sim_drt_params *p)
{
    p->rt_min = 0.100;
    p->rt_max = 2.500;
}

void sim_drt_result_free(sim_drt_result *res)
{
    free(res->outcome);
    free(res->rt);
    memset(res, 0, sizeof *res);
}

/* Counts and response-time statistics of the stimuli whose modality is m (-1: all). */
static void summarize(const sim_drt_stimulus *stim, const sim_drt_result *res,
                      const size_t *early, const size_t *extra, int m, double *scratch,
                      sim_drt_summary *s)
{
    memset(s, 0, sizeof *s);
    size_t k = 0;
    for (size_t i = 0; i < res->n; i++) {
        if (m >= 0 && stim[i].modality != m) continue;
        s->stimuli++;
        s->early += early[i];
        s->extra += extra[i];
        if (res->outcome[i] == SIM_DRT_HIT) {
            s->hits++;
            scratch[k++] = res->rt[i];
        } else {
            s->misses++;
        }
    }
    s->hit_rate = s->stimuli ? (double)s->hits / (double)s->stimuli : NAN;
    s->rt_mean = sim_stats_mean(scratch, k);
    s->rt_median = sim_stats_percentile(scratch, k, 50);
}

int sim_drt_compute(const sim_drt_stimulus *stim, size_t n_stim, const double *responses,
                    size_t n_resp, const sim_drt_params *p, sim_drt_result *res,
                    sim_error *err)
{
    memset(res, 0, sizeof *res);
    if (!(p->rt_min >= 0 && p->rt_max > p->rt_min))
        return sim_error_set(err, SIM_EINVAL, "DRT window: need 0 <= rt_min < rt_max, got %g..%g s",
                             p->rt_min, p->rt_max);
    for (size_t i = 0; i < n_stim; i++) {
        if (!isfinite(stim[i].t) || (i && stim[i].t < stim[i - 1].t))
            return sim_error_set(err, SIM_EINVAL, "DRT stimulus %zu: onset %g s is not finite or "
                                 "before the previous one", i, stim[i].t);
        if (!sim_drt_modality_name(stim[i].modality))
            return sim_error_set(err, SIM_EINVAL, "DRT stimulus %zu: modality %d is not one of "
                                 "visual, tactile, auditory", i, stim[i].modality);
    }
    for (size_t j = 0; j < n_resp; j++)
        if (!isfinite(responses[j]) || (j && responses[j] < responses[j - 1]))
            return sim_error_set(err, SIM_EINVAL, "DRT response %zu: time %g s is not finite or "
                                 "before the previous one", j, responses[j]);

    size_t alloc = n_stim ? n_stim : 1;
    res->outcome = malloc(alloc * sizeof *res->outcome);
    res->rt = malloc(alloc * sizeof *res->rt);
    size_t *early = calloc(alloc, sizeof *early), *extra = calloc(alloc, sizeof *extra);
    double *scratch = malloc(alloc * sizeof *scratch);
    if (!res->outcome || !res->rt || !early || !extra || !scratch) {
        free(early), free(extra), free(scratch);
        sim_drt_result_free(res);
        return sim_error_set(err, SIM_ENOMEM, "DRT: out of memory for %zu stimuli", n_stim);
    }
    res->n = n_stim;
    for (size_t i = 0; i < n_stim; i++) {
        res->outcome[i] = SIM_DRT_MISS;
        res->rt[i] = NAN;
    }
    size_t before_first = 0, i = 0;
    for (size_t j = 0; j < n_resp; j++) {
        double r = responses[j];
        while (i < n_stim && stim[i].t <= r) i++;
        if (i == 0) { /* before the first stimulus */
            before_first++;
            continue;
        }
        size_t k = i - 1;
        double dt = r - stim[k].t;
        if (dt < p->rt_min)
            early[k]++;
        else if (dt <= p->rt_max && res->outcome[k] == SIM_DRT_MISS) {
            res->outcome[k] = SIM_DRT_HIT;
            res->rt[k] = dt;
        } else
            extra[k]++;
    }
    summarize(stim, res, early, extra, -1, scratch, &res->all);
    res->all.extra += before_first;
    for (int m = 0; m < SIM_DRT_NMODALITIES; m++)
        summarize(stim, res, early, extra, m, scratch, &res->by_modality[m]);
    free(early), free(extra), free(scratch);
    return 0;
}
