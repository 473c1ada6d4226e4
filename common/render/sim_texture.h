/* sim_texture: the procedural ground and road textures the render node draws with (no
 * outside image): asphalt, worn paint, grass, concrete, and their mipmap chains.
 *
 * Each texel is a detail factor f around 1 (stored as f / 2 * 255 in R, G, B; A 255)
 * that multiplies a surface's colour, so surface and friction colours stay and far away
 * the detail averages out. Drivers judge speed from the ground's texture flow, so the
 * factor has contrast at every scale (value noise in octaves of equal amplitude from 2
 * texels to the layer's size, plus hard-edged patches): each mip level keeps detail of
 * its own size instead of fading to flat colour. Each layer's mean factor is 1.
 * Mip levels are box averages (the rounded mean of each 2x2), made here rather than by
 * the driver so that the chain is the same everywhere and testable.
 *
 * Pure computation, deterministic, no globals; the caller owns every buffer. */
#ifndef SIM_TEXTURE_H
#define SIM_TEXTURE_H

#include <stddef.h>

#include "sim_error.h"

typedef enum {
    SIM_TEXTURE_ASPHALT,  /* grain, bright aggregate, darker tar patches, repairs */
    SIM_TEXTURE_PAINT,    /* road marks: worn, the asphalt showing through in flecks */
    SIM_TEXTURE_GRASS,    /* blades, clumps and soil patches at several scales */
    SIM_TEXTURE_CONCRETE, /* kerbs, barriers: fine grain, slabs */
    SIM_TEXTURE_COUNT
} sim_texture_kind;

#define SIM_TEXTURE_MAX 4096 /* texels per side */

/* Mip levels of an n x n texture down to 1 x 1: log2(n) + 1. */
int sim_texture_levels(int n);
/* Bytes of the whole RGBA chain of an n x n texture (level 0, then each halving). */
size_t sim_texture_chain_bytes(int n);
/* The next level: dst (n/2 x n/2 RGBA) gets the rounded mean of each 2x2 block of src
 * (n x n RGBA, n even). */
void sim_texture_halve(const unsigned char *src, int n, unsigned char *dst);
/* Fills chain (sim_texture_chain_bytes(n)) with the layer `kind` at n x n (a power of
 * two, 4 to SIM_TEXTURE_MAX) and its mip levels. SIM_EINVAL for a bad kind or size. */
int sim_texture_make(sim_texture_kind kind, int n, unsigned char *chain, sim_error *err);

#endif
