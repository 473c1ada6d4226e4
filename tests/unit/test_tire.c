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

/* The 205/60R15 91V car tyre of Pacejka, Tyre and Vehicle Dynamics (2nd ed. 2006),
 * appendix 3, table A3.1 (R0 0.313 m, Fz0 4000 N), pure-slip coefficients; pDy1, pDy2
 * and pKy1 with the table's ISO signs flipped (sim_tire.h). The brush values are the
 * reference vehicle file's. */
static sim_tire_params book_tire(void)
{
    /* not prepared: libm on every call, the reference for the tables */
    sim_tire_params t = {
        .model = SIM_TIRE_PACEJKA, .radius = 0.313, .fz0 = 4000, .lambda_mux = 1, .lambda_muy = 1,
        .pcx1 = 1.685, .pdx1 = 1.210, .pdx2 = -0.037, .pex1 = 0.344, .pex2 = 0.095,
        .pex3 = -0.020, .pkx1 = 21.51, .pkx2 = -0.163, .pkx3 = 0.245,
        .pcy1 = 1.193, .pdy1 = 0.990, .pdy2 = -0.145, .pey1 = -1.003, .pey2 = -0.537,
        .pky1 = 14.95, .pky2 = 2.130,
        .qbz1 = 8.964, .qbz2 = -1.106, .qbz3 = -0.842, .qcz1 = 1.180, .qdz1 = 0.100,
        .qdz2 = -0.001, .qez1 = -1.609, .qez2 = -0.359,
        .brush_cx = 12, .brush_cy = 9, .brush_mu = 1.0, .brush_mu_load = -0.15,
        .brush_half_length = 0.08};
    return t;
}

#define DEG (M_PI / 180.0)

/* The figures below were worked out by hand from the table (checked with a separate
 * script), at the nominal load Fz = Fz0 = 4000 N, dfz = 0:
 *   lateral:  Cy = 1.193, Dy = 0.990 Fz = 3960 N, Ey = -1.003,
 *             Ky = 14.95 Fz0 sin(2 atan(1 / 2.130)) = 46 009.1 N/rad,
 *             By = Ky / (Cy Dy) = 9.73887;
 *             peak: Cy atan(g) = pi/2, g = 2.003 u - 1.003 atan u = tan(pi / 2.386)
 *             = 3.8508 -> u = 2.51954, tan(alpha) = u / By = 0.25871, alpha = 14.50 deg.
 *   longitudinal: Cx = 1.685, Dx = 1.210 Fz = 4840 N, Ex = 0.344,
 *             Kx = 21.51 Fz = 86 040 N, Bx = Kx / (Cx Dx) = 10.55006;
 *             peak: 0.656 u + 0.344 atan u = tan(pi / 3.37) = 1.34565 -> u = 1.53293,
 *             kappa = 0.14530.
 * The lateral peak lies far out because Cy is close to 1: the curve's top is flat
 * (sin(Cy pi/2) = 0.954 of the peak is left at infinite slip); the force reaches 70 %
 * of its peak at 4 deg, 95.5 % at 8 deg. */
static void magic_formula_matches_table_a3_1(void **state)
{
    sim_tire_params t = book_tire();
    double kp, sp;
    sim_tire_peak_slip(&t, 4000, &kp, &sp);
    printf("Fz0: peak at kappa %.4f, at slip angle %.2f deg\n", kp, atan(sp) / DEG);
    assert_true(fabs(kp - 0.14530) < 1e-4);
    assert_true(fabs(atan(sp) / DEG - 14.50) < 0.01);
    /* the peaks are D and they are maxima */
    sim_tire_forces f = sim_tire_eval(&t, 4000, kp, 0, 1.0);
    assert_true(fabs(f.fx - 4840.0) < 1e-6);
    assert_true(sim_tire_eval(&t, 4000, kp * 1.05, 0, 1.0).fx < f.fx);
    assert_true(sim_tire_eval(&t, 4000, kp * 0.95, 0, 1.0).fx < f.fx);
    double fy_peak = sim_tire_eval(&t, 4000, 0, sp, 1.0).fy;
    assert_true(fabs(fy_peak - 3960.0) < 1e-6);
    assert_true(sim_tire_eval(&t, 4000, 0, sp * 1.05, 1.0).fy < fy_peak);
    assert_true(sim_tire_eval(&t, 4000, 0, sp * 0.95, 1.0).fy < fy_peak);
    /* points on the curves (hand: Fy(4 deg) 2781.09 N, Fy(8 deg) 3780.65 N,
     * Fx(kappa 0.05) 3467.65 N) */
    assert_true(fabs(sim_tire_eval(&t, 4000, 0, tan(4 * DEG), 1.0).fy - 2781.09) < 0.01);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0, tan(8 * DEG), 1.0).fy - 3780.65) < 0.01);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0.05, 0, 1.0).fx - 3467.65) < 0.01);
    /* The slopes at zero slip are the stiffnesses B C D = K exactly (the curve is
     * B C D x (1 + O(x^2)), so a slip of 1e-7 reads it to 1e-12). */
    double e = 1e-7;
    double kx = sim_tire_eval(&t, 4000, e, 0, 1.0).fx / e;
    double ky = sim_tire_eval(&t, 4000, 0, e, 1.0).fy / e;
    double ky_expect = 14.95 * 4000 * sin(2.0 * atan(1.0 / 2.130));
    assert_true(fabs(kx - 21.51 * 4000) / (21.51 * 4000) < 1e-9);
    assert_true(fabs(ky - ky_expect) / ky_expect < 1e-9);
    assert_true(fabs(ky_expect - 46009.1) < 0.1);
    printf("Kx %.0f N, Ky %.0f N/rad (%.0f N/deg)\n", kx, ky, ky * DEG);
}

/* Load sensitivity at Fz = 8000 N (dfz = 1), by hand: mu_y = 0.990 - 0.145 = 0.845,
 * Dy = 6760 N; mu_x = 1.210 - 0.037 = 1.173, Dx = 9384 N;
 * Ky = 14.95 Fz0 sin(2 atan(2 / 2.130)) = 59 681.6 N/rad (less than twice the Ky of
 * Fz0: the stiffness saturates with load); Kx = 8000 (21.51 - 0.163) e^0.245
 * = 218 187 N; Ey = -1.54, Ex = 0.419, and the peaks move to 16.63 deg and kappa
 * 0.1153. The road factor scales the peak. */
static void load_sensitivity_and_road_friction(void **state)
{
    sim_tire_params t = book_tire();
    double kp, sp;
    sim_tire_peak_slip(&t, 8000, &kp, &sp);
    assert_true(fabs(sim_tire_eval(&t, 8000, 0, sp, 1.0).fy - 6760.0) < 1e-6);
    assert_true(fabs(sim_tire_eval(&t, 8000, kp, 0, 1.0).fx - 9384.0) < 1e-6);
    assert_true(fabs(atan(sp) / DEG - 16.632) < 0.01);
    assert_true(fabs(kp - 0.11527) < 1e-4);
    double e = 1e-7;
    assert_true(fabs(sim_tire_eval(&t, 8000, 0, e, 1.0).fy / e - 59681.6) < 0.1);
    assert_true(fabs(sim_tire_eval(&t, 8000, e, 0, 1.0).fx / e - 218187.1) < 0.1);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0, 10.0, 0.3).fy) <= 0.3 * 3960 + 1e-9);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0.5, 0, 0.3).fx) <= 0.3 * 4840 + 1e-9);
    /* no load, no road: no force */
    sim_tire_forces z = sim_tire_eval(&t, 0, 0.1, 0.1, 1.0);
    assert_true(z.fx == 0 && z.fy == 0 && z.mz == 0);
    z = sim_tire_eval(&t, 4000, 0.1, 0.1, 0.0);
    assert_true(z.fx == 0 && z.fy == 0);
}

/* The prepared tyre (lookup tables for atan, sin(C atan g), Kx/Fz and the peaks over
 * the load) gives the libm formula's forces to 1e-6 of the load over the whole slip
 * range and loads from 1 to 9 kN, with the table's load-dependent curvatures; past the
 * load table (dfz > 3) it computes. */
static void prepared_tables_match_formula(void **state)
{
    sim_tire_params exact = book_tire(), fast = book_tire();
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
    sim_tire_forces e, f;
    /* past the load table, and far out (past the atan table) at huge slips */
    e = sim_tire_eval(&exact, 20000, 0.05, 0.1, 1.0);
    f = sim_tire_eval(&fast, 20000, 0.05, 0.1, 1.0);
    assert_true(fabs(e.fx - f.fx) < 1e-3 && fabs(e.fy - f.fy) < 1e-3);
    e = sim_tire_eval(&exact, 6000, 30.0, 80.0, 1.0);
    f = sim_tire_eval(&fast, 6000, 30.0, 80.0, 1.0);
    assert_true(fabs(e.fx - f.fx) < 6e-3 && fabs(e.fy - f.fy) < 6e-3);
    /* a shape factor changed after preparing falls back to the formula (tables made
     * for 1.193 would be off by several per cent of the load here) */
    fast.pcy1 = exact.pcy1 = 1.3;
    e = sim_tire_eval(&exact, 6000, 0.05, 0.1, 1.0);
    f = sim_tire_eval(&fast, 6000, 0.05, 0.1, 1.0);
    assert_true(fabs(e.fy - f.fy) < 1e-6);
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
        double dx = m ? 4000 : 4840, dy = m ? 4000 : 3960;
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

/* Aligning moment Mz = -t Fy at Fz0, by hand: Bt = 8.964, Ct = 1.180, Et = -1.609,
 * Dt = qDz1 R0 = 0.0313 m. It opposes the slip; at small slip the trail is Dt; the
 * trail passes zero where Ct atan(g) = pi/2, g = 2.609 u - 1.609 atan u = tan(pi/2.36)
 * -> u = 2.28300, tan(alpha) = u / Bt = 0.25469, alpha = 14.29 deg, just before the
 * side force peaks (14.50 deg): the steering goes light as the tyre saturates, and the
 * moment changes sign beyond. |Mz| peaks at 63.70 N m near 4.07 deg (Mz(4 deg)
 * = -63.68 N m). */
static void aligning_moment_centres_and_fades(void **state)
{
    sim_tire_params t = book_tire();
    double e = 1e-6;
    sim_tire_forces f = sim_tire_eval(&t, 4000, 0, e, 1.0);
    assert_true(f.mz < 0.0);
    assert_true(fabs(-f.mz / f.fy - 0.0313) < 1e-9);
    assert_true(fabs(sim_tire_eval(&t, 4000, 0, tan(4 * DEG), 1.0).mz + 63.68) < 0.01);
    assert_true(sim_tire_eval(&t, 4000, 0, tan(14.2 * DEG), 1.0).mz < 0.0);
    assert_true(sim_tire_eval(&t, 4000, 0, tan(14.4 * DEG), 1.0).mz > 0.0);
    assert_true(sim_tire_eval(&t, 4000, 0, -tan(14.2 * DEG), 1.0).mz > 0.0); /* odd */
    double mz_max = 0.0, at = 0.0;
    for (double a = 0.01; a < 20.0; a += 0.01) {
        double mz = -sim_tire_eval(&t, 4000, 0, tan(a * DEG), 1.0).mz;
        if (mz > mz_max) {
            mz_max = mz;
            at = a;
        }
    }
    printf("aligning moment: peak %.2f N m at %.2f deg, trail zero near 14.29 deg\n", mz_max, at);
    assert_true(fabs(mz_max - 63.70) < 0.01 && fabs(at - 4.07) < 0.015);
    /* prepared, the same moment */
    sim_tire_params fast = book_tire();
    sim_tire_prepare(&fast);
    assert_true(fabs(sim_tire_eval(&fast, 4000, 0, tan(4 * DEG), 1.0).mz + 63.68) < 0.01);
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
        cmocka_unit_test(magic_formula_matches_table_a3_1),
        cmocka_unit_test(load_sensitivity_and_road_friction),
        cmocka_unit_test(prepared_tables_match_formula),
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
