/* sim_vehicle: the one step interface that dispatches to the three models (full:
 * sim_vehicle_full.c, simple: sim_vehicle_simple.c, wall: sim_vehicle_wall.c), set-up
 * on the ground, the ground plane, model names and what the models share (gear
 * choice, steering geometry, the light models' state). */
#include "sim_vehicle_impl.h"
#include "sim_enum.h"

#include <string.h>

/* ---- ground ---- */

int sim_ground_plane_sample(void *ctx, double x, double y, sim_ground_sample *out)
{
    const sim_ground_plane *pl = ctx;
    out->height = pl->z0 + pl->slope_x * x + pl->slope_y * y;
    double inv = 1.0 / sqrt(pl->slope_x * pl->slope_x + pl->slope_y * pl->slope_y + 1.0);
    out->normal[0] = -pl->slope_x * inv;
    out->normal[1] = -pl->slope_y * inv;
    out->normal[2] = inv;
    out->friction = pl->friction;
    out->roughness = pl->roughness;
    return 0;
}

double sim_ground_plane_height(void *ctx, double x, double y)
{
    const sim_ground_plane *pl = ctx;
    return pl->z0 + pl->slope_x * x + pl->slope_y * y;
}

sim_vehicle_ground sim_ground_from_plane(sim_ground_plane *plane)
{
    /* Its slope is its bound (a level plane's 0 would read "unknown"). */
    double slope = sqrt(plane->slope_x * plane->slope_x + plane->slope_y * plane->slope_y);
    return (sim_vehicle_ground){sim_ground_plane_sample, plane, sim_ground_plane_height,
                                slope > 1e-9 ? slope : 1e-9};
}

bool sim_vehicle_ground_at(const sim_vehicle_ground *g, double x, double y, sim_ground_sample *out)
{
    if (!g || !g->sample)
        return false;
    out->rolling = 0.0; /* callbacks written before the field existed leave it */
    if (g->sample(g->ctx, x, y, out) != 0)
        return false;
    /* The normal is the callback's to make unit (normalising here cost 8 % of the full
     * model's time); a NaN or a wall is refused. */
    if (!isfinite(out->height) || !(out->normal[2] >= 0.05) || !(out->normal[2] <= 1.0))
        return false;
    if (!(out->friction >= 0.0))
        out->friction = 0.0;
    if (!(out->rolling >= 0.0))
        out->rolling = 0.0;
    return true;
}

/* ---- models by name ---- */

static const char *const model_names[] = {"full", "simple", "wall"};

int sim_vehicle_model_parse(const char *name, sim_vehicle_model *out, sim_error *err)
{
    int i = sim_enum_parse(name, model_names, 3);
    if (i >= 0) {
        *out = (sim_vehicle_model)i;
        return 0;
    }
    return sim_error_set(err, SIM_EINVAL, "model: found \"%s\", expected full, simple or wall",
                         name ? name : "(null)");
}

const char *sim_vehicle_model_name(sim_vehicle_model m)
{
    return (unsigned)m < 3 ? model_names[m] : "unknown";
}

/* ---- shared pieces ---- */

sim_rigid_props sim_vehicle_chassis_props(const sim_vehicle_params *p, bool split_unsprung)
{
    sim_rigid_props r;
    r.mass_xy = p->mass;
    r.mass_z = split_unsprung ? p->mass - SIM_WHEELS * p->unsprung_mass : p->mass;
    r.inertia = p->inertia;
    return r;
}

void sim_vehicle_ackermann(const sim_vehicle_params *p, double delta, double *left, double *right)
{
    /* Inner wheel atan(L tan d / (L - t/2 tan d)), outer with +t/2; blended by share. */
    double L = p->wheelbase, h = 0.5 * p->track_front * p->ackermann, tn = tan(delta);
    *left = atan2(L * tn, L - h * tn);
    *right = atan2(L * tn, L + h * tn);
    if (fabs(delta) < 1e-12)
        *left = *right = delta;
}

void sim_vehicle_update_gear(sim_vehicle *v, const sim_vehicle_controls *c, double driven_omega,
                             double lateral_accel, double dt)
{
    const sim_vehicle_params *p = &v->p;
    int want = v->gear;
    if (c->automatic && c->gear >= 1) {
        if (v->gear < 1)
            want = 1;
        else if (v->gear_hold <= 0.0 && v->shift_timer <= 0.0)
            want = sim_gearbox_auto_gear(&p->gearbox, &p->engine, v->gear, driven_omega,
                                         c->throttle, p->auto_econ_rpm);
        /* In a fast turn a shift changes the driven wheels' torque at the limit of
         * grip (a kick-down spins the car): hold the gear, as automatics with curve
         * recognition do, unless the engine would hit its limiter or lug. */
        if (want != v->gear && fabs(lateral_accel) > SIM_AUTO_HOLD_AY) {
            double rpm = fabs(driven_omega * sim_gearbox_ratio(&p->gearbox, v->gear)) * SIM_RPM_PER_RAD_S;
            bool limiter = want > v->gear && rpm >= 0.95 * p->engine.max_rpm;
            bool lugging = want < v->gear && rpm < p->engine.idle_rpm + 400.0;
            if (!limiter && !lugging)
                want = v->gear;
        }
    } else if (c->gear >= -1 && c->gear <= p->gearbox.n_gears) {
        want = c->gear;
    }
    if (want != v->gear) {
        v->gear = want;
        v->shift_timer = p->gearbox.shift_time;
        v->gear_hold = p->gearbox.shift_time + 0.7; /* no hunting between gears */
    }
    v->shift_timer = v->shift_timer > dt ? v->shift_timer - dt : 0.0;
    v->gear_hold = v->gear_hold > dt ? v->gear_hold - dt : 0.0;
}

void sim_vehicle_light_state(const sim_vehicle *v, sim_vehicle_state *out)
{
    sim_vehicle_state_from_chassis(v->y, out);
    out->t = v->t;
    out->rpm = v->y[SIM_VY_ENGINE] * SIM_RPM_PER_RAD_S;
    out->gear = v->gear;
    out->clutch = v->shift_timer > 0.0 ? 0.0 : 1.0;
    out->steer_angle = v->steer_angle;
    for (int i = 0; i < 3; i++)
        out->accel_body[i] = v->accel_light[i];
}

void sim_vehicle_state_from_chassis(const double *y, sim_vehicle_state *out)
{
    sim_quat q = sim_quat_normalize((sim_quat){y[3], y[4], y[5], y[6]});
    for (int i = 0; i < 3; i++) {
        out->pos[i] = y[i];
        out->vel[i] = y[7 + i];
        out->ang_vel_body[i] = y[10 + i];
    }
    out->quat[0] = q.w;
    out->quat[1] = q.x;
    out->quat[2] = q.y;
    out->quat[3] = q.z;
    sim_quat_to_euler(q, &out->roll, &out->pitch, &out->heading);
    sim_vec3 vb = sim_quat_unrotate(q, sim_v3(y[7], y[8], y[9]));
    out->vel_body[0] = vb.x;
    out->vel_body[1] = vb.y;
    out->vel_body[2] = vb.z;
    sim_vec3 w = sim_quat_rotate(q, sim_v3(y[10], y[11], y[12]));
    out->yaw_rate = w.z;
    /* Speed along the heading: the body's forward axis projected on the ground plane. */
    double hx = cos(out->heading), hy = sin(out->heading);
    out->speed = y[7] * hx + y[8] * hy;
}

/* Quaternion whose rotation maps body x to fwd and body z to up (both unit, orthogonal). */
static sim_quat quat_from_axes(sim_vec3 fx, sim_vec3 fz)
{
    /* Rotation matrix with columns fx, fy, fz; m_rc = column c's component r. */
    sim_vec3 fy = sim_v3_cross(fz, fx);
    double m00 = fx.x, m11 = fy.y, m22 = fz.z, tr = m00 + m11 + m22;
    double m01 = fy.x, m02 = fz.x, m10 = fx.y, m12 = fz.y, m20 = fx.z, m21 = fy.z;
    sim_quat q;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q = (sim_quat){0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s};
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q = (sim_quat){(m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s};
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q = (sim_quat){(m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s};
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q = (sim_quat){(m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s};
    }
    return sim_quat_normalize(q);
}

int sim_vehicle_start_gear(const sim_vehicle_params *p, double speed)
{
    double spin = fabs(speed) / p->tire.radius;
    for (int g = 1; g <= p->gearbox.n_gears; g++)
        if (spin * sim_gearbox_ratio(&p->gearbox, g) * SIM_RPM_PER_RAD_S <= p->auto_econ_rpm)
            return g;
    return p->gearbox.n_gears;
}

int sim_vehicle_init(sim_vehicle *v, const sim_vehicle_params *p, sim_vehicle_model model,
                     sim_integrator integrator, const sim_vehicle_ground *ground,
                     const sim_vehicle_start *start, sim_error *err)
{
    if (!v || !p || !start)
        return sim_error_set(err, SIM_EINVAL, "sim_vehicle_init: NULL argument");
    if ((unsigned)model > SIM_VEHICLE_WALL || (unsigned)integrator > SIM_INTEGRATOR_RK4)
        return sim_error_set(err, SIM_EINVAL, "sim_vehicle_init: unknown model or integrator");
    int rc = sim_vehicle_params_validate(p, p->name, err);
    if (rc)
        return rc;
    if (start->gear < -1 || start->gear > p->gearbox.n_gears)
        return sim_error_set(err, SIM_ERANGE, "start gear: found %d, expected -1..%d", start->gear,
                             p->gearbox.n_gears);
    memset(v, 0, sizeof(*v));
    v->p = *p;
    sim_tire_prepare(&v->p.tire);
    v->model = model;
    v->integrator = integrator;
    v->gear = start->gear;
    v->last_dt = 1e-3;
    v->in.automatic = true;
    v->in.gear = start->gear;
    v->steer_trig[0][2] = v->steer_trig[1][2] = 1.0; /* straight: sin 0, cos 1 */
    for (int k = 0; k < 4; k++)
        v->corner_ground[k][2] = NAN; /* not looked up yet */

    /* Geometry and static equilibrium. */
    double b = p->wheelbase - p->cog_to_front;
    double wf = p->mass * SIM_GRAVITY * b / p->wheelbase * 0.5;
    double wr = p->mass * SIM_GRAVITY * p->cog_to_front / p->wheelbase * 0.5;
    for (int i = 0; i < SIM_WHEELS; i++) {
        bool front = i < 2;
        double load = front ? wf : wr;
        double track = front ? p->track_front : p->track_rear;
        double pen = load / p->tire.vertical_stiffness;
        double tr = sim_vehicle_static_travel(front ? &p->susp_front : &p->susp_rear,
                                  load - p->unsprung_mass * SIM_GRAVITY);
        v->hardpoint[i] = sim_v3(front ? p->cog_to_front : -b, (i & 1) ? -0.5 * track : 0.5 * track,
                                 p->tire.radius - pen - p->cog_height - tr);
        v->y[SIM_VY_WHEEL(i) + SIM_VW_TRAVEL] = tr;
    }

    /* Pose: on the ground under (x, y), body z along the ground normal. */
    sim_ground_sample g = {.height = 0.0, .normal = {0, 0, 1}, .friction = 1.0};
    if (!sim_vehicle_ground_at(ground, start->x, start->y, &g)) {
        g.height = 0.0;
        g.normal[0] = g.normal[1] = 0.0;
        g.normal[2] = 1.0;
    }
    sim_vec3 n = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
    /* Forward: in the ground plane, seen from above along the heading. */
    sim_vec3 h = sim_v3(cos(start->heading), sin(start->heading), 0.0);
    sim_vec3 fwd = sim_v3(h.x, h.y, -sim_v3_dot(h, n) / n.z);
    fwd = sim_v3_scale(fwd, 1.0 / sim_v3_len(fwd));
    sim_quat q = quat_from_axes(fwd, n);
    sim_vec3 pos = sim_v3_madd(sim_v3(start->x, start->y, g.height), n, p->cog_height);
    sim_vec3 vel = sim_v3_scale(fwd, start->speed);
    double *y = v->y;
    y[0] = pos.x;
    y[1] = pos.y;
    y[2] = pos.z;
    y[3] = q.w;
    y[4] = q.x;
    y[5] = q.y;
    y[6] = q.z;
    y[7] = vel.x;
    y[8] = vel.y;
    y[9] = vel.z;
    double r_eff = p->tire.radius - 0.5 * (wf + wr) / p->tire.vertical_stiffness / 3.0;
    double spin = start->speed / r_eff;
    for (int i = 0; i < SIM_WHEELS; i++) {
        y[SIM_VY_WHEEL(i) + SIM_VW_VEL] = sim_v3_dot(vel, n);
        y[SIM_VY_WHEEL(i) + SIM_VW_SPIN] = spin;
    }
    double idle = p->engine.idle_rpm / SIM_RPM_PER_RAD_S;
    double eo = spin * sim_gearbox_ratio(&p->gearbox, start->gear);
    y[SIM_VY_ENGINE] = eo > idle ? eo : idle;
    v->clutch_locked = eo > idle;
    if (model == SIM_VEHICLE_SIMPLE)
        sim_vehicle_simple_init(v, ground, start);
    return 0;
}

static bool all_finite(const double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return false;
    return true;
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

int sim_vehicle_step(sim_vehicle *v, const sim_vehicle_controls *c, const sim_vehicle_ground *ground,
                     const sim_box *boxes, size_t n_boxes, double dt)
{
    if (!v || !c || !(dt > 0.0) || dt > 0.1 || (n_boxes > 0 && !boxes))
        return SIM_EINVAL;
    double saved[SIM_VEHICLE_STATE_LEN];
    memcpy(saved, v->y, sizeof(saved));
    sim_vehicle_controls in = *c;
    in.steer = isfinite(in.steer) ? (in.steer < -1.0 ? -1.0 : in.steer > 1.0 ? 1.0 : in.steer) : 0.0;
    in.throttle = isfinite(in.throttle) ? clamp01(in.throttle) : 0.0;
    in.brake = isfinite(in.brake) ? clamp01(in.brake) : 0.0;
    in.clutch = isfinite(in.clutch) ? clamp01(in.clutch) : 0.0;
    v->in = in;
    v->last_dt = dt;
    switch (v->model) {
    case SIM_VEHICLE_FULL: sim_vehicle_full_step(v, ground, boxes, n_boxes, dt); break;
    case SIM_VEHICLE_SIMPLE: sim_vehicle_simple_step(v, ground, boxes, n_boxes, dt); break;
    case SIM_VEHICLE_WALL: sim_vehicle_wall_step(v, ground, boxes, n_boxes, dt); break;
    }
    if (!all_finite(v->y, SIM_VEHICLE_STATE_LEN)) {
        memcpy(v->y, saved, sizeof(saved));
        return SIM_ERANGE;
    }
    if (v->model != SIM_VEHICLE_FULL) {
        /* The light models' acceleration is what their velocity did in the step. */
        sim_vec3 a = sim_v3((v->y[7] - saved[7]) / dt, (v->y[8] - saved[8]) / dt, (v->y[9] - saved[9]) / dt);
        sim_vec3 ab = sim_quat_unrotate((sim_quat){v->y[3], v->y[4], v->y[5], v->y[6]}, a);
        v->accel_light[0] = ab.x;
        v->accel_light[1] = ab.y;
        v->accel_light[2] = ab.z;
    }
    v->t += dt;
    return 0;
}

void sim_vehicle_get_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out)
{
    memset(out, 0, sizeof(*out));
    if (v->model == SIM_VEHICLE_SIMPLE) {
        sim_vehicle_simple_state(v, ground, out);
        return;
    }
    if (v->model == SIM_VEHICLE_WALL) {
        sim_vehicle_wall_state(v, ground, out);
        return;
    }
    sim_vehicle_full_state(v, ground, out);
}
