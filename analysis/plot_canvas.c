/* plot_canvas: the drawing layer under the analysis figures (see plot.h): a canvas
 * written as SVG or as PNG (with a writer of our own, below), colours and axes.
 * Long signals are thinned to a min/max envelope per pixel column, which draws the
 * same picture as every sample at a fraction of the cost. */
#include "plot.h"

#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- canvas ---- */

#define PNG_SCALE 1.5


int plot_canvas_open(canvas *cv, const char *path, an_format fmt, double w, double h,
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

int plot_canvas_close(canvas *cv, sim_error *err)
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



void plot_set_rgb(cairo_t *cr, rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

void plot_set_rgba(cairo_t *cr, rgb c, double a)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

/* Viridis-like colour map at u in [0, 1] (five anchors, linear between). */
rgb plot_colormap(double u)
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


double plot_ax_px(const axes *a, double v)
{
    return a->x + (v - a->x0) / (a->x1 - a->x0) * a->w;
}

double plot_ax_py(const axes *a, double v)
{
    return a->y + a->h - (v - a->y0) / (a->y1 - a->y0) * a->h;
}

double plot_nice_step(double range, int target)
{
    double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return mag * (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10);
}

/* Widens [lo, hi] to tick multiples; guards empty or flat ranges. */
void plot_nice_range(double *lo, double *hi, int target)
{
    if (!isfinite(*lo) || !isfinite(*hi)) *lo = 0, *hi = 1;
    if (*hi - *lo < 1e-9) *lo -= 0.5, *hi += 0.5;
    double st = plot_nice_step(*hi - *lo, target);
    *lo = floor(*lo / st + 1e-9) * st;
    *hi = ceil(*hi / st - 1e-9) * st;
}

void plot_text_at(cairo_t *cr, double x, double y, double size, const char *s, double ax,
                  double ay)
{
    cairo_text_extents_t te;
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &te);
    cairo_move_to(cr, x - ax * te.x_advance, y + ay * te.height);
    cairo_show_text(cr, s);
}

void plot_fmt_tick(char *buf, size_t n, double v, double step)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (fabs(v) < step * 1e-6) v = 0;
    snprintf(buf, n, "%.*f", dec, v);
}

void plot_axes_draw(axes *a, const char *xlabel, const char *ylabel, bool xticks_labels,
                    int xt, int yt)
{
    cairo_t *cr = a->cr;
    cairo_save(cr);
    cairo_set_line_width(cr, 0.8);
    char buf[32];
    double st = plot_nice_step(a->y1 - a->y0, yt > 0 ? yt : 1);
    for (double v = ceil(a->y0 / st - 1e-9) * st; yt > 0 && v <= a->y1 + st * 1e-9; v += st) { /* yt 0: rows, no ticks */
        double py = plot_ax_py(a, v);
        plot_set_rgb(cr, C_GRID);
        cairo_move_to(cr, a->x, py);
        cairo_line_to(cr, a->x + a->w, py);
        cairo_stroke(cr);
        plot_set_rgb(cr, C_TEXT);
        plot_fmt_tick(buf, sizeof buf, v, st);
        plot_text_at(cr, a->x - 6, py, 11, buf, 1.0, 0.5);
    }
    st = plot_nice_step(a->x1 - a->x0, xt > 0 ? xt : 1);
    for (double v = ceil(a->x0 / st - 1e-9) * st; xt > 0 && v <= a->x1 + st * 1e-9; v += st) {
        double px = plot_ax_px(a, v);
        plot_set_rgb(cr, C_GRID);
        cairo_move_to(cr, px, a->y);
        cairo_line_to(cr, px, a->y + a->h);
        cairo_stroke(cr);
        if (xticks_labels) {
            plot_set_rgb(cr, C_TEXT);
            plot_fmt_tick(buf, sizeof buf, v, st);
            plot_text_at(cr, px, a->y + a->h + 6, 11, buf, 0.5, 1.0);
        }
    }
    plot_set_rgb(cr, C_AXIS);
    cairo_rectangle(cr, a->x, a->y, a->w, a->h);
    cairo_stroke(cr);
    plot_set_rgb(cr, C_TEXT);
    if (xlabel) plot_text_at(cr, a->x + a->w / 2, a->y + a->h + 24, 12.5, xlabel, 0.5, 1.0);
    if (ylabel) {
        cairo_save(cr);
        cairo_translate(cr, a->x - 46, a->y + a->h / 2);
        cairo_rotate(cr, -M_PI / 2);
        plot_text_at(cr, 0, 0, 12.5, ylabel, 0.5, 0.0);
        cairo_restore(cr);
    }
    cairo_restore(cr);
}

void plot_axes_clip(axes *a)
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
void plot_polyline(axes *a, const double *x, const double *y, size_t n)
{
    cairo_t *cr = a->cr;
    if (n <= 4 * (size_t)a->w) {
        bool pen = false;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(x[i]) || !isfinite(y[i])) {
                pen = false;
                continue;
            }
            double px = plot_ax_px(a, x[i]), py = plot_ax_py(a, y[i]);
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
        double px = plot_ax_px(a, x[i]), py = plot_ax_py(a, y[i]), c = floor(px);
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

void plot_legend(cairo_t *cr, double x, double y, const char *const *labels, const rgb *cols,
                 const int *styles, int n)
{
    /* styles: 0 line, 1 dashed line, 2 filled box, 3 translucent box */
    cairo_save(cr);
    double cx = x;
    for (int k = 0; k < n; k++) {
        cairo_set_line_width(cr, 2);
        if (styles[k] >= 2) {
            plot_set_rgba(cr, cols[k], styles[k] == 3 ? 0.45 : 1.0);
            cairo_rectangle(cr, cx, y - 5, 18, 10);
            cairo_fill(cr);
        } else {
            plot_set_rgb(cr, cols[k]);
            if (styles[k] == 1) {
                double dash[] = {5, 3};
                cairo_set_dash(cr, dash, 2, 0);
            }
            cairo_move_to(cr, cx, y);
            cairo_line_to(cr, cx + 18, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        plot_set_rgb(cr, C_TEXT);
        cairo_text_extents_t te;
        cairo_set_font_size(cr, 11.5);
        cairo_text_extents(cr, labels[k], &te);
        cairo_move_to(cr, cx + 23, y + 4);
        cairo_show_text(cr, labels[k]);
        cx += 23 + te.x_advance + 16;
    }
    cairo_restore(cr);
}

void plot_title(cairo_t *cr, double x, double y, const char *s)
{
    cairo_save(cr);
    plot_set_rgb(cr, C_TEXT);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    plot_text_at(cr, x, y, 14, s, 0, 1.0);
    cairo_restore(cr);
}

/* Widens [*lo, *hi] to hold the finite values of y. */
void plot_range_of(const double *y, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i])) {
            if (y[i] < *lo) *lo = y[i];
            if (y[i] > *hi) *hi = y[i];
        }
}
