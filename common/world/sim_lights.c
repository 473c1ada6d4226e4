/* sim_lights.c - traffic-light heads, fixed-time controllers and their states
 * (sim_lights.h). */
#include "sim_lights.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[SIM_SIGNAL_STATE_COUNT] = {
    [SIM_SIGNAL_OFF] = "off",     [SIM_SIGNAL_RED] = "red",     [SIM_SIGNAL_RED_AMBER] = "red_amber",
    [SIM_SIGNAL_AMBER] = "amber", [SIM_SIGNAL_GREEN] = "green", [SIM_SIGNAL_FLASHING_AMBER] = "flashing_amber",
};

const char *sim_light_state_name(sim_light_state s)
{
    return (unsigned)s < SIM_SIGNAL_STATE_COUNT ? state_names[s] : "unknown";
}

int sim_light_state_parse(const char *name)
{
    for (int i = 0; name && i < SIM_SIGNAL_STATE_COUNT; i++)
        if (strcmp(state_names[i], name) == 0) return i;
    return -1;
}

bool sim_light_state_stops(sim_light_state s)
{
    return s == SIM_SIGNAL_RED || s == SIM_SIGNAL_RED_AMBER || s == SIM_SIGNAL_AMBER;
}

void sim_lights_free(sim_lights *L)
{
    for (int i = 0; i < L->n_heads; i++) free(L->heads[i].id);
    for (int c = 0; c < L->n_ctls; c++) {
        sim_light_controller *k = &L->ctls[c];
        for (int p = 0; p < k->n_phases; p++) free(k->phases[p].states);
        free(k->phases);
        free(k->heads);
        free(k->id);
    }
    for (int g = 0; g < L->n_groups; g++) {
        free(L->groups[g].id);
        free(L->groups[g].heads);
    }
    free(L->groups);
    free(L->heads);
    free(L->ctls);
    memset(L, 0, sizeof *L);
}

int sim_lights_find_head(const sim_lights *L, const char *id)
{
    for (int i = 0; id && i < L->n_heads; i++)
        if (strcmp(L->heads[i].id, id) == 0) return i;
    return -1;
}

int sim_lights_find_controller(const sim_lights *L, const char *id)
{
    for (int i = 0; id && i < L->n_ctls; i++)
        if (strcmp(L->ctls[i].id, id) == 0) return i;
    return -1;
}

int sim_lights_add_head(sim_lights *L, const sim_light_head *h, sim_error *err)
{
    if (!h->id || !h->id[0]) return sim_error_set(err, SIM_EINVAL, "traffic light head without an id");
    if (sim_lights_find_head(L, h->id) >= 0)
        return sim_error_set(err, SIM_EINVAL, "traffic light head \"%s\" again, expected unique ids", h->id);
    if (L->n_heads == L->cap_heads) {
        int cap = L->cap_heads ? 2 * L->cap_heads : 8;
        sim_light_head *heads = realloc(L->heads, (size_t)cap * sizeof *heads);
        if (!heads) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        L->heads = heads;
        L->cap_heads = cap;
    }
    char *id = strdup(h->id);
    if (!id) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    sim_light_head *d = &L->heads[L->n_heads];
    *d = *h;
    d->id = id;
    d->controller = -1;
    return L->n_heads++;
}

int sim_lights_add_controller(sim_lights *L, const char *id, const int *heads, int n_heads,
                              const double *durations, const sim_light_state *states, int n_phases,
                              double offset, sim_error *err)
{
    if (!id || !id[0]) return sim_error_set(err, SIM_EINVAL, "traffic light controller without an id");
    if (sim_lights_find_controller(L, id) >= 0)
        return sim_error_set(err, SIM_EINVAL, "traffic light controller \"%s\" again, expected unique ids", id);
    if (n_heads < 1) return sim_error_set(err, SIM_EINVAL, "controller \"%s\" has no heads, expected at least one", id);
    if (n_phases < 1)
        return sim_error_set(err, SIM_EINVAL, "controller \"%s\" has no phases, expected at least one", id);
    if (!isfinite(offset)) return sim_error_set(err, SIM_EINVAL, "controller \"%s\": offset is not finite", id);
    for (int i = 0; i < n_heads; i++) {
        if (heads[i] < 0 || heads[i] >= L->n_heads)
            return sim_error_set(err, SIM_EINVAL, "controller \"%s\": head %d out of range", id, heads[i]);
        if (L->heads[heads[i]].controller >= 0)
            return sim_error_set(err, SIM_EINVAL, "controller \"%s\": head \"%s\" belongs to controller \"%s\" already",
                                 id, L->heads[heads[i]].id, L->ctls[L->heads[heads[i]].controller].id);
        for (int j = 0; j < i; j++)
            if (heads[j] == heads[i])
                return sim_error_set(err, SIM_EINVAL, "controller \"%s\": head \"%s\" twice", id, L->heads[heads[i]].id);
    }
    for (int p = 0; p < n_phases; p++) {
        if (!(durations[p] > 0) || !isfinite(durations[p]))
            return sim_error_set(err, SIM_EINVAL, "controller \"%s\": phase %d lasts %g s, expected > 0", id, p,
                                 durations[p]);
        for (int i = 0; i < n_heads; i++)
            if ((unsigned)states[p * n_heads + i] >= SIM_SIGNAL_STATE_COUNT)
                return sim_error_set(err, SIM_EINVAL, "controller \"%s\": phase %d has an unknown state", id, p);
    }
    if (L->n_ctls == L->cap_ctls) {
        int cap = L->cap_ctls ? 2 * L->cap_ctls : 4;
        sim_light_controller *ctls = realloc(L->ctls, (size_t)cap * sizeof *ctls);
        if (!ctls) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        L->ctls = ctls;
        L->cap_ctls = cap;
    }
    sim_light_controller k = {.id = strdup(id), .heads = malloc((size_t)n_heads * sizeof(int)),
                              .phases = calloc((size_t)n_phases, sizeof(sim_light_phase)), .n_heads = n_heads,
                              .offset = offset};
    bool ok = k.id && k.heads && k.phases;
    for (int p = 0; ok && p < n_phases; p++) {
        k.phases[p].duration = durations[p];
        k.phases[p].states = malloc((size_t)n_heads * sizeof(sim_light_state));
        ok = k.phases[p].states != NULL;
        if (ok) memcpy(k.phases[p].states, states + p * n_heads, (size_t)n_heads * sizeof(sim_light_state));
        k.n_phases = p + 1;
    }
    if (!ok) {
        for (int p = 0; p < k.n_phases; p++) free(k.phases[p].states);
        free(k.phases);
        free(k.heads);
        free(k.id);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    memcpy(k.heads, heads, (size_t)n_heads * sizeof(int));
    for (int i = 0; i < n_heads; i++) L->heads[heads[i]].controller = L->n_ctls;
    L->ctls[L->n_ctls] = k;
    return L->n_ctls++;
}

double sim_lights_cycle(const sim_lights *L, int c)
{
    double sum = 0;
    for (int p = 0; p < L->ctls[c].n_phases; p++) sum += L->ctls[c].phases[p].duration;
    return sum;
}

int sim_lights_run_init(sim_lights_run *R, const sim_lights *L, sim_error *err)
{
    memset(R, 0, sizeof *R);
    int nh = L->n_heads ? L->n_heads : 1, nc = L->n_ctls ? L->n_ctls : 1;
    R->state = calloc((size_t)nh, sizeof *R->state);
    R->changed = calloc((size_t)nh, sizeof *R->changed);
    R->hold = malloc((size_t)nh * sizeof *R->hold);
    R->t0 = malloc((size_t)nc * sizeof *R->t0);
    if (!R->state || !R->changed || !R->hold || !R->t0) {
        sim_lights_run_free(R);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    R->n_heads = L->n_heads;
    R->n_ctls = L->n_ctls;
    for (int i = 0; i < L->n_heads; i++) R->hold[i] = SIM_SIGNAL_AUTO;
    for (int c = 0; c < L->n_ctls; c++) R->t0[c] = L->ctls[c].offset;
    return SIM_OK;
}

void sim_lights_run_free(sim_lights_run *R)
{
    free(R->state);
    free(R->changed);
    free(R->hold);
    free(R->t0);
    memset(R, 0, sizeof *R);
}

int sim_lights_phase_at(const sim_lights *L, const sim_lights_run *R, int c, double t)
{
    const sim_light_controller *k = &L->ctls[c];
    double cycle = sim_lights_cycle(L, c);
    double x = fmod(t - R->t0[c], cycle);
    if (x < 0) x += cycle;
    for (int p = 0; p < k->n_phases; p++) {
        if (x < k->phases[p].duration) return p;
        x -= k->phases[p].duration;
    }
    return k->n_phases - 1; /* rounding at the very end of the cycle */
}

int sim_lights_update(const sim_lights *L, sim_lights_run *R, double t)
{
    assert(R->n_heads == L->n_heads && R->n_ctls == L->n_ctls);
    for (int i = 0; i < L->n_heads; i++) R->changed[i] = false;
    int changed = 0;
    for (int i = 0; i < L->n_heads; i++) {
        sim_light_state s = SIM_SIGNAL_OFF;
        int c = L->heads[i].controller;
        if (R->hold[i] != SIM_SIGNAL_AUTO) {
            s = (sim_light_state)R->hold[i];
        } else if (c >= 0) {
            const sim_light_controller *k = &L->ctls[c];
            int p = sim_lights_phase_at(L, R, c, t), slot = 0;
            while (k->heads[slot] != i) slot++;
            s = k->phases[p].states[slot];
        }
        if (!R->started || s != R->state[i]) {
            R->changed[i] = true;
            changed++;
        }
        R->state[i] = s;
    }
    R->started = true;
    return changed;
}

int sim_lights_set_head(sim_lights_run *R, int h, int state)
{
    if (h < 0 || h >= R->n_heads) return SIM_EINVAL;
    if (state != SIM_SIGNAL_AUTO && (state < 0 || state >= SIM_SIGNAL_STATE_COUNT)) return SIM_EINVAL;
    R->hold[h] = state;
    return SIM_OK;
}

int sim_lights_set_phase(const sim_lights *L, sim_lights_run *R, int c, int p, double t)
{
    if (c < 0 || c >= L->n_ctls || p < 0 || p >= L->ctls[c].n_phases) return SIM_EINVAL;
    double start = 0;
    for (int q = 0; q < p; q++) start += L->ctls[c].phases[q].duration;
    R->t0[c] = t - start;
    for (int i = 0; i < L->ctls[c].n_heads; i++) R->hold[L->ctls[c].heads[i]] = SIM_SIGNAL_AUTO;
    return SIM_OK;
}
