/* sim_scenario_objects: what stands in a scenario's world, placed once for everyone who
 * needs it, and the collision shapes physics makes of it.
 *
 * The render node draws sim_scenario_objects' list and the physics node makes its
 * obstacles from the same list (sim_scenario_obstacles), so that what the driver sees
 * is what stops the car. Pure: no I/O. */
#ifndef SIM_SCENARIO_OBJECTS_H
#define SIM_SCENARIO_OBJECTS_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_objects.h"
#include "sim_obstacles.h"
#include "sim_scenario.h"

/* Appends to out the objects the scenario's scenery rules place (the default rules
 * when it has no "scenery" section) and then its road data's objects (OpenDRIVE
 * <object>s). Deterministic. Returns how many were appended, or SIM_ENOMEM (out then
 * holds what was placed before). */
int sim_scenario_objects(const sim_scenario *sc, sim_object_list *out);

/* Appends a pole (kind pole, id "traffic_light:HEAD", 0.14 m square, up to the head's
 * top) for the post of every traffic-light head (the render node draws the heads and
 * their posts from the same data) whose foot is off the drivable lanes (a head given
 * at a lane's t for convenience would otherwise stand in the traffic). Returns how
 * many, or SIM_ENOMEM. */
int sim_scenario_light_posts(const sim_scenario *sc, sim_object_list *out);

/* Appends a pole (kind pole, id "sign:ROAD:K" for the road's sign K, 0.1 m square,
 * 2 m high) for the post of every road sign whose foot is off the drivable lanes.
 * Returns how many, or SIM_ENOMEM. */
int sim_scenario_sign_posts(const sim_scenario *sc, sim_object_list *out);

/* The collision shapes of one object (at most 2, written to out; returns how many):
 * trees' trunks, poles and street lights' posts as cylinders; buildings, walls, piers,
 * OpenDRIVE objects and models as boxes; guard rails and barriers as rails; a gantry's
 * two posts as boxes. Bushes, delineator posts (flexible), kerbs (under the body) and
 * anything lower than 0.3 m get none. Each shape's tag is `tag`. */
int sim_object_shapes(const sim_world_object *o, int tag, sim_obstacle out[2]);

/* The collision shapes of every object of list (tag: the object's index) in a grid
 * (*out, freed with sim_obstacles_free). SIM_ENOMEM, or SIM_EINVAL naming an object
 * with a non-finite position or size. */
int sim_scenario_obstacles(const sim_object_list *list, sim_obstacles *out, sim_error *err);

/* The name an object goes by in collision events: its own id, else its kind and index
 * in the list ("tree-17"). Writes at most size bytes (NUL-terminated). */
void sim_object_event_id(const sim_object_list *list, int index, char *buf, size_t size);

#endif
