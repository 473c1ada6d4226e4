/* traffic_in: the other cars as the render node needs them, read from traffic.state
 * through its one definition (sim_msg_traffic). */
#ifndef RN_TRAFFIC_IN_H
#define RN_TRAFFIC_IN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"

#define RN_MAX_AGENTS 256

typedef struct rn_agent {
    double pos[3];        /* m, on the road surface below the car's middle */
    double heading;       /* rad */
    double size[3];       /* length, width, height, m */
    double speed;         /* m/s along the heading */
    bool brake;           /* brake lights */
    int indicator;        /* 0 off, 1 left, -1 right, 2 hazard */
    unsigned colour;      /* a hash of the id: the same car keeps its colour */
    char model[32];       /* its model's name ("car", "bus"...; models.c) */
} rn_agent;

/* traffic.state through sim_msg_traffic_state_decode: "pos", "heading", "size",
 * "velocity", "id", "brake" (bool), "indicator" ("left", "right", "hazard", "off").
 * Returns how many cars (at most max) or SIM_EINVAL naming the field; an entry with a
 * bad or missing field is an error. */
int rn_traffic_decode(const cJSON *msg, rn_agent *out, int max, sim_error *err);

#endif
