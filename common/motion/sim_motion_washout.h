/* sim_motion_washout: the classical washout with tilt coordination (Reid & Nahon), per
 * axis, in the frame of the driver's head point (ISO 8855: x forward, y left, z up;
 * roll about x, pitch about y, yaw about z; docs/motion.md).
 *
 *   translational  x, y, z: u = clip(scale * f, limit) (z: f - g); the platform's
 *                  position P(s) = u s / ((s^2 + 2 zeta w s + w^2)(s + w_b)), i.e. the
 *                  2nd-order high-pass on specific force, integrated twice, with a
 *                  1st-order high-pass (w_b) that returns the position to neutral;
 *                  velocity s P, acceleration s^2 P
 *   tilt           x -> pitch, y -> roll: the low-passed scaled force
 *                  LP(s) = w^2 / (s^2 + 2 zeta w s + w^2) as an angle asin(LP / g)
 *                  (nose up for a forward force: pitch = -asin, roll = +asin), limited
 *                  to tilt_max and to tilt_rate_max (below the canals' threshold)
 *   rotational     roll, pitch, yaw: u = clip(scale * rate, limit); the angle
 *                  A(s) = u s / (s^2 + 2 zeta w s + w^2) (the 2nd-order high-pass on
 *                  the rate, integrated), its rate s A; roll and pitch add the tilt
 *
 * Plain storage owned by the caller; no allocation, no I/O. */
#ifndef SIM_MOTION_WASHOUT_H
#define SIM_MOTION_WASHOUT_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_json.h"
#include <stdbool.h>

#include "sim_motion_filter.h"

#define SIM_MOTION_G 9.80665

typedef struct sim_motion_washout_params {
    /* translational channel, x y z */
    double f_scale[3];     /* gain on specific force */
    double f_limit[3];     /* m/s^2, |scaled force| clipped to this */
    double f_omega[3];     /* rad/s, the high-pass's natural frequency */
    double f_zeta[3];      /* its damping */
    double f_return[3];    /* rad/s, the position return (1st-order high-pass) */
    /* tilt coordination (x -> pitch, y -> roll) */
    double tilt_omega, tilt_zeta; /* the low-pass, rad/s */
    double tilt_rate_max;  /* rad/s */
    double tilt_max;       /* rad */
    /* rotational channel, roll pitch yaw */
    double w_scale[3], w_limit[3]; /* gain, rad/s clip */
    double w_omega[3], w_zeta[3];
} sim_motion_washout_params;

/* The car's motion at the driver's head point, in the car's frame. */
typedef struct sim_motion_input {
    double f[3];           /* specific force, m/s^2 (at rest: 0, 0, +g) */
    double w[3];           /* angular rate, rad/s */
} sim_motion_input;

/* The washout's command: the pose of the head point relative to neutral. */
typedef struct sim_motion_cue {
    double pos[3], vel[3], acc[3]; /* m, m/s, m/s^2 */
    double ang[3];         /* rad, roll pitch yaw (tilt included) */
    double rate[3];        /* rad/s of the rotational channel (tilt excluded) */
    double tilt[2];        /* rad: roll and pitch from tilt coordination */
} sim_motion_cue;

typedef struct sim_motion_washout {
    sim_motion_washout_params p;
    double dt;
    sim_motion_filter pos[3], vel[3], acc[3], tilt[2], ang[3], rate[3];
    double tilt_angle[2];  /* after the rate limit */
} sim_motion_washout;

/* Reid & Nahon-like defaults for a car (docs/motion.md's table). */
void sim_motion_washout_defaults(sim_motion_washout_params *p);
/* Reads a config's "washout" object (v may be NULL: p unchanged); every member optional,
 * over what p holds. */
int sim_motion_washout_read(sim_json *j, const cJSON *v, const char *path, sim_motion_washout_params *p);
/* Checks p and builds the filters for step dt; starts at rest. */
int sim_motion_washout_init(sim_motion_washout *w, const sim_motion_washout_params *p, double dt,
                            sim_error *err);
void sim_motion_washout_step(sim_motion_washout *w, const sim_motion_input *in, sim_motion_cue *out);
/* The same step for the pose only: out's pos, ang and tilt (vel, acc and rate are left
 * as they were, and their filters do not run: a washout stepped this way must go on so,
 * or be reset). What sim_motion_step uses; the same pos, ang and tilt bit for bit. */
void sim_motion_washout_pose_step(sim_motion_washout *w, const sim_motion_input *in, sim_motion_cue *out);
void sim_motion_washout_reset(sim_motion_washout *w);

#endif
