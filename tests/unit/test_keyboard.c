/* Unit tests of sim_keyboard: ramps, return to centre, reversal, pedals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "sim_keyboard.h"

#include "ts_assert.h"

static void run(sim_keyboard *k, sim_keyboard_keys keys, double seconds, double dt)
{
    int n = (int)lround(seconds / dt);
    for (int i = 0; i < n; i++) sim_keyboard_step(k, &keys, dt);
}

static void steering_ramps_and_returns(void **state)
{
    sim_keyboard k;
    sim_keyboard_init(&k, NULL);
    /* Left held 0.5 s at 0.6/s: 0.3, i.e. 135 degrees of a 900 degree wheel. */
    run(&k, (sim_keyboard_keys){.left = true}, 0.5, 0.004);
    NEAR(k.steer, 0.3, 1e-9);
    sim_controls c;
    sim_keyboard_controls(&k, 900, &c);
    NEAR(c.steer_deg, 135.0, 1e-6);
    /* Held long enough: full lock, no further. */
    run(&k, (sim_keyboard_keys){.left = true}, 2.0, 0.004);
    NEAR(k.steer, 1.0, 0);
    /* Released: back at 1.5/s, so 0.4 after 0.4 s, zero after 2/3 s, no overshoot. */
    run(&k, (sim_keyboard_keys){0}, 0.4, 0.004);
    NEAR(k.steer, 0.4, 1e-9);
    run(&k, (sim_keyboard_keys){0}, 0.3, 0.004);
    NEAR(k.steer, 0.0, 0);
    /* Both keys: neither. */
    run(&k, (sim_keyboard_keys){.left = true, .right = true}, 0.5, 0.004);
    NEAR(k.steer, 0.0, 0);
}

static void reversal_is_independent_of_step(void **state)
{
    /* From 0.3 left, right held 0.5 s: 0.2 s back to centre at 1.5/s, then 0.3 s right
     * at 0.6/s = -0.18, whether in one step or many. */
    sim_keyboard a, b;
    sim_keyboard_init(&a, NULL);
    sim_keyboard_init(&b, NULL);
    a.steer = b.steer = 0.3;
    sim_keyboard_keys right = {.right = true};
    sim_keyboard_step(&a, &right, 0.5);
    run(&b, right, 0.5, 0.001);
    NEAR(a.steer, -0.18, 1e-12);
    NEAR(b.steer, -0.18, 1e-9);
}

static void pedals_ramp(void **state)
{
    sim_keyboard k;
    sim_keyboard_init(&k, NULL);
    run(&k, (sim_keyboard_keys){.throttle = true, .clutch = true}, 0.25, 0.005);
    NEAR(k.throttle, 0.5, 1e-9); /* 2/s */
    NEAR(k.clutch, 1.0, 0);      /* 5/s: pressed in 0.2 s */
    NEAR(k.brake, 0.0, 0);
    run(&k, (sim_keyboard_keys){.brake = true}, 0.1, 0.005);
    NEAR(k.throttle, 0.1, 1e-9); /* 4/s down */
    NEAR(k.brake, 0.3, 1e-9);    /* 3/s up */
    NEAR(k.clutch, 0.8, 1e-9);   /* 2/s released */
    run(&k, (sim_keyboard_keys){0}, 1.0, 0.004);
    assert_true(k.throttle == 0 && k.brake == 0 && k.clutch == 0);
    /* A zero or negative step changes nothing. */
    sim_keyboard_step(&k, &(sim_keyboard_keys){.left = true}, 0);
    sim_keyboard_step(&k, &(sim_keyboard_keys){.left = true}, -1);
    NEAR(k.steer, 0, 0);
    /* Custom limits: keyboard steering capped at 0.5. */
    sim_keyboard_params p;
    sim_keyboard_params_default(&p);
    p.steer_max = 0.5;
    sim_keyboard_init(&k, &p);
    run(&k, (sim_keyboard_keys){.right = true}, 3.0, 0.01);
    NEAR(k.steer, -0.5, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steering_ramps_and_returns),
        cmocka_unit_test(reversal_is_independent_of_step),
        cmocka_unit_test(pedals_ramp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
