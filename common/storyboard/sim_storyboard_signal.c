/* sim_storyboard_signal: the traffic signals and signal controllers a storyboard names
 * (TrafficSignalStateAction and -Condition, TrafficSignalControllerAction and
 * -Condition). The engine owns no lights: the caller (traffic-node, a test)
 * tells it what each signal shows before a step and applies the requests its actions
 * made after it, through the lights model (sim_lights.h), as the operator's
 * `simctl signal` does. So the storyboard stays pure and the lights have one owner. */
#include "sim_storyboard_impl.h"

#include <stdlib.h>
#include <string.h>

#include "sim_lights.h"

static int find(const sim_storyboard *sb, bool ctl, const char *name)
{
    for (int k = 0; k < sb->n_sig; k++)
        if (sb->sig_ctl[k] == ctl && strcmp(sb->sig_name[k], name) == 0) return k;
    return -1;
}

static void add(sim_storyboard *sb, bool ctl, const char *name)
{
    if (find(sb, ctl, name) >= 0) return;
    sb->sig_ctl[sb->n_sig] = ctl;
    sb->sig_name[sb->n_sig++] = name;
}

int sb_signals_init(sim_storyboard *sb)
{
    const sim_sb_model *m = sb->m;
    size_t cap = (size_t)m->n_actions + (size_t)m->n_conds + 1;
    sb->sig_name = calloc(cap, sizeof *sb->sig_name);
    sb->sig_state = calloc(cap, sizeof *sb->sig_state);
    sb->sig_req = calloc(cap, sizeof *sb->sig_req);
    sb->sig_ctl = calloc(cap, sizeof *sb->sig_ctl);
    if (!sb->sig_name || !sb->sig_state || !sb->sig_req || !sb->sig_ctl) return SIM_ENOMEM;
    for (int i = 0; i < m->n_actions; i++)
        if (m->actions[i].type == SIM_SB_A_SIGNAL_STATE || m->actions[i].type == SIM_SB_A_SIGNAL_PHASE)
            add(sb, m->actions[i].type == SIM_SB_A_SIGNAL_PHASE, m->actions[i].param);
    for (int i = 0; i < m->n_conds; i++)
        if (m->conds[i].type == SIM_SB_C_SIGNAL || m->conds[i].type == SIM_SB_C_SIGNAL_PHASE)
            add(sb, m->conds[i].type == SIM_SB_C_SIGNAL_PHASE, m->conds[i].ref);
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
    free(sb->sig_ctl);
}

void sb_signals_clear_requests(sim_storyboard *sb)
{
    for (int k = 0; k < sb->n_sig; k++) sb->sig_req[k] = -1;
}

void sb_signal_request(sim_storyboard *sb, const sim_sb_action *a)
{
    int k = find(sb, a->type == SIM_SB_A_SIGNAL_PHASE, a->param);
    if (k < 0) return; /* cannot happen: every signal action has its slot */
    /* the last action of a step wins, as the last `simctl signal` does */
    sb->sig_req[k] = a->light;
}

bool sb_signal_shows(const sim_storyboard *sb, const sim_sb_condition *c)
{
    int k = find(sb, c->type == SIM_SB_C_SIGNAL_PHASE, c->ref);
    return k >= 0 && sb->sig_state[k] == c->light;
}

void sim_storyboard_set_signal(sim_storyboard *sb, int k, int light)
{
    if (k >= 0 && k < sb->n_sig) sb->sig_state[k] = light;
}
