/* materials: the procedural textures made at start (no outside asset): asphalt grain,
 * worn paint for the marks, grass (modulating the terrain's colour from its surface and
 * friction maps), concrete for kerbs and barriers. One texture array with mipmaps,
 * sampled in world coordinates by lit.frag (medium and high presets), each layer a
 * detail factor around 1 that multiplies the vertex colour, so the surface and friction
 * colours stay and far away (small mip levels) the detail averages out to 1. */
#ifndef RN_MATERIALS_H
#define RN_MATERIALS_H

#include "gfx.h"

typedef enum {
    RN_MAT_NONE,      /* the vertex colour alone (cars, scenery) */
    RN_MAT_ASPHALT,
    RN_MAT_PAINT,
    RN_MAT_GROUND,    /* terrain: grass blades and soil patches */
    RN_MAT_CONCRETE,
    RN_MAT_COUNT
} rn_material;

#define RN_MAT_SIZE 256 /* texels per layer side */

/* Fills the RN_MAT_COUNT - 1 layers (RN_MAT_SIZE^2 RGBA each, layer m - 1 for material
 * m), deterministic; pure, so tests can look at the texels. */
void rn_materials_make(unsigned char *rgba);
/* Uploads them as a GL_TEXTURE_2D_ARRAY with mipmaps; 0 when out of memory. */
GLuint rn_materials_texture(void);

#endif
