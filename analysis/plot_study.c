/* plot_study: the study page's figure: one measure over conditions (or positions in
 * the order), each participant a grey line through their values, and the mean with
 * its 95 % confidence interval (Student's t) per column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"
#include "plot.h"

/* t quantile 0.975 for df degrees of freedom: the table to 30, then 1.96 + 2.4 / df
 * (within 0.002 of the exact value from 31 on). */
double an_t975(int df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < 1) return NAN;
    return df <= 30 ? t[df - 1] : 1.96 + 2.4 / df;
}

void an_mean_ci(const double *v, size_t n, size_t stride, double *mean, double *half, int *count)
{
    double s = 0, ss = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i * stride];
        if (!isfinite(x)) continue;
        s += x;
        k++;
    }
    *count = k;
    *mean = k ? s / k : NAN;
    for (size_t i = 0; i < n; i++) {
        double x = v[i * stride];
        if (isfinite(x)) ss += (x - *mean) * (x - *mean);
    }
    *half = k > 1 ? an_t975(k - 1) * sqrt(ss / (k - 1)) / sqrt((double)k) : NAN;
}

int an_plot_within(const char *ttl, const char *ylabel, const char *const *xlabels, size_t nx,
                   const double *values, size_t np, const char *path, an_format fmt, sim_error *err)
{
    double lo = INFINITY, hi = -INFINITY;
    plot_range_of(values, np * nx, &lo, &hi);
    for (size_t c = 0; c < nx; c++) {
        double m, h;
        int k;
        an_mean_ci(values + c, np, nx, &m, &h, &k);
        if (isfinite(h)) {
            lo = fmin(lo, m - h);
            hi = fmax(hi, m + h);
        }
    }
    plot_nice_range(&lo, &hi, 5);
    double W = 140 + 110.0 * (double)(nx < 3 ? 3 : nx), H = 360;
    if (W > 1200) W = 1200;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) return rc;
    cairo_t *cr = cv.cr;
    axes a = {cr, 76, 44, W - 76 - 20, H - 44 - 76, 0, (double)nx, lo, hi};
    plot_title(cr, a.x, 14, ttl);
    plot_axes_draw(&a, NULL, ylabel, false, 0, 5);
    double slot = a.w / (double)(nx ? nx : 1);
    for (size_t c = 0; c < nx; c++) {
        plot_set_rgb(cr, C_TEXT);
        plot_text_at(cr, a.x + slot * ((double)c + 0.5), a.y + a.h + 6, 11, xlabels[c], 0.5, 1.0);
    }
    /* Participants: thin grey lines, broken where a value is missing. */
    cairo_set_line_width(cr, 1.0);
    for (size_t p = 0; p < np; p++) {
        bool down = false;
        for (size_t c = 0; c < nx; c++) {
            double v = values[p * nx + c];
            if (!isfinite(v)) {
                down = false;
                continue;
            }
            double x = a.x + slot * ((double)c + 0.5), y = plot_ax_py(&a, v);
            if (down) cairo_line_to(cr, x, y);
            else cairo_move_to(cr, x, y);
            down = true;
        }
        plot_set_rgba(cr, C_MARK, 0.55);
        cairo_stroke(cr);
        for (size_t c = 0; c < nx; c++) {
            double v = values[p * nx + c];
            if (!isfinite(v)) continue;
            cairo_arc(cr, a.x + slot * ((double)c + 0.5), plot_ax_py(&a, v), 2.2, 0, 2 * M_PI);
            cairo_fill(cr);
        }
    }
    /* Means with 95 % confidence intervals. */
    for (size_t c = 0; c < nx; c++) {
        double m, h;
        int k;
        an_mean_ci(values + c, np, nx, &m, &h, &k);
        double x = a.x + slot * ((double)c + 0.5) + 8;
        char buf[32];
        snprintf(buf, sizeof buf, "n=%d", k);
        plot_set_rgb(cr, C_AXIS);
        plot_text_at(cr, x - 8, a.y + a.h + 22, 10, buf, 0.5, 1.0);
        if (!isfinite(m)) continue;
        plot_set_rgb(cr, C_DRIVEN);
        cairo_set_line_width(cr, 2.0);
        if (isfinite(h)) {
            cairo_move_to(cr, x, plot_ax_py(&a, m - h));
            cairo_line_to(cr, x, plot_ax_py(&a, m + h));
            cairo_move_to(cr, x - 5, plot_ax_py(&a, m - h));
            cairo_line_to(cr, x + 5, plot_ax_py(&a, m - h));
            cairo_move_to(cr, x - 5, plot_ax_py(&a, m + h));
            cairo_line_to(cr, x + 5, plot_ax_py(&a, m + h));
            cairo_stroke(cr);
        }
        cairo_arc(cr, x, plot_ax_py(&a, m), 4.5, 0, 2 * M_PI);
        cairo_fill(cr);
    }
    plot_set_rgb(cr, C_AXIS);
    plot_text_at(cr, a.x + a.w, a.y + a.h + 40, 10, "grey: participants; blue: mean with 95 % CI", 1.0, 0.0);
    return plot_canvas_close(&cv, err);
}
