/* sim_lod: quadtree block selection, balancing and crack stitching (sim_lod.h). */
#include "sim_lod.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim_lod_node_index(int level, int ix, int iy)
{
    /* levels 0..level-1 hold (4^level - 1) / 3 blocks */
    return ((1 << (2 * level)) - 1) / 3 + iy * (1 << level) + ix;
}

/* Height of the block's own triangles (the cell split along its (0,0)-(1,1) diagonal, as
 * sim_lod_block_indices draws it) at finest vertex (i, j), for a block grid of `s`
 * finest cells per cell. */
static double coarse_height(const sim_lod_tree *t, int s, int i, int j)
{
    int ci = i / s, cj = j / s;
    if (ci * s == t->n - 1) ci--;
    if (cj * s == t->n - 1) cj--;
    int i0 = ci * s, j0 = cj * s;
    double u = (double)(i - i0) / s, v = (double)(j - j0) / s;
    const float *h = t->h;
    int n = t->n;
    double ha = h[j0 * n + i0], hb = h[j0 * n + i0 + s];
    double hc = h[(j0 + s) * n + i0 + s], hd = h[(j0 + s) * n + i0];
    if (u >= v)
        return ha + u * (hb - ha) + v * (hc - hb);
    return ha + v * (hd - ha) + u * (hc - hd);
}

int sim_lod_build(sim_lod_tree *t, int block, int depth, double x0, double y0, double size,
                  sim_lod_height_fn fn, void *ctx, sim_error *err)
{
    memset(t, 0, sizeof *t);
    if (block < 2 || block > 1024 || (block & (block - 1)))
        return sim_error_set(err, SIM_EINVAL, "lod: block must be a power of two from 2 to 1024, not %d", block);
    if (depth < 0 || depth > SIM_LOD_MAX_DEPTH)
        return sim_error_set(err, SIM_EINVAL, "lod: depth must be 0..%d, not %d", SIM_LOD_MAX_DEPTH, depth);
    if (!(size > 0) || !isfinite(size) || !isfinite(x0) || !isfinite(y0))
        return sim_error_set(err, SIM_EINVAL, "lod: the square must have a finite position and a size > 0");
    if ((long)block << depth > 8192)
        return sim_error_set(err, SIM_EINVAL, "lod: %d x 2^%d finest cells per side is over 8192", block, depth);
    t->block = block;
    t->depth = depth;
    t->x0 = x0;
    t->y0 = y0;
    t->size = size;
    t->n = (block << depth) + 1;
    t->step = size / (block << depth);
    int n_nodes = sim_lod_node_index(depth + 1, 0, 0);
    t->h = malloc((size_t)t->n * t->n * sizeof *t->h);
    t->err = calloc((size_t)n_nodes, sizeof *t->err);
    t->zmin = malloc((size_t)n_nodes * sizeof *t->zmin);
    t->zmax = malloc((size_t)n_nodes * sizeof *t->zmax);
    if (!t->h || !t->err || !t->zmin || !t->zmax) {
        sim_lod_free(t);
        return sim_error_set(err, SIM_ENOMEM, "lod: out of memory for %d x %d heights", block << depth, block << depth);
    }
    for (int j = 0; j < t->n; j++)
        for (int i = 0; i < t->n; i++)
            t->h[j * t->n + i] = (float)fn(ctx, x0 + i * t->step, y0 + j * t->step);
    for (int k = 0; k < n_nodes; k++) {
        t->zmin[k] = INFINITY;
        t->zmax[k] = -INFINITY;
    }
    /* Every finest vertex adds to the range and the error of the block of each level
     * that holds it (vertices on a block border belong to both sides). */
    for (int level = 0; level <= depth; level++) {
        int s = 1 << (depth - level); /* finest cells per cell of this level */
        int span = block * s;         /* finest cells per block of this level */
        for (int j = 0; j < t->n; j++)
            for (int i = 0; i < t->n; i++) {
                double h = t->h[j * t->n + i];
                double e = level == depth ? 0 : fabs(h - coarse_height(t, s, i, j));
                int bx0 = i / span, by0 = j / span;
                for (int by = by0 - (j % span == 0); by <= by0; by++)
                    for (int bx = bx0 - (i % span == 0); bx <= bx0; bx++) {
                        if (bx < 0 || by < 0 || bx >= (1 << level) || by >= (1 << level))
                            continue;
                        int k = sim_lod_node_index(level, bx, by);
                        if (h < t->zmin[k]) t->zmin[k] = (float)h;
                        if (h > t->zmax[k]) t->zmax[k] = (float)h;
                        if (e > t->err[k]) t->err[k] = (float)e;
                    }
            }
    }
    /* A parent is never more exact than its children: splitting must not be undone. */
    for (int level = depth - 1; level >= 0; level--)
        for (int by = 0; by < (1 << level); by++)
            for (int bx = 0; bx < (1 << level); bx++) {
                int k = sim_lod_node_index(level, bx, by);
                for (int c = 0; c < 4; c++) {
                    int kc = sim_lod_node_index(level + 1, 2 * bx + (c & 1), 2 * by + (c >> 1));
                    if (t->err[kc] > t->err[k]) t->err[k] = t->err[kc];
                }
            }
    return SIM_OK;
}

void sim_lod_free(sim_lod_tree *t)
{
    free(t->h);
    free(t->err);
    free(t->zmin);
    free(t->zmax);
    memset(t, 0, sizeof *t);
}

static void block_box(const sim_lod_tree *t, int level, int ix, int iy, double lo[3], double hi[3])
{
    double side = t->size / (1 << level);
    int k = sim_lod_node_index(level, ix, iy);
    lo[0] = t->x0 + ix * side;
    lo[1] = t->y0 + iy * side;
    lo[2] = t->zmin[k];
    hi[0] = lo[0] + side;
    hi[1] = lo[1] + side;
    hi[2] = t->zmax[k];
}

double sim_lod_screen_error(const sim_lod_tree *t, const sim_lod_view *v, int level, int ix, int iy)
{
    double lo[3], hi[3], d2 = 0;
    block_box(t, level, ix, iy, lo, hi);
    for (int a = 0; a < 3; a++) {
        double e = v->eye[a] < lo[a] ? lo[a] - v->eye[a] : v->eye[a] > hi[a] ? v->eye[a] - hi[a] : 0;
        d2 += e * e;
    }
    double e = t->err[sim_lod_node_index(level, ix, iy)];
    if (e <= 0)
        return 0;
    double d = sqrt(d2);
    /* Inside the box the error is as large as it can be seen. */
    return d < 1e-6 ? INFINITY : e * v->scale / d;
}

/* Sets the leaf level of every finest block under block (level, ix, iy). */
static void fill(sim_lod_selection *sel, int depth, int level, int ix, int iy)
{
    int span = 1 << (depth - level);
    for (int y = iy * span; y < (iy + 1) * span; y++)
        memset(sel->leaf_level + (size_t)y * sel->leaf_side + ix * span, level, (size_t)span);
}

static void refine(const sim_lod_tree *t, const sim_lod_view *v, sim_lod_selection *sel, int level,
                   int ix, int iy)
{
    bool split;
    if (v->force_level >= 0)
        split = level < v->force_level && level < t->depth;
    else
        split = level < t->depth && sim_lod_screen_error(t, v, level, ix, iy) > v->tolerance;
    if (!split) {
        fill(sel, t->depth, level, ix, iy);
        return;
    }
    for (int c = 0; c < 4; c++)
        refine(t, v, sel, level + 1, 2 * ix + (c & 1), 2 * iy + (c >> 1));
}

/* Splits coarse leaves until no two neighbouring leaves differ by more than a level. */
static void balance(const sim_lod_tree *t, sim_lod_selection *sel)
{
    int side = sel->leaf_side;
    uint8_t *lv = sel->leaf_level;
    static const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
    bool changed = true;
    while (changed) {
        changed = false;
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++)
                for (int e = 0; e < 4; e++) {
                    int nx = x + dx[e], ny = y + dy[e];
                    if (nx < 0 || ny < 0 || nx >= side || ny >= side)
                        continue;
                    int nl = lv[ny * side + nx];
                    if (nl + 1 < lv[y * side + x]) {
                        int shift = t->depth - nl;
                        int px = (nx >> shift) << 1, py = (ny >> shift) << 1;
                        for (int c = 0; c < 4; c++)
                            fill(sel, t->depth, nl + 1, px + (c & 1), py + (c >> 1));
                        changed = true;
                    }
                }
    }
}

static int emit(const sim_lod_tree *t, const sim_lod_view *v, sim_lod_selection *sel, int level,
                int ix, int iy)
{
    int side = sel->leaf_side, span = 1 << (t->depth - level);
    int cx = ix * span, cy = iy * span;
    const uint8_t *lv = sel->leaf_level;
    int here = lv[cy * side + cx];
    assert(here >= level);
    if (here > level) {
        for (int c = 0; c < 4; c++) {
            int rc = emit(t, v, sel, level + 1, 2 * ix + (c & 1), 2 * iy + (c >> 1));
            if (rc)
                return rc;
        }
        return SIM_OK;
    }
    unsigned stitch = 0;
    if (cx > 0 && lv[cy * side + cx - 1] < level) stitch |= SIM_EDGE_WEST;
    if (cx + span < side && lv[cy * side + cx + span] < level) stitch |= SIM_EDGE_EAST;
    if (cy > 0 && lv[(cy - 1) * side + cx] < level) stitch |= SIM_EDGE_SOUTH;
    if (cy + span < side && lv[(cy + span) * side + cx] < level) stitch |= SIM_EDGE_NORTH;
    if (v->frustum) {
        double lo[3], hi[3];
        block_box(t, level, ix, iy, lo, hi);
        if (!sim_frustum_box_visible(v->frustum, lo, hi)) {
            sel->culled++;
            return SIM_OK;
        }
    }
    if (sel->n == sel->cap) {
        int cap = sel->cap ? 2 * sel->cap : 64;
        sim_lod_block *b = realloc(sel->blocks, (size_t)cap * sizeof *b);
        if (!b)
            return SIM_ENOMEM;
        sel->blocks = b;
        sel->cap = cap;
    }
    sel->blocks[sel->n++] = (sim_lod_block){level, ix, iy, stitch};
    return SIM_OK;
}

int sim_lod_select(const sim_lod_tree *t, const sim_lod_view *v, sim_lod_selection *sel)
{
    int side = 1 << t->depth;
    if (sel->leaf_side != side) {
        uint8_t *lv = realloc(sel->leaf_level, (size_t)side * side);
        if (!lv)
            return SIM_ENOMEM;
        sel->leaf_level = lv;
        sel->leaf_side = side;
    }
    sel->n = 0;
    sel->culled = 0;
    refine(t, v, sel, 0, 0, 0);
    balance(t, sel);
    return emit(t, v, sel, 0, 0, 0);
}

void sim_lod_selection_free(sim_lod_selection *sel)
{
    free(sel->blocks);
    free(sel->leaf_level);
    memset(sel, 0, sizeof *sel);
}

int sim_lod_block_indices(int block, unsigned stitch, uint32_t *out)
{
    int w = block + 1, n = 0;
    /* A stitched edge's odd vertices are replaced by their even predecessor along the
     * edge: the cells beside them fold into fans, and the triangles that collapse are
     * dropped. */
    for (int j = 0; j < block; j++)
        for (int i = 0; i < block; i++) {
            int vi[4][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};
            for (int k = 0; k < 4; k++) {
                int *p = vi[k];
                if ((stitch & SIM_EDGE_WEST) && p[0] == 0 && (p[1] & 1)) p[1]--;
                if ((stitch & SIM_EDGE_EAST) && p[0] == block && (p[1] & 1)) p[1]--;
                if ((stitch & SIM_EDGE_SOUTH) && p[1] == 0 && (p[0] & 1)) p[0]--;
                if ((stitch & SIM_EDGE_NORTH) && p[1] == block && (p[0] & 1)) p[0]--;
            }
            uint32_t a = vi[0][1] * w + vi[0][0], b = vi[1][1] * w + vi[1][0];
            uint32_t c = vi[2][1] * w + vi[2][0], d = vi[3][1] * w + vi[3][0];
            if (a != b && b != c && a != c) {
                out[n++] = a; out[n++] = b; out[n++] = c;
            }
            if (a != c && c != d && a != d) {
                out[n++] = a; out[n++] = c; out[n++] = d;
            }
        }
    return n;
}
