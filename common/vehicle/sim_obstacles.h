/* sim_obstacles: the static things a car hits (trees, poles, buildings, walls, guard
 * rails) as vertical collision shapes in a uniform grid, and the car's body against
 * them at every step: an impulse response with the vehicle file's restitution and body
 * friction, damage-free, that names what was hit.
 *
 * Shapes are 2-D footprints extruded from z0 to z1: a cylinder (trunks, poles), an
 * oriented box (buildings, walls, OpenDRIVE objects) or a rail (a box whose contact
 * normal is always across it, never along: a car sliding along a chain of rail
 * segments is not caught on their joints, and it is pushed back to the side its
 * centre is on, so it is redirected along the rail). The car is its collision box's
 * footprint (an oriented rectangle) at its height range; the contact acts at the
 * centre of mass's height, so a hit turns the car about its vertical axis and does
 * not roll it.
 *
 * No tunnelling: the test is made after every step, so a shape thicker than the
 * distance the car moves in one step (5.6 cm at 200 km/h and 1 kHz; the thinnest
 * shape the scenario gives, a 0.1 m post, holds to 360 km/h) is always seen
 * overlapping before the car is through.
 *
 * Ownership: a sim_obstacles owns copies of its shapes and its grid (heap); free it
 * with sim_obstacles_free. Pure: no I/O, no globals. */
#ifndef SIM_OBSTACLES_H
#define SIM_OBSTACLES_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_vehicle.h"

typedef enum sim_obstacle_shape {
    SIM_SHAPE_CYLINDER = 0, /* radius half_w about (x, y) */
    SIM_SHAPE_BOX = 1,      /* centre (x, y), half_l along heading, half_w across */
    SIM_SHAPE_RAIL = 2,     /* as a box; contact only across it */
} sim_obstacle_shape;

typedef struct sim_obstacle {
    sim_obstacle_shape shape;
    double x, y;            /* m, world: the centre of the footprint */
    double heading;         /* rad, CCW from +x (box, rail) */
    double half_l, half_w;  /* m (cylinder: half_w is the radius) */
    double z0, z1;          /* m, world: base and top */
    int tag;                /* the caller's (which object it is) */
} sim_obstacle;

typedef struct sim_obstacles {
    sim_obstacle *items;    /* owned */
    int n;
    /* the grid: cells of `cell` metres from (x0, y0), nx by ny; cell c holds
     * index[start[c] .. start[c + 1]) */
    double x0, y0, cell;
    int nx, ny;
    int *start, *index;     /* owned */
    double *bounds;         /* owned: each shape's footprint box x0, y0, x1, y1 */
} sim_obstacles;

/* Copies n shapes into *out and builds the grid (cell >= 4 m, at most about 4 M
 * cells). SIM_EINVAL naming the shape for a non-finite or negative size;
 * SIM_ENOMEM. n may be 0. */
int sim_obstacles_build(sim_obstacles *out, const sim_obstacle *items, int n, sim_error *err);
void sim_obstacles_free(sim_obstacles *s);

/* The shapes whose footprint's bounding box meets the rectangle [x0, x1] x [y0, y1]:
 * writes at most max indices into out (ascending, each once), returns how many there
 * are (may exceed max). */
int sim_obstacles_query(const sim_obstacles *s, double x0, double y0, double x1, double y1, int *out, int max);

/* One shape the car touched in a step. */
typedef struct sim_obstacle_hit {
    int index;              /* into sim_obstacles.items */
    int tag;
    double speed;           /* m/s, the approach speed along the contact normal */
    double x, y;            /* m, world: the contact point */
} sim_obstacle_hit;

/* Tests the car's body against the shapes near it and resolves each contact by an
 * impulse (restitution and body friction from the vehicle file) and by pushing the car
 * out. Call it after every sim_vehicle_step. Writes at most max hits (the shapes the
 * body overlaps, after the response) and returns how many shapes it touched. */
int sim_vehicle_hit_obstacles(sim_vehicle *v, const sim_obstacles *s, sim_obstacle_hit *hits, int max);

#endif
