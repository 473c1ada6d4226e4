/* sim_sb_model: freeing and looking up the storyboard's data (see sim_sb_model.h). */
#include "sim_sb_model.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sim_sb_model_free(sim_sb_model *m)
{
    for (int i = 0; i < m->n_actions; i++) {
        free(m->actions[i].pt);
        free(m->actions[i].pv);
        free(m->actions[i].ctrl);
        free(m->actions[i].cw);
        free(m->actions[i].kn);
        free(m->actions[i].route);
    }
    free(m->route_pts);
    free(m->entities);
    free(m->params);
    free(m->actions);
    free(m->init);
    free(m->elements);
    free(m->kids);
    free(m->conds);
    free(m->groups);
    free(m->trig);
    free(m->actors);
    memset(m, 0, sizeof *m);
    m->ego = -1;
}

int sim_sb_model_find_entity(const sim_sb_model *m, const char *name)
{
    for (int i = 0; i < m->n_entities; i++)
        if (strcmp(m->entities[i].name, name) == 0) return i;
    return -1;
}

int sim_sb_model_find_element(const sim_sb_model *m, const char *name)
{
    for (int i = 0; i < m->n_elements; i++)
        if (strcmp(m->elements[i].name, name) == 0) return i;
    return -1;
}

int sim_sb_model_find_param(const sim_sb_model *m, const char *name)
{
    for (int i = 0; i < m->n_params; i++)
        if (strcmp(m->params[i].name, name) == 0) return i;
    return -1;
}

int sim_sb_model_pick_ego(const sim_sb_model *m, const char *name)
{
    if (name && name[0]) return sim_sb_model_find_entity(m, name);
    for (int i = 0; i < m->n_entities; i++)
        if (strcasecmp(m->entities[i].name, "ego") == 0 || strcasecmp(m->entities[i].name, "hero") == 0) return i;
    return m->n_entities > 0 ? 0 : -1;
}

const char *sim_sb_state_name(sim_sb_state s)
{
    static const char *const n[] = {"standbyState",   "runningState",   "completeState", "startTransition",
                                    "endTransition",  "stopTransition", "skipTransition"};
    return (unsigned)s < sizeof n / sizeof *n ? n[s] : "?";
}

const char *sim_sb_elem_type_name(sim_sb_elem_type t)
{
    static const char *const n[] = {"story", "act", "maneuverGroup", "maneuver", "event", "action"};
    return (unsigned)t < sizeof n / sizeof *n ? n[t] : "?";
}
