/* sim_rigid: 3-vectors, quaternions, rigid-body derivatives and the fixed-step ODE
 * integrators (Euler, midpoint, RK4) shared by the vehicle models.
 *
 * The integrators work on a flat array of doubles so that one model can put several
 * bodies and logical states (wheel spin, engine speed, tyre deflection) into a single
 * state vector and advance them together, as section 4.3 of the car-model paper does.
 * Nothing here allocates: the caller passes a work buffer of
 * sim_integrator_work_size(n) doubles. */
#ifndef SIM_RIGID_H
#define SIM_RIGID_H

#include <math.h>
#include <stddef.h>

#include "sim_error.h"

typedef struct sim_vec3 {
    double x, y, z;
} sim_vec3;

/* Unit quaternion w + xi + yj + zk; rotates body-frame vectors into the world frame. */
typedef struct sim_quat {
    double w, x, y, z;
} sim_quat;

static inline sim_vec3 sim_v3(double x, double y, double z) { return (sim_vec3){x, y, z}; }
static inline sim_vec3 sim_v3_add(sim_vec3 a, sim_vec3 b) { return sim_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sim_vec3 sim_v3_sub(sim_vec3 a, sim_vec3 b) { return sim_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sim_vec3 sim_v3_scale(sim_vec3 a, double s) { return sim_v3(a.x * s, a.y * s, a.z * s); }
static inline double sim_v3_dot(sim_vec3 a, sim_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sim_vec3 sim_v3_cross(sim_vec3 a, sim_vec3 b)
{
    return sim_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double sim_v3_len(sim_vec3 a) { return sqrt(sim_v3_dot(a, a)); }
/* a + b*s */
static inline sim_vec3 sim_v3_madd(sim_vec3 a, sim_vec3 b, double s)
{
    return sim_v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}

static inline sim_quat sim_quat_mul(sim_quat a, sim_quat b)
{
    return (sim_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
/* Body-frame vector into the world frame. */
static inline sim_vec3 sim_quat_rotate(sim_quat q, sim_vec3 v)
{
    sim_vec3 u = sim_v3(q.x, q.y, q.z);
    sim_vec3 t = sim_v3_scale(sim_v3_cross(u, v), 2.0);
    return sim_v3_add(sim_v3_madd(v, t, q.w), sim_v3_cross(u, t));
}
/* World-frame vector into the body frame. */
static inline sim_vec3 sim_quat_unrotate(sim_quat q, sim_vec3 v)
{
    sim_quat c = {q.w, -q.x, -q.y, -q.z};
    return sim_quat_rotate(c, v);
}
/* A unit quaternion's rotation as a matrix (rows), for code that rotates many vectors
 * by one orientation: 15 flops a vector instead of the quaternion's 30. */
typedef struct sim_mat3 {
    double m[3][3];
} sim_mat3;
static inline sim_mat3 sim_mat3_from_quat(sim_quat q)
{
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z;
    double yz = q.y * q.z, wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    return (sim_mat3){{{1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)},
                       {2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)},
                       {2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)}}};
}
/* Body-frame vector into the world frame (R v). */
static inline sim_vec3 sim_mat3_rotate(const sim_mat3 *r, sim_vec3 v)
{
    return sim_v3(r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z,
                  r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z,
                  r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z);
}
/* World-frame vector into the body frame (R^T v). */
static inline sim_vec3 sim_mat3_unrotate(const sim_mat3 *r, sim_vec3 v)
{
    return sim_v3(r->m[0][0] * v.x + r->m[1][0] * v.y + r->m[2][0] * v.z,
                  r->m[0][1] * v.x + r->m[1][1] * v.y + r->m[2][1] * v.z,
                  r->m[0][2] * v.x + r->m[1][2] * v.y + r->m[2][2] * v.z);
}
sim_quat sim_quat_normalize(sim_quat q);
/* Rotation of yaw about world z, then pitch about y, then roll about x (z-y-x). */
sim_quat sim_quat_from_euler(double roll, double pitch, double yaw);
void sim_quat_to_euler(sim_quat q, double *roll, double *pitch, double *yaw);

/* A rigid body's state in the 13-double layout used inside state vectors:
 * position (world, 3), orientation (4: w x y z), linear velocity (world, 3), angular
 * velocity (body frame, 3). Velocities instead of the paper's momenta: with a diagonal
 * body-frame inertia tensor, Euler's equations in the body frame need no matrix
 * products, and the two forms are equivalent. */
enum { SIM_RIGID_STATE_LEN = 13 };

typedef struct sim_rigid_props {
    double mass_xy;       /* kg, resisting forces along body x and y */
    double mass_z;        /* kg, resisting forces along body z (may differ, see sim_vehicle.c) */
    sim_vec3 inertia;     /* kg m^2, principal moments about body x, y, z */
} sim_rigid_props;

/* Writes the 13 derivatives of a body state given the total force (world frame,
 * through the centre of mass) and torque (body frame) acting on it. */
void sim_rigid_derivative(const sim_rigid_props *props, const double *state, sim_vec3 force_world,
                          sim_vec3 torque_body, double *deriv);
/* The same with the force given in the body frame. */
void sim_rigid_derivative_body(const sim_rigid_props *props, const double *state,
                               sim_vec3 force_body, sim_vec3 torque_body, double *deriv);

/* Applies impulse j (world, N s) at world point p to a body state in place. */
void sim_rigid_apply_impulse(const sim_rigid_props *props, double *state, sim_vec3 p, sim_vec3 j);

/* n^T K n of the impulse papers: the inverse effective mass of the body at world point
 * p in direction n (unit), K = E/m + r*^T I^-1 r*. */
double sim_rigid_inv_mass_along(const sim_rigid_props *props, const double *state, sim_vec3 p,
                                sim_vec3 n);

/* Velocity (world) of the body point at world position p. */
sim_vec3 sim_rigid_point_velocity(const double *state, sim_vec3 p);

/* ---- integrators ---- */

typedef enum sim_integrator {
    SIM_INTEGRATOR_EULER = 0,
    SIM_INTEGRATOR_MIDPOINT = 1,
    SIM_INTEGRATOR_RK4 = 2,
} sim_integrator;

/* dydt = f(t, y). h is the size of the whole step being taken (models that resolve
 * stiction within one step need it). Must not fail. */
typedef void (*sim_deriv_fn)(void *ctx, double t, double h, const double *y, double *dydt);

/* Doubles of scratch the integrator needs for an n-long state. */
size_t sim_integrator_work_size(size_t n);
/* Advances y (n doubles) from t by h in place. work: sim_integrator_work_size(n)
 * doubles owned by the caller. */
void sim_integrator_step(sim_integrator method, sim_deriv_fn f, void *ctx, double t, double h,
                         double *y, size_t n, double *work);
/* How many times one step evaluates f: 1, 2, 4. */
int sim_integrator_evaluations(sim_integrator method);
/* "euler", "midpoint", "rk4" <-> enum. Parse returns SIM_EINVAL naming what was expected. */
int sim_integrator_parse(const char *name, sim_integrator *out, sim_error *err);
const char *sim_integrator_name(sim_integrator method);

#endif
