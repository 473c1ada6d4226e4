/* sim_lights_groups.c - groups of heads (OpenDRIVE <controller>s) and the default
 * fixed-time program that runs a group nobody else runs (sim_lights.h). */
#include "sim_lights.h"

#include <stdlib.h>
#include <string.h>

int sim_lights_find_group(const sim_lights *L, const char *id)
{
    for (int i = 0; id && i < L->n_groups; i++)
        if (strcmp(L->groups[i].id, id) == 0) return i;
    return -1;
}

int sim_lights_add_group(sim_lights *L, const char *id, const int *heads, int n_heads, sim_error *err)
{
    if (!id || !id[0]) return sim_error_set(err, SIM_EINVAL, "traffic light group without an id");
    if (sim_lights_find_group(L, id) >= 0)
        return sim_error_set(err, SIM_EINVAL, "controller \"%s\" again, expected unique ids", id);
    for (int i = 0; i < n_heads; i++) {
        if (heads[i] < 0 || heads[i] >= L->n_heads)
            return sim_error_set(err, SIM_EINVAL, "controller \"%s\": head %d out of range", id, heads[i]);
        for (int j = 0; j < i; j++)
            if (heads[j] == heads[i])
                return sim_error_set(err, SIM_EINVAL, "controller \"%s\": head \"%s\" twice", id, L->heads[heads[i]].id);
    }
    if (L->n_groups == L->cap_groups) {
        int cap = L->cap_groups ? 2 * L->cap_groups : 4;
        sim_light_group *g = realloc(L->groups, (size_t)cap * sizeof *g);
        if (!g) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        L->groups = g;
        L->cap_groups = cap;
    }
    sim_light_group g = {.id = strdup(id), .heads = malloc((size_t)(n_heads ? n_heads : 1) * sizeof(int)),
                         .n_heads = n_heads, .junction = -1, .controller = -1};
    if (!g.id || !g.heads) {
        free(g.id);
        free(g.heads);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    if (n_heads) memcpy(g.heads, heads, (size_t)n_heads * sizeof(int));
    L->groups[L->n_groups] = g;
    return L->n_groups++;
}

void sim_lights_drop_defaults(sim_lights *L)
{
    for (; L->n_default > 0; L->n_default--) {
        int c = --L->n_ctls;
        sim_light_controller *k = &L->ctls[c];
        for (int i = 0; i < k->n_heads; i++) L->heads[k->heads[i]].controller = -1;
        for (int p = 0; p < k->n_phases; p++) free(k->phases[p].states);
        free(k->phases);
        free(k->heads);
        free(k->id);
    }
    for (int g = 0; g < L->n_groups; g++) L->groups[g].controller = -1;
}

/* May group g run: it has heads and none of them belongs to a controller yet. */
static bool free_group(const sim_lights *L, const sim_light_group *g)
{
    if (g->n_heads < 1) return false;
    for (int i = 0; i < g->n_heads; i++)
        if (L->heads[g->heads[i]].controller >= 0) return false;
    return true;
}

/* The slot of group g among the runnable groups of its junction (by sequence, then by
 * index), and how many slots the cycle has (at least 2). A group at no junction is
 * alone. */
static void slot_of(const sim_lights *L, int g, int *slot, int *slots)
{
    const sim_light_group *G = &L->groups[g];
    int before = 0, n = 0;
    for (int h = 0; h < L->n_groups; h++) {
        const sim_light_group *H = &L->groups[h];
        if (h != g && (G->junction < 0 || H->junction != G->junction || !free_group(L, H))) continue;
        n++;
        if (h != g && (H->sequence < G->sequence || (H->sequence == G->sequence && h < g))) before++;
    }
    *slot = before;
    *slots = n < 2 ? 2 : n;
}

int sim_lights_group_defaults(sim_lights *L, sim_error *err)
{
    sim_lights_drop_defaults(L);
    const double slot_s = SIM_LIGHTS_DEFAULT_GREEN + SIM_LIGHTS_DEFAULT_AMBER + SIM_LIGHTS_DEFAULT_ALL_RED;
    /* which may run is decided before any is added: adding one must not change the others' slots */
    bool *runs = calloc((size_t)(L->n_groups ? L->n_groups : 1), sizeof *runs);
    int *slot = calloc((size_t)(L->n_groups ? L->n_groups : 1), 2 * sizeof *slot);
    if (!runs || !slot) {
        free(runs);
        free(slot);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    for (int g = 0; g < L->n_groups; g++) {
        runs[g] = free_group(L, &L->groups[g]) && sim_lights_find_controller(L, L->groups[g].id) < 0;
        if (runs[g]) slot_of(L, g, &slot[2 * g], &slot[2 * g + 1]);
    }
    int n_run = 0, rc = SIM_OK;
    for (int g = 0; g < L->n_groups && rc == SIM_OK; g++) {
        if (!runs[g]) continue;
        const sim_light_group *G = &L->groups[g];
        double cycle = slot[2 * g + 1] * slot_s;
        double dur[4] = {SIM_LIGHTS_DEFAULT_GREEN, SIM_LIGHTS_DEFAULT_AMBER,
                         cycle - SIM_LIGHTS_DEFAULT_GREEN - SIM_LIGHTS_DEFAULT_AMBER - SIM_LIGHTS_DEFAULT_RED_AMBER,
                         SIM_LIGHTS_DEFAULT_RED_AMBER};
        sim_light_state *st = malloc((size_t)G->n_heads * 4 * sizeof *st);
        if (!st) {
            rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
            break;
        }
        for (int i = 0; i < G->n_heads; i++) {
            bool walk = L->heads[G->heads[i]].kind == SIM_HEAD_PEDESTRIAN;
            st[0 * G->n_heads + i] = SIM_SIGNAL_GREEN;
            st[1 * G->n_heads + i] = walk ? SIM_SIGNAL_RED : SIM_SIGNAL_AMBER;
            st[2 * G->n_heads + i] = SIM_SIGNAL_RED;
            st[3 * G->n_heads + i] = walk ? SIM_SIGNAL_RED : SIM_SIGNAL_RED_AMBER;
        }
        int c = sim_lights_add_controller(L, G->id, G->heads, G->n_heads, dur, st, 4, slot[2 * g] * slot_s, err);
        free(st);
        if (c < 0) {
            rc = c;
            break;
        }
        L->groups[g].controller = c;
        L->n_default++;
        n_run++;
    }
    free(runs);
    free(slot);
    return rc < 0 ? rc : n_run;
}
