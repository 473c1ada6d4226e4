/* sim_interp: smooth motion between vehicle states.
 *
 * States arrive at the physics rate (100 Hz) and frames are drawn at the display's
 * rate; a frame shows the pose interpolated between the last two states. The display
 * runs one state period behind the newest state: when state b arrives (period p after
 * a), frames show a at first and reach b p seconds later, so motion is continuous and
 * never extrapolated. A state older than the newest (a restart, a seek) or a gap of
 * more than SIM_INTERP_MAX_GAP starts over from that state alone.
 *
 * Pure computation; times are passed in by the caller. */
#ifndef SIM_INTERP_H
#define SIM_INTERP_H

#include "sim_camera.h"

#define SIM_INTERP_MAX_GAP 0.5 /* s of simulation time between two states */

typedef struct sim_interp {
    sim_pose pose[2];   /* [0] older, [1] newest */
    double t[2];        /* simulation time of each, s */
    double arrival;     /* caller's clock when the newest arrived, s */
    int n;              /* states held, 0..2 */
} sim_interp;

/* A new state: pose at simulation time t, arrived at the caller's clock `now`. */
void sim_interp_push(sim_interp *ip, const sim_pose *pose, double t, double now);
/* The pose to draw at the caller's clock `now`; returns the simulation time it stands
 * for. With no state yet, *out is zeroed and 0 is returned. */
double sim_interp_at(const sim_interp *ip, double now, sim_pose *out);
/* a + f (b - a), angles along the shorter way round. */
void sim_pose_lerp(const sim_pose *a, const sim_pose *b, double f, sim_pose *out);

#endif
