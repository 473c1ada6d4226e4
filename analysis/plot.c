/* plot: the analysis figures, drawn with cairo into PNG or SVG.
 *
 * A small axes layer (frame, nice ticks, labels, legend) and the four figures built on
 * it: lateral position against s, the timeline of controls, the top-down map and the
 * box plots of a study. Long signals are thinned to a min/max envelope per pixel
 * column, which draws the same picture as every sample at a fraction of the cost. */
#include "analysis.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- canvas ---- */

#define PNG_SCALE 1.5

typedef struct canvas {
    cairo_surface_t *surf;
    cairo_t *cr;
    an_format fmt;
    const char *path;
    double w, h;
} canvas;

static int canvas_open(canvas *cv, const char *path, an_format fmt, double w, double h,
                       sim_error *err)
{
    memset(cv, 0, sizeof *cv);
    cv->fmt = fmt;
    cv->path = path;
    cv->w = w;
    cv->h = h;
    if (fmt == AN_SVG) {
        cv->surf = cairo_svg_surface_create(path, w, h);
    } else {
        /* 1.5 times the pixels of the layout: sharp on high-density screens; papers take
         * the SVG. Twice would cost 1.8 times the encoding for little visible gain. */
        cv->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(PNG_SCALE * w),
                                              (int)(PNG_SCALE * h));
    }
    if (cairo_surface_status(cv->surf) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(cv->surf);
        return sim_error_set(err, SIM_EIO, "%s: cannot create the figure: %s", path,
                             cairo_status_to_string(cairo_surface_status(cv->surf)));
    }
    cv->cr = cairo_create(cv->surf);
    if (fmt == AN_PNG) cairo_scale(cv->cr, PNG_SCALE, PNG_SCALE);
    cairo_set_source_rgb(cv->cr, 1, 1, 1);
    cairo_paint(cv->cr);
    cairo_select_font_face(cv->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_join(cv->cr, CAIRO_LINE_JOIN_ROUND);
    return 0;
}

/* ---- PNG writer ----
 * cairo's own PNG export spends most of a report's time in libpng's adaptive filters and
 * zlib level 6. Figures are flat colours and thin lines: the "Up" filter on every row
 * and zlib's run-length strategy give files about as small at a fraction of the cost. */

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static bool png_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t hdr[8];
    put_be32(hdr, len);
    memcpy(hdr + 4, type, 4);
    uLong crc = crc32(0, hdr + 4, 4);
    if (len) crc = crc32(crc, data, len);
    uint8_t tail[4];
    put_be32(tail, (uint32_t)crc);
    return fwrite(hdr, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) &&
           fwrite(tail, 1, 4, f) == 4;
}

static int png_write(cairo_surface_t *surf, const char *path, sim_error *err)
{
    cairo_surface_flush(surf);
    const uint8_t *px = cairo_image_surface_get_data(surf);
    int w = cairo_image_surface_get_width(surf), h = cairo_image_surface_get_height(surf);
    int stride = cairo_image_surface_get_stride(surf);
    FILE *f = fopen(path, "wb");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    size_t rowlen = 1 + 3 * (size_t)w, outcap = 1 << 18;
    uint8_t *row = malloc(2 * rowlen), *out = malloc(outcap);
    uint8_t *prev = row + rowlen;
    z_stream z;
    memset(&z, 0, sizeof z);
    bool ok = row && out && deflateInit2(&z, 1, Z_DEFLATED, 15, 8, Z_RLE) == Z_OK;
    static const uint8_t sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0; /* 8-bit RGB */
    ok = ok && fwrite(sig, 1, 8, f) == 8 && png_chunk(f, "IHDR", ihdr, 13);
    if (ok) memset(prev, 0, rowlen);
    for (int y = 0; ok && y <= h; y++) {
        int flush = y == h ? Z_FINISH : Z_NO_FLUSH;
        if (y < h) {
            const uint32_t *src = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
            uint8_t *cur = row;
            cur[0] = 2; /* Up */
            for (int x = 0; x < w; x++) {
                uint32_t v = src[x];
                uint8_t r = (uint8_t)(v >> 16), g = (uint8_t)(v >> 8), b = (uint8_t)v;
                uint8_t *q = cur + 1 + 3 * x, *pq = prev + 1 + 3 * x;
                q[0] = (uint8_t)(r - pq[0]), q[1] = (uint8_t)(g - pq[1]), q[2] = (uint8_t)(b - pq[2]);
                pq[0] = r, pq[1] = g, pq[2] = b;
            }
            z.next_in = row;
            z.avail_in = (uInt)rowlen;
        } else {
            z.next_in = NULL;
            z.avail_in = 0;
        }
        int zr;
        do {
            z.next_out = out;
            z.avail_out = (uInt)outcap;
            zr = deflate(&z, flush);
            size_t got = outcap - z.avail_out;
            if (got && !png_chunk(f, "IDAT", out, (uint32_t)got)) ok = false;
        } while (ok && (z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END)));
    }
    ok = ok && png_chunk(f, "IEND", NULL, 0);
    deflateEnd(&z);
    free(row);
    free(out);
    if (fclose(f) || !ok) return sim_error_set(err, SIM_EIO, "%s: cannot write the PNG", path);
    return 0;
}

static int canvas_close(canvas *cv, sim_error *err)
{
    cairo_status_t st = cairo_status(cv->cr);
    cairo_destroy(cv->cr);
    if (st == CAIRO_STATUS_SUCCESS && cv->fmt == AN_PNG) {
        int rc = png_write(cv->surf, cv->path, err);
        cairo_surface_destroy(cv->surf);
        return rc;
    }
    cairo_surface_finish(cv->surf);
    if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(cv->surf);
    cairo_surface_destroy(cv->surf);
    if (st != CAIRO_STATUS_SUCCESS)
        return sim_error_set(err, SIM_EIO, "%s: cannot write the figure: %s", cv->path,
                             cairo_status_to_string(st));
    return 0;
}

/* ---- colours ---- */

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

static void set_rgb(cairo_t *cr, rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static void set_rgba(cairo_t *cr, rgb c, double a)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

/* Viridis-like colour map at u in [0, 1] (five anchors, linear between). */
static rgb colormap(double u)
{
    static const rgb a[] = {{0.267, 0.005, 0.329}, {0.230, 0.322, 0.546}, {0.128, 0.567, 0.551},
                            {0.369, 0.789, 0.383}, {0.993, 0.906, 0.144}};
    if (!(u > 0)) u = 0;
    if (u > 1) u = 1;
    double x = u * 4;
    int k = (int)x;
    if (k >= 4) return a[4];
    double f = x - k;
    return (rgb){a[k].r + f * (a[k + 1].r - a[k].r), a[k].g + f * (a[k + 1].g - a[k].g),
                 a[k].b + f * (a[k + 1].b - a[k].b)};
}

/* ---- axes ---- */

typedef struct axes {
    cairo_t *cr;
    double x, y, w, h;          /* plot area in device units */
    double x0, x1, y0, y1;      /* data range */
} axes;

static double ax_px(const axes *a, double v)
{
    return a->x + (v - a->x0) / (a->x1 - a->x0) * a->w;
}

static double ax_py(const axes *a, double v)
{
    return a->y + a->h - (v - a->y0) / (a->y1 - a->y0) * a->h;
}

static double nice_step(double range, int target)
{
    double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return mag * (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10);
}

/* Widens [lo, hi] to tick multiples; guards empty or flat ranges. */
static void nice_range(double *lo, double *hi, int target)
{
    if (!isfinite(*lo) || !isfinite(*hi)) *lo = 0, *hi = 1;
    if (*hi - *lo < 1e-9) *lo -= 0.5, *hi += 0.5;
    double st = nice_step(*hi - *lo, target);
    *lo = floor(*lo / st + 1e-9) * st;
    *hi = ceil(*hi / st - 1e-9) * st;
}

static void text_at(cairo_t *cr, double x, double y, double size, const char *s, double ax,
                    double ay)
{
    cairo_text_extents_t te;
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &te);
    cairo_move_to(cr, x - ax * te.x_advance, y + ay * te.height);
    cairo_show_text(cr, s);
}

static void fmt_tick(char *buf, size_t n, double v, double step)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (fabs(v) < step * 1e-6) v = 0;
    snprintf(buf, n, "%.*f", dec, v);
}

static void axes_draw(axes *a, const char *xlabel, const char *ylabel, bool xticks_labels,
                      int xt, int yt)
{
    cairo_t *cr = a->cr;
    cairo_save(cr);
    cairo_set_line_width(cr, 0.8);
    char buf[32];
    double st = nice_step(a->y1 - a->y0, yt);
    for (double v = ceil(a->y0 / st - 1e-9) * st; v <= a->y1 + st * 1e-9; v += st) {
        double py = ax_py(a, v);
        set_rgb(cr, C_GRID);
        cairo_move_to(cr, a->x, py);
        cairo_line_to(cr, a->x + a->w, py);
        cairo_stroke(cr);
        set_rgb(cr, C_TEXT);
        fmt_tick(buf, sizeof buf, v, st);
        text_at(cr, a->x - 6, py, 11, buf, 1.0, 0.5);
    }
    st = nice_step(a->x1 - a->x0, xt > 0 ? xt : 1);
    for (double v = ceil(a->x0 / st - 1e-9) * st; xt > 0 && v <= a->x1 + st * 1e-9; v += st) {
        double px = ax_px(a, v);
        set_rgb(cr, C_GRID);
        cairo_move_to(cr, px, a->y);
        cairo_line_to(cr, px, a->y + a->h);
        cairo_stroke(cr);
        if (xticks_labels) {
            set_rgb(cr, C_TEXT);
            fmt_tick(buf, sizeof buf, v, st);
            text_at(cr, px, a->y + a->h + 6, 11, buf, 0.5, 1.0);
        }
    }
    set_rgb(cr, C_AXIS);
    cairo_rectangle(cr, a->x, a->y, a->w, a->h);
    cairo_stroke(cr);
    set_rgb(cr, C_TEXT);
    if (xlabel) text_at(cr, a->x + a->w / 2, a->y + a->h + 24, 12.5, xlabel, 0.5, 1.0);
    if (ylabel) {
        cairo_save(cr);
        cairo_translate(cr, a->x - 46, a->y + a->h / 2);
        cairo_rotate(cr, -M_PI / 2);
        text_at(cr, 0, 0, 12.5, ylabel, 0.5, 0.0);
        cairo_restore(cr);
    }
    cairo_restore(cr);
}

static void axes_clip(axes *a)
{
    cairo_save(a->cr);
    cairo_rectangle(a->cr, a->x, a->y, a->w, a->h);
    cairo_clip(a->cr);
}

/* Fills the band between the columns' top and bottom (device y), widened by half the
 * line width: what a stroke of the dense polyline would cover, at the cost of one fill. */
static void band_flush(cairo_t *cr, const double *cx, const double *top, const double *bot,
                       size_t m, double hw)
{
    if (m == 0) return;
    cairo_move_to(cr, cx[0] - hw, top[0] - hw);
    for (size_t k = 0; k < m; k++) cairo_line_to(cr, cx[k] + (k + 1 == m ? hw : 0), top[k] - hw);
    for (size_t k = m; k-- > 0;) cairo_line_to(cr, cx[k] + (k + 1 == m ? hw : k == 0 ? -hw : 0), bot[k] + hw);
    cairo_close_path(cr);
    cairo_fill(cr);
}

/* Polyline of (x[i], y[i]); points with a NAN coordinate break the line. Dense signals
 * (more than 4 samples per pixel column) are drawn as the band each column's samples
 * span, the picture a stroke through every sample gives, in time bounded by the width
 * rather than by the samples. */
static void polyline(axes *a, const double *x, const double *y, size_t n)
{
    cairo_t *cr = a->cr;
    if (n <= 4 * (size_t)a->w) {
        bool pen = false;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(x[i]) || !isfinite(y[i])) {
                pen = false;
                continue;
            }
            double px = ax_px(a, x[i]), py = ax_py(a, y[i]);
            if (pen) cairo_line_to(cr, px, py);
            else cairo_move_to(cr, px, py);
            pen = true;
        }
        cairo_stroke(cr);
        return;
    }
    size_t cap = (size_t)a->w + 8;
    double *buf = malloc(3 * cap * sizeof *buf);
    if (!buf) return;
    double *cx = buf, *top = buf + cap, *bot = buf + 2 * cap;
    double hw = 0.5 * cairo_get_line_width(cr), prev_py = NAN;
    size_t m = 0;
    double col = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            band_flush(cr, cx, top, bot, m, hw);
            m = 0;
            col = NAN;
            prev_py = NAN;
            continue;
        }
        double px = ax_px(a, x[i]), py = ax_py(a, y[i]), c = floor(px);
        if (c != col) {
            if (m == cap) { /* x not ascending: flush and start again */
                band_flush(cr, cx, top, bot, m, hw);
                m = 0;
            }
            cx[m] = c + 0.5;
            /* The segment from the previous sample joins the columns. */
            top[m] = bot[m] = isnan(prev_py) ? py : prev_py;
            m++;
            col = c;
        }
        if (py < top[m - 1]) top[m - 1] = py;
        if (py > bot[m - 1]) bot[m - 1] = py;
        prev_py = py;
    }
    band_flush(cr, cx, top, bot, m, hw);
    cairo_new_path(cr);
    free(buf);
}

static void legend(cairo_t *cr, double x, double y, const char *const *labels, const rgb *cols,
                   const int *styles, int n)
{
    /* styles: 0 line, 1 dashed line, 2 filled box, 3 translucent box */
    cairo_save(cr);
    double cx = x;
    for (int k = 0; k < n; k++) {
        cairo_set_line_width(cr, 2);
        if (styles[k] >= 2) {
            set_rgba(cr, cols[k], styles[k] == 3 ? 0.45 : 1.0);
            cairo_rectangle(cr, cx, y - 5, 18, 10);
            cairo_fill(cr);
        } else {
            set_rgb(cr, cols[k]);
            if (styles[k] == 1) {
                double dash[] = {5, 3};
                cairo_set_dash(cr, dash, 2, 0);
            }
            cairo_move_to(cr, cx, y);
            cairo_line_to(cr, cx + 18, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        set_rgb(cr, C_TEXT);
        cairo_text_extents_t te;
        cairo_set_font_size(cr, 11.5);
        cairo_text_extents(cr, labels[k], &te);
        cairo_move_to(cr, cx + 23, y + 4);
        cairo_show_text(cr, labels[k]);
        cx += 23 + te.x_advance + 16;
    }
    cairo_restore(cr);
}

static void title(cairo_t *cr, double x, double y, const char *s)
{
    cairo_save(cr);
    set_rgb(cr, C_TEXT);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    text_at(cr, x, y, 14, s, 0, 1.0);
    cairo_restore(cr);
}

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
            cairo_move_to(cr, ax_px(a, xa), ax_py(a, da));
            last_px = ax_px(a, xa);
            started = true;
        }
        /* Vertices closer than a quarter pixel add nothing but file size. */
        double px = ax_px(a, xb);
        if (px - last_px >= 0.25 || lb < 1) {
            cairo_line_to(cr, px, ax_py(a, db));
            last_px = px;
        }
    }
    if (!started) return;
    /* Back along the ideal path (its points inside, then the start). */
    cairo_line_to(cr, ax_px(a, sb), ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, sb, &cur)));
    for (size_t k = task->n_ideal; k-- > 0;) {
        double sk = task->ideal[k].s;
        if (sk > sa && sk < sb) cairo_line_to(cr, ax_px(a, sk), ax_py(a, task->ideal[k].d));
    }
    cur = 0;
    cairo_line_to(cr, ax_px(a, sa), ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, sa, &cur)));
    cairo_close_path(cr);
    cairo_fill(cr);
}

/* The ideal path offset by off, as a polyline over [s0, s1] (its corners included). */
static void ideal_path(axes *a, const an_task *task, double s0, double s1, double off, bool move)
{
    size_t cur = 0;
    double d0 = sim_metrics_ideal_at(task->ideal, task->n_ideal, s0, &cur) + off;
    if (move) cairo_move_to(a->cr, ax_px(a, s0), ax_py(a, d0));
    else cairo_line_to(a->cr, ax_px(a, s0), ax_py(a, d0));
    for (size_t k = 0; k < task->n_ideal; k++)
        if (task->ideal[k].s > s0 && task->ideal[k].s < s1)
            cairo_line_to(a->cr, ax_px(a, task->ideal[k].s), ax_py(a, task->ideal[k].d + off));
    cur = 0;
    cairo_line_to(a->cr, ax_px(a, s1), ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, s1, &cur) + off));
}

static void ideal_path_rev(axes *a, const an_task *task, double s0, double s1, double off)
{
    size_t cur = 0;
    cairo_line_to(a->cr, ax_px(a, s1), ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, s1, &cur) + off));
    for (size_t k = task->n_ideal; k-- > 0;)
        if (task->ideal[k].s > s0 && task->ideal[k].s < s1)
            cairo_line_to(a->cr, ax_px(a, task->ideal[k].s), ax_py(a, task->ideal[k].d + off));
    cur = 0;
    cairo_line_to(a->cr, ax_px(a, s0), ax_py(a, sim_metrics_ideal_at(task->ideal, task->n_ideal, s0, &cur) + off));
}

int an_plot_lateral(const an_result *res, const an_task_result *tr, const char *path,
                    an_format fmt, sim_error *err)
{
    const an_task *task = tr->task;
    const an_scenario *sc = res->scenario;
    task_view v = view_of(res, tr);
    canvas cv;
    int rc = canvas_open(&cv, path, fmt, 1100, 430, err);
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
    nice_range(&lo, &hi, 6);
    axes a = {cr, 70, 52, 1100 - 70 - 24, 430 - 52 - 62, s0, s1, lo, hi};
    char buf[200];
    snprintf(buf, sizeof buf, "Task %s (run %d): lateral position along the road", task->id, tr->run);
    title(cr, a.x, 12, buf);
    {
        const char *labels[] = {"driven path", "ideal path", "driving tube", "lane mark",
                                "local area", "lane-mark event (severe)"};
        rgb cols[] = {C_DRIVEN, C_IDEAL, C_TUBE, C_MARK, C_AREA, C_SEVERE};
        int st[] = {0, 1, 3, 1, 3, 2};
        legend(cr, a.x, 40, labels, cols, st, 6);
    }
    axes_draw(&a, "distance along the road s (m)", "lateral position d (m, left +)", true, 10, 6);
    axes_clip(&a);
    /* Tube. */
    set_rgba(cr, C_TUBE, 0.35);
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
    set_rgb(cr, C_MARK);
    for (size_t k = 0; k < nb; k++) {
        cairo_set_dash(cr, dash, solid[k] ? 0 : 2, 0);
        cairo_move_to(cr, a.x, ax_py(&a, bd[k]));
        cairo_line_to(cr, a.x + a.w, ax_py(&a, bd[k]));
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    /* Local areas; severe events in red underneath markers. */
    shade_cursor scur = {0, -INFINITY, -INFINITY};
    for (size_t k = 0; k < tr->m.n_events; k++) {
        const sim_metrics_event *ev = &tr->m.events[k];
        set_rgba(cr, ev->kind == SIM_METRICS_MARK ? C_SEVERE : C_AREA,
                 ev->kind == SIM_METRICS_MARK ? 0.45 : 0.55);
        shade_between(&a, &v, task, ev->s_start, ev->s_end, &scur);
    }
    /* Ideal path. */
    double dash2[] = {7, 4};
    cairo_set_dash(cr, dash2, 2, 0);
    cairo_set_line_width(cr, 1.6);
    set_rgb(cr, C_IDEAL);
    ideal_path(&a, task, s0, s1, 0, true);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    /* Driven path. */
    cairo_set_line_width(cr, 1.6);
    set_rgb(cr, C_DRIVEN);
    polyline(&a, v.s, v.d, v.n);
    cairo_restore(cr); /* clip */
    /* Severe events: a red triangle on the top edge above the largest deviation, and
     * each local area's number beside it. */
    for (size_t k = 0, q = 0; k < tr->m.n_events; k++) {
        const sim_metrics_event *ev = &tr->m.events[k];
        double px = ax_px(&a, ev->s_max);
        if (ev->kind == SIM_METRICS_MARK) {
            set_rgb(cr, C_SEVERE);
            cairo_move_to(cr, px - 6, a.y + 1);
            cairo_line_to(cr, px + 6, a.y + 1);
            cairo_line_to(cr, px, a.y + 11);
            cairo_close_path(cr);
            cairo_fill(cr);
        } else {
            q++;
            snprintf(buf, sizeof buf, "%.1f m\xc2\xb2", ev->area);
            set_rgb(cr, C_TEXT);
            double ys = ax_py(&a, ev->side > 0 ? a.y1 : a.y0);
            text_at(cr, px, ev->side > 0 ? ys + 14 : ys - 6, 10.5, buf, 0.5, ev->side > 0 ? 1.0 : 0.0);
        }
    }
    snprintf(buf, sizeof buf,
             "A_global = %.2f m\xc2\xb2 in %zu event%s, %zu severe   MDEV = %.3f m   SDLP = %.3f m   h = %.2f m",
             tr->m.area_global, tr->m.n_tube_events, tr->m.n_tube_events == 1 ? "" : "s",
             tr->m.n_mark_events, tr->m.mdev, tr->m.sdlp, task->tube_half_width);
    set_rgb(cr, C_TEXT);
    text_at(cr, a.x + a.w, 12, 11.5, buf, 1.0, 1.0);
    return canvas_close(&cv, err);
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

static void range_of(const double *y, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i])) {
            if (y[i] < *lo) *lo = y[i];
            if (y[i] > *hi) *hi = y[i];
        }
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
    /* Derived series: e, speed in km/h, steering in degrees, limit in km/h. */
    double *buf = malloc(4 * n * sizeof *buf);
    if (!buf) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    double *e = buf, *kmh = buf + n, *deg = buf + 2 * n, *lim = buf + 3 * n;
    size_t cur = 0;
    double smax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double s = dr->col[AN_S][i0 + i];
        if (s > smax) smax = s;
        e[i] = dr->col[AN_D][i0 + i] - sim_metrics_ideal_at(task->ideal, task->n_ideal, smax, &cur);
        kmh[i] = dr->col[AN_SPEED][i0 + i] * 3.6;
        deg[i] = dr->col[AN_STEER][i0 + i] * 180 / M_PI;
        lim[i] = tr->limit[i] * 3.6;
    }
    const double W = 1100, H = 820;
    canvas cv;
    int rc = canvas_open(&cv, path, fmt, W, H, err);
    if (rc) {
        free(buf);
        return rc;
    }
    cairo_t *cr = cv.cr;
    char txt[200];
    snprintf(txt, sizeof txt, "Task %s (run %d): deviation and controls over time", task->id, tr->run);
    title(cr, 70, 12, txt);
    {
        const char *labels[] = {"deviation event", "severe", "button", "operator command", "trigger / HUD"};
        rgb cols[] = {C_AREA, C_SEVERE, C_BUTTON, C_CONTROL, C_TRIGGER};
        int st[] = {3, 3, 0, 0, 0};
        legend(cr, 70, 38, labels, cols, st, 5);
    }
    enum { P_DEV, P_SPEED, P_HEAD, P_STEER, P_PEDAL, NP };
    const char *ylab[NP] = {"deviation e (m)", "speed (km/h)", "headway (m)", "steering wheel (\xc2\xb0)", "pedals (0..1)"};
    double top = 84, bottom = 56, gap = 10, ph = (H - top - bottom - gap * (NP - 1)) / NP;
    axes ax[NP];
    bool any_headway = false; /* a vehicle ahead at some sample of the task */
    for (int p = 0; p < NP; p++) {
        double lo = INFINITY, hi = -INFINITY;
        switch (p) {
        case P_DEV:
            range_of(e, n, &lo, &hi);
            if (lo > -task->tube_half_width) lo = -task->tube_half_width;
            if (hi < task->tube_half_width) hi = task->tube_half_width;
            break;
        case P_SPEED:
            range_of(kmh, n, &lo, &hi);
            range_of(lim, n, &lo, &hi);
            if (lo > 0 && lo < hi * 0.5) lo = 0;
            break;
        case P_HEAD:
            range_of(dr->col[AN_HEADWAY] + i0, n, &lo, &hi);
            any_headway = hi >= lo;
            if (lo > 0) lo = 0;
            break;
        case P_STEER: range_of(deg, n, &lo, &hi); break;
        default: lo = 0, hi = 1; break;
        }
        if (!(hi >= lo)) lo = 0, hi = 1;
        if (p != P_PEDAL) nice_range(&lo, &hi, 4);
        ax[p] = (axes){cr, 70, top + p * (ph + gap), W - 70 - 24, ph, t0, t1, lo, hi};
        axes_draw(&ax[p], p == NP - 1 ? "time t (s)" : NULL, ylab[p], p == NP - 1, 12, 4);
    }
    /* Event spans shaded through every panel, then the traces. */
    for (int p = 0; p < NP; p++) {
        axes *a = &ax[p];
        axes_clip(a);
        for (size_t k = 0; k < tr->m.n_events; k++) {
            const sim_metrics_event *ev = &tr->m.events[k];
            set_rgba(cr, ev->kind == SIM_METRICS_MARK ? C_SEVERE : C_AREA, 0.22);
            cairo_rectangle(cr, ax_px(a, ev->t_start), a->y, ax_px(a, ev->t_end) - ax_px(a, ev->t_start), a->h);
            cairo_fill(cr);
        }
        cairo_set_line_width(cr, 1.5);
        switch (p) {
        case P_DEV: {
            set_rgba(cr, C_TUBE, 0.35);
            cairo_rectangle(cr, a->x, ax_py(a, task->tube_half_width), a->w,
                            ax_py(a, -task->tube_half_width) - ax_py(a, task->tube_half_width));
            cairo_fill(cr);
            set_rgb(cr, C_DRIVEN);
            polyline(a, t, e, n);
            break;
        }
        case P_SPEED:
            set_rgb(cr, C_LIMIT);
            cairo_set_line_width(cr, 1.2);
            {
                /* Piecewise constant: only its steps, so that it stays a dashed line. */
                double dash[] = {6, 4};
                cairo_set_dash(cr, dash, 2, 0);
                bool pen = false;
                for (size_t i = 0; i < n; i++) {
                    bool last = i + 1 == n, step = !last && lim[i + 1] != lim[i];
                    if (!isfinite(lim[i])) {
                        pen = false;
                        continue;
                    }
                    if (!pen) cairo_move_to(cr, ax_px(a, t[i]), ax_py(a, lim[i]));
                    else if (step || last) cairo_line_to(cr, ax_px(a, t[i]), ax_py(a, lim[i]));
                    pen = true;
                }
                cairo_stroke(cr);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            cairo_set_line_width(cr, 1.5);
            set_rgb(cr, C_DRIVEN);
            polyline(a, t, kmh, n);
            break;
        case P_HEAD:
            if (!any_headway) {
                /* An empty axis would read as a missing trace; say why it is empty, on
                 * a white box so that event shading behind it does not hide it. */
                const char *note = "no vehicle ahead in this task";
                cairo_text_extents_t te;
                cairo_set_font_size(cr, 12);
                cairo_text_extents(cr, note, &te);
                double cx = a->x + a->w / 2, cy = a->y + a->h / 2;
                cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
                cairo_rectangle(cr, cx - te.x_advance / 2 - 8, cy - 11, te.x_advance + 16, 22);
                cairo_fill(cr);
                set_rgb(cr, C_TEXT);
                text_at(cr, cx, cy + 4, 12, note, 0.5, 0);
                break;
            }
            set_rgb(cr, C_DRIVEN);
            polyline(a, t, dr->col[AN_HEADWAY] + i0, n);
            break;
        case P_STEER:
            set_rgb(cr, C_DRIVEN);
            polyline(a, t, deg, n);
            break;
        default:
            set_rgb(cr, C_THROTTLE);
            polyline(a, t, dr->col[AN_THROTTLE] + i0, n);
            set_rgb(cr, C_BRAKE);
            polyline(a, t, dr->col[AN_BRAKE] + i0, n);
            break;
        }
        /* Markers: a vertical line through the panel for each button, command, trigger. */
        cairo_set_line_width(cr, 1.0);
        for (size_t k = 0; k < dr->n_events; k++) {
            const an_event *ev = &dr->events[k];
            if (ev->run != tr->run || ev->t < t0 || ev->t > t1 || !event_shown(ev)) continue;
            set_rgba(cr, event_colour(ev), 0.85);
            double px = ax_px(a, ev->t);
            double dash[] = {3, 3};
            cairo_set_dash(cr, dash, 2, 0);
            cairo_move_to(cr, px, a->y);
            cairo_line_to(cr, px, a->y + a->h);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        cairo_restore(cr);
    }
    /* Marker labels above the first panel in two rows; a label that would overlap the
     * previous one in both rows is left out (its marker stays). */
    double row_end[2] = {-1e9, -1e9};
    cairo_set_font_size(cr, 9.5);
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *ev = &dr->events[k];
        if (ev->run != tr->run || ev->t < t0 || ev->t > t1 || !event_shown(ev)) continue;
        double px = ax_px(&ax[0], ev->t);
        set_rgb(cr, event_colour(ev));
        cairo_move_to(cr, px - 4, ax[0].y - 1);
        cairo_line_to(cr, px + 4, ax[0].y - 1);
        cairo_line_to(cr, px, ax[0].y + 6);
        cairo_close_path(cr);
        cairo_fill(cr);
        cairo_text_extents_t te;
        cairo_text_extents(cr, ev->name, &te);
        int row = px >= row_end[0] ? 0 : px >= row_end[1] ? 1 : -1;
        if (row < 0) continue;
        row_end[row] = px + te.x_advance + 8;
        text_at(cr, px - 3, ax[0].y - 4 - 11 * row, 9.5, ev->name, 0, 0);
    }
    /* Pedal legend inside its panel. */
    {
        const char *labels[] = {"throttle", "brake"};
        rgb cols[] = {C_THROTTLE, C_BRAKE};
        int st[] = {0, 0};
        legend(cr, ax[P_PEDAL].x + 8, ax[P_PEDAL].y + 12, labels, cols, st, 2);
        const char *l2[] = {"speed", "limit"};
        rgb c2[] = {C_DRIVEN, C_LIMIT};
        int st2[] = {0, 1};
        legend(cr, ax[P_SPEED].x + 8, ax[P_SPEED].y + 12, l2, c2, st2, 2);
    }
    free(buf);
    return canvas_close(&cv, err);
}

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
    range_of(x + r0, n, &xlo, &xhi);
    range_of(y + r0, n, &ylo, &yhi);
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
    int rc = canvas_open(&cv, path, fmt, W, H, err);
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
    title(cr, a.x, 14, txt);
    axes_draw(&a, "x east (m)", "y north (m)", true, 8, 8);
    axes_clip(&a);
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
        else set_rgb(cr, colormap(e / emax));
        cairo_move_to(cr, ax_px(&a, x[last]), ax_py(&a, y[last]));
        cairo_line_to(cr, ax_px(&a, x[g]), ax_py(&a, y[g]));
        cairo_stroke(cr);
        last = g;
    }
    cairo_restore(cr);
    /* Colour bar. */
    double bx = a.x + a.w + 30, by = a.y + 20, bh = a.h - 40;
    for (int k = 0; k < 100; k++) {
        set_rgb(cr, colormap(k / 99.0));
        cairo_rectangle(cr, bx, by + bh - (k + 1) * bh / 100, 16, bh / 100 + 0.5);
        cairo_fill(cr);
    }
    set_rgb(cr, C_AXIS);
    cairo_set_line_width(cr, 0.8);
    cairo_rectangle(cr, bx, by, 16, bh);
    cairo_stroke(cr);
    set_rgb(cr, C_TEXT);
    double st = nice_step(emax, 5);
    for (double vv = 0; vv <= emax + 1e-12; vv += st) {
        fmt_tick(txt, sizeof txt, vv, st);
        text_at(cr, bx + 21, by + bh - vv / emax * bh, 11, txt, 0, 0.5);
    }
    text_at(cr, bx - 4, by - 8, 11.5, "|e| (m)", 0, 0);
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_rectangle(cr, bx, by + bh + 14, 16, 8);
    cairo_fill(cr);
    set_rgb(cr, C_TEXT);
    text_at(cr, bx + 21, by + bh + 18, 10.5, "no task", 0, 0.5);
    free(ae);
    return canvas_close(&cv, err);
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
    for (size_t g = 0; g < n_groups; g++) range_of(values[g], n_values[g], &lo, &hi);
    if (lo > 0 && lo < hi * 0.5) lo = 0;
    nice_range(&lo, &hi, 5);
    double W = 160 + 90.0 * (double)(n_groups < 4 ? 4 : n_groups), H = 380;
    if (W > 1400) W = 1400;
    canvas cv;
    int rc = canvas_open(&cv, path, fmt, W, H, err);
    if (rc) return rc;
    cairo_t *cr = cv.cr;
    axes a = {cr, 76, 44, W - 76 - 20, H - 44 - 64, 0, (double)(n_groups ? n_groups : 1), lo, hi};
    title(cr, a.x, 14, ttl);
    /* y grid and axis only; groups label the x axis. */
    axes_draw(&a, NULL, ylabel, false, 0, 5);
    bool any = false;
    for (size_t g = 0; g < n_groups && !any; g++)
        for (size_t k = 0; k < n_values[g] && !any; k++) any = isfinite(values[g][k]);
    if (!any) {
        set_rgb(cr, C_AXIS);
        text_at(cr, a.x + a.w / 2, a.y + a.h / 2, 13, "no values: no task of the study has this measure",
                0.5, 0.5);
    }
    double slot = a.w / (double)(n_groups ? n_groups : 1);
    for (size_t g = 0; g < n_groups; g++) {
        double cx = a.x + slot * ((double)g + 0.5);
        set_rgb(cr, C_TEXT);
        text_at(cr, cx, a.y + a.h + 6, 11, groups[g], 0.5, 1.0);
        size_t n = 0;
        double *v = malloc((n_values[g] + 1) * sizeof *v);
        if (!v) {
            canvas_close(&cv, NULL);
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
        set_rgba(cr, C_DRIVEN, 0.15);
        cairo_rectangle(cr, cx - bw / 2, ax_py(&a, q3), bw, ax_py(&a, q1) - ax_py(&a, q3));
        cairo_fill_preserve(cr);
        set_rgb(cr, C_DRIVEN);
        cairo_stroke(cr);
        cairo_set_line_width(cr, 2.2);
        cairo_move_to(cr, cx - bw / 2, ax_py(&a, q2));
        cairo_line_to(cr, cx + bw / 2, ax_py(&a, q2));
        cairo_stroke(cr);
        cairo_set_line_width(cr, 1.2);
        cairo_move_to(cr, cx, ax_py(&a, q3));
        cairo_line_to(cr, cx, ax_py(&a, v[n - 1]));
        cairo_move_to(cr, cx, ax_py(&a, q1));
        cairo_line_to(cr, cx, ax_py(&a, v[0]));
        cairo_move_to(cr, cx - bw / 4, ax_py(&a, v[n - 1]));
        cairo_line_to(cr, cx + bw / 4, ax_py(&a, v[n - 1]));
        cairo_move_to(cr, cx - bw / 4, ax_py(&a, v[0]));
        cairo_line_to(cr, cx + bw / 4, ax_py(&a, v[0]));
        cairo_stroke(cr);
        /* Every subject as a dot, spread sideways deterministically. */
        for (size_t k = 0; k < n; k++) {
            double jx = ((double)((k * 7919) % 17) / 16.0 - 0.5) * bw * 0.6;
            set_rgba(cr, C_AREA, 0.85);
            cairo_arc(cr, cx + jx, ax_py(&a, v[k]), 3.0, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        char buf[48];
        snprintf(buf, sizeof buf, "n=%zu", n);
        set_rgb(cr, C_AXIS);
        text_at(cr, cx, a.y + a.h + 22, 9.5, buf, 0.5, 1.0);
        free(v);
    }
    return canvas_close(&cv, err);
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
        set_rgb(cr, C_TEXT);
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
    if ((rc = canvas_open(&cv, path, fmt, 1000, 470, err))) {
        sim_metrics_result_free(&m);
        return rc;
    }
    cairo_t *cr = cv.cr;
    axes a = {cr, 70, 56, 1000 - 70 - 24, 470 - 56 - 58, 0, 100, -2.5, 2.75};
    title(cr, a.x, 12, "Deviation events, local areas and lane-mark events of one task");
    {
        const char *labels[] = {"driven d (samples)", "ideal path", "tube \xc2\xb1h", "lane mark",
                                "local area", "severe (body over mark)", "body edge d + w/2"};
        rgb cols[] = {C_DRIVEN, C_IDEAL, C_TUBE, C_MARK, C_AREA, C_SEVERE, C_SEVERE};
        int st[] = {0, 1, 3, 1, 3, 3, 1};
        legend(cr, a.x, 40, labels, cols, st, 7);
    }
    axes_draw(&a, "distance along the road s (m)", "lateral position d (m)", true, 10, 9);
    axes_clip(&a);
    set_rgba(cr, C_TUBE, 0.35);
    cairo_rectangle(cr, a.x, ax_py(&a, 0.5), a.w, ax_py(&a, -0.5) - ax_py(&a, 0.5));
    cairo_fill(cr);
    /* Local areas: the polygon between e and 0 over each event. */
    for (size_t k = 0; k < m.n_events; k++) {
        const sim_metrics_event *ev = &m.events[k];
        set_rgba(cr, ev->kind == SIM_METRICS_MARK ? C_SEVERE : C_AREA, ev->kind == SIM_METRICS_MARK ? 0.5 : 0.55);
        cairo_move_to(cr, ax_px(&a, ev->s_start), ax_py(&a, 0));
        for (int i = 0; i + 1 < NS; i++) {
            if (S[i + 1] <= ev->s_start || S[i] >= ev->s_end) continue;
            double sa = fmax(S[i], ev->s_start), sb = fmin(S[i + 1], ev->s_end);
            double ea = E[i] + (E[i + 1] - E[i]) * (sa - S[i]) / (S[i + 1] - S[i]);
            double eb = E[i] + (E[i + 1] - E[i]) * (sb - S[i]) / (S[i + 1] - S[i]);
            cairo_line_to(cr, ax_px(&a, sa), ax_py(&a, ea));
            cairo_line_to(cr, ax_px(&a, sb), ax_py(&a, eb));
        }
        cairo_line_to(cr, ax_px(&a, ev->s_end), ax_py(&a, 0));
        cairo_close_path(cr);
        cairo_fill(cr);
    }
    double dash[] = {8, 5};
    cairo_set_line_width(cr, 1.4);
    set_rgb(cr, C_MARK);
    cairo_set_dash(cr, dash, 2, 0);
    for (int q = -1; q <= 1; q += 2) {
        cairo_move_to(cr, a.x, ax_py(&a, 1.75 * q));
        cairo_line_to(cr, a.x + a.w, ax_py(&a, 1.75 * q));
    }
    cairo_stroke(cr);
    set_rgb(cr, C_IDEAL);
    cairo_move_to(cr, a.x, ax_py(&a, 0));
    cairo_line_to(cr, a.x + a.w, ax_py(&a, 0));
    cairo_stroke(cr);
    double dot[] = {2, 3};
    cairo_set_dash(cr, dot, 2, 0);
    set_rgba(cr, C_SEVERE, 0.8);
    for (int i = 0; i < NS; i++) {
        double px = ax_px(&a, S[i]), py = ax_py(&a, E[i] + 0.9);
        if (i) cairo_line_to(cr, px, py);
        else cairo_move_to(cr, px, py);
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, 1.8);
    set_rgb(cr, C_DRIVEN);
    polyline(&a, S, E, NS);
    for (int i = 0; i < NS; i++) circle(cr, ax_px(&a, S[i]), ax_py(&a, E[i]), 3.2, true);
    cairo_restore(cr);
    /* Crossing points (open circles) with their names, the zero crossing, and labels. */
    char buf[96];
    int q = 0;
    for (size_t k = 0; k < m.n_events; k++) {
        const sim_metrics_event *ev = &m.events[k];
        if (ev->kind != SIM_METRICS_TUBE) continue;
        q++;
        double ya = ev->side > 0 ? 0.5 : -0.5;
        circle(cr, ax_px(&a, ev->s_start), ax_py(&a, ya), 4.5, false);
        double ly = ax_py(&a, ya) + 16; /* names below the crossing points */
        snprintf(buf, sizeof buf, "a%d", q);
        text_at(cr, ax_px(&a, ev->s_start) - 4, ly, 12, buf, 1, 0.5);
        if (!ev->open_end) {
            circle(cr, ax_px(&a, ev->s_end), ax_py(&a, ya), 4.5, false);
            snprintf(buf, sizeof buf, "b%d", q);
            text_at(cr, ax_px(&a, ev->s_end) + 4, ly, 12, buf, 0, 0.5);
        }
        double sm = 0.5 * (ev->s_start + ev->s_end);
        snprintf(buf, sizeof buf, "A_local,%d = %.2f m\xc2\xb2%s", q, ev->area,
                 ev->open_end ? " (open at the task end)" : "");
        set_rgb(cr, C_TEXT);
        if (ev->open_end)
            text_at(cr, a.x + a.w - 4, ax_py(&a, 2.45), 12, buf, 1, 0.5);
        else
            text_at(cr, ax_px(&a, sm), ax_py(&a, ev->side > 0 ? 2.45 : -2.25), 12, buf, 0.5, 0.5);
    }
    /* The zero crossing inside the interval [48, 56]: the integral of |e| splits there. */
    double sz = 48 + 8 * 0.1 / 0.55;
    set_rgb(cr, C_TEXT);
    cairo_set_line_width(cr, 1.5);
    double zx = ax_px(&a, sz), zy = ax_py(&a, 0);
    cairo_move_to(cr, zx - 5, zy - 5);
    cairo_line_to(cr, zx + 5, zy + 5);
    cairo_move_to(cr, zx - 5, zy + 5);
    cairo_line_to(cr, zx + 5, zy - 5);
    cairo_stroke(cr);
    text_at(cr, zx - 6, ax_py(&a, -0.27), 11, "e = 0 inside an interval: |e| is split there", 1, 0.5);
    for (size_t k = 0; k < m.n_events; k++)
        if (m.events[k].kind == SIM_METRICS_MARK) {
            snprintf(buf, sizeof buf, "lane-mark event (severe), %.2f m\xc2\xb2", m.events[k].area);
            set_rgb(cr, C_SEVERE);
            text_at(cr, ax_px(&a, m.events[k].s_end) + 60, ax_py(&a, 1.75) - 10, 11.5, buf, 0, 0.5);
        }
    snprintf(buf, sizeof buf, "A_global = \xce\xa3 A_local,i = %.2f m\xc2\xb2    MDEV = \xe2\x88\xab|e| ds / L = %.3f m",
             m.area_global, m.mdev);
    set_rgb(cr, C_TEXT);
    text_at(cr, a.x + a.w, 12, 12, buf, 1, 1.0);
    sim_metrics_result_free(&m);
    return canvas_close(&cv, err);
}
