/* Unit tests of common/video: synthetic frames (a bright square moving over a grey
 * ramp) encoded to H.264 in MP4 and VP9 in WebM and decoded back: the frame count, the
 * size, each frame's time k / fps, and each frame's pixels within a codec's error of
 * what went in; the frame times of a drive log's video; bad calls refused with the
 * reason and no file left behind. */
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

#include "sim_video.h"

#define W 96
#define H 64
#define FPS 25
#define FRAMES 40

/* Frame k: a ramp from left to right, and a white 16x16 square moving 2 px a frame. */
static void make_frame(uint8_t *rgb, int k)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = rgb + ((size_t)y * W + x) * 3;
            bool sq = x >= k * 2 % (W - 16) && x < k * 2 % (W - 16) + 16 && y >= 24 && y < 40;
            p[0] = sq ? 255 : (uint8_t)(40 + x);
            p[1] = sq ? 255 : (uint8_t)(40 + x);
            p[2] = sq ? 255 : 90;
        }
}

static double mean_abs_diff(const uint8_t *a, const uint8_t *b)
{
    double s = 0;
    for (size_t i = 0; i < (size_t)W * H * 3; i++) s += abs((int)a[i] - (int)b[i]);
    return s / ((double)W * H * 3);
}

static void round_trip(const char *ext, const char *codec, const char *preset)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_video_%d%s", (int)getpid(), ext);
    sim_video_writer_opts o = {.width = W, .height = H, .fps = FPS, .comment = "test", .preset = preset};
    sim_video_writer *w = NULL;
    sim_error err = {0};
    assert_int_equal(sim_video_writer_open(path, &o, &w, &err), 0);
    uint8_t in[W * H * 3], out[W * H * 3];
    for (int k = 0; k < FRAMES; k++) {
        make_frame(in, k);
        assert_int_equal(sim_video_writer_frame(w, in, &err), 0);
    }
    char part[80];
    snprintf(part, sizeof part, "%s.part", path);
    assert_int_equal(access(path, F_OK), -1); /* not there until closed */
    assert_int_equal(sim_video_writer_close(w, &err), 0);
    assert_int_equal(access(part, F_OK), -1);

    sim_video_reader *r = NULL;
    sim_video_info info;
    assert_int_equal(sim_video_reader_open(path, &r, &info, &err), 0);
    assert_int_equal(info.width, W);
    assert_int_equal(info.height, H);
    assert_true(fabs(info.fps - FPS) < 1e-6);
    assert_string_equal(info.codec, codec);
    int k = 0;
    double t, worst = 0, moved = 0;
    uint8_t first[W * H * 3];
    int rc;
    while ((rc = sim_video_reader_next(r, out, &t, &err)) == 1) {
        assert_true(fabs(t - (double)k / FPS) < 1e-6); /* frame k at k / fps */
        make_frame(in, k);
        double d = mean_abs_diff(in, out);
        if (d > worst) worst = d;
        if (k == 0) memcpy(first, out, sizeof first);
        else moved = mean_abs_diff(first, out);
        k++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(k, FRAMES);
    assert_true(worst < 4.0);  /* every frame is its input, within the codec's error */
    assert_true(moved > 4.0);  /* and the last is not the first */
    sim_video_reader_close(r);
    unlink(path);
}

static void mp4_is_h264_and_reads_back(void **state) { (void)state; round_trip(".mp4", "h264", NULL); }
static void mp4_ultrafast_reads_back(void **state) { (void)state; round_trip(".mp4", "h264", "ultrafast"); }
static void webm_is_vp9_and_reads_back(void **state) { (void)state; round_trip(".webm", "vp9", NULL); }

static void frame_times_cover_the_range(void **state)
{
    (void)state;
    assert_int_equal(sim_video_frame_count(0, 3, 30), 91);      /* 0, 1/30, ..., 3 */
    assert_int_equal(sim_video_frame_count(0.01, 3.0, 30), 90); /* 2.99 is the last */
    assert_int_equal(sim_video_frame_count(2, 2, 30), 1);
    assert_int_equal(sim_video_frame_count(2, 1, 30), 0);
    assert_int_equal(sim_video_frame_count(0, 10, 0), 0);
    /* a range that ends on a frame's time in binary floating point: 0.1 * 3 */
    assert_int_equal(sim_video_frame_count(0.1, 0.1 * 3 + 1.0, 10), 13);
    assert_true(fabs(sim_video_frame_time(1.5, 30, 45) - 3.0) < 1e-12);
}

static void bad_calls_say_why(void **state)
{
    (void)state;
    sim_video_writer *w = NULL;
    sim_error err = {0};
    sim_video_writer_opts o = {.width = W, .height = H, .fps = FPS};
    assert_int_equal(sim_video_writer_open("/tmp/x.avi", &o, &w, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, ".mp4"));
    assert_null(w);
    o.width = 95;
    assert_int_equal(sim_video_writer_open("/tmp/x.mp4", &o, &w, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "95x64"));
    o.width = W;
    o.fps = 0;
    assert_int_equal(sim_video_writer_open("/tmp/x.mp4", &o, &w, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "frame rate"));
    o.fps = FPS;
    o.preset = "quick";
    assert_int_equal(sim_video_writer_open("/tmp/x.mp4", &o, &w, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "ultrafast"));
    o.preset = "ultrafast";
    assert_int_equal(sim_video_writer_open("/tmp/x.webm", &o, &w, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "H.264"));
    o.preset = NULL;
    assert_int_equal(sim_video_writer_open("/nonexistent-dir/x.mp4", &o, &w, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.mp4"));
    /* an aborted video leaves nothing */
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_video_abort_%d.mp4", (int)getpid());
    assert_int_equal(sim_video_writer_open(path, &o, &w, &err), 0);
    sim_video_writer_abort(w);
    char part[80];
    snprintf(part, sizeof part, "%s.part", path);
    assert_int_equal(access(part, F_OK), -1);
    assert_int_equal(access(path, F_OK), -1);
    /* a file that is no video */
    sim_video_reader *r = NULL;
    sim_video_info info;
    FILE *f = fopen(path, "w");
    fputs("not a video\n", f);
    fclose(f);
    assert_true(sim_video_reader_open(path, &r, &info, &err) < 0);
    assert_non_null(strstr(err.msg, path));
    assert_null(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mp4_is_h264_and_reads_back),
        cmocka_unit_test(mp4_ultrafast_reads_back),
        cmocka_unit_test(webm_is_vp9_and_reads_back),
        cmocka_unit_test(frame_times_cover_the_range),
        cmocka_unit_test(bad_calls_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
