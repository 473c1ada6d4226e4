/* xosc: an OpenSCENARIO scenario's storyboard in the traffic node (docs/openscenario.md):
 * loaded with the node's --params and --ego, started with every (re)start of the world,
 * stepped on every tick beside the traffic core, its entities published in
 * traffic.state and its element transitions as storyboard.event. The ego entity is the
 * person's car (its pose from vehicle.state) unless --scenario-ego lets the storyboard
 * drive it (then published as traffic.ego, for physics to put the car there). Nothing here for a JSON scenario (every call returns at once). */
#ifndef TRAFFIC_NODE_XOSC_H
#define TRAFFIC_NODE_XOSC_H

#include "state.h"

/* Loads the scenario (a .xosc with w's overrides and ego name, anything else as ever). */
int tn_xosc_load(tn_world *w, const char *path, sim_error *err);
/* A fresh storyboard for a fresh world. */
int tn_xosc_start(tn_world *w, sim_error *err);
void tn_xosc_stop(tn_world *w);
/* The person's car (its centre, as vehicle.state gives it) for the storyboard's ego. */
void tn_xosc_set_ego(tn_world *w, double x, double y, double heading, double speed);
/* One storyboard step ending at time t: its signal conditions read the lights' state,
 * its signal actions set heads (changes published with the tick's). */
void tn_xosc_step(tn_world *w, double dt, double t);
/* Storyboard entities near the ego into out (at most max; never the ego itself); *lead gets the nearest one ahead in the ego's path when the
 * storyboard has one. Returns how many. */
int tn_xosc_vehicles(tn_world *w, sim_msg_traffic_vehicle *out, int max, sim_msg_traffic_lead *lead);
/* The storyboard's events of the last step: how many, and the payload of event k. */
int tn_xosc_n_events(const tn_world *w);
cJSON *tn_xosc_event_payload(const tn_world *w, int k);
/* traffic.collision payloads (at most max) for the storyboard entities whose boxes
 * began to touch the ego entity's this step (the ego: the person's car or, with
 * --scenario-ego, the storyboard's own). Returns how many. */
int tn_xosc_collisions(tn_world *w, cJSON **out, int max);
/* With --scenario-ego, the traffic.ego payload: where the storyboard has its ego (physics
 * puts the car there); NULL without. */
cJSON *tn_xosc_ego_payload(const tn_world *w);
/* True once, the step the storyboard's stop trigger fired (the node says sim.end). */
bool tn_xosc_ended_now(tn_world *w);

#endif
