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
 *     J = -mu (v.n)/((K n).n) n, mu = max(mu_max (1 - |v|/v_theta), 0), so the wheel
 *     rolls freely along itself and is held sideways, sliding more as the speed
 *     approaches v_theta;
 *   - driving, braking and rolling resistance as impulses along the wheel, never
 *     reversing it.
 * The paper's wheels have no friction limit; here the wall and the impulses along the
 * wheel together never pass more than Coulomb friction allows: the tyre's peak mu
 * times the road's friction factor times that wheel's ground impulse of the step. On
 * ice the car therefore brakes, drives and corners like on ice, and it cannot corner
 * hard enough to roll over on flat ground.
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

/* What the wheel impulses of one step need. */
typedef struct wall_wheels {
    const sim_vehicle *v;
    const sim_rigid_props *props;
    const sim_vehicle_ground *ground;
    sim_quat q;
    double dl, dr;          /* road-wheel angles */
    double mu_side;         /* equation 2's side-slip parameter at this speed */
    double mu_tyre;         /* the tyre's Coulomb coefficient */
    double drive;           /* N at the driven wheels together */
    double brake_per_wheel; /* N */
    double dt;
} wall_wheels;

/* One wheel's contact in this step. */
typedef struct wall_contact {
    bool on;
    sim_vec3 c, cp, n, f, side; /* centre, contact point, normal, along, across */
    double pen, friction, jn;   /* penetration, road friction, ground impulse */
    double rolling;             /* the surface's added rolling resistance */
} wall_contact;

/* Where each wheel touches the ground in this step (the geometry the two orders of
 * wheel_impulses share): the ground is looked up once per wheel. */
static void wall_contacts(const wall_wheels *ww, wall_contact w[SIM_WHEELS])
{
    const sim_vehicle *v = ww->v;
    const sim_vehicle_params *p = &v->p;
    for (int i = 0; i < SIM_WHEELS; i++) {
        wall_contact *wc = &w[i];
        wc->on = false;
        wc->c = wheel_point(v->y, v, i, ww->q);
        sim_ground_sample g;
        if (!sim_vehicle_ground_at(ww->ground, wc->c.x, wc->c.y, &g))
            continue;
        wc->n = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
        wc->pen = p->tire.radius - (wc->c.z - g.height) * wc->n.z;
        if (wc->pen <= 0.0)
            continue;
        /* Wheel directions on the ground plane. */
        double delta = i == 0 ? ww->dl : i == 1 ? ww->dr : 0.0;
        sim_vec3 f = sim_quat_rotate(ww->q, sim_v3(cos(delta), sin(delta), 0.0));
        f = sim_v3_madd(f, wc->n, -sim_v3_dot(f, wc->n));
        double fl = sim_v3_len(f);
        if (fl < 1e-9)
            continue;
        wc->on = true;
        wc->f = sim_v3_scale(f, 1.0 / fl);
        wc->side = sim_v3_cross(wc->n, wc->f);
        wc->cp = sim_v3_madd(wc->c, wc->n, -(p->tire.radius - wc->pen));
        wc->friction = g.friction;
        wc->rolling = g.rolling;
    }
}

/* The wheels' impulses on the chassis velocities y[7..12] (y may be a 13-double copy
 * of the chassis), wheel after wheel in the given order (each changes what the next
 * one sees), in three rounds: the ground, then driving and braking along the wheels,
 * then the walls across them. The walls come last so that they hold against what the
 * others did: a braking wheel's impulse turns the car a little until the opposite
 * wheel's cancels it, and a wall taken in between would spend friction on that
 * passing turn. Friction is shared as a circle, driving and braking first (the wall
 * model has no ABS: like locked wheels, a car braking at the limit goes straight on).
 * contacts: from wall_contacts, copied (the ground impulses are written into it). */
static void wheel_impulses(const wall_wheels *ww, double *y, const wall_contact contacts[SIM_WHEELS],
                           const int order[SIM_WHEELS])
{
    const sim_vehicle *v = ww->v;
    const sim_vehicle_params *p = &v->p;
    const sim_rigid_props *props = ww->props;
    int d0 = p->drive == SIM_DRIVE_REAR ? SIM_WHEEL_RL : SIM_WHEEL_FL;
    wall_contact w[SIM_WHEELS];
    memcpy(w, contacts, sizeof(w));
    for (int k = 0; k < SIM_WHEELS; k++) {
        wall_contact *wc = &w[order[k]];
        wc->jn = 0.0;
        if (!wc->on)
            continue;
        /* Ground impulse, scaled into the impulse-based suspension (equation 3). */
        double vn = sim_v3_dot(sim_rigid_point_velocity(y, wc->cp), wc->n);
        if (vn < 0.0) {
            double jg = -vn / sim_rigid_inv_mass_along(props, y, wc->cp, wc->n);
            double phi = wc->pen / p->wall_max_penetration;
            wc->jn = 0.5 * (exp(-p->wall_xi * jg) + phi) * jg;
            sim_rigid_apply_impulse(props, y, wc->cp, sim_v3_scale(wc->n, wc->jn));
        }
    }
    /* Coulomb friction in impulse form: what a tyre can pass to the road in this step
     * is the road's friction times the tyre's mu times its ground impulse. */
    double j_fric[SIM_WHEELS], j_along[SIM_WHEELS];
    for (int k = 0; k < SIM_WHEELS; k++) {
        int i = order[k];
        wall_contact *wc = &w[i];
        j_fric[i] = j_along[i] = 0.0;
        if (!wc->on)
            continue;
        double jf = ww->mu_tyre * wc->friction * wc->jn;
        j_fric[i] = jf;
        /* Drive along the wheel; brakes and rolling resistance against its motion, at
         * most stopping it. */
        double along = ww->drive * ww->dt * ((i == d0 || i == d0 + 1) ? 0.5 : 0.0);
        if (along > jf)
            along = jf;
        if (along < -jf)
            along = -jf;
        double vf = sim_v3_dot(sim_rigid_point_velocity(y, wc->cp), wc->f);
        double stop = fabs(vf) / sim_rigid_inv_mass_along(props, y, wc->cp, wc->f);
        double rolling = (p->tire.rolling_resistance + wc->rolling) * wc->jn;
        if (rolling > jf - fabs(along))
            rolling = jf - fabs(along);
        double resist = ww->brake_per_wheel * ww->dt;
        if (resist > jf - fabs(along) - rolling)
            resist = jf - fabs(along) - rolling;
        resist += rolling;
        if (resist > stop)
            resist = stop;
        along -= (vf > 0 ? 1.0 : vf < 0 ? -1.0 : 0.0) * resist;
        j_along[i] = along;
        sim_rigid_apply_impulse(props, y, wc->cp, sim_v3_scale(wc->f, along));
    }
    for (int k = 0; k < SIM_WHEELS; k++) {
        int i = order[k];
        const wall_contact *wc = &w[i];
        if (!wc->on)
            continue;
        /* Imaginary wall across the wheel (equation 2), within what is left of the
         * friction circle. */
        double left = j_fric[i] * j_fric[i] - j_along[i] * j_along[i];
        left = left > 0.0 ? sqrt(left) : 0.0;
        double vs = sim_v3_dot(sim_rigid_point_velocity(y, wc->c), wc->side);
        double jw = -ww->mu_side * vs / sim_rigid_inv_mass_along(props, y, wc->c, wc->side);
        if (jw > left)
            jw = left;
        if (jw < -left)
            jw = -left;
        sim_rigid_apply_impulse(props, y, wc->c, sim_v3_scale(wc->side, jw));
    }
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
    sim_vehicle_update_gear(v, &v->in, speed / r_dyn, y[12] * speed, dt);

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
    wall_wheels ww = {v, &props, ground, q, dl, dr, mu_side, sim_vehicle_tire_mu(p), fd,
                      sim_vehicle_brake_force(p, v->in.brake) / SIM_WHEELS, dt};
    /* Taken left before right and right before left from the same velocities and the
     * two results averaged, so that the order favours neither side (a car going
     * straight stays straight) and no left-right kick alternates from step to step.
     * Kinetic energy is convex in the velocities: the mean of two results that each
     * lose energy loses energy too. */
    static const int order[2][SIM_WHEELS] = {{0, 1, 2, 3}, {1, 0, 3, 2}};
    wall_contact contacts[SIM_WHEELS];
    wall_contacts(&ww, contacts);
    double mirror[SIM_RIGID_STATE_LEN];
    memcpy(mirror, y, sizeof(mirror));
    wheel_impulses(&ww, y, contacts, order[0]);
    wheel_impulses(&ww, mirror, contacts, order[1]);
    for (int k = 7; k < 13; k++)
        y[k] = 0.5 * (y[k] + mirror[k]);

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
    sim_vehicle_collide(p, &props, y, ground, boxes, n_boxes, v->corner_ground);
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
