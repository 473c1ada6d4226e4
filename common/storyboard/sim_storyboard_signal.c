/* sim_storyboard_signal: the traffic signals a storyboard names (TrafficSignalStateAction,
 * TrafficSignalCondition). The engine owns no lights: the caller (traffic-node, a test)
 * tells it what each signal shows before a step and applies the requests its actions
 * made after it, through the lights model (sim_lights.h), as the operator's
 * `simctl signal` does. So the storyboard stays pure and the lights have one owner. */
#include "sim_storyboard_impl.h"

#include <stdlib.h>
#include <string.h>

#include "sim_lights.h"

static int find(const sim_storyboard *sb, const char *name)
{
    for (int k = 0; k < sb->n_sig; k++)
        if (strcmp(sb->sig_name[k], name) == 0) return k;
    return -1;
}

static void add(sim_storyboard *sb, const char *name)
{
    if (find(sb, name) < 0) sb->sig_name[sb->n_sig++] = name;
}

int sb_signals_init(sim_storyboard *sb)
{
    const sim_sb_model *m = sb->m;
    size_t cap = (size_t)m->n_actions + (size_t)m->n_conds + 1;
    sb->sig_name = calloc(cap, sizeof *sb->sig_name);
    sb->sig_state = calloc(cap, sizeof *sb->sig_state);
    sb->sig_req = calloc(cap, sizeof *sb->sig_req);
    if (!sb->sig_name || !sb->sig_state || !sb->sig_req) return SIM_ENOMEM;
    for (int i = 0; i < m->n_actions; i++)
        if (m->actions[i].type == SIM_SB_A_SIGNAL_STATE) add(sb, m->actions[i].param);
    for (int i = 0; i < m->n_conds; i++)
        if (m->conds[i].type == SIM_SB_C_SIGNAL) add(sb, m->conds[i].ref);
    for (int k = 0; k < sb->n_sig; k++) {
        sb->sig_state[k] = SIM_SIGNAL_OFF;
        sb->sig_req[k] = -1;
    }
    return SIM_OK;
}

void sb_signals_free(sim_storyboard *sb)
{
    free(sb->sig_name);
    free(sb->sig_state);
    free(sb->sig_req);
}

void sb_signals_clear_requests(sim_storyboard *sb)
{
    for (int k = 0; k < sb->n_sig; k++) sb->sig_req[k] = -1;
}

void sb_signal_request(sim_storyboard *sb, const sim_sb_action *a)
{
    int k = find(sb, a->param);
    if (k < 0) return; /* cannot happen: every signal action has its slot */
    /* the last action of a step wins, as the last `simctl signal` does */
    sb->sig_req[k] = a->light;
}

bool sb_signal_shows(const sim_storyboard *sb, const sim_sb_condition *c)
{
    int k = find(sb, c->ref);
    return k >= 0 && sb->sig_state[k] == c->light;
}

int sim_storyboard_signal_find(const sim_storyboard *sb, const char *name) { return find(sb, name); }

void sim_storyboard_set_signal(sim_storyboard *sb, int k, int light)
{
    if (k >= 0 && k < sb->n_sig) sb->sig_state[k] = light;
}
