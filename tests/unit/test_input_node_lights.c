/* The scripted driver at traffic lights (input-node/lights.c), solved by hand: the
 * lines of tests/data/traffic_light.json's heads on a path along its road's lane -2
 * (y = -5.25, x 0..600): "north" (along s, s 300) lies on it, "south" (against s) does
 * not. Red: with its front at 280 the cap is sqrt(2 * 2.5 * (20 - 1)) m/s; 0.5 m
 * before the line (already inside the 1 m margin) it is 0. Amber first seen 3 m before
 * the line at 15 m/s (it would need 15^2 / (2 * 2) = 56 m/s^2): it goes on, and keeps
 * going though the light stays amber; green: no cap. A new red asks again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "lights.h"
#include "test_support.h"

static void stops_at_red_lines_on_its_path(void **state)
{
    (void)state;
    double xy[] = {0, -5.25, 600, -5.25};
    sim_driver_path path;
    sim_error err = {0};
    assert_int_equal(sim_driver_path_set(&path, xy, 2, &err), 0);
    in_lights L;
    assert_int_equal(in_lights_open(&L, ts_root("tests/data/traffic_light.json"), &path, &err), 0);
    assert_int_equal(L.n_heads, 2);
    assert_int_equal(L.n_stops, 1);
    assert_true(fabs(L.stops[0].s - 300) < 1e-9);
    assert_true(isinf(in_lights_speed_cap(&L, 280, 10))); /* nothing said yet: no stop */
    in_lights_set(&L, "north", "red");
    assert_true(fabs(in_lights_speed_cap(&L, 280, 10) - sqrt(2 * 2.5 * 19)) < 1e-12);
    assert_true(in_lights_speed_cap(&L, 299.5, 0.5) == 0.0);
    assert_true(isinf(in_lights_speed_cap(&L, 301, 0))); /* past it */
    in_lights_set(&L, "north", "green");
    assert_true(isinf(in_lights_speed_cap(&L, 297, 15)));
    in_lights_set(&L, "north", "amber");
    assert_true(isinf(in_lights_speed_cap(&L, 297, 15))); /* too close: on */
    assert_true(isinf(in_lights_speed_cap(&L, 298.5, 15)));
    in_lights_set(&L, "north", "green");
    in_lights_speed_cap(&L, 250, 10);
    in_lights_set(&L, "north", "red"); /* a new red far enough: it stops */
    assert_true(fabs(in_lights_speed_cap(&L, 250, 10) - sqrt(2 * 2.5 * 49)) < 1e-12);
    in_lights_set(&L, "south", "red"); /* not on the path */
    in_lights_set(&L, "north", "green");
    assert_true(isinf(in_lights_speed_cap(&L, 250, 10)));
    in_lights_close(&L);
    sim_driver_path_free(&path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(stops_at_red_lines_on_its_path)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
