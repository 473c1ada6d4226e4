/* The timeline plot's series, solved by hand: the speed limit as a step function (it
 * was drawn as a ramp from change point to change point, 80 -> 70 km/h over 780 s in
 * rural), and THW and TTC per sample as the metrics define them (never negative, TTC
 * only while closing and below the cap). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "plot.h"

static void limit_is_a_step_function(void **state)
{
    (void)state;
    /* 80 km/h for the samples at 0, 1, 2; 70 from the sample at 3; a gap at 5. */
    const double t[] = {0, 1, 2, 3, 4, 5, 6, 7};
    const double v[] = {80, 80, 80, 70, 70, NAN, 50, 50};
    double xs[24], ys[24];
    size_t k = plot_step_vertices(t, v, 8, xs, ys);
    /* (0,80) (3,80) (3,70) (5,70) break (6,50) (7,50) */
    const double ex[] = {0, 3, 3, 5, NAN, 6, 7}, ey[] = {80, 80, 70, 70, NAN, 50, 50};
    assert_int_equal(k, 7);
    for (size_t i = 0; i < k; i++) {
        if (isnan(ex[i])) {
            assert_true(isnan(xs[i]) && isnan(ys[i]));
            continue;
        }
        assert_true(xs[i] == ex[i] && ys[i] == ey[i]);
    }
    /* every segment is horizontal or vertical: no ramp */
    for (size_t i = 0; i + 1 < k; i++)
        if (!isnan(xs[i]) && !isnan(xs[i + 1])) assert_true(xs[i] == xs[i + 1] || ys[i] == ys[i + 1]);
}

static void thw_and_ttc_per_sample(void **state)
{
    (void)state;
    /* Ego at 10 m/s closing at 5 m/s from a gap of 20 m, samples every second, into an
     * overlap of 0.5 m (gap -0.5 counts as 0), then standing. */
    const double t[] = {0, 1, 2, 3, 4, 5, 6};
    const double gap[] = {20, 15, 10, 5, -0.5, -0.5, NAN};
    const double v[] = {10, 10, 10, 10, 0, 0, 0};
    double thw[7], ttc[7];
    plot_headway_times(t, gap, v, 7, 10.0, thw, ttc);
    assert_true(thw[0] == 2.0 && thw[1] == 1.5 && thw[3] == 0.5);
    assert_true(isnan(thw[4]) && isnan(thw[6])); /* standing: no THW; no vehicle: none */
    /* TTC = gap / closing: 20/5 = 4, 15/5 = 3, 10/5 = 2, 5/((10 - -0.5)/2) = 0.952; the
     * overlap 0 / 2.75 = 0; then not closing: none */
    assert_true(ttc[0] == 4.0 && ttc[1] == 3.0 && ttc[2] == 2.0);
    assert_true(fabs(ttc[3] - 5.0 / 5.25) < 1e-12);
    assert_true(ttc[4] == 0.0);
    assert_true(isnan(ttc[5]));
    for (int i = 0; i < 7; i++) assert_false(thw[i] < 0 || ttc[i] < 0);
    /* above the cap: n/a */
    const double far[] = {200, 195, 190};
    plot_headway_times(t, far, v, 3, 10.0, thw, ttc);
    assert_true(isnan(ttc[0]) && isnan(ttc[1]) && isnan(ttc[2]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limit_is_a_step_function),
        cmocka_unit_test(thw_and_ttc_per_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
