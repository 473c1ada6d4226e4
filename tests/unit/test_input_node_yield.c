/* The scripted driver giving way at a junction (input-node/yield.c), solved by hand.
 * The path enters a junction at s = 100 m heading east (+x), its centre at (105, 0).
 * A car coming from the right (the south, heading north) 20 m from the centre at
 * 10 m/s: the driver must stop 2 m before the entry, so at s = 80 (18 m of room) its
 * speed cap is sqrt(2 * 2.5 * 18) = sqrt(90) m/s. The same car from the left (north,
 * heading south): no cap (it gives way to us). Standing at its stop line: no cap. A car
 * crossing inside the junction: cap. One going our way: no cap (the lead gap's job).
 * Farther than 40 m before the entry, or once inside it: no cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "yield.h"

static sim_msg_traffic_vehicle car(double x, double y, double vx, double vy)
{
    sim_msg_traffic_vehicle v;
    memset(&v, 0, sizeof v);
    v.pos[0] = x, v.pos[1] = y;
    v.velocity[0] = vx, v.velocity[1] = vy;
    v.heading = atan2(vy, vx);
    return v;
}

static void gives_way_to_the_right_only(void **state)
{
    (void)state;
    in_junction_span j = {.s0 = 100, .s1 = 112, .cx = 105, .cy = 0, .heading = 0};
    sim_msg_traffic_vehicle right = car(105, -20, 0, 10);
    assert_true(fabs(in_yield_speed_cap(&j, 1, 80, &right, 1) - sqrt(90.0)) < 1e-12);
    assert_true(in_yield_speed_cap(&j, 1, 99, &right, 1) == 0.0); /* past the stop point: stand */
    sim_msg_traffic_vehicle left = car(105, 20, 0, -10);
    assert_true(isinf(in_yield_speed_cap(&j, 1, 80, &left, 1)));
    sim_msg_traffic_vehicle waiting = car(105, -12, 0, 0);
    assert_true(isinf(in_yield_speed_cap(&j, 1, 80, &waiting, 1)));
    sim_msg_traffic_vehicle crossing = car(104, 3, 0, -6);
    assert_true(in_yield_speed_cap(&j, 1, 80, &crossing, 1) < 10);
    sim_msg_traffic_vehicle ahead = car(110, 0, 8, 0);
    assert_true(isinf(in_yield_speed_cap(&j, 1, 80, &ahead, 1)));
    /* far from the junction, or already in it: drive on */
    assert_true(isinf(in_yield_speed_cap(&j, 1, 50, &right, 1)));
    assert_true(isinf(in_yield_speed_cap(&j, 1, 100, &right, 1)));
    /* a car from the right but 8 s away (80 m at 10 m/s... beyond the range): let be */
    sim_msg_traffic_vehicle late = car(105, -44, 0, 5);
    assert_true(isinf(in_yield_speed_cap(&j, 1, 80, &late, 1)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gives_way_to_the_right_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
