/* Unit tests of the ground surfaces (common/world's table, the scenario's choice of
 * surface under a wheel) and of what they do to the car: coasting and braking on grass
 * against asphalt in the same run, each stopping where the surface's rolling
 * resistance and grip say. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_road.h"
#include "sim_scenario.h"
#include "sim_terrain.h"
#include "sim_vehicle.h"
#include "vehicle_support.h"

static sim_vehicle_params params;

static int setup(void **state)
{
    (void)state;
    return vs_load_params(&params);
}

/* A flat ground of one surface, with the table's friction and rolling resistance. */
static int surface_sample(void *ctx, double x, double y, sim_ground_sample *out)
{
    (void)x;
    (void)y;
    const sim_surface_props *sp = sim_surface_props_of(*(const int *)ctx);
    out->height = 0.0;
    out->normal[0] = out->normal[1] = 0.0;
    out->normal[2] = 1.0;
    out->friction = sp->friction;
    out->roughness = sp->roughness;
    out->rolling = sp->rolling;
    return 0;
}

static void table_and_lanes(void **state)
{
    (void)state;
    const sim_surface_props *a = sim_surface_props_of(SIM_SURFACE_ASPHALT);
    const sim_surface_props *g = sim_surface_props_of(SIM_SURFACE_GRASS);
    const sim_surface_props *gr = sim_surface_props_of(SIM_SURFACE_GRAVEL);
    assert_true(a->friction == 1.0 && a->rolling == 0.0 && a->roughness == 0.0);
    assert_true(g->friction < 0.7 && g->rolling >= 0.04 && g->roughness > 0.0);
    assert_true(gr->friction < 0.8 && gr->rolling > 0.0 && gr->roughness > g->roughness);
    assert_true(sim_surface_props_of(-1) == a && sim_surface_props_of(SIM_SURFACE_COUNT) == a);
    for (int s = 0; s < SIM_SURFACE_COUNT; s++) {
        const sim_surface_props *p = sim_surface_props_of(s);
        assert_true(p->friction > 0.0 && p->friction <= 1.0 && p->rolling >= 0.0 && p->rolling < 0.5);
    }
    assert_int_equal(sim_lane_surface(SIM_LANE_DRIVING), SIM_SURFACE_ASPHALT);
    assert_int_equal(sim_lane_surface(SIM_LANE_SHOULDER), SIM_SURFACE_ASPHALT);
    assert_int_equal(sim_lane_surface(SIM_LANE_MEDIAN), SIM_SURFACE_GRASS);
    assert_int_equal(sim_lane_surface(SIM_LANE_BORDER), SIM_SURFACE_GRASS);
}

/* A scenario without terrain: grass beside the road, with grass's friction; on the
 * lanes asphalt. A terrain without a friction of its own takes its surface's. */
static void scenario_ground_by_place(void **state)
{
    (void)state;
    const char *js =
        "{\"name\":\"s\",\"roads\":[{\"id\":\"a\",\"start\":{\"x\":0,\"y\":0},"
        "\"segments\":[{\"type\":\"line\",\"length\":100}],"
        "\"lanes\":{\"right\":[{\"width\":3.5}],\"left\":[{\"width\":3.5}]}}]}";
    sim_diag d = {0};
    sim_scenario *sc;
    assert_int_equal(sim_scenario_parse(js, strlen(js), "s.json", ".", &sc, &d), 0);
    sim_ground g;
    sim_scenario_ground(sc, 50, -1.5, &g);
    assert_true(g.on_road);
    assert_int_equal(g.surface, SIM_SURFACE_ASPHALT);
    assert_true(g.friction == 1.0);
    sim_scenario_ground(sc, 50, -6.0, &g);
    assert_false(g.on_road);
    assert_int_equal(g.surface, SIM_SURFACE_GRASS);
    assert_true(g.friction == sim_surface_props_of(SIM_SURFACE_GRASS)->friction);
    sim_scenario_free(sc);

    sim_grid h;
    sim_error err = {0};
    assert_int_equal(sim_grid_alloc(&h, 4, 4, &err), 0);
    sim_terrain t;
    memset(&t, 0, sizeof t);
    assert_int_equal(sim_terrain_init(&t, &h, 0, 0, 10, &err), 0);
    t.surface_default = SIM_SURFACE_GRAVEL;
    sim_terrain_sample smp;
    sim_terrain_eval(&t, 5, 5, &smp);
    assert_true(smp.friction == 1.0); /* given (the default of sim_terrain_init) */
    t.friction_default = NAN;
    sim_terrain_eval(&t, 5, 5, &smp);
    assert_true(smp.friction == sim_surface_props_of(SIM_SURFACE_GRAVEL)->friction);
    sim_terrain_free(&t);
}

/* Distance to coast from v0 to v1 against rolling resistance f (of the weight) and air
 * drag k v^2, with the effective mass m_eff (the spinning wheels' inertia added):
 * m_eff v dv/dx = -f m g - k v^2. */
static double coast_distance(double m, double m_eff, double f, double k, double v0, double v1)
{
    double a = f * m * 9.81;
    return m_eff / (2.0 * k) * log((a + k * v0 * v0) / (a + k * v1 * v1));
}

/* Runs a car of model m from 80 km/h on surface s, in neutral, with brake pedal brake,
 * until it is slower than v_end; returns the distance. */
static double stop_distance(sim_vehicle_model m, int surface, double brake, double v_end)
{
    sim_vehicle_ground g = {.sample = surface_sample, .ctx = &surface};
    sim_vehicle *v = vs_new_car(&params, m, &g, 0, 0, 0, 80 * VS_KMH, 0);
    assert_non_null(v);
    sim_vehicle_controls c = {.brake = brake, .gear = 0};
    sim_vehicle_state s;
    sim_vehicle_get_state(v, &g, &s);
    double x0 = s.pos[0];
    int n = 0;
    do {
        for (int k = 0; k < 100; k++)
            assert_int_equal(sim_vehicle_step(v, &c, &g, NULL, 0, VS_DT), 0);
        n += 100;
        sim_vehicle_get_state(v, &g, &s);
    } while (s.speed > v_end && n < 400000);
    assert_true(s.speed <= v_end);
    assert_true(fabs(s.pos[1]) < 1.0); /* it went straight */
    double dist = s.pos[0] - x0;
    free(v);
    return dist;
}

/* Coasting from 80 km/h (neutral, no brake) to 1 m/s: on grass and on asphalt, each
 * within 5 % of the distance solved (the issue asks 10 %) from its rolling resistance, and grass stops the
 * car in well under half asphalt's distance. */
static void coasting_on_grass_and_asphalt(void **state)
{
    (void)state;
    const double v0 = 80 * VS_KMH, v1 = 1.0;
    double k = 0.5 * params.air_density * params.drag_coefficient * params.frontal_area;
    double r = params.tire.radius;
    double wheels = 2.0 * (params.wheel_inertia_front + params.wheel_inertia_rear) / (r * r);
    const sim_vehicle_model models[] = {SIM_VEHICLE_FULL, SIM_VEHICLE_WALL, SIM_VEHICLE_SIMPLE};
    for (int mi = 0; mi < 3; mi++) {
        double m_eff = params.mass + (models[mi] == SIM_VEHICLE_FULL ? wheels : 0.0);
        double d[2];
        const int surf[2] = {SIM_SURFACE_GRASS, SIM_SURFACE_ASPHALT};
        for (int i = 0; i < 2; i++) {
            double f = params.tire.rolling_resistance + sim_surface_props_of(surf[i])->rolling;
            double solved = coast_distance(params.mass, m_eff, f, k, v0, v1);
            d[i] = stop_distance(models[mi], surf[i], 0.0, v1);
            printf("%s model coasting on %s from 80 km/h to 1 m/s: %.1f m (solved %.1f m, f_r %.3f)\n",
                   sim_vehicle_model_name(models[mi]), i ? "asphalt" : "grass", d[i], solved, f);
            assert_true(fabs(d[i] - solved) < 0.05 * solved);
        }
        assert_true(d[0] < 0.5 * d[1]);
    }
}

/* Full braking from 80 km/h: the stopping distance follows the surface's grip (the
 * tyre's peak force at the static load with the surface's friction factor, plus its
 * rolling resistance): never shorter than v^2 / (2 a) at that limit, and within 30 %
 * of it (the full model's ABS holds 99 % of the limit on asphalt but only about 80 %
 * on grass, its slip target being asphalt's), grass at least 1.5 times asphalt's. */
static void braking_on_grass_and_asphalt(void **state)
{
    (void)state;
    const double v0 = 80 * VS_KMH;
    double fz = params.mass * 9.81 / 4.0;
    const sim_vehicle_model models[] = {SIM_VEHICLE_FULL, SIM_VEHICLE_WALL};
    for (int mi = 0; mi < 2; mi++) {
        double d[2];
        const int surf[2] = {SIM_SURFACE_GRASS, SIM_SURFACE_ASPHALT};
        for (int i = 0; i < 2; i++) {
            const sim_surface_props *sp = sim_surface_props_of(surf[i]);
            double dx, dy;
            sim_tire_peak_force(&params.tire, fz, sp->friction, &dx, &dy);
            double mu = dx / fz;
            /* The wall model spends rolling resistance from the same friction budget. */
            double a = 9.81 * (mu + (mi == 0 ? params.tire.rolling_resistance + sp->rolling : 0.0));
            double solved = v0 * v0 / (2.0 * a);
            d[i] = stop_distance(models[mi], surf[i], 1.0, 0.05);
            printf("%s model braking on %s from 80 km/h: %.1f m (grip limit %.1f m, mu %.3f)\n",
                   sim_vehicle_model_name(models[mi]), i ? "asphalt" : "grass", d[i], solved, mu);
            assert_true(d[i] > 0.98 * solved && d[i] < 1.3 * solved);
        }
        assert_true(d[0] > 1.5 * d[1]);
    }
}

/* The force feedback feels the surface: at 80 km/h on grass the wheel rumbles (the
 * table's roughness through sim_vehicle_ffb), on asphalt it does not. */
static void rumble_on_grass(void **state)
{
    (void)state;
    sim_ffb_params fp;
    sim_ffb_params_default(&fp);
    double rumble[2];
    const int surf[2] = {SIM_SURFACE_GRASS, SIM_SURFACE_ASPHALT};
    for (int i = 0; i < 2; i++) {
        int sf = surf[i];
        sim_vehicle_ground g = {.sample = surface_sample, .ctx = &sf};
        sim_vehicle *v = vs_new_car(&params, SIM_VEHICLE_FULL, &g, 0, 0, 0, 80 * VS_KMH, 0);
        assert_non_null(v);
        sim_vehicle_controls c = {.gear = 0};
        for (int k = 0; k < 200; k++)
            assert_int_equal(sim_vehicle_step(v, &c, &g, NULL, 0, VS_DT), 0);
        sim_vehicle_state st;
        sim_vehicle_get_state(v, &g, &st);
        rumble[i] = sim_vehicle_ffb(&fp, &st, 0.0).rumble;
        assert_true(fabs(st.wheel[0].roughness - sim_surface_props_of(sf)->roughness) < 1e-12);
        free(v);
    }
    printf("force-feedback rumble at 80 km/h: grass %.3f, asphalt %.3f\n", rumble[0], rumble[1]);
    assert_true(rumble[0] > 0.1);
    assert_true(rumble[1] == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_and_lanes),
        cmocka_unit_test(scenario_ground_by_place),
        cmocka_unit_test(coasting_on_grass_and_asphalt),
        cmocka_unit_test(braking_on_grass_and_asphalt),
        cmocka_unit_test(rumble_on_grass),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
