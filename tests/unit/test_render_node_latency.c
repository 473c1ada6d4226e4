/* The wheel-to-picture delay's arithmetic (render-node/latency.c): the stage split of
 * a synthetic chain with known stamps, and the per-window summary published as
 * render.latency. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "latency.h"
#include "node.h"

double rn_now(void) { return 0.0; } /* main.c's clock, left out of this test */

/* A wheel moved at 1000.000 s; input-node read it 3 ms later, physics got it 0.5 ms
 * after, integrated it in the tick that finished 6.5 ms later, render-node got that
 * state 0.4 ms after, began the frame 7.6 ms after, drew for 12 ms and the swap
 * returned 9 ms later: 39 ms in all. */
static void split_of_a_known_chain(void **state)
{
    (void)state;
    rn_chain c = {.in_stamp = 1000.000, .in_sent = 1000.003, .in_recv = 1000.0035, .stepped = 1000.010,
                  .state_recv = 1000.0104, .frame_start = 1000.018, .draw_end = 1000.030, .swap_end = 1000.039};
    double st[SIM_LATENCY_STAGES];
    double total = rn_latency_split(&c, st);
    assert_true(fabs(total - 0.039) < 1e-9);
    const double want[SIM_LATENCY_STAGES] = {0.003, 0.0005, 0.0065, 0.0004, 0.0076, 0.012, 0.009};
    double sum = 0;
    for (int i = 0; i < SIM_LATENCY_STAGES; i++) {
        assert_true(fabs(st[i] - want[i]) < 1e-9);
        sum += st[i];
    }
    assert_true(fabs(sum - total) < 0.001); /* the bound: within 1 ms */
    assert_true(fabs(sum - total) < 1e-9);  /* and in fact exactly */
    /* a stamp missing (an older physics): no figure, rather than a wrong one */
    c.in_recv = NAN;
    st[0] = -7;
    assert_true(isnan(rn_latency_split(&c, st)));
    assert_true(st[0] == -7);
}

static void window_summary(void **state)
{
    (void)state;
    rn_latency_window w;
    rn_latency_window_init(&w);
    sim_msg_render_latency m;
    /* 60 Hz frames of 30, 31, ... 36 ms: the seventh closes the 0.1 s window */
    for (int i = 0; i < 6; i++) {
        double st[SIM_LATENCY_STAGES] = {0.001 * i, 0, 0, 0, 0, 0, 0.030};
        assert_int_equal(rn_latency_add(&w, 5.0 + i / 60.0, 0.030 + 0.001 * i, st, 0.1, &m), 0);
    }
    double st[SIM_LATENCY_STAGES] = {0.006, 0, 0, 0, 0, 0, 0.030};
    assert_int_equal(rn_latency_add(&w, 5.0 + 6 / 60.0, 0.036, st, 0.1, &m), 1);
    assert_int_equal(m.frames, 7);
    assert_true(fabs(m.window_s - 0.1) < 1e-9);
    assert_true(fabs(m.min_ms - 30) < 1e-9 && fabs(m.max_ms - 36) < 1e-9);
    assert_true(fabs(m.median_ms - 33) < 1e-9);
    assert_true(fabs(m.p95_ms - 36) < 1e-9); /* nearest rank: ceil(0.95 * 7) = 7th */
    assert_true(fabs(m.stage_ms[0] - 3) < 1e-9 && fabs(m.stage_ms[6] - 30) < 1e-9);
    assert_int_equal(w.n, 0); /* a new window begins */
    double v[] = {5, 1, 4, 2, 3};
    assert_true(rn_quantile(v, 5, 0.5) == 3 && rn_quantile(v, 5, 0.99) == 5 && rn_quantile(v, 5, 0) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_of_a_known_chain),
        cmocka_unit_test(window_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
