/* Unit tests of sim_input_map (device mapping files, raw -> controls) and
 * sim_controls (input.controls fields). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_controls.h"
#include "sim_input_map.h"

#include "ts_assert.h"

static sim_input_raw raw_of(const int16_t *axes, int na, const uint8_t *buttons, int nb,
                            const uint8_t *hats, int nh)
{
    return (sim_input_raw){axes, na, buttons, nb, hats, nh};
}

static void default_wheel_maps_axes(void **state)
{
    sim_input_map m;
    sim_input_map_default(&m);
    /* Fully left (raw minimum): steer +1, half the 900 degree range. */
    int16_t axes[4] = {-32768, 32767, 32767, 32767};
    sim_input_raw raw = raw_of(axes, 4, NULL, 0, NULL, 0);
    sim_controls c;
    sim_input_map_apply(&m, &raw, &c);
    NEAR(c.steer, 1.0, 1e-12);
    NEAR(c.steer_deg, 450.0, 1e-9);
    NEAR(c.throttle, 0.0, 1e-12); /* released pedals report +32767: inverted */
    NEAR(c.brake, 0.0, 1e-12);
    NEAR(c.clutch, 0.0, 1e-12);
    assert_false(c.has_gear);
    /* Fully right, throttle floored, brake about three quarters down, by hand:
     * v = 1 - (-16384 + 32768)/65535 = 0.7499962, less the 0.02 dead zone:
     * (0.7499962 - 0.02)/0.98 = 0.744894. */
    axes[0] = 32767;
    axes[2] = -32768;
    axes[3] = -16384;
    sim_input_map_apply(&m, &raw, &c);
    NEAR(c.steer, -1.0, 1e-12);
    NEAR(c.steer_deg, -450.0, 1e-9);
    NEAR(c.throttle, 1.0, 1e-12);
    NEAR(c.brake, (1.0 - 16384.0 / 65535.0 - 0.02) / 0.98, 1e-12);
    NEAR(c.brake, 0.744894, 1e-6);
    /* A device with only a steering axis: pedals read as released. */
    raw.n_axes = 1;
    axes[0] = -16384;
    sim_input_map_apply(&m, &raw, &c);
    NEAR(c.steer, 16383.5 / 32767.5, 1e-12);
    assert_true(c.throttle == 0 && c.brake == 0 && c.clutch == 0);
}

static void dead_zone_and_inversion(void **state)
{
    sim_axis_map a = {.used = true, .index = 0, .invert = false, .dead_zone = 0.1,
                      .raw_min = -1000, .raw_max = 1000};
    NEAR(sim_axis_centered(&a, 50), 0.0, 0);     /* inside the dead zone */
    NEAR(sim_axis_centered(&a, -100), 0.0, 0);   /* its edge */
    NEAR(sim_axis_centered(&a, 550), 0.5, 1e-12); /* (0.55 - 0.1) / 0.9 */
    NEAR(sim_axis_centered(&a, 1000), 1.0, 1e-12);
    NEAR(sim_axis_centered(&a, 5000), 1.0, 1e-12); /* beyond the calibrated end */
    a.invert = true;
    NEAR(sim_axis_centered(&a, 550), -0.5, 1e-12);
    /* Pedal with calibrated range 0..1000, rest at 0, dead zone 0.1. */
    a = (sim_axis_map){.used = true, .dead_zone = 0.1, .raw_min = 0, .raw_max = 1000};
    NEAR(sim_axis_pedal(&a, 80), 0.0, 0);
    NEAR(sim_axis_pedal(&a, 550), 0.5, 1e-12);
    NEAR(sim_axis_pedal(&a, -40), 0.0, 0);
    a.invert = true;
    NEAR(sim_axis_pedal(&a, 450), 0.5, 1e-12);
    NEAR(sim_axis_pedal(&a, 1000), 0.0, 0);
}

static const char combined_doc[] =
    "{\"format\":\"sim-input-map/1\",\"name\":\"old wheel\",\n"
    " \"match\":{\"name\":\"Formula Force\"},\"steering_range_deg\":270,\n"
    " \"axes\":{\"steer\":{\"axis\":0,\"invert\":true},\"pedals\":{\"axis\":1,\"dead_zone\":0.05}},\n"
    " \"buttons\":{\"horn\":2,\"menu_up\":{\"hat\":0,\"dir\":\"up\"}},\n"
    " \"hshifter\":{\"gears\":[8,9,10,11,12,13],\"reverse\":14},\n"
    " \"ffb\":{\"gain\":0.5,\"torque_limit\":0.4,\"invert\":true}}";

static void combined_pedals_buttons_and_shifter(void **state)
{
    sim_input_map m;
    sim_error err = {0};
    assert_int_equal(sim_input_map_parse(combined_doc, strlen(combined_doc), &m, &err), SIM_OK);
    assert_string_equal(m.name, "old wheel");
    NEAR(m.steering_range_deg, 270, 0);
    NEAR(m.ffb_gain, 0.5, 0);
    NEAR(m.ffb_torque_limit, 0.4, 0);
    assert_true(m.ffb_invert);
    /* "axes" replaced the default set: no clutch any more. */
    assert_false(m.axes[SIM_AXIS_CLUTCH].used);
    assert_false(m.buttons[SIM_BUTTON_INDICATOR_LEFT].used);

    int16_t axes[2] = {-32768, -32768};
    uint8_t buttons[16] = {0};
    uint8_t hats[1] = {0};
    sim_input_raw raw = raw_of(axes, 2, buttons, 16, hats, 1);
    sim_controls c;
    sim_input_map_apply(&m, &raw, &c);
    NEAR(c.steer, -1.0, 1e-12); /* inverted: raw minimum is right */
    NEAR(c.steer_deg, -135.0, 1e-9);
    NEAR(c.throttle, 1.0, 1e-12); /* combined axis below centre: throttle */
    NEAR(c.brake, 0.0, 0);
    assert_true(c.has_gear);
    assert_int_equal(c.gear, 0); /* no shifter button: neutral */
    axes[1] = 16384;              /* brake side: (16384.5/32767.5 - 0.05)/0.95 */
    buttons[10] = 1;
    sim_input_map_apply(&m, &raw, &c);
    NEAR(c.throttle, 0.0, 0);
    NEAR(c.brake, (16384.5 / 32767.5 - 0.05) / 0.95, 1e-12);
    assert_int_equal(c.gear, 3);
    buttons[10] = 0;
    buttons[14] = 1;
    sim_input_map_apply(&m, &raw, &c);
    assert_int_equal(c.gear, -1);

    assert_false(sim_input_map_pressed(&m, &raw, SIM_BUTTON_HORN));
    buttons[2] = 1;
    assert_true(sim_input_map_pressed(&m, &raw, SIM_BUTTON_HORN));
    assert_false(sim_input_map_pressed(&m, &raw, SIM_BUTTON_MENU_UP));
    hats[0] = SIM_HAT_UP | SIM_HAT_RIGHT; /* diagonal counts for both directions */
    assert_true(sim_input_map_pressed(&m, &raw, SIM_BUTTON_MENU_UP));
    assert_false(sim_input_map_pressed(&m, &raw, SIM_BUTTON_INDICATOR_LEFT)); /* unbound */
    /* A role bound to a button the device does not have reads as released. */
    raw.n_buttons = 2;
    assert_false(sim_input_map_pressed(&m, &raw, SIM_BUTTON_HORN));
}

static void expect_error(const char *doc, int code, const char *msg)
{
    sim_input_map m;
    sim_input_map_default(&m);
    m.steering_range_deg = 123; /* must stay untouched on failure */
    sim_error err = {0};
    assert_int_equal(sim_input_map_parse(doc, strlen(doc), &m, &err), code);
    assert_string_equal(err.msg, msg);
    NEAR(m.steering_range_deg, 123, 0);
}

#define HEAD "{\"format\":\"sim-input-map/1\","
static void parse_errors_name_path_and_expectation(void **state)
{
    expect_error(HEAD "\"axes\":{\"steer\":{\"axis\":\"x\"}}}", SIM_EINVAL,
                 "axes.steer.axis: found \"x\", expected an integer in [0, 255]");
    expect_error(HEAD "\"axes\":{\"steer\":{\"axis\":0,\"dead_zone\":0.7}}}", SIM_ERANGE,
                 "axes.steer.dead_zone: found 0.7, expected a number in [0, 0.5]");
    expect_error(HEAD "\"axes\":{\"stear\":{\"axis\":0}}}", SIM_EINVAL,
                 "axes.stear: unknown field (did you mean \"steer\"?), expected one of: steer, throttle, brake, clutch, pedals");
    expect_error(HEAD "\"axes\":{\"steer\":{\"axis\":0,\"min\":10,\"max\":11}}}", SIM_EINVAL,
                 "axes.steer: found min 10, max 11, expected min < max - 1");
    expect_error(HEAD "\"axes\":{\"pedals\":{\"axis\":1},\"brake\":{\"axis\":2}}}", SIM_EINVAL,
                 "axes.pedals: found both, expected either a combined \"pedals\" axis or separate "
                 "\"throttle\"/\"brake\" axes");
    expect_error(HEAD "\"buttons\":{\"menu_up\":{\"hat\":0,\"dir\":\"north\"}}}", SIM_EINVAL,
                 "buttons.menu_up.dir: found \"north\", expected one of: up, right, down, left");
    expect_error(HEAD "\"buttons\":{\"horn\":true}}", SIM_EINVAL,
                 "buttons.horn: found true, expected a button number or {\"hat\": N, \"dir\": \"up\"}");
    expect_error(HEAD "\"hshifter\":{\"gears\":[1,2,-3]}}", SIM_ERANGE,
                 "hshifter.gears[2]: found -3, expected an integer in [0, 255]");
    expect_error(HEAD "\"ffb\":{\"gain\":1.5}}", SIM_ERANGE,
                 "ffb.gain: found 1.5, expected a number in [0, 1]");
    expect_error(HEAD "\"steering_range_deg\":\"900\"}", SIM_EINVAL,
                 "steering_range_deg: found \"900\", expected a number in [90, 3600]");
    expect_error(HEAD "\"colour\":1}", SIM_EINVAL,
                 "colour: unknown field, expected one of: format, name, match, steering_range_deg, "
                 "axes, buttons, hshifter, ffb");
    expect_error("{\"format\":\"sim-input-map/2\"}", SIM_EINVAL,
                 "format: found \"sim-input-map/2\", expected \"sim-input-map/1\"");
    expect_error("[1]", SIM_EINVAL, "(top level): found an array of 1 elements, expected an object");
    /* cJSON stops one character past the second comma (column 21). */
    expect_error("{\"format\":\n  \"sim-input-map/1\",,}", SIM_EINVAL,
                 "line 2, column 22: JSON syntax error near \"}\"");
}

static void load_prefixes_file_and_round_trips(void **state)
{
    char path[] = "/tmp/test_input_map_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *bad = HEAD "\"ffb\":{\"torque_limit\":-1}}";
    assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
    close(fd);
    sim_input_map m;
    sim_error err = {0};
    assert_int_equal(sim_input_map_load(path, &m, &err), SIM_ERANGE);
    char expect[512];
    snprintf(expect, sizeof expect,
             "%s: ffb.torque_limit: found -1, expected a number in [0, 1]", path);
    assert_string_equal(err.msg, expect);
    unlink(path);
    assert_int_equal(sim_input_map_load(path, &m, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "cannot open"));

    /* Writing and reading back gives the same mapping. */
    sim_input_map a, b;
    assert_int_equal(sim_input_map_parse(combined_doc, strlen(combined_doc), &a, &err), SIM_OK);
    snprintf(a.match_guid, sizeof a.match_guid, "030000006d0400004fc2000011010000");
    cJSON *doc = sim_input_map_to_json(&a);
    assert_non_null(doc);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    assert_int_equal(sim_input_map_parse(text, strlen(text), &b, &err), SIM_OK);
    free(text);
    assert_string_equal(a.name, b.name);
    assert_string_equal(a.match_guid, b.match_guid);
    assert_string_equal(a.match_name, b.match_name);
    assert_true(a.steering_range_deg == b.steering_range_deg);
    for (int r = 0; r < SIM_AXIS_ROLE_COUNT; r++) {
        assert_int_equal(a.axes[r].used, b.axes[r].used);
        if (!a.axes[r].used) continue;
        assert_int_equal(a.axes[r].index, b.axes[r].index);
        assert_int_equal(a.axes[r].invert, b.axes[r].invert);
        assert_true(a.axes[r].dead_zone == b.axes[r].dead_zone);
        assert_int_equal(a.axes[r].raw_min, b.axes[r].raw_min);
        assert_int_equal(a.axes[r].raw_max, b.axes[r].raw_max);
    }
    for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++) {
        assert_int_equal(a.buttons[r].used, b.buttons[r].used);
        if (!a.buttons[r].used) continue;
        assert_int_equal(a.buttons[r].button, b.buttons[r].button);
        if (a.buttons[r].button < 0) {
            assert_int_equal(a.buttons[r].hat, b.buttons[r].hat);
            assert_int_equal(a.buttons[r].hat_mask, b.buttons[r].hat_mask);
        }
    }
    assert_int_equal(a.n_hshifter_gears, b.n_hshifter_gears);
    assert_memory_equal(a.hshifter_gears, b.hshifter_gears, sizeof a.hshifter_gears);
    assert_int_equal(a.hshifter_reverse, b.hshifter_reverse);
    assert_true(a.ffb_gain == b.ffb_gain && a.ffb_torque_limit == b.ffb_torque_limit);
    assert_int_equal(a.ffb_invert, b.ffb_invert);
}

static void matching_by_guid_then_name(void **state)
{
    sim_input_map m;
    sim_input_map_default(&m);
    assert_int_equal(sim_input_map_match(&m, "abc", "Any Wheel"), 0); /* default matches none */
    snprintf(m.match_guid, sizeof m.match_guid, "030000006D0400004FC2000011010000");
    snprintf(m.match_name, sizeof m.match_name, "g29");
    assert_int_equal(sim_input_map_match(&m, "030000006d0400004fc2000011010000", NULL), 2);
    assert_int_equal(sim_input_map_match(&m, "ffff", "Logitech G29 Driving Force Racing Wheel"), 1);
    assert_int_equal(sim_input_map_match(&m, "ffff", "Logitech G27"), 0);
    assert_int_equal(sim_button_role_from_name("menu_select"), SIM_BUTTON_MENU_SELECT);
    assert_int_equal(sim_button_role_from_name("menu_selec"), -1);
    assert_string_equal(sim_button_role_name(SIM_BUTTON_GEAR_DOWN), "gear_down");
}

static void controls_json_round_trip_and_errors(void **state)
{
    sim_controls c = {.steer = 0.25, .steer_deg = 112.5, .throttle = 0.5, .brake = 0,
                      .clutch = 1, .gear = -1, .has_gear = true};
    cJSON *o = sim_msg_input_controls_encode(&c);
    assert_non_null(o);
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"steer\":0.25,\"steer_deg\":112.5,\"throttle\":0.5,\"brake\":0,"
                           "\"clutch\":1,\"gear\":-1}");
    free(s);
    sim_controls d;
    sim_error err = {0};
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_OK);
    assert_true(d.steer == 0.25 && d.steer_deg == 112.5 && d.throttle == 0.5 && d.clutch == 1);
    assert_true(d.has_gear && d.gear == -1);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"steer\":0,\"throttle\":1.5,\"brake\":0}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_ERANGE);
    assert_string_equal(err.msg, "input.controls: throttle: found 1.5, expected a number in [0, 1]");
    cJSON_Delete(o);
    /* Every field is optional in the message (docs/protocol.md): a missing one is absent. */
    o = cJSON_Parse("{\"throttle\":1,\"brake\":0}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_OK);
    assert_true(isnan(d.steer) && d.throttle == 1 && !d.has_gear);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"steer\":0,\"throttle\":1,\"brake\":0,\"gear\":2.5}");
    assert_int_equal(sim_msg_input_controls_decode(o, &d, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "input.controls: gear: found 2.5, expected an integer in [-1, 12]");
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_wheel_maps_axes),
        cmocka_unit_test(dead_zone_and_inversion),
        cmocka_unit_test(combined_pedals_buttons_and_shifter),
        cmocka_unit_test(parse_errors_name_path_and_expectation),
        cmocka_unit_test(load_prefixes_file_and_round_trips),
        cmocka_unit_test(matching_by_guid_then_name),
        cmocka_unit_test(controls_json_round_trip_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
