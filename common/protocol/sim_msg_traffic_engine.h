/* sim_msg_traffic_engine: traffic.engine (docs/protocol.md), which traffic engine other
 * than the own core drives the surrounding traffic and how it was started: published by
 * the traffic node with the first sim.tick of every run, written by the recorder into
 * the drive log's meta (traffic_engine, traffic_engine_version, traffic_engine_options,
 * traffic_engine_seed, traffic_engine_step_s). */
#ifndef SIM_MSG_TRAFFIC_ENGINE_H
#define SIM_MSG_TRAFFIC_ENGINE_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

typedef struct sim_msg_traffic_engine {
    char engine[16];        /* "sumo" */
    char version[64];       /* the engine's own words ("SUMO 1.15.0") */
    int api;                /* its API version (TraCI's) */
    char options[2048];     /* its command line (the port left out: it differs each run) */
    double step_s;          /* its step length */
    double seed;            /* its seed */
} sim_msg_traffic_engine;

cJSON *sim_msg_traffic_engine_encode(const sim_msg_traffic_engine *m);
int sim_msg_traffic_engine_decode(const cJSON *msg, sim_msg_traffic_engine *out, sim_error *err);

#endif
