/* sim_motion_fidelity: what the driver felt against what the car did (docs/motion.md,
 * "Fidelity"). Both the car's and the platform's specific force and angular rate go
 * through the same vestibular model, and the perceived series are compared per axis.
 *
 *   otolith (specific force, each axis; Young & Meiry 1968):
 *       H_o(s) = 0.4 (10 s + 1) / ((5 s + 1)(0.016 s + 1))
 *   semicircular canals (angular rate, each axis; Young & Oman 1969, with adaptation):
 *       H_c(s) = 30 * 5.9 s^2 / ((30 s + 1)(5.9 s + 1)(0.005 s + 1))
 *
 * Per axis: RMSE and Pearson correlation of the perceived series, the delay (the lag,
 * 0..0.5 s, at which the platform's series correlates best with the car's), and the
 * false cues: stretches where the platform's perceived cue is beyond the threshold
 * (0.17 m/s^2; 3 deg/s) with the opposite sign of the car's. Pure, no allocation but
 * what the caller hands in. */
#ifndef SIM_MOTION_FIDELITY_H
#define SIM_MOTION_FIDELITY_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_motion_filter.h"

#define SIM_MOTION_F_THRESHOLD 0.17            /* m/s^2, otolith */
#define SIM_MOTION_W_THRESHOLD (3 * 0.017453292519943295) /* rad/s, canals */
#define SIM_MOTION_MAX_DELAY_S 0.5

/* The vestibular model: 3 otoliths and 3 canals, at step dt. */
typedef struct sim_motion_vestibular {
    sim_motion_filter oto[3], canal[3];
} sim_motion_vestibular;

int sim_motion_vestibular_init(sim_motion_vestibular *v, double dt, sim_error *err);
/* Perceived specific force pf and angular rate pw from f and w. */
void sim_motion_vestibular_step(sim_motion_vestibular *v, const double f[3], const double w[3], double pf[3],
                                double pw[3]);

typedef struct sim_motion_axis_fidelity {
    double rmse, corr;      /* corr NAN when either series is constant */
    double delay_s;
    int false_cues;         /* stretches */
    double false_cue_s;     /* their total duration */
} sim_motion_axis_fidelity;

/* Compares n samples (step dt) of the car's perceived series car and the platform's
 * plat, with threshold th for false cues. */
void sim_motion_compare(const double *car, const double *plat, size_t n, double dt, double th,
                        sim_motion_axis_fidelity *out);
/* Stretches where flags is nonzero: their count and total duration (n samples, dt). */
int sim_motion_stretches(const unsigned *flags, size_t n, double dt, double *seconds);

#endif
