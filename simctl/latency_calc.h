/* latency_calc: what `simctl latency` makes of a self-test (docs/latency.md): the
 * virtual wheel's steps (when input-node applied each, monotonic s) against the frames
 * render-node presented (each frame's swap end, whether its photodiode patch read back
 * lit, and the delay its own stamps give). Pure: no clock, no files. */
#ifndef SIMCTL_LATENCY_CALC_H
#define SIMCTL_LATENCY_CALC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct lat_frame {
    double swap_end;   /* monotonic s */
    bool lit;          /* the patch read back white */
    double total_ms;   /* the frame's own wheel-to-swap figure (NAN: none) */
    double stage_ms[7];
} lat_frame;

typedef struct lat_step {
    double on, off;    /* monotonic s the wheel went past half lock, and back */
} lat_step;

typedef struct lat_result {
    int steps, measured;        /* steps given, steps with a first lit frame */
    int causality_violations;   /* lit frames presented before their step's input */
    double frame_s;             /* the median frame interval */
    double median_ms, p95_ms, p99_ms;     /* input to the first lit frame's swap */
    double chain_median_ms;               /* those frames' own figures */
    double max_disagreement_ms;           /* max |measured - own figure| */
    int disagreements;                    /* steps where that exceeds one frame: the longest
                                             of the median frame interval, that frame's and
                                             the one before it (in flight at the input) */
    double stage_ms[7];                   /* medians over the first lit frames */
} lat_result;

/* A step counts when frames were presented before it (settle_s before its on) and its
 * first lit frame comes before its off plus limit_s; frames in time order. out->*
 * is NAN where nothing was measured. */
void lat_evaluate(const lat_step *steps, size_t n_steps, const lat_frame *frames, size_t n_frames,
                  double settle_s, double limit_s, lat_result *out);

#endif
