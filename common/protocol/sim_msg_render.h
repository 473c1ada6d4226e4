/* sim_msg_render: what render-node says about its frames (docs/latency.md).
 *
 *   render.latency {window_s, frames, min_ms, median_ms, p95_ms, max_ms,
 *                   device_ms, input_ms, step_ms, physics_ms, wait_ms, draw_ms, swap_ms}
 *       render-node, every window_s (0.1 s) of frames that showed a stamped input: the
 *       wheel-to-picture delay (from the input's device stamp to the return of the
 *       frame's swap) over the window's frames, and the median of each stage of the
 *       chain (device to input-node, input-node to physics, physics step wait, physics
 *       to render, render wait, draw, swap). The envelope's t is the simulation time of
 *       the newest state drawn.
 *
 * Every number is required and finite (ms >= 0 except stages, which may be slightly
 * negative by clock granularity), frames >= 1. */
#ifndef SIM_MSG_RENDER_H
#define SIM_MSG_RENDER_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

/* The stages in chain order; their sum is the total. */
#define SIM_LATENCY_STAGES 7

typedef struct sim_msg_render_latency {
    double window_s;
    int frames;
    double min_ms, median_ms, p95_ms, max_ms;
    double stage_ms[SIM_LATENCY_STAGES]; /* medians: device, input, step, physics, wait, draw, swap */
} sim_msg_render_latency;

/* "device", "input", "step", "physics", "wait", "draw", "swap" (NULL out of range). */
const char *sim_latency_stage_name(int i);

cJSON *sim_msg_render_latency_encode(const sim_msg_render_latency *m);
int sim_msg_render_latency_decode(const cJSON *msg, sim_msg_render_latency *out, sim_error *err);

#endif
