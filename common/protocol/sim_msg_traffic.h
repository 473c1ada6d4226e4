/* sim_msg_traffic: the traffic node's messages (docs/protocol.md): traffic.state, the
 * vehicles around the ego and the ego's lead vehicle, every tick; traffic.event, a
 * trigger that went off.
 *
 * Encoders return the payload object (caller owns; NULL when out of memory) to publish
 * with sim_bus_publish. Numbers are rounded (positions and s to 1 mm, angles to 0.1
 * mrad, speeds to 1 mm/s) so that lines stay short and equal states give equal bytes.
 * Decoders fill plain structs and name the first bad field as `topic: "field": found
 * X, expected Y`. */
#ifndef SIM_MSG_TRAFFIC_H
#define SIM_MSG_TRAFFIC_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_TRAFFIC_MAX_VEHICLES 128 /* at most this many per traffic.state (< 40 KiB) */

typedef struct sim_msg_traffic_vehicle {
    char id[64];
    char model[32];
    char road[64];             /* road id, "" when unknown */
    double pos[3];             /* m, on the road surface */
    double heading;            /* rad */
    double size[3];            /* length, width, height, m */
    double velocity[3];        /* m/s, world frame */
    bool brake;                /* brake lights */
    bool left, right;          /* indicators ("indicator": off, left, right, both: hazard) */
    int lane;                  /* lane id on the road (left +, right -) */
    double s;                  /* m along the road */
    bool has_ref;              /* pos_ref known ("pos_ref" absent when not) */
    double pos_ref[3];         /* m: the OpenSCENARIO reference point (the rear axle's centre) on the
                                  ground, for a storyboard entity: what another OpenSCENARIO player logs */
} sim_msg_traffic_vehicle;

typedef struct sim_msg_traffic_lead {
    bool valid;                /* false: no vehicle ahead (encoded as null) */
    char id[64];
    double gap;                /* bumper to bumper, m */
    double speed;              /* m/s */
    double thw, ttc;           /* s; INFINITY (encoded null) when not defined */
} sim_msg_traffic_lead;

typedef struct sim_msg_traffic_state {
    int run;                   /* restart count, as in sim.tick */
    int total;                 /* agents in the world (not only those listed) */
    int ambient;               /* of which ambient (spawned around the ego) */
    bool frozen;
    sim_msg_traffic_vehicle *vehicles; /* the caller's array */
    int n_vehicles;
    int skipped;               /* decode: entries left out for a bad field */
    sim_msg_traffic_lead lead;
    char cab[33];              /* the cab whose car is the ego here (lead, nearness; docs/cabs.md);
                                  "" (not encoded) in a session without cabs */
} sim_msg_traffic_state;

cJSON *sim_msg_traffic_state_encode(const sim_msg_traffic_state *m);
/* Reads at most max vehicles into out->vehicles (the caller's array). Missing optional
 * fields take defaults (size: a car 4.5 x 1.8 x 1.5 m, heading and velocity 0); an
 * entry with a bad or missing pos, or a bad field, is left out and counted in skipped,
 * and the first such is the error (SIM_EINVAL) while the good entries are still
 * there: one bad vehicle does not hide the others. */
int sim_msg_traffic_state_decode(const cJSON *msg, sim_msg_traffic_state *out, int max,
                                 sim_error *err);

typedef struct sim_msg_traffic_event {
    char trigger[64];          /* the trigger's id */
    char action[16];           /* lane_switch, brake, hud_text, log_mark */
    char agent[64];            /* the agent acted on ("" for hud_text, log_mark: null) */
    char by[64];               /* who set it off: "ego" or an agent id */
    char text[256];            /* hud_text, log_mark ("" otherwise: absent) */
} sim_msg_traffic_event;

cJSON *sim_msg_traffic_event_encode(const sim_msg_traffic_event *m);
int sim_msg_traffic_event_decode(const cJSON *msg, sim_msg_traffic_event *out, sim_error *err);

/* traffic.collision: the ego's box began to touch another vehicle's (once per contact;
 * a new one after the two were apart). */
typedef struct sim_msg_traffic_collision {
    char other[64];            /* the other vehicle's id (as in traffic.state) */
    char model[32];            /* its model */
    double rel_speed;          /* |v_ego - v_other| as ground-plane vectors, m/s */
    double ego_speed, other_speed; /* m/s */
} sim_msg_traffic_collision;

cJSON *sim_msg_traffic_collision_encode(const sim_msg_traffic_collision *m);
int sim_msg_traffic_collision_decode(const cJSON *msg, sim_msg_traffic_collision *out, sim_error *err);

/* traffic.ego: the OpenSCENARIO ego entity where the storyboard drives it
 * (traffic-node --scenario-ego, simctl run --driver scenario), for physics-node
 * --scenario-ego to put the car on: its bounding box's centre on the ground, heading,
 * speed along it. Published before the tick's traffic.state; the ego is not in that. */
typedef struct sim_msg_traffic_ego {
    char id[64];               /* the entity's name */
    double x, y;               /* m, world */
    double heading;            /* rad */
    double speed;              /* m/s, >= 0 */
    double x_ref, y_ref;       /* m, world: its OpenSCENARIO reference point (the rear axle's centre);
                                  decoded as x, y when absent */
} sim_msg_traffic_ego;

cJSON *sim_msg_traffic_ego_encode(const sim_msg_traffic_ego *m);
int sim_msg_traffic_ego_decode(const cJSON *msg, sim_msg_traffic_ego *out, sim_error *err);

#endif
