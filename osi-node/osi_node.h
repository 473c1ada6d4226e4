/* osi_node: osi-node's state (see main.c): the session's scenario and host vehicle,
 * the newest states from the bus, and the GroundTruth made of them for each tick. */
#ifndef OSI_NODE_H
#define OSI_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "osi_out.h"
#include "sim_osi.h"
#include "sim_scenario.h"

#define OSI_NODE_RECENT 4 /* traffic.state messages kept for the pending tick */

typedef struct osi_node {
    /* options */
    const char *listen, *udp, *scenario, *params, *vehicle;
    int udp_max, wait_consumers;
    bool lockstep;
    double lane_step;
    /* made in osi_node_load */
    osi_out *out;
    sim_osi_ego_geometry geo;
    sim_scenario *sc;            /* NULL: no environment, lights or lanes */
    sim_environment env;         /* the scenario's; light follows the operator's command */
    sim_osi_heads heads;         /* the traffic-light heads in their newest signal.state */
    sim_osi_road_lanes lanes;
    /* the pending tick */
    bool have_ego;
    int64_t ego_run;
    double ego_t, ego_tick;
    sim_msg_vehicle_state ego;
    cJSON *recent[OSI_NODE_RECENT];  /* traffic.state payloads */
    double recent_t[OSI_NODE_RECENT];
    int64_t recent_run[OSI_NODE_RECENT];
    int next;
    /* the newest message sent (kept for consumers that join) */
    bool have_last;
    sim_osi_ground_truth last;
    sim_osi_environment last_env;
    sim_osi_object objects[1 + SIM_MSG_TRAFFIC_MAX_VEHICLES];
    sim_msg_traffic_vehicle vehicles[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    uint8_t *buf;
    size_t cap;
    size_t sent;
} osi_node;

/* The vehicle file, the scenario (with params), its lanes. SIM_E* with err. */
int osi_node_load(osi_node *n, sim_error *err);
void osi_node_free(osi_node *n);
/* The bus's messages (t: the envelope's). */
void osi_node_vehicle(osi_node *n, const cJSON *msg, double t);
void osi_node_traffic(osi_node *n, const cJSON *msg, double t);
void osi_node_signal(osi_node *n, const cJSON *msg);
void osi_node_light(osi_node *n, const cJSON *msg);
/* Sends the pending tick's message now (at stop). */
void osi_node_flush(osi_node *n);
/* A consumer joined: the newest message, with the lanes, to every fresh consumer. */
void osi_node_greet(osi_node *n);

#endif
