/* Unit tests of common/motion: the washout's step and sine responses equal the
 * continuous transfer functions solved by hand (inverse Laplace by residues, steady-state
 * gain and phase at s = j w), the tilt's rate limit, the inverse kinematics of the
 * documented hexapod and seats (config/motion/, docs/motion.md) against lengths solved
 * by hand, the limiter keeping every actuator limit on a wild wanted pose, the fade to
 * neutral, and bad platform files refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_motion.h"
#include "sim_motion_fidelity.h"
#include "sim_motion_packet.h"

#define DT 0.01
#define DEG (M_PI / 180)

static sim_motion_platform load(const char *name)
{
    char path[512], *text;
    size_t len;
    sim_error err;
    const char *root = getenv("SIM_ROOT");
    snprintf(path, sizeof path, "%s/config/motion/%s.json", root ? root : ".", name);
    assert_int_equal(sim_file_read(path, &text, &len, &err), SIM_OK);
    sim_motion_platform pf;
    int rc = sim_motion_platform_parse(text, len, path, &pf, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, SIM_OK);
    free(text);
    return pf;
}

/* The inverse Laplace transform of num(s) / prod(s - p_i) (distinct poles, deg num < n)
 * at t: sum of residues num(p_i) e^(p_i t) / prod_{j != i}(p_i - p_j). num holds s^0... */
static double inv_laplace(const double *num, int nnum, const double complex *p, int n, double t)
{
    double complex y = 0;
    for (int i = 0; i < n; i++) {
        double complex nv = 0, pk = 1, d = 1;
        for (int k = 0; k < nnum; k++, pk *= p[i]) nv += num[k] * pk;
        for (int j = 0; j < n; j++)
            if (j != i) d *= p[i] - p[j];
        y += nv * cexp(p[i] * t) / d;
    }
    return creal(y);
}

/* The poles of s^2 + 2 z w s + w^2 (z < 1). */
static void poles2(double w, double z, double complex *p)
{
    double wd = w * sqrt(1 - z * z);
    p[0] = -z * w + I * wd;
    p[1] = -z * w - I * wd;
}

static sim_motion_washout make(sim_motion_washout_params *p)
{
    sim_motion_washout w;
    sim_error err;
    assert_int_equal(sim_motion_washout_init(&w, p, DT, &err), SIM_OK);
    return w;
}

static sim_motion_washout_params params(void)
{
    sim_motion_washout_params p;
    sim_motion_washout_defaults(&p);
    p.tilt_rate_max = 100; /* linear: the rate limit has its own case */
    p.tilt_max = 1.5;
    return p;
}

/* A surge step of 1 m/s^2 (scale 0.5 -> u = 0.5): the platform's acceleration is
 * u L^-1{s^2 / ((s^2 + 2 z w s + w^2)(s + wb))} and its position u L^-1{1 / (same)}:
 * with w = 2.5, z = 0.7, wb = 0.5 the acceleration starts at u, crosses 0 and the
 * position returns to 0. */
static void surge_step_is_the_transfer_function(void **state)
{
    sim_motion_washout_params p = params();
    sim_motion_washout w = make(&p);
    double complex poles[3];
    poles2(2.5, 0.7, poles);
    poles[2] = -0.5;
    double u = 0.5, worst_a = 0, worst_p = 0;
    sim_motion_input in = {.f = {1, 0, SIM_MOTION_G}};
    for (int k = 1; k <= 1500; k++) {
        sim_motion_cue c;
        sim_motion_washout_step(&w, &in, &c);
        /* Tustin integrates the input as a ramp between samples: the first step's input
         * is as a step at half a step before it. Compare there; Tustin's own error is
         * O((w dt)^2). */
        double t = (k - 0.5) * DT;
        double a = u * inv_laplace((double[]){0, 0, 1}, 3, poles, 3, t);
        double x = u * inv_laplace((double[]){1}, 1, poles, 3, t);
        worst_a = fmax(worst_a, fabs(c.acc[0] - a));
        worst_p = fmax(worst_p, fabs(c.pos[0] - x));
        assert_true(fabs(c.pos[1]) < 1e-15 && fabs(c.pos[2]) < 1e-15); /* no cross-talk, heave at 1 g */
    }
    fprintf(stderr, "surge worst %g %g\n", worst_a, worst_p);
    assert_true(worst_a < 5e-4 * u);
    assert_true(worst_p < 1e-4 * u);
    /* at 15 s the position has returned: e^(-0.5 * 15) */
    sim_motion_cue c;
    sim_motion_washout_step(&w, &in, &c);
    assert_true(fabs(c.pos[0]) < 1e-3);
}

/* A 0.5 Hz sine of sway force, amplitude 2 m/s^2: after the transients the platform's
 * acceleration is u |H(jw)| sin(w t + arg H(jw)) with H = s^3 / ((s^2 + 2 z w0 s + w0^2)(s + wb)). */
static void sway_sine_is_the_transfer_function(void **state)
{
    sim_motion_washout_params p = params();
    sim_motion_washout w = make(&p);
    double om = 2 * M_PI * 0.5, u = 0.5 * 2;
    double complex s = I * om;
    double complex H = s * s * s / ((s * s + 2 * 0.7 * 2.5 * s + 2.5 * 2.5) * (s + 0.5));
    double worst = 0;
    for (int k = 1; k <= 3000; k++) {
        double t = k * DT;
        sim_motion_input in = {.f = {0, 2 * sin(om * t), SIM_MOTION_G}};
        sim_motion_cue c;
        sim_motion_washout_step(&w, &in, &c);
        if (t > 20) worst = fmax(worst, fabs(c.acc[1] - u * cabs(H) * sin(om * t + carg(H))));
    }
    assert_true(cabs(H) > 0.5 && cabs(H) < 1.2); /* the case is not trivial */
    fprintf(stderr, "sway worst %g\n", worst);
    assert_true(worst < 5e-4 * u);
}

/* The tilt (rate limit off): roll = asin(u LP(t) / g) with LP's step response
 * L^-1{w^2 / (s (s^2 + 2 z w s + w^2))}, w = 3, z = 0.8; pitch = -asin for surge. */
static void tilt_step_is_the_low_pass(void **state)
{
    sim_motion_washout_params p = params();
    sim_motion_washout w = make(&p);
    double complex poles[3];
    poles2(3.0, 0.8, poles);
    poles[2] = 0;
    sim_motion_input in = {.f = {2, 1, SIM_MOTION_G}};
    double worst = 0;
    for (int k = 1; k <= 500; k++) {
        sim_motion_cue c;
        sim_motion_washout_step(&w, &in, &c);
        double lp = inv_laplace((double[]){9}, 1, poles, 3, (k - 0.5) * DT);
        worst = fmax(worst, fabs(c.tilt[0] - asin(0.5 * 1 * lp / SIM_MOTION_G)));
        worst = fmax(worst, fabs(c.tilt[1] + asin(0.5 * 2 * lp / SIM_MOTION_G)));
    }
    fprintf(stderr, "tilt worst %g\n", worst);
    assert_true(worst < 5e-5);
}

/* With the rate limit (3 deg/s) a 5 m/s^2 surge step tilts at exactly 3 deg/s until
 * asin(2.5 / g) = 14.8 deg is cut at tilt_max = 10 deg: 10 / 3 s. */
static void tilt_rate_and_angle_are_limited(void **state)
{
    sim_motion_washout_params p;
    sim_motion_washout_defaults(&p);
    sim_motion_washout w = make(&p);
    sim_motion_input in = {.f = {5, 0, SIM_MOTION_G}};
    sim_motion_cue c;
    double prev = 0;
    for (int k = 1; k <= 200; k++) {
        sim_motion_washout_step(&w, &in, &c);
        if (k > 40) assert_true(fabs(c.tilt[1] - prev + 3 * DEG * DT) < 1e-12); /* after the low-pass's rise */
        prev = c.tilt[1]; /* after the low-pass's rise */
    }
    for (int k = 0; k < 300; k++) sim_motion_washout_step(&w, &in, &c);
    assert_true(fabs(c.tilt[1] + 10 * DEG) < 1e-12);
}

/* A yaw-rate step of 0.2 rad/s (scale 0.5): angle u L^-1{1 / (s^2 + 2 z w s + w^2)},
 * w = 1, z = 0.7, rate its derivative. */
static void yaw_step_is_the_transfer_function(void **state)
{
    sim_motion_washout_params p = params();
    sim_motion_washout w = make(&p);
    double complex poles[2];
    poles2(1.0, 0.7, poles);
    sim_motion_input in = {.f = {0, 0, SIM_MOTION_G}, .w = {0, 0, 0.2}};
    double worst = 0, worst_r = 0;
    for (int k = 1; k <= 1000; k++) {
        sim_motion_cue c;
        sim_motion_washout_step(&w, &in, &c);
        worst = fmax(worst, fabs(c.ang[2] - 0.1 * inv_laplace((double[]){1}, 1, poles, 2, (k - 0.5) * DT)));
        worst_r = fmax(worst_r, fabs(c.rate[2] - 0.1 * inv_laplace((double[]){0, 1}, 2, poles, 2, (k - 0.5) * DT)));
    }
    fprintf(stderr, "yaw worst %g %g\n", worst, worst_r);
    assert_true(worst < 1e-5);
    assert_true(worst_r < 1e-5);
}

static double hyp(double dx, double dy, double dz)
{
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* The hexapod (config/motion/hexapod.json): base joints r = 1.0 at 120k +- 10 deg, z =
 * -1.9; moving joints r = 0.6 at 120k +- 50 deg, z = -1.0. By the law of cosines:
 *   neutral        L^2 = 1 + 0.36 - 1.2 cos 40 + 0.9^2           (all six)
 *   heave +0.1     L^2 = 1.36 - 1.2 cos 40 + 1.0^2
 *   yaw +10 deg    leg 0: the angle between the joints 30 deg, leg 1: 50 deg
 *   surge +0.1     leg 0: (0.6 cos 50 + 0.1 - cos 10, -0.6 sin 50 + sin 10, 0.9)
 *   roll +5 deg    leg 1: top (0.6 cos 50, 0.6 sin 50 cos 5 + 1.0 sin 5, 0.6 sin 50 sin 5 - 1.0 cos 5) */
static void hexapod_lengths_solved_by_hand(void **state)
{
    sim_motion_platform pf = load("hexapod");
    assert_int_equal(pf.legs, 6);
    double L[6], c40 = cos(40 * DEG);
    sim_motion_ik(&pf, (double[6]){0}, L);
    for (int i = 0; i < 6; i++) assert_true(fabs(L[i] - sqrt(1.36 - 1.2 * c40 + 0.81)) < 2e-6);
    assert_true(fabs(L[0] - 1.11837) < 1e-5);
    sim_motion_ik(&pf, (double[6]){0, 0, 0.1}, L);
    for (int i = 0; i < 6; i++) assert_true(fabs(L[i] - sqrt(1.36 - 1.2 * c40 + 1.0)) < 2e-6);
    sim_motion_ik(&pf, (double[6]){0, 0, 0, 0, 0, 10 * DEG}, L);
    for (int i = 0; i < 6; i += 2) {
        assert_true(fabs(L[i] - sqrt(1.36 - 1.2 * cos(30 * DEG) + 0.81)) < 2e-6);
        assert_true(fabs(L[i + 1] - sqrt(1.36 - 1.2 * cos(50 * DEG) + 0.81)) < 2e-6);
    }
    sim_motion_ik(&pf, (double[6]){0.1}, L);
    assert_true(fabs(L[0] - hyp(0.6 * cos(50 * DEG) + 0.1 - cos(10 * DEG), -0.6 * sin(50 * DEG) + sin(10 * DEG), 0.9)) < 2e-6);
    sim_motion_ik(&pf, (double[6]){0, 0, 0, 5 * DEG}, L);
    double ty = 0.6 * sin(50 * DEG) * cos(5 * DEG) + 1.0 * sin(5 * DEG);
    double tz = 0.6 * sin(50 * DEG) * sin(5 * DEG) - 1.0 * cos(5 * DEG);
    assert_true(fabs(L[1] - hyp(0.6 * cos(50 * DEG) - cos(10 * DEG), ty - sin(10 * DEG), tz + 1.9)) < 2e-6);
}

/* The inverse kinematics against its formula written out with libm's sin and cos,
 * |t + c + R (top - c) - base| with R = Rz Ry Rx: poses of every angle up to 0.5 rad
 * (the short series the kinematics uses there) and beyond (libm), on the hexapod and a
 * seat (pivot below the head); measured agreement 8.9e-16 m. */
static void ik_equals_its_formula(void **state)
{
    (void)state;
    const char *names[] = {"hexapod", "seat3"};
    double worst = 0;
    for (int n = 0; n < 2; n++) {
        sim_motion_platform pf = load(names[n]);
        uint64_t x = 44;
        for (int k = 0; k < 2000; k++) {
            double q[6];
            for (int j = 0; j < 6; j++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                double u = (double)(x >> 11) / 9007199254740992.0 * 2 - 1; /* -1..1 */
                q[j] = j < 3 ? 0.2 * u : (k < 1800 ? 0.5 : 1.2) * u;
            }
            double L[SIM_MOTION_LEGS];
            sim_motion_ik(&pf, q, L);
            double sr = sin(q[3]), cr = cos(q[3]), sp = sin(q[4]), cp = cos(q[4]), sy = sin(q[5]), cy = cos(q[5]);
            double R[3][3] = {{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
                              {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
                              {-sp, cp * sr, cp * cr}};
            const double *c = pf.pivot;
            for (int i = 0; i < pf.legs; i++) {
                double d[3];
                for (int r = 0; r < 3; r++)
                    d[r] = q[r] + c[r] + R[r][0] * (pf.top[i][0] - c[0]) + R[r][1] * (pf.top[i][1] - c[1]) +
                           R[r][2] * (pf.top[i][2] - c[2]) - pf.base[i][r];
                worst = fmax(worst, fabs(L[i] - hyp(d[0], d[1], d[2])));
            }
        }
    }
    assert_true(worst < 1e-14);
}

/* The seats (pivot 0.6 m below the head, level with the top joints): seat3 heaved by
 * 0.05 makes every actuator 0.55 m; pitched nose up by 5 deg its front joint, 0.4 m
 * ahead of the pivot, goes to (0.4 cos 5, 0, -0.6 + 0.4 sin 5) over its base
 * (0.4, 0, -1.1); seat2 ignores heave and surge (a reduced base: the same pose with
 * those entries 0). */
static void reduced_bases_solved_by_hand(void **state)
{
    sim_motion_platform s3 = load("seat3"), s2 = load("seat2");
    assert_int_equal(s3.legs, 3);
    assert_int_equal(s2.legs, 2);
    double L[6];
    sim_motion_ik(&s3, (double[6]){0, 0, 0.05}, L);
    for (int i = 0; i < 3; i++) assert_true(fabs(L[i] - 0.55) < 1e-12);
    sim_motion_ik(&s3, (double[6]){0, 0, 0, 0, -5 * DEG}, L);
    assert_true(fabs(L[0] - hyp(0.4 * cos(5 * DEG) - 0.4, 0, 0.5 + 0.4 * sin(5 * DEG))) < 1e-12);
    /* the rear ones, 0.3 m behind: (-0.3 cos 5, +-0.35, -0.6 - 0.3 sin 5) */
    assert_true(fabs(L[1] - hyp(-0.3 * cos(5 * DEG) + 0.3, 0, 0.5 - 0.3 * sin(5 * DEG))) < 1e-12);
    /* seat2 rolled 4 deg (left side up): the left joint (y = 0.3) rises by 0.3 sin 4 */
    sim_motion_ik(&s2, (double[6]){0, 0, 0, 4 * DEG}, L);
    assert_true(fabs(L[0] - hyp(0, 0.3 * cos(4 * DEG) - 0.3, 0.5 + 0.3 * sin(4 * DEG))) < 1e-12);
    assert_true(fabs(L[1] - hyp(0, -0.3 * cos(4 * DEG) + 0.3, 0.5 - 0.3 * sin(4 * DEG))) < 1e-12);
    /* the head moves when the seat turns about the pivot below it: 0.6 sin 4 to the right */
    double head[3];
    sim_motion_head(&s2, (double[6]){0, 0, 0, 4 * DEG}, head);
    assert_true(fabs(head[1] + 0.6 * sin(4 * DEG)) < 1e-12);
    sim_motion_ik(&s3, (double[6]){0, 0, 0, 0, -5 * DEG}, L);
    assert_true(L[0] > 0.53 && L[1] < 0.48);
    /* the limiter drops what a base cannot do: seat2 given heave and surge stays at 0.5 */
    sim_motion_limiter lim;
    sim_motion_limiter_reset(&s2, &lim);
    double pose[6];
    sim_motion_limit(&s2, &lim, (double[6]){0.01, 0, 0.001}, DT, pose, L);
    assert_true(pose[0] == 0 && pose[2] == 0);
    assert_true(fabs(L[0] - 0.5) < 1e-12 && fabs(L[1] - 0.5) < 1e-12);
}

/* A wanted pose jumping about the whole workspace every half second: the limiter keeps
 * every actuator's length, velocity and acceleration within its limits at every step,
 * and did have to hold them back (the case tests something). */
static void limiter_keeps_every_limit(void **state)
{
    const char *names[] = {"hexapod", "seat3", "seat2"};
    for (int n = 0; n < 3; n++) {
        sim_motion_platform pf = load(names[n]);
        sim_motion_limiter lim;
        sim_motion_limiter_reset(&pf, &lim);
        uint32_t seed = 12345;
        double want[6] = {0};
        unsigned hits = 0;
        for (int k = 0; k < 6000; k++) {
            if (k % 50 == 0)
                for (int d = 0; d < 6; d++) {
                    seed = seed * 1664525u + 1013904223u;
                    double r = (seed >> 8) / 16777216.0;
                    want[d] = 1.5 * (pf.ws_lo[d] + r * (pf.ws_hi[d] - pf.ws_lo[d]));
                }
            double pose[6], len[6];
            sim_motion_limiter before = lim;
            hits |= sim_motion_limit(&pf, &lim, want, DT, pose, len);
            unsigned bad = sim_motion_check(&pf, &before, len, DT);
            if (bad) fprintf(stderr, "%s step %d: limits %#x\n", names[n], k, bad);
            assert_int_equal(bad, 0);
            for (int i = 0; i < pf.legs; i++) assert_true(len[i] >= pf.len_min - 1e-9 && len[i] <= pf.len_max + 1e-9);
        }
        assert_true(hits & SIM_MOTION_HIT_WORKSPACE);
        assert_true(hits & (SIM_MOTION_HIT_VELOCITY | SIM_MOTION_HIT_ACCEL));
    }
}

/* The chain: a car braking at 0.8 g (specific force -7.85 m/s^2 for 3 s, then at rest),
 * faded in first and out at the end: limits kept (checked step by step), the tilt and
 * the surge cue have the car's sign, and fading out ends at neutral within fade_s plus
 * the braking of the actuators. */
static void chain_fades_to_neutral(void **state)
{
    sim_motion_platform pf = load("hexapod");
    sim_motion m;
    sim_error err;
    assert_int_equal(sim_motion_init(&m, &pf, DT, &err), SIM_OK);
    sim_motion_fade(&m, true);
    sim_motion_out o;
    sim_motion_input rest = {.f = {0, 0, SIM_MOTION_G}}, brake = {.f = {-0.8 * SIM_MOTION_G, 0, SIM_MOTION_G}};
    double min_f = 0;
    int k;
    for (k = 0; k < 1000; k++) {
        sim_motion_limiter before = m.lim;
        sim_motion_step(&m, k >= 300 && k < 600 ? &brake : &rest, &o);
        assert_int_equal(sim_motion_check(&m.pf, &before, o.len, DT), 0);
        if (k >= 300 && k < 600) min_f = fmin(min_f, o.f[0]);
    }
    assert_true(min_f < -1.0); /* the driver feels braking */
    sim_motion_step(&m, &rest, &o);
    assert_true(o.gain == 1);
    /* now a pause mid-braking: fade out */
    for (k = 0; k < 100; k++) sim_motion_step(&m, &brake, &o);
    sim_motion_fade(&m, false);
    for (k = 0; k < 1000 && !sim_motion_at_neutral(&m); k++) {
        sim_motion_limiter before = m.lim;
        sim_motion_step(&m, NULL, &o);
        assert_int_equal(sim_motion_check(&m.pf, &before, o.len, DT), 0);
    }
    assert_true(sim_motion_at_neutral(&m));
    assert_true(k * DT <= pf.fade_s + 0.5);
    double L0[6];
    sim_motion_ik(&pf, (double[6]){0}, L0);
    for (int i = 0; i < 6; i++) assert_true(fabs(o.len[i] - L0[i]) < 1e-9);
}

static void bad_files_are_refused(void **state)
{
    sim_motion_platform pf;
    sim_error err;
    const char *bad_kind = "{\"name\":\"x\",\"kind\":\"tripod\"}";
    assert_int_equal(sim_motion_platform_parse(bad_kind, strlen(bad_kind), "x.json", &pf, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "kind"));
    const char *few = "{\"name\":\"x\",\"kind\":\"seat2\",\"base_joints\":[[0,0,0]],\"platform_joints\":[]}";
    assert_int_equal(sim_motion_platform_parse(few, strlen(few), "x.json", &pf, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "1 joints, expected 2"));
    const char *neutral = "{\"name\":\"x\",\"kind\":\"seat2\",\"base_joints\":[[0,0,-1],[0,1,-1]],"
                          "\"platform_joints\":[[0,0,0],[0,1,0]],\"actuator\":{\"min_length\":0.2,"
                          "\"max_length\":0.5,\"max_velocity\":1,\"max_acceleration\":1},"
                          "\"workspace\":{\"roll_deg\":[-1,1],\"pitch_deg\":[-1,1]}}";
    assert_int_equal(sim_motion_platform_parse(neutral, strlen(neutral), "x.json", &pf, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "at neutral"));
}

/* The vestibular model: a steady specific force is felt at the otolith's gain 0.4; a
 * steady rotation fades (the canals adapt); a 1 Hz rotation is felt at |H_c(j 2 pi)|. */
static void vestibular_model_gains(void **state)
{
    sim_motion_vestibular v;
    sim_error err;
    assert_int_equal(sim_motion_vestibular_init(&v, DT, &err), SIM_OK);
    double pf[3], pw[3], peak = 0;
    for (int k = 0; k < 9000; k++) sim_motion_vestibular_step(&v, (double[3]){1, 0, 0}, (double[3]){0, 0, 0.2}, pf, pw);
    assert_true(fabs(pf[0] - 0.4) < 1e-4);
    /* the canals' step response 0.2 * L^-1{1000 s / ((s + 1/30)(s + 1/5.9)(s + 200))}
     * (177 / (30 * 5.9 * 0.005) = 200) at 90 s, half a step earlier as in the washout */
    double complex cp[3] = {-1 / 30.0, -1 / 5.9, -200};
    double want = 0.2 * inv_laplace((double[]){0, 200}, 2, cp, 3, 9000 * DT - 0.5 * DT);
    assert_true(fabs(want) > 0.002 && fabs(pw[2] - want) < 1e-5);
    assert_int_equal(sim_motion_vestibular_init(&v, DT, &err), SIM_OK);
    double complex s = I * 2 * M_PI;
    double gain = cabs(177 * s * s / ((30 * s + 1) * (5.9 * s + 1) * (0.005 * s + 1)));
    for (int k = 0; k < 6000; k++) {
        sim_motion_vestibular_step(&v, (double[3]){0}, (double[3]){sin(2 * M_PI * k * DT), 0, 0}, pf, pw);
        if (k > 5000) peak = fmax(peak, fabs(pw[0]));
    }
    assert_true(fabs(peak - gain) < 2e-3);
}

/* The comparison on series solved by hand: half the car's sine: RMSE 0.5 / sqrt 2,
 * correlation 1, no delay, no false cue; the sine 0.1 s late: delay 0.1 s; the opposite
 * sign: 20 false cues in 10 s, each while |sin| > 0.17: of the 100 samples a period
 * the 5 around each zero crossing (sin(2 pi 2 / 100) = 0.125 < 0.17 < sin(2 pi 3 / 100)
 * = 0.187) are not, so 9.0 s. */
static void fidelity_measures_solved_by_hand(void **state)
{
    enum { N = 1000 };
    static double car[N], half[N], late[N], opp[N];
    for (int i = 0; i < N; i++) {
        car[i] = sin(2 * M_PI * i * DT);
        half[i] = 0.5 * car[i];
        late[i] = sin(2 * M_PI * (i * DT - 0.1));
        opp[i] = -car[i];
    }
    sim_motion_axis_fidelity a;
    sim_motion_compare(car, half, N, DT, 0.17, &a);
    assert_true(fabs(a.rmse - 0.5 / sqrt(2)) < 1e-3);
    assert_true(fabs(a.corr - 1) < 1e-12);
    assert_true(a.delay_s == 0 && a.false_cues == 0);
    sim_motion_compare(car, late, N, DT, 0.17, &a);
    assert_true(fabs(a.delay_s - 0.1) < 1e-9);
    sim_motion_compare(car, opp, N, DT, 0.17, &a);
    assert_int_equal(a.false_cues, 20);
    assert_true(fabs(a.false_cue_s - 9.0) < 1e-9);
    assert_true(fabs(a.corr + 1) < 1e-12);
    unsigned flags[10] = {0, 1, 1, 0, 0, 4, 0, 8, 8, 8};
    double secs;
    assert_int_equal(sim_motion_stretches(flags, 10, DT, &secs), 3);
    assert_true(fabs(secs - 0.06) < 1e-12);
}

/* The datagram: the documented bytes, little-endian. */
static void packet_bytes_are_the_documented_ones(void **state)
{
    sim_motion_packet p = {.legs = 6, .seq = 0x01020304, .limits = 5, .state = SIM_MOTION_RUNNING, .t = 1.5,
                           .pose = {0.1, 0, 0, 0, 0, 0}, .len = {1, 1, 1, 1, 1, 2}}, q;
    uint8_t b[SIM_MOTION_PACKET_SIZE];
    sim_motion_packet_encode(&p, b);
    assert_memory_equal(b, "SIMM\x01\x00\x06\x00\x04\x03\x02\x01\x05\x02\x00\x00", 16);
    /* 1.5 = 0x3FF8000000000000 */
    assert_memory_equal(b + 16, "\x00\x00\x00\x00\x00\x00\xf8\x3f", 8);
    sim_error err;
    assert_int_equal(sim_motion_packet_decode(b, sizeof b, &q, &err), SIM_OK);
    assert_true(q.seq == p.seq && q.limits == 5 && q.state == SIM_MOTION_RUNNING && q.len[5] == 2 && q.pose[0] == 0.1);
    assert_int_equal(sim_motion_packet_decode(b, 119, &q, &err), SIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(surge_step_is_the_transfer_function),
        cmocka_unit_test(sway_sine_is_the_transfer_function),
        cmocka_unit_test(tilt_step_is_the_low_pass),
        cmocka_unit_test(tilt_rate_and_angle_are_limited),
        cmocka_unit_test(yaw_step_is_the_transfer_function),
        cmocka_unit_test(hexapod_lengths_solved_by_hand),
        cmocka_unit_test(reduced_bases_solved_by_hand),
        cmocka_unit_test(limiter_keeps_every_limit),
        cmocka_unit_test(chain_fades_to_neutral),
        cmocka_unit_test(bad_files_are_refused),
        cmocka_unit_test(vestibular_model_gains),
        cmocka_unit_test(fidelity_measures_solved_by_hand),
        cmocka_unit_test(packet_bytes_are_the_documented_ones),
        cmocka_unit_test(ik_equals_its_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
