/* messages: the physics node's bus payloads (docs/protocol.md): sim.tick,
 * vehicle.state and ffb.command out; input.controls and traffic.state in. Encoders
 * return a new cJSON object owned by the caller (NULL when out of memory). */
#ifndef PHYSICS_MESSAGES_H
#define PHYSICS_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_vehicle.h"

/* Road-relative position of the car (from the world model), when it is on a road. */
typedef struct pn_road_pos {
    bool valid;
    int road;           /* road index in the scenario */
    const char *road_id;/* its id (owned by the scenario); NULL when it has none */
    double s, d;        /* m; d left positive */
    int lane;           /* OpenDRIVE-style id; 0 outside every lane */
    double lane_offset; /* m from the lane's centre, left positive */
} pn_road_pos;

/* The wheel-to-picture stamps a state carries (sim_msg_vehicle.h; monotonic s, NAN
 * when not known): those of the newest input.controls integrated, and when the
 * stepping of this state finished. */
typedef struct pn_stamps {
    double in_stamp, in_sent, in_recv, stepped;
} pn_stamps;

/* The payloads, through the message definitions of common/protocol (sim_msg_*.h). */
cJSON *pn_tick_json(uint64_t n, double dt, int run, bool paused);
/* tick and run: the sim.tick this state belongs to; stamps and head (the specific
 * force and angular rate at the driver's head, 6 numbers) may be NULL. */
cJSON *pn_vehicle_state_json(const sim_vehicle_state *s, const sim_vehicle_controls *in,
                             const pn_road_pos *road, sim_vehicle_model model, uint64_t tick, int run,
                             const pn_stamps *stamps, const double *head);
/* The motion at the driver's head (p->driver_eye) for vehicle.state's head_f and
 * head_w (docs/motion.md): alpha is the body's angular acceleration (rad/s^2). */
void pn_head_motion(const sim_vehicle_state *s, const sim_vehicle_params *p, const double alpha[3], double head[6]);
cJSON *pn_ffb_json(const sim_ffb_output *f);

/* Applies an input.controls message to *c (sim_msg_input.h's rule): the fields it
 * carries replace the current ones; a missing "gear" means automatic. A refused
 * message (a field of the wrong type or out of its range) leaves c untouched and
 * returns its error. */
int pn_controls_from_json(const cJSON *msg, sim_vehicle_controls *c, sim_error *err);
/* The same, also giving the message's stamp and sent (NAN when it has none). */
int pn_controls_stamped(const cJSON *msg, sim_vehicle_controls *c, double *stamp, double *sent, sim_error *err);

/* Reads traffic.state {"vehicles":[{"pos":[x,y,z],"heading":h,"size":[l,w,h],
 * "velocity":[vx,vy,vz]}]} into at most max boxes; returns how many. Entries without
 * pos are skipped; size defaults to a car (4.5 x 1.8 x 1.5 m). cab: this car's cab, whose
 * own entry ("cab.NAME", docs/cabs.md) is skipped; NULL: none. */
size_t pn_boxes_from_json(const cJSON *msg, const char *cab, sim_box *boxes, size_t max);

#endif
