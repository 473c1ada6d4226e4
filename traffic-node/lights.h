/* lights: the traffic node's traffic lights: the running controllers (sim_lights.h),
 * their states handed to the traffic core each tick, signal.state on every change,
 * signal.red_run when the ego crosses a line on red, and the operator's `signal`
 * command (docs/scenario.md "Traffic lights", docs/protocol.md). */
#ifndef TRAFFIC_NODE_LIGHTS_H
#define TRAFFIC_NODE_LIGHTS_H

#include <cjson/cJSON.h>

#include "state.h"

/* A fresh run of the lights for a fresh world (phases from their offsets, no holds),
 * wired into w->t. */
int tn_lights_start(tn_world *w, sim_error *err);
void tn_lights_stop(tn_world *w);
/* Every head's state at t; returns how many changed (all on the first call). */
int tn_lights_update(tn_world *w, double t);
/* Again at the same t after holds were set (a storyboard's actions): the heads changed
 * by either update stay marked changed. */
int tn_lights_reupdate(tn_world *w, double t);
/* signal.state for head h as of the update at time t (caller frees; NULL: out of memory). */
cJSON *tn_lights_state_payload(const tn_world *w, int h, double t);
/* signal.red_run when the ego crossed a line on red since the last call, else NULL. */
cJSON *tn_lights_red_run_payload(tn_world *w);
/* control.signal: hold a head / move a controller at time t. SIM_EINVAL or
 * SIM_ENOTFOUND with err naming the head, controller, state or phase. */
int tn_lights_command(tn_world *w, const cJSON *msg, double t, sim_error *err);

/* The lights' part of the restart snapshot (state.c): the operator's and the
 * storyboard's holds per head and where each controller's cycle was moved to, so that
 * a node restarted with --state keeps a light held as it was (the timed phases follow
 * from t alone). Layout: int32 heads, int32 controllers, then int32 hold per head,
 * double t0 per controller, in host order (the file never leaves the machine). read:
 * SIM_EINVAL, naming what does not fit, when the counts are not this scenario's or a
 * hold is out of range; the lights are then left as they were. */
size_t tn_lights_snapshot_size(const tn_world *w);
void tn_lights_snapshot_write(const tn_world *w, unsigned char *buf);
int tn_lights_snapshot_read(tn_world *w, const unsigned char *buf, size_t len, sim_error *err);

#endif
