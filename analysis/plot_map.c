/* plot_map: the analysis figures beyond one task (see plot.h): the top-down map of a
 * run, the box plots of a study and the definitions figure of docs/metrics.md. */
#include "plot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- top-down map ---- */

int an_plot_map(const an_result *res, int run, const char *path, an_format fmt, sim_error *err)
{
    const an_drive *dr = res->drive;
    const double *x = dr->col[AN_X], *y = dr->col[AN_Y];
    /* |e| of each sample of the run, where a task defines it. */
    size_t r0 = dr->n, r1 = 0;
    for (size_t i = 0; i < dr->n; i++)
        if ((int)dr->col[AN_RUN][i] == run) {
            if (i < r0) r0 = i;
            r1 = i + 1;
        }
    if (r0 >= r1) return sim_error_set(err, SIM_EINVAL, "%s: run %d has no samples", path, run);
    size_t n = r1 - r0;
    double *ae = malloc(n * sizeof *ae);
    if (!ae) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) ae[i] = NAN;
    double emax = 0;
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        if (tr->run != run) continue;
        size_t cur = 0;
        double smax = -INFINITY;
        for (size_t i = tr->i0; i < tr->i1; i++) {
            double s = dr->col[AN_S][i];
            if (s > smax) smax = s;
            if (smax < tr->task->s_start || smax > tr->task->s_end) continue;
            double e = fabs(dr->col[AN_D][i] - sim_metrics_ideal_at(tr->task->ideal, tr->task->n_ideal, smax, &cur));
            ae[i - r0] = e;
            if (e > emax) emax = e;
        }
    }
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    plot_range_of(x + r0, n, &xlo, &xhi);
    plot_range_of(y + r0, n, &ylo, &yhi);
    /* Equal scale on both axes: the canvas takes the path's aspect within bounds, and
     * the narrower range is widened about its centre. */
    if (!(xhi > xlo)) xlo -= 1, xhi += 1;
    if (!(yhi > ylo)) ylo -= 1, yhi += 1;
    const double W = 900, pw = W - 80 - 110;
    double ph = pw * (yhi - ylo) / (xhi - xlo) / 0.94;
    if (ph < 280) ph = 280;
    if (ph > 760) ph = 760;
    const double H = ph + 60 + 60;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) {
        free(ae);
        return rc;
    }
    cairo_t *cr = cv.cr;
    double scale = fmin(pw / (xhi - xlo), ph / (yhi - ylo)) * 0.94;
    double cx = 0.5 * (xlo + xhi), cy = 0.5 * (ylo + yhi);
    axes a = {cr, 80, 60, pw, ph, cx - pw / 2 / scale, cx + pw / 2 / scale, cy - ph / 2 / scale, cy + ph / 2 / scale};
    char txt[160];
    snprintf(txt, sizeof txt, "Driven path (run %d), coloured by |deviation| from the ideal path", run);
    plot_title(cr, a.x, 14, txt);
    plot_axes_draw(&a, "x east (m)", "y north (m)", true, 8, 8);
    plot_axes_clip(&a);
    if (!(emax > 0)) emax = 1;
    cairo_set_line_width(cr, 3.2);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    /* Thin to about one segment per pixel of path: same picture, bounded cost. */
    double minstep = 1.0 / scale;
    size_t last = 0;
    bool have = false;
    for (size_t i = 0; i < n; i++) {
        size_t g = r0 + i;
        if (!isfinite(x[g]) || !isfinite(y[g])) {
            have = false;
            continue;
        }
        if (!have) {
            last = g;
            have = true;
            continue;
        }
        if (hypot(x[g] - x[last], y[g] - y[last]) < minstep && i + 1 < n) continue;
        double e = ae[last - r0];
        if (isnan(e)) cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
        else plot_set_rgb(cr, plot_colormap(e / emax));
        cairo_move_to(cr, plot_ax_px(&a, x[last]), plot_ax_py(&a, y[last]));
        cairo_line_to(cr, plot_ax_px(&a, x[g]), plot_ax_py(&a, y[g]));
        cairo_stroke(cr);
        last = g;
    }
    cairo_restore(cr);
    /* Colour bar. */
    double bx = a.x + a.w + 30, by = a.y + 20, bh = a.h - 40;
    for (int k = 0; k < 100; k++) {
        plot_set_rgb(cr, plot_colormap(k / 99.0));
        cairo_rectangle(cr, bx, by + bh - (k + 1) * bh / 100, 16, bh / 100 + 0.5);
        cairo_fill(cr);
    }
    plot_set_rgb(cr, C_AXIS);
    cairo_set_line_width(cr, 0.8);
    cairo_rectangle(cr, bx, by, 16, bh);
    cairo_stroke(cr);
    plot_set_rgb(cr, C_TEXT);
    double st = plot_nice_step(emax, 5);
    for (double vv = 0; vv <= emax + 1e-12; vv += st) {
        plot_fmt_tick(txt, sizeof txt, vv, st);
        plot_text_at(cr, bx + 21, by + bh - vv / emax * bh, 11, txt, 0, 0.5);
    }
    plot_text_at(cr, bx - 4, by - 8, 11.5, "|e| (m)", 0, 0);
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_rectangle(cr, bx, by + bh + 14, 16, 8);
    cairo_fill(cr);
    plot_set_rgb(cr, C_TEXT);
    plot_text_at(cr, bx + 21, by + bh + 18, 10.5, "no task", 0, 0.5);
    free(ae);
    return plot_canvas_close(&cv, err);
}

/* ---- box plots ---- */

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t k = (size_t)pos;
    if (k + 1 >= n) return v[n - 1];
    return v[k] + (v[k + 1] - v[k]) * (pos - (double)k);
}

int an_plot_boxes(const char *ttl, const char *ylabel, const char *const *groups,
                  size_t n_groups, const double *const *values, const size_t *n_values,
                  const char *path, an_format fmt, sim_error *err)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t g = 0; g < n_groups; g++) plot_range_of(values[g], n_values[g], &lo, &hi);
    if (lo > 0 && lo < hi * 0.5) lo = 0;
    plot_nice_range(&lo, &hi, 5);
    double W = 160 + 90.0 * (double)(n_groups < 4 ? 4 : n_groups), H = 380;
    if (W > 1400) W = 1400;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) return rc;
    cairo_t *cr = cv.cr;
    axes a = {cr, 76, 44, W - 76 - 20, H - 44 - 64, 0, (double)(n_groups ? n_groups : 1), lo, hi};
    plot_title(cr, a.x, 14, ttl);
    /* y grid and axis only; groups label the x axis. */
    plot_axes_draw(&a, NULL, ylabel, false, 0, 5);
    bool any = false;
    for (size_t g = 0; g < n_groups && !any; g++)
        for (size_t k = 0; k < n_values[g] && !any; k++) any = isfinite(values[g][k]);
    if (!any) {
        plot_set_rgb(cr, C_AXIS);
        plot_text_at(cr, a.x + a.w / 2, a.y + a.h / 2, 13, "no values: no task of the study has this measure",
                0.5, 0.5);
    }
    double slot = a.w / (double)(n_groups ? n_groups : 1);
    for (size_t g = 0; g < n_groups; g++) {
        double cx = a.x + slot * ((double)g + 0.5);
        plot_set_rgb(cr, C_TEXT);
        plot_text_at(cr, cx, a.y + a.h + 6, 11, groups[g], 0.5, 1.0);
        size_t n = 0;
        double *v = malloc((n_values[g] + 1) * sizeof *v);
        if (!v) {
            plot_canvas_close(&cv, NULL);
            return sim_error_set(err, SIM_ENOMEM, "out of memory");
        }
        for (size_t k = 0; k < n_values[g]; k++)
            if (isfinite(values[g][k])) v[n++] = values[g][k];
        if (n == 0) {
            free(v);
            continue;
        }
        qsort(v, n, sizeof *v, dbl_cmp);
        double q1 = quantile(v, n, 0.25), q2 = quantile(v, n, 0.5), q3 = quantile(v, n, 0.75);
        double bw = fmin(slot * 0.5, 60);
        cairo_set_line_width(cr, 1.2);
        plot_set_rgba(cr, C_DRIVEN, 0.15);
        cairo_rectangle(cr, cx - bw / 2, plot_ax_py(&a, q3), bw, plot_ax_py(&a, q1) - plot_ax_py(&a, q3));
        cairo_fill_preserve(cr);
        plot_set_rgb(cr, C_DRIVEN);
        cairo_stroke(cr);
        cairo_set_line_width(cr, 2.2);
        cairo_move_to(cr, cx - bw / 2, plot_ax_py(&a, q2));
        cairo_line_to(cr, cx + bw / 2, plot_ax_py(&a, q2));
        cairo_stroke(cr);
        cairo_set_line_width(cr, 1.2);
        cairo_move_to(cr, cx, plot_ax_py(&a, q3));
        cairo_line_to(cr, cx, plot_ax_py(&a, v[n - 1]));
        cairo_move_to(cr, cx, plot_ax_py(&a, q1));
        cairo_line_to(cr, cx, plot_ax_py(&a, v[0]));
        cairo_move_to(cr, cx - bw / 4, plot_ax_py(&a, v[n - 1]));
        cairo_line_to(cr, cx + bw / 4, plot_ax_py(&a, v[n - 1]));
        cairo_move_to(cr, cx - bw / 4, plot_ax_py(&a, v[0]));
        cairo_line_to(cr, cx + bw / 4, plot_ax_py(&a, v[0]));
        cairo_stroke(cr);
        /* Every subject as a dot, spread sideways deterministically. */
        for (size_t k = 0; k < n; k++) {
            double jx = ((double)((k * 7919) % 17) / 16.0 - 0.5) * bw * 0.6;
            plot_set_rgba(cr, C_AREA, 0.85);
            cairo_arc(cr, cx + jx, plot_ax_py(&a, v[k]), 3.0, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        char buf[48];
        snprintf(buf, sizeof buf, "n=%zu", n);
        plot_set_rgb(cr, C_AXIS);
        plot_text_at(cr, cx, a.y + a.h + 22, 9.5, buf, 0.5, 1.0);
        free(v);
    }
    return plot_canvas_close(&cv, err);
}

/* ---- the definitions figure of docs/metrics.md ---- */

static void circle(cairo_t *cr, double x, double y, double r, bool filled)
{
    cairo_new_sub_path(cr);
    cairo_arc(cr, x, y, r, 0, 2 * M_PI);
    if (filled) cairo_fill(cr);
    else {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
        plot_set_rgb(cr, C_TEXT);
        cairo_set_line_width(cr, 1.3);
        cairo_stroke(cr);
    }
}

int an_plot_definitions(const char *path, an_format fmt, sim_error *err)
{
    /* A hand-made task: ideal path d = 0, h = 0.5 m, marks at +-1.75 m, car 1.8 m wide;
     * samples every 8 m (the last at 100 m, where the task ends). */
    static const double S[] = {0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 100};
    static const double E[] = {0.2, 0.35, 0.9, 1.3, 1.0, 0.4, 0.1, -0.45, -0.8, -0.6, -0.2, 0.3, 0.7, 0.8};
    enum { NS = sizeof S / sizeof S[0] };
    double T[NS], ML[NS], MR[NS];
    for (int i = 0; i < NS; i++) T[i] = S[i] / 10, ML[i] = 1.75, MR[i] = -1.75;
    static const sim_metrics_point ideal[] = {{0, 0}};
    sim_metrics_samples smp = {.n = NS, .t = T, .s = S, .d = E, .mark_left = ML, .mark_right = MR};
    sim_metrics_task task;
    sim_metrics_task_init(&task);
    task.s_start = 0;
    task.s_end = 100;
    task.ideal = ideal;
    task.n_ideal = 1;
    task.tube_half_width = 0.5;
    sim_metrics_result m;
    int rc = sim_metrics_compute(&smp, &task, &m, err);
    if (rc) return rc;
    canvas cv;
    if ((rc = plot_canvas_open(&cv, path, fmt, 1000, 470, err))) {
        sim_metrics_result_free(&m);
        return rc;
    }
    cairo_t *cr = cv.cr;
    axes a = {cr, 70, 56, 1000 - 70 - 24, 470 - 56 - 58, 0, 100, -2.5, 2.75};
    plot_title(cr, a.x, 12, "Deviation events, local areas and lane-mark events of one task");
    {
        const char *labels[] = {"driven d (samples)", "ideal path", "tube \xc2\xb1h", "lane mark",
                                "local area", "severe (body over mark)", "body edge d + w/2"};
        rgb cols[] = {C_DRIVEN, C_IDEAL, C_TUBE, C_MARK, C_AREA, C_SEVERE, C_SEVERE};
        int st[] = {0, 1, 3, 1, 3, 3, 1};
        plot_legend(cr, a.x, 40, labels, cols, st, 7);
    }
    plot_axes_draw(&a, "distance along the road s (m)", "lateral position d (m)", true, 10, 9);
    plot_axes_clip(&a);
    plot_set_rgba(cr, C_TUBE, 0.35);
    cairo_rectangle(cr, a.x, plot_ax_py(&a, 0.5), a.w, plot_ax_py(&a, -0.5) - plot_ax_py(&a, 0.5));
    cairo_fill(cr);
    /* Local areas: the polygon between e and 0 over each event. */
    for (size_t k = 0; k < m.n_events; k++) {
        const sim_metrics_event *ev = &m.events[k];
        plot_set_rgba(cr, ev->kind == SIM_METRICS_MARK ? C_SEVERE : C_AREA, ev->kind == SIM_METRICS_MARK ? 0.5 : 0.55);
        cairo_move_to(cr, plot_ax_px(&a, ev->s_start), plot_ax_py(&a, 0));
        for (int i = 0; i + 1 < NS; i++) {
            if (S[i + 1] <= ev->s_start || S[i] >= ev->s_end) continue;
            double sa = fmax(S[i], ev->s_start), sb = fmin(S[i + 1], ev->s_end);
            double ea = E[i] + (E[i + 1] - E[i]) * (sa - S[i]) / (S[i + 1] - S[i]);
            double eb = E[i] + (E[i + 1] - E[i]) * (sb - S[i]) / (S[i + 1] - S[i]);
            cairo_line_to(cr, plot_ax_px(&a, sa), plot_ax_py(&a, ea));
            cairo_line_to(cr, plot_ax_px(&a, sb), plot_ax_py(&a, eb));
        }
        cairo_line_to(cr, plot_ax_px(&a, ev->s_end), plot_ax_py(&a, 0));
        cairo_close_path(cr);
        cairo_fill(cr);
    }
    double dash[] = {8, 5};
    cairo_set_line_width(cr, 1.4);
    plot_set_rgb(cr, C_MARK);
    cairo_set_dash(cr, dash, 2, 0);
    for (int q = -1; q <= 1; q += 2) {
        cairo_move_to(cr, a.x, plot_ax_py(&a, 1.75 * q));
        cairo_line_to(cr, a.x + a.w, plot_ax_py(&a, 1.75 * q));
    }
    cairo_stroke(cr);
    plot_set_rgb(cr, C_IDEAL);
    cairo_move_to(cr, a.x, plot_ax_py(&a, 0));
    cairo_line_to(cr, a.x + a.w, plot_ax_py(&a, 0));
    cairo_stroke(cr);
    double dot[] = {2, 3};
    cairo_set_dash(cr, dot, 2, 0);
    plot_set_rgba(cr, C_SEVERE, 0.8);
    for (int i = 0; i < NS; i++) {
        double px = plot_ax_px(&a, S[i]), py = plot_ax_py(&a, E[i] + 0.9);
        if (i) cairo_line_to(cr, px, py);
        else cairo_move_to(cr, px, py);
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 1.8);
    plot_set_rgb(cr, C_DRIVEN);
    plot_polyline(&a, S, E, NS);
    for (int i = 0; i < NS; i++) circle(cr, plot_ax_px(&a, S[i]), plot_ax_py(&a, E[i]), 3.2, true);
    cairo_restore(cr);
    /* Crossing points (open circles) with their names, the zero crossing, and labels. */
    char buf[96];
    int q = 0;
    for (size_t k = 0; k < m.n_events; k++) {
        const sim_metrics_event *ev = &m.events[k];
        if (ev->kind != SIM_METRICS_TUBE) continue;
        q++;
        double ya = ev->side > 0 ? 0.5 : -0.5;
        circle(cr, plot_ax_px(&a, ev->s_start), plot_ax_py(&a, ya), 4.5, false);
        double ly = plot_ax_py(&a, ya) + 16; /* names below the crossing points */
        snprintf(buf, sizeof buf, "a%d", q);
        plot_text_at(cr, plot_ax_px(&a, ev->s_start) - 4, ly, 12, buf, 1, 0.5);
        if (!ev->open_end) {
            circle(cr, plot_ax_px(&a, ev->s_end), plot_ax_py(&a, ya), 4.5, false);
            snprintf(buf, sizeof buf, "b%d", q);
            plot_text_at(cr, plot_ax_px(&a, ev->s_end) + 4, ly, 12, buf, 0, 0.5);
        }
        double sm = 0.5 * (ev->s_start + ev->s_end);
        snprintf(buf, sizeof buf, "A_local,%d = %.2f m\xc2\xb2%s", q, ev->area,
                 ev->open_end ? " (open at the task end)" : "");
        plot_set_rgb(cr, C_TEXT);
        if (ev->open_end)
            plot_text_at(cr, a.x + a.w - 4, plot_ax_py(&a, 2.45), 12, buf, 1, 0.5);
        else
            plot_text_at(cr, plot_ax_px(&a, sm), plot_ax_py(&a, ev->side > 0 ? 2.45 : -2.25), 12, buf, 0.5, 0.5);
    }
    /* The zero crossing inside the interval [48, 56]: the integral of |e| splits there. */
    double sz = 48 + 8 * 0.1 / 0.55;
    plot_set_rgb(cr, C_TEXT);
    cairo_set_line_width(cr, 1.5);
    double zx = plot_ax_px(&a, sz), zy = plot_ax_py(&a, 0);
    cairo_move_to(cr, zx - 5, zy - 5);
    cairo_line_to(cr, zx + 5, zy + 5);
    cairo_move_to(cr, zx - 5, zy + 5);
    cairo_line_to(cr, zx + 5, zy - 5);
    cairo_stroke(cr);
    plot_text_at(cr, zx - 6, plot_ax_py(&a, -0.27), 11, "e = 0 inside an interval: |e| is split there", 1, 0.5);
    for (size_t k = 0; k < m.n_events; k++)
        if (m.events[k].kind == SIM_METRICS_MARK) {
            snprintf(buf, sizeof buf, "lane-mark event (severe), %.2f m\xc2\xb2", m.events[k].area);
            plot_set_rgb(cr, C_SEVERE);
            plot_text_at(cr, plot_ax_px(&a, m.events[k].s_end) + 60, plot_ax_py(&a, 1.75) - 10, 11.5, buf, 0, 0.5);
        }
    snprintf(buf, sizeof buf, "A_global = \xce\xa3 A_local,i = %.2f m\xc2\xb2    MDEV = \xe2\x88\xab|e| ds / L = %.3f m",
             m.area_global, m.mdev);
    plot_set_rgb(cr, C_TEXT);
    plot_text_at(cr, a.x + a.w, 12, 12, buf, 1, 1.0);
    sim_metrics_result_free(&m);
    return plot_canvas_close(&cv, err);
}
