/* Unit tests of sim_throttle: at most one line a second per cause, the first at once,
 * the count of those held back said with the next. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "sim_throttle.h"

static void one_line_a_second_per_cause(void **state)
{
    sim_throttle t = {0};
    uint64_t held = 99;
    /* 100 bad hud.text a second for 3 s, and one bad vehicle.state among them. */
    int printed = 0;
    for (int i = 0; i < 300; i++) {
        double now = 10.0 + i * 0.01;
        if (sim_throttle_allow(&t, "hud.text", now, &held)) {
            printed++;
            assert_int_equal(held, printed == 1 ? 0 : 99); /* 99 held back in each second */
        }
        if (i == 150) assert_true(sim_throttle_allow(&t, "vehicle.state", now, &held)); /* its own cause */
    }
    assert_int_equal(printed, 3);
    /* Causes beyond the table reuse the oldest slot, never refuse a new cause. */
    for (int c = 0; c < 40; c++) {
        char cause[16];
        snprintf(cause, sizeof cause, "c%d", c);
        assert_true(sim_throttle_allow(&t, cause, 20.0 + c, NULL));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_line_a_second_per_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
