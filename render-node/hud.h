/* hud: the head-up display drawn with cairo over the scene: the speed, the speed limit
 * in force (control.speed_limit, else the road's), the five named text areas of
 * hud.text (top, center, bottom, left, right; control.hud and scenario hud_text
 * triggers use "top"), and a red "NO DATA" mark when states stop arriving. The
 * texture is redrawn only when what it shows changes. */
#ifndef RN_HUD_H
#define RN_HUD_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "gfx.h"
#include "sim_msg_hud.h"

typedef struct rn_hud_text {
    char text[SIM_HUD_TEXT_MAX + 1];
    float rgb[3];
    double expires;            /* the caller's clock, s; 0: never */
} rn_hud_text;

typedef struct rn_hud {
    rn_hud_text area[SIM_HUD_AREA_COUNT];
    int speed_kmh;             /* < 0: not shown */
    double limit_kmh;          /* 0: none */
    bool no_data;
    bool full;                 /* speed, limit and areas; false: only the no-data mark (mirrors) */
    /* The visual DRT stimulus (drt.stimulus, ISO 17488): a red dot drt_angle_deg left of
     * straight ahead (negative: right) and 3 degrees above the horizon, while drt_on.
     * tan_half_fov_y (set by the scene) places it. */
    bool drt_on;
    double drt_angle_deg, tan_half_fov_y;
    int w, h;
    cairo_surface_t *surf;
    GLuint tex;
    gfx_mesh quad;
    uint64_t drawn;            /* hash of what the texture shows */
    double box[4];             /* x0, y0, x1, y1 (pixels) of what was drawn: the quad covers only that */
} rn_hud;

void rn_hud_init(rn_hud *h);
void rn_hud_free(rn_hud *h);
/* Shows text in an area (empty clears it) for ttl seconds (0: until replaced). */
void rn_hud_set(rn_hud *h, sim_hud_area area, const char *text, const float rgb[3], double ttl, double now);
/* Draws it over a w x h viewport with the textured program bound (its matrices
 * identity, no fog). */
void rn_hud_draw(rn_hud *h, int w, int h_px, double now, GLint u_tex);

#endif
