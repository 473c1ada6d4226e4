/* Integration tests of render-node in a session (offscreen, real OpenGL, a real
 * dispatcher): it draws the car and traffic from the bus at the time asked for,
 * acknowledges control.light (and refuses a bad mode), control.hud and
 * control.speed_limit, shows hud.text, keeps drawing with a "NO DATA" mark when the
 * dispatcher dies, and rejoins a new one by itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_camera.h"
#include "test_support.h"

#define W 480
#define H 270

static char dir[64];

static unsigned char *load_png(const char *path)
{
    png_image p;
    memset(&p, 0, sizeof p);
    p.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&p, path));
    p.format = PNG_FORMAT_RGB;
    assert_int_equal(p.width, W);
    unsigned char *px = malloc(PNG_IMAGE_SIZE(p));
    assert_true(png_image_finish_read(&p, NULL, px, 0, NULL));
    return px;
}

static const unsigned char *pix(const unsigned char *im, int x, int y) { return im + ((size_t)y * W + x) * 3; }

/* render-node with stderr into dir/render.log */
static pid_t spawn_render(int port, const char *shot)
{
    char bus[32], size[32], log[128];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(size, sizeof size, "%dx%d", W, H);
    snprintf(log, sizeof log, "%s/render.log", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 2);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        if (chdir(ts_root(".")) != 0) _exit(127);
        execl(ts_bin("render-node"), "render-node", "--bus", bus, "--scenario", "scenarios/lane-change.json",
              "--offscreen", "--size", size, "--screenshot", shot, "--screenshot-at", "0.5", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits until render.log holds `count` lines containing `what`. */
static bool log_has(const char *what, int count, double ms)
{
    char path[128], buf[8192];
    snprintf(path, sizeof path, "%s/render.log", dir);
    double t0 = ts_now_ms();
    while (ts_now_ms() - t0 < ms) {
        FILE *f = fopen(path, "r");
        int seen = 0;
        while (f && fgets(buf, sizeof buf, f))
            seen += strstr(buf, what) != NULL;
        if (f) fclose(f);
        if (seen >= count) return true;
        ts_sleep_ms(20);
    }
    return false;
}

static bool file_within(const char *path, double ms)
{
    double t0 = ts_now_ms();
    while (ts_now_ms() - t0 < ms) {
        if (access(path, F_OK) == 0) return true;
        ts_sleep_ms(20);
    }
    return false;
}

static int seq;
static void publish_state(ts_conn *c, double t)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"topic\":\"vehicle.state\",\"src\":\"fakephys\",\"seq\":%d,\"t\":%.3f,\"speed\":13.9,"
             "\"pos\":[20,-5.25,0.52],\"heading\":0,\"pitch\":0,\"roll\":0,\"brake\":0}", ++seq, t);
    assert_true(ts_send_line(c, line));
}

static cJSON *command(ts_conn *c, ts_conn *ops, const char *body)
{
    char line[512];
    snprintf(line, sizeof line, "{%s,\"src\":\"operator\",\"seq\":%d,\"t\":0}", body, ++seq);
    assert_true(ts_send_line(c, line));
    return ts_expect_topic(ops, "control.ack", 20000, NULL, 0);
}

static void session_controls_no_data_and_reconnect(void **state)
{
    (void)state;
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *phys = ts_join(d.port, "fakephys", "[]", NULL);
    ts_conn *ops = ts_join(d.port, "operator", "[\"control.ack\"]", NULL);
    assert_non_null(phys);
    assert_non_null(ops);
    char shot[128], shot2[128], shot3[128];
    snprintf(shot, sizeof shot, "%s/at.png", dir);
    pid_t pid = spawn_render(d.port, shot);
    assert_true(log_has("joined the bus", 1, 30000));

    /* a car 25 m ahead in lane -1, then states up to t = 0.6: the frame at 0.5 is written */
    assert_true(ts_send_line(phys, "{\"topic\":\"traffic.state\",\"src\":\"fakephys\",\"seq\":1000,\"t\":0,"
                                   "\"vehicles\":[{\"id\":\"a\",\"pos\":[45,-1.75,0],\"heading\":0,"
                                   "\"size\":[4.5,1.8,1.45],\"velocity\":[0,0,0]}]}"));
    for (int i = 0; i <= 60; i++)
        publish_state(phys, i * 0.01);
    assert_true(file_within(shot, 30000));
    unsigned char *a = load_png(shot);
    sim_camera c;
    sim_pose pose = {.pos = {20, -5.25, 0.52}};
    sim_view_rig rig = {.eye = {-0.25, 0.37, 0.63}, .length = 4.47, .width = 1.74};
    sim_camera_params cp = {.view = SIM_VIEW_FRONT, .aspect = (double)W / H};
    sim_camera_setup(&c, &pose, &rig, &cp);
    double ndc[2];
    assert_true(sim_camera_project(&c, (double[3]){42.8, -1.75, 0.55}, ndc));
    int cx = (int)((ndc[0] + 1) / 2 * W), cy = (int)((1 - ndc[1]) / 2 * H);
    assert_true(sim_camera_project(&c, (double[3]){42.8, -8.75, 0.02}, ndc));
    int rx = (int)((ndc[0] + 1) / 2 * W), ry = (int)((1 - ndc[1]) / 2 * H);
    /* the car's rear differs from the empty lane beside it at the same distance */
    const unsigned char *car = pix(a, cx, cy), *road = pix(a, rx, ry);
    assert_true(abs(car[0] - road[0]) + abs(car[1] - road[1]) + abs(car[2] - road[2]) > 60);
    /* states flowing: no NO DATA mark (the top-left box is dark red when shown) */
    const unsigned char *corner = pix(a, 8, 10);
    assert_false(corner[0] > 100 && corner[1] < 40 && corner[2] < 40);

    /* operator commands: acted on and acknowledged, a bad one refused */
    cJSON *ack = command(phys, ops, "\"topic\":\"control.light\",\"mode\":\"night\",\"id\":\"c1\"");
    assert_non_null(ack);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    assert_string_equal(cJSON_GetObjectItem(ack, "id")->valuestring, "c1");
    assert_string_equal(cJSON_GetObjectItem(ack, "cmd")->valuestring, "light");
    cJSON_Delete(ack);
    ack = command(phys, ops, "\"topic\":\"control.light\",\"mode\":\"purple\",\"id\":\"c2\"");
    assert_non_null(ack);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(ack, "ok")));
    assert_non_null(strstr(cJSON_GetObjectItem(ack, "error")->valuestring, "mode"));
    cJSON_Delete(ack);
    ack = command(phys, ops, "\"topic\":\"control.hud\",\"text\":\"Hello driver\",\"id\":\"c3\"");
    assert_non_null(ack);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);
    ack = command(phys, ops, "\"topic\":\"control.speed_limit\",\"kmh\":30,\"id\":\"c4\"");
    assert_non_null(ack);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);
    /* a command for another module is not answered by the render node */
    assert_true(ts_send_line(phys, "{\"topic\":\"control.traffic\",\"src\":\"operator\",\"seq\":99,\"t\":0,\"id\":\"c5\",\"freeze\":true}"));
    /* hud.text in the bottom area, yellow */
    assert_true(ts_send_line(phys, "{\"topic\":\"hud.text\",\"src\":\"fakephys\",\"seq\":2000,\"t\":0,"
                                   "\"area\":\"bottom\",\"text\":\"WARNING\",\"color\":[1,1,0]}"));
    /* the acks come in order: the next one after c4 must not be for c5 */
    ack = command(phys, ops, "\"topic\":\"control.light\",\"mode\":\"night\",\"id\":\"c6\"");
    assert_string_equal(cJSON_GetObjectItem(ack, "id")->valuestring, "c6");
    cJSON_Delete(ack);

    /* a frame now (SIGUSR1): night is darker; the yellow HUD text is there */
    for (int i = 61; i <= 70; i++)
        publish_state(phys, i * 0.01);
    snprintf(shot2, sizeof shot2, "%s/now.png", dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mv %s %s", shot, shot2);
    assert_int_equal(system(cmd), 0);
    kill(pid, SIGUSR1);
    assert_true(file_within(shot, 30000));
    unsigned char *b = load_png(shot);
    double la = 0, lb = 0;
    int yellow = 0;
    for (int y = 0; y < H / 2; y++)
        for (int x = 0; x < W; x++) {
            la += pix(a, x, y)[0] + pix(a, x, y)[1] + pix(a, x, y)[2];
            lb += pix(b, x, y)[0] + pix(b, x, y)[1] + pix(b, x, y)[2];
        }
    for (int y = H * 6 / 10; y < H * 9 / 10; y++)
        for (int x = W / 4; x < W * 3 / 4; x++) {
            const unsigned char *p = pix(b, x, y);
            yellow += p[0] > 200 && p[1] > 200 && p[2] < 80;
        }
    assert_true(lb < 0.3 * la);
    assert_true(yellow > 20);

    /* the dispatcher dies: the node keeps drawing, with the NO DATA mark */
    ts_close(phys);
    ts_close(ops);
    ts_stop(d.pid, SIGKILL, 3000);
    assert_true(log_has("lost the bus", 1, 20000));
    snprintf(shot3, sizeof shot3, "%s/lost.png", dir);
    snprintf(cmd, sizeof cmd, "mv %s %s", shot, shot3);
    assert_int_equal(system(cmd), 0);
    kill(pid, SIGUSR1);
    assert_true(file_within(shot, 30000));
    unsigned char *l = load_png(shot);
    corner = pix(l, 8, 10);
    assert_true(corner[0] > 100 && corner[1] < 40 && corner[2] < 40);
    assert_true(waitpid(pid, NULL, WNOHANG) == 0);

    /* a new dispatcher on the same port: the node joins it by itself */
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", d.port);
    char *argv[] = {"dispatcher", "--listen", listen, "--control", "none", NULL};
    d.pid = ts_spawn(argv, false);
    assert_true(ts_wait_port(d.port, 20000));
    assert_true(log_has("joined the bus", 2, 30000));
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_dispatcher_stop(&d);
    free(a);
    free(b);
    free(l);
}

/* Pixels of the PAUSED panel: its white letters in the middle of the frame (above the
 * lane marks, which are white too). */
static int paused_letters(const unsigned char *im)
{
    int n = 0;
    for (int y = H * 44 / 100; y < H * 52 / 100; y++)
        for (int x = W * 38 / 100; x < W * 62 / 100; x++) {
            const unsigned char *p = pix(im, x, y);
            n += p[0] > 230 && p[1] > 230 && p[2] > 230;
        }
    return n;
}

static bool no_data_mark(const unsigned char *im)
{
    const unsigned char *corner = pix(im, 8, 10);
    return corner[0] > 100 && corner[1] < 40 && corner[2] < 40;
}

/* A frame now: SIGUSR1, and the screenshot file written anew. */
static unsigned char *frame_now(pid_t pid, const char *shot, const char *keep_as)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mv %s %s/%s", shot, dir, keep_as);
    assert_int_equal(system(cmd), 0);
    kill(pid, SIGUSR1);
    assert_true(file_within(shot, 30000));
    return load_png(shot);
}

/* The test person's screen when the operator pauses: the last frame with a calm
 * PAUSED panel, never the red NO DATA mark (it showed for the whole pause, because no
 * states come while paused). hud.text of a module that leaves the bus is cleared when
 * it leaves (it stayed for good: "Slow down" at 16 km/h from a dead client). A restart
 * clears the operator's HUD text and speed limit. */
static void pause_overlay_and_hud_owners(void **state)
{
    (void)state;
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *phys = ts_join(d.port, "fakephys", "[]", NULL);
    ts_conn *ops = ts_join(d.port, "operator", "[\"control.ack\"]", NULL);
    assert_true(phys && ops);
    char shot[128];
    snprintf(shot, sizeof shot, "%s/p.png", dir);
    char log[128];
    snprintf(log, sizeof log, "%s/render.log", dir);
    unlink(log); /* a log of this node's own */
    pid_t pid = spawn_render(d.port, shot);
    assert_true(log_has("joined the bus", 1, 30000));
    /* joined after the fork, so that only the test holds its socket */
    ts_conn *ivis = ts_join(d.port, "ivis", "[]", NULL);
    assert_non_null(ivis);
    assert_true(ts_send_line(ivis, "{\"topic\":\"hud.text\",\"src\":\"ivis\",\"seq\":1,\"t\":0,"
                                   "\"area\":\"bottom\",\"text\":\"SLOW DOWN\",\"color\":[1,1,0]}"));
    cJSON *ack = command(phys, ops, "\"topic\":\"control.pause\",\"id\":\"p1\"");
    assert_non_null(ack); /* the render node acts on pause: it shows the panel */
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ack, "ok")));
    cJSON_Delete(ack);
    for (int i = 0; i <= 60; i++) publish_state(phys, i * 0.01);
    assert_true(file_within(shot, 30000));
    unsigned char *a = load_png(shot);
    int yellow = 0;
    for (int y = H * 6 / 10; y < H * 9 / 10; y++)
        for (int x = W / 4; x < W * 3 / 4; x++) {
            const unsigned char *p = pix(a, x, y);
            yellow += p[0] > 200 && p[1] > 200 && p[2] < 80;
        }
    assert_true(yellow > 20);
    assert_true(paused_letters(a) > 80);
    /* No states for longer than the 0.5 s after which a running session shows NO DATA:
     * the time itself is what is tested here, so the test lets it pass. */
    ts_sleep_ms(1500);
    unsigned char *b = frame_now(pid, shot, "paused.png");
    assert_false(no_data_mark(b));
    assert_true(paused_letters(b) > 80);

    /* resume: the panel goes; the ivis module leaves: its text goes with it */
    assert_true(ts_send_line(phys, "{\"topic\":\"control.resume\",\"src\":\"operator\",\"seq\":5,\"t\":0.6}"));
    ack = command(phys, ops, "\"topic\":\"control.hud\",\"text\":\"HELLO\",\"id\":\"h1\"");
    cJSON_Delete(ack);
    ts_close(ivis);
    assert_true(log_has("ivis left the bus: its HUD text is cleared", 1, 20000));
    for (int i = 61; i <= 70; i++) publish_state(phys, i * 0.01);
    unsigned char *c = frame_now(pid, shot, "resumed.png");
    assert_true(paused_letters(c) < 20); /* far marks and cars near the horizon only */
    yellow = 0;
    int white_top = 0;
    for (int y = 0; y < H; y++)
        for (int x = W / 4; x < W * 3 / 4; x++) {
            const unsigned char *p = pix(c, x, y);
            yellow += y >= H * 6 / 10 && y < H * 9 / 10 && p[0] > 200 && p[1] > 200 && p[2] < 80;
            white_top += y < H / 5 && p[0] > 230 && p[1] > 230 && p[2] > 230;
        }
    assert_int_equal(yellow, 0);
    assert_true(white_top > 20); /* the operator's text stays: the operator is no module that left */

    /* restart: the operator's text goes */
    assert_true(ts_send_line(phys, "{\"topic\":\"control.restart\",\"src\":\"operator\",\"seq\":6,\"t\":0.7}"));
    ack = command(phys, ops, "\"topic\":\"control.light\",\"mode\":\"day\",\"id\":\"l1\"");
    cJSON_Delete(ack); /* after the restart in the bus's order */
    for (int i = 71; i <= 80; i++) publish_state(phys, i * 0.01);
    unsigned char *e = frame_now(pid, shot, "restarted.png");
    white_top = 0;
    for (int y = 0; y < H / 5; y++)
        for (int x = W / 4; x < W * 3 / 4; x++) {
            const unsigned char *p = pix(e, x, y);
            white_top += p[0] > 230 && p[1] > 230 && p[2] > 230;
        }
    assert_true(white_top < 5);
    assert_int_equal(ts_stop(pid, SIGTERM, 30000), 0);
    ts_close(phys);
    ts_close(ops);
    ts_dispatcher_stop(&d);
    free(a);
    free(b);
    free(c);
    free(e);
}

/* simctl run headless starts no render node unless asked; asked, the physics waits for
 * it to join before its clock starts, so a session that reaches its end had it. */
static void simctl_run_headless_with_offscreen_view(void **state)
{
    (void)state;
    for (int asked = 0; asked < 2; asked++) {
        int port = ts_free_port(), cport = ts_free_port();
        char cmd[1024], log[128];
        snprintf(log, sizeof log, "%s/run%d.log", dir, asked);
        snprintf(cmd, sizeof cmd,
                 "cd %s && %s run scenarios/lane-change.json --headless %s --until 0.5 --no-analysis "
                 "--bus 127.0.0.1:%d --control tcp://127.0.0.1:%d --out %s/run%d >/dev/null 2>%s",
                 ts_root("."), ts_bin("simctl"), asked ? "--render-offscreen" : "", port, cport, dir, asked, log);
        assert_int_equal(system(cmd), 0);
        char buf[65536];
        FILE *f = fopen(log, "r");
        assert_non_null(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        assert_true((strstr(buf, "simctl: render joined") != NULL) == (asked == 1));
    }
}

static void read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = 0;
    fclose(f);
}

/* simctl run --screens FILE --start NAME: every view of the file joins the bus as a
 * render node of its own (here offscreen: a left screen and a rear-view mirror besides
 * the driver's view), and the drive begins at the start point asked for (town's
 * "market" on road v1_0, not the first, "home" on h0_0). A screens file with a
 * misspelt field is refused before anything starts, naming the allowed fields. */
static void simctl_run_screens_file_and_start(void **state)
{
    (void)state;
    char screens[128], log[128], cmd[2048], buf[65536];
    snprintf(screens, sizeof screens, "%s/screens.json", dir);
    FILE *f = fopen(screens, "w");
    assert_non_null(f);
    fputs("{\"format\": \"sim-screens/1\", \"screens\": [{\"view\": \"front\", \"size\": \"320x180\"},"
          " {\"view\": \"left\", \"size\": \"320x180\"}, {\"view\": \"rear-mirror\", \"size\": \"240x80\"}]}\n", f);
    fclose(f);
    snprintf(log, sizeof log, "%s/screens.log", dir);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s run scenarios/town.json --headless --render-offscreen --quality low --screens %s --start market "
             "--until 0.5 --no-analysis --bus 127.0.0.1:%d --control tcp://127.0.0.1:%d --out %s/screens "
             ">/dev/null 2>%s",
             ts_root("."), ts_bin("simctl"), screens, ts_free_port(), ts_free_port(), dir, log);
    assert_int_equal(system(cmd), 0);
    read_text(log, buf, sizeof buf);
    assert_non_null(strstr(buf, "simctl: render joined"));
    assert_non_null(strstr(buf, "simctl: render-left joined"));
    assert_non_null(strstr(buf, "simctl: render-rear-mirror joined"));
    snprintf(cmd, sizeof cmd, "sqlite3 %s/screens/logs/default/*.sqlite \"SELECT road FROM samples ORDER BY t LIMIT 1\" > %s",
             dir, log);
    assert_int_equal(system(cmd), 0);
    read_text(log, buf, sizeof buf);
    assert_string_equal(buf, "v1_0\n");

    f = fopen(screens, "w");
    fputs("{\"format\": \"sim-screens/1\", \"screens\": [{\"view\": \"left\", \"fulscreen\": true}]}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && %s run scenarios/town.json --headless --screens %s --out %s/screens2 >%s 2>&1",
             ts_root("."), ts_bin("simctl"), screens, dir, log);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    read_text(log, buf, sizeof buf);
    if (!strstr(buf, "screens.json: screens[0].fulscreen: unknown field (did you mean \"fullscreen\"?), expected one "
                     "of: view, name, display, "
                     "fullscreen, size, pos, yaw_offset_deg, fov_deg"))
        fail_msg("%s", buf);
    /* a render quality render-node does not know is refused before anything starts */
    snprintf(cmd, sizeof cmd, "cd %s && %s run scenarios/town.json --headless --quality ultra >%s 2>&1", ts_root("."),
             ts_bin("simctl"), log);
    st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    read_text(log, buf, sizeof buf);
    assert_non_null(strstr(buf, "--quality must be low, medium or high, not \"ultra\""));
}

static int setup(void **state)
{
    (void)state;
    /* Under `make asan`: Mesa's driver, which libEGL loads and unloads itself, and
     * fontconfig (cairo's fonts) leak a little at exit; the unloaded driver cannot be
     * named by a suppression. render-node runs without leak detection here; the pure
     * core it is built on is leak-checked by the unit tests. */
    ts_children_without_leak_detection();
    strcpy(dir, "/tmp/test-render-node-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    if (getenv("KEEP")) return 0;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(session_controls_no_data_and_reconnect),
        cmocka_unit_test(pause_overlay_and_hud_owners),
        cmocka_unit_test(simctl_run_headless_with_offscreen_view),
        cmocka_unit_test(simctl_run_screens_file_and_start),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
