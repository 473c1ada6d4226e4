/* sim_storyboard_impl: shared between the storyboard engine's files (sim_storyboard.c:
 * element states and triggers; sim_storyboard_act.c: actions starting;
 * sim_storyboard_move.c: motion;
 * sim_storyboard_cond.c: conditions). Private. */
#ifndef SIM_STORYBOARD_IMPL_H
#define SIM_STORYBOARD_IMPL_H

#include "sim_storyboard.h"

/* Profile of a dynamics shape at u in [0, 1]: 0 to 1. */
double sb_shape(sim_sb_shape s, double u);
/* World pose (reference point) of a position; false when it cannot be placed. When
 * lane is not NULL it gets the graph lane, s and lat of lane-bound positions (-1 else). */
bool sb_position(const sim_storyboard *sb, const sim_sb_position *p, double *x, double *y, double *h, int *lane,
                 double *s, double *lat);
/* The world pose of a lane-bound entity from its lane, s and offset. */
void sb_update_pose(sim_storyboard *sb, sim_sb_state_ent *e);
/* Places entity e at a position (teleport). */
bool sb_place(sim_storyboard *sb, int e, const sim_sb_position *p);
/* Starts action instance i at the current time. */
void sb_action_start(sim_storyboard *sb, int i);
/* Ends instance i (done or overridden). */
void sb_action_end(sim_storyboard *sb, int i);
/* An action's target speed now (absolute, or relative to its entity). */
double sb_target_speed(const sim_storyboard *sb, const sim_sb_action *a);
/* The limits an action's DynamicConstraints (`given`, NAN: not given) leave entity en:
 * each within its Performance, missing ones the Performance's (INFINITY: none). */
sim_sb_limits sb_limits(const sim_sb_entity *en, const sim_sb_limits *given);
/* Where r's reference point is left of the centre of lane-bound e's lane (m, e's lane frame). */
double sb_lat_of(const sim_storyboard *sb, const sim_sb_state_ent *e, const sim_sb_state_ent *r);
/* Moves every entity by dt (sim_storyboard_move.c). */
void sb_move(sim_storyboard *sb, double dt);
/* One condition's raw value now. */
bool sb_condition(sim_storyboard *sb, int c);
/* Traffic signals (sim_storyboard_signal.c): the slots of the signals the model names
 * (SIM_ENOMEM), their release, the requests cleared at a step's start, a
 * TrafficSignalStateAction's request, a TrafficSignalCondition's value. */
int sb_signals_init(sim_storyboard *sb);
void sb_signals_free(sim_storyboard *sb);
void sb_signals_clear_requests(sim_storyboard *sb);
void sb_signal_request(sim_storyboard *sb, const sim_sb_action *a);
bool sb_signal_shows(const sim_storyboard *sb, const sim_sb_condition *c);

#endif
