/* sim_vehicle_simple: the longitudinal and transverse dynamics of the platform paper
 * (Krueger et al., section 3.3), the light model for slow machines and for studies that
 * want the original simulator's behaviour.
 *
 * Longitudinal: F_D = M_D / r_dyn, M_D = M_E i_D mu_D i_S mu_S, minus rolling friction
 * F_R = mu F_W and air drag F_A = rho/2 c_w A v^2 (rho = 1.29 in the reference file);
 * the propelling force over the mass gives the acceleration. Transverse: the steering
 * input scales a speed-dependent maximum road-wheel angle (10.5 deg up to 40 km/h,
 * 3.5 deg from 80 km/h, linear between); the car follows the circle of that steering
 * angle; when the centrifugal force m v^2 / r exceeds the friction force, the excess
 * shifts the car outward. The pose follows the ground under the car. */
#include "sim_vehicle_impl.h"

#include <string.h>

double sim_vehicle_dynamic_radius(const sim_vehicle_params *p)
{
    double load = p->mass * SIM_GRAVITY / SIM_WHEELS;
    return p->tire.radius - load / p->tire.vertical_stiffness / 3.0;
}

double sim_vehicle_tire_mu(const sim_vehicle_params *p)
{
    double dx, dy;
    sim_tire_peak_force(&p->tire, p->tire.fz0, 1.0, &dx, &dy);
    return (dx > dy ? dx : dy) / p->tire.fz0;
}

double sim_vehicle_brake_force(const sim_vehicle_params *p, double pedal)
{
    return 2.0 * (sim_brake_torque_max(&p->brakes, true, pedal) +
                  sim_brake_torque_max(&p->brakes, false, pedal)) /
           sim_vehicle_dynamic_radius(p);
}

double sim_vehicle_drive_force(const sim_vehicle *v, double speed, double throttle, double *rpm)
{
    const sim_vehicle_params *p = &v->p;
    double r_dyn = sim_vehicle_dynamic_radius(p);
    double ratio = sim_gearbox_ratio(&p->gearbox, v->gear); /* i_D i_S, signed */
    double e_rpm = fabs(speed / r_dyn * ratio) * SIM_RPM_PER_RAD_S;
    if (e_rpm < p->engine.idle_rpm)
        e_rpm = p->engine.idle_rpm; /* the clutch slips at launch */
    if (rpm)
        *rpm = e_rpm;
    if (ratio == 0.0 || v->shift_timer > 0.0 || v->in.clutch >= 1.0)
        return 0.0;
    double eta = p->gearbox.efficiency * (v->in.automatic ? p->gearbox.auto_efficiency : 1.0);
    double me = throttle * p->engine.torque_max * sim_engine_curve(&p->engine, e_rpm);
    return me * ratio * eta / r_dyn * (1.0 - v->in.clutch);
}

sim_quat sim_vehicle_ground_quat(double yaw, const double n[3])
{
    /* Pitch and roll that put body z along n, for the given heading. */
    double c = cos(yaw), s = sin(yaw);
    double nx = n[0] * c + n[1] * s, ny = -n[0] * s + n[1] * c; /* n in the yawed frame */
    double pitch = atan2(nx, n[2]);
    double roll = atan2(-ny, sqrt(nx * nx + n[2] * n[2]));
    return sim_quat_from_euler(roll, pitch, yaw);
}

/* Maximum road-wheel angle at speed (paper 2, 3.3.2). */
static double steer_limit(const sim_vehicle_params *p, double speed)
{
    double v = fabs(speed);
    if (v <= p->simple_speed_low)
        return p->simple_steer_max_low;
    if (v >= p->simple_speed_high)
        return p->simple_steer_max_high;
    double a = (v - p->simple_speed_low) / (p->simple_speed_high - p->simple_speed_low);
    return p->simple_steer_max_low + a * (p->simple_steer_max_high - p->simple_steer_max_low);
}

static void place_on_ground(sim_vehicle *v, const sim_vehicle_ground *ground, double x, double yy,
                            double heading)
{
    sim_ground_sample g = {.height = 0.0, .normal = {0, 0, 1}, .friction = 1.0};
    if (!sim_vehicle_ground_at(ground, x, yy, &g)) {
        g.height = v->y[2] - v->p.cog_height;
        g.normal[0] = g.normal[1] = 0.0;
        g.normal[2] = 1.0;
    }
    sim_quat q = sim_vehicle_ground_quat(heading, g.normal);
    v->y[0] = x;
    v->y[1] = yy;
    v->y[2] = g.height + v->p.cog_height;
    v->y[3] = q.w;
    v->y[4] = q.x;
    v->y[5] = q.y;
    v->y[6] = q.z;
}

void sim_vehicle_simple_init(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_vehicle_start *s)
{
    place_on_ground(v, ground, s->x, s->y, s->heading);
    v->side_speed = 0.0;
}

void sim_vehicle_simple_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
                             size_t n_boxes, double dt)
{
    const sim_vehicle_params *p = &v->p;
    double *y = v->y;
    double heading;
    sim_quat_to_euler((sim_quat){y[3], y[4], y[5], y[6]}, NULL, NULL, &heading);
    double c = cos(heading), s = sin(heading);
    double speed = y[7] * c + y[8] * s;
    double r_dyn = sim_vehicle_dynamic_radius(p);
    sim_vehicle_update_gear(v, &v->in, speed / r_dyn, y[12] * speed, dt);

    sim_ground_sample g = {.friction = 1.0, .normal = {0, 0, 1}};
    if (!sim_vehicle_ground_at(ground, y[0], y[1], &g)) {
        g.friction = 1.0;
        g.rolling = 0.0;
        g.normal[0] = g.normal[1] = 0.0;
        g.normal[2] = 1.0;
    }
    double m = p->mass;
    double rpm;
    /* The tyres' force is bounded by the friction force: driving and braking take from
     * it first, the side force gets what is left (a friction circle). */
    double grip = p->simple_friction * g.friction * m * SIM_GRAVITY;
    double fd = sim_vehicle_drive_force(v, speed, v->in.throttle, &rpm);
    if (fd > grip)
        fd = grip;
    if (fd < -grip)
        fd = -grip;
    double rolling = (p->tire.rolling_resistance + g.rolling) * m * SIM_GRAVITY;
    if (rolling > grip - fabs(fd))
        rolling = grip - fabs(fd);
    double fb = sim_vehicle_brake_force(p, v->in.brake);
    if (fb > grip - fabs(fd) - rolling)
        fb = grip - fabs(fd) - rolling;
    double f_long = fabs(fd) + rolling + fb;
    /* Gravity along the slope under the car (the ground's normal projected on the
     * heading): climbing costs what it gains in height. */
    double grade = -m * SIM_GRAVITY * (g.normal[0] * c + g.normal[1] * s);
    double resist = rolling + 0.5 * p->air_density * p->drag_coefficient * p->frontal_area * speed * speed + fb;
    /* Resistances oppose the motion; at a standstill they only cancel the drive. */
    double push = fd - grade;
    double dir = speed > 1e-6 ? 1.0 : speed < -1e-6 ? -1.0 : (push > 0 ? 1.0 : push < 0 ? -1.0 : 0.0);
    double nv = speed + (push - dir * resist) / m * dt;
    if (dir != 0.0 && nv * dir < 0.0 && push * dir <= resist)
        nv = 0.0;
    if (dir == 0.0 && fabs(push) <= resist)
        nv = 0.0;

    /* Transverse: steering angle limited by speed; the car's heading follows the circle
     * of that angle. Its velocity turns with it only as far as the friction force left
     * by the longitudinal force allows: in the frame turned with the heading the
     * velocity keeps its length, the part now across the car (the drift, plus what the
     * turn put across) is taken out by a side impulse of at most that force. So when
     * the centrifugal force m v^2 / r exceeds it the excess shifts the car outward
     * (paper 2), and the drift costs speed instead of adding to it. */
    double delta = v->in.steer * steer_limit(p, nv);
    double curvature = tan(delta) / p->wheelbase;
    double yaw_rate = nv * curvature;
    double nh = heading + yaw_rate * dt;
    double th = yaw_rate * dt, ct = cos(th), st = sin(th);
    double u = nv * ct + v->side_speed * st, w = v->side_speed * ct - nv * st;
    double side_max = grip > f_long ? sqrt(grip * grip - f_long * f_long) / m * dt : 0.0;
    if (fabs(w) <= side_max) {
        /* The tyres hold: the velocity turns with the car (a side force does no work). */
        u = u >= 0.0 ? hypot(u, w) : -hypot(u, w);
        w = 0.0;
    } else {
        w -= w > 0.0 ? side_max : -side_max;
    }
    nv = u;
    v->side_speed = w;
    double nc = cos(nh), ns = sin(nh);
    double vx = nv * nc - v->side_speed * ns, vy = nv * ns + v->side_speed * nc;
    double z_before = y[2];
    place_on_ground(v, ground, y[0] + vx * dt, y[1] + vy * dt, nh);
    y[7] = vx;
    y[8] = vy;
    y[9] = (y[2] - z_before) / dt;
    y[10] = y[11] = 0.0;
    y[12] = nv * curvature; /* the yaw rate of the circle at the speed the car now has */
    v->steer_angle = delta;
    for (int i = 0; i < SIM_WHEELS; i++)
        y[SIM_VY_WHEEL(i) + SIM_VW_SPIN] = nv / r_dyn;
    y[SIM_VY_ENGINE] = rpm / SIM_RPM_PER_RAD_S;
    if (n_boxes > 0) {
        /* Obstacles: bounce the velocity by impulses, then take speed and drift back. */
        sim_rigid_props props = sim_vehicle_chassis_props(p, false);
        sim_vehicle_collide(p, &props, y, NULL, boxes, n_boxes, NULL);
        y[10] = y[11] = 0.0;
        v->side_speed = -y[7] * ns + y[8] * nc;
    }
}

void sim_vehicle_simple_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out)
{
    const sim_vehicle_params *p = &v->p;
    sim_vehicle_light_state(v, out);
    sim_quat q = {out->quat[0], out->quat[1], out->quat[2], out->quat[3]};
    double b = p->wheelbase - p->cog_to_front;
    for (int i = 0; i < SIM_WHEELS; i++) {
        bool front = i < 2;
        double track = front ? p->track_front : p->track_rear;
        sim_vec3 hp = sim_v3(front ? p->cog_to_front : -b, (i & 1) ? -0.5 * track : 0.5 * track,
                             sim_vehicle_dynamic_radius(p) - p->cog_height);
        sim_vec3 w = sim_v3_add(sim_v3(v->y[0], v->y[1], v->y[2]), sim_quat_rotate(q, hp));
        sim_wheel_state *ws = &out->wheel[i];
        ws->pos[0] = w.x;
        ws->pos[1] = w.y;
        ws->pos[2] = w.z;
        ws->omega = v->y[SIM_VY_WHEEL(i) + SIM_VW_SPIN];
        ws->steer = front ? v->steer_angle : 0.0;
        ws->load = p->mass * SIM_GRAVITY / SIM_WHEELS;
        ws->contact = true;
        sim_ground_sample g;
        if (sim_vehicle_ground_at(ground, w.x, w.y, &g)) {
            ws->friction = g.friction;
            ws->roughness = g.roughness;
        }
    }
}
