/* Fuzz target: sim_metrics_compute on arbitrary samples and tasks.
 *
 * The input is read as little-endian doubles: a header (s-range, h, width, number of
 * ideal points and speed margin in bytes 32 and 33), the ideal points, then samples of 8
 * columns (t, s, d, speed, headway, steer, brake, mark offset; the brake column is also
 * the speed limit). Whatever the numbers (NaN, infinities, time going back, huge
 * values), the computation either refuses them with a message or returns events that
 * make sense: inside the covered range, areas not negative, and no more time over the
 * limit plus a margin than over the limit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_metrics.h"

#define COLS 8

static double rd(const uint8_t *p)
{
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5 * 8) return 0;
    double s0 = rd(data), s1 = rd(data + 8), h = rd(data + 16), w = rd(data + 24);
    size_t ni = (size_t)(data[32] % 8) + 1;
    size_t off = 40;
    if (size < off + ni * 16) return 0;
    sim_metrics_point ideal[8];
    for (size_t k = 0; k < ni; k++) ideal[k] = (sim_metrics_point){rd(data + off + 16 * k), rd(data + off + 16 * k + 8)};
    off += ni * 16;
    size_t n = (size - off) / (COLS * 8);
    double *c = malloc((n ? n : 1) * COLS * sizeof *c * 2);
    if (!c) return 0;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < COLS; j++) c[j * n + i] = rd(data + off + (i * COLS + j) * 8);
    double *ml = c + COLS * n, *mr = ml + n;
    for (size_t i = 0; i < n; i++) ml[i] = c[7 * n + i], mr[i] = -c[7 * n + i];
    sim_metrics_samples smp = {.n = n, .t = c, .s = c + n, .d = c + 2 * n, .speed = c + 3 * n,
                               .headway = c + 4 * n, .steer = c + 5 * n, .brake = c + 6 * n,
                               .speed_limit = c + 6 * n,
                               .mark_left = ml, .mark_right = mr};
    double stim[2] = {n ? c[0] : 0, n > 1 ? c[1] : 1};
    sim_metrics_task task;
    sim_metrics_task_init(&task);
    task.s_start = s0;
    task.s_end = s1;
    task.tube_half_width = h;
    task.vehicle_width = w;
    task.ideal = ideal;
    task.n_ideal = ni;
    task.stimulus_t = stim;
    task.n_stimuli = 2;
    task.speed_margin = data[33] / 10.0;
    sim_metrics_result r;
    sim_error err = {0};
    if (sim_metrics_compute(&smp, &task, &r, &err) == 0) {
        for (size_t k = 0; k < r.n_events; k++) {
            const sim_metrics_event *ev = &r.events[k];
            if (!(ev->area >= 0) && !isnan(ev->area)) __builtin_trap();
            if (ev->s_start > ev->s_end) __builtin_trap();
        }
        double over = r.time_over_limit, over_m = r.time_over_limit_margin;
        if (isfinite(over) && isfinite(over_m) && over_m > over + 1e-9 * fabs(over) + 1e-12)
            __builtin_trap();
        sim_metrics_result_free(&r);
    } else if (!err.msg[0]) {
        __builtin_trap(); /* every refusal explains itself */
    }
    free(c);
    return 0;
}
