/* lights: traffic lights in the traffic node (lights.h). */
#include "lights.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg.h"
#include "sim_msg_signal.h"

int tn_lights_start(tn_world *w, sim_error *err)
{
    sim_lights_run_free(&w->lights);
    int rc = sim_lights_run_init(&w->lights, &w->sc->net.lights, err);
    if (rc) return rc;
    sim_traffic_set_lights(&w->t, w->su.stops, w->su.n_stops, w->lights.state);
    return SIM_OK;
}

void tn_lights_stop(tn_world *w)
{
    sim_lights_run_free(&w->lights);
}

int tn_lights_update(tn_world *w, double t)
{
    return sim_lights_update(&w->sc->net.lights, &w->lights, t);
}

int tn_lights_reupdate(tn_world *w, double t)
{
    sim_lights_run *R = &w->lights;
    bool *before = malloc((size_t)R->n_heads + 1);
    if (before) memcpy(before, R->changed, (size_t)R->n_heads * sizeof *before);
    int n = sim_lights_update(&w->sc->net.lights, R, t);
    for (int h = 0; before && h < R->n_heads; h++)
        if (before[h] && !R->changed[h]) {
            R->changed[h] = true;
            n++;
        }
    free(before);
    return n;
}

cJSON *tn_lights_state_payload(const tn_world *w, int h, double t)
{
    const sim_lights *L = &w->sc->net.lights;
    const sim_light_head *hd = &L->heads[h];
    sim_msg_signal_state m = {.phase = SIM_MSG_NO_INT};
    snprintf(m.id, sizeof m.id, "%s", hd->id);
    snprintf(m.state, sizeof m.state, "%s", sim_light_state_name(w->lights.state[h]));
    if (hd->controller >= 0) {
        snprintf(m.controller, sizeof m.controller, "%s", L->ctls[hd->controller].id);
        if (w->lights.hold[h] == SIM_SIGNAL_AUTO)
            m.phase = sim_lights_phase_at(L, &w->lights, hd->controller, t);
    }
    return sim_msg_signal_state_encode(&m);
}

cJSON *tn_lights_red_run_payload(tn_world *w)
{
    int h = w->t.ego_ran_red;
    if (h < 0) return NULL;
    w->t.ego_ran_red = -1;
    const sim_light_head *hd = &w->sc->net.lights.heads[h];
    sim_msg_signal_red_run m = {.speed = w->t.ego_ran_red_speed};
    snprintf(m.head, sizeof m.head, "%s", hd->id);
    snprintf(m.road, sizeof m.road, "%s", hd->road >= 0 ? w->sc->net.roads[hd->road].id : "");
    return sim_msg_signal_red_run_encode(&m);
}

int tn_lights_command(tn_world *w, const cJSON *msg, double t, sim_error *err)
{
    const sim_lights *L = &w->sc->net.lights;
    const cJSON *head = cJSON_GetObjectItemCaseSensitive(msg, "head");
    if (cJSON_IsString(head)) {
        int h = sim_lights_find_head(L, head->valuestring);
        if (h < 0)
            return sim_error_set(err, SIM_ENOTFOUND, "signal: no head \"%.64s\" (the scenario has %d)", head->valuestring,
                                 L->n_heads);
        const char *name = cJSON_GetObjectItemCaseSensitive(msg, "state")->valuestring;
        int s = strcmp(name, "auto") == 0 ? SIM_SIGNAL_AUTO : sim_light_state_parse(name);
        if (s == -1 && strcmp(name, "auto") != 0)
            return sim_error_set(err, SIM_EINVAL, "signal: state \"%.32s\", expected off, red, red_amber, amber, green, "
                                 "flashing_amber or auto", name);
        if (s == SIM_SIGNAL_AUTO && L->heads[h].controller < 0)
            return sim_error_set(err, SIM_EINVAL, "signal: head \"%s\" has no controller to go back to; set a state",
                                 L->heads[h].id);
        return sim_lights_set_head(&w->lights, h, s);
    }
    const char *id = cJSON_GetObjectItemCaseSensitive(msg, "controller")->valuestring;
    int c = sim_lights_find_controller(L, id);
    if (c < 0)
        return sim_error_set(err, SIM_ENOTFOUND, "signal: no controller \"%.64s\" (the scenario has %d)", id, L->n_ctls);
    int p = (int)cJSON_GetObjectItemCaseSensitive(msg, "phase")->valuedouble;
    if (p >= L->ctls[c].n_phases)
        return sim_error_set(err, SIM_EINVAL, "signal: controller \"%s\" has phases 0 to %d, not %d", id,
                             L->ctls[c].n_phases - 1, p);
    return sim_lights_set_phase(L, &w->lights, c, p, t);
}

size_t tn_lights_snapshot_size(const tn_world *w)
{
    const sim_lights_run *R = &w->lights;
    return 2 * sizeof(int32_t) + (size_t)R->n_heads * sizeof(int32_t) + (size_t)R->n_ctls * sizeof(double);
}

void tn_lights_snapshot_write(const tn_world *w, unsigned char *buf)
{
    const sim_lights_run *R = &w->lights;
    int32_t counts[2] = {R->n_heads, R->n_ctls};
    memcpy(buf, counts, sizeof counts);
    buf += sizeof counts;
    for (int h = 0; h < R->n_heads; h++, buf += sizeof(int32_t)) {
        int32_t v = R->hold[h];
        memcpy(buf, &v, sizeof v);
    }
    for (int c = 0; c < R->n_ctls; c++, buf += sizeof(double))
        memcpy(buf, &R->t0[c], sizeof(double));
}

int tn_lights_snapshot_read(tn_world *w, const unsigned char *buf, size_t len, sim_error *err)
{
    sim_lights_run *R = &w->lights;
    int32_t counts[2];
    if (len < sizeof counts)
        return sim_error_set(err, SIM_EINVAL, "the lights' part is cut short (%zu bytes)", len);
    memcpy(counts, buf, sizeof counts);
    if (counts[0] != R->n_heads || counts[1] != R->n_ctls || len != tn_lights_snapshot_size(w))
        return sim_error_set(err, SIM_EINVAL, "the lights' part has %d heads and %d controllers, the scenario %d and %d",
                             (int)counts[0], (int)counts[1], R->n_heads, R->n_ctls);
    const unsigned char *p = buf + sizeof counts;
    for (int h = 0; h < R->n_heads; h++) {
        int32_t v;
        memcpy(&v, p + (size_t)h * sizeof v, sizeof v);
        if (v != SIM_SIGNAL_AUTO && (v < 0 || v >= SIM_SIGNAL_STATE_COUNT))
            return sim_error_set(err, SIM_EINVAL, "the lights' part holds head %d in state %d", h, (int)v);
    }
    for (int h = 0; h < R->n_heads; h++, p += sizeof(int32_t)) {
        int32_t v;
        memcpy(&v, p, sizeof v);
        R->hold[h] = v;
    }
    for (int c = 0; c < R->n_ctls; c++, p += sizeof(double))
        memcpy(&R->t0[c], p, sizeof(double));
    return SIM_OK;
}
