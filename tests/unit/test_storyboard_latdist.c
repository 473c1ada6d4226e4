/* LateralDistanceAction (issue 39), solved by hand at steps of 1/64 s: Ego at s 50 and
 * Target at s 150 in lane -1 of the straight road, both 10 m/s, boxes 2 m wide; the
 * action from the first tick after 1 s (T0). */
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

#define LATDIST(attrs, inner)                                                                                    \
    "<LateralAction><LateralDistanceAction entityRef=\"Target\" " attrs ">" inner "</LateralDistanceAction>"      \
    "</LateralAction>"

/* Without DynamicConstraints the offset is taken at once: 2 m left of the Target's
 * reference point in the first step (the Target is on the lane's centre), and the
 * action ends; freespace, to the right, 1 m between the boxes' sides: -(1 + 2) = -3. */
static void test_at_once(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("L", LATDIST("distance=\"2\" freespace=\"false\" continuous=\"false\" "
                                   "displacement=\"leftToReferencedEntity\"", ""), AT_TIME(1, "rising")), NULL);
    ts_sb_until(&r, T0 + DT);
    NEAR(r.sb.ent[0].lat, 2, 1e-9);
    assert_int_equal(r.sb.ent[0].lat_inst, -1);
    ts_sb_finish(&r);
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("L", LATDIST("distance=\"1\" freespace=\"true\" continuous=\"false\" "
                                   "displacement=\"rightToReferencedEntity\"", ""), AT_TIME(1, "rising")), NULL);
    ts_sb_until(&r, T0 + DT);
    NEAR(r.sb.ent[0].lat, -3, 1e-9);
    ts_sb_finish(&r);
}

/* maxSpeed 1 alone: 1 m/s sideways, 1 m after 1 s, 2 m (reached, the action ends)
 * after 2 s. */
static void test_max_speed(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("L", LATDIST("distance=\"2\" freespace=\"false\" continuous=\"false\" "
                                   "displacement=\"leftToReferencedEntity\"", "<DynamicConstraints maxSpeed=\"1\"/>"),
                      AT_TIME(1, "rising")), NULL);
    ts_sb_until(&r, T0 + 1);
    NEAR(r.sb.ent[0].lat, 1, 1e-9);
    assert_true(r.sb.ent[0].lat_inst >= 0);
    ts_sb_until(&r, T0 + 2);
    NEAR(r.sb.ent[0].lat, 2, 1e-9);
    assert_int_equal(r.sb.ent[0].lat_inst, -1);
    ts_sb_finish(&r);
}

/* maxAcceleration 1, maxAccelerationRate 0.5: the spring (0.4 * 1 per m) asks 0.8
 * m/s^2 at once, the jerk limit gives 0.5 dt in the first step: lateral speed
 * 0.5 dt^2, lat 0.5 dt^3 = 1.9073e-6 m; the lateral acceleration never above 1; held
 * (continuous) 2 m left of the Target within 1 cm after 20 s. */
static void test_spring(void **state)
{
    (void)state;
    ts_sb_run r;
    ts_sb_start(&r, NULL, NULL, INIT_TWO, "Ego",
                EVENT("L", LATDIST("distance=\"2\" freespace=\"false\" continuous=\"true\" "
                                   "displacement=\"leftToReferencedEntity\"",
                                   "<DynamicConstraints maxAcceleration=\"1\" maxAccelerationRate=\"0.5\"/>"),
                      AT_TIME(1, "rising")), NULL);
    ts_sb_until(&r, T0 + DT);
    NEAR(r.sb.ent[0].lat, 0.5 * DT * DT * DT, 1e-15);
    double v0 = 0, amax = 0;
    for (int k = 0; k < 20 * 64; k++) {
        double lat0 = r.sb.ent[0].lat;
        ts_sb_until(&r, T0 + (k + 2) * DT);
        double v = (r.sb.ent[0].lat - lat0) / DT;
        amax = fmax(amax, fabs(v - v0) / DT);
        v0 = v;
    }
    assert_true(amax <= 1 + 1e-9);
    NEAR(r.sb.ent[0].lat, 2, 0.01);
    assert_true(r.sb.ent[0].lat_inst >= 0);
    ts_sb_finish(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_at_once),
        cmocka_unit_test(test_max_speed),
        cmocka_unit_test(test_spring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
