/* sim_predict (common/render): the ego pose carried to the presentation time, against
 * solved cases: a circle at constant speed and a braking car, and the clamps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "sim_predict.h"

/* 20 m/s on a circle of 100 m (yaw rate 0.2 rad/s) from (5, -3) heading 30 degrees:
 * after t the car has turned 0.2 t and stands on the circle about its centre. */
static void circle(void **state)
{
    (void)state;
    double h0 = M_PI / 6, R = 100, w = 0.2;
    sim_pose p = {.pos = {5, -3, 1.5}, .heading = h0};
    sim_motion m = {.speed = 20, .yaw_rate = w};
    const double cx = 5 - R * sin(h0), cy = -3 + R * cos(h0); /* the centre, to the left */
    const double times[] = {0.016, 0.05, 0.1};
    for (int i = 0; i < 3; i++) {
        sim_pose q;
        sim_predict(&p, &m, times[i], &q);
        double th = h0 + w * times[i];
        double x = cx + R * sin(th), y = cy - R * cos(th);
        assert_true(fabs(q.pos[0] - x) < 1e-6 && fabs(q.pos[1] - y) < 1e-6);
        assert_true(fabs(remainder(q.heading - th, 2 * M_PI)) < 1e-9);
        assert_true(q.pos[2] == 1.5);
    }
}

/* Braking at 8 m/s^2 from 10 m/s along -y: 0.96 m in 0.1 s; from 0.4 m/s it stops
 * after 0.05 s, 1 cm on, and stays there. */
static void braking_car(void **state)
{
    (void)state;
    sim_pose p = {.pos = {0, 0, 0}, .heading = -M_PI / 2};
    sim_motion m = {.speed = 10, .accel = -8};
    sim_pose q;
    sim_predict(&p, &m, 0.1, &q);
    assert_true(fabs(q.pos[1] + 0.96) < 1e-9 && fabs(q.pos[0]) < 1e-9);
    m.speed = 0.4;
    sim_predict(&p, &m, 0.1, &q);
    assert_true(fabs(q.pos[1] + 0.01) < 1e-9);
    sim_predict(&p, &m, 0.05, &q);
    assert_true(fabs(q.pos[1] + 0.01) < 1e-9);
    /* standing with the brake on: no creeping backwards */
    m.speed = 0;
    sim_predict(&p, &m, 0.1, &q);
    assert_true(q.pos[0] == 0 && q.pos[1] == 0);
}

static void clamps(void **state)
{
    (void)state;
    sim_pose p = {.pos = {1, 2, 3}, .heading = 0.5};
    sim_motion m = {.speed = 30, .vz = 1};
    sim_pose q;
    sim_predict(&p, &m, -0.2, &q); /* a horizon in the past: the pose as it is */
    assert_true(q.pos[0] == 1 && q.pos[1] == 2 && q.heading == 0.5);
    sim_predict(&p, &m, 5, &q); /* at most SIM_PREDICT_MAX */
    assert_true(fabs(hypot(q.pos[0] - 1, q.pos[1] - 2) - 30 * SIM_PREDICT_MAX) < 1e-9);
    assert_true(fabs(q.pos[2] - (3 + SIM_PREDICT_MAX)) < 1e-9);
    m.speed = NAN; /* a state without speed: held */
    sim_predict(&p, &m, 0.05, &q);
    assert_true(q.pos[0] == 1 && q.pos[1] == 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(circle),
        cmocka_unit_test(braking_car),
        cmocka_unit_test(clamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
