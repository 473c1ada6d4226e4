/* sim_vehicle_impl: what the vehicle model files share inside libsim (not a public
 * interface: the physics node and tests use sim_vehicle.h). */
#ifndef SIM_VEHICLE_IMPL_H
#define SIM_VEHICLE_IMPL_H

#include "sim_vehicle.h"

#define SIM_GRAVITY 9.81
#define SIM_RPM_PER_RAD_S (60.0 / (2.0 * M_PI))

/* State layout of sim_vehicle.y: chassis 0..12 (sim_rigid layout); per wheel i five
 * doubles from SIM_VY_WHEEL(i): travel, vertical velocity, spin, tyre deflections
 * x and y; front steer angles; engine speed. The light models use the chassis part
 * and the wheel spins. */
#define SIM_VY_WHEEL(i) (13 + 5 * (i))
enum { SIM_VW_TRAVEL = 0, SIM_VW_VEL = 1, SIM_VW_SPIN = 2, SIM_VW_UX = 3, SIM_VW_UY = 4 };
#define SIM_VY_STEER(i) (33 + (i))
#define SIM_VY_ENGINE 35
/* The layout's parts follow one another without gap or overlap and fill the state. */
_Static_assert(SIM_VY_WHEEL(0) == 13, "the wheels follow the 13 chassis doubles");
_Static_assert(SIM_VY_WHEEL(SIM_WHEELS) == SIM_VY_STEER(0), "the steer angles follow the wheels");
_Static_assert(SIM_VY_STEER(2) == SIM_VY_ENGINE, "the engine follows the two steer angles");
_Static_assert(SIM_VY_ENGINE + 1 == SIM_VEHICLE_STATE_LEN, "the engine speed is the last double");
_Static_assert(SIM_VW_UY + 1 == SIM_VY_WHEEL(1) - SIM_VY_WHEEL(0), "five doubles per wheel");

/* The chassis as a rigid body for the full and wall models. */
sim_rigid_props sim_vehicle_chassis_props(const sim_vehicle_params *p, bool split_unsprung);

/* Body-box collisions with the ground and with boxes, by impulses on the chassis part
 * of the state (13 doubles). corner_ground (may be NULL): the vehicle's look-up cache of
 * its bottom corners (sim_vehicle.corner_ground). */
void sim_vehicle_collide(const sim_vehicle_params *p, const sim_rigid_props *props, double *chassis,
                         const sim_vehicle_ground *ground, const sim_box *boxes, size_t n_boxes,
                         double (*corner_ground)[3]);

/* Samples the ground; returns false where there is none. The normal is unit length. */
bool sim_vehicle_ground_at(const sim_vehicle_ground *g, double x, double y, sim_ground_sample *out);

/* Automatic or manual gear choice before a step, shared by all models. lateral_accel
 * (m/s^2, yaw rate times speed) makes the automatic hold its gear in a fast turn. */
void sim_vehicle_update_gear(sim_vehicle *v, const sim_vehicle_controls *c, double driven_omega,
                             double lateral_accel, double dt);
/* Above this lateral acceleration the automatic holds its gear (m/s^2). */
#define SIM_AUTO_HOLD_AY (0.35 * SIM_GRAVITY)

/* Road-wheel steering angles (Ackermann share applied) for a mean angle delta. */
void sim_vehicle_ackermann(const sim_vehicle_params *p, double delta, double *left, double *right);

/* Driving force at the wheels of the platform paper (3.3.1): F_D = M_D / r_dyn with
 * M_D = M_E i_D mu_D i_S mu_S, M_E from the torque curve at the speed the wheels
 * impose. Sets *rpm to that engine speed (at least idle). */
double sim_vehicle_drive_force(const sim_vehicle *v, double speed, double throttle, double *rpm);
/* The tyre's friction coefficient on the surface of its data (the larger peak factor
 * D/Fz of the two directions at the nominal load): the wall model's Coulomb limit. */
double sim_vehicle_tire_mu(const sim_vehicle_params *p);
/* Dynamic wheel radius under the static load. */
double sim_vehicle_dynamic_radius(const sim_vehicle_params *p);
/* Total braking force (N) at the wheels at pedal 0..1 before friction limits. */
double sim_vehicle_brake_force(const sim_vehicle_params *p, double pedal);
/* Quaternion of a car with heading yaw standing on ground with unit normal n. */
sim_quat sim_vehicle_ground_quat(double yaw, const double n[3]);

/* The full model (sim_vehicle_full.c). */
void sim_vehicle_full_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
                           size_t n_boxes, double dt);
void sim_vehicle_full_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out);
/* Static travel of a corner carrying sprung load (Newton on the spring law). */
double sim_vehicle_static_travel(const sim_suspension_params *s, double load);

/* Light models (sim_vehicle_simple.c, sim_vehicle_wall.c). */
void sim_vehicle_simple_init(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_vehicle_start *s);
void sim_vehicle_simple_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
                             size_t n_boxes, double dt);
void sim_vehicle_simple_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out);
void sim_vehicle_wall_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
                           size_t n_boxes, double dt);
void sim_vehicle_wall_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out);

/* Fills the pose and velocity part of a state from the chassis (13 doubles). */
void sim_vehicle_state_from_chassis(const double *chassis, sim_vehicle_state *out);
/* The part of a state the two light models fill alike: pose, time, engine, gear,
 * clutch (open while shifting), steering and the body-frame acceleration of the last
 * step. */
void sim_vehicle_light_state(const sim_vehicle *v, sim_vehicle_state *out);

#endif
