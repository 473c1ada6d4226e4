/* terrain: LOD terrain meshes (terrain.h). */
#include "terrain.h"

#include "road_adapter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double ground_height(void *ctx, double x, double y)
{
    const sim_scenario *sc = ctx;
    return sc->terrain ? sim_terrain_height(sc->terrain, x, y) : 0.0;
}

static const float surface_colors[SIM_SURFACE_COUNT][3] = {
    [SIM_SURFACE_ASPHALT] = {0.33f, 0.33f, 0.34f}, [SIM_SURFACE_GRASS] = {0.30f, 0.47f, 0.19f},
    [SIM_SURFACE_GRAVEL] = {0.52f, 0.48f, 0.42f},  [SIM_SURFACE_SAND] = {0.76f, 0.68f, 0.48f},
    [SIM_SURFACE_SNOW] = {0.92f, 0.93f, 0.96f},    [SIM_SURFACE_ICE] = {0.75f, 0.85f, 0.92f},
    [SIM_SURFACE_WATER] = {0.20f, 0.32f, 0.45f},
};

void rn_terrain_color(const sim_scenario *sc, double x, double y, float out[3])
{
    int surface = SIM_SURFACE_GRASS;
    double friction = 1.0;
    if (sc->terrain) {
        sim_terrain_sample s;
        sim_terrain_eval(sc->terrain, x, y, &s);
        surface = s.surface;
        /* Darker only where the scenario made the ground slippery, not for each
         * surface's own friction. */
        if (sc->terrain->friction.v || !isnan(sc->terrain->friction_default))
            friction = s.friction;
    }
    if (surface < 0 || surface >= SIM_SURFACE_COUNT)
        surface = SIM_SURFACE_GRASS;
    /* slippery ground looks darker (wet, muddy): 0.75 at friction 0, 1 at >= 1 */
    double k = 0.75 + 0.25 * (friction < 0 ? 0 : friction > 1 ? 1 : friction);
    for (int i = 0; i < 3; i++)
        out[i] = (float)(surface_colors[surface][i] * k);
}

/* The square the tree covers: the height map, or the roads' box with a margin. */
static void extent(const sim_scenario *sc, double *x0, double *y0, double *size, double *step)
{
    if (sc->terrain) {
        const sim_terrain *t = sc->terrain;
        int n = t->height.nx > t->height.ny ? t->height.nx : t->height.ny;
        *x0 = t->origin_x;
        *y0 = t->origin_y;
        *size = (n > 1 ? n - 1 : 1) * t->spacing;
        *step = t->spacing / 4; /* finer than the control net: the spline is evaluated */
        return;
    }
    double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
    for (int r = 0; r < ra_road_count(sc); r++) {
        double len = ra_road_length(sc, r);
        for (double s = 0;; s = fmin(s + 50, len)) {
            double p[3];
            ra_pose(sc, r, s, 0, p, NULL);
            lo[0] = fmin(lo[0], p[0]); lo[1] = fmin(lo[1], p[1]);
            hi[0] = fmax(hi[0], p[0]); hi[1] = fmax(hi[1], p[1]);
            if (s >= len)
                break;
        }
    }
    if (lo[0] > hi[0])
        lo[0] = lo[1] = hi[0] = hi[1] = 0;
    double margin = 2000;
    double side = fmax(hi[0] - lo[0], hi[1] - lo[1]) + 2 * margin;
    *x0 = (lo[0] + hi[0]) / 2 - side / 2;
    *y0 = (lo[1] + hi[1]) / 2 - side / 2;
    *size = side;
    *step = side / RN_TERRAIN_BLOCK; /* flat: one block is exact */
}

static int make_block(rn_terrain *t, const sim_lod_block *b, gfx_mesh *m);

int rn_terrain_init(rn_terrain *t, const sim_scenario *sc, sim_error *err)
{
    memset(t, 0, sizeof *t);
    t->sc = sc;
    t->tolerance = 2.0;
    t->force_level = -1;
    double x0, y0, size, step;
    extent(sc, &x0, &y0, &size, &step);
    int depth = 0;
    while (depth < 7 && size / (RN_TERRAIN_BLOCK << depth) > step * 1.01)
        depth++;
    int rc = sim_lod_build(&t->tree, RN_TERRAIN_BLOCK, depth, x0, y0, size, ground_height, (void *)sc, err);
    if (rc)
        return rc;
    t->n_nodes = sim_lod_node_index(depth + 1, 0, 0);
    t->blocks = calloc((size_t)t->n_nodes, sizeof *t->blocks);
    const int per = 6 * RN_TERRAIN_BLOCK * RN_TERRAIN_BLOCK;
    uint32_t *idx = malloc(16 * (size_t)per * sizeof *idx);
    if (!t->blocks || !idx) {
        free(idx);
        rn_terrain_free(t);
        return sim_error_set(err, SIM_ENOMEM, "terrain: out of memory");
    }
    int total = 0;
    for (unsigned m = 0; m < 16; m++) {
        t->pattern_first[m] = total;
        t->pattern_count[m] = sim_lod_block_indices(RN_TERRAIN_BLOCK, m, idx + total);
        total += t->pattern_count[m];
    }
    glGenBuffers(1, &t->ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, t->ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)total * 4, idx, GL_STATIC_DRAW);
    free(idx);
    /* Every block made now when they fit (rural: 1365 blocks, 53 MB), so that driving
     * into new ground never stalls a frame; larger trees make blocks on first use. */
    if ((double)t->n_nodes * (RN_TERRAIN_BLOCK + 1) * (RN_TERRAIN_BLOCK + 1) <= RN_TERRAIN_PREBUILD)
        for (int level = 0; level <= depth; level++)
            for (int iy = 0; iy < (1 << level); iy++)
                for (int ix = 0; ix < (1 << level); ix++) {
                    sim_lod_block b = {level, ix, iy, 0};
                    if ((rc = make_block(t, &b, &t->blocks[sim_lod_node_index(level, ix, iy)]))) {
                        rn_terrain_free(t);
                        return sim_error_set(err, rc, "terrain: out of memory");
                    }
                }
    return SIM_OK;
}

void rn_terrain_free(rn_terrain *t)
{
    for (int i = 0; t->blocks && i < t->n_nodes; i++) {
        t->blocks[i].ibo = 0; /* shared: deleted once below */
        gfx_mesh_free(&t->blocks[i]);
    }
    free(t->blocks);
    if (t->ibo)
        glDeleteBuffers(1, &t->ibo);
    sim_lod_selection_free(&t->sel);
    sim_lod_free(&t->tree);
    memset(t, 0, sizeof *t);
}

/* The block's vertices: the tree's own heights (the spline at the same points), the
 * surface's analytic normal and the surface colour. */
static int make_block(rn_terrain *t, const sim_lod_block *b, gfx_mesh *m)
{
    const sim_lod_tree *tr = &t->tree;
    const int B = RN_TERRAIN_BLOCK, w = B + 1;
    int s = 1 << (tr->depth - b->level);
    gfx_vertex *v = malloc((size_t)w * w * sizeof *v);
    if (!v)
        return SIM_ENOMEM;
    for (int j = 0; j < w; j++)
        for (int i = 0; i < w; i++) {
            int gx = (b->ix * B + i) * s, gy = (b->iy * B + j) * s;
            double x = tr->x0 + gx * tr->step, y = tr->y0 + gy * tr->step;
            gfx_vertex *p = &v[j * w + i];
            p->pos[0] = (float)x;
            p->pos[1] = (float)y;
            p->pos[2] = tr->h[gy * tr->n + gx];
            double n[3] = {0, 0, 1};
            if (t->sc->terrain) {
                sim_terrain_sample smp;
                sim_terrain_eval(t->sc->terrain, x, y, &smp);
                memcpy(n, smp.n, sizeof n);
            }
            for (int k = 0; k < 3; k++)
                p->normal[k] = (float)n[k];
            rn_terrain_color(t->sc, x, y, p->color);
        }
    memset(m, 0, sizeof *m);
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    glGenBuffers(1, &m->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, m->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(w * w * sizeof *v), v, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, t->ibo);
    for (int a = 0; a < 3; a++) {
        glEnableVertexAttribArray((GLuint)a);
        glVertexAttribPointer((GLuint)a, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_vertex), (void *)(uintptr_t)(a * 12));
    }
    glBindVertexArray(0);
    m->ibo = t->ibo;
    free(v);
    return SIM_OK;
}

int rn_terrain_draw(rn_terrain *t, const sim_camera *c, int height, const sim_frustum *f)
{
    sim_lod_view v = {.eye = {c->eye[0], c->eye[1], c->eye[2]},
                      .scale = height / (2 * tan(c->fov_y / 2)),
                      .tolerance = t->tolerance,
                      .frustum = f,
                      .force_level = t->force_level};
    int rc = sim_lod_select(&t->tree, &v, &t->sel);
    if (rc)
        return rc;
    t->triangles = 0;
    t->draw_calls = 0;
    for (int i = 0; i < t->sel.n; i++) {
        const sim_lod_block *b = &t->sel.blocks[i];
        gfx_mesh *m = &t->blocks[sim_lod_node_index(b->level, b->ix, b->iy)];
        if (!m->vao && (rc = make_block(t, b, m)))
            return rc;
        glBindVertexArray(m->vao);
        glDrawElements(GL_TRIANGLES, t->pattern_count[b->stitch], GL_UNSIGNED_INT,
                       (void *)(uintptr_t)(t->pattern_first[b->stitch] * 4));
        t->triangles += t->pattern_count[b->stitch] / 3;
        t->draw_calls++;
    }
    return SIM_OK;
}
