/* screens: the screens file of `simctl run --screens FILE` (docs/render.md): which
 * render nodes a session starts and where their windows go, so that a three-screen
 * set-up with mirrors is one flag. Read and checked before anything starts. */
#ifndef SIMCTL_SCREENS_H
#define SIMCTL_SCREENS_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"

#define RUN_MAX_SCREENS 8

typedef struct run_screen {
    char view[16];             /* front, left, right, rear-mirror, left-mirror, right-mirror, chase */
    char name[64];             /* bus name; "" : render (front) or render-VIEW */
    int display;               /* -1: render-node's default */
    bool fullscreen;
    char size[32], pos[32];    /* "WxH", "X,Y"; "": default */
    double yaw_offset_deg, fov_deg; /* NAN: default */
} run_screen;

typedef struct run_screens {
    run_screen s[RUN_MAX_SCREENS];
    int n;
    int front;                 /* index of the front view, -1: none named (the default one) */
} run_screens;

/* The name the screen's render node joins the bus with: its "name", else "render" for
 * the front view, else "render-VIEW" (simctl run waits for every view before the clock starts). */
const char *run_screen_bus_name(const run_screen *s, char *buf, size_t size);
/* Reads FILE; every error names the file, the JSON path and what was expected. */
int run_screens_load(const char *path, run_screens *out, sim_error *err);

#endif
