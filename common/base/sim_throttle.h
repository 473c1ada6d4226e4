/* sim_throttle: error output limited per cause. A module that prints one line per bad
 * message (render-node did, per bad hud.text) floods its terminal and its log when a
 * client sends garbage at 100 Hz; with a throttle it prints the first of each cause at
 * once, then at most one a second per cause, saying how many were held back.
 *
 * Pure: the caller passes the time. Plain storage, zeroed to start (interval 0 means
 * 1 s); a cause is a short string the caller chooses (a topic, a field). */
#ifndef SIM_THROTTLE_H
#define SIM_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_THROTTLE_CAUSES 16
#define SIM_THROTTLE_CAUSE_MAX 64

typedef struct sim_throttle {
    double interval_s; /* least time between two lines of one cause; 0: 1 s */
    struct {
        char cause[SIM_THROTTLE_CAUSE_MAX];
        double last_s;        /* when a line of this cause was last let through */
        uint64_t held;        /* lines held back since */
    } slot[SIM_THROTTLE_CAUSES];
    int n;
} sim_throttle;

/* True when a line of cause may be printed at now_s; then *held (may be NULL) is how many
 * of that cause were held back since the last one. Beyond SIM_THROTTLE_CAUSES causes,
 * the least recently printed one's slot is reused. */
bool sim_throttle_allow(sim_throttle *t, const char *cause, double now_s, uint64_t *held);

/* Seconds on a monotonic clock, for now_s where the caller has no loop time at hand. */
double sim_throttle_clock(void);

/* The line every module prints through the throttle: "MODULE: MESSAGE" on out when
 * sim_throttle_allow lets cause through at now_s, with " (and N more like it held back)"
 * when N lines of that cause were not printed since its last one. Returns whether it
 * printed. */
bool sim_throttle_say(sim_throttle *t, FILE *out, const char *module, const char *cause, double now_s,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* At the module's end: one line "MODULE: N more CAUSE lines held back (not printed)" per
 * cause with lines still held, so that a flood shorter than a second is counted too.
 * Returns the number of lines printed. */
int sim_throttle_flush(sim_throttle *t, FILE *out, const char *module);

#endif
