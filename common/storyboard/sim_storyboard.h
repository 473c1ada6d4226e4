/* sim_storyboard: runs an OpenSCENARIO storyboard (sim_sb_model.h) in lockstep on the
 * traffic core's lane graph (docs/openscenario.md). Pure: no I/O, no clock, no
 * globals, no allocation after sim_storyboard_init (but for the routes a routed entity
 * asks common/routing for at a lane's end); the same model, graph, steps and
 * external poses give the same states bit for bit.
 *
 * Entities drive kinematically on graph lanes (lane, s, lateral offset, speed), or
 * along a trajectory in the world; their pose is their reference point (the rear axle,
 * OpenSCENARIO's), bounding boxes come from the model. An entity marked external (the
 * ego driven by a person) takes its pose and speed from sim_storyboard_set_external
 * each step: actions addressed to it run but do not move it, conditions read its real
 * state.
 *
 * One step (sim_storyboard_step): every entity moves dt by its running actions, the
 * time advances, then the triggers are evaluated on the new state (conditions with
 * their edge and delay; a group is an AND, a trigger an OR of groups), elements change
 * state, and actions that start take effect (a step speed change sets the speed the
 * next move uses). Transitions are visible to StoryboardElementStateConditions in the
 * step they happen and the next one. Element state changes are reported as events.
 *
 * Ownership: the storyboard borrows the model and the graph (they must outlive it) and
 * owns its arrays (sim_storyboard_free). */
#ifndef SIM_STORYBOARD_H
#define SIM_STORYBOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_error.h"
#include "sim_lanegraph.h"
#include "sim_sb_model.h"

#define SIM_SB_MAX_EVENTS 64       /* per step; more are counted in lost_events */

typedef struct sim_sb_state_ent {
    bool placed;                   /* has a position (teleported) */
    bool external;                 /* pose from sim_storyboard_set_external */
    bool on_lane;                  /* lane, s, lat valid; else x, y, heading only */
    bool reverse;                  /* on_lane, driving against its lane's direction (a TeleportAction
                                      turned it round): s decreases, heading the lane's + pi */
    int lane;                      /* graph lane */
    double s, lat;                 /* m along the lane, m left of its centre */
    double x, y, heading;          /* reference point, rad */
    double v, a;                   /* m/s, m/s^2 */
    double odometer;               /* m travelled */
    double still_time;             /* s at standstill */
    double eor_time;               /* s at the end of its road */
    double offroad_time;           /* s with its reference point on no lane of the graph */
    bool end_of_road;
    int long_inst, lat_inst, path_inst; /* running action instances, -1: none */
    int goal_lane;                 /* routing: the lane to reach, -1: free */
} sim_sb_state_ent;

typedef struct sim_sb_inst {       /* an action running for one actor */
    int action, element, entity;
    bool running;
    double t0, T;
    double v0, v1;                 /* speed actions */
    double d0, d1;                 /* lateral actions */
    int seg;                       /* trajectory: current segment */
    int pool0;                     /* trajectory: its vertices in the world, px/py[pool0 ..] */
    double along;                  /* trajectory: m along the polyline */
    double acc;                    /* longitudinal distance: the controller's acceleration (jerk limits) */
    int prof0, n_seg;              /* speed profile: its plan, prof[prof0 .. prof0 + n_seg - 1] (seg:
                                      the segment reached) */
} sim_sb_inst;

typedef struct sim_sb_event {
    int element;
    sim_sb_state transition;       /* SIM_SB_TR_* */
} sim_sb_event;

typedef struct sim_storyboard {
    const sim_sb_model *m;
    const sim_lanegraph *g;
    sim_sb_state_ent *ent;
    sim_sb_state *state;           /* per element: standby, running or complete */
    sim_sb_state *trans;           /* per element: its last transition */
    int64_t *trans_step;           /* and the step it happened in (-10: never) */
    int *exec;                     /* per element: completed executions */
    int *inst0;                    /* per action element: its first instance */
    sim_sb_inst *inst;
    int n_inst;
    signed char *last;             /* per condition: last value (edges), -1: never evaluated (an edge
                                      never fires on a first evaluation, as esmini) */
    double *pending;               /* per condition: when a delayed condition holds, NAN: none */
    char (*pvalue)[SIM_SB_NAME];   /* parameter values, ParameterActions change them */
    double *pnum;                  /* a value a ModifyAction computed (NAN: the text is the value) */
    struct sim_route_graph *routes; /* the lane graph for common/routing (sim_route.h): a node
                                      per lane, edges to its successors, its neighbours and theirs */
    double *px, *py;               /* trajectory vertices placed when their action starts */
    int n_pool;                    /* how many of them */
    sim_sb_seg *prof;              /* speed profiles' plans (SIM_SB_PROFILE_CAP of each instance's entries) */
    int n_prof;                    /* room in prof */
    int *starting;                 /* instances whose action starts once every trigger of the
                                      step is evaluated (all see the same state) */
    int n_starting;
    sim_sb_event events[SIM_SB_MAX_EVENTS];
    int n_events, lost_events;
    double t;
    int64_t step;
    bool done;                     /* the storyboard's stop trigger fired */
    bool track_offroad;            /* an OffroadCondition needs offroad_time (a locate per entity and step) */
    int collisions;                /* entity pairs overlapping, counted per step of contact start */
    /* Traffic signals (by OpenDRIVE signal id) and signal controllers (by name) the
     * model's TrafficSignal(Controller)Actions and -Conditions name: the caller feeds
     * what each shows before a step (sim_storyboard_set_signal) and applies the
     * requests after it and after init. */
    const char **sig_name;         /* the model's strings */
    bool *sig_ctl;                 /* a controller (else a signal head) */
    int *sig_state;                /* what it shows: a sim_light_state (SIM_SIGNAL_OFF at first), a
                                      controller its phase (0 at first) */
    int *sig_req;                  /* the state or phase an action asked for in the last step (or
                                      init), -1: none */
    int n_sig;
} sim_storyboard;

/* Allocates and applies the Init actions (teleports, speeds, lane offsets). Fails
 * naming the action whose position is on no lane of the graph. */
int sim_storyboard_init(sim_storyboard *sb, const sim_sb_model *m, const sim_lanegraph *g, sim_error *err);
void sim_storyboard_free(sim_storyboard *sb);
/* Marks entity e as external (true) or driven by the storyboard. */
void sim_storyboard_set_external_mode(sim_storyboard *sb, int e, bool external);
/* The external entity's pose for the next step: reference point, heading, speed. */
void sim_storyboard_set_external(sim_storyboard *sb, int e, double x, double y, double heading, double speed);
void sim_storyboard_step(sim_storyboard *sb, double dt);

/* What signal slot k shows now (a sim_light_state, sim_lights.h; a controller's phase),
 * for the next step's TrafficSignal(Controller)Conditions. */
void sim_storyboard_set_signal(sim_storyboard *sb, int k, int light);

/* The storyboard's moving state as bytes (sim_storyboard_snapshot.c), so that a
 * restarted traffic-node continues the scenario where it was: every entity, element
 * state and transition, execution count, running action, condition edge and delay,
 * parameter value, the time and the step. _read takes the bytes into a storyboard
 * fresh from sim_storyboard_init on the same model and graph; bytes of another shape
 * (model, graph, version) or cut short are refused (SIM_EINVAL) and sb is unchanged. */
size_t sim_storyboard_snapshot_size(const sim_storyboard *sb);
size_t sim_storyboard_snapshot_write(const sim_storyboard *sb, void *buf, size_t cap);
int sim_storyboard_snapshot_read(sim_storyboard *sb, const void *buf, size_t len, sim_error *err);

/* Measures the conditions use, exposed for tests: the signed longitudinal distance
 * from a to b in a's frame (positive: b ahead), bumper to bumper when freespace. */
double sim_storyboard_long_dist(const sim_storyboard *sb, int a, int b, bool freespace);
/* Do the bounding boxes of a and b overlap? */
bool sim_storyboard_overlap(const sim_storyboard *sb, int a, int b);
/* The centre of e's bounding box in the world. */
void sim_storyboard_center(const sim_storyboard *sb, int e, double *x, double *y);

#endif
