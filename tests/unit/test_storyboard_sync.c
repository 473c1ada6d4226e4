/* SynchronizeAction's FinalSpeed RelativeSpeedToMaster (issue 39), solved by hand at
 * steps of 1/64 s: Ego at s 50 and the master Target at s 150 in lane -1 of the
 * straight road, both 10 m/s; from the first tick after 1 s (T0, both 10.15625 m on)
 * the Target is 100 m from its position (10 s away) and the Ego 150 m from its own.
 * A linear profile to the final speed f arrives when the master does if it starts at
 * 2 * 150 / 10 - f: with f = 10 + 2 (delta) 18 m/s, with f = 10 * 1.5 (factor) 15;
 * when the master arrives the Ego takes f and the action ends. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ts_assert.h"
#include "ts_storyboard.h"

#define DT TS_SB_DT
#define T0 (65 * DT)

#define SYNC(final)                                                                                               \
    "<SynchronizeAction masterEntityRef=\"Target\"><TargetPositionMaster><LanePosition roadId=\"1\" laneId=\"-1\" " \
    "s=\"260.15625\" offset=\"0\"/></TargetPositionMaster><TargetPosition><LanePosition roadId=\"1\" laneId=\"-1\" " \
    "s=\"210.15625\" offset=\"0\"/></TargetPosition><FinalSpeed>" final "</FinalSpeed></SynchronizeAction>"

#define AT_1(action) EVENT("S", action, AT_TIME(1, "rising"))

static void run(const char *events, double first, double final)
{
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego", events, NULL);
    const sim_sb_state_ent *ego = &r.sb.ent[0];
    ts_sb_until(&r, T0 + DT);
    NEAR(ego->v, first, 1e-6);
    assert_true(ego->long_inst >= 0);
    ts_sb_until(&r, T0 + 11);
    NEAR(ego->v, final, 1e-9);
    assert_int_equal(ego->long_inst, -1);
    NEAR(r.sb.ent[1].s, 260.15625 + 10, 1e-6); /* the master went on at 10 m/s */
    ts_sb_finish(&r);
}

static void test_delta(void **state)
{
    (void)state;
    run(AT_1(SYNC("<RelativeSpeedToMaster value=\"2\" speedTargetValueType=\"delta\"/>")), 18, 12);
}

static void test_factor(void **state)
{
    (void)state;
    run(AT_1(SYNC("<RelativeSpeedToMaster value=\"1.5\" speedTargetValueType=\"factor\"/>")), 15, 15);
}

/* the absolute final speed as before: 2 * 150 / 10 - 8 = 22 m/s, then 8 */
static void test_absolute(void **state)
{
    (void)state;
    run(AT_1(SYNC("<AbsoluteSpeed value=\"8\"/>")), 22, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_factor),
        cmocka_unit_test(test_absolute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
