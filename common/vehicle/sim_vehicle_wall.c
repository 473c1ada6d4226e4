/* sim_vehicle_wall: the imaginary-wall model of Kang and Cho ("Imaginary wall model for
 * efficient animation of wheeled vehicles in racing games"), the impulse-based light
 * model.
 *
 * The chassis is a rigid body; the wheels have no mass of their own. Each step:
 * gravity, drag and the driving force of the platform paper (shared with the simple
 * model) change the velocities; then every wheel touching the ground gets
 *   - a ground impulse J_g = -(v.n)/(n^T K n) n, scaled per equation 3 into
 *     J_s = 1/2 (exp(-xi |J_g|) + phi) J_g with phi the penetration over the allowed
 *     penetration: the impulse-based suspension, soft while the wheel sinks little;
 *   - an imaginary-wall impulse across the wheel (equation 2):
 *     J = -mu (v.n)/((K n).n) n, mu = max(mu_max (1 - |v|/v_theta), 0), times the road
 *     friction, so the wheel rolls freely along itself and is held sideways, sliding
 *     more as the speed approaches v_theta;
 *   - braking and rolling resistance as impulses along the wheel, never reversing it.
 * Positions then move with the new velocities (semi-implicit Euler), so the model
 * ignores the integrator choice. */
#include "sim_vehicle_impl.h"

#include <string.h>

/* Wheel centre at its static travel (the wall model has no suspension travel). */
static sim_vec3 wheel_point(const double *y, const sim_vehicle *v, int i, sim_quat q)
{
    sim_vec3 hp = v->hardpoint[i];
    hp.z += y[SIM_VY_WHEEL(i) + SIM_VW_TRAVEL];
    return sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(q, hp));
}

void sim_vehicle_wall_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
                           size_t n_boxes, double dt)
{
    const sim_vehicle_params *p = &v->p;
    double *y = v->y;
    sim_rigid_props props = sim_vehicle_chassis_props(p, false);
    sim_quat q = sim_quat_normalize((sim_quat){y[3], y[4], y[5], y[6]});
    sim_vec3 fwd_body = sim_quat_rotate(q, sim_v3(1, 0, 0));
    double speed = y[7] * fwd_body.x + y[8] * fwd_body.y + y[9] * fwd_body.z;
    double r_dyn = sim_vehicle_dynamic_radius(p);
    sim_vehicle_update_gear(v, &v->in, speed / r_dyn, dt);

    /* Forces over the step: gravity, air drag, and the rigid body's own rotation. */
    double rpm;
    double fd = sim_vehicle_drive_force(v, speed, v->in.throttle, &rpm);
    sim_vec3 vel = sim_v3(y[7], y[8], y[9]);
    sim_vec3 drag = sim_v3_scale(vel, -0.5 * p->air_density * p->drag_coefficient *
                                          p->frontal_area * sim_v3_len(vel));
    double d[SIM_RIGID_STATE_LEN];
    sim_rigid_derivative(&props, y, drag, sim_v3(0, 0, 0), d);
    for (int k = 7; k < 13; k++)
        y[k] += d[k] * dt;
    y[9] -= SIM_GRAVITY * dt;

    double dl, dr;
    sim_vehicle_ackermann(p, v->in.steer * p->steer_max, &dl, &dr);
    v->steer_angle = 0.5 * (dl + dr);
    double vmag = sim_v3_len(sim_v3(y[7], y[8], y[9]));
    double mu_side = p->wall_mu_max * (1.0 - vmag / p->wall_v_theta);
    if (mu_side < 0.0)
        mu_side = 0.0;
    int d0 = p->drive == SIM_DRIVE_REAR ? SIM_WHEEL_RL : SIM_WHEEL_FL;
    double brake_per_wheel = sim_vehicle_brake_force(p, v->in.brake) / SIM_WHEELS;

    for (int i = 0; i < SIM_WHEELS; i++) {
        sim_vec3 c = wheel_point(y, v, i, q);
        sim_ground_sample g;
        if (!sim_vehicle_ground_at(ground, c.x, c.y, &g))
            continue;
        sim_vec3 n = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
        double pen = p->tire.radius - (c.z - g.height) * n.z;
        if (pen <= 0.0)
            continue;
        sim_vec3 cp = sim_v3_madd(c, n, -(p->tire.radius - pen));
        /* Ground impulse, scaled into the impulse-based suspension (equation 3). */
        double vn = sim_v3_dot(sim_rigid_point_velocity(y, cp), n);
        if (vn < 0.0) {
            double jg = -vn / sim_rigid_inv_mass_along(&props, y, cp, n);
            double phi = pen / p->wall_max_penetration;
            double js = 0.5 * (exp(-p->wall_xi * jg) + phi) * jg;
            sim_rigid_apply_impulse(&props, y, cp, sim_v3_scale(n, js));
        }
        /* Wheel directions on the ground plane. */
        double delta = i == 0 ? dl : i == 1 ? dr : 0.0;
        sim_vec3 f = sim_quat_rotate(q, sim_v3(cos(delta), sin(delta), 0.0));
        f = sim_v3_madd(f, n, -sim_v3_dot(f, n));
        double fl = sim_v3_len(f);
        if (fl < 1e-9)
            continue;
        f = sim_v3_scale(f, 1.0 / fl);
        sim_vec3 side = sim_v3_cross(n, f);
        /* Imaginary wall across the wheel (equation 2). */
        double vs = sim_v3_dot(sim_rigid_point_velocity(y, c), side);
        double mu = mu_side * (g.friction < 1.0 ? g.friction : 1.0);
        double jw = -mu * vs / sim_rigid_inv_mass_along(&props, y, c, side);
        sim_rigid_apply_impulse(&props, y, c, sim_v3_scale(side, jw));
        /* Drive along the wheel; brakes and rolling resistance against its motion,
         * at most stopping it. */
        double along = fd * dt * ((i == d0 || i == d0 + 1) ? 0.5 : 0.0);
        double vf = sim_v3_dot(sim_rigid_point_velocity(y, cp), f);
        double stop = fabs(vf) / sim_rigid_inv_mass_along(&props, y, cp, f);
        double resist = (brake_per_wheel + p->tire.rolling_resistance * p->mass * SIM_GRAVITY / 4.0) * dt;
        if (resist > stop)
            resist = stop;
        along -= (vf > 0 ? 1.0 : vf < 0 ? -1.0 : 0.0) * resist;
        sim_rigid_apply_impulse(&props, y, cp, sim_v3_scale(f, along));
    }

    /* Positions from the new velocities. */
    y[0] += y[7] * dt;
    y[1] += y[8] * dt;
    y[2] += y[9] * dt;
    sim_quat dq = sim_quat_mul(q, (sim_quat){0.0, y[10], y[11], y[12]});
    q = sim_quat_normalize((sim_quat){q.w + 0.5 * dt * dq.w, q.x + 0.5 * dt * dq.x,
                                      q.y + 0.5 * dt * dq.y, q.z + 0.5 * dt * dq.z});
    y[3] = q.w;
    y[4] = q.x;
    y[5] = q.y;
    y[6] = q.z;
    sim_vehicle_collide(p, &props, y, ground, boxes, n_boxes);
    fwd_body = sim_quat_rotate(q, sim_v3(1, 0, 0));
    speed = y[7] * fwd_body.x + y[8] * fwd_body.y + y[9] * fwd_body.z;
    for (int i = 0; i < SIM_WHEELS; i++)
        y[SIM_VY_WHEEL(i) + SIM_VW_SPIN] = speed / r_dyn;
    y[SIM_VY_ENGINE] = rpm / SIM_RPM_PER_RAD_S;
}

void sim_vehicle_wall_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out)
{
    const sim_vehicle_params *p = &v->p;
    sim_vehicle_light_state(v, out);
    sim_quat q = {out->quat[0], out->quat[1], out->quat[2], out->quat[3]};
    for (int i = 0; i < SIM_WHEELS; i++) {
        sim_vec3 c = wheel_point(v->y, v, i, q);
        sim_wheel_state *ws = &out->wheel[i];
        sim_ground_sample g;
        ws->omega = v->y[SIM_VY_WHEEL(i) + SIM_VW_SPIN];
        ws->steer = i < 2 ? v->steer_angle : 0.0;
        ws->pos[0] = c.x;
        ws->pos[1] = c.y;
        ws->pos[2] = c.z;
        if (sim_vehicle_ground_at(ground, c.x, c.y, &g)) {
            double pen = p->tire.radius - (c.z - g.height) * g.normal[2];
            ws->contact = pen > 0.0;
            /* Drawn on the surface (paper figure 3): the wheel is lifted out of it. */
            if (ws->contact)
                ws->pos[2] += pen;
            ws->travel = ws->contact ? pen : 0.0;
            ws->friction = g.friction;
            ws->roughness = g.roughness;
        }
    }
}
