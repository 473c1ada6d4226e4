/* hud: the head-up display drawn with cairo over the scene: the speed, the speed limit
 * in force (control.speed_limit, else the road's), the five named text areas of
 * hud.text (top, center, bottom, left, right; control.hud and scenario hud_text
 * triggers use "top"), a calm "PAUSED" panel while the operator has paused the session,
 * and a red "NO DATA" mark when states stop arriving otherwise. The
 * texture is redrawn only when what it shows changes. */
#ifndef RN_HUD_H
#define RN_HUD_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "gfx.h"
#include "sim_msg_hud.h"

#define RN_KMH_PER_MPH 1.609344

typedef struct rn_hud_text {
    char text[SIM_HUD_TEXT_MAX + 1];
    float rgb[3];
    double expires;            /* the caller's clock, s; 0: never */
    char owner[64];            /* the bus name (src) of the module that set it; "": none */
} rn_hud_text;

typedef struct rn_hud {
    rn_hud_text area[SIM_HUD_AREA_COUNT];
    int speed_kmh;             /* < 0: not shown */
    int speed_mph;             /* the same speed rounded in mph */
    double limit_kmh;          /* 0: none */
    bool mph;                  /* speed and limit shown in mph (the scenario's speed_unit) */
    bool no_data;
    bool paused;               /* the operator paused the session: a calm "PAUSED" panel */
    bool full;                 /* speed, limit and areas; false: only the no-data mark (mirrors) */
    /* The visual DRT stimulus (drt.stimulus, ISO 17488): a red dot drt_angle_deg left of
     * straight ahead (negative: right) and 3 degrees above the horizon, while drt_on.
     * tan_half_fov_y (set by the scene) places it. */
    bool drt_on;
    double drt_angle_deg, tan_half_fov_y;
    /* A whole page instead (render-node --study-screen, between a study's drives): a
     * calm opaque background, a title and a text wrapped to the width. */
    bool page;
    char page_title[128];
    char page_text[1024];
    /* render-node --log --stamp: the frame's log time in the top right corner (a video's
     * frames tell their time, docs/video.md); "": none */
    char stamp[64];
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
/* The module named owner set the area's text (after rn_hud_set, which clears it). */
void rn_hud_set_owner(rn_hud *h, sim_hud_area area, const char *owner);
/* Clears the areas owner set (it left the bus); returns how many. */
int rn_hud_clear_owner(rn_hud *h, const char *owner);
/* Draws it over a w x h viewport with the textured program bound (its matrices
 * identity, no fog). */
/* The speed's and the limit sign's texts in the HUD's unit ("87 km/h", "100"; "54
 * mph", "60"); "" where not shown. */
void rn_hud_speed_texts(const rn_hud *h, char speed[32], char limit[16]);
void rn_hud_draw(rn_hud *h, int w, int h_px, double now, GLint u_tex);

#endif
