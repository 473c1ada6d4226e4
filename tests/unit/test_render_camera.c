/* Unit tests of sim_camera and sim_interp: the body rotation's sign conventions,
 * where each view looks and from where, points projected where hand geometry puts
 * them, mirrors reversing left and right, the yaw offset and fov, frustum planes, and
 * interpolation between the last two states. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sim_camera.h"
#include "sim_interp.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void rotation_conventions(void **state)
{
    (void)state;
    double w[3];
    /* heading 90 deg: forward is north */
    sim_pose p = {.pos = {10, 20, 1}, .heading = M_PI / 2};
    sim_pose_to_world(&p, (double[3]){1, 0, 0}, w);
    NEAR(w[0], 10, 1e-12); NEAR(w[1], 21, 1e-12); NEAR(w[2], 1, 1e-12);
    /* pitch positive: nose down */
    p = (sim_pose){.pitch = 0.1};
    sim_pose_to_world(&p, (double[3]){1, 0, 0}, w);
    NEAR(w[2], -sin(0.1), 1e-12);
    /* roll positive: right side (-y) down */
    p = (sim_pose){.roll = 0.1};
    sim_pose_to_world(&p, (double[3]){0, -1, 0}, w);
    NEAR(w[2], -sin(0.1), 1e-12);
}

static void view_names(void **state)
{
    (void)state;
    for (int v = 0; v < SIM_VIEW_COUNT; v++)
        assert_int_equal(sim_view_parse(sim_view_name(v)), v);
    assert_int_equal(sim_view_parse("rear"), -1);
    assert_int_equal(sim_view_parse(NULL), -1);
}

static const sim_view_rig rig = {.eye = {-0.3, 0.37, 0.55}, .length = 4.5, .width = 1.8};

static void front_view_projects_by_hand(void **state)
{
    (void)state;
    sim_camera c;
    sim_pose p = {.pos = {100, 50, 0}, .heading = M_PI / 2}; /* facing north */
    sim_camera_params cp = {.view = SIM_VIEW_FRONT, .fov_y = M_PI / 2, .aspect = 2};
    sim_camera_setup(&c, &p, &rig, &cp);
    /* eye: 0.3 m back (south), 0.37 m left (west) of the reference point */
    NEAR(c.eye[0], 100 - 0.37, 1e-12); NEAR(c.eye[1], 50 - 0.3, 1e-12); NEAR(c.eye[2], 0.55, 1e-12);
    assert_false(c.mirrored);
    double ndc[2];
    /* a point 10 m ahead at eye height: centre of the screen */
    assert_true(sim_camera_project(&c, (double[3]){c.eye[0], c.eye[1] + 10, 0.55}, ndc));
    NEAR(ndc[0], 0, 1e-5); NEAR(ndc[1], 0, 1e-5);
    /* 10 m ahead, 5 m to the right (east), 2.5 m up: tan = 0.5 with fov 90 deg and
     * aspect 2 gives x = 0.5 / 2, y = 0.25 */
    assert_true(sim_camera_project(&c, (double[3]){c.eye[0] + 5, c.eye[1] + 10, 0.55 + 2.5}, ndc));
    NEAR(ndc[0], 0.25, 1e-5); NEAR(ndc[1], 0.25, 1e-5);
    /* behind the eye: not projected */
    assert_false(sim_camera_project(&c, (double[3]){c.eye[0], c.eye[1] - 10, 0.55}, ndc));
}

static void side_screens_abut_and_yaw_offset(void **state)
{
    (void)state;
    sim_camera c;
    sim_pose p = {0};
    sim_camera_params cp = {.view = SIM_VIEW_LEFT, .fov_y = 0.6, .aspect = 16.0 / 9};
    sim_camera_setup(&c, &p, &rig, &cp);
    double hfov = 2 * atan(16.0 / 9 * tan(0.3));
    NEAR(atan2(c.forward[1], c.forward[0]), hfov, 1e-12);
    /* the left screen's right border is the front screen's left border */
    double dir[3] = {cos(hfov / 2), sin(hfov / 2), 0}, pt[3], ndc[2];
    for (int i = 0; i < 3; i++) pt[i] = c.eye[i] + 50 * dir[i];
    assert_true(sim_camera_project(&c, pt, ndc));
    NEAR(ndc[0], 1, 1e-5);
    cp.view = SIM_VIEW_RIGHT;
    sim_camera_setup(&c, &p, &rig, &cp);
    NEAR(atan2(c.forward[1], c.forward[0]), -hfov, 1e-12);
    cp.view = SIM_VIEW_FRONT;
    cp.yaw_offset = 0.25;
    sim_camera_setup(&c, &p, &rig, &cp);
    NEAR(atan2(c.forward[1], c.forward[0]), 0.25, 1e-12);
    cp.fov_y = 0;
    sim_camera_setup(&c, &p, &rig, &cp);
    NEAR(c.fov_y, sim_view_default_fov(SIM_VIEW_FRONT), 1e-12);
}

static void mirrors_look_back_reversed(void **state)
{
    (void)state;
    sim_camera c;
    sim_pose p = {.pos = {0, 0, 0}, .heading = 0};
    sim_camera_params cp = {.view = SIM_VIEW_REAR_MIRROR, .aspect = 3};
    sim_camera_setup(&c, &p, &rig, &cp);
    assert_true(c.mirrored);
    NEAR(c.forward[0], -1, 1e-12);
    NEAR(c.eye[1], 0, 1e-12); /* on the centre line */
    double ndc[2];
    /* a car 30 m behind, 3 m to the car's left (+y): in a mirror it appears on the
     * left of the image, as through the rear window seen in a mirror */
    assert_true(sim_camera_project(&c, (double[3]){-30, 3, 0.8}, ndc));
    assert_true(ndc[0] < 0);
    assert_true(sim_camera_project(&c, (double[3]){-30, 0, c.eye[2]}, ndc));
    NEAR(ndc[0], 0, 1e-5);
    cp.view = SIM_VIEW_LEFT_MIRROR;
    sim_camera_setup(&c, &p, &rig, &cp);
    assert_true(c.eye[1] > rig.width / 2);
    assert_true(c.forward[0] < -0.9 && c.forward[1] > 0); /* back and outward */
    cp.view = SIM_VIEW_RIGHT_MIRROR;
    sim_camera_setup(&c, &p, &rig, &cp);
    assert_true(c.eye[1] < -rig.width / 2);
    assert_true(c.forward[0] < -0.9 && c.forward[1] < 0);
}

static void chase_view_sees_the_car(void **state)
{
    (void)state;
    sim_camera c;
    sim_pose p = {.pos = {5, 5, 2}, .heading = 1.0, .pitch = 0.05, .roll = 0.02};
    sim_camera_params cp = {.view = SIM_VIEW_CHASE, .aspect = 16.0 / 9};
    sim_camera_setup(&c, &p, &rig, &cp);
    double ndc[2];
    assert_true(sim_camera_project(&c, p.pos, ndc));
    assert_true(fabs(ndc[0]) < 1e-5 && ndc[1] > -1 && ndc[1] < 0);
    /* level and behind: the eye is behind the car along its heading */
    double bx = c.eye[0] - p.pos[0], by = c.eye[1] - p.pos[1];
    assert_true(bx * cos(1.0) + by * sin(1.0) < -8);
}

static void frustum_planes(void **state)
{
    (void)state;
    sim_camera c;
    sim_pose p = {0};
    sim_view_rig r0 = {{0, 0, 0}, 4, 2};
    sim_camera_params cp = {.view = SIM_VIEW_FRONT, .fov_y = M_PI / 2, .aspect = 1, .z_far = 100};
    sim_camera_setup(&c, &p, &r0, &cp);
    sim_frustum f;
    sim_frustum_from_matrix(&f, c.view_proj);
    /* ahead */
    assert_true(sim_frustum_box_visible(&f, (double[3]){10, -1, -1}, (double[3]){12, 1, 1}));
    /* behind */
    assert_false(sim_frustum_box_visible(&f, (double[3]){-12, -1, -1}, (double[3]){-10, 1, 1}));
    /* beyond the far plane */
    assert_false(sim_frustum_box_visible(&f, (double[3]){101, -1, -1}, (double[3]){120, 1, 1}));
    /* off to the left: at x = 10 the half-width is 10 */
    assert_false(sim_frustum_box_visible(&f, (double[3]){9, 11, -1}, (double[3]){10, 20, 1}));
    assert_true(sim_frustum_box_visible(&f, (double[3]){9, 9, -1}, (double[3]){10, 20, 1}));
    /* a big box around the eye */
    assert_true(sim_frustum_box_visible(&f, (double[3]){-50, -50, -50}, (double[3]){50, 50, 50}));
}

static void interpolation(void **state)
{
    (void)state;
    sim_interp ip = {0};
    sim_pose out;
    assert_true(sim_interp_at(&ip, 0, &out) == 0);
    sim_pose a = {.pos = {0, 0, 0}, .heading = 3.1}, b = {.pos = {1, 2, 0}, .heading = -3.1};
    sim_interp_push(&ip, &a, 1.00, 100.0);
    NEAR(sim_interp_at(&ip, 100.5, &out), 1.0, 1e-12);
    NEAR(out.heading, 3.1, 1e-12);
    sim_interp_push(&ip, &b, 1.01, 100.010);
    /* at arrival the older state shows, half a period later the middle */
    NEAR(sim_interp_at(&ip, 100.010, &out), 1.00, 1e-12);
    NEAR(out.pos[0], 0, 1e-12);
    NEAR(sim_interp_at(&ip, 100.015, &out), 1.005, 1e-9);
    NEAR(out.pos[0], 0.5, 1e-6); NEAR(out.pos[1], 1.0, 1e-6);
    /* through pi, not through 0 */
    NEAR(fabs(remainder(out.heading - M_PI, 2 * M_PI)), 0, 1e-6);
    /* after a period: the newest, never beyond */
    NEAR(sim_interp_at(&ip, 100.5, &out), 1.01, 1e-12);
    NEAR(out.pos[1], 2, 1e-12);
    /* back in time (a restart): that state alone */
    sim_pose c = {.pos = {7, 7, 7}};
    sim_interp_push(&ip, &c, 0.0, 101.0);
    assert_int_equal(ip.n, 1);
    sim_interp_at(&ip, 101.001, &out);
    NEAR(out.pos[0], 7, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rotation_conventions),
        cmocka_unit_test(view_names),
        cmocka_unit_test(front_view_projects_by_hand),
        cmocka_unit_test(side_screens_abut_and_yaw_offset),
        cmocka_unit_test(mirrors_look_back_reversed),
        cmocka_unit_test(chase_view_sees_the_car),
        cmocka_unit_test(frustum_planes),
        cmocka_unit_test(interpolation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
