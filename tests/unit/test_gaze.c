/* Unit tests of sim_gaze: the hit test of a gaze ray (a placed vehicle named by id, the
 * left mirror, an opaque display in front of a car, the nearer of two, a sign, nothing)
 * and the vehicle file's gaze_areas parser with its errors. Cases solved by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim_gaze.h"

static const sim_gaze_area AREAS[] = {
    {"road", -15, 15, -4, 12, true},        {"hud", -8, 8, -10, -4, false},
    {"mirror_left", 30, 60, -15, 5, false}, {"cluster", -10, 10, -28, -10, false},
    {"window_left", 15, 100, -10, 20, true},
};

/* The ego at (100, 50) heading north (pi/2), eye 0.4 m left of and 1.2 m above its
 * reference point; a car 30 m ahead and 3.5 m to the left (lane to the left), facing
 * north too: from the eye (99.6, 50, 1.2) it is at dx = 30 ahead, 3.1 m left. */
static sim_gaze_object OBJECTS[] = {
    {SIM_GAZE_VEHICLE, "car7", 96.5, 80, 0, M_PI / 2, 4.5, 1.8, 1.5},
    {SIM_GAZE_VEHICLE, "truck2", 93.4, 110, 0, M_PI / 2, 12, 2.5, 3.5}, /* on the line beyond car7 */
    {SIM_GAZE_SIGN, "r1:0", 104, 60, 1.5, M_PI / 2, 0.1, 0.8, 1.0},
};

static sim_gaze_scene scene(void)
{
    return (sim_gaze_scene){.areas = AREAS, .n_areas = 5, .objects = OBJECTS, .n_objects = 3, .ego_x = 100,
                            .ego_y = 50, .ego_z = 0, .ego_heading = M_PI / 2, .eye = {0, 0.4, 1.2}};
}

static double deg(double r) { return r * 180 / M_PI; }

static void ray_at_a_placed_vehicle_names_it(void **state)
{
    sim_gaze_scene sc = scene();
    sim_gaze_hit h;
    /* the centre of car7 seen from the eye: 30 m ahead, 3.1 m left, 0.45 m below */
    double yaw = deg(atan2(3.1, 30)), pitch = deg(atan2(0.75 - 1.2, hypot(30, 3.1)));
    assert_int_equal(sim_gaze_hit_test(&sc, yaw, pitch, &h, NULL), 0);
    assert_int_equal(h.kind, SIM_GAZE_VEHICLE);
    assert_string_equal(h.name, "vehicle:car7");
    assert_int_equal(h.area, 0); /* through the road-ahead window */
    /* its rear face is 30 - 2.25 = 27.75 m ahead along x: the ray meets it there */
    double along = 27.75 / cos(atan2(3.1, 30)) / cos(pitch * M_PI / 180);
    assert_true(fabs(h.distance - along) < 1e-9);
    /* 2 degrees further left misses car7 (its left side is 3.1 + 0.9 m off at 27.75 m:
     * 8.2 degrees) and the road beyond: the area itself */
    assert_int_equal(sim_gaze_hit_test(&sc, 9.0, pitch, &h, NULL), 0);
    assert_string_equal(h.name, "road");
    assert_true(isnan(h.distance));
}

static void ray_at_the_left_mirror_names_the_mirror(void **state)
{
    sim_gaze_scene sc = scene();
    sim_gaze_hit h;
    assert_int_equal(sim_gaze_hit_test(&sc, 45, -5, &h, NULL), 0);
    assert_int_equal(h.kind, SIM_GAZE_AREA);
    assert_string_equal(h.name, "mirror_left");
    assert_int_equal(h.index, 2);
}

static void an_opaque_area_hides_the_world(void **state)
{
    /* a car placed right below the line of sight to the cluster: the cluster it is */
    sim_gaze_object low = {SIM_GAZE_VEHICLE, "low", 99.6, 54, -1.5, M_PI / 2, 4, 4, 1};
    sim_gaze_scene sc = scene();
    sc.objects = &low;
    sc.n_objects = 1;
    sim_gaze_hit h;
    assert_int_equal(sim_gaze_hit_test(&sc, 0, -20, &h, NULL), 0);
    assert_string_equal(h.name, "cluster");
    /* the same car with no areas at all: the ray meets it */
    sc.n_areas = 0;
    assert_int_equal(sim_gaze_hit_test(&sc, 0, -20, &h, NULL), 0);
    assert_string_equal(h.name, "vehicle:low");
    assert_int_equal(h.area, -1);
}

static void the_nearer_of_two_and_a_sign(void **state)
{
    sim_gaze_scene sc = scene();
    sim_gaze_hit h;
    /* straight at car7's centre height: truck2 is behind it on the same line */
    double yaw = deg(atan2(3.1, 30));
    assert_int_equal(sim_gaze_hit_test(&sc, yaw, 0, &h, NULL), 0);
    assert_string_equal(h.name, "vehicle:car7");
    /* above car7's roof (1.5 m) at 27.75 m: the truck (3.5 m high) from 54 m on */
    assert_int_equal(sim_gaze_hit_test(&sc, yaw, deg(atan2(1.0, 30)), &h, NULL), 0);
    assert_string_equal(h.name, "vehicle:truck2");
    /* the sign 4.4 m right, 10 m ahead, panel 1.5..2.5 m high: at its centre */
    assert_int_equal(sim_gaze_hit_test(&sc, deg(atan2(-4.4, 10)), deg(atan2(2.0 - 1.2, hypot(10, 4.4))), &h, NULL),
                     0);
    assert_string_equal(h.name, "sign:r1:0");
    assert_int_equal(h.kind, SIM_GAZE_SIGN);
    /* a sign out of range is not seen */
    sc.max_range = 5;
    assert_int_equal(sim_gaze_hit_test(&sc, deg(atan2(-4.4, 10)), deg(atan2(2.0 - 1.2, hypot(10, 4.4))), &h, NULL),
                     0);
    assert_int_equal(h.kind, SIM_GAZE_NOTHING);
    assert_string_equal(h.name, "");
}

static void bad_direction_is_an_error(void **state)
{
    sim_gaze_scene sc = scene();
    sim_gaze_hit h;
    sim_error err = {0};
    assert_int_equal(sim_gaze_hit_test(&sc, NAN, 0, &h, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "expected yaw -180..180"));
    assert_int_equal(sim_gaze_hit_test(&sc, 0, 91, &h, &err), SIM_EINVAL);
}

static int parse(const char *text, sim_gaze_area *a, size_t *n, sim_error *err)
{
    cJSON *v = cJSON_Parse(text);
    int rc = sim_gaze_areas_parse(v, "car.json", a, SIM_GAZE_AREAS_MAX, n, err);
    cJSON_Delete(v);
    return rc;
}

static void areas_parse_and_their_errors(void **state)
{
    sim_gaze_area a[SIM_GAZE_AREAS_MAX];
    size_t n;
    sim_error err = {0};
    assert_int_equal(parse("[{\"name\":\"road\",\"yaw_deg\":[-15,15],\"pitch_deg\":[-4,12],\"window\":true},"
                           "{\"name\":\"cluster\",\"yaw_deg\":[-10,10],\"pitch_deg\":[-28,-10]}]",
                           a, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(a[1].name, "cluster");
    assert_true(a[0].window && !a[1].window);
    assert_true(a[1].pitch_min == -28 && a[1].yaw_max == 10);
    assert_int_equal(parse("{}", a, &n, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "an array of areas of interest"));
    assert_int_equal(parse("[{\"name\":\"x\",\"yaw_deg\":[15,-15],\"pitch_deg\":[0,1]}]", a, &n, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "gaze_areas[0].yaw_deg"));
    assert_non_null(strstr(err.msg, "min < max"));
    assert_int_equal(parse("[{\"name\":\"x\",\"yaw_deg\":[-1,1],\"pitch_deg\":[0,100]}]", a, &n, &err), SIM_ERANGE);
    assert_non_null(strstr(err.msg, "car.json"));
    assert_int_not_equal(parse("[{\"name\":\"x\",\"yaw_deg\":[-1,1],\"pitch_deg\":[0,1],\"colour\":1}]", a, &n,
                               &err), 0);
    assert_non_null(strstr(err.msg, "colour"));
    assert_int_equal(parse("[{\"name\":\"x\",\"yaw_deg\":[-1,1],\"pitch_deg\":[0,1]},"
                           "{\"name\":\"x\",\"yaw_deg\":[-1,1],\"pitch_deg\":[0,1]}]", a, &n, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "given twice"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ray_at_a_placed_vehicle_names_it),
        cmocka_unit_test(ray_at_the_left_mirror_names_the_mirror),
        cmocka_unit_test(an_opaque_area_hides_the_world),
        cmocka_unit_test(the_nearer_of_two_and_a_sign),
        cmocka_unit_test(bad_direction_is_an_error),
        cmocka_unit_test(areas_parse_and_their_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
