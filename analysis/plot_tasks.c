/* plot_tasks: the secondary-task figure of one task (tasks-<task>-r<run>.png/svg): DRT
 * stimuli (one row per modality, each bar from onset to its end) with the responses,
 * hits green and misses red; glance strips, one row per area of interest that was
 * looked at, the transition towards an area lighter than the dwell and off-road glances
 * over 2 s outlined red; and TLC over time with the 1 s line. Same time axis as the
 * timeline figure, so the two read together. */
#include "plot.h"

#include <math.h>
#include <stdlib.h>

static const rgb C_MOD[SIM_DRT_NMODALITIES] = {{0.10, 0.35, 0.75}, {0.55, 0.25, 0.65}, {0.90, 0.50, 0.05}};
static const rgb C_HIT = {0.10, 0.55, 0.25}, C_MISS = {0.84, 0.10, 0.12}, C_OTHER = {0.45, 0.45, 0.45};

bool an_plot_tasks_wanted(const an_result *res, const an_task_result *tr)
{
    (void)res;
    return tr->computed && tr->i1 - tr->i0 >= 2 &&
           (tr->x.has_drt || tr->x.has_gaze || tr->x.has_tlc);
}

static rgb area_colour(size_t a)
{
    return a == 0 ? (rgb){0.55, 0.75, 0.55} : plot_colormap((double)((a * 3) % 8) / 8.0);
}

/* Row labels at the left of a categorical panel. */
static void row_label(const axes *a, double row, const char *s)
{
    plot_set_rgb(a->cr, C_TEXT);
    plot_text_at(a->cr, a->x - 6, plot_ax_py(a, row + 0.5), 10.5, s, 1.0, 0.5);
}

static void draw_drt(const an_result *res, const an_task_result *tr, axes *a)
{
    cairo_t *cr = a->cr;
    const an_streams *st = &res->streams;
    for (int m = 0; m < SIM_DRT_NMODALITIES; m++) row_label(a, 2 - m, sim_drt_modality_name(m));
    plot_axes_clip(a);
    size_t k = 0;
    for (size_t q = tr->x.drt_first; q < st->n_stim && k < tr->x.drt.n; q++) {
        const an_drt_stim *s = &st->stim[q];
        if (s->run != tr->run || s->modality < 0) continue;
        double row = 2 - s->modality, end = isfinite(s->t_off) ? s->t_off : s->t + 1.0;
        double x0 = plot_ax_px(a, s->t), x1 = fmax(plot_ax_px(a, end), x0 + 2);
        double y0 = plot_ax_py(a, row + 0.85), y1 = plot_ax_py(a, row + 0.15);
        plot_set_rgba(cr, C_MOD[s->modality], 0.75);
        cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
        cairo_fill(cr);
        if (tr->x.drt.outcome[k] == SIM_DRT_MISS) {
            plot_set_rgb(cr, C_MISS);
            cairo_set_line_width(cr, 2);
            cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
            cairo_stroke(cr);
        }
        k++;
    }
    /* Responses: green in the row of the stimulus it hit, so that each hit stands beside
     * its stimulus; any other response (early, extra) grey across all rows. */
    double t0 = a->x0, t1 = a->x1;
    for (size_t q = 0; q < st->n_resp; q++) {
        const an_stamp *r = &st->resp[q];
        if (r->run != tr->run || r->t < t0 || r->t > t1) continue;
        int hit_row = -1;
        size_t j = 0;
        for (size_t p = tr->x.drt_first; p < st->n_stim && j < tr->x.drt.n; p++) {
            if (st->stim[p].run != tr->run || st->stim[p].modality < 0) continue;
            if (tr->x.drt.outcome[j] == SIM_DRT_HIT && fabs(st->stim[p].t + tr->x.drt.rt[j] - r->t) < 1e-9)
                hit_row = 2 - st->stim[p].modality;
            j++;
        }
        plot_set_rgb(cr, hit_row >= 0 ? C_HIT : C_OTHER);
        cairo_set_line_width(cr, hit_row >= 0 ? 2.0 : 1.0);
        double px = plot_ax_px(a, r->t);
        cairo_move_to(cr, px, hit_row >= 0 ? plot_ax_py(a, hit_row + 0.95) : a->y);
        cairo_line_to(cr, px, hit_row >= 0 ? plot_ax_py(a, hit_row + 0.05) : a->y + a->h);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

static void draw_glances(const an_result *res, const an_task_result *tr, axes *a,
                         const int *row_of, int rows)
{
    cairo_t *cr = a->cr;
    const an_streams *st = &res->streams;
    for (size_t ar = 0; ar < st->n_areas; ar++)
        if (row_of[ar] >= 0) row_label(a, rows - 1 - row_of[ar], st->areas[ar].name);
    plot_axes_clip(a);
    for (size_t k = 0; k < tr->x.glance.n; k++) {
        const sim_glance *g = &tr->x.glance.glances[k];
        double row = rows - 1 - row_of[g->area];
        double xs = plot_ax_px(a, g->t_start), xd = plot_ax_px(a, g->t_dwell), xe = plot_ax_px(a, g->t_end);
        double y0 = plot_ax_py(a, row + 0.85), y1 = plot_ax_py(a, row + 0.15);
        rgb c = area_colour((size_t)g->area);
        plot_set_rgba(cr, c, 0.35);
        cairo_rectangle(cr, xs, y0, xd - xs, y1 - y0);
        cairo_fill(cr);
        plot_set_rgba(cr, c, 0.9);
        cairo_rectangle(cr, xd, y0, fmax(xe - xd, 1), y1 - y0);
        cairo_fill(cr);
        if (g->area != 0 && g->duration > 2.0) {
            plot_set_rgb(cr, C_MISS);
            cairo_set_line_width(cr, 2);
            cairo_rectangle(cr, xs, y0, xe - xs, y1 - y0);
            cairo_stroke(cr);
        }
    }
    cairo_restore(cr);
}

int an_plot_tasks(const an_result *res, const an_task_result *tr, const char *path,
                  an_format fmt, sim_error *err)
{
    const an_drive *dr = res->drive;
    size_t i0 = tr->i0, n = tr->i1 - tr->i0;
    if (n < 2) return sim_error_set(err, SIM_EINVAL, "%s: task %s has no samples to plot", path, tr->task->id);
    const double *t = dr->col[AN_T] + i0;
    double t0 = t[0], t1 = t[n - 1] > t0 ? t[n - 1] : t0 + 1;
    /* Rows of the glance strips: the areas looked at in the task, in the areas' order. */
    int row_of[SIM_GLANCE_AOI_MAX], rows = 0;
    for (size_t a = 0; a < SIM_GLANCE_AOI_MAX; a++)
        row_of[a] = a < res->streams.n_areas && tr->x.has_gaze && tr->x.glance.area[a].count ? rows++ : -1;
    const double W = 1100, left = 110, top = 84, gap = 34;
    double h_drt = tr->x.has_drt ? 90 : 0, h_gl = rows ? 26.0 * rows : 0, h_tlc = tr->x.has_tlc ? 170 : 0;
    int panels = (h_drt > 0) + (h_gl > 0) + (h_tlc > 0);
    double H = top + h_drt + h_gl + h_tlc + gap * (panels - 1) + 56;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) return rc;
    cairo_t *cr = cv.cr;
    char txt[200];
    /* The title names the panels drawn; the legend is for the DRT and glance colours. */
    snprintf(txt, sizeof txt, "Task %s (run %d):%s%s%s", tr->task->id, tr->run,
             h_drt > 0 ? " detection response task" : "", h_gl > 0 ? (h_drt > 0 ? ", glances" : " glances") : "",
             h_tlc > 0 ? (h_drt > 0 || h_gl > 0 ? ", time to line crossing" : " time to line crossing") : "");
    plot_title(cr, left, 12, txt);
    if (h_drt > 0 || h_gl > 0) {
        const char *labels[] = {"visual", "tactile", "auditory", "hit response", "miss / glance > 2 s", "other response"};
        rgb cols[] = {C_MOD[0], C_MOD[1], C_MOD[2], C_HIT, C_MISS, C_OTHER};
        int st[] = {3, 3, 3, 0, 0, 0};
        plot_legend(cr, left, 38, labels, cols, st, 6);
    }
    double y = top;
    int drawn = 0;
    if (h_drt > 0) {
        axes a = {cr, left, y, W - left - 24, h_drt, t0, t1, 0, 3};
        bool last = ++drawn == panels;
        plot_axes_draw(&a, last ? "time t (s)" : NULL, NULL, last, 12, 0);
        draw_drt(res, tr, &a);
        plot_set_rgb(cr, C_TEXT);
        snprintf(txt, sizeof txt, "DRT: %zu stimuli, %zu hits, %zu misses, %zu early; mean RT %.0f ms",
                 tr->x.drt.all.stimuli, tr->x.drt.all.hits, tr->x.drt.all.misses, tr->x.drt.all.early,
                 tr->x.drt.all.rt_mean * 1000);
        plot_text_at(cr, left, y - 4, 11, txt, 0, 0);
        y += h_drt + gap;
    }
    if (h_gl > 0) {
        axes a = {cr, left, y, W - left - 24, h_gl, t0, t1, 0, rows};
        bool last = ++drawn == panels;
        plot_axes_draw(&a, last ? "time t (s)" : NULL, NULL, last, 12, 0);
        draw_glances(res, tr, &a, row_of, rows);
        const sim_glance_result *g = &tr->x.glance;
        snprintf(txt, sizeof txt, "Glances: %zu off road, %.1f s eyes off road, %zu over 2 s, "
                 "85th percentile %.2f s: NHTSA check %s", g->off_road_count, g->eyes_off_road,
                 g->long_glances, g->off_road_p85, g->nhtsa_pass ? "passed" : "failed");
        plot_set_rgb(cr, C_TEXT);
        plot_text_at(cr, left, y - 4, 11, txt, 0, 0);
        y += h_gl + gap;
    }
    if (h_tlc > 0) {
        const double cap = 6.0;
        double *v = malloc(n * sizeof *v);
        if (!v) {
            plot_canvas_close(&cv, NULL);
            return sim_error_set(err, SIM_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) v[i] = isinf(tr->x.tlc_v[i]) ? cap : fmin(tr->x.tlc_v[i], cap);
        axes a = {cr, left, y, W - left - 24, h_tlc, t0, t1, 0, cap};
        plot_axes_draw(&a, "time t (s)", "TLC (s)", true, 12, 4);
        plot_axes_clip(&a);
        plot_set_rgba(cr, C_MISS, 0.8);
        double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_line_width(cr, 1.2);
        cairo_move_to(cr, a.x, plot_ax_py(&a, 1.0));
        cairo_line_to(cr, a.x + a.w, plot_ax_py(&a, 1.0));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_set_line_width(cr, 1.5);
        plot_set_rgb(cr, C_DRIVEN);
        plot_polyline(&a, t, v, n);
        cairo_restore(cr);
        if (isnan(tr->x.tlc.min))
            snprintf(txt, sizeof txt, "TLC along the current path: no line within reach of the path (over 20 s) "
                     "anywhere in the task");
        else if (isnan(tr->x.tlc.minima_mean))
            snprintf(txt, sizeof txt, "TLC along the current path (6 s and more drawn at 6): min %.2f s, "
                     "%.2f s below 1 s, no local minimum", tr->x.tlc.min, tr->x.tlc.time_below);
        else
            snprintf(txt, sizeof txt, "TLC along the current path (6 s and more drawn at 6): min %.2f s, "
                     "%.2f s below 1 s, mean of local minima %.2f s", tr->x.tlc.min, tr->x.tlc.time_below,
                     tr->x.tlc.minima_mean);
        plot_set_rgb(cr, C_TEXT);
        plot_text_at(cr, left, y - 4, 11, txt, 0, 0);
        free(v);
    }
    return plot_canvas_close(&cv, err);
}
