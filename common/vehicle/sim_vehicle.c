/* sim_vehicle: the full 17-DOF car (Deak, "Dynamic simulation in a driving simulator
 * game", sections 4-5) and the one step interface that dispatches to the three models.
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
    if (!g || !g->sample || g->sample(g->ctx, x, y, out) != 0)
        return false;
    /* The normal is the callback's to make unit (normalising here cost 8 % of the full
     * model's time); a NaN or a wall is refused. */
    if (!isfinite(out->height) || !(out->normal[2] >= 0.05) || !(out->normal[2] <= 1.0))
        return false;
    if (!(out->friction >= 0.0))
        out->friction = 0.0;
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

/* ---- body collisions by impulses ---- */

/* Corner k of the body box relative to the COG, body frame. */
static sim_vec3 box_offset_corner(const sim_vehicle_params *p, int k)
{
    return sim_v3(p->box_offset.x + ((k & 1) ? p->box_half.x : -p->box_half.x),
                  p->box_offset.y + ((k & 2) ? p->box_half.y : -p->box_half.y),
                  p->box_offset.z + ((k & 4) ? p->box_half.z : -p->box_half.z));
}

static sim_vec3 box_corner(const double *y, const sim_vehicle_params *p, int k)
{
    sim_quat q = {y[3], y[4], y[5], y[6]};
    return sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(q, box_offset_corner(p, k)));
}

/* One contact: point pt on the chassis, unit normal n pushing the chassis out, depth,
 * velocity of the other side. Normal impulse with restitution and Coulomb friction. */
static void contact_impulse(const sim_vehicle_params *p, const sim_rigid_props *props, double *y,
                            sim_vec3 pt, sim_vec3 n, double depth, sim_vec3 other_vel)
{
    sim_vec3 vrel = sim_v3_sub(sim_rigid_point_velocity(y, pt), other_vel);
    double vn = sim_v3_dot(vrel, n);
    if (vn < 0.0) {
        double jn = -(1.0 + p->restitution) * vn / sim_rigid_inv_mass_along(props, y, pt, n);
        sim_rigid_apply_impulse(props, y, pt, sim_v3_scale(n, jn));
        sim_vec3 vt = sim_v3_madd(vrel, n, -vn);
        double vtl = sim_v3_len(vt);
        if (vtl > 1e-9) {
            sim_vec3 t = sim_v3_scale(vt, 1.0 / vtl);
            double jt = vtl / sim_rigid_inv_mass_along(props, y, pt, t);
            double lim = p->body_friction * jn;
            sim_rigid_apply_impulse(props, y, pt, sim_v3_scale(t, -(jt < lim ? jt : lim)));
        }
    }
    /* Push most of the way out so that resting contact does not sink. */
    double push = 0.8 * depth;
    y[0] += n.x * push;
    y[1] += n.y * push;
    y[2] += n.z * push;
}

/* Deepest penetration of point w (world) into an oriented box; false if outside. */
static bool point_in_box(sim_vec3 w, sim_vec3 centre, sim_quat q, sim_vec3 half, sim_vec3 *normal,
                         double *depth)
{
    sim_vec3 l = sim_quat_unrotate(q, sim_v3_sub(w, centre));
    double d[3] = {half.x - fabs(l.x), half.y - fabs(l.y), half.z - fabs(l.z)};
    if (d[0] <= 0 || d[1] <= 0 || d[2] <= 0)
        return false;
    int a = d[0] < d[1] ? (d[0] < d[2] ? 0 : 2) : (d[1] < d[2] ? 1 : 2);
    sim_vec3 nl = sim_v3(a == 0 ? (l.x >= 0 ? 1 : -1) : 0, a == 1 ? (l.y >= 0 ? 1 : -1) : 0,
                         a == 2 ? (l.z >= 0 ? 1 : -1) : 0);
    *normal = sim_quat_rotate(q, nl);
    *depth = d[a];
    return true;
}

/* True when corner c is certainly above the ground: the ground rises at most max_slope
 * per metre from where it was looked up last for this corner. Otherwise looks it up
 * (height only where the ground offers that), remembers it in cache, and says whether
 * c is above it. */
static bool corner_clear(const sim_vehicle_ground *ground, sim_vec3 c, double *cache)
{
    if (cache && ground->max_slope > 0.0 && cache[2] == cache[2]) {
        double d = sqrt((c.x - cache[0]) * (c.x - cache[0]) + (c.y - cache[1]) * (c.y - cache[1]));
        if (c.z - cache[2] > ground->max_slope * d)
            return true;
    }
    double h = NAN;
    if (ground->height) {
        h = ground->height(ground->ctx, c.x, c.y);
    } else {
        sim_ground_sample g;
        if (sim_vehicle_ground_at(ground, c.x, c.y, &g))
            h = g.height;
    }
    if (cache) {
        cache[0] = c.x;
        cache[1] = c.y;
        cache[2] = h;
    }
    return !(h >= c.z); /* no ground (NaN) is clear too */
}

void sim_vehicle_collide(const sim_vehicle_params *p, const sim_rigid_props *props, double *y,
                         const sim_vehicle_ground *ground, const sim_box *boxes, size_t n_boxes,
                         double (*corner_ground)[3])
{
    sim_vec3 zero = {0, 0, 0};
    /* While the body is upright its top corners stay above its bottom ones, so only a
     * car on its side or roof needs them tested against the ground. */
    sim_mat3 rot = sim_mat3_from_quat((sim_quat){y[3], y[4], y[5], y[6]});
    int corners = rot.m[2][2] > 0.5 ? 4 : 8;
    for (int k = 0; k < corners; k++) {
        sim_vec3 c = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_mat3_rotate(&rot, box_offset_corner(p, k)));
        sim_ground_sample g;
        /* Clear of the ground: no contact, no full sample. */
        if (!ground || corner_clear(ground, c, corner_ground && k < 4 ? corner_ground[k] : NULL))
            continue;
        if (!sim_vehicle_ground_at(ground, c.x, c.y, &g))
            continue;
        sim_vec3 n = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
        double depth = (g.height - c.z) * n.z;
        if (depth > 0.0)
            contact_impulse(p, props, y, c, n, depth, zero);
    }
    sim_quat qs = {y[3], y[4], y[5], y[6]};
    sim_vec3 own_centre = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(qs, p->box_offset));
    for (size_t b = 0; b < n_boxes; b++) {
        const sim_box *bx = &boxes[b];
        sim_quat qb = sim_quat_from_euler(0, 0, bx->heading);
        sim_vec3 bc = sim_v3(bx->center[0], bx->center[1], bx->center[2]);
        sim_vec3 bh = sim_v3(bx->half[0], bx->half[1], bx->half[2]);
        sim_vec3 bv = sim_v3(bx->velocity[0], bx->velocity[1], bx->velocity[2]);
        sim_vec3 n;
        double depth;
        for (int k = 0; k < 8; k++) { /* our corners inside the obstacle */
            sim_vec3 c = box_corner(y, p, k);
            if (point_in_box(c, bc, qb, bh, &n, &depth))
                contact_impulse(p, props, y, c, n, depth, bv);
        }
        for (int k = 0; k < 8; k++) { /* the obstacle's corners inside us */
            sim_vec3 lc = sim_v3((k & 1) ? bh.x : -bh.x, (k & 2) ? bh.y : -bh.y, (k & 4) ? bh.z : -bh.z);
            sim_vec3 c = sim_v3_add(bc, sim_quat_rotate(qb, lc));
            qs = (sim_quat){y[3], y[4], y[5], y[6]};
            own_centre = sim_v3_add(sim_v3(y[0], y[1], y[2]), sim_quat_rotate(qs, p->box_offset));
            if (point_in_box(c, own_centre, qs, p->box_half, &n, &depth))
                contact_impulse(p, props, y, c, sim_v3_scale(n, -1.0), depth, bv);
        }
    }
}

/* ---- the full model ---- */

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

static void full_deriv(void *vctx, double time, double h, const double *y, double *dy)
{
    /* Forces, torques and velocities are worked in the body frame (x forward, y left,
     * z up): the suspension axis is then just z and most products drop out; only the
     * wheel centres (for the ground) and the ground normals cross frames. */
    const full_ctx *ctx = vctx;
    const sim_vehicle *v = ctx->v;
    const sim_vehicle_params *p = &v->p;
    const sim_tire_params *tp = &p->tire;
    sim_rigid_props props = sim_vehicle_chassis_props(p, true);
    /* The integrator's intermediate states leave the quaternion off unit length by
     * O(h^2); one Newton step of 1/sqrt (no division, no square root) brings it back
     * to within the square of that. */
    double qn = y[3] * y[3] + y[4] * y[4] + y[5] * y[5] + y[6] * y[6], qs = 1.5 - 0.5 * qn;
    sim_quat q = {y[3] * qs, y[4] * qs, y[5] * qs, y[6] * qs};
    if (!(fabs(qn - 1.0) < 1e-4))
        q = sim_quat_normalize((sim_quat){y[3], y[4], y[5], y[6]});
    sim_mat3 rot = sim_mat3_from_quat(q);
    sim_vec3 pos = sim_v3(y[0], y[1], y[2]);
    sim_vec3 vb = sim_mat3_unrotate(&rot, sim_v3(y[7], y[8], y[9]));
    sim_vec3 wb = sim_v3(y[10], y[11], y[12]);
    sim_vec3 gb = sim_v3_scale(sim_v3(rot.m[2][0], rot.m[2][1], rot.m[2][2]), -SIM_GRAVITY);
    sim_vec3 force = {0, 0, 0}, torque = {0, 0, 0}; /* body frame */
    double susp[SIM_WHEELS], travel[SIM_WHEELS], wheel_rel[SIM_WHEELS];
    sim_vec3 arm[SIM_WHEELS], vcentre[SIM_WHEELS];
    double other_torque[SIM_WHEELS], fz_all[SIM_WHEELS], kappa_all[SIM_WHEELS];
    double fade_x_all[SIM_WHEELS];
    double cx_slope, cy_slope;
    tire_slopes(tp, &cx_slope, &cy_slope);

    /* Suspension: travel rates and spring/damper forces. */
    for (int i = 0; i < SIM_WHEELS; i++) {
        const double *wy = y + SIM_VY_WHEEL(i);
        const sim_suspension_params *s = i < 2 ? &p->susp_front : &p->susp_rear;
        travel[i] = wy[SIM_VW_TRAVEL];
        arm[i] = v->hardpoint[i];
        arm[i].z += travel[i];
        sim_vec3 vpt = sim_v3_add(vb, sim_v3_cross(wb, arm[i]));
        wheel_rel[i] = wy[SIM_VW_VEL] - vpt.z;
        vcentre[i] = sim_v3(vpt.x, vpt.y, wy[SIM_VW_VEL]);
        susp[i] = suspension_force(s, travel[i], wheel_rel[i]);
        dy[SIM_VY_WHEEL(i) + SIM_VW_TRAVEL] = wheel_rel[i];
    }
    /* Anti-roll bars: force on the wheel pair proportional to their travel difference. */
    for (int axle = 0; axle < 2; axle++) {
        const sim_suspension_params *s = axle == 0 ? &p->susp_front : &p->susp_rear;
        int l = 2 * axle, r = 2 * axle + 1;
        double f = s->antiroll_rate * (travel[l] - travel[r]);
        susp[l] += f;
        susp[r] -= f;
    }

    /* Tyres. */
    for (int i = 0; i < SIM_WHEELS; i++) {
        const double *wy = y + SIM_VY_WHEEL(i);
        double *dw = dy + SIM_VY_WHEEL(i);
        double spin = wy[SIM_VW_SPIN], ux = wy[SIM_VW_UX], uy = wy[SIM_VW_UY];
        double delta = i < 2 ? y[SIM_VY_STEER(i)] : 0.0;
        sim_vec3 centre = sim_v3_add(pos, sim_mat3_rotate(&rot, arm[i]));
        wheel_eval we = {.centre = centre, .steer = delta};
        sim_ground_sample g;
        double fz = 0.0, fx = 0.0, fy = 0.0, mz = 0.0, r_eff = tp->radius, ax = 0.0;
        double kappa = ux / tp->relaxation_x, sy = uy / tp->relaxation_y;
        double dux = -ux * 50.0, duy = -uy * 50.0; /* airborne: the tread relaxes */
        double fade = 0.0;
        bool contact = false;
        if (ctx->patch[i].ok) {
            g = ctx->patch[i].g;
            sim_vec3 gn = sim_v3(g.normal[0], g.normal[1], g.normal[2]);
            double dist = sim_v3_dot(sim_v3_sub(centre, ctx->patch[i].p0), gn);
            double pen = tp->radius - dist;
            if (pen > 0.0) {
                contact = true;
                sim_vec3 n = sim_mat3_unrotate(&rot, gn);
                double sd, cd;
                steer_sin_cos(v, i, delta, &sd, &cd);
                /* Wheel heading projected on the ground plane, and its left side. */
                sim_vec3 fg = sim_v3(cd, sd, 0.0);
                fg = sim_v3_madd(fg, n, -sim_v3_dot(fg, n));
                double fl = sim_v3_len(fg);
                fg = fl > 1e-9 ? sim_v3_scale(fg, 1.0 / fl) : sim_v3(1, 0, 0);
                sim_vec3 lg = sim_v3_cross(n, fg);
                double vx = sim_v3_dot(vcentre[i], fg), vy = sim_v3_dot(vcentre[i], lg);
                double vn = sim_v3_dot(vcentre[i], n);
                fz = tp->vertical_stiffness * pen - tp->vertical_damping * vn;
                if (fz < 0.0)
                    fz = 0.0;
                r_eff = tp->radius - pen / 3.0;
                ax = fabs(vx);
                double vsx = spin * r_eff - vx, vsy = -vy;
                /* Deflection (relaxation-length) dynamics: at speed the slips settle to
                 * (omega r - vx)/|vx| and -vy/|vx| within a relaxation length. */
                dux = vsx - ax * ux / tp->relaxation_x;
                duy = vsy - ax * uy / tp->relaxation_y;
                if (fabs(kappa) > 1.0 && ux * dux > 0.0)
                    dux = 0.0; /* fully sliding: the tread cannot deflect further */
                if (fabs(sy) > 2.0 && uy * duy > 0.0)
                    duy = 0.0;
                if (kappa > 1.0)
                    kappa = 1.0;
                if (kappa < -1.0)
                    kappa = -1.0;
                /* The aligning moment is only reported (force feedback): its yaw moment
                 * on the chassis, 1-2 % of the lateral forces', is left out of the
                 * integration, as the car-model paper leaves it out entirely. */
                sim_tire_forces tf = ctx->out ? sim_tire_eval(tp, fz, kappa, sy, g.friction)
                                              : sim_tire_eval_forces(tp, fz, kappa, sy, g.friction);
                fx = tf.fx;
                fy = tf.fy;
                mz = tf.mz;
                /* Below walking pace the deflection spring gets damping, or a standing
                 * car would rock on its tyres for ever. */
                if (ax < LOW_SPEED) {
                    double vslip = sqrt(vsx * vsx + vsy * vsy);
                    double vfade = ax > vslip ? ax : vslip;
                    fade = vfade < LOW_SPEED ? 1.0 - vfade / LOW_SPEED : 0.0;
                }
                if (fade > 0.0) {
                    fx += DAMP_X * cx_slope * fz / tp->relaxation_x * vsx * fade;
                    fy += DAMP_Y * cy_slope * fz / tp->relaxation_y * vsy * fade;
                    double dx, dyp;
                    sim_tire_peak_force(tp, fz, g.friction, &dx, &dyp);
                    double e = (dx > 0.0 && dyp > 0.0) ? hypot(fx / dx, fy / dyp) : INFINITY;
                    if (e > 1.0) {
                        fx /= e;
                        fy /= e;
                    }
                }
                sim_vec3 ft = sim_v3_add(sim_v3_add(sim_v3_scale(fg, fx), sim_v3_scale(lg, fy)),
                                         sim_v3_scale(n, fz));
                /* The horizontal (body x-y) part goes to the chassis at the contact
                 * point; the vertical part to the wheel. */
                sim_vec3 fh = sim_v3(ft.x, ft.y, 0.0);
                sim_vec3 cp = sim_v3_madd(arm[i], n, -dist);
                force = sim_v3_add(force, fh);
                torque = sim_v3_add(torque, sim_v3_cross(cp, fh));
                dw[SIM_VW_VEL] = (ft.z - susp[i]) / p->unsprung_mass + gb.z;
                we.friction = g.friction;
                we.roughness = g.roughness;
            }
        }
        if (!contact)
            dw[SIM_VW_VEL] = -susp[i] / p->unsprung_mass + gb.z;
        dw[SIM_VW_UX] = dux;
        dw[SIM_VW_UY] = duy;
        /* Suspension force pushes the chassis along its z axis at the wheel. */
        force.z += susp[i];
        torque = sim_v3_add(torque, sim_v3(arm[i].y * susp[i], -arm[i].x * susp[i], 0.0));
        /* Rolling resistance as a torque against the spin, smooth through zero. */
        double vr = spin * r_eff;
        double rr = tp->rolling_resistance * fz * r_eff * vr / (fabs(vr) + 0.1);
        other_torque[i] = -fx * r_eff - rr;
        fz_all[i] = fz;
        kappa_all[i] = kappa;
        fade_x_all[i] = ax;
        we.contact = contact;
        we.load = fz;
        we.fx = fx;
        we.fy = fy;
        we.mz = mz;
        we.kappa = kappa;
        we.slip_y = sy;
        if (ctx->out)
            ctx->out->w[i] = we;
    }

    /* Engine, clutch, gearbox, differential. */
    const sim_vehicle_controls *in = &v->in;
    double we_omega = y[SIM_VY_ENGINE];
    double te = sim_engine_torque(&p->engine, we_omega, in->throttle);
    double ratio = sim_gearbox_ratio(&p->gearbox, v->gear);
    double eng = ratio != 0.0 ? sim_clutch_engagement(&p->clutch, we_omega, in->clutch,
                                                      v->shift_timer > 0.0, v->clutch_locked)
                              : 0.0;
    int d0 = p->drive == SIM_DRIVE_REAR ? SIM_WHEEL_RL : SIM_WHEEL_FL, d1 = d0 + 1;
    double iw_drive = d0 < 2 ? p->wheel_inertia_front : p->wheel_inertia_rear;
    double drive[SIM_WHEELS] = {0, 0, 0, 0};
    double tc = 0.0;
    if (eng > 0.0) {
        double cap = eng * p->clutch.torque_max;
        double eta = p->gearbox.efficiency * (in->automatic ? p->gearbox.auto_efficiency : 1.0);
        double slip = we_omega - ratio * 0.5 * (y[SIM_VY_WHEEL(d0) + SIM_VW_SPIN] +
                                                y[SIM_VY_WHEEL(d1) + SIM_VW_SPIN]);
        double base = te / p->engine.inertia -
                      ratio / (2.0 * iw_drive) * (other_torque[d0] + other_torque[d1]) + slip / h;
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
        drive[d0] = 0.5 * tc * ratio * eta + lock;
        drive[d1] = 0.5 * tc * ratio * eta - lock;
    }
    dy[SIM_VY_ENGINE] = (te - tc) / p->engine.inertia;

    /* Brakes, with ABS holding the slip near the tyre's peak: each front wheel on its
     * own, the rear axle "select-low" (both rear wheels get the pressure of the one
     * that would lock first, as in production ABS): on split friction the rear keeps
     * its side grip and holds the car straight instead of braking it into a spin. */
    double abs_share[SIM_WHEELS] = {1.0, 1.0, 1.0, 1.0};
    if (p->brakes.abs_enabled && in->brake > 0.0) {
        for (int i = 0; i < SIM_WHEELS; i++) {
            if (fade_x_all[i] > 2.0 && fz_all[i] > 0.0) {
                double kp;
                sim_tire_peak_slip(tp, fz_all[i], &kp, NULL);
                double x = (kappa_all[i] + 1.3 * kp) / (0.5 * kp);
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
        double others = drive[i] + other_torque[i];
        double tb = sim_brake_torque(iw, spin, others, limit, h);
        dy[SIM_VY_WHEEL(i) + SIM_VW_SPIN] = (others + tb) / iw;
    }

    /* Steering system: a first-order lag towards the Ackermann angles of the input. */
    dy[SIM_VY_STEER(0)] = (v->steer_target[0] - y[SIM_VY_STEER(0)]) / p->steer_time;
    dy[SIM_VY_STEER(1)] = (v->steer_target[1] - y[SIM_VY_STEER(1)]) / p->steer_time;

    /* Air drag at the COG. */
    double speed = sim_v3_len(vb);
    force = sim_v3_madd(force, vb, -0.5 * p->air_density * p->drag_coefficient *
                                       p->frontal_area * speed);

    sim_rigid_derivative_body(&props, y, force, torque, dy);
    /* Gravity as an acceleration: the sprung mass vertically, the whole car
     * horizontally, matching the per-axis masses. */
    dy[9] -= SIM_GRAVITY;
    if (ctx->out) {
        ctx->out->clutch = eng;
        ctx->out->accel_world = sim_v3(dy[7], dy[8], dy[9]);
    }
    (void)time;
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

/* Static travel of a corner carrying sprung load (Newton on the spring law). */
static double static_travel(const sim_suspension_params *s, double load)
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
        double tr = static_travel(front ? &p->susp_front : &p->susp_rear,
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

static void full_step(sim_vehicle *v, const sim_vehicle_ground *ground, const sim_box *boxes,
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
    case SIM_VEHICLE_FULL: full_step(v, ground, boxes, n_boxes, dt); break;
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
