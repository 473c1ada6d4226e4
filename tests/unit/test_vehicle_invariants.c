/* Invariants every vehicle model (full, simple, imaginary wall) keeps, past the limit
 * as well as below it (issue 16):
 *   - the tyres' (or, for the light models, the car's) horizontal force never exceeds
 *     the road friction times the load, beyond the tyre model's own peak;
 *   - with no throttle the mechanical energy never increases: coasting, full steer,
 *     a spin, bumps;
 *   - braking on ice (mu 0.1) is friction-limited: 100-0 km/h takes at least 300 m;
 *   - zero steer on a flat straight road keeps the heading within 0.01 deg over 10 km.
 * The reference car is the BMW 318i of vehicles/. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vehicle_support.h"

#define DT VS_DT
#define KMH VS_KMH
#define DEG VS_DEG

static sim_vehicle_params params;

static int setup(void **state)
{
    (void)state;
    return vs_load_params(&params);
}

static const char *name(int m) { return sim_vehicle_model_name((sim_vehicle_model)m); }

/* The tyre's own largest friction coefficient at load fz: the Magic Formula's peak
 * factors D/Fz of its two directions (or the brush model's mu), by hand from the
 * coefficients. */
static double tyre_peak_mu(double fz)
{
    const sim_tire_params *t = &params.tire;
    if (t->model == SIM_TIRE_BRUSH)
        return t->brush_mu * (1.0 + t->brush_mu_load * (fz - t->fz0) / t->fz0);
    double dfz = (fz - t->fz0) / t->fz0;
    double mx = (t->pdx1 + t->pdx2 * dfz) * t->lambda_mux;
    double my = (t->pdy1 + t->pdy2 * dfz) * t->lambda_muy;
    return mx > my ? mx : my;
}

/* Largest friction use (tyre force over mu x load) of the full model's four tyres. */
static double full_friction_use(const sim_vehicle_state *s)
{
    double worst = 0.0;
    for (int i = 0; i < SIM_WHEELS; i++) {
        const sim_wheel_state *w = &s->wheel[i];
        if (!w->contact || w->load < 100.0)
            continue;
        double use = hypot(w->fx, w->fy) / (tyre_peak_mu(w->load) * w->friction * w->load);
        worst = use > worst ? use : worst;
    }
    return worst;
}

/* The friction coefficient a light model may use on a road of friction factor f: the
 * simple model's own (paper 2's centrifugal limit), the tyre's peak for the wall. */
static double light_mu(int m, double f)
{
    return (m == SIM_VEHICLE_SIMPLE ? params.simple_friction : tyre_peak_mu(params.tire.fz0)) * f;
}

typedef struct drive_case {
    const char *what;
    double speed;
    int gear;
    sim_vehicle_controls c;
    double seconds;
} drive_case;

/* Tyre force within mu x load: the full model wheel by wheel, the light models as the
 * whole car's horizontal acceleration (less air drag) over 50 ms windows. */
static void tyre_force_within_friction(void **state)
{
    (void)state;
    sim_ground_plane flat = {0, 0, 0, 1.0, 0.0}, ice = {0, 0, 0, 0.3, 0.0};
    const drive_case cases[] = {
        {"spin: 80 km/h, full throttle, steer 0.2, 2nd", 80 * KMH, 2,
         {.throttle = 1.0, .steer = 0.2, .gear = 2}, 8.0},
        {"full steer coasting in 5th at 80 km/h", 80 * KMH, 5, {.steer = 1.0, .gear = 5}, 8.0},
        {"full brake and half steer at 100 km/h", 100 * KMH, 0, {.brake = 1.0, .steer = 0.5}, 6.0},
        {"full throttle in 1st from rest, steer 0.5", 0.0, 1, {.throttle = 1.0, .steer = 0.5, .gear = 1}, 6.0},
    };
    for (int surf = 0; surf < 2; surf++) {
        sim_vehicle_ground g = sim_ground_from_plane(surf ? &ice : &flat);
        double f = surf ? ice.friction : flat.friction;
        for (int m = 0; m < 3; m++) {
            for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
                const drive_case *dc = &cases[k];
                sim_vehicle *v = vs_new_car(&params, (sim_vehicle_model)m, &g, 0, 0, 0, dc->speed, dc->gear);
                assert_non_null(v);
                double worst = 0.0, vx0 = v->y[7], vy0 = v->y[8];
                int n = (int)(dc->seconds / DT);
                for (int i = 1; i <= n; i++) {
                    assert_int_equal(sim_vehicle_step(v, &dc->c, &g, NULL, 0, DT), 0);
                    if (m == SIM_VEHICLE_FULL && i % 5 == 0) {
                        sim_vehicle_state s;
                        sim_vehicle_get_state(v, &g, &s);
                        double use = full_friction_use(&s);
                        worst = use > worst ? use : worst;
                    } else if (m != SIM_VEHICLE_FULL && i % 50 == 0) {
                        double vx = v->y[7], vy = v->y[8];
                        double a = hypot(vx - vx0, vy - vy0) / (50 * DT);
                        double sp = hypot(vx, vy);
                        double drag = 0.5 * params.air_density * params.drag_coefficient *
                                      params.frontal_area * sp * sp / params.mass;
                        double use = (a - drag) / (light_mu(m, f) * 9.81);
                        worst = use > worst ? use : worst;
                        vx0 = vx;
                        vy0 = vy;
                    }
                }
                printf("%-6s mu %.1f  %-46s largest force / (mu x load) %.3f\n", name(m), f, dc->what,
                       worst);
                /* The tyre model's peak is the limit itself; the light models' window
                 * average gets 3 % for the suspension's vertical bobbing. */
                assert_true(worst <= (m == SIM_VEHICLE_FULL ? 1.0 + 1e-6 : 1.03));
                free(v);
            }
        }
    }
}

/* max over t of E(t) - min over s <= t of E(s): how much energy the car ever gained. */
static double energy_gain(sim_vehicle *v, const sim_vehicle_controls *c, const sim_vehicle_ground *g,
                          double seconds, double *e0, double *e_end)
{
    double lo = vs_energy(v), gain = 0.0;
    *e0 = lo;
    int n = (int)(seconds / DT);
    for (int i = 0; i < n; i++) {
        assert_int_equal(sim_vehicle_step(v, c, g, NULL, 0, DT), 0);
        double e = vs_energy(v);
        gain = e - lo > gain ? e - lo : gain;
        lo = e < lo ? e : lo;
    }
    *e_end = vs_energy(v);
    return gain;
}

/* Puts a car into a spin: yaw rate 1.5 rad/s, sliding at 45 degrees to its heading. */
static void start_spinning(sim_vehicle *v, double speed)
{
    v->y[7] = speed * cos(45 * DEG);
    v->y[8] = speed * sin(45 * DEG);
    v->y[12] = 1.5;
    v->side_speed = v->y[8];
}

/* No throttle, no energy from nowhere: E = 1/2 m v^2 + 1/2 w.I.w (+ wheels, engine) +
 * m g z never rises by more than the springs can hold (1 kJ for the full model's
 * suspension and tyres; 600 J for the light models, which have no springs but let
 * the road's slope move the COG up and down at the speed of the car). */
static void no_throttle_no_energy_gain(void **state)
{
    (void)state;
    sim_ground_plane flat = {0, 0, 0, 1.0, 0.0};
    double bump[3] = {0.05, 10.0, 14.0};
    sim_vehicle_ground g = sim_ground_from_plane(&flat), bumpy = {.sample = vs_bumps_sample, .ctx = bump};
    for (int m = 0; m < 3; m++) {
        double tol = m == SIM_VEHICLE_FULL ? 1000.0 : 600.0;
        for (int k = 0; k < 4; k++) {
            const sim_vehicle_ground *gr = k == 3 ? &bumpy : &g;
            static const char *what[] = {"coasting in neutral from 100 km/h",
                                         "coasting in 5th, full steer, 80 km/h",
                                         "spin in neutral from 80 km/h, steer 0.3",
                                         "bumps (5 cm) at 60 km/h, steer 0.1"};
            const double speed[] = {100 * KMH, 80 * KMH, 80 * KMH, 60 * KMH};
            const int gear[] = {0, 5, 0, 0};
            sim_vehicle_controls c = {.gear = gear[k], .steer = k == 1 ? 1.0 : k == 2 ? 0.3 : k == 3 ? 0.1 : 0.0};
            sim_vehicle *v = vs_new_car(&params, (sim_vehicle_model)m, gr, 0, 0, 0, speed[k], gear[k]);
            assert_non_null(v);
            if (k == 2)
                start_spinning(v, speed[k]);
            double e0, e1;
            double gain = energy_gain(v, &c, gr, k == 1 ? 30.0 : 15.0, &e0, &e1);
            printf("%-6s %-40s E %.0f -> %.0f kJ, largest gain %.0f J\n", name(m), what[k], e0 / 1e3,
                   e1 / 1e3, gain);
            assert_true(gain <= tol);
            assert_true(e1 <= e0 + tol);
            free(v);
        }
    }
}

/* Full brake from 100 km/h on ice (mu 0.1): no model stops in less than 300 m (the
 * friction limit with the tyre's peak is 380 m), and every one stops. */
static void ice_braking_is_friction_limited(void **state)
{
    (void)state;
    sim_ground_plane ice = {0, 0, 0, 0.1, 0.0};
    sim_vehicle_ground g = sim_ground_from_plane(&ice);
    for (int m = 0; m < 3; m++) {
        sim_vehicle *v = vs_new_car(&params, (sim_vehicle_model)m, &g, 0, 0, 0, 100 * KMH, 0);
        assert_non_null(v);
        sim_vehicle_controls c = {.brake = 1.0, .gear = 0};
        int n = 0;
        while (n < 60000) {
            assert_int_equal(sim_vehicle_step(v, &c, &g, NULL, 0, DT), 0);
            n++;
            if (hypot(v->y[7], v->y[8]) < 0.05)
                break;
        }
        double d = hypot(v->y[0], v->y[1]);
        printf("%-6s 100-0 km/h on ice (mu 0.1): %.0f m in %.1f s\n", name(m), d, n * DT);
        assert_true(d >= 300.0);
        assert_true(d <= 600.0);
        free(v);
    }
}

/* Zero steer on a flat straight road: 10 km at 100 km/h (speed held by a PI on the
 * throttle, automatic gearbox) turn the heading by less than 0.01 deg. */
static void zero_steer_keeps_heading(void **state)
{
    (void)state;
    sim_ground_plane flat = {0, 0, 0, 1.0, 0.0};
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    for (int m = 0; m < 3; m++) {
        sim_vehicle *v = vs_new_car(&params, (sim_vehicle_model)m, &g, 0, 0, 0.3, 100 * KMH, 4);
        assert_non_null(v);
        sim_vehicle_controls c = {.gear = 4, .automatic = true};
        double integ = 0.0, dist = 0.0;
        sim_vehicle_state s;
        sim_vehicle_get_state(v, &g, &s);
        double h0 = s.heading;
        int n = 0;
        while (dist < 10000.0 && n < 500000) {
            if (n % 10 == 0) {
                sim_vehicle_get_state(v, &g, &s);
                c.throttle = vs_hold_speed(&s, 100 * KMH, &integ, 10 * DT);
            }
            double x = v->y[0], y = v->y[1];
            assert_int_equal(sim_vehicle_step(v, &c, &g, NULL, 0, DT), 0);
            dist += hypot(v->y[0] - x, v->y[1] - y);
            n++;
        }
        sim_vehicle_get_state(v, &g, &s);
        double dh = remainder(s.heading - h0, 2 * M_PI) / DEG;
        double off = -(v->y[0]) * sin(0.3) + v->y[1] * cos(0.3);
        printf("%-6s zero steer, %.1f km: heading changed %.2e deg, %.3f m sideways\n", name(m),
               dist / 1e3, dh, off);
        assert_true(dist >= 10000.0);
        assert_true(fabs(dh) < 0.01);
        free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tyre_force_within_friction),
        cmocka_unit_test(no_throttle_no_energy_gain),
        cmocka_unit_test(ice_braking_is_friction_limited),
        cmocka_unit_test(zero_steer_keeps_heading),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
