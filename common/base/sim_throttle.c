/* sim_throttle: error output limited per cause (see sim_throttle.h). */
#include "sim_throttle.h"

#include <stdio.h>
#include <string.h>

bool sim_throttle_allow(sim_throttle *t, const char *cause, double now_s, uint64_t *held)
{
    double every = t->interval_s > 0 ? t->interval_s : 1.0;
    int k = 0;
    for (; k < t->n; k++)
        if (strncmp(t->slot[k].cause, cause, SIM_THROTTLE_CAUSE_MAX - 1) == 0) break;
    if (k == t->n) { /* a new cause: printed at once */
        if (t->n < SIM_THROTTLE_CAUSES) {
            k = t->n++;
        } else {
            k = 0;
            for (int i = 1; i < t->n; i++)
                if (t->slot[i].last_s < t->slot[k].last_s) k = i;
        }
        snprintf(t->slot[k].cause, sizeof t->slot[k].cause, "%s", cause);
        t->slot[k].last_s = now_s;
        t->slot[k].held = 0;
        if (held) *held = 0;
        return true;
    }
    if (now_s - t->slot[k].last_s < every) {
        t->slot[k].held++;
        return false;
    }
    if (held) *held = t->slot[k].held;
    t->slot[k].held = 0;
    t->slot[k].last_s = now_s;
    return true;
}
