/* sim_msg_collision: vehicle.collision, the ego car's body began to touch a static
 * object (a tree, pole, building, wall, guard rail; physics-node, once per contact: a
 * new one after the two were apart). docs/protocol.md.
 *
 * Fields: kind (the object's kind name, "tree"), id (the object's id, or its kind and
 * index in the scenario's object list, "tree-17"), speed (m/s, how fast the body came
 * at it along the contact normal), ego_speed (m/s, the car's speed before the
 * response), x, y (m, the contact point). */
#ifndef SIM_MSG_COLLISION_H
#define SIM_MSG_COLLISION_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */
#include "sim_msg_vehicle.h"

typedef struct sim_msg_vehicle_collision {
    char kind[32];
    char id[64];
    double speed;      /* m/s, approach along the contact normal */
    double ego_speed;  /* m/s (NAN: not given) */
    double x, y;       /* m, the contact point (NAN: not given) */
} sim_msg_vehicle_collision;

cJSON *sim_msg_vehicle_collision_encode(const sim_msg_vehicle_collision *m);
/* kind, id and speed are required. */
int sim_msg_vehicle_collision_decode(const cJSON *msg, sim_msg_vehicle_collision *out, sim_error *err);

#endif
