/* Unit test of render-node's wheels (models.c, no GL): the angle a wheel turns is the
 * distance rolled over its radius, the front wheels of a traffic car steer by what its
 * yaw rate asks of a bicycle model, and the ego's follow physics' steer angle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models.h"
#include "node.h"

double rn_now(void) { return 0.0; } /* main.c's clock, left out of this test */

static void wheel_turns_by_distance_over_radius(void **state)
{
    (void)state;
    rn_wheel_state s = {.key = 1};
    rn_vehicle_look look = {.speed = 10, .steer = NAN};
    /* 1 s at 10 m/s in 100 frames on a 0.31 m wheel: 10 / 0.31 = 32.258 rad, which is
     * 5 turns and 0.842 rad */
    for (int i = 1; i <= 100; i++) rn_wheels_advance(&s, &look, 0.31, 2.7, i * 0.01);
    assert_float_equal(s.angle, remainder(10 / 0.31, 2 * M_PI), 1e-9);
    assert_float_equal(s.angle, 10 / 0.31 - 10 * M_PI, 1e-9);
    /* backwards unwinds it */
    look.speed = -10;
    for (int i = 101; i <= 200; i++) rn_wheels_advance(&s, &look, 0.31, 2.7, i * 0.01);
    assert_float_equal(s.angle, 0, 1e-9);
    /* a car unseen for 20 s does not spin 20 s worth: at most 0.5 s counts */
    look.speed = 10;
    rn_wheels_advance(&s, &look, 0.31, 2.7, 22.0);
    assert_float_equal(s.angle, remainder(5 / 0.31, 2 * M_PI), 1e-9);
}

static void traffic_car_steers_by_its_yaw_rate(void **state)
{
    (void)state;
    rn_wheel_state s = {.key = 1};
    /* 10 m/s on a 50 m radius: yaw rate 0.2 rad/s; wheelbase 2.7 m: atan(2.7 / 50) */
    rn_vehicle_look look = {.speed = 10, .steer = NAN};
    for (int i = 1; i <= 300; i++) {
        look.heading = 0.2 * i * 0.01;
        rn_wheels_advance(&s, &look, 0.31, 2.7, i * 0.01);
    }
    assert_float_equal(s.steer, atan(2.7 / 50.0), 1e-6);
    /* turning right, the other way */
    for (int i = 301; i <= 600; i++) {
        look.heading -= 0.2 * 0.01;
        rn_wheels_advance(&s, &look, 0.31, 2.7, i * 0.01);
    }
    assert_float_equal(s.steer, -atan(2.7 / 50.0), 1e-6);
    /* a hairpin asks more than full lock: held at 0.6 rad */
    for (int i = 601; i <= 900; i++) {
        look.heading += 3.0 * 0.01;
        rn_wheels_advance(&s, &look, 0.31, 2.7, i * 0.01);
    }
    assert_float_equal(s.steer, 0.6, 1e-6);
}

static void ego_steers_as_physics_says(void **state)
{
    (void)state;
    rn_wheel_state s = {.key = 1};
    rn_vehicle_look look = {.speed = 5, .steer = 0.25, .heading = 1.0};
    rn_wheels_advance(&s, &look, 0.31, 2.7, 0.01);
    assert_float_equal(s.steer, 0.25, 1e-12);
}

/* Model names from the bus are names only; a missing model fails once, by its file. */
static void names_from_the_bus(void **state)
{
    (void)state;
    rn_models ms = {.ego = -1, .cockpit = -1};
    assert_int_equal(rn_models_set_dir(&ms, "no-such-dir"), SIM_OK);
    sim_error err = {0};
    assert_true(rn_models_get(&ms, "../../etc/passwd", false, 1, &err) < 0);
    assert_non_null(strstr(err.msg, "expected a name of letters, digits"));
    assert_true(rn_models_get(&ms, "models/sedan.glb", false, 1, &err) < 0);
    assert_int_equal(ms.n, 0); /* nothing was opened */
    assert_true(rn_models_get(&ms, "rickshaw", false, 1, &err) < 0);
    assert_non_null(strstr(err.msg, "no-such-dir/rickshaw.glb"));
    assert_int_equal(ms.failures, 1);
    assert_true(rn_models_get(&ms, "rickshaw", false, 1, &err) < 0);
    assert_int_equal(ms.failures, 1); /* remembered, not tried again */
    assert_int_equal(ms.n, 1);
    rn_models_free(&ms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wheel_turns_by_distance_over_radius),
        cmocka_unit_test(traffic_car_steers_by_its_yaw_rate),
        cmocka_unit_test(ego_steers_as_physics_says),
        cmocka_unit_test(names_from_the_bus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
