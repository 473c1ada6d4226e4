/* script: the scripted driver of the input node.
 *
 * Either follows a scenario's ideal path (the start point's road from the start on,
 * laterally at the ideal lane d_ideal(s) of the tasks on that road, turned into
 * world-frame points through the road geometry) at the road's speed limit or a given
 * speed, using sim_driver and the vehicle.state feedback; or replays a recorded input
 * stream against simulation time. The node owns the struct. */
#ifndef INPUT_NODE_SCRIPT_H
#define INPUT_NODE_SCRIPT_H

#include <stdbool.h>

#include "sim_controls.h"
#include "sim_driver.h"
#include "sim_error.h"
#include "lights.h"
#include "yield.h"

#define IN_SCRIPT_MAX_TRAFFIC 64 /* vehicles of traffic.state looked at for giving way */

typedef struct in_script_options {
    const char *scenario;   /* scenario file (path following) */
    const char *start;      /* start point name; NULL: the first */
    const char *replay;     /* NDJSON of input.controls: replay instead */
    double target_kmh;      /* > 0: this speed instead of the speed limits */
} in_script_options;

typedef struct in_script {
    in_script_options opts;    /* strings borrowed from the caller (argv) */
    char start[128];        /* start point the path begins at ("": the first) */
    bool replaying;
    sim_driver_replay replay;
    sim_driver_path path;
    double *limit;          /* speed limit (m/s, 0 none) at each path point; owned */
    sim_driver drv;
    double target_override; /* m/s; 0: the speed limits */
    double operator_limit;  /* m/s from control.speed_limit; 0: the road's limits */
    sim_controls last;      /* controls for the latest vehicle state */
    bool lead_valid;        /* the vehicle ahead, from traffic.state */
    double lead_gap, lead_speed;
    in_junction_span *spans; /* where the path crosses junctions; owned */
    int n_spans;
    sim_msg_traffic_vehicle traffic[IN_SCRIPT_MAX_TRAFFIC]; /* the newest traffic.state's */
    int n_traffic;
    in_lights lights;       /* the traffic lights on the path (lights.h) */
} in_script;

int in_script_open(in_script *sc, const in_script_options *o, sim_error *err);
void in_script_close(in_script *sc);

/* A new vehicle state: the path follower computes its controls. */
void in_script_on_state(in_script *sc, const sim_driver_obs *obs);
/* The vehicle ahead of the car (traffic.state's lead; valid false: none): the path
 * follower keeps a time gap behind it instead of driving into it. */
void in_script_set_lead(in_script *sc, bool valid, double gap, double speed);
/* The vehicles around (traffic.state's, nearest first): the driver gives way at
 * junctions (yield.h). */
void in_script_set_traffic(in_script *sc, const sim_msg_traffic_vehicle *v, int n);
/* signal.state: the driver stops at red lines (lights.h). */
void in_script_set_light(in_script *sc, const char *id, const char *state);
/* The controls at simulation time t. */
void in_script_controls(in_script *sc, double t, sim_controls *out);
/* control.speed_limit: kmh replaces the road's limits (0: back to them); a speed
 * given with --target-kmh is capped by it. */
void in_script_speed_limit(in_script *sc, double kmh);
/* The run restarted with the car at start point `at` (NULL: where it started): the
 * path is rebuilt from there and the controller starts afresh. On an error (say, an
 * unknown start point) the old path stays. at is copied. */
int in_script_restart(in_script *sc, const char *at, sim_error *err);

#endif
