/* sim_study_plan: the order of each participant's drives (Williams designs, cyclic
 * latin squares, seeded permutations, explicit orders) and a condition's scenario
 * overlay. Pure: the same study file gives the same plan on every machine. */
#include <stdlib.h>
#include <string.h>

#include "sim_study.h"
#include "sim_rand.h"

int sim_study_square(sim_design_kind kind, int n, int *rows)
{
    if (n < 1) return 0;
    int first[SIM_STUDY_CONDITIONS_MAX];
    for (int j = 0; j < n; j++) {
        if (kind == SIM_DESIGN_WILLIAMS)
            /* Williams (1949): 0, 1, n-1, 2, n-2, ...; shifting it by r keeps the
             * differences between neighbours, which are all distinct mod n for even n. */
            first[j] = j == 0 ? 0 : (j % 2 ? (j + 1) / 2 : n - j / 2);
        else
            first[j] = j;
    }
    for (int r = 0; r < n; r++)
        for (int j = 0; j < n; j++) rows[r * n + j] = (first[j] + r) % n;
    if (kind != SIM_DESIGN_WILLIAMS || n % 2 == 0) return n;
    /* Odd n: one square cannot balance carry-over; with its mirror each ordered pair
     * is adjacent exactly twice and each condition holds each position twice. */
    for (int r = 0; r < n; r++)
        for (int j = 0; j < n; j++) rows[(n + r) * n + j] = rows[r * n + (n - 1 - j)];
    return 2 * n;
}


static void add(sim_plan *out, int condition, sim_drive_kind kind)
{
    sim_plan_drive *d = &out->drives[out->n++];
    d->position = out->n;
    d->condition = condition;
    d->kind = kind;
}

int sim_study_plan(const sim_study *s, int p, sim_plan *out)
{
    memset(out, 0, sizeof *out);
    if (p < 0 || p >= s->n_participants) return SIM_EINVAL;
    for (int i = 0; i < s->n_practice; i++) add(out, s->practice[i], SIM_DRIVE_PRACTICE);
    for (int i = 0; i < s->n_before; i++) add(out, s->before[i], SIM_DRIVE_FIXED);
    int n = s->n_within, order[SIM_STUDY_CONDITIONS_MAX];
    if (s->design == SIM_DESIGN_EXPLICIT) {
        memcpy(order, s->orders[p % s->n_orders], sizeof(int) * n);
    } else if (s->design == SIM_DESIGN_RANDOM) {
        /* Each participant's own stream: adding participants never changes the
         * orders of those already planned. */
        uint64_t st = sim_rand_mix(s->seed ^ sim_rand_mix((uint64_t)p + 1)) | 1; /* xorshift64*, as traffic draws */
        for (int i = 0; i < n; i++) order[i] = s->within[i];
        for (int i = n - 1; i > 0; i--) {
            int k = (int)(sim_rand_xorshift(&st) % (uint64_t)(i + 1));
            int t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
    } else {
        int *rows = malloc(sizeof(int) * 2 * n * n);
        if (!rows) return SIM_ENOMEM;
        int nrows = sim_study_square(s->design, n, rows);
        for (int j = 0; j < n; j++) order[j] = s->within[rows[(p % nrows) * n + j]];
        free(rows);
    }
    for (int i = 0; i < n; i++) add(out, order[i], SIM_DRIVE_CONDITION);
    for (int i = 0; i < s->n_after; i++) add(out, s->after[i], SIM_DRIVE_FIXED);
    return SIM_OK;
}

static cJSON *object_member(cJSON *obj, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsObject(v)) return v;
    v = cJSON_CreateObject();
    if (v && !cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v)) cJSON_AddItemToObject(obj, key, v);
    return v;
}

static int set_number(cJSON *obj, const char *key, double value)
{
    cJSON *v = cJSON_CreateNumber(value);
    if (!v) return SIM_ENOMEM;
    if (!cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v)) cJSON_AddItemToObject(obj, key, v);
    return SIM_OK;
}

int sim_study_scenario_overlay(cJSON *sc, const sim_study_condition *c, sim_error *err)
{
    if (!cJSON_IsObject(sc)) return sim_error_set(err, SIM_EINVAL, "%s: expected a scenario object", c->scenario);
    if (c->start[0]) {
        /* Every module starts at the first start point: the condition's goes first. */
        cJSON *starts = cJSON_GetObjectItemCaseSensitive(sc, "start_points");
        int i = 0, found = -1;
        for (cJSON *e = cJSON_IsArray(starts) ? starts->child : NULL; e; e = e->next, i++) {
            cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
            if (cJSON_IsString(nm) && strcmp(nm->valuestring, c->start) == 0) found = i;
        }
        if (found < 0)
            return sim_error_set(err, SIM_ENOTFOUND, "%s: condition %s: start point \"%s\" not found, expected one of the scenario's start_points",
                                 c->scenario, c->name, c->start);
        cJSON *e = cJSON_DetachItemFromArray(starts, found);
        cJSON_InsertItemInArray(starts, 0, e);
    }
    const sim_study_params *p = &c->params;
    if (p->has_density || p->has_seed) {
        cJSON *t = object_member(sc, "traffic");
        if (!t) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        if (p->has_density && set_number(t, "density", p->traffic_density)) return SIM_ENOMEM;
        if (p->has_seed && set_number(t, "seed", p->traffic_seed)) return SIM_ENOMEM;
    }
    if (p->light[0]) {
        cJSON *env = object_member(sc, "environment"), *l = cJSON_CreateString(p->light);
        if (!env || !l) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        if (!cJSON_ReplaceItemInObjectCaseSensitive(env, "light", l)) cJSON_AddItemToObject(env, "light", l);
    }
    return SIM_OK;
}
