/* sim_osi_heads: see sim_osi.h ("The traffic-light heads of a stream"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_osi.h"

int sim_osi_heads_init(sim_osi_heads *h, const sim_lights *L, sim_error *err)
{
    *h = (sim_osi_heads){.L = L};
    int nh = L ? L->n_heads : 0;
    h->state = malloc(sizeof *h->state * (size_t)(nh ? nh : 1));
    if (!h->state) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    for (int i = 0; i < nh; i++) h->state[i] = -1;
    return 0;
}

void sim_osi_heads_free(sim_osi_heads *h)
{
    free(h->state);
    free(h->extra);
    free(h->extra_id);
    free(h->extra_state);
    free(h->lights);
    *h = (sim_osi_heads){0};
}

int sim_osi_heads_signal(sim_osi_heads *h, const sim_msg_signal_state *m, const sim_msg_signal_where *w, sim_error *err)
{
    int st = sim_light_state_parse(m->state);
    if (st < 0) return 0;
    for (int i = 0; h->L && i < h->L->n_heads; i++)
        if (strcmp(h->L->heads[i].id, m->id) == 0) {
            h->state[i] = st;
            return 0;
        }
    for (int i = 0; i < h->n_extra; i++)
        if (strcmp(h->extra_id[i], m->id) == 0) {
            h->extra_state[i] = st;
            return 0;
        }
    if (isnan(w->pos[0])) return 0; /* neither the scenario's nor placed by its message */
    if (h->n_extra == h->cap_extra) {
        int cap = h->cap_extra ? 2 * h->cap_extra : 16;
        sim_light_head *nh = realloc(h->extra, (size_t)cap * sizeof *nh);
        if (nh) h->extra = nh;
        char(*ni)[64] = realloc(h->extra_id, (size_t)cap * sizeof *ni);
        if (ni) h->extra_id = ni;
        int *ns = realloc(h->extra_state, (size_t)cap * sizeof *ns);
        if (ns) h->extra_state = ns;
        if (!nh || !ni || !ns) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        h->cap_extra = cap;
        for (int i = 0; i < h->n_extra; i++) h->extra[i].id = h->extra_id[i]; /* (moved) */
    }
    int k = h->n_extra++;
    snprintf(h->extra_id[k], sizeof h->extra_id[k], "%s", m->id);
    /* as render-node builds such a head: a vehicle head of the default size and height */
    h->extra[k] = (sim_light_head){.id = h->extra_id[k], .kind = SIM_HEAD_VEHICLE, .road = -1, .x = w->pos[0],
                                   .y = w->pos[1], .z = w->pos[2], .heading = w->heading, .controller = -1};
    h->extra_state[k] = st;
    return 0;
}

int sim_osi_heads_lights(sim_osi_heads *h, size_t *n, sim_error *err)
{
    *n = 0;
    const sim_lights *L = h->L;
    size_t need = 3 * (size_t)((L ? L->n_heads : 0) + h->n_extra);
    if (need > h->cap_lights) {
        sim_osi_light *nl = realloc(h->lights, need * sizeof *nl);
        if (!nl) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        h->lights = nl, h->cap_lights = need;
    }
    for (int i = 0; i < h->n_extra; i++)
        *n += (size_t)sim_osi_lights_from_head(&h->extra[i], (sim_light_state)h->extra_state[i], &h->lights[*n]);
    for (int i = 0; L && i < L->n_heads; i++)
        if (h->state[i] >= 0)
            *n += (size_t)sim_osi_lights_from_head(&L->heads[i], (sim_light_state)h->state[i], &h->lights[*n]);
    return 0;
}
