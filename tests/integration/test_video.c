/* `simctl video` (docs/video.md) on a real drive: a 3 s headless drive on the motorway
 * scenario, its video made at 320x180 and 30 fps and decoded back with libavformat and
 * libavcodec (common/video's reader):
 *  - the frame count is the drive's duration x rate (+1: both ends are frames), the
 *    size is the one asked, frame k is at video time k / 30;
 *  - the picture is the drive: not black, and the last frame differs from the first;
 *  - frame k shows log time t0 + k / fps: the frame at t = 2 s is nearer to render-node's
 *    screenshot of the car's logged pose at 2 s than the frames one frame and one
 *    second before and after it are;
 *  - --from/--to cut the range (1 to 2 s: 31 frames);
 *  - --stamp writes the frame's time in the top right corner and changes nothing else;
 *  - the scenario's hud_text triggers show as the driver saw them (a lane-change drive),
 *    and the visual DRT stimulus while it was on (a drt drive);
 *  - bad input is refused, naming what was wrong, and leaves no file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <png.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_video.h"
#include "test_support.h"
#include "ts_drive.h"

#define W 320
#define H 180
#define FPS 30

static char dir[256], log_path[2400];

/* A headless drive of scenario (a path below the project) into dir/name until `until`
 * s; its drive log's path into log. False when simctl failed. */
static bool record_drive(const char *name, const char *scenario, const char *until, char *log, size_t size)
{
    char bus[64], control[64], out[300], logs[400];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", ts_free_port());
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    snprintf(out, sizeof out, "%s/%s", dir, name); /* simctl run makes it */
    char *argv[] = {"simctl", "run", (char *)ts_root(scenario), "--headless", "--until", (char *)until,
                    "--no-analysis", "--out", out, "--bus", bus, "--control", control, NULL};
    pid_t pid = ts_spawn(argv, false);
    if (pid <= 0) return false;
    int st = ts_stop(pid, 0, TS_SESSION_HANG_MS);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return false;
    snprintf(logs, sizeof logs, "%s/logs/default", out);
    ts_drive_find_log(logs, log, size);
    return true;
}

static int setup(void **state)
{
    (void)state;
    ts_children_without_leak_detection(); /* Mesa's driver leaks at exit (render-node) */
    snprintf(dir, sizeof dir, "/tmp/test_video_%d", (int)getpid());
    return record_drive("run", "scenarios/motorway.json", "3", log_path, sizeof log_path) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static double mean(const uint8_t *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += a[i];
    return s / (double)n;
}

static double mad(const uint8_t *a, const uint8_t *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += abs((int)a[i] - (int)b[i]);
    return s / (double)n;
}

/* Decodes path: every frame's time checked against k / FPS; frames wanted[] kept in
 * keep[] (W x H x 3 each); returns the number of frames. */
static int decode(const char *path, const int *wanted, int n_wanted, uint8_t *keep)
{
    sim_video_reader *r = NULL;
    sim_video_info info;
    sim_error err = {0};
    if (sim_video_reader_open(path, &r, &info, &err)) fail_msg("%s", err.msg);
    assert_int_equal(info.width, W);
    assert_int_equal(info.height, H);
    assert_true(fabs(info.fps - FPS) < 1e-6);
    assert_string_equal(info.codec, "h264");
    static uint8_t px[W * H * 3];
    double t;
    int k = 0, rc;
    while ((rc = sim_video_reader_next(r, px, &t, &err)) == 1) {
        assert_true(fabs(t - (double)k / FPS) < 1e-6);
        for (int i = 0; i < n_wanted; i++)
            if (wanted[i] == k) memcpy(keep + (size_t)i * sizeof px, px, sizeof px);
        k++;
    }
    if (rc < 0) fail_msg("%s", err.msg);
    sim_video_reader_close(r);
    return k;
}

static int video(const char *out, const char *from, const char *to, char *words, size_t n)
{
    const char *args[16] = {"video", log_path, "-o", out, "--size", "320x180", "--fps", "30"};
    int k = 8;
    if (from) args[k++] = "--from", args[k++] = from;
    if (to) args[k++] = "--to", args[k++] = to;
    args[k] = NULL;
    return ts_run("simctl", args, words, n);
}

static void whole_drive_frames_count_size_and_change(void **state)
{
    (void)state;
    char out[400], words[8192];
    snprintf(out, sizeof out, "%s/drive.mp4", dir);
    int rc = video(out, NULL, NULL, words, sizeof words);
    if (rc != 0) fail_msg("simctl video: %d: %s", rc, words);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(log_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    double t0 = ts_drive_query(db, "SELECT min(t) FROM samples WHERE run = 0");
    double t1 = ts_drive_query(db, "SELECT max(t) FROM samples WHERE run = 0");
    sqlite3_close(db);
    assert_true(t1 - t0 > 2.9);
    int want[3] = {0, 0, (int)lround((t1 - t0) * FPS)};
    static uint8_t keep[3][W * H * 3];
    int frames = decode(out, want, 3, &keep[0][0]);
    /* duration x rate, both ends included */
    assert_true(abs(frames - (int)lround((t1 - t0) * FPS) - 1) <= 1);
    size_t n = (size_t)W * H * 3;
    assert_true(mean(keep[0], n) > 30);   /* not black */
    assert_true(mean(keep[2], n) > 30);
    assert_true(mad(keep[0], keep[2], n) > 5); /* the car moved on */
    assert_non_null(strstr(words, "91 frames"));
}

/* The car's logged pose at log time t as render-node --pose X,Y,Z,HDG. */
static void pose_at(double t, char *pose, size_t n)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(log_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char sql[200];
    double v[4];
    const char *col[4] = {"x", "y", "z", "heading"};
    for (int i = 0; i < 4; i++) {
        snprintf(sql, sizeof sql, "SELECT %s FROM samples WHERE run = 0 AND abs(t - %.3f) < 1e-6", col[i], t);
        v[i] = ts_drive_query(db, sql);
        assert_false(isnan(v[i]));
    }
    sqlite3_close(db);
    snprintf(pose, n, "%.9g,%.9g,%.9g,%.9g", v[0], v[1], v[2], v[3] * 180 / M_PI);
}

static void read_png(const char *path, uint8_t *rgb)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGB;
    assert_int_equal(img.width, W);
    assert_int_equal(img.height, H);
    assert_true(png_image_finish_read(&img, NULL, rgb, 0, NULL));
}

static void frame_k_is_the_drive_at_t0_plus_k_over_fps(void **state)
{
    (void)state;
    char out[400], words[8192], pose[200], shot[400], empty[400];
    snprintf(out, sizeof out, "%s/drive.mp4", dir); /* made by the test above */
    if (access(out, R_OK) != 0) {
        assert_int_equal(video(out, NULL, NULL, words, sizeof words), 0);
    }
    pose_at(2.0, pose, sizeof pose);
    snprintf(shot, sizeof shot, "%s/at2.png", dir);
    snprintf(empty, sizeof empty, "%s/no-traffic.json", dir);
    FILE *f = fopen(empty, "w");
    assert_non_null(f);
    fputs("{\"vehicles\": []}\n", f);
    fclose(f);
    const char *args[] = {"--scenario", ts_root("scenarios/motorway.json"), "--screenshot", shot, "--pose", pose,
                          "--size", "320x180", "--traffic", empty, NULL};
    int rc = ts_run("render-node", args, words, sizeof words);
    if (rc != 0) fail_msg("render-node: %d: %s", rc, words);
    static uint8_t png[W * H * 3], keep[5][W * H * 3];
    read_png(shot, png);
    int want[5] = {30, 59, 60, 61, 90}; /* t = 1, 2 - 1/30, 2, 2 + 1/30, 3 s */
    decode(out, want, 5, &keep[0][0]);
    size_t n = (size_t)W * H * 3;
    double d[5];
    for (int i = 0; i < 5; i++) d[i] = mad(keep[i], png, n);
    print_message("mean |frame - screenshot at 2 s|: frames at 1 s %.2f, 2 s - 1/30 %.2f, 2 s %.2f, 2 s + 1/30 %.2f, "
                  "3 s %.2f\n", d[0], d[1], d[2], d[3], d[4]);
    assert_true(d[2] < 6.0);        /* the same picture, within the codec's error and the HUD's speed */
    assert_true(d[2] * 4 < d[0]);   /* a second off is far off */
    assert_true(d[2] * 4 < d[4]);
    assert_true(d[2] < d[1]);       /* and so is one frame off, either way */
    assert_true(d[2] < d[3]);
}

static void from_to_cut_the_range(void **state)
{
    (void)state;
    char out[400], words[8192];
    snprintf(out, sizeof out, "%s/cut.mp4", dir);
    int rc = video(out, "1", "2", words, sizeof words);
    if (rc != 0) fail_msg("simctl video: %d: %s", rc, words);
    static uint8_t keep[W * H * 3];
    int none[1] = {-1};
    assert_int_equal(decode(out, none, 1, keep), 31);
}

/* Mean |a - b| over the rectangle [x0, x1) x [y0, y1) (inside) or outside it. */
static double mad_region(const uint8_t *a, const uint8_t *b, int x0, int x1, int y0, int y1, bool inside)
{
    double s = 0;
    long n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            bool in = x >= x0 && x < x1 && y >= y0 && y < y1;
            if (in != inside) continue;
            for (int c = 0; c < 3; c++) s += abs((int)a[((size_t)y * W + x) * 3 + c] - (int)b[((size_t)y * W + x) * 3 + c]);
            n += 3;
        }
    return s / (double)n;
}

static void stamp_marks_the_top_right_corner_only(void **state)
{
    (void)state;
    char plain[400], stamped[400], words[8192];
    snprintf(plain, sizeof plain, "%s/plain.mp4", dir);
    snprintf(stamped, sizeof stamped, "%s/stamped.mp4", dir);
    assert_int_equal(video(plain, "0", "1", words, sizeof words), 0);
    const char *args[] = {"video", log_path, "-o", stamped, "--size", "320x180", "--fps", "30", "--to", "1", "--stamp",
                          NULL};
    int rc = ts_run("simctl", args, words, sizeof words);
    if (rc != 0) fail_msg("simctl video --stamp: %d: %s", rc, words);
    static uint8_t a[2][W * H * 3], b[2][W * H * 3];
    int want[2] = {15, 30};
    assert_int_equal(decode(plain, want, 2, &a[0][0]), 31);
    assert_int_equal(decode(stamped, want, 2, &b[0][0]), 31);
    /* the stamp is right-aligned in the top 8 % (24 px of 720 high, 20 px in: 6 px here) */
    int x0 = W / 2, y1 = H * 8 / 100;
    double in15 = mad_region(a[0], b[0], x0, W, 0, y1, true), out15 = mad_region(a[0], b[0], x0, W, 0, y1, false);
    double in30 = mad_region(a[1], b[1], x0, W, 0, y1, true);
    double stamps = mad_region(b[0], b[1], x0, W, 0, y1, true), sky = mad_region(a[0], a[1], x0, W, 0, y1, true);
    print_message("stamp: corner %.2f, elsewhere %.2f; stamped corner 0.5 s against 1 s %.2f (unstamped %.2f)\n",
                  in15, out15, stamps, sky);
    assert_true(in15 > 4 * out15 + 1.5); /* the corner has the text */
    assert_true(in30 > 4 * out15 + 1.5);
    assert_true(out15 < 1.0);            /* the rest is the same picture */
    assert_true(stamps > 2 * sky + 0.8); /* the time written changes with the frame */
}

/* The scenario's hud_text triggers as the driver saw them: the lane-change track's
 * "Drive at 60 km/h ..." fires at s = 25 m (about t = 1.9 s from standstill at s = 20)
 * and stays 5 s, in the top area. */
static void hud_text_triggers_as_the_driver_saw_them(void **state)
{
    (void)state;
    char lc_log[2400], video_path[400], words[8192];
    assert_true(record_drive("lane-change", "scenarios/lane-change.json", "4.5", lc_log, sizeof lc_log));
    snprintf(video_path, sizeof video_path, "%s/lane-change.mp4", dir);
    const char *args[] = {"video", lc_log, "-o", video_path, "--size", "320x180", "--fps", "30", "--from", "0.5",
                          "--to", "4", NULL};
    int rc = ts_run("simctl", args, words, sizeof words);
    if (rc != 0) fail_msg("simctl video: %d: %s", rc, words);
    static uint8_t f[3][W * H * 3];
    int want[3] = {0, 15, 105}; /* t = 0.5, 1, 4 s */
    assert_int_equal(decode(video_path, want, 3, &f[0][0]), 106);
    /* the top area: centred, its text's top at 8 % of the height */
    int x0 = W / 5, x1 = W * 4 / 5, y0 = H * 6 / 100, y1 = H * 16 / 100;
    double before = mad_region(f[0], f[1], x0, x1, y0, y1, true), shown = mad_region(f[1], f[2], x0, x1, y0, y1, true);
    print_message("top area: 0.5 s against 1 s %.2f, 1 s against 4 s %.2f\n", before, shown);
    assert_true(shown > 3 * before + 2);
}

/* Pixels of the DRT's red dot (R > 180, G and B < 90) in a 640x360 frame's box. */
static int red_pixels(const uint8_t *f, int w, int x0, int x1, int y0, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = f + ((size_t)y * w + x) * 3;
            n += p[0] > 180 && p[1] < 90 && p[2] < 90;
        }
    return n;
}

/* The visual DRT stimulus as the driver saw it: the drt scenario's first visual
 * stimulus (on and off in the log's drt events) is a red dot 20 degrees left and 3 up
 * while it is on, and not before or after. */
static void drt_stimulus_as_the_driver_saw_it(void **state)
{
    (void)state;
    char drt_log[2400], video_path[400], words[8192];
    assert_true(record_drive("drt", "scenarios/drt.json", "12", drt_log, sizeof drt_log));
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(drt_log, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    double on = ts_drive_query(db, "SELECT min(t) FROM events WHERE kind = 'drt' AND name = 'stimulus' AND "
                                   "json LIKE '%\"visual\"%' AND json LIKE '%\"on\":true%'");
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT min(t) FROM events WHERE kind = 'drt' AND name = 'stimulus' AND t > %.6f AND "
                              "json LIKE '%%\"on\":false%%'", on);
    double off = ts_drive_query(db, sql);
    sqlite3_close(db);
    if (isnan(on) || isnan(off) || off - on < 0.2) fail_msg("no visual stimulus of 0.2 s or more: on %g, off %g", on, off);
    snprintf(video_path, sizeof video_path, "%s/drt.mp4", dir);
    char from[32], to[32];
    snprintf(from, sizeof from, "%.3f", on - 0.3);
    snprintf(to, sizeof to, "%.3f", off + 0.3);
    const char *args[] = {"video", drt_log, "-o", video_path, "--size", "640x360", "--fps", "30", "--from", from,
                          "--to", to, NULL};
    int rc = ts_run("simctl", args, words, sizeof words);
    if (rc != 0) fail_msg("simctl video: %d: %s", rc, words);
    /* frames before, in the middle of and after the stimulus */
    int want[3] = {3, (int)lround((0.3 + (off - on) / 2) * 30), (int)lround((off - on + 0.3) * 30) + 6};
    static uint8_t f[3][640 * 360 * 3];
    sim_video_reader *r = NULL;
    sim_video_info info;
    sim_error err = {0};
    if (sim_video_reader_open(video_path, &r, &info, &err)) fail_msg("%s", err.msg);
    assert_int_equal(info.width, 640);
    static uint8_t px[640 * 360 * 3];
    double t;
    int k = 0;
    while (sim_video_reader_next(r, px, &t, &err) == 1) {
        for (int i = 0; i < 3; i++)
            if (want[i] == k) memcpy(f[i], px, sizeof px);
        k++;
    }
    sim_video_reader_close(r);
    assert_true(k > want[2]);
    /* 20 degrees left, 3 up at a 45 degree vertical field: (81, 79) of 320x180, doubled */
    int x0 = 162 - 14, x1 = 162 + 14, y0 = 157 - 14, y1 = 157 + 14;
    int before = red_pixels(f[0], 640, x0, x1, y0, y1), during = red_pixels(f[1], 640, x0, x1, y0, y1),
        after = red_pixels(f[2], 640, x0, x1, y0, y1);
    print_message("DRT dot pixels: before %d, during %d, after %d (on %.2f s, off %.2f s)\n", before, during, after,
                  on, off);
    assert_true(during >= 20);
    assert_true(before <= 2);
    assert_true(after <= 2);
}

static void bad_input_is_refused(void **state)
{
    (void)state;
    char out[400], words[8192];
    snprintf(out, sizeof out, "%s/x.avi", dir);
    const char *a1[] = {"video", log_path, "-o", out, NULL};
    assert_int_equal(ts_run("simctl", a1, words, sizeof words), 2);
    assert_non_null(strstr(words, ".mp4"));
    snprintf(out, sizeof out, "%s/odd.mp4", dir);
    const char *a2[] = {"video", log_path, "-o", out, "--size", "321x180", NULL};
    assert_int_equal(ts_run("simctl", a2, words, sizeof words), 2);
    assert_non_null(strstr(words, "--size"));
    const char *a3[] = {"video", "/nonexistent/log.sqlite", "-o", out, NULL};
    assert_int_equal(ts_run("simctl", a3, words, sizeof words), 1);
    assert_non_null(strstr(words, "/nonexistent/log.sqlite"));
    const char *a4[] = {"video", log_path, "-o", out, "--from", "50", NULL};
    assert_int_equal(ts_run("simctl", a4, words, sizeof words), 1);
    assert_non_null(strstr(words, "nothing in"));
    assert_int_equal(access(out, F_OK), -1);
    char part[420];
    snprintf(part, sizeof part, "%s.part", out);
    assert_int_equal(access(part, F_OK), -1);
    /* an existing video needs --force */
    snprintf(out, sizeof out, "%s/exists.mp4", dir);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fclose(f);
    const char *a5[] = {"video", log_path, "-o", out, NULL};
    assert_int_equal(ts_run("simctl", a5, words, sizeof words), 1);
    assert_non_null(strstr(words, "--force"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_drive_frames_count_size_and_change),
        cmocka_unit_test(frame_k_is_the_drive_at_t0_plus_k_over_fps),
        cmocka_unit_test(from_to_cut_the_range),
        cmocka_unit_test(stamp_marks_the_top_right_corner_only),
        cmocka_unit_test(hud_text_triggers_as_the_driver_saw_them),
        cmocka_unit_test(drt_stimulus_as_the_driver_saw_it),
        cmocka_unit_test(bad_input_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
