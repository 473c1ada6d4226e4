/* signtex: sign faces (signtex.h). Sizes: a speed-limit disc of 0.9 m; the lane-change
 * board 2.0 x 1.5 m with one column per lane, the target marked by a white arrow on
 * blue, so that at 40 m (about 40 px wide on a 720-pixel, 45-degree screen) the
 * target column is clear. */
#include "signtex.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Text centred on (cx, cy), made smaller when it would be wider than 2 * cx * 0.92. */
static void centred_text(cairo_t *cr, const char *text, double cx, double cy, double size)
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    if (e.width > 2 * cx * 0.92) {
        cairo_set_font_size(cr, size * 2 * cx * 0.92 / e.width);
        cairo_text_extents(cr, text, &e);
    }
    cairo_move_to(cr, cx - e.width / 2 - e.x_bearing, cy - e.height / 2 - e.y_bearing);
    cairo_show_text(cr, text);
}

static void draw_speed_limit(cairo_t *cr, int w, double kmh)
{
    double r = w / 2.0;
    cairo_arc(cr, r, r, r - 1, 0, 2 * M_PI);
    cairo_set_source_rgb(cr, 0.85, 0.05, 0.05);
    cairo_fill(cr);
    cairo_arc(cr, r, r, r * 0.78, 0, 2 * M_PI);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    char t[16];
    snprintf(t, sizeof t, "%.0f", kmh);
    cairo_set_source_rgb(cr, 0, 0, 0);
    centred_text(cr, t, r, r, strlen(t) > 2 ? w * 0.36 : w * 0.48);
}

static void draw_lane_change(cairo_t *cr, int w, int h, int lanes, int target)
{
    cairo_set_source_rgb(cr, 0.05, 0.25, 0.65);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, w * 0.025);
    cairo_rectangle(cr, w * 0.03, h * 0.04, w * 0.94, h * 0.92);
    cairo_stroke(cr);
    if (target < 0) return; /* an LCT board before it is legible: blank (roads.c) */
    if (lanes < 1) lanes = 1;
    double col = w * 0.94 / lanes, x0 = w * 0.03;
    for (int k = 1; k < lanes; k++) {
        cairo_move_to(cr, x0 + k * col, h * 0.1);
        cairo_line_to(cr, x0 + k * col, h * 0.9);
        cairo_stroke(cr);
    }
    for (int k = 0; k < lanes; k++) {
        double cx = x0 + (k + 0.5) * col;
        if (k + 1 == target) {
            /* a bold arrow pointing up in the target lane: at 40 m its head is about 8
             * pixels wide on a 720-pixel screen */
            double aw = col * 0.8;
            cairo_move_to(cr, cx, h * 0.12);
            cairo_line_to(cr, cx + aw / 2, h * 0.45);
            cairo_line_to(cr, cx + aw / 6, h * 0.45);
            cairo_line_to(cr, cx + aw / 6, h * 0.88);
            cairo_line_to(cr, cx - aw / 6, h * 0.88);
            cairo_line_to(cr, cx - aw / 6, h * 0.45);
            cairo_line_to(cr, cx - aw / 2, h * 0.45);
            cairo_close_path(cr);
            cairo_fill(cr);
        } else {
            /* a cross: not this lane */
            double a = col * 0.18;
            cairo_move_to(cr, cx - a, h * 0.5 - a);
            cairo_line_to(cr, cx + a, h * 0.5 + a);
            cairo_move_to(cr, cx + a, h * 0.5 - a);
            cairo_line_to(cr, cx - a, h * 0.5 + a);
            cairo_stroke(cr);
        }
    }
}

static void polygon(cairo_t *cr, const double *xy, int n)
{
    cairo_move_to(cr, xy[0], xy[1]);
    for (int i = 1; i < n; i++)
        cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
    cairo_close_path(cr);
}

GLuint rn_sign_texture(const ra_sign *s, double *width_m, double *height_m)
{
    int w = 256, h = 256;
    switch (s->type) {
    case RA_SIGN_LANE_CHANGE: h = 192; *width_m = 2.0; *height_m = 1.5; break;
    case RA_SIGN_TEXT: h = 96; *width_m = 2.4; *height_m = 0.9; w = 256; break;
    case RA_SIGN_SPEED_LIMIT: *width_m = *height_m = 0.9; break;
    default: *width_m = *height_m = 0.9; break;
    }
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(surf);
    switch (s->type) {
    case RA_SIGN_SPEED_LIMIT: draw_speed_limit(cr, w, s->kmh); break;
    case RA_SIGN_LANE_CHANGE: draw_lane_change(cr, w, h, s->lanes, s->lane_index); break;
    case RA_SIGN_STOP: {
        double xy[16];
        for (int i = 0; i < 8; i++) {
            double a = (i + 0.5) * M_PI / 4;
            xy[2 * i] = w / 2.0 + (w / 2.0 - 2) * cos(a);
            xy[2 * i + 1] = h / 2.0 + (h / 2.0 - 2) * sin(a);
        }
        polygon(cr, xy, 8);
        cairo_set_source_rgb(cr, 0.8, 0.05, 0.05);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        centred_text(cr, "STOP", w / 2.0, h / 2.0, w * 0.26);
        break;
    }
    case RA_SIGN_YIELD: {
        const double xy[6] = {4, 8, w - 4, 8, w / 2.0, h - 8};
        polygon(cr, xy, 3);
        cairo_set_source_rgb(cr, 0.85, 0.05, 0.05);
        cairo_fill(cr);
        const double in[6] = {40, 30, w - 40, 30, w / 2.0, h - 50};
        polygon(cr, in, 3);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill(cr);
        break;
    }
    case RA_SIGN_PRIORITY: {
        const double xy[8] = {w / 2.0, 2, w - 2, h / 2.0, w / 2.0, h - 2, 2, h / 2.0};
        polygon(cr, xy, 4);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill(cr);
        const double in[8] = {w / 2.0, 40, w - 40, h / 2.0, w / 2.0, h - 40, 40, h / 2.0};
        polygon(cr, in, 4);
        cairo_set_source_rgb(cr, 1, 0.8, 0.05);
        cairo_fill(cr);
        break;
    }
    case RA_SIGN_TEXT:
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_rectangle(cr, 0, 0, w, h);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_line_width(cr, 4);
        cairo_rectangle(cr, 4, 4, w - 8, h - 8);
        cairo_stroke(cr);
        centred_text(cr, s->text ? s->text : "", w / 2.0, h / 2.0, h * 0.3);
        break;
    }
    cairo_destroy(cr);
    cairo_surface_flush(surf);
    GLuint t = gfx_texture_from_argb(cairo_image_surface_get_data(surf), w, h,
                                     cairo_image_surface_get_stride(surf), 0);
    cairo_surface_destroy(surf);
    return t;
}
