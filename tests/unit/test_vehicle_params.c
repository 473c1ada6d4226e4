/* Unit tests of the vehicle parameter file loader (sim_vehicle_params_*): the reference
 * BMW 318i file loads with its data-sheet values, and every kind of bad input is
 * rejected with a message naming the file, the JSON path, what was found and what was
 * expected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_vehicle.h"
#include "sim_vehicle_file.h"

static char *ref_text;
static size_t ref_len;

static int read_reference(void **state)
{
    const char *root = getenv("SIM_ROOT");
    char path[512];
    snprintf(path, sizeof(path), "%s/vehicles/bmw-318i.json", root ? root : ".");
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    ref_text = malloc(1 << 16);
    ref_len = fread(ref_text, 1, (1 << 16) - 1, f);
    ref_text[ref_len] = 0;
    fclose(f);
    return 0;
}

static int free_reference(void **state)
{
    free(ref_text);
    return 0;
}

static void reference_file_has_data_sheet_values(void **state)
{
    sim_vehicle_params p;
    sim_error err = {0};
    assert_int_equal(sim_vehicle_params_parse(ref_text, ref_len, "bmw.json", &p, &err), 0);
    assert_string_equal(p.name, "BMW 318i (E46)");
    assert_true(p.mass == 1400 && p.wheelbase == 2.725 && p.engine.torque_max == 200);
    assert_int_equal(p.gearbox.n_gears, 5);
    const double ratios[] = {4.23, 2.52, 1.66, 1.22, 1.00};
    for (int i = 0; i < 5; i++)
        assert_true(p.gearbox.ratio[i] == ratios[i]);
    assert_true(p.gearbox.final_drive == 3.38);
    assert_true(fabs(sim_engine_curve(&p.engine, 3750) - 1.0) < 1e-12);
    /* 105 kW at 6000 rpm */
    double kw = p.engine.torque_max * sim_engine_curve(&p.engine, 6000) * 6000 * 2 * M_PI / 60 / 1000;
    assert_true(fabs(kw - 105.0) < 1.0);
    /* 205/55 R16: 16 in rim + 2 * 0.55 * 205 mm */
    assert_true(fabs(2 * p.tire.radius - (16 * 0.0254 + 2 * 0.55 * 0.205)) < 0.002);
    assert_true(fabs(p.simple_steer_max_low - 10.5 * M_PI / 180) < 1e-12);
    assert_true(fabs(p.simple_speed_high - 80 / 3.6) < 1e-12);
    assert_true(p.brakes.abs_enabled && p.drive == SIM_DRIVE_REAR && p.diff.type == SIM_DIFF_OPEN);
    assert_true(p.air_density == 1.29);
    /* its look in render-node (docs/render.md, "Models") */
    assert_string_equal(p.model, "sedan");
    assert_string_equal(p.cockpit, "cockpit");
}

/* Replaces the first occurrence of from with to in the reference text and parses it;
 * expects failure and every needle in the message. */
static void expect_error(const char *from, const char *to, const char *n1, const char *n2)
{
    const char *at = strstr(ref_text, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - ref_text), flen = strlen(from), tlen = strlen(to);
    char *buf = malloc(ref_len - flen + tlen + 1);
    memcpy(buf, ref_text, pre);
    memcpy(buf + pre, to, tlen);
    memcpy(buf + pre + tlen, at + flen, ref_len - pre - flen + 1);
    sim_vehicle_params p;
    sim_error err = {0};
    int rc = sim_vehicle_params_parse(buf, strlen(buf), "car.json", &p, &err);
    free(buf);
    if (rc == 0 || !strstr(err.msg, "car.json") || !strstr(err.msg, n1) || (n2 && !strstr(err.msg, n2)))
        fail_msg("for %s -> %s got rc %d: %s", from, to, rc, err.msg);
}

static void rejects_bad_fields_with_path_and_expectation(void **state)
{
    expect_error("\"mass\": 1400", "\"mass\": -3", "body.mass", "found -3, expected a number in [50,");
    expect_error("\"mass\": 1400", "\"mass\": \"heavy\"", "body.mass", "found \"heavy\"");
    expect_error("\"mass\": 1400,", "", "body.mass", "missing");
    expect_error("\"mass\": 1400", "\"mas\": 1400", "body.mas",
                 "unknown field (did you mean \"mass\"?), expected one of: mass, unsprung_mass, inertia");
    expect_error("\"inertia\": [540, 2050, 2250]", "\"inertia\": [540, 2050]", "body.inertia",
                 "an array of 3 numbers");
    expect_error("\"model\": \"pacejka\"", "\"model\": \"magic\"", "tire.model",
                 "one of: pacejka, brush");
    expect_error("[2500, 0.86]", "[2500, 1.86]", "engine.curve[2][1]", "[0, 1]");
    expect_error("[2500, 0.86]", "[1200, 0.86]", "engine.curve[2][0]", "ascending rpm");
    expect_error("[4.23, 2.52,", "[4.23, 4.52,", "gearbox.ratios[1]", "descending");
    expect_error("\"abs\": true", "\"abs\": 1", "brakes.abs", "true or false");
    expect_error("\"cog_to_front\": 1.349", "\"cog_to_front\": 3.0", "body.cog_to_front",
                 "wheelbase");
    expect_error("\"engage_rpm\": 4200", "\"engage_rpm\": 900", "clutch.engage_rpm", "disengage");
    expect_error("\"drive\": \"rear\"", "\"drive\": 4", "drive", "found 4");
    expect_error("{", "[", "JSON syntax error", NULL);
    expect_error("\"model\": \"sedan\"", "\"model\": 3", "render.model", "a string");
    expect_error("\"cockpit\": \"cockpit\"", "\"cockpt\": \"cockpit\"", "render.cockpt", "unknown field");
}

static void load_names_missing_file(void **state)
{
    sim_vehicle_params p;
    sim_error err = {0};
    assert_int_equal(sim_vehicle_params_load("/nonexistent/car.json", &p, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/car.json"));
    assert_int_equal(sim_vehicle_params_parse("[]", 2, "x.json", &p, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "expected an object"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_file_has_data_sheet_values),
        cmocka_unit_test(rejects_bad_fields_with_path_and_expectation),
        cmocka_unit_test(load_names_missing_file),
    };
    return cmocka_run_group_tests(tests, read_reference, free_reference);
}
