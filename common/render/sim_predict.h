/* sim_predict: the ego pose carried forward from the newest vehicle state to the time a
 * frame will be presented (docs/latency.md, "Prediction"), instead of showing a pose
 * one state period old (sim_interp).
 *
 * The motion model holds the yaw rate and the longitudinal acceleration of the state
 * (constant turn rate and acceleration): on a circle at constant speed it is exact,
 * and a braking car stops where it would (speed never goes below zero, the car does
 * not back up). Vertical speed, pitch and roll are held. Pure; integrated in steps of
 * at most SIM_PREDICT_STEP with the exact arc of each step. */
#ifndef SIM_PREDICT_H
#define SIM_PREDICT_H

#include "sim_camera.h"

#define SIM_PREDICT_STEP 0.001 /* s */
#define SIM_PREDICT_MAX 0.1    /* s: a horizon beyond this is cut to it */

typedef struct sim_motion {
    double speed;    /* m/s along the heading (>= 0 forward; a negative one reverses) */
    double yaw_rate; /* rad/s, left positive */
    double accel;    /* m/s^2 along the heading */
    double vz;       /* m/s, world up */
} sim_motion;

/* The pose dt seconds after p (dt clamped into [0, SIM_PREDICT_MAX]). */
void sim_predict(const sim_pose *p, const sim_motion *m, double dt, sim_pose *out);

#endif
