/* sim_motion_platform: platform files, inverse kinematics and the actuator limiter
 * (sim_motion_platform.h). */
#include "sim_motion_platform.h"

#include <math.h>
#include <string.h>

#include "sim_json.h"

static const char *const kind_names[] = {"hexapod", "seat2", "seat3", NULL};

const char *sim_motion_kind_name(sim_motion_kind k)
{
    return k >= 0 && k <= SIM_MOTION_SEAT3 ? kind_names[k] : "?";
}

static int joints(sim_json *j, const cJSON *root, const char *key, int legs, double out[][3])
{
    const cJSON *a;
    char p[SIM_JSON_PATH_MAX], q[SIM_JSON_PATH_MAX];
    int rc = sim_json_array(j, root, "", key, true, &a);
    if (rc) return rc;
    if (cJSON_GetArraySize(a) != legs)
        return sim_json_fail(j, SIM_EINVAL, key, "%d joints, expected %d for this kind", cJSON_GetArraySize(a), legs);
    for (int i = 0; i < legs; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        sim_json_index_path(p, key, i);
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) return sim_json_found(j, p, v, "[x, y, z] in m");
        for (int k = 0; k < 3 && !rc; k++)
            rc = sim_json_number(j, cJSON_GetArrayItem(v, k), sim_json_index_path(q, p, k), -10, 10, &out[i][k]);
        if (rc) return rc;
    }
    return SIM_OK;
}

static int range(sim_json *j, const cJSON *o, const char *key, double unit, double *lo, double *hi)
{
    char p[SIM_JSON_PATH_MAX];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    sim_json_key_path(p, "workspace", key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2) return sim_json_found(j, p, v, "[min, max]");
    int rc = sim_json_number(j, cJSON_GetArrayItem(v, 0), p, -1e3, 0, lo);
    if (!rc) rc = sim_json_number(j, cJSON_GetArrayItem(v, 1), p, 0, 1e3, hi);
    *lo *= unit;
    *hi *= unit;
    return rc;
}

int sim_motion_platform_parse(const char *text, size_t len, const char *file, sim_motion_platform *pf,
                              sim_error *err)
{
    static const char *const top[] = {"name", "kind", "base_joints", "platform_joints", "pivot", "actuator",
                                      "workspace", "fade_s", "washout"};
    static const char *const act[] = {"min_length", "max_length", "max_velocity", "max_acceleration"};
    static const char *const ws[] = {"x", "y", "z", "roll_deg", "pitch_deg", "yaw_deg"};
    sim_json j = {.file = file, .err = err};
    cJSON *root = NULL;
    memset(pf, 0, sizeof *pf);
    sim_motion_washout_defaults(&pf->washout);
    int rc = sim_json_parse(&j, text, len, &root);
    if (!rc) rc = sim_json_object(&j, root, "");
    if (!rc) rc = sim_json_keys(&j, root, "", top, 9);
    if (!rc) rc = sim_json_strcpy(&j, root, "", "name", true, pf->name, sizeof pf->name);
    int kind = 0;
    if (!rc) rc = sim_json_enum(&j, root, "", "kind", -1, kind_names, -1, &kind);
    pf->kind = (sim_motion_kind)kind;
    pf->legs = kind == SIM_MOTION_HEXAPOD ? 6 : kind == SIM_MOTION_SEAT2 ? 2 : 3;
    for (int i = 0; i < 6; i++)
        pf->dof[i] = kind == SIM_MOTION_HEXAPOD || i == SIM_MOTION_ROLL || i == SIM_MOTION_PITCH ||
                     (kind == SIM_MOTION_SEAT3 && i == SIM_MOTION_Z);
    if (!rc) rc = joints(&j, root, "base_joints", pf->legs, pf->base);
    if (!rc) rc = joints(&j, root, "platform_joints", pf->legs, pf->top);
    if (!rc && cJSON_GetObjectItemCaseSensitive(root, "pivot")) {
        const cJSON *pv = cJSON_GetObjectItemCaseSensitive(root, "pivot");
        if (!cJSON_IsArray(pv) || cJSON_GetArraySize(pv) != 3) rc = sim_json_found(&j, "pivot", pv, "[x, y, z] in m");
        for (int k = 0; k < 3 && !rc; k++) rc = sim_json_number(&j, cJSON_GetArrayItem(pv, k), "pivot", -10, 10, &pf->pivot[k]);
    }
    const cJSON *a = rc ? NULL : cJSON_GetObjectItemCaseSensitive(root, "actuator");
    if (!rc) rc = sim_json_object(&j, a, "actuator");
    if (!rc) rc = sim_json_keys(&j, a, "actuator", act, 4);
    if (!rc) rc = sim_json_num(&j, a, "actuator", "min_length", true, 0, SIM_JSON_POS, 0, 0, &pf->len_min);
    if (!rc) rc = sim_json_num(&j, a, "actuator", "max_length", true, 0, SIM_JSON_POS, 0, 0, &pf->len_max);
    if (!rc) rc = sim_json_num(&j, a, "actuator", "max_velocity", true, 0, SIM_JSON_POS, 0, 0, &pf->vel_max);
    if (!rc) rc = sim_json_num(&j, a, "actuator", "max_acceleration", true, 0, SIM_JSON_POS, 0, 0, &pf->acc_max);
    if (!rc && !(pf->len_min < pf->len_max))
        rc = sim_json_fail(&j, SIM_EINVAL, "actuator", "min_length %g not below max_length %g", pf->len_min, pf->len_max);
    const cJSON *w = rc ? NULL : cJSON_GetObjectItemCaseSensitive(root, "workspace");
    if (!rc) rc = sim_json_object(&j, w, "workspace");
    if (!rc) rc = sim_json_keys(&j, w, "workspace", ws, 6);
    for (int i = 0; i < 6 && !rc; i++) {
        if (!pf->dof[i]) continue; /* a reduced base: that entry stays 0 */
        rc = range(&j, w, ws[i], i < 3 ? 1 : M_PI / 180, &pf->ws_lo[i], &pf->ws_hi[i]);
    }
    if (!rc) rc = sim_json_num(&j, root, "", "fade_s", false, 2.0, SIM_JSON_RANGE, 0.1, 30, &pf->fade_s);
    if (!rc) rc = sim_motion_washout_read(&j, cJSON_GetObjectItemCaseSensitive(root, "washout"), "washout", &pf->washout);
    for (int i = 0; i < pf->legs && !rc; i++)
        for (int k = 0; k < 3; k++) {
            pf->arm[i][k] = pf->top[i][k] - pf->pivot[k];
            pf->reach[i][k] = pf->pivot[k] - pf->base[i][k];
        }
    if (!rc) {
        /* neutral must be inside the strokes, or nothing is reachable */
        double zero[6] = {0}, l[SIM_MOTION_LEGS];
        sim_motion_ik(pf, zero, l);
        for (int i = 0; i < pf->legs && !rc; i++)
            if (l[i] < pf->len_min || l[i] > pf->len_max)
                rc = sim_json_fail(&j, SIM_EINVAL, "actuator", "actuator %d is %.4f m long at neutral, outside [%g, %g]",
                                   i, l[i], pf->len_min, pf->len_max);
    }
    cJSON_Delete(root);
    return rc;
}

/* sin and cos of x: for the angles a motion base turns (|x| <= 0.5 rad, 28.6 deg) their
 * Taylor series to x^15 and x^16 (the next terms are below 1e-19, under half an ulp),
 * within 1 ulp of libm's (checked every 1.3e-6 rad) without a call; beyond, sincos. */
static inline void small_sincos(double x, double *s, double *c)
{
    if (!(fabs(x) <= 0.5)) {
        sincos(x, s, c);
        return;
    }
    double z = x * x;
    double ps = -1.0 / 1307674368000.0;
    ps = ps * z + 1.0 / 6227020800.0;
    ps = ps * z - 1.0 / 39916800.0;
    ps = ps * z + 1.0 / 362880.0;
    ps = ps * z - 1.0 / 5040.0;
    ps = ps * z + 1.0 / 120.0;
    ps = ps * z - 1.0 / 6.0;
    double pc = 1.0 / 20922789888000.0;
    pc = pc * z - 1.0 / 87178291200.0;
    pc = pc * z + 1.0 / 479001600.0;
    pc = pc * z - 1.0 / 3628800.0;
    pc = pc * z + 1.0 / 40320.0;
    pc = pc * z - 1.0 / 720.0;
    pc = pc * z + 1.0 / 24.0;
    *s = x + x * (z * ps);
    *c = 1.0 + z * (pc * z - 0.5);
}

/* R = Rz(yaw) Ry(pitch) Rx(roll) of pose q; trig, when not NULL, gets sin and cos of
 * roll and pitch. */
static void rotation_trig(const double q[6], double R[3][3], double trig[4])
{
    double cr, sr, cp, sp, cy, sy;
    small_sincos(q[3], &sr, &cr); /* the limiter's inverse kinematics is most of a step */
    small_sincos(q[4], &sp, &cp);
    small_sincos(q[5], &sy, &cy);
    if (trig) trig[0] = sr, trig[1] = cr, trig[2] = sp, trig[3] = cp;
    double M[3][3] = {{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
                      {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
                      {-sp, cp * sr, cp * cr}};
    memcpy(R, M, sizeof M);
}

static void rotation(const double q[6], double R[3][3])
{
    rotation_trig(q, R, NULL);
}

/* Where point p of the moving frame is at pose q: t + c + R (p - c). */
static void place(const sim_motion_platform *pf, const double q[6], const double R[3][3], const double *p,
                  double out[3])
{
    const double *c = pf->pivot;
    for (int k = 0; k < 3; k++)
        out[k] = q[k] + c[k] + R[k][0] * (p[0] - c[0]) + R[k][1] * (p[1] - c[1]) + R[k][2] * (p[2] - c[2]);
}

void sim_motion_head(const sim_motion_platform *pf, const double q[6], double head[3])
{
    double R[3][3];
    rotation(q, R);
    place(pf, q, R, (double[3]){0, 0, 0}, head);
}

/* The inverse kinematics, with sin and cos of roll and pitch into trig (NULL: not). */
static inline __attribute__((always_inline)) void ik_trig(const sim_motion_platform *pf, const double q[6], double len[SIM_MOTION_LEGS], double trig[4])
{
    double R[3][3];
    rotation_trig(q, R, trig);
    for (int i = 0; i < pf->legs; i++) {
        /* moving joint - base joint = t + (c - base) + R (top - c) */
        const double *a = pf->arm[i], *r = pf->reach[i];
        double d0 = q[0] + r[0] + R[0][0] * a[0] + R[0][1] * a[1] + R[0][2] * a[2];
        double d1 = q[1] + r[1] + R[1][0] * a[0] + R[1][1] * a[1] + R[1][2] * a[2];
        double d2 = q[2] + r[2] + R[2][0] * a[0] + R[2][1] * a[1] + R[2][2] * a[2];
        len[i] = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
    }
}

void sim_motion_ik(const sim_motion_platform *pf, const double q[6], double len[SIM_MOTION_LEGS])
{
    ik_trig(pf, q, len, NULL);
}

void sim_motion_limiter_reset(const sim_motion_platform *pf, sim_motion_limiter *l)
{
    memset(l, 0, sizeof *l);
    double trig[4];
    ik_trig(pf, l->pose, l->len, trig);
    l->sin_roll = trig[0], l->cos_roll = trig[1], l->sin_pitch = trig[2], l->cos_pitch = trig[3];
}

/* what the check forgives: Newton leaves 1e-12 m, which is 1e-8 m/s^2 over a 0.01 s step squared */
#define SLACK 1e-6

unsigned sim_motion_check(const sim_motion_platform *pf, const sim_motion_limiter *l,
                          const double len[SIM_MOTION_LEGS], double dt)
{
    unsigned bits = 0;
    for (int i = 0; i < pf->legs; i++) {
        double v = (len[i] - l->len[i]) / dt, a = (v - l->vel[i]) / dt;
        if (len[i] > pf->len_max + SLACK || len[i] < pf->len_min - SLACK) bits |= SIM_MOTION_HIT_LENGTH;
        if (fabs(v) > pf->vel_max + SLACK) bits |= SIM_MOTION_HIT_VELOCITY;
        if (fabs(a) > pf->acc_max + SLACK) bits |= SIM_MOTION_HIT_ACCEL;
    }
    return bits;
}

/* The fastest an actuator may move this step towards a stroke end d m away and still
 * stop before it at acc_max, one step at a time: after this step's travel v dt the rest
 * must cover the stop, v^2 / (2 a); v = -a dt + sqrt((a dt)^2 + 2 a d). Kept every
 * step, it stays reachable from the last step's velocity minus a dt. */
static double brake_speed(double d, double a, double dt)
{
    return d <= 0 ? 0 : -a * dt + sqrt(a * a * dt * dt + 2 * a * d);
}

/* One actuator's next length towards want: the acceleration, velocity and braking
 * limits, in that order of precedence (acceleration is what the hardware can do).
 * Sets *bits for what limited it. */
/* Whether v may be above brake_speed(d, a, dt), by the square of v + a dt against
 * (a dt)^2 + 2 a d with room for rounding: false only where it surely is not, so the
 * square root is taken only near a stroke end (the same result as taking it always). */
static bool may_exceed(double v, double d, double a, double dt)
{
    double s = v + a * dt;
    return d <= 0 || (s > 0 && s * s >= (a * a * dt * dt + 2 * a * d) * (1 - 1e-9));
}

static double limit_leg(const sim_motion_platform *pf, double len, double vel, double want, double dt,
                        double inv_dt, unsigned *bits)
{
    double a = pf->acc_max, v = (want - len) * inv_dt;
    if (may_exceed(v, pf->len_max - len, a, dt)) {
        double up = brake_speed(pf->len_max - len, a, dt);
        if (v > up) v = up, *bits |= SIM_MOTION_HIT_LENGTH;
    }
    if (may_exceed(-v, len - pf->len_min, a, dt)) {
        double down = -brake_speed(len - pf->len_min, a, dt);
        if (v < down) v = down, *bits |= SIM_MOTION_HIT_LENGTH;
    }
    if (v > pf->vel_max) v = pf->vel_max, *bits |= SIM_MOTION_HIT_VELOCITY;
    if (v < -pf->vel_max) v = -pf->vel_max, *bits |= SIM_MOTION_HIT_VELOCITY;
    if (v > vel + a * dt) v = vel + a * dt, *bits |= SIM_MOTION_HIT_ACCEL;
    if (v < vel - a * dt) v = vel - a * dt, *bits |= SIM_MOTION_HIT_ACCEL;
    return len + v * dt;
}

/* Forward kinematics near q: the pose (only the base's degrees of freedom move) whose
 * lengths are len, by Newton's method with a numerical Jacobian; q is the start and
 * the result. Returns the largest length error left. */
static double forward(const sim_motion_platform *pf, const double len[SIM_MOTION_LEGS], double q[6])
{
    int idx[6], n = 0;
    for (int k = 0; k < 6; k++)
        if (pf->dof[k]) idx[n++] = k;
    double err = INFINITY;
    for (int it = 0; it < 20; it++) {
        double l0[SIM_MOTION_LEGS], J[6][7];
        sim_motion_ik(pf, q, l0);
        err = 0;
        for (int i = 0; i < pf->legs; i++) err = fmax(err, fabs(l0[i] - len[i]));
        if (err < 1e-12) break;
        for (int c = 0; c < n; c++) {
            double qh[6], lh[SIM_MOTION_LEGS], h = 1e-7;
            memcpy(qh, q, sizeof qh);
            qh[idx[c]] += h;
            sim_motion_ik(pf, qh, lh);
            for (int i = 0; i < n; i++) J[i][c] = (lh[i] - l0[i]) / h;
        }
        for (int i = 0; i < n; i++) J[i][n] = len[i] - l0[i];
        /* Gaussian elimination with partial pivoting on the n x (n+1) system */
        for (int c = 0; c < n; c++) {
            int p = c;
            for (int r = c + 1; r < n; r++)
                if (fabs(J[r][c]) > fabs(J[p][c])) p = r;
            if (fabs(J[p][c]) < 1e-12) return err; /* singular: keep the last pose */
            for (int k = 0; k <= n; k++) {
                double t = J[c][k];
                J[c][k] = J[p][k];
                J[p][k] = t;
            }
            for (int r = 0; r < n; r++) {
                if (r == c) continue;
                double f = J[r][c] / J[c][c];
                for (int k = c; k <= n; k++) J[r][k] -= f * J[c][k];
            }
        }
        for (int c = 0; c < n; c++) q[idx[c]] += J[c][n] / J[c][c];
    }
    return err;
}

unsigned sim_motion_limit(const sim_motion_platform *pf, sim_motion_limiter *l, const double want[6],
                          double dt, double pose[6], double len[SIM_MOTION_LEGS])
{
    unsigned bits = 0;
    double w[6], lw[SIM_MOTION_LEGS];
    for (int k = 0; k < 6; k++) {
        w[k] = pf->dof[k] ? want[k] : 0;
        if (w[k] < pf->ws_lo[k]) w[k] = pf->ws_lo[k], bits |= SIM_MOTION_HIT_WORKSPACE;
        if (w[k] > pf->ws_hi[k]) w[k] = pf->ws_hi[k], bits |= SIM_MOTION_HIT_WORKSPACE;
    }
    double trig[4];
    ik_trig(pf, w, lw, trig);
    unsigned leg_bits = 0;
    double inv_dt = 1 / dt; /* a product a leg instead of a quotient */
    for (int i = 0; i < pf->legs; i++) len[i] = limit_leg(pf, l->len[i], l->vel[i], lw[i], dt, inv_dt, &leg_bits);
    memcpy(pose, w, sizeof w);
    if (leg_bits) {
        /* an actuator was held back: the pose its lengths make, from the last one; the
         * lengths then are that pose's (equal to within Newton's 1e-12 m) */
        memcpy(pose, l->pose, 6 * sizeof *pose);
        forward(pf, len, pose);
        ik_trig(pf, pose, len, trig);
    }
    l->sin_roll = trig[0], l->cos_roll = trig[1], l->sin_pitch = trig[2], l->cos_pitch = trig[3];
    for (int i = 0; i < pf->legs; i++) {
        l->vel[i] = (len[i] - l->len[i]) * inv_dt;
        l->len[i] = len[i];
    }
    memcpy(l->prev, l->pose, sizeof l->prev);
    memcpy(l->pose, pose, sizeof l->pose);
    return bits | leg_bits;
}
