/* Unit tests of sim_rigid: the integrators' orders of convergence, the undamped spring
 * of the car-model paper's figure 7, rigid-body derivatives and impulses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_rigid.h"

/* Harmonic oscillator x'' = -x as y = (x, v). */
static void oscillator(void *ctx, double t, double h, const double *y, double *dy)
{
    dy[0] = y[1];
    dy[1] = -y[0];
}

/* Error at t = 2 of x(t) = cos t integrated with step h. */
static double error_at_2(sim_integrator m, double h)
{
    double y[2] = {1.0, 0.0}, work[10];
    int n = (int)lround(2.0 / h);
    for (int i = 0; i < n; i++)
        sim_integrator_step(m, oscillator, NULL, i * h, h, y, 2, work);
    return hypot(y[0] - cos(2.0), y[1] + sin(2.0));
}

/* Halving the step divides the global error by 2^order: 2, 4, 16. */
static void integrators_converge_at_their_order(void **state)
{
    const double expect[3] = {2.0, 4.0, 16.0};
    for (int m = 0; m < 3; m++) {
        double e1 = error_at_2((sim_integrator)m, 0.02), e2 = error_at_2((sim_integrator)m, 0.01);
        double ratio = e1 / e2;
        printf("%-8s error %.3e -> %.3e, ratio %.2f (expected %.0f)\n",
               sim_integrator_name((sim_integrator)m), e1, e2, ratio, expect[m]);
        assert_true(ratio > 0.9 * expect[m] && ratio < 1.1 * expect[m]);
    }
}

/* Figure 7: the same undamped spring (k = m = 1, step 0.1 s, 20 periods) gains energy
 * without bound under Euler, by a factor (1 + h^2)^n, and stays within a few per cent
 * under midpoint. */
static void euler_spring_explodes_midpoint_stays(void **state)
{
    double h = 0.1, work[10];
    int n = (int)(20 * 2 * M_PI / h);
    double energy[2];
    sim_integrator ms[2] = {SIM_INTEGRATOR_EULER, SIM_INTEGRATOR_MIDPOINT};
    for (int k = 0; k < 2; k++) {
        double y[2] = {1.0, 0.0};
        for (int i = 0; i < n; i++)
            sim_integrator_step(ms[k], oscillator, NULL, i * h, h, y, 2, work);
        energy[k] = 0.5 * (y[0] * y[0] + y[1] * y[1]) / 0.5;
    }
    printf("energy after 20 periods: euler x%.1f, midpoint x%.4f\n", energy[0], energy[1]);
    assert_true(fabs(energy[0] - pow(1.0 + h * h, n)) / energy[0] < 1e-9);
    assert_true(energy[0] > 100.0);
    /* Midpoint's amplification |1 - h^2/2 + ih|^2 = 1 + h^4/4 per step: 3 % here. */
    assert_true(fabs(energy[1] - pow(1.0 + h * h * h * h / 4.0, n)) / energy[1] < 1e-9);
    assert_true(energy[1] < 1.05);
}

static void integrator_names_round_trip(void **state)
{
    sim_integrator m;
    sim_error err = {0};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sim_integrator_parse(sim_integrator_name((sim_integrator)i), &m, &err), 0);
        assert_int_equal(m, i);
        assert_int_equal(sim_integrator_evaluations(m), i == 0 ? 1 : i == 1 ? 2 : 4);
    }
    assert_int_equal(sim_integrator_parse("verlet", &m, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "verlet"));
    assert_non_null(strstr(err.msg, "expected euler, midpoint or rk4"));
}

static void quaternions_rotate_and_round_trip(void **state)
{
    sim_quat q = sim_quat_from_euler(0.1, -0.2, 2.5);
    double r, p, y;
    sim_quat_to_euler(q, &r, &p, &y);
    assert_true(fabs(r - 0.1) < 1e-12 && fabs(p + 0.2) < 1e-12 && fabs(y - 2.5) < 1e-12);
    /* A yaw of 90 degrees takes x to y. */
    sim_vec3 v = sim_quat_rotate(sim_quat_from_euler(0, 0, M_PI / 2), sim_v3(1, 0, 0));
    assert_true(fabs(v.x) < 1e-12 && fabs(v.y - 1.0) < 1e-12 && fabs(v.z) < 1e-12);
    sim_vec3 back = sim_quat_unrotate(q, sim_quat_rotate(q, sim_v3(1, 2, 3)));
    assert_true(fabs(back.x - 1) < 1e-12 && fabs(back.y - 2) < 1e-12 && fabs(back.z - 3) < 1e-12);
}

typedef struct body_ctx {
    sim_rigid_props props;
} body_ctx;

static void free_body(void *ctx, double t, double h, const double *y, double *dy)
{
    body_ctx *b = ctx;
    sim_rigid_derivative(&b->props, y, sim_v3(0, 0, 0), sim_v3(0, 0, 0), dy);
}

/* A torque-free body spinning about a non-principal axis keeps its kinetic energy and
 * the magnitude of its angular momentum (RK4, 2 s). */
static void free_rotation_conserves_momentum(void **state)
{
    body_ctx b = {{1400, 1400, {500, 2000, 2200}}};
    double y[SIM_RIGID_STATE_LEN] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0.3, 0.01, 0.5};
    double work[5 * SIM_RIGID_STATE_LEN];
    double L0 = hypot(hypot(500 * 0.3, 2000 * 0.01), 2200 * 0.5);
    double E0 = 0.5 * (500 * 0.09 + 2000 * 1e-4 + 2200 * 0.25);
    for (int i = 0; i < 2000; i++)
        sim_integrator_step(SIM_INTEGRATOR_RK4, free_body, &b, i * 1e-3, 1e-3, y, SIM_RIGID_STATE_LEN, work);
    double L = hypot(hypot(500 * y[10], 2000 * y[11]), 2200 * y[12]);
    double E = 0.5 * (500 * y[10] * y[10] + 2000 * y[11] * y[11] + 2200 * y[12] * y[12]);
    assert_true(fabs(L - L0) / L0 < 1e-9);
    assert_true(fabs(E - E0) / E0 < 1e-9);
}

/* An impulse through the centre changes only the velocity, by J/m; off centre it also
 * spins the body, and n^T K n predicts the velocity change along n. */
static void impulses_match_effective_mass(void **state)
{
    sim_rigid_props props = {100, 100, {10, 20, 30}};
    double y[SIM_RIGID_STATE_LEN] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    sim_rigid_apply_impulse(&props, y, sim_v3(0, 0, 0), sim_v3(50, 0, 0));
    assert_true(fabs(y[7] - 0.5) < 1e-12 && y[10] == 0 && y[11] == 0 && y[12] == 0);
    sim_vec3 p = sim_v3(0, 1, 0), n = sim_v3(1, 0, 0);
    double k = sim_rigid_inv_mass_along(&props, y, p, n);
    assert_true(fabs(k - (1.0 / 100 + 1.0 / 30)) < 1e-12); /* 1/m + r^2/Izz */
    double before = sim_v3_dot(sim_rigid_point_velocity(y, p), n);
    sim_rigid_apply_impulse(&props, y, p, sim_v3(3, 0, 0));
    double after = sim_v3_dot(sim_rigid_point_velocity(y, p), n);
    assert_true(fabs((after - before) - 3 * k) < 1e-12);
    assert_true(y[12] < 0.0); /* a push in +x at +y turns clockwise */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrators_converge_at_their_order),
        cmocka_unit_test(euler_spring_explodes_midpoint_stays),
        cmocka_unit_test(integrator_names_round_trip),
        cmocka_unit_test(quaternions_rotate_and_round_trip),
        cmocka_unit_test(free_rotation_conserves_momentum),
        cmocka_unit_test(impulses_match_effective_mass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
