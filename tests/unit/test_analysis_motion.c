/* Unit test of analysis motion's computation (analysis/motion.c): a platform that gives
 * exactly the car's motion is felt exactly (RMSE 0, correlation 1, no delay, no false
 * cue); one that gives it 0.2 s late shows a 0.2 s delay; one with the opposite sign
 * shows false cues; only the running rows count, and the limit stretches among them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis.h"

#define DT 0.01
#define N 2000

static an_motion make(double delay_s, double sign)
{
    an_motion m = {.rows = calloc(N, sizeof(an_motion_row)), .n = N, .cap = N};
    assert_non_null(m.rows);
    for (int i = 0; i < N; i++) {
        an_motion_row *r = &m.rows[i];
        double t = i * DT;
        r->t = t;
        r->running = i >= 100; /* the first second fades in: not counted */
        r->limits = (i >= 500 && i < 510) || (i >= 700 && i < 705) ? 2 : 0;
        r->car[0] = 2 * sin(2 * M_PI * 0.5 * t);
        r->car[2] = 9.80665;
        r->car[5] = 0.3 * sin(2 * M_PI * 0.3 * t);
        r->plat[0] = sign * 2 * sin(2 * M_PI * 0.5 * (t - delay_s));
        r->plat[2] = 9.80665;
        r->plat[5] = sign * 0.3 * sin(2 * M_PI * 0.3 * (t - delay_s));
    }
    return m;
}

static void fidelity_of_made_up_drives(void **state)
{
    an_motion_result r;
    sim_error err;
    an_motion m = make(0, 1);
    assert_int_equal(an_motion_compute(&m, DT, &r, &err), SIM_OK);
    assert_true(fabs(r.running_s - 19.0) < 1e-9);
    assert_true(r.axis[0].rmse < 1e-12 && fabs(r.axis[0].corr - 1) < 1e-12 && r.axis[0].delay_s == 0);
    assert_true(r.axis[5].rmse < 1e-12 && r.axis[0].false_cues == 0 && r.axis[5].false_cues == 0);
    assert_true(isnan(r.axis[1].corr)); /* no sway at all: no correlation to give */
    assert_int_equal(r.limit_hits, 2);
    assert_true(fabs(r.limit_s - 0.15) < 1e-9);
    an_motion_free(&m);

    m = make(0.2, 1);
    assert_int_equal(an_motion_compute(&m, DT, &r, &err), SIM_OK);
    assert_true(fabs(r.axis[0].delay_s - 0.2) < 1e-9);
    assert_true(fabs(r.axis[5].delay_s - 0.2) < 1e-9);
    an_motion_free(&m);

    m = make(0, -1);
    assert_int_equal(an_motion_compute(&m, DT, &r, &err), SIM_OK);
    assert_true(r.axis[0].false_cues >= 18); /* 0.5 Hz over 19 s: a stretch each half period */
    assert_true(r.axis[0].corr < -0.99);
    an_motion_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fidelity_of_made_up_drives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
