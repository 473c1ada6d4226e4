/* plot: the analysis figures of one task, drawn with cairo into PNG or SVG (see
 * plot.h for the drawing layer): lateral position against s and the timeline of
 * controls. The map, box plots and definitions figure are in plot_map.c. */
#include "plot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lateral position against s ---- */

/* e at s by linear interpolation of the samples (with the running maximum of s). */
typedef struct task_view {
    const an_drive *dr;
    const an_task_result *tr;
    const double *t, *s, *d;
    size_t n;
} task_view;

static task_view view_of(const an_result *res, const an_task_result *tr)
{
    const an_drive *dr = res->drive;
    task_view v = {dr, tr, dr->col[AN_T] + tr->i0, dr->col[AN_S] + tr->i0, dr->col[AN_D] + tr->i0,
                   tr->i1 - tr->i0};
    return v;
}

/* Where the previous shade_between call began to draw: the sample interval and the
 * running maximum of s before it. Events come in order of s_start and the running
 * maximum never decreases, so no interval before it can reach a later event: each
 * event costs its own samples, not the task's (that made the figure O(events x n)). */
typedef struct shade_cursor {
    size_t i;
    double smax, sa; /* sa: the previous event's start (an earlier one restarts) */
} shade_cursor;

/* Shades the region between the driven d and the ideal path over [sa, sb]. */
static void shade_between(axes *a, const task_view *v, const an_task *task, double sa, double sb,
                          shade_cursor *sc)
{
    cairo_t *cr = a->cr;
    if (sa < sc->sa) sc->i = 0, sc->smax = -INFINITY;
    sc->sa = sa;
    double smax = sc->smax, last_px = 0;
    bool started = false;
    size_t cur = 0;
    for (size_t i = sc->i; i + 1 < v->n; i++) {
        double s0 = v->s[i] > smax ? v->s[i] : smax;
        double s1 = v->s[i + 1] > s0 ? v->s[i + 1] : s0;
        double before = smax;
        smax = s0;
        if (s0 >= sb) break; /* s0 never decreases: nothing further reaches [sa, sb] */
        if (s1 <= sa || s1 <= s0) continue;
        if (!started) sc->i = i, sc->smax = before;
        double la = s0 < sa ? (sa - s0) / (s1 - s0) : 0, lb = s1 > sb ? (sb - s0) / (s1 - s0) : 1;
        double da = v->d[i] + (v->d[i + 1] - v->d[i]) * la, db = v->d[i] + (v->d[i + 1] - v->d[i]) * lb;
        double xa = s0 + (s1 - s0) * la, xb = s0 + (s1 - s0) * lb;
        if (!started) {
            cairo_move_to(cr, plot_ax_px(a, xa), plot_ax_py(a, da));
            last_px = plot_ax_px(a, xa);
            started = true;
        }
        /* Vertices closer than a quarter pixel add nothing but file size. */
        double px = plot_ax_px(a, xb);
        if (px - last_px >= 0.25 || lb < 1) {
            cairo_line_to(cr, px, plot_ax_py(a, db));
            last_px = px;
        }
    }
    if (!started) return;
    /* Back along the ideal path (its points inside, then the start). */
    cairo_line_to(cr, plot_ax_px(a, sb), plot_ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, sb, &cur)));
    for (size_t k = task->n_ideal; k-- > 0;) {
        double sk = task->ideal[k].s;
        if (sk > sa && sk < sb) cairo_line_to(cr, plot_ax_px(a, sk), plot_ax_py(a, task->ideal[k].d));
    }
    cur = 0;
    cairo_line_to(cr, plot_ax_px(a, sa), plot_ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, sa, &cur)));
    cairo_close_path(cr);
    cairo_fill(cr);
}

/* The ideal path offset by off, as a polyline over [s0, s1] (its corners included). */
static void ideal_path(axes *a, const an_task *task, double s0, double s1, double off, bool move)
{
    size_t cur = 0;
    double d0 = sim_metrics_ideal_at(task->ideal, task->n_ideal, s0, &cur) + off;
    if (move) cairo_move_to(a->cr, plot_ax_px(a, s0), plot_ax_py(a, d0));
    else cairo_line_to(a->cr, plot_ax_px(a, s0), plot_ax_py(a, d0));
    for (size_t k = 0; k < task->n_ideal; k++)
        if (task->ideal[k].s > s0 && task->ideal[k].s < s1)
            cairo_line_to(a->cr, plot_ax_px(a, task->ideal[k].s), plot_ax_py(a, task->ideal[k].d + off));
    cur = 0;
    cairo_line_to(a->cr, plot_ax_px(a, s1), plot_ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, s1, &cur) + off));
}

static void ideal_path_rev(axes *a, const an_task *task, double s0, double s1, double off)
{
    size_t cur = 0;
    cairo_line_to(a->cr, plot_ax_px(a, s1), plot_ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, s1, &cur) + off));
    for (size_t k = task->n_ideal; k-- > 0;)
        if (task->ideal[k].s > s0 && task->ideal[k].s < s1)
            cairo_line_to(a->cr, plot_ax_px(a, task->ideal[k].s), plot_ax_py(a, task->ideal[k].d + off));
    cur = 0;
    cairo_line_to(a->cr, plot_ax_px(a, s0), plot_ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, s0, &cur) + off));
}

int an_plot_lateral(const an_result *res, const an_task_result *tr, const char *path,
                    an_format fmt, sim_error *err)
{
    const an_task *task = tr->task;
    const an_scenario *sc = res->scenario;
    task_view v = view_of(res, tr);
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, 1100, 430, err);
    if (rc) return rc;
    cairo_t *cr = cv.cr;
    double s0 = task->s_start, s1 = task->s_end;
    if (tr->m.length > 0 && tr->m.s_end < s1) s1 = tr->m.s_end;
    /* d range: the ideal path's lanes and the driven d, with a margin. */
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < task->n_ideal; k++) {
        double l, r;
        an_scenario_marks(sc, task->road, task->ideal[k].s, task->ideal[k].d, &l, &r);
        double dl = isfinite(l) ? l : task->ideal[k].d + 1.75, dr = isfinite(r) ? r : task->ideal[k].d - 1.75;
        if (dr < lo) lo = dr;
        if (dl > hi) hi = dl;
    }
    for (size_t i = 0; i < v.n; i++)
        if (v.s[i] >= s0 && v.s[i] <= s1 && isfinite(v.d[i])) {
            if (v.d[i] < lo) lo = v.d[i];
            if (v.d[i] > hi) hi = v.d[i];
        }
    lo -= 0.4;
    hi += 0.4;
    plot_nice_range(&lo, &hi, 6);
    axes a = {cr, 70, 52, 1100 - 70 - 24, 430 - 52 - 62, s0, s1, lo, hi};
    char buf[200];
    snprintf(buf, sizeof buf, "Task %s (run %d): lateral position along the road", task->id, tr->run);
    plot_title(cr, a.x, 12, buf);
    {
        const char *labels[] = {"driven path", "ideal path", "driving tube", "lane mark",
                                "local area", "lane-mark event (severe)"};
        rgb cols[] = {C_DRIVEN, C_IDEAL, C_TUBE, C_MARK, C_AREA, C_SEVERE};
        int st[] = {0, 1, 3, 1, 3, 2};
        plot_legend(cr, a.x, 40, labels, cols, st, 6);
    }
    plot_axes_draw(&a, "distance along the road s (m)", "lateral position d (m, left +)", true, 10, 6);
    plot_axes_clip(&a);
    /* Tube. */
    plot_set_rgba(cr, C_TUBE, 0.35);
    ideal_path(&a, task, s0, s1, task->tube_half_width, true);
    ideal_path_rev(&a, task, s0, s1, -task->tube_half_width);
    cairo_close_path(cr);
    cairo_fill(cr);
    /* Lane marks (the road's marked borders), solid or dashed as on the road. */
    double bd[64];
    bool solid[64];
    size_t nb = an_scenario_borders(sc, task->road, s0, bd, solid, 64);
    cairo_set_line_width(cr, 1.4);
    double dash[] = {9, 6};
    plot_set_rgb(cr, C_MARK);
    for (size_t k = 0; k < nb; k++) {
        cairo_set_dash(cr, dash, solid[k] ? 0 : 2, 0);
        cairo_move_to(cr, a.x, plot_ax_py(&a, bd[k]));
        cairo_line_to(cr, a.x + a.w, plot_ax_py(&a, bd[k]));
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    /* Local areas; severe events in red underneath markers. */
    shade_cursor scur = {0, -INFINITY, -INFINITY};
    for (size_t k = 0; k < tr->m.n_events; k++) {
        const sim_metrics_event *ev = &tr->m.events[k];
        plot_set_rgba(cr, ev->kind == SIM_METRICS_MARK ? C_SEVERE : C_AREA,
                 ev->kind == SIM_METRICS_MARK ? 0.45 : 0.55);
        shade_between(&a, &v, task, ev->s_start, ev->s_end, &scur);
    }
    /* Ideal path. */
    double dash2[] = {7, 4};
    cairo_set_dash(cr, dash2, 2, 0);
    cairo_set_line_width(cr, 1.6);
    plot_set_rgb(cr, C_IDEAL);
    ideal_path(&a, task, s0, s1, 0, true);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    /* Driven path. */
    cairo_set_line_width(cr, 1.6);
    plot_set_rgb(cr, C_DRIVEN);
    plot_polyline(&a, v.s, v.d, v.n);
    cairo_restore(cr); /* clip */
    /* Severe events: a red triangle on the top edge above the largest deviation, and
     * each local area's number beside it. */
    for (size_t k = 0, q = 0; k < tr->m.n_events; k++) {
        const sim_metrics_event *ev = &tr->m.events[k];
        double px = plot_ax_px(&a, ev->s_max);
        if (ev->kind == SIM_METRICS_MARK) {
            plot_set_rgb(cr, C_SEVERE);
            cairo_move_to(cr, px - 6, a.y + 1);
            cairo_line_to(cr, px + 6, a.y + 1);
            cairo_line_to(cr, px, a.y + 11);
            cairo_close_path(cr);
            cairo_fill(cr);
        } else {
            q++;
            snprintf(buf, sizeof buf, "%.1f m\xc2\xb2", ev->area);
            plot_set_rgb(cr, C_TEXT);
            double ys = plot_ax_py(&a, ev->side > 0 ? a.y1 : a.y0);
            plot_text_at(cr, px, ev->side > 0 ? ys + 14 : ys - 6, 10.5, buf, 0.5, ev->side > 0 ? 1.0 : 0.0);
        }
    }
    snprintf(buf, sizeof buf,
             "A_global = %.2f m\xc2\xb2 in %zu event%s, %zu severe   MDEV = %.3f m   SDLP = %.3f m   h = %.2f m",
             tr->m.area_global, tr->m.n_tube_events, tr->m.n_tube_events == 1 ? "" : "s",
             tr->m.n_mark_events, tr->m.mdev, tr->m.sdlp, task->tube_half_width);
    plot_set_rgb(cr, C_TEXT);
    plot_text_at(cr, a.x + a.w, 12, 11.5, buf, 1.0, 1.0);
    return plot_canvas_close(&cv, err);
}

/* ---- timeline ---- */

static rgb event_colour(const an_event *e)
{
    if (strcmp(e->kind, "button") == 0) return C_BUTTON;
    if (strcmp(e->kind, "trigger") == 0 || strcmp(e->kind, "hud") == 0) return C_TRIGGER;
    return C_CONTROL;
}

static bool event_shown(const an_event *e)
{
    return strcmp(e->kind, "button") == 0 || strcmp(e->kind, "trigger") == 0 ||
           strcmp(e->kind, "control") == 0 || strcmp(e->kind, "hud") == 0 ||
           strcmp(e->kind, "mark") == 0 || strcmp(e->kind, "traffic") == 0;
}

#define THW_REF_S 1.0      /* the THW drawn as reference: the metrics' thw_limit */
#define THW_PLOT_MAX_S 6.0 /* the THW axis ends here at most (larger THWs are no concern) */

void plot_headway_times(const double *t, const double *gap, const double *speed, size_t n, double ttc_cap,
                        double *thw, double *ttc)
{
    for (size_t i = 0; i < n; i++) {
        double h = gap[i], v = speed[i];
        thw[i] = ttc[i] = NAN;
        if (!isfinite(h)) continue;
        if (h < 0) h = 0; /* overlapping boxes: a collision, no negative gap */
        if (isfinite(v) && v > 0.1) thw[i] = h / v;
        /* closing speed from the gap's central difference, one-sided at a gap's ends */
        size_t a = i > 0 && isfinite(gap[i - 1]) ? i - 1 : i, b = i + 1 < n && isfinite(gap[i + 1]) ? i + 1 : i;
        if (b == a || !(t[b] > t[a])) continue;
        double closing = (gap[a] - gap[b]) / (t[b] - t[a]);
        if (closing > 0 && h / closing < ttc_cap) ttc[i] = h / closing;
    }
}

size_t plot_step_vertices(const double *t, const double *v, size_t n, double *xs, double *ys)
{
    size_t k = 0;
    bool pen = false;
    for (size_t i = 0; i < n; i++) {
        bool last = i + 1 == n, step = !last && v[i + 1] != v[i];
        if (!isfinite(v[i])) {
            if (pen) xs[k] = ys[k] = NAN, k++; /* a break */
            pen = false;
            continue;
        }
        if (!pen) xs[k] = t[i], ys[k++] = v[i];
        pen = true;
        if (last) {
            xs[k] = t[i], ys[k++] = v[i];
        } else if (step) {
            xs[k] = t[i + 1], ys[k++] = v[i]; /* held until the next sample's value */
            if (isfinite(v[i + 1])) xs[k] = t[i + 1], ys[k++] = v[i + 1];
        }
    }
    return k;
}

/* ---- pieces of the task timeline ---- */

/* The task's deviation events shaded through panel a. */
static void timeline_spans(const axes *a, const an_task_result *tr)
{
    cairo_t *cr = a->cr;
    for (size_t k = 0; k < tr->m.n_events; k++) {
        const sim_metrics_event *ev = &tr->m.events[k];
        plot_set_rgba(cr, ev->kind == SIM_METRICS_MARK ? C_SEVERE : C_AREA, 0.22);
        cairo_rectangle(cr, plot_ax_px(a, ev->t_start), a->y, plot_ax_px(a, ev->t_end) - plot_ax_px(a, ev->t_start), a->h);
        cairo_fill(cr);
    }
}

/* The speed limit as a dashed step function: it holds until the next sample's, then
 * changes at once (a line from point to point drew a ramp between change points, 80 ->
 * 70 km/h over 780 s in rural); only its steps, so that it stays a dashed line. */
static void timeline_limit(axes *a, const double *t, const double *lim, size_t n)
{
    cairo_t *cr = a->cr;
    plot_set_rgb(cr, C_LIMIT);
    cairo_set_line_width(cr, 1.2);
    double dash[] = {6, 4};
    cairo_set_dash(cr, dash, 2, 0);
    double *vx = malloc(3 * n * sizeof *vx), *vy = malloc(3 * n * sizeof *vy);
    if (vx && vy) plot_polyline(a, vx, vy, plot_step_vertices(t, lim, n, vx, vy));
    free(vx);
    free(vy);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* Why a panel is empty (an empty axis would read as a missing trace), on a white box so
 * that event shading behind it does not hide it. */
static void timeline_note(const axes *a, const char *note)
{
    cairo_t *cr = a->cr;
    cairo_text_extents_t te;
    cairo_set_font_size(cr, 12);
    cairo_text_extents(cr, note, &te);
    double cx = a->x + a->w / 2, cy = a->y + a->h / 2;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
    cairo_rectangle(cr, cx - te.x_advance / 2 - 8, cy - 11, te.x_advance + 16, 22);
    cairo_fill(cr);
    plot_set_rgb(cr, C_TEXT);
    plot_text_at(cr, cx, cy + 4, 12, note, 0.5, 0);
}

/* Markers: a vertical line through panel a for each button, command, trigger of run
 * within [t0, t1]. */
static void timeline_markers(const axes *a, const an_drive *dr, int run, double t0, double t1)
{
    cairo_t *cr = a->cr;
    cairo_set_line_width(cr, 1.0);
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *ev = &dr->events[k];
        if (ev->run != run || ev->t < t0 || ev->t > t1 || !event_shown(ev)) continue;
        plot_set_rgba(cr, event_colour(ev), 0.85);
        double px = plot_ax_px(a, ev->t);
        double dash[] = {3, 3};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, px, a->y);
        cairo_line_to(cr, px, a->y + a->h);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
}

/* The markers' labels above the first panel a in two rows; a label that would overlap
 * the previous one in both rows is left out (its marker stays). */
static void timeline_labels(const axes *a, const an_drive *dr, int run, double t0, double t1)
{
    cairo_t *cr = a->cr;
    double row_end[2] = {-1e9, -1e9};
    cairo_set_font_size(cr, 9.5);
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *ev = &dr->events[k];
        if (ev->run != run || ev->t < t0 || ev->t > t1 || !event_shown(ev)) continue;
        double px = plot_ax_px(a, ev->t);
        plot_set_rgb(cr, event_colour(ev));
        cairo_move_to(cr, px - 4, a->y - 1);
        cairo_line_to(cr, px + 4, a->y - 1);
        cairo_line_to(cr, px, a->y + 6);
        cairo_close_path(cr);
        cairo_fill(cr);
        cairo_text_extents_t te;
        cairo_text_extents(cr, ev->name, &te);
        int row = px >= row_end[0] ? 0 : px >= row_end[1] ? 1 : -1;
        if (row < 0) continue;
        row_end[row] = px + te.x_advance + 8;
        plot_text_at(cr, px - 3, a->y - 4 - 11 * row, 9.5, ev->name, 0, 0);
    }
}

/* The reference line of the THW panel (1 s: time below it is a metric) or the TTC
 * panel (the cap: TTCs at or above it are no conflict and reported n/a). */
static void timeline_reference(const axes *a, bool thw)
{
    cairo_t *cr = a->cr;
    char txt[64];
    double ref = thw ? THW_REF_S : SIM_METRICS_TTC_CAP;
    double dash[] = {6, 4};
    plot_set_rgb(cr, C_LIMIT);
    cairo_set_line_width(cr, 1.2);
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, a->x, plot_ax_py(a, ref));
    cairo_line_to(cr, a->x + a->w, plot_ax_py(a, ref));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    snprintf(txt, sizeof txt, thw ? "THW %.0f s" : "cap %.0f s: above it n/a", ref);
    plot_text_at(cr, a->x + a->w - 6, plot_ax_py(a, ref) + (thw ? -4 : 12), 10, txt, 1, 0);
}

int an_plot_timeline(const an_result *res, const an_task_result *tr, const char *path,
                     an_format fmt, sim_error *err)
{
    const an_drive *dr = res->drive;
    const an_task *task = tr->task;
    size_t i0 = tr->i0, n = tr->i1 - tr->i0;
    if (n < 2) return sim_error_set(err, SIM_EINVAL, "%s: task %s has no samples to plot", path, task->id);
    const double *t = dr->col[AN_T] + i0;
    double t0 = t[0], t1 = t[n - 1];
    if (!(t1 > t0)) t1 = t0 + 1;
    /* Derived series: e, speed in km/h, steering in degrees, limit in km/h, THW and TTC
     * (as the metrics define them: an overlap is a gap of 0, TTC only while closing
     * and below the cap). */
    double *buf = malloc(6 * n * sizeof *buf);
    if (!buf) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    double *e = buf, *kmh = buf + n, *deg = buf + 2 * n, *lim = buf + 3 * n, *thw = buf + 4 * n, *ttc = buf + 5 * n;
    plot_headway_times(t, dr->col[AN_HEADWAY_DIST] + i0, dr->col[AN_SPEED] + i0, n, SIM_METRICS_TTC_CAP, thw, ttc);
    size_t cur = 0;
    double smax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double s = dr->col[AN_S][i0 + i];
        if (s > smax) smax = s;
        e[i] = dr->col[AN_D][i0 + i] - sim_metrics_ideal_at(task->ideal, task->n_ideal, smax, &cur);
        kmh[i] = dr->col[AN_SPEED][i0 + i] * 3.6;
        deg[i] = dr->col[AN_STEER_WHEEL][i0 + i] * 180 / M_PI;
        lim[i] = tr->limit[i] * 3.6;
    }
    const double W = 1100, H = 1060;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) {
        free(buf);
        return rc;
    }
    cairo_t *cr = cv.cr;
    char txt[200];
    snprintf(txt, sizeof txt, "Task %s (run %d): deviation and controls over time", task->id, tr->run);
    plot_title(cr, 70, 12, txt);
    {
        const char *labels[] = {"deviation event", "severe", "button", "operator command", "trigger / HUD"};
        rgb cols[] = {C_AREA, C_SEVERE, C_BUTTON, C_CONTROL, C_TRIGGER};
        int st[] = {3, 3, 0, 0, 0};
        plot_legend(cr, 70, 38, labels, cols, st, 5);
    }
    enum { P_DEV, P_SPEED, P_HEAD, P_THW, P_TTC, P_STEER, P_PEDAL, NP };
    const char *ylab[NP] = {"deviation e (m)", "speed (km/h)", "headway (m)", "THW (s)", "TTC (s)",
                            "steering wheel (\xc2\xb0)", "pedals (0..1)"};
    double top = 84, bottom = 56, gap = 10, ph = (H - top - bottom - gap * (NP - 1)) / NP;
    axes ax[NP];
    bool any_headway = false; /* a vehicle ahead at some sample of the task */
    for (int p = 0; p < NP; p++) {
        double lo = INFINITY, hi = -INFINITY;
        switch (p) {
        case P_DEV:
            plot_range_of(e, n, &lo, &hi);
            if (lo > -task->tube_half_width) lo = -task->tube_half_width;
            if (hi < task->tube_half_width) hi = task->tube_half_width;
            break;
        case P_SPEED:
            plot_range_of(kmh, n, &lo, &hi);
            plot_range_of(lim, n, &lo, &hi);
            if (lo > 0 && lo < hi * 0.5) lo = 0;
            break;
        case P_HEAD:
            plot_range_of(dr->col[AN_HEADWAY_DIST] + i0, n, &lo, &hi);
            any_headway = hi >= lo;
            if (lo > 0) lo = 0;
            break;
        case P_THW:
            lo = 0, hi = 1.5 * THW_REF_S; /* the reference and a little above */
            for (size_t i = 0; i < n; i++)
                if (isfinite(thw[i]) && thw[i] > hi) hi = fmin(thw[i], THW_PLOT_MAX_S);
            break;
        case P_TTC: lo = 0, hi = SIM_METRICS_TTC_CAP; break;
        case P_STEER: plot_range_of(deg, n, &lo, &hi); break;
        default: lo = 0, hi = 1; break;
        }
        if (!(hi >= lo)) lo = 0, hi = 1;
        if (p != P_PEDAL) plot_nice_range(&lo, &hi, 4);
        ax[p] = (axes){cr, 70, top + p * (ph + gap), W - 70 - 24, ph, t0, t1, lo, hi};
        plot_axes_draw(&ax[p], p == NP - 1 ? "time t (s)" : NULL, ylab[p], p == NP - 1, 12, 4);
    }
    /* Event spans shaded through every panel, then the traces. */
    for (int p = 0; p < NP; p++) {
        axes *a = &ax[p];
        plot_axes_clip(a);
        timeline_spans(a, tr);
        cairo_set_line_width(cr, 1.5);
        switch (p) {
        case P_DEV: {
            plot_set_rgba(cr, C_TUBE, 0.35);
            cairo_rectangle(cr, a->x, plot_ax_py(a, task->tube_half_width), a->w,
                            plot_ax_py(a, -task->tube_half_width) - plot_ax_py(a, task->tube_half_width));
            cairo_fill(cr);
            plot_set_rgb(cr, C_DRIVEN);
            plot_polyline(a, t, e, n);
            break;
        }
        case P_SPEED:
            timeline_limit(a, t, lim, n);
            cairo_set_line_width(cr, 1.5);
            plot_set_rgb(cr, C_DRIVEN);
            plot_polyline(a, t, kmh, n);
            break;
        case P_HEAD:
            if (!any_headway) {
                timeline_note(a, "no vehicle ahead in this task");
                break;
            }
            plot_set_rgb(cr, C_DRIVEN);
            plot_polyline(a, t, dr->col[AN_HEADWAY_DIST] + i0, n);
            break;
        case P_THW:
        case P_TTC:
            timeline_reference(a, p == P_THW);
            cairo_set_line_width(cr, 1.5);
            plot_set_rgb(cr, C_DRIVEN);
            plot_polyline(a, t, p == P_THW ? thw : ttc, n);
            break;
        case P_STEER:
            plot_set_rgb(cr, C_DRIVEN);
            plot_polyline(a, t, deg, n);
            break;
        default:
            plot_set_rgb(cr, C_THROTTLE);
            plot_polyline(a, t, dr->col[AN_THROTTLE] + i0, n);
            plot_set_rgb(cr, C_BRAKE);
            plot_polyline(a, t, dr->col[AN_BRAKE] + i0, n);
            break;
        }
        timeline_markers(a, dr, tr->run, t0, t1);
        cairo_restore(cr);
    }
    timeline_labels(&ax[0], dr, tr->run, t0, t1);
    /* Legends inside their panels. */
    {
        const char *labels[] = {"throttle", "brake"};
        rgb cols[] = {C_THROTTLE, C_BRAKE};
        int st[] = {0, 0};
        plot_legend(cr, ax[P_PEDAL].x + 8, ax[P_PEDAL].y + 12, labels, cols, st, 2);
        const char *l2[] = {"speed", "limit"};
        rgb c2[] = {C_DRIVEN, C_LIMIT};
        int st2[] = {0, 1};
        plot_legend(cr, ax[P_SPEED].x + 8, ax[P_SPEED].y + 12, l2, c2, st2, 2);
    }
    free(buf);
    return plot_canvas_close(&cv, err);
}

