/* plot.h: private to the analysis figures (plot*.c): a canvas (PNG or SVG), colours
 * and a small axes layer (frame, nice ticks, labels, legend) drawn with cairo; the
 * figures are in plot.c (lateral position, timeline) and plot_map.c (map, box plots,
 * the definitions figure). */
#ifndef ANALYSIS_PLOT_H
#define ANALYSIS_PLOT_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"

typedef struct canvas {
    cairo_surface_t *surf;
    cairo_t *cr;
    an_format fmt;
    const char *path;
    double w, h;
} canvas;

typedef struct rgb {
    double r, g, b;
} rgb;

static const rgb C_TEXT = {0.13, 0.13, 0.13}, C_GRID = {0.90, 0.90, 0.90},
                 C_AXIS = {0.35, 0.35, 0.35}, C_DRIVEN = {0.08, 0.25, 0.60},
                 C_IDEAL = {0.10, 0.55, 0.25}, C_TUBE = {0.55, 0.80, 0.58},
                 C_AREA = {0.98, 0.60, 0.15}, C_SEVERE = {0.84, 0.10, 0.12},
                 C_MARK = {0.45, 0.45, 0.45}, C_LIMIT = {0.84, 0.10, 0.12},
                 C_BRAKE = {0.84, 0.10, 0.12}, C_THROTTLE = {0.10, 0.55, 0.25},
                 C_BUTTON = {0.45, 0.20, 0.65}, C_CONTROL = {0.35, 0.35, 0.35},
                 C_TRIGGER = {0.90, 0.45, 0.0};

typedef struct axes {
    cairo_t *cr;
    double x, y, w, h;          /* plot area in device units */
    double x0, x1, y0, y1;      /* data range */
} axes;

int plot_canvas_open(canvas *cv, const char *path, an_format fmt, double w, double h,
                     sim_error *err);
int plot_canvas_close(canvas *cv, sim_error *err);
void plot_set_rgb(cairo_t *cr, rgb c);
void plot_set_rgba(cairo_t *cr, rgb c, double a);
/* Viridis-like colour map at u in [0, 1] (five anchors, linear between). */
rgb plot_colormap(double u);
double plot_ax_px(const axes *a, double v);
double plot_ax_py(const axes *a, double v);
double plot_nice_step(double range, int target);
/* Widens [lo, hi] to tick multiples; guards empty or flat ranges. */
void plot_nice_range(double *lo, double *hi, int target);
void plot_text_at(cairo_t *cr, double x, double y, double size, const char *s, double ax,
                  double ay);
void plot_fmt_tick(char *buf, size_t n, double v, double step);
void plot_axes_draw(axes *a, const char *xlabel, const char *ylabel, bool xticks_labels,
                    int xt, int yt);
void plot_axes_clip(axes *a);
/* Polyline of (x[i], y[i]); points with a NAN coordinate break the line. Dense signals
 * (more than 4 samples per pixel column) are drawn as the band each column's samples
 * span, the picture a stroke through every sample gives, in time bounded by the width
 * rather than by the samples. */
void plot_polyline(axes *a, const double *x, const double *y, size_t n);
void plot_legend(cairo_t *cr, double x, double y, const char *const *labels, const rgb *cols,
                 const int *styles, int n);
void plot_title(cairo_t *cr, double x, double y, const char *s);
/* Widens [*lo, *hi] to hold the finite values of y. */
void plot_range_of(const double *y, size_t n, double *lo, double *hi);

/* THW (gap / speed, speed > 0.1 m/s) and TTC (gap / closing speed while closing, below
 * ttc_cap) at each sample, NAN where not defined; a negative gap counts as 0. */
void plot_headway_times(const double *t, const double *gap, const double *speed, size_t n, double ttc_cap,
                        double *thw, double *ttc);

/* The vertices of a step function through samples (t[i], v[i]) (each value held until
 * the next sample's, then a vertical step), NAN vertices where the series breaks;
 * xs and ys hold at least 3 n. Returns how many. */
size_t plot_step_vertices(const double *t, const double *v, size_t n, double *xs, double *ys);

#endif
