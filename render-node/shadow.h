/* shadow: the sun's shadow map (medium and high presets): the depth of what casts
 * shadows (cars, scenery) seen from the sun through an orthographic box around the
 * view, sampled by lit.frag with hardware depth comparison, so the ground and the
 * objects on the side away from the sun get the ambient light only. */
#ifndef RN_SHADOW_H
#define RN_SHADOW_H

#include "gfx.h"

typedef struct rn_shadow {
    GLuint fbo, tex;
    int size;               /* texels per side */
    double radius;          /* m: half the box's side */
    float view_proj[16];    /* world to the map's clip space */
    float lookup[16];       /* world to [0, 1]^3: texture coordinates and depth */
} rn_shadow;

/* A depth texture of size x size and its framebuffer; SIM_EIO when the driver refuses. */
int rn_shadow_init(rn_shadow *s, int size, double radius, sim_error *err);
void rn_shadow_free(rn_shadow *s);
/* The sun's box: centred at centre, `radius` across each way, 300 m deep along the
 * light (sun_dir points to the sun, unit, above the horizon). Pure. */
void rn_shadow_matrices(rn_shadow *s, const float sun_dir[3], const double centre[3]);

#endif
