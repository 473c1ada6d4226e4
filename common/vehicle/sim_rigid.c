/* sim_rigid: rigid-body derivatives, impulses and the Euler / midpoint / RK4 steppers.
 * See sim_rigid.h. Section 4 of the car-model paper (Deák) is the source: force and
 * torque accumulators feed d/dt of position, orientation (quaternion), velocity and
 * angular velocity; impulses change velocities instantly between integration steps. */
#include "sim_rigid.h"

#include "sim_enum.h"

#include <string.h>

sim_quat sim_quat_normalize(sim_quat q)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(n > 0.0))
        return (sim_quat){1, 0, 0, 0};
    double inv = 1.0 / n;
    return (sim_quat){q.w * inv, q.x * inv, q.y * inv, q.z * inv};
}

sim_quat sim_quat_from_euler(double roll, double pitch, double yaw)
{
    double cr = cos(roll * 0.5), sr = sin(roll * 0.5);
    double cp = cos(pitch * 0.5), sp = sin(pitch * 0.5);
    double cy = cos(yaw * 0.5), sy = sin(yaw * 0.5);
    return (sim_quat){cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                      cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy};
}

void sim_quat_to_euler(sim_quat q, double *roll, double *pitch, double *yaw)
{
    double sp = 2.0 * (q.w * q.y - q.z * q.x);
    if (sp > 1.0)
        sp = 1.0;
    if (sp < -1.0)
        sp = -1.0;
    if (roll)
        *roll = atan2(2.0 * (q.w * q.x + q.y * q.z), 1.0 - 2.0 * (q.x * q.x + q.y * q.y));
    if (pitch)
        *pitch = asin(sp);
    if (yaw)
        *yaw = atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z));
}

static sim_quat state_quat(const double *s) { return (sim_quat){s[3], s[4], s[5], s[6]}; }

void sim_rigid_derivative(const sim_rigid_props *props, const double *s, sim_vec3 force_world,
                          sim_vec3 torque_body, double *d)
{
    sim_quat q = sim_quat_normalize(state_quat(s));
    sim_rigid_derivative_body(props, s, sim_quat_unrotate(q, force_world), torque_body, d);
}

void sim_rigid_derivative_body(const sim_rigid_props *props, const double *s, sim_vec3 fb,
                               sim_vec3 torque_body, double *d)
{
    sim_quat q = state_quat(s);
    sim_vec3 w = sim_v3(s[10], s[11], s[12]);
    /* dr/dt = v */
    d[0] = s[7];
    d[1] = s[8];
    d[2] = s[9];
    /* dq/dt = 1/2 q (0, w_body): body-frame angular velocity multiplies on the right. */
    sim_quat dq = sim_quat_mul(q, (sim_quat){0.0, w.x, w.y, w.z});
    d[3] = 0.5 * dq.w;
    d[4] = 0.5 * dq.x;
    d[5] = 0.5 * dq.y;
    d[6] = 0.5 * dq.z;
    /* dv/dt = F/m, with the mass resolved along body axes (see sim_rigid_props). */
    sim_vec3 ab = sim_v3(fb.x / props->mass_xy, fb.y / props->mass_xy, fb.z / props->mass_z);
    sim_vec3 a = sim_quat_rotate(q, ab);
    d[7] = a.x;
    d[8] = a.y;
    d[9] = a.z;
    /* Euler's equations: I dw/dt = tau - w x (I w). */
    sim_vec3 I = props->inertia;
    sim_vec3 Iw = sim_v3(I.x * w.x, I.y * w.y, I.z * w.z);
    sim_vec3 rhs = sim_v3_sub(torque_body, sim_v3_cross(w, Iw));
    d[10] = rhs.x / I.x;
    d[11] = rhs.y / I.y;
    d[12] = rhs.z / I.z;
}

/* Velocity change of a unit impulse along the body's axes: resolves the body-axis mass. */
static sim_vec3 linear_response(const sim_rigid_props *props, sim_quat q, sim_vec3 j)
{
    sim_vec3 jb = sim_quat_unrotate(q, j);
    return sim_quat_rotate(q, sim_v3(jb.x / props->mass_xy, jb.y / props->mass_xy,
                                     jb.z / props->mass_z));
}

static sim_vec3 angular_response(const sim_rigid_props *props, sim_quat q, sim_vec3 r, sim_vec3 j)
{
    sim_vec3 tb = sim_quat_unrotate(q, sim_v3_cross(r, j));
    return sim_v3(tb.x / props->inertia.x, tb.y / props->inertia.y, tb.z / props->inertia.z);
}

void sim_rigid_apply_impulse(const sim_rigid_props *props, double *s, sim_vec3 p, sim_vec3 j)
{
    sim_quat q = state_quat(s);
    sim_vec3 r = sim_v3_sub(p, sim_v3(s[0], s[1], s[2]));
    sim_vec3 dv = linear_response(props, q, j);
    sim_vec3 dw = angular_response(props, q, r, j);
    s[7] += dv.x;
    s[8] += dv.y;
    s[9] += dv.z;
    s[10] += dw.x;
    s[11] += dw.y;
    s[12] += dw.z;
}

double sim_rigid_inv_mass_along(const sim_rigid_props *props, const double *s, sim_vec3 p,
                                sim_vec3 n)
{
    sim_quat q = state_quat(s);
    sim_vec3 r = sim_v3_sub(p, sim_v3(s[0], s[1], s[2]));
    sim_vec3 dv = linear_response(props, q, n);
    sim_vec3 dwb = angular_response(props, q, r, n);
    sim_vec3 dv_rot = sim_v3_cross(sim_quat_rotate(q, dwb), r);
    return sim_v3_dot(sim_v3_add(dv, dv_rot), n);
}

sim_vec3 sim_rigid_point_velocity(const double *s, sim_vec3 p)
{
    sim_quat q = state_quat(s);
    sim_vec3 r = sim_v3_sub(p, sim_v3(s[0], s[1], s[2]));
    sim_vec3 w = sim_quat_rotate(q, sim_v3(s[10], s[11], s[12]));
    return sim_v3_add(sim_v3(s[7], s[8], s[9]), sim_v3_cross(w, r));
}

/* ---- integrators ---- */

size_t sim_integrator_work_size(size_t n) { return 5 * n; }

int sim_integrator_evaluations(sim_integrator method)
{
    switch (method) {
    case SIM_INTEGRATOR_EULER: return 1;
    case SIM_INTEGRATOR_MIDPOINT: return 2;
    case SIM_INTEGRATOR_RK4: return 4;
    }
    return 0;
}

void sim_integrator_step(sim_integrator method, sim_deriv_fn f, void *ctx, double t, double h,
                         double *y, size_t n, double *work)
{
    double *k1 = work, *k2 = work + n, *k3 = work + 2 * n, *k4 = work + 3 * n;
    double *tmp = work + 4 * n;
    size_t i;
    f(ctx, t, h, y, k1);
    if (method == SIM_INTEGRATOR_EULER) {
        for (i = 0; i < n; i++)
            y[i] += h * k1[i];
        return;
    }
    for (i = 0; i < n; i++)
        tmp[i] = y[i] + 0.5 * h * k1[i];
    f(ctx, t + 0.5 * h, h, tmp, k2);
    if (method == SIM_INTEGRATOR_MIDPOINT) {
        /* The derivative at the middle of the Euler step carries the whole step. */
        for (i = 0; i < n; i++)
            y[i] += h * k2[i];
        return;
    }
    for (i = 0; i < n; i++)
        tmp[i] = y[i] + 0.5 * h * k2[i];
    f(ctx, t + 0.5 * h, h, tmp, k3);
    for (i = 0; i < n; i++)
        tmp[i] = y[i] + h * k3[i];
    f(ctx, t + h, h, tmp, k4);
    for (i = 0; i < n; i++)
        y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

static const char *const integrator_names[] = {"euler", "midpoint", "rk4"};

int sim_integrator_parse(const char *name, sim_integrator *out, sim_error *err)
{
    int i = sim_enum_parse(name, integrator_names, 3);
    if (i >= 0) {
        *out = (sim_integrator)i;
        return 0;
    }
    return sim_error_set(err, SIM_EINVAL, "integrator: found \"%s\", expected euler, midpoint or rk4",
                         name ? name : "(null)");
}

const char *sim_integrator_name(sim_integrator method)
{
    return (unsigned)method < 3 ? integrator_names[method] : "unknown";
}
