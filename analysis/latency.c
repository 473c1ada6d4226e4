/* latency: the drive's wheel-to-picture delay (docs/latency.md) from the drive log's
 * latency table (one row per 0.1 s of render-node frames): the report's line
 * "wheel to picture: median X ms, p95 Y ms", its panel with the stage split, and
 * metrics.json's "latency". The rows are windows, not frames, so the drive's median is
 * the frame-weighted median of the windows' medians and its p95 the frame-weighted
 * 95th percentile of the windows' p95s (on the safe side: at least the frames' p95
 * when the windows are alike). The front view's rows (source "render") when there are
 * any, else every row. */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_drivelog.h"

typedef struct take {
    an_drive *dr;
    bool front_only;
    int rc;
} take;

static int take_row(const sim_drivelog_latency *l, void *user)
{
    take *tk = user;
    if (tk->front_only && strcmp(l->source, "render") != 0) return 0;
    an_latency_row *p = realloc(tk->dr->latency, (tk->dr->n_latency + 1) * sizeof *p);
    if (!p) {
        tk->rc = SIM_ENOMEM;
        return 1;
    }
    tk->dr->latency = p;
    an_latency_row *r = &p[tk->dr->n_latency++];
    *r = (an_latency_row){.run = (int)l->run, .t = l->t, .frames = l->frames, .median_ms = l->median_ms,
                          .p95_ms = l->p95_ms, .max_ms = l->max_ms};
    for (int k = 0; k < 7; k++) r->stage_ms[k] = l->stage_ms[k];
    return 0;
}

static int any_front(const sim_drivelog_latency *l, void *user)
{
    if (strcmp(l->source, "render") == 0) {
        *(bool *)user = true;
        return 1;
    }
    return 0;
}

int an_latency_load(an_drive *dr, sim_drivelog_reader *rd, sim_error *err)
{
    bool front = false;
    int rc = sim_drivelog_each_latency(rd, sim_drivelog_range_all(), any_front, &front, err);
    take tk = {.dr = dr, .front_only = front};
    if (!rc) rc = sim_drivelog_each_latency(rd, sim_drivelog_range_all(), take_row, &tk, err);
    if (!rc && tk.rc) rc = sim_error_set(err, tk.rc, "analysis: out of memory reading latency rows");
    return rc;
}

typedef struct wv {
    double v;
    int w;
} wv;

static int cmp_wv(const void *a, const void *b)
{
    double x = ((const wv *)a)->v, y = ((const wv *)b)->v;
    return x < y ? -1 : x > y;
}

/* The q-quantile of values weighted by frames (nearest rank over the frames). */
static double weighted_quantile(wv *v, size_t n, double q)
{
    long total = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i].v) && v[i].w > 0) {
            v[m++] = v[i];
            total += v[i].w;
        }
    if (m == 0) return NAN;
    qsort(v, m, sizeof *v, cmp_wv);
    long rank = (long)ceil(q * (double)total);
    if (rank < 1) rank = 1;
    long seen = 0;
    for (size_t i = 0; i < m; i++) {
        seen += v[i].w;
        if (seen >= rank) return v[i].v;
    }
    return v[m - 1].v;
}

void an_latency_summarise(const an_latency_row *rows, size_t n, an_latency_summary *out)
{
    memset(out, 0, sizeof *out);
    out->median_ms = out->p95_ms = out->max_ms = NAN;
    for (int k = 0; k < 7; k++) out->stage_ms[k] = NAN;
    if (n == 0) return;
    wv *v = malloc(n * sizeof *v);
    if (!v) return;
    out->windows = n;
    for (size_t i = 0; i < n; i++) {
        out->frames += rows[i].frames;
        if (isfinite(rows[i].max_ms) && !(out->max_ms >= rows[i].max_ms)) out->max_ms = rows[i].max_ms;
    }
    for (size_t i = 0; i < n; i++) v[i] = (wv){rows[i].median_ms, rows[i].frames};
    out->median_ms = weighted_quantile(v, n, 0.5);
    for (size_t i = 0; i < n; i++) v[i] = (wv){rows[i].p95_ms, rows[i].frames};
    out->p95_ms = weighted_quantile(v, n, 0.95);
    for (int k = 0; k < 7; k++) {
        for (size_t i = 0; i < n; i++) v[i] = (wv){rows[i].stage_ms[k], rows[i].frames};
        out->stage_ms[k] = weighted_quantile(v, n, 0.5);
    }
    free(v);
}

void an_latency_line(const an_latency_summary *s, char *buf, size_t size)
{
    if (s->windows == 0 || !isfinite(s->median_ms))
        snprintf(buf, size, "wheel to picture: no figure (no render-node frames with stamped input in this drive)");
    else
        snprintf(buf, size, "wheel to picture: median %.1f ms, p95 %.1f ms", s->median_ms, s->p95_ms);
}

void an_latency_html(FILE *f, const an_drive *dr)
{
    if (dr->n_latency == 0) return;
    an_latency_summary s;
    an_latency_summarise(dr->latency, dr->n_latency, &s);
    char line[160];
    an_latency_line(&s, line, sizeof line);
    static const char *const names[7] = {"device to input-node", "input-node to physics", "physics step wait",
                                         "physics to render", "render wait", "draw", "swap"};
    fprintf(f, "<h2>Wheel to picture</h2>\n<p><b>%s</b> (max %.1f ms; %ld frames in %zu windows of 0.1 s; "
               "docs/latency.md)</p>\n<table><tr><th class=\"l\">stage</th><th>median (ms)</th></tr>",
            line, s.max_ms, s.frames, s.windows);
    for (int k = 0; k < 7; k++) {
        fprintf(f, "<tr><td class=\"l\">%s</td><td>", names[k]);
        an_html_num(f, s.stage_ms[k], 2);
        fputs("</td></tr>", f);
    }
    fputs("</table>\n", f);
}
