/* world: what the physics node needs from the world model (sim_scenario): the ground
 * under each wheel as a sim_vehicle_ground callback (road surface on roads, terrain
 * elsewhere, with friction and a roughness for force feedback), named start points,
 * the road-relative position for vehicle.state and the scenario's end. Without a
 * scenario the world is a flat, dry plane with one start point "origin" at (0, 0)
 * heading east. */
#ifndef PHYSICS_WORLD_H
#define PHYSICS_WORLD_H

#include <stdbool.h>

#include "messages.h"
#include "sim_error.h"
#include "sim_obstacles.h"
#include "sim_objects.h"
#include "sim_vehicle.h"

typedef struct pn_world pn_world;

/* scenario NULL: the flat plane; params: OpenSCENARIO overrides (NULL: none). Errors carry the scenario loader's messages. The
 * world is freed with pn_world_free. */
int pn_world_open(const char *scenario, const char *params, pn_world **out, sim_error *err);
void pn_world_free(pn_world *w);

/* The ground callback over this world (valid while the world lives). */
const sim_vehicle_ground *pn_world_ground(const pn_world *w);

/* What stands in the world (the render node draws the same list) and the collision
 * shapes made of it, tagged with the index into that list; empty without a scenario. */
const sim_object_list *pn_world_objects(const pn_world *w);
const sim_obstacles *pn_world_obstacles(const pn_world *w);

/* Start point by name (NULL: the first one); SIM_ENOTFOUND naming the known ones. */
int pn_world_start(const pn_world *w, const char *name, sim_vehicle_start *out, sim_error *err);

/* Road-relative position at (x, y) of a car at height z heading that way (both pick
 * among overlapping roads); out->valid false when there is no road. */
void pn_world_road(const pn_world *w, double x, double y, double z, double heading, pn_road_pos *out);

/* Whether a car at road position pos has reached the scenario's end: the end (s_end)
 * of its last test sector, on that sector's road, or leaving that sector after being
 * inside it (*was_inside: the caller's state, false at a run's start). Never without
 * sectors. */
bool pn_world_at_end(const pn_world *w, const pn_road_pos *pos, bool *was_inside);

#endif
