/* sim_throttle: error output limited per cause (see sim_throttle.h). */
#include "sim_throttle.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

bool sim_throttle_say(sim_throttle *t, FILE *out, const char *module, const char *cause, double now_s,
                      const char *fmt, ...)
{
    uint64_t held;
    if (!sim_throttle_allow(t, cause, now_s, &held)) return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One fprintf: the line reaches a shared stderr whole, not in pieces. */
    if (held)
        fprintf(out, "%s: %s (and %llu more like it held back)\n", module, msg, (unsigned long long)held);
    else
        fprintf(out, "%s: %s\n", module, msg);
    return true;
}

double sim_throttle_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int sim_throttle_flush(sim_throttle *t, FILE *out, const char *module)
{
    int lines = 0;
    for (int k = 0; k < t->n; k++) {
        if (!t->slot[k].held) continue;
        fprintf(out, "%s: %llu more %s lines held back (not printed)\n", module,
                (unsigned long long)t->slot[k].held, t->slot[k].cause);
        t->slot[k].held = 0;
        lines++;
    }
    return lines;
}
