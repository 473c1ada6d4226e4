/* sumo_lights: SUMO's traffic lights on signal.state (docs/traffic.md, "SUMO's traffic
 * lights").
 *
 * At each (re)start of SUMO the node asks once for every light (trafficlight.getIDList),
 * the links each of its signal indices controls (getControlledLinks) and the shapes and
 * widths of their incoming lanes (lane.getShape, getWidth): one head per signal index
 * (SUMO's "controlled link set"), id "sumo:LIGHT:INDEX", its stop line across the ends
 * of its incoming lanes, its post on the kerb to the right of its approach (the heads of
 * one approach side by side, 0.45 m apart, in index order). Then one variable
 * subscription per light brings its state string with every step; a head whose letter
 * changed goes out as signal.state with its place (sim_msg_signal_where). The ego's
 * front crossing a stop line on red or red-and-amber gives signal.red_run.
 *
 * SUMO's letters (https://sumo.dlr.de/docs/Simulation/Traffic_Lights.html): r red,
 * y amber, u red_amber, G and g green (g: yield to the priority streams), s red
 * (SUMO's "green right-turn arrow": stop, then go; the lamp is red), o flashing_amber,
 * O off.
 *
 * Ownership: the tn_sumo_lights belongs to its tn_sumo (sumo.h), which frees it. */
#ifndef TRAFFIC_NODE_SUMO_LIGHTS_H
#define TRAFFIC_NODE_SUMO_LIGHTS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_lights.h"
#include "sim_msg_signal.h"
#include "sim_traci.h"

struct tn_sumo;

typedef struct tn_sumo_head {
    char id[64];                 /* "sumo:LIGHT:INDEX" */
    int light, signal;           /* index into the lights' ids; index into its state string */
    char from_lane[64];          /* SUMO's incoming lane of its first link */
    char road[64];               /* the scenario's road at its stop line ("" when none) */
    sim_msg_signal_where where;  /* in the scenario's coordinates */
    sim_light_state state;
    bool known, changed;
} tn_sumo_head;

typedef struct tn_sumo_lights {
    char (*ids)[64];             /* SUMO's light ids */
    int n_ids;
    tn_sumo_head *heads;
    int n_heads, cap_heads;
    bool have_front;             /* the ego's front at the last step */
    double front[2];
    int red_run;                 /* the head the ego crossed on red at the last step, -1: none */
    double red_run_speed;
} tn_sumo_lights;

/* SUMO's letter as a state (-1: not a letter SUMO uses). Pure. */
int tn_sumo_light_letter(char c);
/* Where a head stands from its incoming lane's end (the last two points of its shape,
 * (x0,y0)->(x1,y1), in the scenario's coordinates) and width, the rightmost lane of its
 * approach likewise, and how many heads of the approach come before it. Pure. */
void tn_sumo_head_place(const double lane[2][2], double lane_w, const double kerb_lane[2][2], double kerb_w,
                        int before, sim_msg_signal_where *w);
/* Did a point moving from p0 to p1 cross the stop line of w in its direction of travel? */
bool tn_sumo_crossed_line(const sim_msg_signal_where *w, const double p0[2], const double p1[2]);

/* After SUMO answered getVersion: the lights, their heads and the subscriptions (the
 * lights are fresh: every head goes out with the first step). */
int tn_sumo_lights_setup(struct tn_sumo *s, sim_error *err);
void tn_sumo_lights_free(tn_sumo_lights *L);
/* A step's light result (sim_traci_object of response 0xe2); false when not one. */
bool tn_sumo_lights_on_object(struct tn_sumo *s, const sim_traci_object *o);
/* After a step: the ego's front against the stop lines. */
void tn_sumo_lights_after_step(struct tn_sumo *s);
/* signal.state of head h (caller frees; NULL: out of memory); clears its changed mark. */
cJSON *tn_sumo_light_payload(struct tn_sumo *s, int h);
/* signal.red_run when the ego crossed a line on red at the last step, else NULL. */
cJSON *tn_sumo_red_run_payload(struct tn_sumo *s);

#endif
