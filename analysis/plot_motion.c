/* plot_motion: the motion figure of a drive with a motion base (motion.png/svg): one
 * panel per axis (specific force x, y, z; angular rate roll, pitch, yaw) with the car's
 * motion at the driver's head and what the platform gave the driver over simulation
 * time, the steps where a limit acted shaded red and the fades grey; each panel's
 * caption gives the perceived RMSE, correlation and false cues (motion_report.c). */
#include "plot.h"

#include <math.h>
#include <stdlib.h>

static const rgb C_CAR = {0.08, 0.25, 0.60}, C_PLAT = {0.90, 0.45, 0.0}, C_FADE = {0.6, 0.6, 0.6};

/* Vertical bands over the rows where want(row) holds. */
static void bands(axes *a, const an_motion *m, bool limits, rgb c, double alpha)
{
    cairo_t *cr = a->cr;
    plot_set_rgba(cr, c, alpha);
    for (size_t i = 0; i < m->n;) {
        bool on = limits ? m->rows[i].limits != 0 : !m->rows[i].running;
        if (!on) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < m->n && (limits ? m->rows[j + 1].limits != 0 : !m->rows[j + 1].running)) j++;
        double x0 = plot_ax_px(a, m->rows[i].t), x1 = plot_ax_px(a, j + 1 < m->n ? m->rows[j + 1].t : m->rows[j].t);
        cairo_rectangle(cr, x0, a->y, fmax(x1 - x0, 1.0), a->h);
        cairo_fill(cr);
        i = j + 1;
    }
}

int an_plot_motion(const an_drive *dr, const char *path, an_format fmt, sim_error *err)
{
    static const char *const names[6] = {"specific force x (forward)", "specific force y (left)",
                                         "specific force z (up)", "roll rate", "pitch rate", "yaw rate"};
    const an_motion *m = dr->motion;
    const an_motion_result *r = dr->motion_fid;
    if (!m || !r || m->n < 2) return sim_error_set(err, SIM_EINVAL, "%s: no motion rows to plot", path);
    size_t n = m->n;
    double *t = malloc(n * sizeof *t), *car = malloc(n * sizeof *car), *plat = malloc(n * sizeof *plat);
    if (!t || !car || !plat) {
        free(t);
        free(car);
        free(plat);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) t[i] = m->rows[i].t;
    double t0 = t[0], t1 = t[n - 1] > t0 ? t[n - 1] : t0 + 1;
    const double W = 1100, left = 90, top = 70, ph = 118, gap = 40;
    double H = top + 6 * ph + 5 * gap + 50;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) {
        free(t);
        free(car);
        free(plat);
        return rc;
    }
    cairo_t *cr = cv.cr;
    char txt[240];
    snprintf(txt, sizeof txt, "Motion cueing on %s: %zu steps, %.1f s running, limits acted %d times (%.2f s)",
             m->platform, r->rows, r->running_s, r->limit_hits, r->limit_s);
    plot_title(cr, left, 12, txt);
    const char *labels[] = {"car (at the driver's head)", "platform (to the driver)", "limit acted", "fading"};
    rgb cols[] = {C_CAR, C_PLAT, C_LIMIT, C_FADE};
    int st[] = {0, 0, 3, 3};
    plot_legend(cr, left, 40, labels, cols, st, 4);
    for (int k = 0; k < 6; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            car[i] = m->rows[i].car[k];
            plat[i] = m->rows[i].plat[k];
        }
        plot_range_of(car, n, &lo, &hi);
        plot_range_of(plat, n, &lo, &hi);
        if (!(hi > lo)) lo -= 0.5, hi += 0.5;
        plot_nice_range(&lo, &hi, 4);
        double y = top + k * (ph + gap);
        axes a = {cr, left, y, W - left - 24, ph, t0, t1, lo, hi};
        plot_axes_draw(&a, k == 5 ? "simulation time t (s)" : NULL, k < 3 ? "m/s\xc2\xb2" : "rad/s", true, 12, 4);
        plot_axes_clip(&a);
        bands(&a, m, false, C_FADE, 0.18);
        bands(&a, m, true, C_LIMIT, 0.30);
        cairo_set_line_width(cr, 1.4);
        plot_set_rgb(cr, C_CAR);
        plot_polyline(&a, t, car, n);
        plot_set_rgb(cr, C_PLAT);
        plot_polyline(&a, t, plat, n);
        cairo_restore(cr);
        const sim_motion_axis_fidelity *x = &r->axis[k];
        snprintf(txt, sizeof txt, "%s: perceived RMSE %.3f %s, correlation %.2f, delay %.2f s, false cues %d (%.2f s)",
                 names[k], x->rmse, k < 3 ? "m/s\xc2\xb2" : "rad/s", x->corr, x->delay_s, x->false_cues,
                 x->false_cue_s);
        plot_set_rgb(cr, C_TEXT);
        plot_text_at(cr, left, y - 4, 11, txt, 0, 0);
    }
    free(t);
    free(car);
    free(plat);
    return plot_canvas_close(&cv, err);
}
