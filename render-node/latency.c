/* latency: the stage split and the per-window summary (see latency.h). */
#include "latency.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double rn_latency_split(const rn_chain *c, double stage[SIM_LATENCY_STAGES])
{
    const double at[SIM_LATENCY_STAGES + 1] = {c->in_stamp, c->in_sent, c->in_recv, c->stepped,
                                               c->state_recv, c->frame_start, c->draw_end, c->swap_end};
    for (int i = 0; i <= SIM_LATENCY_STAGES; i++)
        if (!isfinite(at[i])) return NAN;
    for (int i = 0; i < SIM_LATENCY_STAGES; i++) stage[i] = at[i + 1] - at[i];
    return c->swap_end - c->in_stamp;
}

void rn_latency_window_init(rn_latency_window *w)
{
    w->start = -1;
    w->n = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double rn_quantile(double *v, int n, double q)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(q * n) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

int rn_latency_add(rn_latency_window *w, double now, double total, const double stage[SIM_LATENCY_STAGES],
                   double window_s, sim_msg_render_latency *out)
{
    if (w->n == 0) w->start = now;
    w->total[w->n] = total;
    for (int s = 0; s < SIM_LATENCY_STAGES; s++) w->stage[s][w->n] = stage[s];
    w->n++;
    if (now - w->start < window_s - 1e-9 && w->n < RN_LATENCY_WINDOW_MAX) return 0;
    int n = w->n;
    memset(out, 0, sizeof *out);
    out->window_s = now - w->start;
    out->frames = n;
    out->median_ms = rn_quantile(w->total, n, 0.5) * 1e3; /* sorts: min and max follow */
    out->min_ms = w->total[0] * 1e3;
    out->max_ms = w->total[n - 1] * 1e3;
    out->p95_ms = rn_quantile(w->total, n, 0.95) * 1e3;
    for (int s = 0; s < SIM_LATENCY_STAGES; s++) out->stage_ms[s] = rn_quantile(w->stage[s], n, 0.5) * 1e3;
    rn_latency_window_init(w);
    return 1;
}
