/* ffb_out: the input node's force-feedback output: the fade state machine (sim_ffb)
 * fed with commands and events, its --ffb-log, and when the node may exit. The clock
 * is passed in (now, in seconds), so tests play a whole fade in microseconds and in
 * parallel instead of in real time; main.c gives it the node's monotonic clock and
 * plays the effects on the wheel. */
#ifndef INPUT_FFB_OUT_H
#define INPUT_FFB_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "sim_ffb.h"

/* Exiting: the wheel has faded out, or this long has passed since the exit began. */
#define IN_FFB_EXIT_MAX_S 0.2

typedef struct in_ffb_out {
    sim_ffb ffb;
    FILE *log;        /* --ffb-log: effects and events as NDJSON, or NULL (not owned) */
    double start_s;   /* the clock value the log's times count from */
} in_ffb_out;

/* Every FFB input goes through these two, so that the log sees what the fade state
 * machine saw, with the node's own clock. */
void in_ffb_out_event(in_ffb_out *o, double now, sim_ffb_event ev);
void in_ffb_out_command(in_ffb_out *o, double now, const sim_ffb_command *c);
/* Updates the fade and fills fx with the effects to play now. Returns the safety
 * scale. */
double in_ffb_out_update(in_ffb_out *o, double now, sim_ffb_effects *fx);
/* Logs the effects played at now (every update, not only changes: the log shows what
 * was played at each instant, with what the node added, e.g. the DRT's vibration). */
void in_ffb_out_played(in_ffb_out *o, double now, const sim_ffb_effects *fx);
/* Whether an exit that began since_exit_s ago may end now, the scale being scale. */
bool in_ffb_exit_done(double scale, double since_exit_s);

#endif
