/* sim_sb_model: an OpenSCENARIO 1.x scenario as plain data (docs/openscenario.md).
 *
 * common/scenario's .xosc reader (sim_xosc.c) fills it with every parameter already
 * substituted and every reference resolved to an index; the storyboard engine
 * (sim_storyboard.h) runs it. The storyboard tree is flat: elements[] in document
 * order, each knowing its parent and its children's range, so the engine keeps its
 * states in arrays of the same length.
 *
 * Ownership: sim_sb_model_free releases every array; strings live in fixed buffers. */
#ifndef SIM_SB_MODEL_H
#define SIM_SB_MODEL_H

#include <stdbool.h>

#include "sim_sb_profile.h"

#define SIM_SB_NAME 64
#define SIM_SB_CLOTHOID_PTS 65        /* vertices a Clothoid is followed through (64 chords) */

typedef enum { SIM_SB_VEHICLE, SIM_SB_PEDESTRIAN, SIM_SB_MISC } sim_sb_category;

typedef struct sim_sb_entity {
    char name[SIM_SB_NAME];
    char type[SIM_SB_NAME];       /* vehicleCategory / pedestrianCategory / miscObjectCategory */
    sim_sb_category category;
    double center[3];             /* bounding box centre from the reference point (rear axle), m */
    double length, width, height; /* bounding box, m */
    double max_speed, max_accel, max_decel; /* Performance (0: not given) */
    int line;
} sim_sb_entity;

typedef enum {
    SIM_SB_POS_NONE,
    SIM_SB_POS_WORLD,             /* x, y, h */
    SIM_SB_POS_LANE,              /* road, lane, s, offset */
    SIM_SB_POS_ROAD,              /* road, s, t */
    SIM_SB_POS_REL_LANE,          /* entity, dlane, ds, offset */
    SIM_SB_POS_REL_ROAD,          /* entity, ds, dt */
    SIM_SB_POS_REL_WORLD,         /* entity, dx, dy */
    SIM_SB_POS_REL_OBJECT,        /* entity, dx (forward), dy (left) in its frame */
    SIM_SB_POS_ROUTE,             /* route (route0, n_route_pts), path_s, lane (0: road coordinates, t);
                                     the reader's only: resolved into a lane or world position */
} sim_sb_pos_kind;

typedef struct sim_sb_position {
    sim_sb_pos_kind kind;
    double x, y, h;
    bool has_h;                   /* h given: absolute (h_abs) or relative to the lane / entity */
    bool h_abs;
    char road[SIM_SB_NAME];
    int road_index;               /* resolved against the road network, -1: unknown */
    int lane;
    double s, offset, t;
    int entity;                   /* relative kinds */
    int dlane;
    double ds, dx, dy;
    int line;                     /* in the file it came from */
    bool has_xy;                  /* lane kind: x, y, h also hold its world pose (a lane
                                     traffic does not drive on, e.g. a sidewalk) */
    int route0, n_route_pts;      /* route kind: its waypoints in the model's route_pts */
    double path_s;                /* route kind: m along the route from its first waypoint */
} sim_sb_position;

typedef enum { SIM_SB_SHAPE_STEP, SIM_SB_SHAPE_LINEAR, SIM_SB_SHAPE_CUBIC, SIM_SB_SHAPE_SINUSOIDAL } sim_sb_shape;
typedef enum { SIM_SB_DIM_TIME, SIM_SB_DIM_DISTANCE, SIM_SB_DIM_RATE } sim_sb_dim;

typedef struct sim_sb_dynamics {
    sim_sb_shape shape;
    sim_sb_dim dim;
    double value;                 /* s, m or rate (m/s^2, m/s lateral); max lateral accel for lane offsets */
} sim_sb_dynamics;

typedef enum {
    SIM_SB_A_SPEED,
    SIM_SB_A_SPEED_PROFILE,       /* SpeedProfileAction: entries' times in pt (NAN: not given), speeds in pv */
    SIM_SB_A_LANE_CHANGE,
    SIM_SB_A_LANE_OFFSET,
    SIM_SB_A_LAT_DISTANCE,        /* LateralDistanceAction: `entity`, target (m, NAN: the distance at the
                                     start), side, freespace, continuous, lim */
    SIM_SB_A_TELEPORT,
    SIM_SB_A_FOLLOW_TRAJECTORY,
    SIM_SB_A_ACQUIRE_POSITION,
    SIM_SB_A_ASSIGN_ROUTE,
    SIM_SB_A_LONG_DISTANCE,
    SIM_SB_A_SYNCHRONIZE,
    SIM_SB_A_ENVIRONMENT,
    SIM_SB_A_PARAM_SET,
    SIM_SB_A_PARAM_ADD,
    SIM_SB_A_PARAM_MULTIPLY,
    SIM_SB_A_SIGNAL_STATE,        /* TrafficSignalStateAction: signal (param) to light (value text) */
    SIM_SB_A_SIGNAL_PHASE,        /* TrafficSignalControllerAction: controller (param) to phase `light` (name: value) */
    SIM_SB_A_IGNORED,             /* read, counted as unsupported: completes at once */
} sim_sb_action_type;

typedef enum { SIM_SB_REL_DELTA, SIM_SB_REL_FACTOR } sim_sb_rel;

typedef struct sim_sb_action {
    sim_sb_action_type type;
    char name[SIM_SB_NAME];
    int line;
    sim_sb_dynamics dyn;
    bool relative;                /* target relative to `entity` */
    int entity;
    double target;                /* speed m/s, lane id / lane count, offset m, distance m */
    sim_sb_rel rel;               /* speed: delta or factor */
    bool continuous;
    sim_sb_position pos;          /* teleport, acquire, synchronize (own target) */
    sim_sb_position pos2;         /* synchronize: the master's target */
    double *pt;                   /* trajectory: the vertices' times (NAN: none) */
    bool timed;                   /* trajectory: follow the vertices' times */
    sim_sb_position *route;       /* AssignRoute waypoints, or the trajectory's vertices
                                     (placed when the action starts) */
    int n_route;
    bool freespace, by_time;      /* LongitudinalDistance: distance or timeGap */
    char param[SIM_SB_NAME];      /* parameter actions */
    char value[SIM_SB_NAME];
    int light;                    /* signal state action: a sim_light_state (sim_lights.h); phase: its index */
    double *pv;                   /* speed profile: the entries' speeds (relative to `entity`'s when relative) */
    int n_prof;                   /* speed profile: entries */
    bool follow;                  /* speed profile: followingMode follow (else position) */
    int side;                     /* lateral distance: +1 left of the entity, -1 right, 0 either */
    bool clothoid;                /* trajectory: a Clothoid from pos (NONE: where the entity is), its
                                     n_route vertices placed when the action starts (route unused) */
    double clo_k, clo_dk, clo_len; /* clothoid: curvature (1/m), its change (1/m^2), length (m) */
    bool nurbs;                   /* trajectory: a Nurbs through ctrl (placed when the action starts),
                                     followed through n_route vertices at times pt */
    sim_sb_position *ctrl;        /* nurbs: control points */
    double *cw, *kn;              /* nurbs: their weights; the n_ctrl + order knots */
    int n_ctrl, order;
    sim_sb_limits lim;            /* DynamicConstraints as given (NAN: not given; the entity's
                                     Performance fills them in when the action starts) */
} sim_sb_action;

typedef enum {
    SIM_SB_C_SIM_TIME,
    SIM_SB_C_ELEMENT_STATE,
    SIM_SB_C_REACH_POSITION,
    SIM_SB_C_DISTANCE,
    SIM_SB_C_RELATIVE_DISTANCE,
    SIM_SB_C_TIME_HEADWAY,
    SIM_SB_C_TTC,
    SIM_SB_C_SPEED,
    SIM_SB_C_RELATIVE_SPEED,
    SIM_SB_C_ACCELERATION,
    SIM_SB_C_STANDSTILL,
    SIM_SB_C_TRAVELED,
    SIM_SB_C_PARAMETER,
    SIM_SB_C_END_OF_ROAD,
    SIM_SB_C_COLLISION,
    SIM_SB_C_OFFROAD,
    SIM_SB_C_CLEARANCE,           /* RelativeClearanceCondition: no other entity within value ahead,
                                     dist_back behind, in the relative lanes of `ranges` */
    SIM_SB_C_SIGNAL,              /* TrafficSignalCondition: signal `ref` shows `light` */
    SIM_SB_C_SIGNAL_PHASE,        /* TrafficSignalControllerCondition: controller `ref` is in phase `light` */
} sim_sb_cond_type;

typedef enum { SIM_SB_GT, SIM_SB_LT, SIM_SB_EQ, SIM_SB_GE, SIM_SB_LE, SIM_SB_NE } sim_sb_rule;
typedef enum { SIM_SB_EDGE_NONE, SIM_SB_EDGE_RISING, SIM_SB_EDGE_FALLING, SIM_SB_EDGE_BOTH } sim_sb_edge;
typedef enum { SIM_SB_DIST_LONG, SIM_SB_DIST_LAT, SIM_SB_DIST_EUCLID } sim_sb_dist;

typedef enum {
    SIM_SB_E_STORY,
    SIM_SB_E_ACT,
    SIM_SB_E_GROUP,               /* ManeuverGroup */
    SIM_SB_E_MANEUVER,
    SIM_SB_E_EVENT,
    SIM_SB_E_ACTION,
} sim_sb_elem_type;

/* Element states and transitions as StoryboardElementStateCondition names them. */
typedef enum {
    SIM_SB_ST_STANDBY,
    SIM_SB_ST_RUNNING,
    SIM_SB_ST_COMPLETE,
    SIM_SB_TR_START,
    SIM_SB_TR_END,
    SIM_SB_TR_STOP,
    SIM_SB_TR_SKIP,
} sim_sb_state;

typedef struct sim_sb_condition {
    sim_sb_cond_type type;
    char name[SIM_SB_NAME];
    int line;
    double delay;
    sim_sb_edge edge;
    sim_sb_rule rule;
    double value;
    bool all;                     /* triggeringEntitiesRule all (else any) */
    int trig0, n_trig;            /* triggering entities: model->trig[trig0 ..] */
    int entity;                   /* the reference entity, -1: none (position instead) */
    bool freespace;
    sim_sb_dist dist;
    sim_sb_position pos;
    double tolerance;
    int element;                  /* element state: index into elements */
    sim_sb_state state;
    int param;                    /* parameter condition: index into params */
    char pvalue[SIM_SB_NAME];
    char ref[SIM_SB_NAME];        /* element state: the element's name as written */
    sim_sb_elem_type ref_type;
    int light;                    /* signal condition: a sim_light_state (sim_lights.h); phase: its index */
    double dist_back;             /* clearance: m behind (value: m ahead) */
    bool opposite;                /* clearance: lanes the other way count too */
    int ref0, n_ref;              /* clearance: the entities that count, model->trig[ref0 ..] (none: all) */
    int n_ranges;                 /* clearance: relative lane ranges (none: every lane) */
    int lane_from[4], lane_to[4];
} sim_sb_condition;

typedef struct sim_sb_group { int c0, n; } sim_sb_group;    /* AND of conditions */
typedef struct sim_sb_trigger { int g0, n; } sim_sb_trigger; /* OR of groups; n 0: none */

typedef enum { SIM_SB_PRIO_OVERWRITE, SIM_SB_PRIO_SKIP, SIM_SB_PRIO_PARALLEL } sim_sb_priority;

typedef struct sim_sb_element {
    sim_sb_elem_type type;
    char name[SIM_SB_NAME];
    int line;
    int parent;                   /* -1: the storyboard */
    int child0, n_children;       /* children: model->kids[child0 ..], in document order */
    sim_sb_trigger start, stop;   /* act: start and stop; event: start */
    int max_exec;                 /* group and event: maximumExecutionCount */
    sim_sb_priority priority;     /* event */
    int actor0, n_actors;         /* group: model->actors[actor0 ..] */
    int action;                   /* action element: index into actions */
} sim_sb_element;

typedef struct sim_sb_param {
    char name[SIM_SB_NAME];
    char value[SIM_SB_NAME];
} sim_sb_param;

typedef struct sim_sb_init {      /* one Init private action */
    int entity;
    int action;
} sim_sb_init;

typedef struct sim_sb_model {
    sim_sb_entity *entities;
    int n_entities;
    sim_sb_param *params;         /* global parameters after overrides (ParameterAction acts on them) */
    int n_params;
    sim_sb_action *actions;
    int n_actions;
    sim_sb_init *init;
    int n_init;
    sim_sb_element *elements;
    int n_elements;
    int *kids;                    /* element children: kids[child0 .. child0+n_children-1] */
    int n_kids;
    sim_sb_condition *conds;
    int n_conds;
    sim_sb_group *groups;
    int n_groups;
    int *trig;                    /* triggering entities of conditions */
    int n_trig;
    int *actors;                  /* actors of maneuver groups */
    int n_actors;
    sim_sb_trigger stop;          /* the storyboard's stop trigger */
    int ego;                      /* entity index of the ego (sim_sb_model_pick_ego) */
    sim_sb_position *route_pts;   /* waypoints of RoutePositions' routes (route0 ..) */
    int n_route_pts;
} sim_sb_model;

void sim_sb_model_free(sim_sb_model *m);
/* The ego: the entity called `name` when given (-1 when there is none), else the one
 * named Ego or hero (any case), else the first entity (-1 when there are none). */
int sim_sb_model_pick_ego(const sim_sb_model *m, const char *name);
int sim_sb_model_find_entity(const sim_sb_model *m, const char *name);
int sim_sb_model_find_element(const sim_sb_model *m, const char *name);
int sim_sb_model_find_param(const sim_sb_model *m, const char *name);

const char *sim_sb_state_name(sim_sb_state s);
const char *sim_sb_elem_type_name(sim_sb_elem_type t);

#endif
