/* sim_lod: geomipmapped terrain: which blocks to draw at which resolution.
 *
 * After "Dynamic simulation in a driving simulator game" (section 3): the terrain
 * square is a quadtree of blocks. Every block, whatever its level, is drawn as the
 * same grid of `block` x `block` cells, so a block at level l has cells 2^(depth-l)
 * times the finest spacing: resolutions are powers of two. A block is split when its
 * screen-space error is above the tolerance: its geometric error (the largest height
 * difference between the finest surface and the block's own triangles, so rough
 * ground is refined sooner than smooth ground) times the projection scale over the
 * distance from the eye to the block's box. The selection is balanced so neighbours
 * differ by at most one level, and cracks are closed on the finer side: its edge
 * towards a coarser neighbour skips every other vertex (sim_lod_block_indices), which
 * is the paper's "lowering the finer block's edge" onto the coarse one. Blocks outside
 * the view frustum are culled after the balancing, so culling never changes the
 * stitching of a visible block.
 *
 * Finest vertex (i, j), 0 <= i, j <= block << depth, lies at world
 * (x0 + i*step, y0 + j*step), step = size / (block << depth); the render node evaluates
 * the terrain spline there, as sim_lod_build does, so both agree exactly.
 *
 * Ownership: a sim_lod_tree owns its arrays (sim_lod_free); a sim_lod_selection owns
 * its arrays (sim_lod_selection_free). Pure computation, no globals. */
#ifndef SIM_LOD_H
#define SIM_LOD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_camera.h"
#include "sim_error.h"

#define SIM_LOD_MAX_DEPTH 8

/* The height of the surface at world (x, y). */
typedef double (*sim_lod_height_fn)(void *ctx, double x, double y);

typedef struct sim_lod_tree {
    int block;          /* cells per block side, a power of two >= 2 */
    int depth;          /* deepest level; level l has 2^l x 2^l blocks */
    double x0, y0;      /* south-west corner, m */
    double size;        /* side of the square, m */
    double step;        /* finest vertex spacing, m */
    int n;              /* finest vertices per side: (block << depth) + 1 */
    float *h;           /* finest heights, n*n, row j = y index */
    float *err;         /* per block geometric error (m), levels one after another */
    float *zmin, *zmax; /* per block height range, m */
} sim_lod_tree;

/* Samples fn on the finest grid and computes every block's error and height range.
 * SIM_EINVAL for a block that is not a power of two, a depth outside
 * 0..SIM_LOD_MAX_DEPTH or a size that is not finite and positive; SIM_ENOMEM. */
int sim_lod_build(sim_lod_tree *t, int block, int depth, double x0, double y0, double size,
                  sim_lod_height_fn fn, void *ctx, sim_error *err);
void sim_lod_free(sim_lod_tree *t);

/* Index of block (level, ix, iy) in err/zmin/zmax. */
int sim_lod_node_index(int level, int ix, int iy);

/* Edges of a block: the bit is set when the neighbour there is coarser. */
enum { SIM_EDGE_WEST = 1, SIM_EDGE_EAST = 2, SIM_EDGE_SOUTH = 4, SIM_EDGE_NORTH = 8 };

typedef struct sim_lod_block {
    int level, ix, iy;
    unsigned stitch;    /* SIM_EDGE_* bits */
} sim_lod_block;

typedef struct sim_lod_view {
    double eye[3];          /* m, world */
    double scale;           /* pixels per unit of (size / distance): viewport height / (2 tan(fov_y/2)) */
    double tolerance;       /* largest accepted screen-space error, pixels (> 0) */
    const sim_frustum *frustum; /* NULL: no culling */
    int force_level;        /* >= 0: every block at this level (brute force), no error test */
} sim_lod_view;

typedef struct sim_lod_selection {
    sim_lod_block *blocks;  /* the blocks to draw */
    int n, cap;
    int culled;             /* leaves left out by the frustum */
    uint8_t *leaf_level;    /* per finest block (2^depth squared): level of its leaf */
    int leaf_side;
} sim_lod_selection;

/* Chooses the blocks for one view. SIM_ENOMEM only. */
int sim_lod_select(const sim_lod_tree *t, const sim_lod_view *v, sim_lod_selection *sel);
void sim_lod_selection_free(sim_lod_selection *sel);

/* Screen-space error of block (level, ix, iy) seen from v (pixels). */
double sim_lod_screen_error(const sim_lod_tree *t, const sim_lod_view *v, int level, int ix, int iy);

/* Triangle indices of a block of `block` x `block` cells whose vertices are stored row
 * by row ((block+1)^2, vertex (i, j) at j*(block+1) + i), counter-clockwise seen from
 * above, with the edges in `stitch` using only every other vertex. Writes at most
 * 6*block*block indices; returns how many. */
int sim_lod_block_indices(int block, unsigned stitch, uint32_t *out);

#endif
