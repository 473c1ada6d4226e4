/* Unit tests of sim_throttle: at most one line a second per cause, the first at once,
 * the count of those held back said with the next. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The line a module prints: the first at once, the next a second later with the count
 * held back, another cause on its own; read back byte for byte. */
static void say_prints_the_count_held_back(void **state)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    sim_throttle t = {0};
    int printed = 0;
    for (int i = 0; i < 1000; i++) /* 1000 bad lines in 1.95 s */
        printed += sim_throttle_say(&t, out, "sound-node", "drt.stimulus", 5.0 + i / 512.0, "bad line %d", i); /* exact binary times */
    printed += sim_throttle_say(&t, out, "sound-node", "vehicle.state", 6.6, "other %s", "cause");
    /* at the end, what was held since line 512 (513..999) is counted too, once */
    assert_int_equal(sim_throttle_flush(&t, out, "sound-node"), 1);
    assert_int_equal(sim_throttle_flush(&t, out, "sound-node"), 0);
    fclose(out);
    assert_int_equal(printed, 3);
    /* line 0 at 5 s; line 512 at 6 s, a second later, 511 held back between */
    assert_string_equal(text, "sound-node: bad line 0\n"
                              "sound-node: bad line 512 (and 511 more like it held back)\n"
                              "sound-node: other cause\n"
                              "sound-node: 487 more drt.stimulus lines held back (not printed)\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_line_a_second_per_cause),
        cmocka_unit_test(say_prints_the_count_held_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
