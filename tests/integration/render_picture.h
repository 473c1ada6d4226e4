/* render_picture.h: what the picture tests of render-node share (test_render_picture.c,
 * test_render_look.c, test_render_lights.c): running render-node into a PNG in a
 * temporary directory, reading it back, the BMW driver's camera at a pose and where a
 * world point projects. Static helpers, included by one test file each. */
#ifndef RENDER_PICTURE_H
#define RENDER_PICTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_camera.h"
#include "sim_scenario.h"
#include "test_support.h"

#ifndef W /* a test may draw larger pictures */
#define W 640
#define H 360
#endif

typedef struct image {
    int w, h;
    unsigned char *px; /* RGB, top row first */
} image;

static inline void image_load(const char *path, image *im)
{
    png_image p;
    memset(&p, 0, sizeof p);
    p.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&p, path));
    p.format = PNG_FORMAT_RGB;
    im->w = (int)p.width;
    im->h = (int)p.height;
    im->px = malloc(PNG_IMAGE_SIZE(p));
    assert_non_null(im->px);
    assert_true(png_image_finish_read(&p, NULL, im->px, 0, NULL));
}

static inline const unsigned char *pixel(const image *im, int x, int y)
{
    assert_true(x >= 0 && y >= 0 && x < im->w && y < im->h);
    return im->px + ((size_t)y * im->w + x) * 3;
}

static inline double lum(const unsigned char *p) { return (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255; }

/* Runs render-node with the arguments (a shell word list); returns its exit status and
 * its stderr (in out). */
static inline int run_render(char *out, size_t out_size, const char *env, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s %s 2>&1 >/dev/null", ts_root("."), env ? env : "",
             ts_bin("render-node"), args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, out_size - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline void render(const char *out_png, const char *args)
{
    char cmd[3000], msg[4096];
    snprintf(cmd, sizeof cmd, "--size %dx%d --screenshot %s %s", W, H, out_png, args);
    int rc = run_render(msg, sizeof msg, NULL, cmd);
    if (rc != 0)
        fail_msg("render-node %s: status %d: %s", cmd, rc, msg);
}

/* The camera render-node uses for the BMW's driver at pose. */
static inline void camera(sim_camera *c, sim_view view, const sim_pose *pose)
{
    sim_view_rig rig = {.eye = {-0.25, 0.37, 0.63}, .length = 4.47, .width = 1.74};
    sim_camera_params cp = {.view = view, .aspect = (double)W / H, .z_near = 0.25, .z_far = 5000};
    sim_camera_setup(c, pose, &rig, &cp);
}

static inline bool project(const sim_camera *c, double x, double y, double z, int *px, int *py)
{
    double w[3] = {x, y, z}, ndc[2];
    *px = *py = -1; /* off the screen until projected */
    if (!sim_camera_project(c, w, ndc))
        return false;
    *px = (int)floor((ndc[0] + 1) / 2 * W);
    *py = (int)floor((1 - ndc[1]) / 2 * H);
    return *px >= 0 && *py >= 0 && *px < W && *py < H;
}

/* The pixel where a world point projects (asserted on screen). */
static inline const unsigned char *at(const image *im, const sim_camera *c, double x, double y, double z)
{
    int px, py;
    if (!project(c, x, y, z, &px, &py))
        fail_msg("(%g, %g, %g) does not project onto the screen", x, y, z);
    return pixel(im, px, py);
}

/* The whitest pixel within one pixel of where a point projects: a 0.15 m line is a few
 * pixels wide at these distances. */
static inline double whitest(const image *im, const sim_camera *c, double x, double y, double z)
{
    int px, py;
    assert_true(project(c, x, y, z, &px, &py));
    double best = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            const unsigned char *p = pixel(im, px + dx, py + dy);
            int m = p[0] < p[1] ? p[0] : p[1];
            m = m < p[2] ? m : p[2];
            if (m / 255.0 > best) best = m / 255.0;
        }
    return best;
}

static inline bool is_grey(const unsigned char *p)
{
    return abs(p[0] - p[1]) < 16 && abs(p[1] - p[2]) < 20 && lum(p) > 0.15 && lum(p) < 0.6;
}

static inline int diff(const unsigned char *a, const unsigned char *b)
{
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
}

static char tmpdir[64];
static inline char *tmp(const char *name)
{
    static char paths[8][160];
    static int k;
    char *p = paths[k++ % 8];
    snprintf(p, 160, "%s/%s", tmpdir, name);
    return p;
}

/* Lane-change track (flat, z = 0): the car in lane -2 (centre d = -5.25) at s = 20. The
 * track runs along +x; lane -1 is 0..-3.5 (left of us), lane -3 -7..-10.5. */
static const sim_pose lct_pose = {.pos = {20, -5.25, 0.52}, .heading = 0};
#define LCT "--scenario scenarios/lane-change.json --pose 20,-5.25,0.52,0 --no-hud"

static inline int setup(void **state)
{
    (void)state;
    /* Under `make asan`: Mesa's driver, which libEGL loads and unloads itself, and
     * fontconfig (cairo's fonts) leak a little at exit; the unloaded driver cannot be
     * named by a suppression. render-node runs without leak detection here; the pure
     * core it is built on is leak-checked by the unit tests. */
    ts_children_without_leak_detection();
    strcpy(tmpdir, "/tmp/test-render-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
