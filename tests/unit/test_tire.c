/* Unit tests of sim_tire (Magic Formula, friction ellipse, brush model, aligning
 * moment) and sim_powertrain (engine curve, clutch, shift rule, brakes, differential). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "sim_powertrain.h"
#include "sim_tire.h"

/* The 205/60R15 coefficients of the reference vehicle file. */
static sim_tire_params book_tire(void)
{
    /* (peak_ux/peak_uy left 0: computed per call, the path without sim_tire_prepare) */
    sim_tire_params t = {
        .model = SIM_TIRE_PACEJKA, .radius = 0.3, .fz0 = 4000, .lambda_mux = 1, .lambda_muy = 1,
        .pcx1 = 1.65, .pdx1 = 1.0, .pdx2 = 0.0, .pex1 = -0.5, .pex2 = 0.0, .pkx1 = 12, .pkx2 = 10,
        .pkx3 = -0.6, .pcy1 = 1.3, .pdy1 = 1.0, .pdy2 = -0.15, .pey1 = -1.0, .pey2 = 0.0,
        .pky1 = 10, .pky2 = 1.5, .qbz1 = 6, .qbz2 = -4, .qbz3 = 0.6, .qcz1 = 1.05, .qdz1 = 0.12,
        .qdz2 = -0.03, .qez1 = -10, .qez2 = 0, .brush_cx = 12, .brush_cy = 9, .brush_mu = 1.0,
        .brush_mu_load = -0.15, .brush_half_length = 0.08};
    return t;
}

/* Pure slip at nominal load: the peak equals D = mu Fz at the computed peak slip, the
 * slope at zero slip equals the stiffness Kx = Fz pKx1 and Ky = pKy1 Fz0 sin(2 atan(1/pKy2)). */
static void magic_formula_peak_and_slope(void **state)
{
    sim_tire_params t = book_tire();
    double kp, sp;
    sim_tire_peak_slip(&t, 4000, &kp, &sp);
    sim_tire_forces f = sim_tire_eval(&t, 4000, kp, 0, 1.0);
    assert_true(fabs(f.fx - 4000.0) < 0.01);
    assert_true(sim_tire_eval(&t, 4000, kp * 1.05, 0, 1.0).fx < f.fx);
    assert_true(sim_tire_eval(&t, 4000, kp * 0.95, 0, 1.0).fx < f.fx);
    double fy_peak = sim_tire_eval(&t, 4000, 0, sp, 1.0).fy;
    assert_true(fabs(fy_peak - 4000.0) < 0.01);
    double e = 1e-6;
    double kx = sim_tire_eval(&t, 4000, e, 0, 1.0).fx / e;
    assert_true(fabs(kx - 12.0 * 4000) / (12.0 * 4000) < 1e-4);
    double ky = sim_tire_eval(&t, 4000, 0, e, 1.0).fy / e;
    double ky_expect = 10.0 * 4000 * sin(2.0 * atan(1.0 / 1.5));
    assert_true(fabs(ky - ky_expect) / ky_expect < 1e-4);
    printf("peak slip %.3f, peak slip angle %.1f deg, Kx %.0f N, Ky %.0f N/rad\n", kp,
           atan(sp) * 180 / M_PI, kx, ky);
}

/* The tabulated curves of a prepared tyre give the formula's forces to 1e-6 of the
 * load over the whole slip range, both models' inputs and loads from 1 to 9 kN. */
static void prepared_tables_match_formula(void **state)
{
    sim_tire_params exact = book_tire(), fast = book_tire();
    exact.pex2 = exact.pey2 = 0.0;
    sim_tire_prepare(&fast);
    double worst = 0.0;
    for (double fz = 1000; fz <= 9000; fz += 2000) {
        for (double k = -1.2; k <= 1.2; k += 0.0037) {
            for (double a = -2.0; a <= 2.0; a += 0.0731) {
                sim_tire_forces e = sim_tire_eval(&exact, fz, k, a, 1.0);
                sim_tire_forces f = sim_tire_eval(&fast, fz, k, a, 1.0);
                double err = fmax(fabs(e.fx - f.fx), fabs(e.fy - f.fy)) / fz;
                worst = err > worst ? err : worst;
            }
        }
    }
    printf("tabulated Magic Formula: worst error %.2e of Fz\n", worst);
    assert_true(worst < 1e-6);
    /* and a load-dependent curvature falls back to the formula */
    fast.pey2 = 0.3;
    exact.pey2 = 0.3;
    sim_tire_forces e = sim_tire_eval(&exact, 6000, 0.05, 0.1, 1.0);
    sim_tire_forces f = sim_tire_eval(&fast, 6000, 0.05, 0.1, 1.0);
    assert_true(e.fy == f.fy);
}

/* Load sensitivity: lateral friction (pDy1 + pDy2 dfz) falls from 1 at Fz0 to 0.85 at
 * 2 Fz0; the road factor scales the peak. */
static void load_sensitivity_and_road_friction(void **state)
{
    sim_tire_params t = book_tire();
    double sp;
    sim_tire_peak_slip(&t, 8000, NULL, &sp);
    assert_true(fabs(sim_tire_eval(&t, 8000, 0, sp, 1.0).fy - 0.85 * 8000) < 0.1);
    sim_tire_peak_slip(&t, 4000, NULL, &sp);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0, 10.0, 0.3).fy) <= 0.3 * 4000 + 1e-9);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0.5, 0, 0.3).fx) <= 0.3 * 4000 + 1e-9);
    /* no load, no road: no force */
    sim_tire_forces z = sim_tire_eval(&t, 0, 0.1, 0.1, 1.0);
    assert_true(z.fx == 0 && z.fy == 0 && z.mz == 0);
    z = sim_tire_eval(&t, 4000, 0.1, 0.1, 0.0);
    assert_true(z.fx == 0 && z.fy == 0);
}

/* Friction ellipse: for any combination of slips the force stays inside the ellipse
 * with the two peak forces as semi-axes, and at both peaks combined lies on it. */
static void combined_slip_stays_in_friction_ellipse(void **state)
{
    sim_tire_params t = book_tire();
    for (int m = 0; m < 2; m++) {
        t.model = m ? SIM_TIRE_BRUSH : SIM_TIRE_PACEJKA;
        double kp, sp;
        sim_tire_peak_slip(&t, 4000, &kp, &sp);
        double dx = 4000 * (m ? 1.0 : 1.0), dy = 4000;
        for (double a = -1.0; a <= 1.0; a += 0.1) {
            for (double k = -1.0; k <= 1.0; k += 0.1) {
                sim_tire_forces f = sim_tire_eval(&t, 4000, k, a, 1.0);
                double r = (f.fx / dx) * (f.fx / dx) + (f.fy / dy) * (f.fy / dy);
                assert_true(r <= 1.0 + 1e-9);
            }
        }
        double c = M_SQRT1_2;
        sim_tire_forces f = sim_tire_eval(&t, 4000, kp * c, sp * c, 1.0);
        double r = (f.fx / dx) * (f.fx / dx) + (f.fy / dy) * (f.fy / dy);
        assert_true(fabs(r - 1.0) < 1e-6);
        /* braking while cornering costs lateral force */
        assert_true(sim_tire_eval(&t, 4000, -0.1, sp * 0.5, 1.0).fy <
                    sim_tire_eval(&t, 4000, 0.0, sp * 0.5, 1.0).fy);
    }
}

/* Aligning moment: opposes the slip (pneumatic trail behind the centre), equals
 * -t0 Fy at small slip with t0 = qDz1 R0 at Fz0, and vanishes as the tyre slides. */
static void aligning_moment_centres_and_fades(void **state)
{
    sim_tire_params t = book_tire();
    double e = 1e-4;
    sim_tire_forces f = sim_tire_eval(&t, 4000, 0, e, 1.0);
    assert_true(f.mz < 0.0);
    assert_true(fabs(-f.mz / f.fy - 0.12 * 0.3) < 1e-4);
    sim_tire_forces slide = sim_tire_eval(&t, 4000, 0, tan(0.6), 1.0);
    assert_true(fabs(slide.mz) < 0.2 * fabs(sim_tire_eval(&t, 4000, 0, 0.05, 1.0).mz));
    t.model = SIM_TIRE_BRUSH;
    assert_true(sim_tire_eval(&t, 4000, 0, 0.02, 1.0).mz < 0.0);
    assert_true(sim_tire_eval(&t, 4000, 0, 1.0, 1.0).mz == 0.0);
}

/* Brush model by hand: F = mu Fz (1 - (1 - x)^3) with x = C s / (3 mu Fz). */
static void brush_model_matches_hand_solution(void **state)
{
    sim_tire_params t = book_tire();
    t.model = SIM_TIRE_BRUSH;
    double s = 0.05, x = 9.0 * 4000 * s / (3.0 * 4000);
    double expect = 4000 * (1.0 - pow(1.0 - x, 3));
    assert_true(fabs(sim_tire_eval(&t, 4000, 0, s, 1.0).fy - expect) < 1e-6);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0.5, 0, 1.0).fx - 4000) < 1e-6);
    /* the load sensitivity: mu 0.85 at 2 Fz0 */
    assert_true(fabs(sim_tire_eval(&t, 8000, 2.0, 0, 1.0).fx - 0.85 * 8000) < 1e-6);
}

static sim_engine_params engine(void)
{
    sim_engine_params e = {.n_points = 3, .curve_rpm = {1000, 4000, 6000},
                           .curve_factor = {0.5, 1.0, 0.8}, .torque_max = 200, .inertia = 0.15,
                           .friction0 = 10, .friction1 = 0.05, .idle_rpm = 800, .max_rpm = 6000};
    return e;
}

static void engine_curve_is_linear_segments(void **state)
{
    sim_engine_params e = engine();
    assert_true(sim_engine_curve(&e, 500) == 0.5);
    assert_true(fabs(sim_engine_curve(&e, 2500) - 0.75) < 1e-12);
    assert_true(fabs(sim_engine_curve(&e, 5000) - 0.9) < 1e-12);
    assert_true(sim_engine_curve(&e, 6001) == 0.0); /* limiter */
    double w = 2500 / 60.0 * 2 * M_PI;
    /* Full throttle gives the curve; half throttle half of it minus half the friction. */
    assert_true(fabs(sim_engine_torque(&e, w, 1.0) - 150.0) < 1e-9);
    double fr = 10 + 0.05 * w;
    assert_true(fabs(sim_engine_torque(&e, w, 0.5) - (75.0 - 0.5 * fr)) < 1e-9);
    assert_true(fabs(sim_engine_torque(&e, w, 0.0) + fr) < 1e-9);
    /* The idle governor opens the throttle below idle. */
    assert_true(sim_engine_throttle(&e, 500 / 60.0 * 2 * M_PI, 0.0) > 0.0);
    assert_true(sim_engine_throttle(&e, 1500 / 60.0 * 2 * M_PI, 0.0) == 0.0);
}

static void clutch_engages_with_speed_and_holds_when_locked(void **state)
{
    sim_clutch_params c = {.torque_max = 300, .engage_rpm = 3000, .disengage_rpm = 1000};
    double k = 2 * M_PI / 60.0;
    assert_true(sim_clutch_engagement(&c, 900 * k, 0, false, false) == 0.0);
    assert_true(fabs(sim_clutch_engagement(&c, 2000 * k, 0, false, false) - 0.5) < 1e-12);
    assert_true(sim_clutch_engagement(&c, 3500 * k, 0, false, false) == 1.0);
    assert_true(sim_clutch_engagement(&c, 1500 * k, 0, false, true) == 1.0);
    assert_true(sim_clutch_engagement(&c, 900 * k, 0, false, true) == 0.0); /* near stall */
    assert_true(sim_clutch_engagement(&c, 3500 * k, 1.0, false, true) == 0.0); /* pedal */
    assert_true(sim_clutch_engagement(&c, 3500 * k, 0, true, true) == 0.0);    /* shifting */
}

/* Torque advantage: first gear is kept to the limiter, then second; a slow car in fifth
 * at full throttle goes down; part throttle moves up past econ rpm. */
static void automatic_shifts_on_torque_advantage(void **state)
{
    sim_engine_params e = engine();
    sim_gearbox_params g = {.n_gears = 5, .ratio = {4.23, 2.52, 1.66, 1.22, 1.0}, .final_drive = 3.38,
                            .reverse_ratio = 4.04};
    double k = 2 * M_PI / 60.0, r1 = 4.23 * 3.38;
    assert_int_equal(sim_gearbox_auto_gear(&g, &e, 1, 5000 * k / r1, 1.0, 2500), 1);
    assert_int_equal(sim_gearbox_auto_gear(&g, &e, 1, 6010 * k / r1, 1.0, 2500), 2);
    assert_int_equal(sim_gearbox_auto_gear(&g, &e, 5, 1500 * k / 3.38, 1.0, 2500), 4);
    assert_int_equal(sim_gearbox_auto_gear(&g, &e, 2, 3000 * k / (2.52 * 3.38), 0.2, 2500), 3);
    assert_int_equal(sim_gearbox_auto_gear(&g, &e, 0, 10, 1.0, 2500), 0);
    assert_true(sim_gearbox_ratio(&g, -1) < 0 && sim_gearbox_ratio(&g, 0) == 0);
    assert_true(fabs(sim_gearbox_ratio(&g, 2) - 2.52 * 3.38) < 1e-12);
}

/* Brakes hold a standing wheel exactly (static friction) and slide at their limit. */
static void brakes_and_differential(void **state)
{
    assert_true(sim_brake_torque(1.0, 0.0, 300.0, 1000.0, 1e-3) == -300.0);
    assert_true(sim_brake_torque(1.0, 50.0, 0.0, 1000.0, 1e-3) == -1000.0);
    assert_true(sim_brake_torque(1.0, -50.0, 0.0, 1000.0, 1e-3) == 1000.0);
    assert_true(sim_brake_torque(1.0, 50.0, 0.0, 0.0, 1e-3) == 0.0);
    sim_brake_params b = {.torque_max_front = 2000, .torque_max_rear = 1000};
    assert_true(sim_brake_torque_max(&b, true, 0.5) == 1000 && sim_brake_torque_max(&b, false, 2) == 1000);
    sim_diff_params open = {.type = SIM_DIFF_OPEN};
    sim_diff_params lsd = {.type = SIM_DIFF_LSD, .lsd_viscous = 10, .lsd_max = 50};
    assert_true(sim_diff_locking_torque(&open, 10, 0) == 0);
    assert_true(sim_diff_locking_torque(&lsd, 12, 10) == -20); /* slows the faster left */
    assert_true(sim_diff_locking_torque(&lsd, 0, 100) == 50);  /* capped */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(magic_formula_peak_and_slope),
        cmocka_unit_test(prepared_tables_match_formula),
        cmocka_unit_test(load_sensitivity_and_road_friction),
        cmocka_unit_test(combined_slip_stays_in_friction_ellipse),
        cmocka_unit_test(aligning_moment_centres_and_fades),
        cmocka_unit_test(brush_model_matches_hand_solution),
        cmocka_unit_test(engine_curve_is_linear_segments),
        cmocka_unit_test(clutch_engages_with_speed_and_holds_when_locked),
        cmocka_unit_test(automatic_shifts_on_torque_advantage),
        cmocka_unit_test(brakes_and_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
