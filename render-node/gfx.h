/* gfx: the render node's OpenGL plumbing: the SDL window and its GL 3.3 core context,
 * shader programs read from files, vertex meshes and the mesh builder, and reading
 * the back buffer into a PNG file. */
#ifndef RN_GFX_H
#define RN_GFX_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>
#include <epoxy/gl.h>

#include "sim_error.h"

typedef struct gfx_window_opts {
    int width, height;
    int x, y;             /* window position; < 0: centred */
    int display;          /* display index for fullscreen / centring */
    bool fullscreen;
    bool hidden;          /* offscreen work: screenshots, benchmarks */
    bool vsync;
    const char *title;
} gfx_window_opts;

typedef struct gfx {
    SDL_Window *win;
    SDL_GLContext ctx;
    int width, height;    /* drawable size, pixels */
} gfx;

/* Opens the window and a GL 3.3 core context; SIM_EIO naming what is missing. */
int gfx_open(gfx *g, const gfx_window_opts *o, sim_error *err);
void gfx_close(gfx *g);

/* Compiles and links dir/NAME.vert + dir/NAME.frag; errors name the file and carry
 * the compiler's log. */
int gfx_program(const char *dir, const char *name, GLuint *out, sim_error *err);
/* The same from dir/VERT.vert and dir/FRAG.frag (two vertex stages sharing a fragment one). */
int gfx_program_pair(const char *dir, const char *vert, const char *frag, GLuint *out, sim_error *err);
/* The same with dir/PREFIX.glsl compiled before the vertex file (shared functions; the
 * prefix holds the #version line); vert_prefix NULL: none. */
int gfx_program_files(const char *dir, const char *vert_prefix, const char *vert, const char *frag, GLuint *out,
                      sim_error *err);

/* The same with `defines` (lines such as "#define X\n"; NULL: none) put after the
 * #version line of both stages: variants of one shader. */
int gfx_program_defines(const char *dir, const char *vert_prefix, const char *vert, const char *frag,
                        const char *defines, GLuint *out, sim_error *err);
/* The same with dir/FRAG_LIB.glsl (NULL: none) compiled as a second fragment shader
 * object (its own #version line, the same defines) and linked in: functions several fragment stages call,
 * declared there without a body. */
int gfx_program_lib(const char *dir, const char *vert_prefix, const char *vert, const char *frag, const char *frag_lib,
                    const char *defines, GLuint *out, sim_error *err);

/* Attribute locations every program gets: a_pos 0, a_normal 1 (a_uv 1), a_color 2;
 * scenery instances a_inst_pose 3, a_inst_size 4, a_inst_tint 5; vehicles (car.vert)
 * a_part 6 per vertex and a_car_m0, a_car_m1, a_car_m2, a_car_paint, a_car_wheel,
 * a_car_lamps 7 to 12 per instance. */
enum { GFX_ATTR_PART = 6, GFX_ATTR_CAR = 7 };

/* Vertex of the lit meshes: position, normal, colour. */
typedef struct gfx_vertex {
    float pos[3], normal[3], color[3];
} gfx_vertex;

/* Vertex of textured quads: position and texture coordinates. */
typedef struct gfx_tvertex {
    float pos[3], uv[2];
} gfx_tvertex;

/* A mesh in GPU buffers, with its bounding box for culling. */
typedef struct gfx_mesh {
    GLuint vao, vbo, ibo;
    int n_index;
    bool textured;
    double lo[3], hi[3];
} gfx_mesh;

/* Growing arrays of vertices and triangle indices. */
typedef struct gfx_builder {
    gfx_vertex *v;
    int nv, cap_v;
    uint32_t *idx;
    int ni, cap_i;
    bool failed;          /* out of memory: upload refuses */
} gfx_builder;

int gfx_vertex_add(gfx_builder *b, const double p[3], const double n[3], const float c[3]);
void gfx_tri(gfx_builder *b, int a, int c, int d);
/* A flat quad p0 p1 p2 p3 (counter-clockwise seen from the side the normal points to). */
void gfx_quad(gfx_builder *b, const double p[4][3], const float c[3]);
/* An axis-aligned box in the builder's frame, from lo to hi. */
void gfx_box(gfx_builder *b, const double lo[3], const double hi[3], const float c[3]);
void gfx_builder_free(gfx_builder *b);

/* Uploads a builder (which keeps its data); SIM_ENOMEM when it failed to grow. */
int gfx_mesh_upload(gfx_mesh *m, const gfx_builder *b, sim_error *err);
/* Uploads textured vertices and indices. */
int gfx_tmesh_upload(gfx_mesh *m, const gfx_tvertex *v, int nv, const uint32_t *idx, int ni);
void gfx_mesh_draw(const gfx_mesh *m);
void gfx_mesh_free(gfx_mesh *m);

/* An RGBA texture from premultiplied cairo ARGB32 pixels (stride in bytes). */
GLuint gfx_texture_from_argb(const unsigned char *px, int w, int h, int stride, GLuint reuse);

/* Reads the current back buffer (before the swap) and writes it as an RGB PNG. */
int gfx_screenshot(const gfx *g, const char *path, sim_error *err);
/* Reads the back buffer as RGB rows, top row first (caller frees). */
unsigned char *gfx_read_rgb(const gfx *g);
/* The same into out (width * height * 3 bytes). */
void gfx_read_rgb_into(const gfx *g, unsigned char *out);

#endif
