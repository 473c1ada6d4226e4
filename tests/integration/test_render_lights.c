/* render-node draws traffic-light heads with their state (offscreen, real OpenGL on
 * Mesa): tests/data/traffic_light.json's head "north" (s 300, t -8, facing the
 * traffic along s, controller c1: red from 0 to 15 s, green to 45 s) seen from 15 m
 * before it. At 5 s the pixels where its top lamp projects are red and those of its
 * bottom lamp dark; at 20 s the top lamp is dark and the bottom one green. The lamp
 * centres come from the head's geometry (render-node/lights.c: the housing in front
 * of the post, lamps at 5/6 and 1/6 of its height above its zOffset). In a session the
 * head follows signal.state: green at 0.1 s though the controller says red, in the
 * frame render-node writes at 0.5 s. */
#include <signal.h>

#include "render_picture.h"

/* The picture of tests/data/traffic_light.json from 15 m before the head, with the
 * lights as their controllers show them at simulation time t. */
static void shot(const char *png, double t)
{
    char args[1024], msg[4096];
    snprintf(args, sizeof args,
             "--scenario tests/data/traffic_light.json --offscreen --size %dx%d --pose 285,-5.25,0.52,0 --no-hud "
             "--signals-at %g --screenshot %s", W, H, t, png);
    if (run_render(msg, sizeof msg, "SDL_VIDEODRIVER=offscreen", args) != 0) fail_msg("render-node: %s", msg);
}

/* The pixel where (x, y, z) projects for the BMW driver's front view at pose. */
static const unsigned char *seen(const image *im, const sim_pose *pose, double x, double y, double z)
{
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, pose);
    return at(im, &c, x, y, z);
}

static bool is_red(const unsigned char *p) { return p[0] > 200 && p[1] < 90 && p[2] < 90; }
static bool is_green(const unsigned char *p) { return p[1] > 200 && p[0] < 90 && p[2] < 140; }
static bool is_dark(const unsigned char *p) { return p[0] < 70 && p[1] < 70 && p[2] < 70; }

static void head_red_then_green(void **state)
{
    (void)state;
    char dir[] = "/tmp/sim-rlights-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char red_png[128], green_png[128];
    snprintf(red_png, sizeof red_png, "%s/red.png", dir);
    snprintf(green_png, sizeof green_png, "%s/green.png", dir);
    shot(red_png, 5);
    shot(green_png, 20);
    image red, green;
    image_load(red_png, &red);
    image_load(green_png, &green);
    sim_pose pose = {.pos = {285, -5.25, 0.52}};
    /* head at (300, -8) on flat ground facing -x: the lamp faces 0.07 + 0.25 + 0.01 m
     * towards the camera; z_offset 3 (the scenario's default), height 0.8 */
    double x = 300 - 0.33, y = -8, top = 3.0 + 0.8 * 5 / 6, bottom = 3.0 + 0.8 / 6;
    assert_true(is_red(seen(&red, &pose, x, y, top)));
    assert_true(is_dark(seen(&red, &pose, x, y, bottom)));
    assert_true(is_dark(seen(&green, &pose, x, y, top)));
    assert_true(is_green(seen(&green, &pose, x, y, bottom)));
    /* and the rest of the picture is the same: only the lamps changed */
    size_t differ = 0;
    for (size_t i = 0; i < (size_t)W * H * 3; i += 3)
        differ += red.px[i] != green.px[i] || red.px[i + 1] != green.px[i + 1] || red.px[i + 2] != green.px[i + 2];
    assert_true(differ > 4 && differ < 400);
    free(red.px);
    free(green.px);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void follows_signal_state_in_a_session(void **state)
{
    (void)state;
    char dir[] = "/tmp/sim-rlights-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char png[128];
    snprintf(png, sizeof png, "%s/at.png", dir);
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *phys = ts_join(d.port, "fakephys", "[\"dispatcher.joined\"]", NULL);
    assert_non_null(phys);
    char bus[32], size[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(size, sizeof size, "%dx%d", W, H);
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    char *argv[] = {"render-node", "--bus", bus, "--scenario", (char *)ts_root("tests/data/traffic_light.json"),
                    "--offscreen", "--size", size, "--no-hud", "--screenshot", png, "--screenshot-at", "0.5", NULL};
    pid_t pid = ts_spawn(argv, false);
    assert_true(pid > 0);
    for (;;) {
        cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 30000, NULL, 0);
        assert_non_null(j);
        bool it = strcmp(cJSON_GetObjectItem(j, "name")->valuestring, "render") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
    char line[512];
    int seq = 0;
    for (int i = 0; i <= 60; i++) {
        if (i == 10) {
            snprintf(line, sizeof line, "{\"topic\":\"signal.state\",\"src\":\"fakephys\",\"seq\":%d,\"t\":0.1,"
                     "\"id\":\"north\",\"state\":\"green\",\"controller\":\"c1\"}", ++seq);
            assert_true(ts_send_line(phys, line));
        }
        snprintf(line, sizeof line, "{\"topic\":\"vehicle.state\",\"src\":\"fakephys\",\"seq\":%d,\"t\":%.3f,"
                 "\"speed\":0,\"pos\":[285,-5.25,0.52],\"heading\":0,\"pitch\":0,\"roll\":0}", ++seq, i * 0.01);
        assert_true(ts_send_line(phys, line));
    }
    double t0 = ts_now_ms();
    while (access(png, F_OK) != 0 && ts_now_ms() - t0 < 30000) ts_sleep_ms(20);
    /* render-node writes beside and renames: the file is whole once it is there */
    assert_int_equal(access(png, F_OK), 0);
    ts_stop(pid, SIGTERM, 10000);
    image im;
    image_load(png, &im);
    sim_pose pose = {.pos = {285, -5.25, 0.52}};
    double x = 300 - 0.33, y = -8, top = 3.0 + 0.8 * 5 / 6, bottom = 3.0 + 0.8 / 6;
    assert_true(is_dark(seen(&im, &pose, x, y, top)));
    assert_true(is_green(seen(&im, &pose, x, y, bottom)));
    free(im.px);
    ts_close(phys);
    ts_dispatcher_stop(&d);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    /* Under `make asan`: Mesa's driver and fontconfig leak a little at exit (as in
     * test_render_picture.c); render-node runs without leak detection here. */
    ts_children_without_leak_detection();
    const struct CMUnitTest tests[] = {cmocka_unit_test(head_red_then_green),
                                       cmocka_unit_test(follows_signal_state_in_a_session)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
