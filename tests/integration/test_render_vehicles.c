/* Integration tests of how render-node draws vehicles and picks its quality (offscreen,
 * real OpenGL on Mesa llvmpipe): the quality preset a software renderer gets when none
 * is asked for; vehicles drawn instanced, so that draw calls grow with the models in
 * view and not with the vehicles (models.c); each car's lamps its own although its
 * model is drawn for all of them in one call. */
#include <cjson/cJSON.h>

#include "render_picture.h"

/* The statistics file render-node wrote (--stats-file). */
static cJSON *stats(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[2048];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

static double num(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static const char *str(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

/* Without --quality, render-node on llvmpipe (these tests' renderer) draws at low and
 * says so once on stderr; an explicit --quality medium is kept, without the note. */
static void low_on_a_software_renderer_unless_asked(void **state)
{
    (void)state;
    char args[600], out[4096];
    snprintf(args, sizeof args, LCT " --screenshot %s --size %dx%d --stats-file %s", tmp("auto.png"), W, H,
             tmp("auto.json"));
    assert_int_equal(run_render(out, sizeof out, NULL, args), 0);
    assert_non_null(strstr(out, "render-node: software renderer llvmpipe"));
    assert_non_null(strstr(out, "quality low (pass --quality medium to override)"));
    assert_null(strstr(strstr(out, "software renderer") + 1, "software renderer")); /* once */
    cJSON *j = stats(tmp("auto.json"));
    assert_string_equal(str(j, "quality"), "low");
    cJSON_Delete(j);
    snprintf(args, sizeof args, LCT " --quality medium --screenshot %s --size %dx%d --stats-file %s",
             tmp("medium.png"), W, H, tmp("medium.json"));
    assert_int_equal(run_render(out, sizeof out, NULL, args), 0);
    assert_null(strstr(out, "software renderer"));
    j = stats(tmp("medium.json"));
    assert_string_equal(str(j, "quality"), "medium");
    cJSON_Delete(j);
}

/* n vehicles ahead of the driver on the lane-change track, in its three lanes from 35 m
 * to 35 + 3 n m on, every one in view; model `a` for the even ones, `b` for the odd. */
static void write_queue(const char *path, int n, const char *a, const char *b)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"vehicles\":[");
    for (int i = 0; i < n; i++) {
        static const double lanes[3] = {-1.75, -8.75, -5.25};
        const char *m = i % 2 ? b : a;
        bool truck = !strcmp(m, "truck");
        fprintf(f, "%s{\"id\":\"q%d\",\"model\":\"%s\",\"pos\":[%g,%g,0],\"heading\":0,\"size\":[%s],"
                   "\"velocity\":[10,0,0]}", i ? "," : "", i, m, 55.0 + (i / 3) * (truck ? 18.0 : 9.0), lanes[i % 3],
                truck ? "16.5,2.55,4.0" : "4.5,1.8,1.45");
    }
    fprintf(f, "]}");
    fclose(f);
}

static cJSON *render_queue(const char *name, int n, const char *a, const char *b, const char *opts)
{
    char traffic[64], png[64], json[64], args[800];
    snprintf(traffic, sizeof traffic, "%s.traffic.json", name);
    snprintf(png, sizeof png, "%s.png", name);
    snprintf(json, sizeof json, "%s.json", name);
    write_queue(tmp(traffic), n, a, b);
    snprintf(args, sizeof args, LCT " %s --traffic %s --stats-file %s", opts, tmp(traffic), tmp(json));
    render(tmp(png), args);
    return stats(tmp(json));
}

/* One sedan and fifty: the same draw calls for the frame and one call for the vehicles
 * (by day no lamp glows), at both presets the renderers use; fifty cars of two models:
 * two calls. At night every car's tail lamps glow: one more call per model. */
static void draw_calls_grow_with_models_not_cars(void **state)
{
    (void)state;
    static const char *const presets[] = {"--quality low", "--quality medium"};
    for (int p = 0; p < 2; p++) {
        cJSON *one = render_queue("one", 1, "sedan", "sedan", presets[p]);
        cJSON *fifty = render_queue("fifty", 50, "sedan", "sedan", presets[p]);
        print_message("%s: 1 sedan %g draw calls (vehicles %g), 50 sedans %g (vehicles %g)\n", presets[p],
                      num(one, "draw_calls"), num(one, "vehicle_draw_calls"), num(fifty, "draw_calls"),
                      num(fifty, "vehicle_draw_calls"));
        assert_int_equal(num(one, "vehicles"), 1);
        assert_int_equal(num(fifty, "vehicles"), 50);
        assert_int_equal(num(one, "vehicle_draw_calls"), 1);
        assert_int_equal(num(fifty, "vehicle_draw_calls"), 1);
        assert_int_equal(num(fifty, "draw_calls"), num(one, "draw_calls"));
        cJSON_Delete(one);
        cJSON_Delete(fifty);
    }
    cJSON *mixed = render_queue("mixed", 50, "sedan", "truck", "--quality low");
    assert_int_equal(num(mixed, "vehicles"), 50);
    assert_int_equal(num(mixed, "vehicle_draw_calls"), 2);
    cJSON_Delete(mixed);
    cJSON *night = render_queue("night", 50, "sedan", "truck", "--quality low --light night");
    assert_int_equal(num(night, "vehicle_draw_calls"), 4);
    cJSON_Delete(night);
}

/* Two sedans 30 m behind, driving away side by side, seen in the rear mirror at night:
 * the one in lane -1 brakes, the one in lane -3 does not. Drawn in the same instanced
 * call, each shows its own lamps: the braking car's left rear lamp glows bright red
 * (1.0, 0.08, 0.05), the other's a dimmer tail light (0.55, 0.03, 0.02). */
static void each_car_its_own_brake_lights(void **state)
{
    (void)state;
    static const char *const presets[] = {"--quality low", "--quality medium"};
    FILE *f = fopen(tmp("pair.json"), "w");
    assert_non_null(f);
    fprintf(f, "{\"vehicles\":[{\"id\":\"b1\",\"model\":\"sedan\",\"pos\":[70,-1.75,0],\"heading\":%.9f,"
               "\"size\":[4.5,1.8,1.45],\"velocity\":[0,0,0],\"brake\":true},"
               "{\"id\":\"t1\",\"model\":\"sedan\",\"pos\":[70,-8.75,0],\"heading\":%.9f,"
               "\"size\":[4.5,1.8,1.45],\"velocity\":[0,0,0],\"brake\":false}]}", M_PI, M_PI);
    fclose(f);
    sim_camera c;
    sim_pose pose = lct_pose;
    pose.pos[0] = 100;
    camera(&c, SIM_VIEW_REAR_MIRROR, &pose);
    for (int p = 0; p < 2; p++) {
        char args[600];
        snprintf(args, sizeof args, "--scenario scenarios/lane-change.json --pose 100,-5.25,0.52,0 --no-hud "
                 "--view rear-mirror --light night --traffic %s %s", tmp("pair.json"), presets[p]);
        render(tmp("pair.png"), args);
        image im;
        image_load(tmp("pair.png"), &im);
        /* each car's left rear lamp: 0.64 m to its left (-y, as it heads west), 0.79 m up */
        const unsigned char *brake = at(&im, &c, 70 + 2.26, -1.75 - 0.64, 0.79);
        const unsigned char *tail = at(&im, &c, 70 + 2.26, -8.75 - 0.64, 0.79);
        print_message("%s: braking lamp %d,%d,%d; tail lamp %d,%d,%d\n", presets[p], brake[0], brake[1], brake[2],
                      tail[0], tail[1], tail[2]);
        assert_true(brake[0] > 200 && brake[0] > brake[1] + 150 && brake[0] > brake[2] + 150);
        assert_true(tail[0] > 80 && tail[0] < 180 && tail[0] > tail[1] + 60 && tail[0] > tail[2] + 60);
        free(im.px);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(low_on_a_software_renderer_unless_asked),
        cmocka_unit_test(draw_calls_grow_with_models_not_cars),
        cmocka_unit_test(each_car_its_own_brake_lights),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
