/* vehicle_support: helpers shared by the vehicle model tests: the reference car's
 * parameters, a car started on a ground, a bumpy ground, and the car's mechanical
 * energy (for the no-free-energy invariants). */
#ifndef VEHICLE_SUPPORT_H
#define VEHICLE_SUPPORT_H

#include "sim_vehicle.h"

#define VS_DT 1e-3
#define VS_KMH (1.0 / 3.6)
#define VS_DEG (M_PI / 180.0)

/* Loads vehicles/bmw-318i.json under $SIM_ROOT (or the working directory) into *out;
 * returns 0 or the loader's error (printed). */
int vs_load_params(sim_vehicle_params *out);

/* A heap-allocated car (free() it) of model m with the midpoint integrator at
 * (x, y, heading) moving at speed in gear; NULL if sim_vehicle_init refused. */
sim_vehicle *vs_new_car(const sim_vehicle_params *p, sim_vehicle_model m, const sim_vehicle_ground *g,
                        double x, double y, double heading, double speed, int gear);

/* Kinetic energy of the chassis (translation with the whole mass, rotation with the
 * body inertia), of the full model's wheel spins and engine (the light models carry
 * no spin energy, the simple model no yaw energy), plus m g z of the COG: J. Spring energies are left out: they are
 * a few hundred J at most for this car. */
double vs_energy(const sim_vehicle *v);

/* Split friction: ice (0.1) where y > 0, asphalt (1.0) elsewhere; flat at z = 0. */
int vs_split_mu_sample(void *ctx, double x, double y, sim_ground_sample *out);

/* A PI speed hold on the throttle (0.3 per m/s, 0.1 per m): the throttle for state s
 * towards target (m/s); *integ carries the integrated error between calls dt apart. */
double vs_hold_speed(const sim_vehicle_state *s, double target, double *integ, double dt);

/* Bumps: z = a sin(2 pi x / lx) sin(2 pi y / ly) with its exact normal; ctx points at
 * a double[3] {a, lx, ly}; friction 1. */
int vs_bumps_sample(void *ctx, double x, double y, sim_ground_sample *out);
double vs_bumps_height(void *ctx, double x, double y);
/* The bumps' largest slope, a 2 pi sqrt(1/lx^2 + 1/ly^2). */
double vs_bumps_max_slope(const double *bumps);

#endif
