/* gfx: window, context, shaders, meshes and screenshots (gfx.h). */
#include "gfx.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"

int gfx_open(gfx *g, const gfx_window_opts *o, sim_error *err)
{
    memset(g, 0, sizeof *g);
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        return sim_error_set(err, SIM_EIO, "no video: %s (without a display, run with SDL_VIDEODRIVER=offscreen)",
                             SDL_GetError());
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | (o->hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_SHOWN);
    if (o->fullscreen)
        flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    int x = o->x >= 0 ? o->x : (int)SDL_WINDOWPOS_CENTERED_DISPLAY(o->display);
    int y = o->y >= 0 ? o->y : (int)SDL_WINDOWPOS_CENTERED_DISPLAY(o->display);
    int w = o->width, h = o->height;
    SDL_Rect screen;
    if (o->fullscreen && SDL_GetDisplayBounds(o->display, &screen) == 0) {
        /* Made as big as the display, borderless, where it is: fullscreen is a request
         * to the window manager, and a lab PC or Xvfb without one (a kiosk X session)
         * would otherwise show a 1280x720 window on a black desktop. */
        x = screen.x, y = screen.y, w = screen.w, h = screen.h;
        flags |= SDL_WINDOW_BORDERLESS;
    } else if (o->fullscreen) {
        x = y = (int)SDL_WINDOWPOS_CENTERED_DISPLAY(o->display);
    }
    g->win = SDL_CreateWindow(o->title ? o->title : "render-node", x, y, w, h, flags);
    if (!g->win)
        return sim_error_set(err, SIM_EIO, "cannot open a window: %s", SDL_GetError());
    g->ctx = SDL_GL_CreateContext(g->win);
    if (!g->ctx) {
        sim_error_set(err, SIM_EIO, "no OpenGL 3.3 core context: %s", SDL_GetError());
        gfx_close(g);
        return SIM_EIO;
    }
    int version = epoxy_gl_version();
    if (version < 33) {
        sim_error_set(err, SIM_EIO, "OpenGL 3.3 core is needed, the driver gives %d.%d (%s)", version / 10,
                      version % 10, (const char *)glGetString(GL_RENDERER));
        gfx_close(g);
        return SIM_EIO;
    }
    SDL_GL_SetSwapInterval(o->vsync ? 1 : 0);
    SDL_GL_GetDrawableSize(g->win, &g->width, &g->height);
    /* A first frame at once, in the study screen's calm colour (hud.c's page): until the
     * scene has loaded (seconds on a busy machine) a new fullscreen window showed black
     * over the study's page (issue 35, a study day at a virtual desktop). */
    glViewport(0, 0, g->width, g->height);
    glClearColor(0.10f, 0.14f, 0.20f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    SDL_GL_SwapWindow(g->win);
    return SIM_OK;
}

void gfx_close(gfx *g)
{
    if (g->ctx)
        SDL_GL_DeleteContext(g->ctx);
    if (g->win)
        SDL_DestroyWindow(g->win);
    g->ctx = NULL;
    g->win = NULL;
}

/* Compiles the files in order as one shader (the first holds the #version line), with
 * `defines` (NULL: none) put right after that line. */
static int compile(const char *const *paths, int n_paths, GLenum kind, const char *defines, GLuint *out,
                   sim_error *err)
{
    char *src[2] = {NULL, NULL};
    GLint len[2] = {0, 0};
    for (int i = 0; i < n_paths; i++) {
        size_t n = 0;
        sim_error ferr = {0};
        if (sim_file_read(paths[i], &src[i], &n, &ferr)) {
            free(src[0]);
            return sim_error_set(err, SIM_EIO, "shader: %s", ferr.msg);
        }
        len[i] = (GLint)n;
    }
    /* the pieces: the first file's first line, the defines, the rest of it, the second */
    const char *piece[4];
    GLint plen[4];
    int n_pieces = 0;
    const char *eol = defines ? memchr(src[0], '\n', (size_t)len[0]) : NULL;
    GLint head = eol ? (GLint)(eol - src[0] + 1) : 0;
    if (eol) {
        piece[n_pieces] = src[0], plen[n_pieces++] = head;
        piece[n_pieces] = defines, plen[n_pieces++] = (GLint)strlen(defines);
    }
    piece[n_pieces] = src[0] + head, plen[n_pieces++] = len[0] - head;
    if (n_paths > 1) piece[n_pieces] = src[1], plen[n_pieces++] = len[1];
    GLuint s = glCreateShader(kind);
    GLint ok = 0;
    glShaderSource(s, n_pieces, piece, plen);
    glCompileShader(s);
    free(src[0]);
    free(src[1]);
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        glDeleteShader(s);
        return sim_error_set(err, SIM_EINVAL, "shader %s does not compile: %s", paths[n_paths - 1], log);
    }
    *out = s;
    return SIM_OK;
}

int gfx_program(const char *dir, const char *name, GLuint *out, sim_error *err)
{
    return gfx_program_pair(dir, name, name, out, err);
}

int gfx_program_pair(const char *dir, const char *vert, const char *frag, GLuint *out, sim_error *err)
{
    return gfx_program_files(dir, NULL, vert, frag, out, err);
}

int gfx_program_files(const char *dir, const char *vert_prefix, const char *vert, const char *frag, GLuint *out,
                      sim_error *err)
{
    return gfx_program_defines(dir, vert_prefix, vert, frag, NULL, out, err);
}

int gfx_program_defines(const char *dir, const char *vert_prefix, const char *vert, const char *frag,
                        const char *defines, GLuint *out, sim_error *err)
{
    return gfx_program_lib(dir, vert_prefix, vert, frag, NULL, defines, out, err);
}

int gfx_program_lib(const char *dir, const char *vert_prefix, const char *vert, const char *frag, const char *frag_lib,
                    const char *defines, GLuint *out, sim_error *err)
{
    char vp[1024], fp[1024], pp[1024];
    snprintf(vp, sizeof vp, "%s/%s.vert", dir, vert);
    snprintf(fp, sizeof fp, "%s/%s.frag", dir, frag);
    snprintf(pp, sizeof pp, "%s/%s.glsl", dir, vert_prefix ? vert_prefix : "");
    const char *vfiles[2] = {pp, vp};
    GLuint vs, fs;
    int rc = vert_prefix ? compile(vfiles, 2, GL_VERTEX_SHADER, defines, &vs, err)
                         : compile(vfiles + 1, 1, GL_VERTEX_SHADER, defines, &vs, err);
    if (rc)
        return rc;
    const char *ffiles[1] = {fp};
    if ((rc = compile(ffiles, 1, GL_FRAGMENT_SHADER, defines, &fs, err))) {
        glDeleteShader(vs);
        return rc;
    }
    GLuint ls = 0;
    if (frag_lib) {
        char lp[1024];
        snprintf(lp, sizeof lp, "%s/%s.glsl", dir, frag_lib);
        const char *lfiles[1] = {lp};
        if ((rc = compile(lfiles, 1, GL_FRAGMENT_SHADER, defines, &ls, err))) {
            glDeleteShader(vs);
            glDeleteShader(fs);
            return rc;
        }
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    if (ls)
        glAttachShader(p, ls);
    glBindAttribLocation(p, 0, "a_pos");
    glBindAttribLocation(p, 1, "a_normal");
    glBindAttribLocation(p, 2, "a_color");
    glBindAttribLocation(p, 1, "a_uv");
    glBindAttribLocation(p, 3, "a_inst_pose");
    glBindAttribLocation(p, 4, "a_inst_size");
    glBindAttribLocation(p, 5, "a_inst_tint");
    static const char *const car[] = {"a_car_m0", "a_car_m1", "a_car_m2", "a_car_paint", "a_car_wheel", "a_car_lamps"};
    glBindAttribLocation(p, GFX_ATTR_PART, "a_part");
    for (int i = 0; i < 6; i++)
        glBindAttribLocation(p, (GLuint)(GFX_ATTR_CAR + i), car[i]);
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    if (ls)
        glDeleteShader(ls);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        glDeleteProgram(p);
        return sim_error_set(err, SIM_EINVAL, "shaders %s and %s do not link: %s", vp, fp, log);
    }
    *out = p;
    return SIM_OK;
}

static bool grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return true;
    int c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

int gfx_vertex_add(gfx_builder *b, const double p[3], const double n[3], const float c[3])
{
    if (b->failed || !grow((void **)&b->v, &b->cap_v, b->nv + 1, sizeof *b->v)) {
        b->failed = true;
        return 0;
    }
    gfx_vertex *v = &b->v[b->nv];
    for (int i = 0; i < 3; i++) {
        v->pos[i] = (float)p[i];
        v->normal[i] = (float)n[i];
        v->color[i] = c[i];
    }
    return b->nv++;
}

void gfx_tri(gfx_builder *b, int a, int c, int d)
{
    if (b->failed || !grow((void **)&b->idx, &b->cap_i, b->ni + 3, sizeof *b->idx)) {
        b->failed = true;
        return;
    }
    b->idx[b->ni++] = (uint32_t)a;
    b->idx[b->ni++] = (uint32_t)c;
    b->idx[b->ni++] = (uint32_t)d;
}

void gfx_quad(gfx_builder *b, const double p[4][3], const float c[3])
{
    double u[3], v[3], n[3];
    for (int i = 0; i < 3; i++) {
        u[i] = p[1][i] - p[0][i];
        v[i] = p[2][i] - p[0][i];
    }
    n[0] = u[1] * v[2] - u[2] * v[1];
    n[1] = u[2] * v[0] - u[0] * v[2];
    n[2] = u[0] * v[1] - u[1] * v[0];
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3 && l > 0; i++)
        n[i] /= l;
    int k = b->nv;
    for (int i = 0; i < 4; i++)
        gfx_vertex_add(b, p[i], n, c);
    gfx_tri(b, k, k + 1, k + 2);
    gfx_tri(b, k, k + 2, k + 3);
}

void gfx_box(gfx_builder *b, const double lo[3], const double hi[3], const float c[3])
{
    double x0 = lo[0], y0 = lo[1], z0 = lo[2], x1 = hi[0], y1 = hi[1], z1 = hi[2];
    const double f[6][4][3] = {
        {{x1, y0, z0}, {x1, y1, z0}, {x1, y1, z1}, {x1, y0, z1}}, /* +x */
        {{x0, y1, z0}, {x0, y0, z0}, {x0, y0, z1}, {x0, y1, z1}}, /* -x */
        {{x1, y1, z0}, {x0, y1, z0}, {x0, y1, z1}, {x1, y1, z1}}, /* +y */
        {{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1}}, /* -y */
        {{x0, y0, z1}, {x1, y0, z1}, {x1, y1, z1}, {x0, y1, z1}}, /* +z */
        {{x0, y1, z0}, {x1, y1, z0}, {x1, y0, z0}, {x0, y0, z0}}, /* -z */
    };
    for (int i = 0; i < 6; i++)
        gfx_quad(b, f[i], c);
}

void gfx_builder_free(gfx_builder *b)
{
    free(b->v);
    free(b->idx);
    memset(b, 0, sizeof *b);
}

static void bounds(gfx_mesh *m, const float *pos, int n, size_t stride)
{
    for (int a = 0; a < 3; a++) {
        m->lo[a] = 1e30;
        m->hi[a] = -1e30;
    }
    for (int i = 0; i < n; i++) {
        const float *p = (const float *)((const char *)pos + i * stride);
        for (int a = 0; a < 3; a++) {
            if (p[a] < m->lo[a]) m->lo[a] = p[a];
            if (p[a] > m->hi[a]) m->hi[a] = p[a];
        }
    }
}

int gfx_mesh_upload(gfx_mesh *m, const gfx_builder *b, sim_error *err)
{
    memset(m, 0, sizeof *m);
    if (b->failed)
        return sim_error_set(err, SIM_ENOMEM, "out of memory building a mesh");
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    glGenBuffers(1, &m->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)b->nv * (GLsizeiptr)sizeof *b->v, b->v, GL_STATIC_DRAW);
    glGenBuffers(1, &m->ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m->ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)b->ni * 4, b->idx, GL_STATIC_DRAW);
    for (int a = 0; a < 3; a++) {
        glEnableVertexAttribArray((GLuint)a);
        glVertexAttribPointer((GLuint)a, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_vertex), (void *)(uintptr_t)(a * 12));
    }
    glBindVertexArray(0);
    m->n_index = b->ni;
    bounds(m, b->v ? b->v[0].pos : NULL, b->nv, sizeof *b->v);
    return SIM_OK;
}

int gfx_tmesh_upload(gfx_mesh *m, const gfx_tvertex *v, int nv, const uint32_t *idx, int ni)
{
    memset(m, 0, sizeof *m);
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    glGenBuffers(1, &m->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)nv * (GLsizeiptr)sizeof *v, v, GL_STATIC_DRAW);
    glGenBuffers(1, &m->ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m->ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)ni * 4, idx, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof *v, (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof *v, (void *)12);
    glBindVertexArray(0);
    m->n_index = ni;
    m->textured = true;
    bounds(m, v ? v[0].pos : NULL, nv, sizeof *v);
    return SIM_OK;
}

void gfx_mesh_draw(const gfx_mesh *m)
{
    if (!m->n_index)
        return;
    glBindVertexArray(m->vao);
    glDrawElements(GL_TRIANGLES, m->n_index, GL_UNSIGNED_INT, 0);
}

void gfx_mesh_free(gfx_mesh *m)
{
    if (m->vao) glDeleteVertexArrays(1, &m->vao);
    if (m->vbo) glDeleteBuffers(1, &m->vbo);
    if (m->ibo) glDeleteBuffers(1, &m->ibo);
    memset(m, 0, sizeof *m);
}

GLuint gfx_texture_from_argb(const unsigned char *px, int w, int h, int stride, GLuint reuse)
{
    GLuint t = reuse;
    if (!t) {
        glGenTextures(1, &t);
        glBindTexture(GL_TEXTURE_2D, t);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    } else {
        glBindTexture(GL_TEXTURE_2D, t);
    }
    /* cairo's ARGB32 is B, G, R, A in memory on little-endian machines */
    glPixelStorei(GL_UNPACK_ROW_LENGTH, stride / 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_BGRA, GL_UNSIGNED_BYTE, px);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glGenerateMipmap(GL_TEXTURE_2D);
    return t;
}

void gfx_read_rgb_into(const gfx *g, unsigned char *out)
{
    size_t row = (size_t)g->width * 3;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, g->width, g->height, GL_RGB, GL_UNSIGNED_BYTE, out);
    /* OpenGL's rows are bottom first: swapped in place through one row */
    unsigned char tmp[3 * 16384];
    for (int y = 0; y < g->height / 2; y++) {
        unsigned char *a = out + (size_t)y * row, *b = out + (size_t)(g->height - 1 - y) * row;
        memcpy(tmp, a, row);
        memcpy(a, b, row);
        memcpy(b, tmp, row);
    }
}

unsigned char *gfx_read_rgb(const gfx *g)
{
    unsigned char *px = malloc((size_t)g->width * 3 * g->height);
    if (px) gfx_read_rgb_into(g, px);
    return px;
}

int gfx_screenshot(const gfx *g, const char *path, sim_error *err)
{
    unsigned char *px = gfx_read_rgb(g);
    if (!px)
        return sim_error_set(err, SIM_ENOMEM, "screenshot: out of memory");
    /* Written beside and renamed, so that nobody sees half a file. */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(px);
        return sim_error_set(err, SIM_EIO, "screenshot %s: cannot create: %s", path, strerror(errno));
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        remove(tmp);
        free(px);
        return sim_error_set(err, SIM_EIO, "screenshot %s: PNG encoding failed", path);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)g->width, (png_uint_32)g->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < g->height; y++)
        png_write_row(png, px + (size_t)y * g->width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(px);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return sim_error_set(err, SIM_EIO, "screenshot %s: cannot write: %s", path, strerror(errno));
    }
    return SIM_OK;
}
