/* materials: the procedural textures (common/render/sim_texture.h: asphalt, worn paint,
 * grass, concrete; no outside image) made at start and uploaded as one texture array
 * with their mipmaps, sampled in world coordinates by lit.frag and, at the low preset,
 * flat.frag. Each layer is a detail factor around 1 that multiplies the colour, so the
 * surface and friction colours stay and far away the detail averages out to 1. */
#ifndef RN_MATERIALS_H
#define RN_MATERIALS_H

#include <stdbool.h>

#include "gfx.h"

/* The shaders' u_material: layer u_material - 1 (sim_texture_kind + 1). */
typedef enum {
    RN_MAT_NONE,      /* the vertex colour alone (cars, scenery) */
    RN_MAT_ASPHALT,
    RN_MAT_PAINT,
    RN_MAT_GROUND,    /* terrain: grass blades, clumps and soil */
    RN_MAT_CONCRETE,
    RN_MAT_COUNT
} rn_material;

#define RN_MAT_SIZE 256 /* texels per layer side */

/* Uploads the layers as a GL_TEXTURE_2D_ARRAY with their mipmaps, filtered with up to
 * `anisotropy` samples where the GL has anisotropic filtering (the amount used in
 * *anisotropy_used, 1 without; may be NULL), trilinear, or from the nearest mip level
 * alone on a software renderer; 0 when out of memory. */
GLuint rn_materials_texture(float anisotropy, bool software, float *anisotropy_used);

#endif
