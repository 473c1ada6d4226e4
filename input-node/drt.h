/* drt: the input node's part of the Detection Response Task (docs/tasks.md): the
 * scripted driver's responses to drt.stimulus, after the seeded latency of the
 * scenario's "drt.script" (sim_drt_script_latency), published as drt.response at the
 * first tick at or after it; a wheel's or the keyboard's `drt` button publishes one
 * too (source "button"). The node owns the struct. */
#ifndef INPUT_NODE_DRT_H
#define INPUT_NODE_DRT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_drt.h"
#include "sim_error.h"
#include "sim_ffb.h"
#include "sim_throttle.h"

#define IN_DRT_PENDING 8

typedef struct in_drt {
    bool scripted;                 /* the scripted driver answers */
    sim_drt_config cfg;            /* from the scenario (enabled false: none) */
    double due[IN_DRT_PENDING];    /* response times waiting, s */
    int n_due;
    unsigned long answered, missed;
    bool tactile_on;               /* a tactile stimulus is on: the wheel vibrates */
    sim_throttle bad_output;       /* "ignoring" lines, at most one a second */
} in_drt;

/* Reads the scenario's "drt" object (none: nothing to answer). */
int in_drt_open(in_drt *d, const char *scenario, bool scripted, sim_error *err);
/* A drt.stimulus at simulation time t: a scripted response is scheduled. */
void in_drt_on_stimulus(in_drt *d, const cJSON *msg, double t);
/* Whether a scripted response is due at simulation time t (one per call). */
bool in_drt_due(in_drt *d, double t);
/* The tactile stimulus on the wheel: a 40 Hz vibration at 60 % over whatever the force
 * feedback plays, while one is on and the feedback is not faded out. */
void in_drt_tactile(const in_drt *d, sim_ffb_effects *fx);
/* Restart: nothing pending. */
void in_drt_reset(in_drt *d);
/* drt.response {source} as a payload (caller frees; NULL: no memory). */
cJSON *in_drt_response(const char *source);

#endif
