/* latency: the wheel-to-picture delay of each frame and its stages (docs/latency.md).
 *
 * Every input.controls carries the monotonic time its newest sample happened at the
 * device (stamp) and when input-node sent it; physics adds when it received it and
 * when it finished stepping the state that integrated it; render-node adds when that
 * state arrived, when the frame that shows it began, when its drawing was done and
 * when its swap returned. The delay of a frame is swap return minus device stamp, and
 * the seven stages between consecutive stamps add up to it exactly.
 *
 * Pure computation (no clock, no I/O); the caller owns every struct. */
#ifndef RN_LATENCY_H
#define RN_LATENCY_H

#include "sim_msg_render.h"

/* Monotonic seconds along the chain of one frame (NAN: not known). */
typedef struct rn_chain {
    double in_stamp;    /* the input sample at the device */
    double in_sent;     /* input-node published it */
    double in_recv;     /* physics received it */
    double stepped;     /* physics finished the state that integrated it */
    double state_recv;  /* render-node received that state */
    double frame_start; /* the frame that shows it began */
    double draw_end;    /* its drawing was done (before the swap) */
    double swap_end;    /* its swap returned */
} rn_chain;

/* The stages (s) in sim_latency_stage_name order; returns the total (s), NAN when a
 * stamp is missing (stage then untouched). */
double rn_latency_split(const rn_chain *c, double stage[SIM_LATENCY_STAGES]);

/* Frames collected for one render.latency summary. */
#define RN_LATENCY_WINDOW_MAX 512
typedef struct rn_latency_window {
    double start;                /* the first frame's swap_end; < 0 when empty */
    int n;
    double total[RN_LATENCY_WINDOW_MAX];
    double stage[SIM_LATENCY_STAGES][RN_LATENCY_WINDOW_MAX];
} rn_latency_window;

void rn_latency_window_init(rn_latency_window *w);
/* Adds a frame measured at `now` (its swap_end). When the window is window_s long (or
 * full), fills *out with its summary, starts a new window, and returns 1; else 0. */
int rn_latency_add(rn_latency_window *w, double now, double total, const double stage[SIM_LATENCY_STAGES],
                   double window_s, sim_msg_render_latency *out);
/* The q-quantile (0..1, nearest rank) of v[0..n) (sorts v); 0 when n <= 0. */
double rn_quantile(double *v, int n, double q);

#endif
