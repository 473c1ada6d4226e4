/* Unit tests of the two light models behind the common step interface: the
 * longitudinal/transverse model of the platform paper (SIM_VEHICLE_SIMPLE) and the
 * imaginary-wall impulse model (SIM_VEHICLE_WALL); plus the force-feedback output and
 * the model names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_vehicle.h"
#include "sim_vehicle_file.h"

#define DT 1e-3
#define KMH (1.0 / 3.6)
#define DEG (M_PI / 180.0)

static sim_vehicle_params params;
static sim_ground_plane flat = {0, 0, 0, 1.0, 0.0};

static int load_params(void **state)
{
    const char *root = getenv("SIM_ROOT");
    char path[512];
    snprintf(path, sizeof(path), "%s/vehicles/bmw-318i.json", root ? root : ".");
    sim_error err = {0};
    return sim_vehicle_params_load(path, &params, &err);
}

static sim_vehicle *new_car(sim_vehicle_model m, const sim_vehicle_ground *g, double speed, int gear)
{
    sim_vehicle *v = malloc(sizeof(*v));
    assert_non_null(v);
    sim_vehicle_start st = {5.0, -3.0, 0.0, speed, gear};
    sim_error err = {0};
    assert_int_equal(sim_vehicle_init(v, &params, m, SIM_INTEGRATOR_MIDPOINT, g, &st, &err), 0);
    return v;
}

static void run(sim_vehicle *v, const sim_vehicle_controls *c, const sim_vehicle_ground *g, int n,
                sim_vehicle_state *s)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(sim_vehicle_step(v, c, g, NULL, 0, DT), 0);
    sim_vehicle_get_state(v, g, s);
}

/* Paper 2: the steering input scales 10.5 deg up to 40 km/h, 3.5 deg from 80 km/h,
 * linearly between (7 deg at 60 km/h); the car follows the circle of that angle,
 * yaw rate = v tan(delta) / L. */
static void simple_steering_limit_and_circle(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    const double kmh[] = {30, 60, 100}, deg[] = {10.5, 7.0, 3.5};
    for (int k = 0; k < 3; k++) {
        sim_vehicle *v = new_car(SIM_VEHICLE_SIMPLE, &g, kmh[k] * KMH, 0);
        sim_vehicle_controls c = {.steer = 1.0, .gear = 0};
        sim_vehicle_state s;
        run(v, &c, &g, 1, &s);
        assert_true(fabs(s.steer_angle - deg[k] * DEG) < 0.01 * DEG);
        double expect = s.speed * tan(s.steer_angle) / params.wheelbase;
        assert_true(fabs(s.yaw_rate - expect) < 1e-9);
        c.steer = -0.5;
        run(v, &c, &g, 1, &s);
        assert_true(s.yaw_rate < 0.0);
        free(v);
    }
}

/* Paper 2, longitudinal: F_D = M_E i_D mu_D i_S mu_S / r_dyn minus rolling friction and
 * drag, over the mass. One step from 50 km/h in third at full throttle by hand. */
static void simple_longitudinal_by_hand(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    double v0 = 50.0 * KMH;
    sim_vehicle *v = new_car(SIM_VEHICLE_SIMPLE, &g, v0, 3);
    sim_vehicle_controls c = {.throttle = 1.0, .gear = 3};
    sim_vehicle_state s;
    run(v, &c, &g, 1, &s);
    double r = params.tire.radius - params.mass * 9.81 / 4 / params.tire.vertical_stiffness / 3;
    double i = params.gearbox.ratio[2] * params.gearbox.final_drive;
    double rpm = v0 / r * i * 60 / (2 * M_PI);
    double me = params.engine.torque_max * sim_engine_curve(&params.engine, rpm);
    double fd = me * i * params.gearbox.efficiency / r;
    double fr = params.tire.rolling_resistance * params.mass * 9.81;
    double fa = 0.5 * 1.29 * params.drag_coefficient * params.frontal_area * v0 * v0;
    double expect = v0 + (fd - fr - fa) / params.mass * DT;
    assert_true(fabs(s.speed - expect) < 1e-9);
    assert_true(fabs(s.rpm - rpm) < 1e-6);
    /* and 0-100 km/h in a plausible time with the automatic */
    sim_vehicle *w = new_car(SIM_VEHICLE_SIMPLE, &g, 0.0, 1);
    sim_vehicle_controls a = {.throttle = 1.0, .gear = 1, .automatic = true};
    int n = 0;
    do {
        run(w, &a, &g, 10, &s);
        n += 10;
    } while (s.speed < 100 * KMH && n < 30000);
    printf("simple model 0-100 km/h: %.2f s\n", n * DT);
    assert_true(n * DT > 7.0 && n * DT < 12.0);
    /* braking stops the car and does not reverse it */
    a.throttle = 0.0;
    a.brake = 1.0;
    run(w, &a, &g, 6000, &s);
    assert_true(s.speed == 0.0);
    free(v);
    free(w);
}

/* Centrifugal force over friction shifts the car outward: at 100 km/h with full steer
 * (3.5 deg, r = 44.6 m, 1.77 g needed against 0.9 g of friction) the car drifts to the
 * outside of its circle; at 30 km/h on the same circle it does not. */
static void simple_centrifugal_shift(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    sim_vehicle *v = new_car(SIM_VEHICLE_SIMPLE, &g, 100 * KMH, 0);
    sim_vehicle_controls c = {.steer = 1.0, .gear = 0};
    sim_vehicle_state s;
    run(v, &c, &g, 500, &s);
    assert_true(s.vel_body[1] < -1.0); /* left turn, drifting right (outward) */
    free(v);
    v = new_car(SIM_VEHICLE_SIMPLE, &g, 30 * KMH, 0);
    c.steer = 3.5 / 10.5;
    run(v, &c, &g, 500, &s);
    assert_true(fabs(s.vel_body[1]) < 1e-9);
    free(v);
}

/* The simple model follows the terrain's height and slope. */
static void simple_follows_terrain(void **state)
{
    sim_ground_plane slope = {1.0, 0.1, 0.0, 1.0, 0.0};
    sim_vehicle_ground g = sim_ground_from_plane(&slope);
    sim_vehicle *v = new_car(SIM_VEHICLE_SIMPLE, &g, 10.0, 0);
    sim_vehicle_controls c = {.gear = 0};
    sim_vehicle_state s;
    run(v, &c, &g, 1000, &s);
    assert_true(fabs(s.pos[2] - (1.0 + 0.1 * s.pos[0] + params.cog_height)) < 1e-9);
    assert_true(fabs(s.pitch + atan(0.1)) < 1e-9); /* nose up: negative pitch about y */
    free(v);
}

/* Imaginary wall model: the car settles on its impulse suspension with the wheels
 * sunk by about the allowed penetration (equation 3 balances at phi near 1), and at
 * walking pace the walls hold the wheels sideways exactly. */
static void wall_settles_and_holds_sideways(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    sim_vehicle *v = new_car(SIM_VEHICLE_WALL, &g, 0.0, 1);
    sim_vehicle_controls c = {.gear = 1};
    sim_vehicle_state s;
    run(v, &c, &g, 3000, &s);
    for (int i = 0; i < 4; i++) {
        assert_true(s.wheel[i].contact);
        assert_true(s.wheel[i].travel > 0.3 * params.wall_max_penetration &&
                    s.wheel[i].travel < 2.0 * params.wall_max_penetration);
    }
    assert_true(fabs(s.vel[2]) < 0.05);
    /* driving a left turn at 20 km/h: no side slip at the rear axle */
    sim_vehicle *w = new_car(SIM_VEHICLE_WALL, &g, 20 * KMH, 2);
    c = (sim_vehicle_controls){.gear = 2, .throttle = 0.1, .steer = 0.2};
    run(w, &c, &g, 3000, &s);
    assert_true(s.yaw_rate > 0.05);
    double rear_lateral = s.vel_body[1] - s.ang_vel_body[2] * (params.wheelbase - params.cog_to_front);
    assert_true(fabs(rear_lateral) < 0.05);
    c.steer = -0.2;
    run(w, &c, &g, 3000, &s);
    assert_true(s.yaw_rate < -0.05);
    free(v);
    free(w);
}

/* Near v_theta the side-slip parameter mu = max(mu_max (1 - |v|/v_theta), 0) lets the
 * wheels through the walls (equation 2): the same turn well inside the friction limit
 * (100 km/h, 1.6 deg of steer, 0.3 g) slides far more at the rear axle when v_theta
 * is lowered towards the speed ("a vehicle that drifts more easily"). */
static void wall_slides_near_v_theta(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    double slip[2];
    const double v_theta_kmh[2] = {300, 102};
    sim_vehicle_params keep = params;
    for (int k = 0; k < 2; k++) {
        params.wall_v_theta = v_theta_kmh[k] * KMH;
        sim_vehicle *v = new_car(SIM_VEHICLE_WALL, &g, 100 * KMH, 0);
        sim_vehicle_controls c = {.gear = 0, .steer = 0.05};
        sim_vehicle_state s;
        run(v, &c, &g, 1000, &s);
        double rear_lateral = s.vel_body[1] - s.ang_vel_body[2] * (params.wheelbase - params.cog_to_front);
        slip[k] = fabs(atan2(rear_lateral, s.vel_body[0]));
        free(v);
    }
    params = keep;
    printf("wall model rear slip angle at 100 km/h: %.4f rad with v_theta 300 km/h, %.4f rad "
           "with 102 km/h\n", slip[0], slip[1]);
    assert_true(slip[0] < 0.01);
    assert_true(slip[1] > 5 * slip[0] && slip[1] > 0.003);
}

/* The light models report their acceleration: forward while braking and while
 * pulling away (it used to be 0), sideways on a steady circle (v^2 / r). */
static void light_models_report_acceleration(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    for (int m = SIM_VEHICLE_SIMPLE; m <= SIM_VEHICLE_WALL; m++) {
        sim_vehicle *v = new_car((sim_vehicle_model)m, &g, 50 * KMH, 0);
        sim_vehicle_controls c = {.brake = 1.0, .gear = 0};
        sim_vehicle_state s;
        double ax = 0.0;
        for (int i = 0; i < 100; i++) { /* mean of 0.1 s: the wall's suspension bobs */
            run(v, &c, &g, 1, &s);
            ax += s.accel_body[0] / 100;
        }
        sim_vehicle *w = new_car((sim_vehicle_model)m, &g, 0.0, 1);
        c = (sim_vehicle_controls){.throttle = 1.0, .gear = 1};
        double ax_go = 0.0;
        run(w, &c, &g, 400, &s);
        for (int i = 0; i < 100; i++) {
            run(w, &c, &g, 1, &s);
            ax_go += s.accel_body[0] / 100;
        }
        sim_vehicle *u = new_car((sim_vehicle_model)m, &g, 30 * KMH, 0);
        c = (sim_vehicle_controls){.steer = 0.4, .gear = 0};
        run(u, &c, &g, 3000, &s);
        double ay = 0.0, want = 0.0;
        for (int i = 0; i < 100; i++) {
            run(u, &c, &g, 1, &s);
            ay += s.accel_body[1] / 100;
            want += s.speed * s.yaw_rate / 100;
        }
        printf("%s model: braking %.2f g, pulling away %.2f g, circle %.2f g (v r %.2f g)\n",
               sim_vehicle_model_name((sim_vehicle_model)m), ax / 9.81, ax_go / 9.81, ay / 9.81, want / 9.81);
        assert_true(ax < -0.7 * 9.81 && ax > -1.1 * 9.81);
        assert_true(ax_go > 0.2 * 9.81);
        assert_true(want > 0.1 * 9.81 && fabs(ay - want) < 0.05 * want);
        free(v);
        free(w);
        free(u);
    }
}

/* Every model is deterministic and survives garbage controls. */
static void light_models_deterministic(void **state)
{
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    for (int m = SIM_VEHICLE_SIMPLE; m <= SIM_VEHICLE_WALL; m++) {
        sim_vehicle *a = new_car((sim_vehicle_model)m, &g, 0.0, 1);
        sim_vehicle *b = new_car((sim_vehicle_model)m, &g, 0.0, 1);
        sim_vehicle_controls c = {.gear = 1, .automatic = true};
        for (int i = 0; i < 2000; i++) {
            c.throttle = 0.5 + 0.5 * sin(i * 0.01);
            c.steer = 0.3 * sin(i * 0.004);
            assert_int_equal(sim_vehicle_step(a, &c, &g, NULL, 0, DT), 0);
            assert_int_equal(sim_vehicle_step(b, &c, &g, NULL, 0, DT), 0);
        }
        assert_memory_equal(a->y, b->y, sizeof(a->y));
        c.throttle = NAN;
        c.brake = -INFINITY;
        assert_int_equal(sim_vehicle_step(a, &c, &g, NULL, 0, DT), 0);
        free(a);
        free(b);
    }
}

static void model_names(void **state)
{
    sim_vehicle_model m;
    sim_error err = {0};
    assert_int_equal(sim_vehicle_model_parse("wall", &m, &err), 0);
    assert_int_equal(m, SIM_VEHICLE_WALL);
    assert_string_equal(sim_vehicle_model_name(SIM_VEHICLE_SIMPLE), "simple");
    assert_int_equal(sim_vehicle_model_parse("fancy", &m, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "expected full, simple or wall"));
}

/* Force feedback: centring against the steering grows with speed; the front tyres'
 * aligning moment pulls the wheel back to the straight; rough roads rumble. */
static void ffb_centres_and_rumbles(void **state)
{
    sim_ffb_params fp;
    sim_ffb_params_default(&fp);
    sim_vehicle_state s;
    memset(&s, 0, sizeof(s));
    sim_ffb_output o = sim_vehicle_ffb(&fp, &s, 0.3);
    assert_true(o.torque == 0.0 && o.rumble == 0.0);
    s.speed = 30.0;
    o = sim_vehicle_ffb(&fp, &s, 0.3);
    assert_true(fabs(o.torque + fp.centring * 0.3) < 1e-12); /* against a left steer */
    s.wheel[0].mz = s.wheel[1].mz = -30.0; /* a left turn's aligning moments */
    s.wheel[0].contact = s.wheel[1].contact = true;
    sim_ffb_output o2 = sim_vehicle_ffb(&fp, &s, 0.3);
    assert_true(fabs(o2.torque - (o.torque - 60.0 / fp.aligning_full)) < 1e-12);
    s.wheel[0].mz = s.wheel[1].mz = -1e5;
    assert_true(sim_vehicle_ffb(&fp, &s, 0.3).torque == -1.0);
    s.wheel[0].roughness = s.wheel[1].roughness = 0.5;
    o = sim_vehicle_ffb(&fp, &s, 0.0);
    assert_true(o.rumble > 0.0 && o.rumble <= 1.0 && o.rumble_hz > 4.0);

    /* From the full model in a left turn: the wheel is pulled back right (negative). */
    sim_vehicle_ground g = sim_ground_from_plane(&flat);
    sim_vehicle *v = new_car(SIM_VEHICLE_FULL, &g, 60 * KMH, 3);
    sim_vehicle_controls c = {.gear = 3, .throttle = 0.2, .steer = 0.05};
    run(v, &c, &g, 2000, &s);
    assert_true(s.wheel[0].mz + s.wheel[1].mz < 0.0);
    assert_true(sim_vehicle_ffb(&fp, &s, c.steer).torque < 0.0);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simple_steering_limit_and_circle),
        cmocka_unit_test(simple_longitudinal_by_hand),
        cmocka_unit_test(simple_centrifugal_shift),
        cmocka_unit_test(simple_follows_terrain),
        cmocka_unit_test(wall_settles_and_holds_sideways),
        cmocka_unit_test(wall_slides_near_v_theta),
        cmocka_unit_test(light_models_report_acceleration),
        cmocka_unit_test(light_models_deterministic),
        cmocka_unit_test(model_names),
        cmocka_unit_test(ffb_centres_and_rumbles),
    };
    return cmocka_run_group_tests(tests, load_params, NULL);
}
