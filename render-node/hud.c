/* hud: cairo head-up display (hud.h). */
#include "hud.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rn_hud_init(rn_hud *h)
{
    memset(h, 0, sizeof *h);
    h->speed_kmh = -1;
    h->full = true;
}

void rn_hud_free(rn_hud *h)
{
    if (h->surf)
        cairo_surface_destroy(h->surf);
    if (h->tex)
        glDeleteTextures(1, &h->tex);
    gfx_mesh_free(&h->quad);
    h->surf = NULL;
    h->tex = 0;
}

void rn_hud_set(rn_hud *h, sim_hud_area area, const char *text, const float rgb[3], double ttl, double now)
{
    rn_hud_text *a = &h->area[area];
    snprintf(a->text, sizeof a->text, "%s", text);
    static const float white[3] = {1, 1, 1};
    memcpy(a->rgb, rgb ? rgb : white, sizeof a->rgb);
    a->expires = ttl > 0 ? now + ttl : 0;
    a->owner[0] = '\0';
}

void rn_hud_set_owner(rn_hud *h, sim_hud_area area, const char *owner)
{
    snprintf(h->area[area].owner, sizeof h->area[area].owner, "%s", owner ? owner : "");
}

int rn_hud_clear_owner(rn_hud *h, const char *owner)
{
    int n = 0;
    for (int a = 0; owner && owner[0] && a < SIM_HUD_AREA_COUNT; a++)
        if (strcmp(h->area[a].owner, owner) == 0) {
            h->area[a].text[0] = h->area[a].owner[0] = '\0';
            h->area[a].expires = 0;
            n++;
        }
    return n;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static void grow(double box[4], double x0, double y0, double x1, double y1)
{
    if (x0 < box[0]) box[0] = x0;
    if (y0 < box[1]) box[1] = y0;
    if (x1 > box[2]) box[2] = x1;
    if (y1 > box[3]) box[3] = y1;
}

/* Text with a dark outline, anchored by (ax, ay) in 0..1 of its own extent. */
static void label(double box[4], cairo_t *cr, const char *text, double x, double y, double ax, double ay, double size,
                  const float rgb[3])
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    double px = x - ax * e.width - e.x_bearing, py = y - ay * e.height - e.y_bearing;
    double pad = size * 0.1 + 2;
    grow(box, px + e.x_bearing - pad, py + e.y_bearing - pad, px + e.x_bearing + e.width + pad,
         py + e.y_bearing + e.height + pad);
    cairo_move_to(cr, px, py);
    cairo_text_path(cr, text);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.75);
    cairo_set_line_width(cr, size * 0.12);
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_fill(cr);
}

/* Text centred on the width in lines no wider than max_w (broken between words), the
 * first baseline at y; returns the y below the last line. */
static double wrapped(cairo_t *cr, const char *text, double cx, double y, double max_w, double size)
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    char line[1024] = "";
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\n') e++;
        char next[1024];
        snprintf(next, sizeof next, "%s%s%.*s", line, line[0] ? " " : "", (int)(e - p), p);
        cairo_text_extents_t ext;
        cairo_text_extents(cr, next, &ext);
        bool newline = *e == '\n';
        if (ext.width > max_w && line[0]) { /* the word goes to the next line */
            cairo_text_extents(cr, line, &ext);
            cairo_move_to(cr, cx - ext.width / 2 - ext.x_bearing, y);
            cairo_show_text(cr, line);
            y += size * 1.4;
            snprintf(line, sizeof line, "%.*s", (int)(e - p), p);
        } else {
            snprintf(line, sizeof line, "%s", next);
        }
        p = e;
        if (newline || !*p) {
            cairo_text_extents(cr, line, &ext);
            cairo_move_to(cr, cx - ext.width / 2 - ext.x_bearing, y);
            cairo_show_text(cr, line);
            y += size * 1.4;
            line[0] = '\0';
            if (newline) p++;
        }
    }
    return y;
}

/* The study screen's page: everything opaque, nothing of a scene behind it. */
static void redraw_page(rn_hud *h, cairo_t *cr)
{
    double u = h->h / 720.0;
    cairo_set_source_rgb(cr, 0.10, 0.14, 0.20); /* dark slate: calm, not black */
    cairo_paint(cr);
    double y = h->h * 0.36;
    if (h->page_title[0]) {
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
        cairo_set_font_size(cr, 54 * u);
        cairo_text_extents_t e;
        cairo_text_extents(cr, h->page_title, &e);
        cairo_set_source_rgb(cr, 0.93, 0.95, 0.98);
        cairo_move_to(cr, h->w / 2.0 - e.width / 2 - e.x_bearing, y);
        cairo_show_text(cr, h->page_title);
        y += 90 * u;
    }
    cairo_set_source_rgb(cr, 0.80, 0.85, 0.92);
    wrapped(cr, h->page_text, h->w / 2.0, y, h->w * 0.7, 34 * u);
    h->box[0] = h->box[1] = 0;
    h->box[2] = h->w;
    h->box[3] = h->h;
}

static void redraw(rn_hud *h)
{
    cairo_t *cr = cairo_create(h->surf);
    cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    if (h->page) {
        redraw_page(h, cr);
        cairo_destroy(cr);
        cairo_surface_flush(h->surf);
        return;
    }
    double u = h->h / 720.0; /* sizes scale with the viewport */
    double *box = h->box;
    box[0] = box[1] = 1e9;
    box[2] = box[3] = -1e9;
    static const float white[3] = {1, 1, 1};
    if (h->full) {
        /* bottom left: the limit sign, then the speed */
        double r = 34 * u;
        char speed_text[32], limit_text[16];
        rn_hud_speed_texts(h, speed_text, limit_text);
        if (speed_text[0])
            label(box, cr, speed_text, 30 * u + 2 * r + 20 * u, h->h - 30 * u - r, 0, 0.5, 44 * u, white);
        if (h->limit_kmh > 0) {
            double cx = 30 * u + r, cy = h->h - 30 * u - r;
            grow(box, cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1);
            cairo_arc(cr, cx, cy, r, 0, 6.2832);
            cairo_set_source_rgb(cr, 0.85, 0.05, 0.05);
            cairo_fill(cr);
            cairo_arc(cr, cx, cy, r * 0.78, 0, 6.2832);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_fill(cr);
            const char *t = limit_text;
            cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
            cairo_set_font_size(cr, (strlen(t) > 2 ? 22 : 28) * u);
            cairo_text_extents_t e;
            cairo_text_extents(cr, t, &e);
            cairo_move_to(cr, cx - e.width / 2 - e.x_bearing, cy - e.height / 2 - e.y_bearing);
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_show_text(cr, t);
        }
        const double pos[SIM_HUD_AREA_COUNT][4] = {
            [SIM_HUD_TOP] = {0.5, 0.08, 0.5, 0}, [SIM_HUD_CENTER] = {0.5, 0.45, 0.5, 0.5},
            [SIM_HUD_BOTTOM] = {0.5, 0.80, 0.5, 1}, [SIM_HUD_LEFT] = {0.03, 0.45, 0, 0.5},
            [SIM_HUD_RIGHT] = {0.97, 0.45, 1, 0.5}};
        for (int a = 0; a < SIM_HUD_AREA_COUNT; a++)
            if (h->area[a].text[0])
                label(box, cr, h->area[a].text, pos[a][0] * h->w, pos[a][1] * h->h, pos[a][2], pos[a][3], 30 * u,
                      h->area[a].rgb);
    }
    if (h->paused) {
        /* A quiet panel in the middle: grey-blue, not an alarm; the last frame stays
         * visible around it. */
        double pw = 360 * u, ph = 110 * u, px = (h->w - pw) / 2, py = (h->h - ph) / 2;
        cairo_rectangle(cr, px, py, pw, ph);
        cairo_set_source_rgba(cr, 0.12, 0.16, 0.22, 0.8);
        cairo_fill(cr);
        grow(box, px, py, px + pw, py + ph);
        label(box, cr, "PAUSED", h->w / 2.0, h->h / 2.0, 0.5, 0.5, 56 * u, white);
    }
    if (h->drt_on && h->full && h->tan_half_fov_y > 0) {
        /* Pinhole projection of the direction onto the viewport. */
        double f = h->h / 2.0 / h->tan_half_fov_y;
        double cx = h->w / 2.0 - f * tan(h->drt_angle_deg * M_PI / 180), cy = h->h / 2.0 - f * tan(3 * M_PI / 180);
        double r = 9 * u;
        cairo_arc(cr, cx, cy, r, 0, 6.2832);
        cairo_set_source_rgb(cr, 1, 0.08, 0.05);
        cairo_fill(cr);
        grow(box, cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1);
    }
    if (h->stamp[0])
        label(box, cr, h->stamp, h->w - 20 * u, 20 * u, 1, 0, 24 * u, white);
    if (h->no_data) {
        cairo_rectangle(cr, 10 * u, 10 * u, 190 * u, 50 * u);
        cairo_set_source_rgba(cr, 0.6, 0, 0, 0.85);
        cairo_fill(cr);
        grow(box, 10 * u, 10 * u, 200 * u, 60 * u);
        label(box, cr, "NO DATA", 105 * u, 35 * u, 0.5, 0.5, 30 * u, white);
    }
    cairo_destroy(cr);
    cairo_surface_flush(h->surf);
}

void rn_hud_speed_texts(const rn_hud *h, char speed[32], char limit[16])
{
    speed[0] = limit[0] = '\0';
    if (h->speed_kmh >= 0)
        snprintf(speed, 32, h->mph ? "%d mph" : "%d km/h", h->mph ? h->speed_mph : h->speed_kmh);
    if (h->limit_kmh > 0)
        snprintf(limit, 16, "%.0f", h->mph ? h->limit_kmh / RN_KMH_PER_MPH : h->limit_kmh);
}

void rn_hud_draw(rn_hud *h, int w, int hp, double now, GLint u_tex)
{
    for (int a = 0; a < SIM_HUD_AREA_COUNT; a++)
        if (h->area[a].expires > 0 && now >= h->area[a].expires) {
            h->area[a].text[0] = 0;
            h->area[a].expires = 0;
        }
    if (!h->surf || h->w != w || h->h != hp) {
        if (h->surf)
            cairo_surface_destroy(h->surf);
        h->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, hp);
        h->w = w;
        h->h = hp;
        h->drawn = 0;
    }
    uint64_t k = 1469598103934665603ull;
    k = fnv(k, &h->speed_kmh, sizeof h->speed_kmh);
    k = fnv(k, &h->limit_kmh, sizeof h->limit_kmh);
    k = fnv(k, &h->mph, sizeof h->mph);
    k = fnv(k, &h->speed_mph, sizeof h->speed_mph);
    k = fnv(k, &h->no_data, sizeof h->no_data);
    k = fnv(k, &h->paused, sizeof h->paused);
    k = fnv(k, &h->full, sizeof h->full);
    k = fnv(k, &h->drt_on, sizeof h->drt_on);
    k = fnv(k, &h->drt_angle_deg, sizeof h->drt_angle_deg);
    k = fnv(k, &h->page, sizeof h->page);
    k = fnv(k, h->page_title, strlen(h->page_title) + 1);
    k = fnv(k, h->page_text, strlen(h->page_text) + 1);
    k = fnv(k, h->stamp, strlen(h->stamp) + 1);
    for (int a = 0; a < SIM_HUD_AREA_COUNT; a++) {
        k = fnv(k, h->area[a].text, strlen(h->area[a].text) + 1);
        k = fnv(k, h->area[a].rgb, sizeof h->area[a].rgb);
    }
    bool empty = !h->page && !h->no_data && !h->paused && !h->stamp[0] && (!h->full || (h->speed_kmh < 0 && h->limit_kmh <= 0 && !h->drt_on));
    for (int a = 0; h->full && a < SIM_HUD_AREA_COUNT; a++)
        if (h->area[a].text[0])
            empty = false;
    if (empty)
        return;
    if (k != h->drawn || !h->tex) {
        redraw(h);
        h->tex = gfx_texture_from_argb(cairo_image_surface_get_data(h->surf), w, hp,
                                       cairo_image_surface_get_stride(h->surf), h->tex);
        h->drawn = k;
        /* a quad over what was drawn only: llvmpipe pays for every blended pixel */
        double x0 = fmax(0, floor(h->box[0])), y0 = fmax(0, floor(h->box[1]));
        double x1 = fmin(w, ceil(h->box[2])), y1 = fmin(hp, ceil(h->box[3]));
        if (x1 <= x0 || y1 <= y0)
            x0 = y0 = x1 = y1 = 0;
        float nx0 = (float)(x0 / w * 2 - 1), nx1 = (float)(x1 / w * 2 - 1);
        float ny0 = (float)(1 - y1 / hp * 2), ny1 = (float)(1 - y0 / hp * 2);
        float u0 = (float)(x0 / w), u1 = (float)(x1 / w), v0 = (float)(y1 / hp), v1 = (float)(y0 / hp);
        gfx_tvertex v[4] = {{{nx0, ny0, 0}, {u0, v0}}, {{nx1, ny0, 0}, {u1, v0}}, {{nx1, ny1, 0}, {u1, v1}},
                            {{nx0, ny1, 0}, {u0, v1}}};
        static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
        gfx_mesh_free(&h->quad);
        gfx_tmesh_upload(&h->quad, v, 4, idx, 6);
    }
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, h->tex);
    glUniform1i(u_tex, 0);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_DEPTH_TEST);
    gfx_mesh_draw(&h->quad);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
}
