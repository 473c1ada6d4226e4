/* terrain: the ground drawn from the scenario's terrain surface (or flat ground around
 * the roads when it has none), geomipmapped with sim_lod: block meshes are made on
 * first use from the same spline the physics samples, coloured by the surface and
 * friction maps; one index buffer holds the 16 stitching patterns. */
#ifndef RN_TERRAIN_H
#define RN_TERRAIN_H

#include "gfx.h"
#include "sim_camera.h"
#include "sim_lod.h"
#include "sim_scenario.h"

#define RN_TERRAIN_BLOCK 16
#define RN_TERRAIN_PREBUILD 2.2e6 /* vertices: up to this many, all blocks are made at start */

typedef struct rn_terrain {
    const sim_scenario *sc;
    sim_lod_tree tree;
    sim_lod_selection sel;
    gfx_mesh *blocks;          /* per node index; vao 0 until first drawn */
    int n_nodes;
    GLuint ibo;
    int pattern_first[16], pattern_count[16];
    double tolerance;          /* screen-space error, pixels */
    int force_level;           /* >= 0: brute force at that level */
    /* last frame */
    long triangles;
    int draw_calls;
} rn_terrain;

/* Builds the LOD tree (the GL context must be current). */
int rn_terrain_init(rn_terrain *t, const sim_scenario *sc, sim_error *err);
void rn_terrain_free(rn_terrain *t);
/* Selects and draws the blocks for camera c on a viewport `height` pixels high with
 * the lit program bound (its u_model set to identity). */
int rn_terrain_draw(rn_terrain *t, const sim_camera *c, int height, const sim_frustum *f);

/* The ground colour at (x, y) as the terrain draws it. */
void rn_terrain_color(const sim_scenario *sc, double x, double y, float out[3]);

#endif
