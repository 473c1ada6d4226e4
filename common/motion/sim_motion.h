/* sim_motion: the motion-cueing chain of motion-node (docs/motion.md): the car's motion
 * at the driver's head -> washout -> fade gain -> limiter (workspace, actuator length,
 * velocity, acceleration) -> pose and actuator lengths, plus the specific force and
 * angular rate the platform gives the driver (for motion.state and `analysis motion`).
 * Plain storage owned by the caller; no allocation, no I/O. */
#ifndef SIM_MOTION_H
#define SIM_MOTION_H

#include <stdbool.h>

#include "sim_motion_platform.h"
#include "sim_motion_washout.h"

typedef struct sim_motion_out {
    double pose[6];                 /* m, rad: the commanded pose (sim_motion_platform.h) */
    double len[SIM_MOTION_LEGS];    /* m, pf->legs of them */
    unsigned limits;                /* SIM_MOTION_HIT_* bits this step */
    double f[3];                    /* m/s^2: the platform's specific force at the head */
    double w[3];                    /* rad/s: the platform's angular rate */
    double gain;                    /* the fade, 0 (neutral) .. 1 */
} sim_motion_out;

typedef struct sim_motion {
    sim_motion_platform pf;
    sim_motion_washout wo;
    sim_motion_limiter lim;
    double dt;
    double gain, fade_t;            /* fade: gain = (1 - cos(pi t / fade_s)) / 2 */
    bool fade_in;
    double head[6];                 /* the head's place and the angles, last step */
    double vel[6];                  /* their rates, for the felt cues */
} sim_motion;

/* The specific force at a point r (m, body frame) of a rigid body whose centre of
 * gravity accelerates at a_cog (m/s^2, inertial, in body axes), turning at w (rad/s)
 * with angular acceleration alpha (rad/s^2): f = a_cog + alpha x r + w x (w x r) +
 * up, where up is gravity's reaction in body axes (0, 0, +g when level). */
void sim_motion_head_force(const double a_cog[3], const double w[3], const double alpha[3], const double r[3],
                           const double up[3], double f[3]);

/* Copies pf; starts at neutral, faded out. dt in (0, 0.1]. */
int sim_motion_init(sim_motion *m, const sim_motion_platform *pf, double dt, sim_error *err);
/* Fade in (true: running) or out to neutral (pause, stop, lost bus) over pf.fade_s. */
void sim_motion_fade(sim_motion *m, bool in);
/* True when faded out and standing at neutral. */
bool sim_motion_at_neutral(const sim_motion *m);
/* One step with the car's motion (NULL: the car at rest, for a lost bus). */
void sim_motion_step(sim_motion *m, const sim_motion_input *in, sim_motion_out *out);

#endif
