/* sumo: the traffic node's SUMO co-simulation (docs/traffic.md, "SUMO").
 *
 * With "traffic": {"engine": "sumo"} the surrounding traffic is SUMO's: at setup the
 * node makes the network (netconvert from the scenario's OpenDRIVE file, or from its
 * JSON roads exported to OpenDRIVE by sim_xodr_write, without normalising the offset,
 * so SUMO's x, y are the scenario's), the demand (the route
 * files the scenario names, or randomTrips.py with the scenario's seed) and starts
 * `sumo` on loopback at a free port, with the session's step length and the scenario's
 * seed. On every sim.tick one TraCI message moves the ego into SUMO (moveToXY), steps
 * SUMO to the tick's time and asks for the ego's leader; the vehicles within the radius
 * come back through one context subscription around the ego. Nothing SUMO does is
 * hidden: a SUMO that is missing, fails or dies is an error the node names.
 *
 * Ownership: tn_sumo owns the SUMO process, its socket and its buffers; the scenario is
 * the caller's and must outlive it. */
#ifndef TRAFFIC_NODE_SUMO_H
#define TRAFFIC_NODE_SUMO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "sim_msg_traffic.h"
#include "sim_msg_traffic_engine.h"
#include "sim_scenario.h"
#include "sim_traci.h"
#include "sumo_lights.h"
#include "sumo_persons.h"

typedef struct tn_sumo_ego {
    bool valid;
    double x, y, heading, speed; /* centre, rad, m/s */
    double length, width;
} tn_sumo_ego;

typedef struct tn_sumo {
    /* set before tn_sumo_open */
    const sim_scenario *sc;
    const char *dir;              /* where the network, demand and SUMO's log go (created) */
    double step_s;                /* SUMO's step length */
    double radius;                /* m: the context subscription around the ego */
    int max_vehicles;             /* per traffic.state */
    /* what was made and started */
    char sumo_bin[1024];
    char net[1100], routes[4400];
    double off_x, off_y;          /* SUMO's x, y = the scenario's + this (the net's netOffset) */
    char version[64];             /* "SUMO 1.15.0" */
    int api;                      /* TraCI API version */
    char options[2048];           /* SUMO's command line, for the drive log's meta */
    pid_t pid;
    int fd;
    bool patient;                 /* the warm-up: no answer timeout while SUMO lives */
    int port;
    double t;                     /* SUMO's time, s */
    bool ego_in, subscribed;
    double scale;                 /* the demand's multiplier (simctl traffic density) */
    bool scale_pending;
    bool frozen;
    double held;                  /* s of session time frozen: SUMO's clock is behind by it */
    double session_t;             /* the session's time at the last step call */
    bool have_session_t;
    bool move_failed_said;
    /* the last step's result */
    sim_msg_traffic_vehicle vehicles[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    double dist[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    int n_vehicles;
    int total;                    /* vehicles in SUMO (the ego not counted) */
    sim_msg_traffic_lead lead;
    char lead_id[64];
    double lead_gap;
    tn_sumo_ego ego;
    tn_sumo_lights lights;        /* SUMO's traffic lights (sumo_lights.h) */
    /* buffers */
    sim_traci_buf out;
    unsigned char *in;
    size_t in_cap;
} tn_sumo;

/* Makes the network and demand (when needed) and starts SUMO; err names what is
 * missing (the program and how to install it) or what failed (and SUMO's log). */
int tn_sumo_open(tn_sumo *s, sim_error *err);
/* A fresh SUMO at the start (network and demand as made), the scale kept. */
int tn_sumo_restart(tn_sumo *s, sim_error *err);
void tn_sumo_close(tn_sumo *s);
/* Moves the ego into SUMO and steps it to t (nothing when t is not past SUMO's time).
 * SIM_ECLOSED with err saying how SUMO ended when it is gone. */
int tn_sumo_step(tn_sumo *s, double t, const tn_sumo_ego *ego, sim_error *err);
/* The demand's multiplier, sent with the next step; at least TN_SUMO_MIN_SCALE. */
#define TN_SUMO_MIN_SCALE 0.05
void tn_sumo_set_scale(tn_sumo *s, double scale);
/* traffic.state for the last step (caller frees; NULL: out of memory). */
cJSON *tn_sumo_state_payload(tn_sumo *s, int run);
/* traffic.engine's payload: SUMO's version and command line (caller frees). */
cJSON *tn_sumo_meta(const tn_sumo *s);

/* Completes v (SUMO's vehicle or person at v->pos, to 1 mm, v->heading) with the road,
 * lane, s and height of the scenario's own road model (drivable lanes only for
 * vehicles) and lists it with its distance from the ego, unless it is beyond the radius
 * or the list is full. */
void tn_sumo_list(tn_sumo *s, sim_msg_traffic_vehicle *v, bool drivable_only);

/* sumo_proc.c: programs, the process and the socket */
int tn_sumo_find_tools(tn_sumo *s, sim_error *err);
int tn_sumo_make_inputs(tn_sumo *s, sim_error *err);
int tn_sumo_start(tn_sumo *s, sim_error *err);
void tn_sumo_stop(tn_sumo *s);
/* Runs a tool (netconvert, randomTrips.py) to its end, its output into dir/log_name;
 * err names how it failed and its log's last line. */
int tn_sumo_run_tool(const tn_sumo *s, char *const argv[], const char *log_name, sim_error *err);
/* Sends s->out (a finished message) and reads the answer into s->in; *len its size. */
int tn_sumo_exchange(tn_sumo *s, size_t *len, sim_error *err);

#endif
