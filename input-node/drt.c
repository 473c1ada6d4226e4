/* drt: scripted DRT responses and the response message (see drt.h). */
#include "drt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_msg_task.h"
#include "sim_scenario.h"

int in_drt_open(in_drt *d, const char *scenario, bool scripted, sim_error *err)
{
    memset(d, 0, sizeof *d);
    sim_drt_config_init(&d->cfg);
    d->scripted = scripted;
    if (!scenario || !scripted) return 0;
    sim_scenario *sc;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    if (sc->drt) d->cfg = *sc->drt;
    sim_scenario_free(sc);
    return 0;
}

void in_drt_on_stimulus(in_drt *d, const cJSON *msg, double t)
{
    sim_msg_drt_stimulus s;
    sim_error err = {0};
    if (sim_msg_drt_stimulus_decode(msg, &s, &err)) {
        sim_throttle_say(&d->bad_output, stderr, "input-node", "drt.stimulus", sim_throttle_clock(), "ignoring %s", err.msg);
        return;
    }
    if (!strcmp(s.modality, "tactile")) d->tactile_on = s.on;
    if (!d->scripted || !d->cfg.enabled || isnan(t) || !s.on) return;
    double latency;
    if (!sim_drt_script_latency(&d->cfg, s.id, &latency)) {
        d->missed++;
        return;
    }
    if (d->n_due < IN_DRT_PENDING) d->due[d->n_due++] = t + latency;
}

bool in_drt_due(in_drt *d, double t)
{
    for (int i = 0; i < d->n_due; i++)
        if (t >= d->due[i]) {
            d->due[i] = d->due[--d->n_due];
            d->answered++;
            return true;
        }
    return false;
}

void in_drt_reset(in_drt *d)
{
    d->n_due = 0;
    d->tactile_on = false;
}

void in_drt_tactile(const in_drt *d, sim_ffb_effects *fx)
{
    if (!d->tactile_on || !(fx->scale > 0)) return;
    int16_t m = (int16_t)(0.6 * 32767 * fx->scale);
    if (m > fx->periodic_magnitude) {
        fx->periodic_magnitude = m;
        fx->periodic_period_ms = 25;
    }
}

cJSON *in_drt_response(const char *source)
{
    sim_msg_drt_response r;
    snprintf(r.source, sizeof r.source, "%s", source);
    return sim_msg_drt_response_encode(&r);
}
