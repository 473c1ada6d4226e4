/* state: the traffic node's world and what it publishes (traffic.state, traffic.event,
 * hud.text), apart from the bus so that it reads as the node's logic. */
#ifndef TRAFFIC_NODE_STATE_H
#define TRAFFIC_NODE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_msg_traffic.h"
#include "sim_scenario.h"
#include "sim_traffic.h"
#include "sim_traffic_setup.h"

#define TN_MAX_CONTACTS 16   /* vehicles the ego can touch at once that are told apart */
#define TN_CONTACT_MARGIN 0.05 /* m: boxes this close count as touching (docs/traffic.md) */

typedef struct tn_world {
    sim_scenario *sc;
    sim_traffic_setup su;
    sim_traffic t;
    bool started;
    double radius;                 /* m around the ego for traffic.state */
    int max_vehicles;              /* per traffic.state */
    double density_scale;          /* kept across restarts */
    bool frozen;                   /* likewise */
    int run;
    double ego_len, ego_width;
    uint32_t touching[TN_MAX_CONTACTS]; /* uids of the agents the ego touched last step */
    int n_touching;
    sim_msg_traffic_vehicle vehicles[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    int order[SIM_MSG_TRAFFIC_MAX_VEHICLES];
} tn_world;

/* Loads and validates the scenario and builds the traffic set-up; err names the file
 * and the problem. */
int tn_world_open(tn_world *w, const char *scenario, sim_error *err);
void tn_world_close(tn_world *w);
/* A fresh world, as at a fresh start (density and freeze as last set). */
int tn_world_restart(tn_world *w, sim_error *err);
/* The payload of traffic.state for the current world (caller frees; NULL: out of memory). */
cJSON *tn_state_payload(tn_world *w);
/* Payload of traffic.event for event k of the last step. */
cJSON *tn_event_payload(const tn_world *w, int k);

/* The payloads of traffic.collision for the agents the ego began to touch in the last
 * step (each contact once, again only after the two were apart), into out (at most
 * max; the caller frees them); returns how many. */
int tn_collisions(tn_world *w, cJSON **out, int max);

#endif
