/* state: the traffic node's world and what it publishes (traffic.state, traffic.event,
 * hud.text), apart from the bus so that it reads as the node's logic. */
#ifndef TRAFFIC_NODE_STATE_H
#define TRAFFIC_NODE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_msg_traffic.h"
#include "sim_scenario.h"
#include "sim_storyboard.h"
#include "sim_xosc.h"
#include "sim_cab.h"
#include "sim_traffic.h"
#include "sim_traffic_setup.h"

#define TN_MAX_CONTACTS 16   /* vehicles the ego can touch at once that are told apart */
#define TN_CONTACT_MARGIN 0.05 /* m: boxes this close count as touching (docs/traffic.md) */

#define TN_MAX_CABS 8

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
    /* an OpenSCENARIO scenario's storyboard (xosc.c) */
    bool have_sb;
    sim_storyboard sb;
    bool sb_drives_ego;            /* --scenario-ego: the storyboard drives the ego entity too */
    const char *ego_name;          /* --ego NAME, NULL: the rule (docs/openscenario.md) */
    sim_xosc_override ov[32];      /* --params */
    int n_ov;
    bool sb_ended;                 /* sim.end published for this run */
    sim_lights_run lights;         /* the traffic lights (lights.c) */
    bool *sb_touching;             /* per storyboard entity: its box touched the ego's last step */
    sim_msg_traffic_vehicle vehicles[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    int order[SIM_MSG_TRAFFIC_MAX_VEHICLES];
    /* the other cabs' cars (docs/cabs.md): external agents, id "cab.NAME" in
     * traffic.state; emptied at every restart */
    struct {
        char name[SIM_CAB_NAME_MAX + 1];
        int slot;
    } cabs[TN_MAX_CABS];
    int n_cabs;
    const char *ego_cab; /* the cab the ego belongs to (SIM_CAB), NULL: none */
} tn_world;

/* Another cab's car (cab.NAME.vehicle.state, docs/cabs.md) at centre (x, y),
 * heading, speed: an agent every agent reacts to, added at its first state. */
void tn_world_place_cab(tn_world *w, const char *cab, double x, double y, double heading, double speed);

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
/* Restart with state (docs/traffic.md): after every tick the node writes its world to
 * one of two files, PATH.0 and PATH.1 in turns (mode 0600), with the run, the tick's
 * time and a tag of the session (a hash of $SIM_BUS_SECRET). A node started with the
 * same PATH takes the newer whole one back when the tag matches (a later session never
 * does): *t is the time of the last tick it had. tn_snapshot_load: SIM_ENOTFOUND when
 * there is none to take. Close with remove at a clean stop. */
typedef struct tn_snapshot {
    char path[2][4200];
    int fd[2];
    int next;                      /* the slot the next save writes */
    uint64_t serial;
    unsigned char *buf;
    size_t cap;
} tn_snapshot;
int tn_snapshot_open(tn_snapshot *s, const char *path, sim_error *err);
int tn_snapshot_save(tn_snapshot *s, const tn_world *w, double t, sim_error *err);
int tn_snapshot_load(tn_snapshot *s, tn_world *w, double *t, sim_error *err);
void tn_snapshot_close(tn_snapshot *s, bool remove);

#endif
