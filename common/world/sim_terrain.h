/* sim_terrain: the ground as a smooth surface, shared by physics and render.
 *
 * A height map (read from PGM, PNG or raw float32 by sim_grid_image) is the control
 * net of a uniform cubic B-spline surface (paper "Dynamic simulation in a driving
 * simulator game", section 3.2): smooth (C2), no overshoot, and with an
 * analytic normal. Per-point property maps on the same lattice (friction coefficient)
 * are evaluated with the same spline; the surface type, being a category, is taken
 * from the nearest grid point.
 *
 * Lattice: control point (i, j) sits at world (origin_x + i*spacing,
 * origin_y + j*spacing), i along x (east, image columns), j along y (north). Image
 * files are maps with north up: the first row of a PGM is the northern edge, j = ny-1.
 *
 * What the surface reproduces: with control points sampled from f, the spline equals
 * f exactly for f linear, and f + (a + c)*spacing^2/3 for f = a x^2 + b xy + c y^2 +
 * linear terms (the cubic B-spline's variance is 1/3 of a cell) - wherever the 4x4
 * control points around (x, y) are all inside the map, i.e. for x within
 * [origin_x + spacing, origin_x + (nx-2)*spacing] and likewise for y.
 *
 * Edge behaviour: the control net is extended beyond the map by repeating its edge
 * points (clamp-to-edge). The surface therefore stays C2 everywhere, also across the
 * border, and at more than two spacings outside the map it is flat, equal to the
 * nearest edge point's value (normal straight up). Coordinates far outside (or NaN)
 * evaluate like points just beyond the edge; nothing is undefined.
 *
 * Pure computation: no globals, no I/O. Grids are read from image files by
 * scenario/sim_grid_image.h. */
#ifndef SIM_TERRAIN_H
#define SIM_TERRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

/* A scalar grid: nx columns (x) by ny rows (y), v[j*nx + i]; row j = 0 is the south
 * edge. The grid owns v. */
typedef struct sim_grid {
    int nx, ny;
    double *v;
} sim_grid;

/* Largest accepted grid side (points), to refuse absurd headers before allocating. */
#define SIM_GRID_MAX_SIDE 16384

/* Allocates an nx x ny grid filled with zeros. */
int sim_grid_alloc(sim_grid *g, int nx, int ny, sim_error *err);
void sim_grid_free(sim_grid *g);

/* Fills a new nx x ny grid with seeded fractal gradient noise, normalised to [0, 1]:
 * `octaves` layers of 2-D gradient (Perlin-style) noise, the first with a feature
 * size of `period` grid points, each next one at twice the frequency and
 * `persistence` times the amplitude. Deterministic: the same arguments give the same
 * values (no global random state; lattice gradients come from an integer hash of
 * seed, octave and lattice point). */
int sim_grid_fractal(sim_grid *out, int nx, int ny, uint32_t seed, int octaves, double period,
                     double persistence, sim_error *err);

/* Evaluates the uniform cubic B-spline whose control points are g's values at the
 * lattice coordinates (u, v) (u = column, v = row, in grid units), with clamp-to-edge
 * beyond the map. Writes the value and its partial derivatives d/du, d/dv (either
 * derivative pointer may be NULL). */
double sim_grid_spline(const sim_grid *g, double u, double v, double *du, double *dv);

/* Surface categories for sim_terrain.surface (codes are grey values in a surface
 * map). */
typedef enum {
    SIM_SURFACE_ASPHALT = 0,
    SIM_SURFACE_GRASS = 1,
    SIM_SURFACE_GRAVEL = 2,
    SIM_SURFACE_SAND = 3,
    SIM_SURFACE_SNOW = 4,
    SIM_SURFACE_ICE = 5,
    SIM_SURFACE_WATER = 6,
    SIM_SURFACE_COUNT
} sim_surface;

/* What a surface does to a tyre, relative to the tyre data's own surface (dry
 * asphalt): the table is in docs/world.md ("Surfaces"). */
typedef struct sim_surface_props {
    double friction;  /* friction factor where the scenario gives none (dry asphalt 1) */
    double rolling;   /* rolling-resistance coefficient added to the tyre's own (Fx/Fz) */
    double roughness; /* 0..1, the force feedback's rumble (0 smooth) */
} sim_surface_props;

/* The surface's properties; an unknown code reads as asphalt. Pure, never NULL. */
const sim_surface_props *sim_surface_props_of(int surface);


/* The terrain. Plain struct: the caller may fill it directly, but sim_terrain_init
 * checks it. It owns its grids (free with sim_terrain_free). */
typedef struct sim_terrain {
    double origin_x, origin_y; /* world position of control point (0, 0), m */
    double spacing;            /* distance between grid points, m (> 0) */
    sim_grid height;           /* heights in metres */
    sim_grid friction;         /* optional: nx == 0 means friction_default everywhere */
    double friction_default;   /* road/tyre friction coefficient, dimensionless; NAN:
                                * the surface's own (sim_surface_props_of) */
    uint8_t *surface;          /* optional: height.nx*height.ny codes, NULL = default */
    int surface_default;       /* a sim_surface */
    double inv_spacing;        /* 1/spacing, set by sim_terrain_init */
} sim_terrain;

/* One evaluation of the surface at (x, y). */
typedef struct sim_terrain_sample {
    double z;            /* height, m */
    double dzdx, dzdy;   /* slope */
    double n[3];         /* unit normal, pointing up (n[2] > 0) */
    double friction;     /* friction coefficient at that point */
    int surface;         /* sim_surface code of the nearest grid point */
} sim_terrain_sample;

/* Takes ownership of *height (which is zeroed), checks the spacing (finite, > 0) and
 * the grid (at least 1x1), and sets up t with no property maps (friction 1.0, surface
 * asphalt). On error the height grid is freed and t is left empty. */
int sim_terrain_init(sim_terrain *t, sim_grid *height, double origin_x, double origin_y,
                     double spacing, sim_error *err);
/* Attaches a friction map (ownership taken); it must have the height map's size. */
int sim_terrain_set_friction(sim_terrain *t, sim_grid *friction, sim_error *err);
void sim_terrain_free(sim_terrain *t);

/* An upper bound of the surface's slope |grad z| anywhere (also beyond the map): the
 * spline's derivatives are convex combinations of the height map's neighbour
 * differences, so the bound is the largest of those over the spacing, in x and y
 * combined. Scans the map (O(points)): call it once, not per query. */
double sim_terrain_max_slope(const sim_terrain *t);
/* Height at (x, y), metres. */
double sim_terrain_height(const sim_terrain *t, double x, double y);
/* Height, slope, normal, friction and surface type at (x, y). */
void sim_terrain_eval(const sim_terrain *t, double x, double y, sim_terrain_sample *out);

#endif
