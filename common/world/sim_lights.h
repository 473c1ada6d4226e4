/* sim_lights: traffic lights, the pure model: signal heads, controllers with fixed-time
 * phases, and their state at a simulation time (docs/scenario.md "Traffic lights").
 *
 * A head stands beside a road (OpenDRIVE <signal> of a traffic-light type, or the
 * scenario's `traffic_lights.heads`) and controls the traffic that travels in its
 * orientation past its stop line. A controller owns some heads and cycles through its
 * phases: each phase lasts `duration` seconds and gives each of its heads one state.
 * Phase 0 starts at t = offset, then the cycle repeats for ever. A head no controller
 * owns stays dark (off) until the operator or a storyboard sets it.
 *
 * The operator (and OpenSCENARIO's TrafficSignalStateAction) can hold a head in a
 * state (until set back to auto), or move a controller to a phase now (it runs on from
 * there). sim_lights_update computes every head's state at t and says which changed.
 *
 * Pure: no I/O, no globals, no clock (t is given). Ownership: sim_lights owns its heads
 * and controllers (ids, head lists, phases' state arrays); sim_lights_free releases it.
 * A sim_lights_run owns its arrays (sim_lights_run_free). */
#ifndef SIM_LIGHTS_H
#define SIM_LIGHTS_H

#include <stdbool.h>

#include "sim_error.h"

typedef enum {
    SIM_SIGNAL_OFF,
    SIM_SIGNAL_RED,
    SIM_SIGNAL_RED_AMBER,     /* red and amber together: about to turn green */
    SIM_SIGNAL_AMBER,
    SIM_SIGNAL_GREEN,
    SIM_SIGNAL_FLASHING_AMBER,
    SIM_SIGNAL_STATE_COUNT
} sim_light_state;

#define SIM_SIGNAL_AUTO (-1)  /* sim_lights_set_head: back to the controller's state */

typedef enum { SIM_HEAD_VEHICLE, SIM_HEAD_PEDESTRIAN } sim_head_kind;

typedef struct sim_light_head {
    char *id;                /* owned; unique among the heads */
    sim_head_kind kind;
    int road;                /* road index, -1: stands free (no stop line) */
    double s, t;             /* where it stands on the road, m */
    int orientation;         /* +1: controls traffic along s, -1: against s, 0: both */
    int lane_from, lane_to;  /* only these lane ids (from <= to); both 0: all lanes */
    double stop_s;           /* road s of its stop line (the head's s unless given) */
    double x, y, z;          /* world position of the post's foot */
    double heading;          /* rad: the way its face looks (towards the traffic it controls) */
    double z_offset;         /* m from the ground to the bottom of the head */
    double height, width;    /* m of the head */
    int controller;          /* index, -1: none */
} sim_light_head;

typedef struct sim_light_phase {
    double duration;         /* s, > 0 */
    sim_light_state *states; /* one per head of the controller, in its `heads` order; owned */
} sim_light_phase;

typedef struct sim_light_controller {
    char *id;                /* owned */
    int *heads;              /* head indices; owned */
    int n_heads;
    sim_light_phase *phases; /* owned */
    int n_phases;
    double offset;           /* s: when phase 0 first begins */
} sim_light_controller;

/* A group of heads that switch together: an OpenDRIVE <controller> (its <control>
 * signals), perhaps named by a junction's <controller> entry with a sequence. A group
 * runs nothing by itself: sim_lights_group_defaults gives it a fixed-time program when
 * no other controller runs its heads (sim_lights_groups.c). */
typedef struct sim_light_group {
    char *id;                /* owned: the OpenDRIVE controller's id */
    int *heads;              /* head indices; owned */
    int n_heads;
    int junction;            /* road network junction index, -1: none names it */
    int sequence;            /* its order at that junction (OpenDRIVE `sequence`, 0 when absent) */
    int controller;          /* the default program's controller index, -1: none runs (another
                                controller owns one of its heads, or its id was taken) */
} sim_light_group;

typedef struct sim_lights {
    sim_light_head *heads;
    int n_heads, cap_heads;
    sim_light_controller *ctls;
    int n_ctls, cap_ctls;
    sim_light_group *groups;
    int n_groups, cap_groups;
    int n_default;           /* the last n_default controllers are groups' default programs */
} sim_lights;

void sim_lights_free(sim_lights *L);
/* Appends a copy of *h (its id copied; controller set to -1). Returns the index, or
 * SIM_EINVAL (no id, or an id already used) / SIM_ENOMEM, with err naming it. */
int sim_lights_add_head(sim_lights *L, const sim_light_head *h, sim_error *err);
/* Appends a controller of n_heads heads (indices) with n_phases phases, the states of
 * phase p at states[p * n_heads ...] (all copied). Each head joins this controller.
 * SIM_EINVAL naming the problem: no id or a repeated one, no heads or phases, a head
 * index out of range or owned by another controller, a duration not > 0, a state out
 * of range. */
int sim_lights_add_controller(sim_lights *L, const char *id, const int *heads, int n_heads,
                              const double *durations, const sim_light_state *states, int n_phases,
                              double offset, sim_error *err);
int sim_lights_find_head(const sim_lights *L, const char *id);
int sim_lights_find_controller(const sim_lights *L, const char *id);
/* Appends a group (id and heads copied; junction -1 until set). SIM_EINVAL naming it
 * for no id, an id used by another group, a head out of range or twice; SIM_ENOMEM. */
int sim_lights_add_group(sim_lights *L, const char *id, const int *heads, int n_heads, sim_error *err);
int sim_lights_find_group(const sim_lights *L, const char *id);

/* The default fixed-time program (docs/scenario.md, "OpenDRIVE controllers"): each
 * group at a junction gets a slot of GREEN + AMBER + ALL_RED seconds in turn (by its
 * sequence, then its order in the file), so that the groups of one junction alternate;
 * the cycle is the slots of all its groups (a group alone, or at a junction with no
 * other group, as if it had one partner: a red slot). A vehicle head shows green, amber,
 * red, and red-and-amber for the last RED_AMBER second before its green; a pedestrian
 * head green in the green time and red otherwise. */
#define SIM_LIGHTS_DEFAULT_GREEN 20.0
#define SIM_LIGHTS_DEFAULT_AMBER 3.0
#define SIM_LIGHTS_DEFAULT_ALL_RED 2.0
#define SIM_LIGHTS_DEFAULT_RED_AMBER 1.0
/* Drops the default programs made before, then gives each group none of whose heads
 * another controller runs a controller of its own id with the default program (phases:
 * green, amber, red, red_amber; offset: its slot's start); the group's `controller`
 * says which, or -1. Call it after every other controller is in (again after adding
 * more: sim_lights_drop_defaults first). Returns how many groups run, or SIM_ENOMEM. */
int sim_lights_group_defaults(sim_lights *L, sim_error *err);
/* Removes the default programs (the last n_default controllers); their heads are free. */
void sim_lights_drop_defaults(sim_lights *L);

/* Seconds of one whole cycle of controller c. */
double sim_lights_cycle(const sim_lights *L, int c);

/* "off", "red", "red_amber", "amber", "green", "flashing_amber"; and back (-1: unknown). */
const char *sim_light_state_name(sim_light_state s);
int sim_light_state_parse(const char *name);
/* Must traffic stop at the line for this state (red, red and amber, amber)? */
bool sim_light_state_stops(sim_light_state s);

/* The running lights: every head's state now, the operator's holds, where each
 * controller's cycle stands. */
typedef struct sim_lights_run {
    sim_light_state *state;  /* per head, as of the last update */
    bool *changed;           /* per head: changed in the last update */
    int *hold;               /* per head: a held state, or SIM_SIGNAL_AUTO */
    double *t0;              /* per controller: the time its cycle (phase 0) is counted from */
    int n_heads, n_ctls;
    bool started;            /* an update has been made (the first reports every head) */
} sim_lights_run;

/* A fresh run: nothing held, each controller's phase 0 at its offset. SIM_ENOMEM. */
int sim_lights_run_init(sim_lights_run *R, const sim_lights *L, sim_error *err);
void sim_lights_run_free(sim_lights_run *R);
/* Every head's state at t into R->state; R->changed marks those that differ from the
 * previous update (every head on the first). Returns how many changed. */
int sim_lights_update(const sim_lights *L, sim_lights_run *R, double t);
/* Controller c's phase at t (ignoring holds). */
int sim_lights_phase_at(const sim_lights *L, const sim_lights_run *R, int c, double t);
/* Holds head h in state (SIM_SIGNAL_AUTO: back to its controller). SIM_EINVAL for a
 * head or state out of range. Takes effect at the next update. */
int sim_lights_set_head(sim_lights_run *R, int h, int state);
/* Moves controller c to the start of phase p at time t; it cycles on from there.
 * Releases the holds on its heads. SIM_EINVAL for c or p out of range. */
int sim_lights_set_phase(const sim_lights *L, sim_lights_run *R, int c, int p, double t);

#endif
