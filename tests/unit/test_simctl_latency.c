/* simctl latency's figures (simctl/latency_calc.c) from a synthetic self-test: frames
 * every 20 ms, a patch that lights two frames after each step, one frame lit before
 * its input (a causality violation), and a step that never shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "latency_calc.h"
#include "simctl.h"

/* simctl's main.c (not linked into module tests) answers this; nothing here runs it. */
const char *simctl_bin_dir(void)
{
    return "bin";
}

static lat_frame frames[200];

static void steps_against_frames(void **state)
{
    (void)state;
    /* frames at 10.000 + 0.020 k; steps on at 10.505, 11.305, 12.105, off 0.35 s later */
    lat_step steps[] = {{10.505, 10.855}, {11.305, 11.655}, {12.105, 12.455}, {12.905, 13.255}};
    for (int k = 0; k < 200; k++) {
        double t = 10.0 + 0.020 * k;
        frames[k] = (lat_frame){.swap_end = t, .total_ms = NAN};
        for (int s = 0; s < 3; s++) /* lit from the second frame after the step until off + 35 ms */
            if (t >= steps[s].on + 0.030 && t < steps[s].off + 0.030) frames[k].lit = true;
    }
    /* the first lit frame of each step (lit from 30 ms on): 10.540 (35 ms), 11.340, 12.140; own figures
     * 30, 20 and 10 ms, the last 25 ms off: more than one frame */
    double own[3] = {30, 20, 10};
    for (int s = 0; s < 3; s++) {
        int k = (int)ceil((steps[s].on + 0.030 - 10.0) / 0.020);
        frames[k].total_ms = own[s];
        for (int i = 0; i < 7; i++) frames[k].stage_ms[i] = own[s] / 7;
    }
    lat_result r;
    lat_evaluate(steps, 4, frames, 200, 0.2, 0.3, &r);
    assert_int_equal(r.steps, 4);
    assert_int_equal(r.measured, 3); /* the fourth never lit the patch */
    assert_true(fabs(r.frame_s - 0.020) < 1e-9);
    assert_true(fabs(r.median_ms - 35) < 1e-6 && fabs(r.p95_ms - 35) < 1e-6 && fabs(r.p99_ms - 35) < 1e-6);
    assert_true(fabs(r.chain_median_ms - 20) < 1e-9);
    assert_true(fabs(r.max_disagreement_ms - 25) < 1e-6);
    assert_int_equal(r.disagreements, 1);
    assert_int_equal(r.causality_violations, 0);
    assert_true(fabs(r.stage_ms[6] - 20.0 / 7) < 1e-9);
    /* a lit frame 60 ms before the second step: shown before its input */
    frames[62].lit = true; /* 11.240 */
    lat_evaluate(steps, 4, frames, 200, 0.2, 0.3, &r);
    assert_int_equal(r.causality_violations, 1);
    /* no frames before a step: it is not counted */
    lat_evaluate(steps, 4, frames + 30, 170, 0.2, 0.3, &r);
    assert_int_equal(r.measured, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_against_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
