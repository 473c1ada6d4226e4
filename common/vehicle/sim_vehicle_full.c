/* sim_vehicle_full: the full 17-DOF car (Deak, "Dynamic simulation in a driving
 * simulator game", sections 4-5): its derivative, its step and its observable state.
 *
 * Degrees of freedom: chassis 6 (position, quaternion), per wheel vertical travel and
 * spin (8), the two front wheels' steering angle (2, driven by the steering system's
 * time constant), engine rotation (1). The state also carries each tyre's longitudinal
 * and lateral deflection (relaxation-length model): at speed this reproduces the
 * steady-state slips of the Magic Formula with a short lag, and at standstill it
 * turns the tyre into a spring, so that a braked car stands still on a slope instead of
 * creeping as a slip computed from (omega r - v)/|v| would let it.
 *
 * Simplifications, as in the paper: each wheel moves only along the body's z axis and
 * its horizontal forces go to the chassis at the contact point (roll centres on the
 * ground); the wheels' mass therefore moves with the chassis horizontally (mass_xy is
 * the whole car) and by itself vertically (mass_z is the sprung mass). The engine's
 * clutch and the brakes resolve static friction within one step (see
 * sim_brake_torque), so they hold without chattering. */
#include "sim_vehicle_impl.h"

#include <string.h>


typedef struct wheel_eval {
    sim_vec3 centre;
    double steer, load, fx, fy, mz, kappa, slip_y, friction, roughness;
    bool contact;
} wheel_eval;

typedef struct full_eval {
    wheel_eval w[SIM_WHEELS];
    double clutch;
    sim_vec3 accel_world;
} full_eval;

/* The ground under one wheel for a whole step: sampled once below the wheel centre at
 * the step's start, and taken as its tangent plane by every evaluation within the step
 * (the wheel moves a few centimetres in a step; the plane's height error is that
 * squared over twice the road's radius of curvature, micrometres). A raycast vehicle
 * likewise casts its rays once per step; sampling the terrain at every evaluation
 * cost a third of the full model's time on a heightfield. */
typedef struct ground_patch {
    bool ok;                 /* false: no ground below this wheel in this step */
    sim_vec3 p0;             /* the sampled ground point */
    sim_ground_sample g;     /* its normal, friction, roughness */
} ground_patch;

typedef struct full_ctx {
    const sim_vehicle *v;
    ground_patch patch[SIM_WHEELS];
    full_eval *out; /* NULL while integrating */
} full_ctx;

/* The patches under the wheels of the state y. */
static void ground_patches(const sim_vehicle *v, const sim_vehicle_ground *ground, const double *y,
                           ground_patch *patch)
{
    /* unit quaternion: every step ends normalising it */
    sim_mat3 rot = sim_mat3_from_quat((sim_quat){y[3], y[4], y[5], y[6]});
    for (int i = 0; i < SIM_WHEELS; i++) {
        sim_vec3 arm = v->hardpoint[i];
        arm.z += y[SIM_VY_WHEEL(i) + SIM_VW_TRAVEL];
        sim_vec3 c = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_mat3_rotate(&rot, arm));
        ground_patch *gp = &patch[i];
        gp->ok = sim_vehicle_ground_at(ground, c.x, c.y, &gp->g);
        gp->p0 = sim_v3(c.x, c.y, gp->g.height);
    }
}

/* Low-speed tyre damping: below LOW_SPEED (m/s) the deflection spring of each tyre
 * gets a damper of DAMP_* seconds times its stiffness, fading out with the larger of
 * the wheel's rolling speed and the contact patch's total slip speed: a standing car
 * stops rocking on its tyres, and a sliding one (a spin: little forward speed, much
 * sideways) gets no extra force from it. The lateral one is near critical for the
 * car's mass on its tyres; the longitudinal one is smaller because it acts on the
 * light wheel (stiff for explicit integration). Tyre plus damper never leave the
 * tyre's friction ellipse. */
#define LOW_SPEED 5.0
#define DAMP_X 0.02
#define DAMP_Y 0.06

static double suspension_force(const sim_suspension_params *s, double x, double xdot)
{
    double f = s->preload + s->spring_rate * x + s->spring_cubic * x * x * x;
    if (x < 0.0)
        f += s->droop_rate * x;
    if (x > s->bump_travel) {
        double d = x - s->bump_travel;
        f += s->bump_rate * d * d;
    }
    double c = xdot > 0.0 ? s->damping_bump : s->damping_rebound;
    double ax = fabs(xdot), knee = s->damping_knee;
    double fd = ax <= knee ? c * ax : c * knee + c / 3.0 * (ax - knee);
    return f + (xdot >= 0.0 ? fd : -fd);
}

/* Linear slip stiffnesses per N of load at small slip (for the low-speed damping). */
static void tire_slopes(const sim_tire_params *t, double *cx, double *cy)
{
    if (t->model == SIM_TIRE_BRUSH) {
        *cx = t->brush_cx;
        *cy = t->brush_cy;
    } else {
        double x = 1.0 / t->pky2; /* Ky at fz0: pky1 sin(2 atan x) = pky1 2x / (1 + x^2) */
        *cx = t->pkx1;
        *cy = t->pky1 * 2.0 * x / (1.0 + x * x);
    }
}

/* sin and cos of front wheel i's angle delta from those at the step's start (the
 * angle moves by a few milliradians within a step): the angle-sum formulas with the
 * Taylor series of the difference e, whose first terms left out (e^4/24, e^5/120) are
 * below 1e-11 for |e| <= 5 mrad; libm beyond. Rear wheels are straight. */
static inline void steer_sin_cos(const sim_vehicle *v, int i, double delta, double *s, double *c)
{
    if (i >= 2) {
        *s = 0.0;
        *c = 1.0;
        return;
    }
    const double *k = v->steer_trig[i];
    double e = delta - k[0];
    if (e == 0.0) {
        *s = k[1];
        *c = k[2];
    } else if (fabs(e) <= 5e-3) {
        double e2 = e * e, se = e * (1.0 - e2 * (1.0 / 6.0)), ce = 1.0 - 0.5 * e2;
        *s = k[1] * ce + k[2] * se;
        *c = k[2] * ce - k[1] * se;
    } else {
        *s = sin(delta);
        *c = cos(delta);
    }
}

/* What the parts of one derivative evaluation share. Forces, torques and velocities
 * are worked in the body frame (x forward, y left, z up): the suspension axis is then
 * just z and most products drop out; only the wheel centres (for the ground) and the
 * ground normals cross frames. */
typedef struct deriv_work {
    sim_mat3 rot;
    sim_vec3 pos, vb, wb, gb;   /* position (world); velocity, rotation rate, gravity (body) */
    sim_vec3 force, torque;     /* on the chassis, body frame */
    double cx_slope, cy_slope;  /* tire_slopes */
    double susp[SIM_WHEELS], travel[SIM_WHEELS], wheel_rel[SIM_WHEELS];
    sim_vec3 arm[SIM_WHEELS], vcentre[SIM_WHEELS];
    /* per wheel for the drivetrain and brakes: torque other than drive and brake,
     * tyre load, longitudinal slip, rolling speed */
    double other_torque[SIM_WHEELS], fz[SIM_WHEELS], kappa[SIM_WHEELS], ax[SIM_WHEELS];
    double drive[SIM_WHEELS];
} deriv_work;

/* One tyre's figures in one evaluation, the airborne ones until a contact sets them. */
typedef struct tyre_eval {
    double fz, fx, fy, mz, r_eff, ax, kappa, sy, dux, duy;
} tyre_eval;

static void chassis_frame(const double *y, deriv_work *w)
{
    /* The integrator's intermediate states leave the quaternion off unit length by
     * O(h^2); one Newton step of 1/sqrt (no division, no square root) brings it back
     * to within the square of that. */
    double qn = y[3] * y[3] + y[4] * y[4] + y[5] * y[5] + y[6] * y[6], qs = 1.5 - 0.5 * qn;
    sim_quat q = {y[3] * qs, y[4] * qs, y[5] * qs, y[6] * qs};
    if (!(fabs(qn - 1.0) < 1e-4))
        q = sim_quat_normalize((sim_quat){y[3], y[4], y[5], y[6]});
    w->rot = sim_mat3_from_quat(q);
    w->pos = sim_v3(y[0], y[1], y[2]);
    w->vb = sim_mat3_unrotate(&w->rot, sim_v3(y[7], y[8], y[9]));
    w->wb = sim_v3(y[10], y[11], y[12]);
    w->gb = sim_v3_scale(sim_v3(w->rot.m[2][0], w->rot.m[2][1], w->rot.m[2][2]), -SIM_GRAVITY);
    w->force = (sim_vec3){0, 0, 0};
    w->torque = (sim_vec3){0, 0, 0};
}

/* Suspension: travel rates and spring/damper forces, then the anti-roll bars. */
static void suspension(const sim_vehicle *v, const double *y, deriv_work *w, double *dy)
{
    const sim_vehicle_params *p = &v->p;
    for (int i = 0; i < SIM_WHEELS; i++) {
        const double *wy = y + SIM_VY_WHEEL(i);
        const sim_suspension_params *s = i < 2 ? &p->susp_front : &p->susp_rear;
        w->travel[i] = wy[SIM_VW_TRAVEL];
        w->arm[i] = v->hardpoint[i];
        w->arm[i].z += w->travel[i];
        sim_vec3 vpt = sim_v3_add(w->vb, sim_v3_cross(w->wb, w->arm[i]));
        w->wheel_rel[i] = wy[SIM_VW_VEL] - vpt.z;
        w->vcentre[i] = sim_v3(vpt.x, vpt.y, wy[SIM_VW_VEL]);
        w->susp[i] = suspension_force(s, w->travel[i], w->wheel_rel[i]);
        dy[SIM_VY_WHEEL(i) + SIM_VW_TRAVEL] = w->wheel_rel[i];
    }
    /* Anti-roll bars: force on the wheel pair proportional to their travel difference. */
    for (int axle = 0; axle < 2; axle++) {
        const sim_suspension_params *s = axle == 0 ? &p->susp_front : &p->susp_rear;
        int l = 2 * axle, r = 2 * axle + 1;
        double f = s->antiroll_rate * (w->travel[l] - w->travel[r]);
        w->susp[l] += f;
        w->susp[r] -= f;
    }
}

/* Below walking pace the deflection spring gets damping, or a standing car would rock
 * on its tyres for ever (see LOW_SPEED); tyre plus damper stay within the friction
 * ellipse. */
static void low_speed_damping(const sim_tire_params *tp, const deriv_work *w, double friction, double vsx,
                              double vsy, tyre_eval *t)
{
    double fade = 0.0;
    if (t->ax < LOW_SPEED) {
        double vslip = sqrt(vsx * vsx + vsy * vsy);
        double vfade = t->ax > vslip ? t->ax : vslip;
        fade = vfade < LOW_SPEED ? 1.0 - vfade / LOW_SPEED : 0.0;
    }
    if (fade > 0.0) {
        t->fx += DAMP_X * w->cx_slope * t->fz / tp->relaxation_x * vsx * fade;
        t->fy += DAMP_Y * w->cy_slope * t->fz / tp->relaxation_y * vsy * fade;
        double dx, dyp;
        sim_tire_peak_force(tp, t->fz, friction, &dx, &dyp);
        double e = (dx > 0.0 && dyp > 0.0) ? hypot(t->fx / dx, t->fy / dyp) : INFINITY;
        if (e > 1.0) {
            t->fx /= e;
            t->fy /= e;
        }
    }
}

/* Wheel i's tyre on its ground patch: false when it does not touch it; otherwise t's
 * figures, the tyre's force (body frame) and its contact point. */
static bool tyre_contact(const full_ctx *ctx, int i, const double *wy, sim_vec3 centre, double delta,
                         const deriv_work *w, tyre_eval *t, sim_vec3 *ft, sim_vec3 *cp)
{
    const sim_tire_params *tp = &ctx->v->p.tire;
    double spin = wy[SIM_VW_SPIN], ux = wy[SIM_VW_UX], uy = wy[SIM_VW_UY];
    sim_ground_sample g = ctx->patch[i].g;
    sim_vec3 gn = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
    double dist = sim_v3_dot(sim_v3_sub(centre, ctx->patch[i].p0), gn);
    double pen = tp->radius - dist;
    if (!(pen > 0.0))
        return false;
    sim_vec3 n = sim_mat3_unrotate(&w->rot, gn);
    double sd, cd;
    steer_sin_cos(ctx->v, i, delta, &sd, &cd);
    /* Wheel heading projected on the ground plane, and its left side. */
    sim_vec3 fg = sim_v3(cd, sd, 0.0);
    fg = sim_v3_madd(fg, n, -sim_v3_dot(fg, n));
    double fl = sim_v3_len(fg);
    fg = fl > 1e-9 ? sim_v3_scale(fg, 1.0 / fl) : sim_v3(1, 0, 0);
    sim_vec3 lg = sim_v3_cross(n, fg);
    const sim_vec3 vc = w->vcentre[i];
    double vx = sim_v3_dot(vc, fg), vy = sim_v3_dot(vc, lg);
    double vn = sim_v3_dot(vc, n);
    t->fz = tp->vertical_stiffness * pen - tp->vertical_damping * vn;
    if (t->fz < 0.0)
        t->fz = 0.0;
    t->r_eff = tp->radius - pen / 3.0;
    t->ax = fabs(vx);
    double vsx = spin * t->r_eff - vx, vsy = -vy;
    /* Deflection (relaxation-length) dynamics: at speed the slips settle to
     * (omega r - vx)/|vx| and -vy/|vx| within a relaxation length. */
    t->dux = vsx - t->ax * ux / tp->relaxation_x;
    t->duy = vsy - t->ax * uy / tp->relaxation_y;
    if (fabs(t->kappa) > 1.0 && ux * t->dux > 0.0)
        t->dux = 0.0; /* fully sliding: the tread cannot deflect further */
    if (fabs(t->sy) > 2.0 && uy * t->duy > 0.0)
        t->duy = 0.0;
    if (t->kappa > 1.0)
        t->kappa = 1.0;
    if (t->kappa < -1.0)
        t->kappa = -1.0;
    /* The aligning moment is only reported (force feedback): its yaw moment on the
     * chassis, 1-2 % of the lateral forces', is left out of the integration, as the
     * car-model paper leaves it out entirely. */
    sim_tire_forces tf = ctx->out ? sim_tire_eval(tp, t->fz, t->kappa, t->sy, g.friction)
                                  : sim_tire_eval_forces(tp, t->fz, t->kappa, t->sy, g.friction);
    t->fx = tf.fx;
    t->fy = tf.fy;
    t->mz = tf.mz;
    low_speed_damping(tp, w, g.friction, vsx, vsy, t);
    *ft = sim_v3_add(sim_v3_add(sim_v3_scale(fg, t->fx), sim_v3_scale(lg, t->fy)), sim_v3_scale(n, t->fz));
    *cp = sim_v3_madd(w->arm[i], n, -dist);
    return true;
}

/* Wheel i: its tyre's forces on the chassis and the wheel, the suspension's on the
 * chassis, its travel and tread rates, and what the drivetrain and brakes need. */
static void wheel_forces(const full_ctx *ctx, int i, const double *y, deriv_work *w, double *dy)
{
    const sim_vehicle_params *p = &ctx->v->p;
    const sim_tire_params *tp = &p->tire;
    const double *wy = y + SIM_VY_WHEEL(i);
    double *dw = dy + SIM_VY_WHEEL(i);
    double spin = wy[SIM_VW_SPIN], ux = wy[SIM_VW_UX], uy = wy[SIM_VW_UY];
    double delta = i < 2 ? y[SIM_VY_STEER(i)] : 0.0;
    sim_vec3 centre = sim_v3_add(w->pos, sim_mat3_rotate(&w->rot, w->arm[i]));
    wheel_eval we = {.centre = centre, .steer = delta};
    tyre_eval t = {.r_eff = tp->radius, .kappa = ux / tp->relaxation_x, .sy = uy / tp->relaxation_y,
                   .dux = -ux * 50.0, .duy = -uy * 50.0}; /* airborne: the tread relaxes */
    sim_vec3 ft, cp;
    bool contact = ctx->patch[i].ok && tyre_contact(ctx, i, wy, centre, delta, w, &t, &ft, &cp);
    if (contact) {
        /* The horizontal (body x-y) part goes to the chassis at the contact point; the
         * vertical part to the wheel. */
        sim_vec3 fh = sim_v3(ft.x, ft.y, 0.0);
        w->force = sim_v3_add(w->force, fh);
        w->torque = sim_v3_add(w->torque, sim_v3_cross(cp, fh));
        dw[SIM_VW_VEL] = (ft.z - w->susp[i]) / p->unsprung_mass + w->gb.z;
        we.friction = ctx->patch[i].g.friction;
        we.roughness = ctx->patch[i].g.roughness;
    } else {
        dw[SIM_VW_VEL] = -w->susp[i] / p->unsprung_mass + w->gb.z;
    }
    dw[SIM_VW_UX] = t.dux;
    dw[SIM_VW_UY] = t.duy;
    /* Suspension force pushes the chassis along its z axis at the wheel. */
    w->force.z += w->susp[i];
    w->torque = sim_v3_add(w->torque, sim_v3(w->arm[i].y * w->susp[i], -w->arm[i].x * w->susp[i], 0.0));
    /* Rolling resistance as a torque against the spin, smooth through zero. */
    double vr = spin * t.r_eff;
    double f_rr = tp->rolling_resistance + (contact ? ctx->patch[i].g.rolling : 0.0);
    double rr = f_rr * t.fz * t.r_eff * vr / (fabs(vr) + 0.1);
    w->other_torque[i] = -t.fx * t.r_eff - rr;
    w->fz[i] = t.fz;
    w->kappa[i] = t.kappa;
    w->ax[i] = t.ax;
    we.contact = contact;
    we.load = t.fz;
    we.fx = t.fx;
    we.fy = t.fy;
    we.mz = t.mz;
    we.kappa = t.kappa;
    we.slip_y = t.sy;
    if (ctx->out)
        ctx->out->w[i] = we;
}

/* Engine, clutch, gearbox, differential: the engine's rate and the driven wheels'
 * torques (w->drive). Returns the clutch's engagement. */
static double drivetrain(const sim_vehicle *v, const double *y, double h, deriv_work *w, double *dy)
{
    const sim_vehicle_params *p = &v->p;
    const sim_vehicle_controls *in = &v->in;
    double we_omega = y[SIM_VY_ENGINE];
    double te = sim_engine_torque(&p->engine, we_omega, in->throttle);
    double ratio = sim_gearbox_ratio(&p->gearbox, v->gear);
    double eng = ratio != 0.0 ? sim_clutch_engagement(&p->clutch, we_omega, in->clutch,
                                                      v->shift_timer > 0.0, v->clutch_locked)
                              : 0.0;
    int d0 = p->drive == SIM_DRIVE_REAR ? SIM_WHEEL_RL : SIM_WHEEL_FL, d1 = d0 + 1;
    double iw_drive = d0 < 2 ? p->wheel_inertia_front : p->wheel_inertia_rear;
    for (int i = 0; i < SIM_WHEELS; i++) w->drive[i] = 0.0;
    double tc = 0.0;
    if (eng > 0.0) {
        double cap = eng * p->clutch.torque_max;
        double eta = p->gearbox.efficiency * (in->automatic ? p->gearbox.auto_efficiency : 1.0);
        double slip = we_omega - ratio * 0.5 * (y[SIM_VY_WHEEL(d0) + SIM_VW_SPIN] +
                                                y[SIM_VY_WHEEL(d1) + SIM_VW_SPIN]);
        double base = te / p->engine.inertia -
                      ratio / (2.0 * iw_drive) * (w->other_torque[d0] + w->other_torque[d1]) + slip / h;
        for (int pass = 0; pass < 2; pass++) {
            /* Torque that makes the clutch's two sides turn alike within the step. */
            tc = base / (1.0 / p->engine.inertia + ratio * ratio * eta / (2.0 * iw_drive));
            if (tc >= 0.0 || pass == 1)
                break;
            eta = 1.0 / eta; /* driven by the wheels: losses on the engine side */
        }
        if (tc > cap)
            tc = cap;
        if (tc < -cap)
            tc = -cap;
        double lock = sim_diff_locking_torque(&p->diff, y[SIM_VY_WHEEL(d0) + SIM_VW_SPIN],
                                              y[SIM_VY_WHEEL(d1) + SIM_VW_SPIN]);
        w->drive[d0] = 0.5 * tc * ratio * eta + lock;
        w->drive[d1] = 0.5 * tc * ratio * eta - lock;
    }
    dy[SIM_VY_ENGINE] = (te - tc) / p->engine.inertia;
    return eng;
}

/* Brakes, with ABS holding the slip near the tyre's peak: each front wheel on its
 * own, the rear axle "select-low" (both rear wheels get the pressure of the one that
 * would lock first, as in production ABS): on split friction the rear keeps its side
 * grip and holds the car straight instead of braking it into a spin. Sets the
 * wheels' spin rates. */
static void brakes(const sim_vehicle *v, const double *y, double h, const deriv_work *w, double *dy)
{
    const sim_vehicle_params *p = &v->p;
    const sim_vehicle_controls *in = &v->in;
    double abs_share[SIM_WHEELS] = {1.0, 1.0, 1.0, 1.0};
    if (p->brakes.abs_enabled && in->brake > 0.0) {
        for (int i = 0; i < SIM_WHEELS; i++) {
            if (w->ax[i] > 2.0 && w->fz[i] > 0.0) {
                double kp;
                sim_tire_peak_slip(&p->tire, w->fz[i], &kp, NULL);
                double x = (w->kappa[i] + 1.3 * kp) / (0.5 * kp);
                abs_share[i] = x <= 0.0 ? 0.0 : x >= 1.0 ? 1.0 : x;
            }
        }
        double low = fmin(abs_share[SIM_WHEEL_RL], abs_share[SIM_WHEEL_RR]);
        abs_share[SIM_WHEEL_RL] = abs_share[SIM_WHEEL_RR] = low;
    }
    for (int i = 0; i < SIM_WHEELS; i++) {
        bool front = i < 2;
        double iw = front ? p->wheel_inertia_front : p->wheel_inertia_rear;
        double spin = y[SIM_VY_WHEEL(i) + SIM_VW_SPIN];
        double limit = sim_brake_torque_max(&p->brakes, front, in->brake) * abs_share[i];
        double others = w->drive[i] + w->other_torque[i];
        double tb = sim_brake_torque(iw, spin, others, limit, h);
        dy[SIM_VY_WHEEL(i) + SIM_VW_SPIN] = (others + tb) / iw;
    }
}

static void full_deriv(void *vctx, double time, double h, const double *y, double *dy)
{
    const full_ctx *ctx = vctx;
    const sim_vehicle *v = ctx->v;
    const sim_vehicle_params *p = &v->p;
    sim_rigid_props props = sim_vehicle_chassis_props(p, true);
    deriv_work w;
    chassis_frame(y, &w);
    tire_slopes(&p->tire, &w.cx_slope, &w.cy_slope);
    suspension(v, y, &w, dy);
    for (int i = 0; i < SIM_WHEELS; i++)
        wheel_forces(ctx, i, y, &w, dy);
    double eng = drivetrain(v, y, h, &w, dy);
    brakes(v, y, h, &w, dy);

    /* Steering system: a first-order lag towards the Ackermann angles of the input. */
    dy[SIM_VY_STEER(0)] = (v->steer_target[0] - y[SIM_VY_STEER(0)]) / p->steer_time;
    dy[SIM_VY_STEER(1)] = (v->steer_target[1] - y[SIM_VY_STEER(1)]) / p->steer_time;

    /* Air drag at the COG. */
    double speed = sim_v3_len(w.vb);
    sim_vec3 force = sim_v3_madd(w.force, w.vb, -0.5 * p->air_density * p->drag_coefficient *
                                                    p->frontal_area * speed);

    sim_rigid_derivative_body(&props, y, force, w.torque, dy);
    /* Gravity as an acceleration: the sprung mass vertically, the whole car
     * horizontally, matching the per-axis masses. */
    dy[9] -= SIM_GRAVITY;
    if (ctx->out) {
        ctx->out->clutch = eng;
        ctx->out->accel_world = sim_v3(dy[7], dy[8], dy[9]);
    }
    (void)time;
}

double sim_vehicle_static_travel(const sim_suspension_params *s, double load)
{
    double x = (load - s->preload) / s->spring_rate;
    for (int i = 0; i < 20; i++) {
        double f = suspension_force(s, x, 0.0) - load;
        double df = s->spring_rate + 3.0 * s->spring_cubic * x * x + (x < 0 ? s->droop_rate : 0) +
                    (x > s->bump_travel ? 2.0 * s->bump_rate * (x - s->bump_travel) : 0.0);
        x -= f / df;
    }
    return x;
}

void sim_vehicle_full_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
                           size_t n_boxes, double dt)
{
    int d0 = v->p.drive == SIM_DRIVE_REAR ? SIM_WHEEL_RL : SIM_WHEEL_FL;
    double driven = 0.5 * (v->y[SIM_VY_WHEEL(d0) + SIM_VW_SPIN] +
                           v->y[SIM_VY_WHEEL(d0 + 1) + SIM_VW_SPIN]);
    /* Lateral acceleration for the automatic: yaw rate times forward speed. */
    sim_quat q0 = {v->y[3], v->y[4], v->y[5], v->y[6]};
    sim_vec3 vb0 = sim_quat_unrotate(q0, sim_v3(v->y[7], v->y[8], v->y[9]));
    sim_vehicle_update_gear(v, &v->in, driven, v->y[12] * vb0.x, dt);
    if (v->in.steer != v->steer_input) { /* atan2 twice: only when the input moves */
        v->steer_input = v->in.steer;
        sim_vehicle_ackermann(&v->p, v->in.steer * v->p.steer_max, &v->steer_target[0],
                              &v->steer_target[1]);
    }
    for (int i = 0; i < 2; i++) {
        double d = v->y[SIM_VY_STEER(i)];
        if (d != v->steer_trig[i][0]) {
            v->steer_trig[i][0] = d;
            v->steer_trig[i][1] = sin(d);
            v->steer_trig[i][2] = cos(d);
        }
    }
    full_ctx ctx = {.v = v, .out = NULL};
    ground_patches(v, ground, v->y, ctx.patch);
    sim_integrator_step(v->integrator, full_deriv, &ctx, v->t, dt, v->y, SIM_VEHICLE_STATE_LEN,
                        v->work);
    sim_quat q = sim_quat_normalize((sim_quat){v->y[3], v->y[4], v->y[5], v->y[6]});
    v->y[3] = q.w;
    v->y[4] = q.x;
    v->y[5] = q.y;
    v->y[6] = q.z;
    sim_rigid_props props = sim_vehicle_chassis_props(&v->p, true);
    sim_vehicle_collide(&v->p, &props, v->y, ground, boxes, n_boxes, v->corner_ground);
    /* Clutch lock-up (paper 5.3): once both sides turn alike the link holds until the
     * engine nears stall, the pedal is pressed or a shift opens it. */
    double ratio = sim_gearbox_ratio(&v->p.gearbox, v->gear);
    double slip = v->y[SIM_VY_ENGINE] - ratio * 0.5 * (v->y[SIM_VY_WHEEL(d0) + SIM_VW_SPIN] +
                                                       v->y[SIM_VY_WHEEL(d0 + 1) + SIM_VW_SPIN]);
    double rpm = v->y[SIM_VY_ENGINE] * SIM_RPM_PER_RAD_S;
    if (ratio == 0.0 || v->shift_timer > 0.0 || v->in.clutch > 0.5 || rpm < v->p.clutch.disengage_rpm)
        v->clutch_locked = false;
    else if (fabs(slip) < 3.0)
        v->clutch_locked = true;
}

void sim_vehicle_full_state(const sim_vehicle *v, const sim_vehicle_ground *ground, sim_vehicle_state *out)
{
    full_eval ev;
    memset(&ev, 0, sizeof(ev));
    double dy[SIM_VEHICLE_STATE_LEN];
    full_ctx ctx = {.v = v, .out = &ev};
    ground_patches(v, ground, v->y, ctx.patch);
    full_deriv(&ctx, v->t, v->last_dt, v->y, dy);
    sim_vehicle_state_from_chassis(v->y, out);
    out->t = v->t;
    sim_quat q = {out->quat[0], out->quat[1], out->quat[2], out->quat[3]};
    sim_vec3 ab = sim_quat_unrotate(q, ev.accel_world);
    out->accel_body[0] = ab.x;
    out->accel_body[1] = ab.y;
    out->accel_body[2] = ab.z;
    out->rpm = v->y[SIM_VY_ENGINE] * SIM_RPM_PER_RAD_S;
    out->gear = v->gear;
    out->clutch = ev.clutch;
    out->steer_angle = 0.5 * (v->y[SIM_VY_STEER(0)] + v->y[SIM_VY_STEER(1)]);
    for (int i = 0; i < SIM_WHEELS; i++) {
        sim_wheel_state *w = &out->wheel[i];
        const wheel_eval *e = &ev.w[i];
        w->pos[0] = e->centre.x;
        w->pos[1] = e->centre.y;
        w->pos[2] = e->centre.z;
        w->omega = v->y[SIM_VY_WHEEL(i) + SIM_VW_SPIN];
        w->travel = v->y[SIM_VY_WHEEL(i) + SIM_VW_TRAVEL];
        w->steer = e->steer;
        w->load = e->load;
        w->fx = e->fx;
        w->fy = e->fy;
        w->mz = e->mz;
        w->slip_ratio = e->kappa;
        w->slip_angle = atan(e->slip_y);
        w->friction = e->friction;
        w->roughness = e->roughness;
        w->contact = e->contact;
    }
}
