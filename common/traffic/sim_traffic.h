/* sim_traffic: surrounding traffic, the pure core (docs/traffic.md).
 *
 * Agents drive on a sim_lanegraph. Each step every agent perceives the traffic of the
 * previous step through a per-lane index sorted by s (the ego included as an obstacle),
 * decides an acceleration, lane changes and junction entry, and then all agents move.
 * Two longitudinal models: the paper's zone model (ideal vs measured velocity, a
 * critical zone of full braking, a speed-dependent warning zone that starts an
 * overtaking attempt with a shoulder check) and IDM with MOBIL lane changes. Both obey
 * the lane's speed limit, slow down ahead of curves, keep right, and give way at
 * junctions (signs, else priority to the right, with a tie-break so that four arriving
 * together do not deadlock).
 *
 * Ambient traffic is spawned and removed around the ego to hold a density (vehicles
 * per km per lane); triggers set off lane switches, abrupt braking, HUD texts and log
 * marks and are reported as events. The ego's lead vehicle (gap, THW, TTC) is
 * computed each step.
 *
 * Determinism: everything follows from the parameters (seed), the agents added, the
 * ego poses given and the step sizes; no clock, no globals, no allocation after
 * sim_traffic_init (capacity fixed there). Ownership: the world owns its arrays; the
 * lane graph and the trigger array are borrowed and must outlive it. */
#ifndef SIM_TRAFFIC_H
#define SIM_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_error.h"
#include "sim_lanegraph.h"
#include "sim_lights.h"

#define SIM_TRAFFIC_MAX_EVENTS 64 /* events kept per step; more are counted in `lost_events` */

typedef enum { SIM_TRAFFIC_ZONES, SIM_TRAFFIC_IDM } sim_traffic_model;

typedef struct sim_traffic_behaviour {
    double desired_speed;      /* m/s */
    double headway;            /* desired time gap, s */
    double max_accel, max_decel; /* comfortable, m/s^2 */
    double min_gap;            /* standstill gap, m */
    double politeness;         /* MOBIL, 0..1 */
    bool lane_changes;         /* may change lanes by itself */
} sim_traffic_behaviour;

typedef struct sim_traffic_params {
    sim_traffic_model model;
    uint32_t seed;
    int max_agents;            /* capacity (scenario and ambient agents) */
    double emergency_decel;    /* full braking, m/s^2 (9) */
    double lat_accel;          /* lateral acceleration accepted in curves, m/s^2 (2) */
    double reaction_time;      /* critical zone: min_gap + v * this + braking difference, s (0.3) */
    double warning_time;       /* warning zone: min_gap + v * this, s (3) */
    double detect_radius;      /* detection zone radius: look-ahead and shoulder check, m (150) */
    double lane_change_time;   /* s (4) */
    double safe_decel;         /* most a lane change may demand of the new follower, m/s^2 (3) */
    double approach_dist;      /* junction approach zone before the stop line, m (35) */
    double density;            /* ambient vehicles per km per lane (0: none) */
    double ambient_radius;     /* m around the ego where ambient traffic lives (600) */
    double ambient_min_dist;   /* m: ambient vehicles appear no nearer the ego (150) */
    bool all_pairs;            /* find neighbours by testing every vehicle, not through the
                                  sorted index: the benchmark's baseline (same results) */
} sim_traffic_params;

void sim_traffic_params_default(sim_traffic_params *p);

/* Vehicle models: name and size. */
typedef struct sim_traffic_vmodel {
    const char *name;
    double length, width, height;
} sim_traffic_vmodel;
extern const sim_traffic_vmodel sim_traffic_vmodels[];
extern const int sim_traffic_n_vmodels;
/* Index of the model called name, or 0 (car) when unknown. */
int sim_traffic_vmodel_find(const char *name);

/* What sim_traffic_add_agent places. */
typedef struct sim_traffic_spec {
    int model;                 /* sim_traffic_vmodels index */
    int lane;                  /* graph lane */
    double s, speed;           /* m, m/s (speed < 0: the desired speed) */
    sim_traffic_behaviour b;
    const int *route;          /* road indices in driving order (copied); NULL: free */
    int n_route;
} sim_traffic_spec;

typedef struct sim_traffic_agent {
    bool active, ambient;
    bool external;             /* another cab's car (docs/cabs.md): placed from outside at every
                                  step (sim_traffic_place_external), never driven or removed */
    uint32_t uid;              /* unique per world, from 1; scenario agents 1..n in order */
    int model;
    double length, width, height;
    sim_traffic_behaviour b;
    int lane;                  /* graph lane of the vehicle's centre */
    double s, lat, v, a;       /* centre at s, lat m left of the lane centre; speed, accel */
    int lane2;                 /* second lane it covers (lane-change origin, or the lane its
                                  rear still overhangs), -1: none */
    double s2;                 /* s in lane2 */
    bool lane2_behind;         /* lane2 is the lane before (overhang), not a neighbour */
    int idx_pos;               /* its entry in the index (lane, s) this step */
    int prev_lane;             /* where it was before this step's move (triggers) */
    double prev_s;
    int next_lane;             /* where it goes at the lane's exit, -1: leaves / must change */
    int want_lane;             /* a lane change it must make (route, trigger), -1: none */
    bool lc_active;            /* changing lanes: lat runs to 0 */
    double lc_rate;            /* m/s of lateral motion during the change */
    int route0, n_route, route_i; /* route in the world's pool; n_route 0: free */
    int reserved;              /* junction lane it may enter, -1: none */
    double wait_since;         /* when it began waiting at a junction, -1: not waiting */
    bool stopped_at_sign;
    double brake_decel, brake_left; /* a trigger's abrupt braking still to run */
    double vcap, vcap_floor, vcap_s; /* cached look ahead at limits and curves (squared
                                  speed cap at vcap_s and the lowest squared speed in
                                  reach, see speed_cap) and where it was taken */
    int vcap_lane;
    bool brake_light, ind_left, ind_right;
    double x, y, heading;      /* world pose of the centre */
    uint64_t rng;
} sim_traffic_agent;

typedef struct sim_traffic_ego {
    bool valid, on_lane;
    double x, y, heading, speed, length, width;
    sim_lg_pos pos;
    int lane2;
} sim_traffic_ego;

/* The ego's lead vehicle: nearest vehicle ahead in the ego's lane along its path. */
typedef struct sim_traffic_lead {
    bool valid;
    int agent;                 /* agent slot */
    double gap;                /* bumper to bumper, m */
    double speed;              /* the lead's, m/s */
    double thw, ttc;           /* s; INFINITY when not defined (ego stopped, not closing) */
} sim_traffic_lead;

typedef enum { SIM_TT_EGO, SIM_TT_ANY, SIM_TT_AGENT } sim_traffic_by;
typedef enum { SIM_TA_LANE_SWITCH, SIM_TA_BRAKE, SIM_TA_HUD_TEXT, SIM_TA_LOG_MARK } sim_traffic_action;

typedef struct sim_traffic_trigger {
    int road;                  /* road index (as the lane graph names roads) */
    double s_start, s_end;
    const int *lanes;          /* lane ids of the zone (borrowed); NULL: all */
    int n_lanes;
    sim_traffic_by by;
    int by_agent;              /* agent slot for SIM_TT_AGENT */
    bool once;
    sim_traffic_action action;
    int agent;                 /* lane_switch, brake: agent slot */
    int lane;                  /* lane_switch: lane id on the agent's road */
    double decel, duration;
} sim_traffic_trigger;

typedef struct sim_traffic_event {
    int trigger;               /* index */
    int by;                    /* agent slot that set it off, -1: the ego */
} sim_traffic_event;

/* A traffic light's stop line on a graph lane (sim_traffic_setup makes them from the
 * road network's heads): agents halt before it while its head shows red, red and
 * amber, or amber, when they can stop comfortably (docs/traffic.md "Traffic lights"). */
typedef struct sim_traffic_stop {
    int lane;                  /* graph lane */
    double s;                  /* lane s of the line */
    int head;                  /* index into the states array of sim_traffic_set_lights */
} sim_traffic_stop;

typedef struct sim_tidx {      /* one entry of the sorted neighbour index */
    int agent;                 /* slot; the ego is cap */
    int lane;
    double s;
} sim_tidx;

typedef struct sim_traffic {
    const sim_lanegraph *g;
    sim_traffic_params p;
    sim_traffic_agent *agents;
    int cap, n_slots;          /* slots in use are 0 .. n_slots-1 (some inactive) */
    int n_active, n_ambient;
    int *route_pool;
    int n_route_pool, cap_route_pool;
    /* index: entries of lane L are idx[lane_start[L] .. lane_start[L+1]-1], ascending s */
    sim_tidx *idx, *idx_tmp;
    int n_idx, *lane_start, *lane_count;
    int *occ;                  /* per lane: vehicles on it or holding it (junction lanes) */
    int *spawn_pts;            /* ambient: candidate samples (scratch) */
    const sim_traffic_trigger *triggers;
    int n_triggers;
    bool *fired, *ego_in;
    uint32_t *stamp;           /* scratch per slot while building the index */
    sim_traffic_event events[SIM_TRAFFIC_MAX_EVENTS];
    int n_events, lost_events;
    sim_traffic_ego ego;
    sim_traffic_lead lead;
    double t;
    uint64_t steps;
    bool frozen;
    double density_scale;      /* 0..1 of params.density */
    double ambient_timer;
    bool ambient_filled;
    uint64_t rng;
    uint32_t next_uid;
    /* traffic lights (sim_traffic_lights.c): borrowed stop lines and head states */
    const sim_traffic_stop *stops;
    int n_stops;
    const sim_light_state *light_states;
    int ego_ran_red;           /* head whose stop line the ego crossed on red since this was
                                  last reset to -1 (the node resets it), -1: none */
    double ego_ran_red_speed;  /* m/s as it crossed */
} sim_traffic;

/* Allocates everything for p->max_agents agents. */
int sim_traffic_init(sim_traffic *t, const sim_lanegraph *g, const sim_traffic_params *p,
                     sim_error *err);
void sim_traffic_free(sim_traffic *t);
/* Places an agent; returns its slot or SIM_ETOOBIG (full) / SIM_EINVAL (bad lane, s). */
int sim_traffic_add_agent(sim_traffic *t, const sim_traffic_spec *spec, bool ambient, sim_error *err);
void sim_traffic_set_triggers(sim_traffic *t, const sim_traffic_trigger *tr, int n);
/* The ego for the next step: centre pose, speed (m/s), size. */
void sim_traffic_set_ego(sim_traffic *t, double x, double y, double heading, double speed,
                         double length, double width);
/* Traffic lights: the stop lines (borrowed, may be NULL with n 0) and the state of
 * each head they name (borrowed, read at every step: the caller updates it in place). */
void sim_traffic_set_lights(sim_traffic *t, const sim_traffic_stop *stops, int n,
                            const sim_light_state *states);
/* Advances dt seconds (events of this step in t->events). Frozen: nothing moves. */
void sim_traffic_step(sim_traffic *t, double dt);
/* The world speed of an agent as published (0 while frozen). */
double sim_traffic_agent_speed(const sim_traffic *t, int slot);
/* Another cab's car (docs/cabs.md): an agent of the given size that the caller places
 * before every step (sim_traffic_place_external); the agents see it as any vehicle
 * (leaders, gaps, the ego's lead), it is never driven, spawned or removed. Inactive
 * until placed on a lane. Returns its slot or a negative error. */
int sim_traffic_add_external(sim_traffic *t, double length, double width, sim_error *err);
/* Puts external agent slot at centre (x, y), heading, speed (m/s); off every lane in
 * its direction of travel it is inactive (no agent sees it) until back on one. */
void sim_traffic_place_external(sim_traffic *t, int slot, double x, double y, double heading, double speed);

/* At most max active agents within radius of (x, y), nearest first (ties: slot), into
 * out; returns how many. */
int sim_traffic_nearest(const sim_traffic *t, double x, double y, double radius, int *out, int max);

#endif
