/* Integration test of sound-node through SDL's disk audio driver (the samples it
 * plays are written to a file): the written audio's pitch is the firing frequency of
 * the rpm on the bus and its level grows with rpm; control.sound off silences it and
 * is acknowledged by sound; stop ends it with status 0; a bad scenario is a
 * configuration error (status 1). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_audio.h"
#include "test_support.h"

#define RATE 44100

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

/* Waits until the audio file has grown by `seconds` of audio past `from` bytes. */
static long wait_audio(const char *path, long from, double seconds)
{
    long want = from + (long)(seconds * RATE) * 2;
    double end = ts_now_ms() + 10000;
    while (file_size(path) < want && ts_now_ms() < end) ts_sleep_ms(10);
    long size = file_size(path);
    assert_true(size >= want);
    return size;
}

/* The 0.3 s of samples written just before byte offset `end`. */
static int16_t *read_tail(const char *path, long end, size_t *n)
{
    *n = (size_t)(0.3 * RATE);
    int16_t *x = malloc(*n * sizeof *x);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, (end / 2 - (long)*n) * 2, SEEK_SET);
    assert_int_equal(fread(x, sizeof *x, *n, f), *n);
    fclose(f);
    return x;
}

static void state_line(ts_conn *c, double rpm, double throttle)
{
    char line[256];
    snprintf(line, sizeof line,
             "{\"topic\":\"vehicle.state\",\"speed\":15,\"rpm\":%g,\"throttle\":%g,\"wheels\":[{\"slip_ratio\":0.01,"
             "\"slip_angle\":0.01,\"contact\":true}]}", rpm, throttle);
    assert_true(ts_send_line(c, line));
}

/* Sets the engine, lets 0.6 s of audio through and measures the last 0.3 s. */
static void play(const char *path, ts_conn *pub, double rpm, double *hz, double *rms)
{
    long from = file_size(path);
    state_line(pub, rpm, 0.5);
    long end = wait_audio(path, from, 0.6);
    size_t n;
    int16_t *x = read_tail(path, end, &n);
    *hz = ta_dominant_hz(x, n, RATE, 20, 400, 1);
    *rms = ta_rms(x, n);
    free(x);
}

static void audio_follows_rpm_and_commands(void **state)
{
    char dir[64], path[128];
    assert_true(ta_disk_audio(dir, sizeof dir, path, sizeof path));
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *pub = ts_join(d.port, "physics", "[\"dispatcher.\",\"control.ack\"]", NULL);
    assert_non_null(pub);
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    char *argv[] = {"sound-node", "--bus", bus, "--scenario", (char *)ts_root("scenarios/motorway.json"), NULL};
    pid_t pid = ts_spawn(argv, false);
    cJSON *j = ts_expect_topic(pub, "dispatcher.joined", 5000, NULL, 0);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "name")->valuestring, "sound");
    cJSON_Delete(j);

    double hz_low, rms_low, hz_high, rms_high;
    play(path, pub, 1500, &hz_low, &rms_low);
    play(path, pub, 4500, &hz_high, &rms_high);
    assert_true(fabs(hz_low - 50) <= 2);   /* 1500 rpm, 4 cylinders: 50 firings/s */
    assert_true(fabs(hz_high - 150) <= 2); /* 4500 rpm: 150 */
    assert_true(rms_low > 0.05);
    assert_true(rms_high > 1.3 * rms_low);

    char out[2048];
    const char *off[] = {"sound", "off", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", off, out, sizeof out), 0);
    assert_non_null(strstr(out, "sound: done by sound"));
    long end = wait_audio(path, file_size(path), 0.6);
    size_t n;
    int16_t *x = read_tail(path, end, &n);
    assert_true(ta_rms(x, n) == 0);
    free(x);
    const char *on[] = {"sound", "on", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", on, out, sizeof out), 0);
    end = wait_audio(path, file_size(path), 0.6);
    x = read_tail(path, end, &n);
    assert_true(ta_rms(x, n) > 0.05);
    free(x);

    const char *stop[] = {"stop", "--control", d.control_url, NULL};
    assert_int_equal(ts_run("simctl", stop, out, sizeof out), 0);
    assert_non_null(strstr(out, "stop: done by sound"));
    int st = ts_stop(pid, 0, 5000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ts_close(pub);
    ts_dispatcher_stop(&d);
    unlink(path);
    rmdir(dir);
}


/* The auditory DRT stimulus: while a drt.stimulus with modality "auditory" is on, a
 * 1 kHz tone at 0.3 of full scale (RMS 0.21) sounds over the engine; after its end only
 * the engine is left. A visual stimulus makes no sound. */
static void stimulus(ts_conn *c, const char *modality, bool on)
{
    char line[200];
    snprintf(line, sizeof line, "{\"topic\":\"drt.stimulus\",\"t\":1,\"id\":1,\"modality\":\"%s\",\"on\":%s}",
             modality, on ? "true" : "false");
    assert_true(ts_send_line(c, line));
}

static void measure(const char *path, double *hz, double *rms)
{
    long end = wait_audio(path, file_size(path), 0.6);
    size_t n;
    int16_t *x = read_tail(path, end, &n);
    *hz = ta_dominant_hz(x, n, RATE, 200, 2000, 1);
    *rms = ta_rms(x, n);
    free(x);
}

static void drt_auditory_stimulus_beeps(void **state)
{
    char dir[64], path[128];
    assert_true(ta_disk_audio(dir, sizeof dir, path, sizeof path));
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *pub = ts_join(d.port, "task", "[\"dispatcher.\"]", NULL);
    assert_non_null(pub);
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    char *argv[] = {"sound-node", "--bus", bus, "--scenario", (char *)ts_root("scenarios/motorway.json"), NULL};
    pid_t pid = ts_spawn(argv, false);
    cJSON *j = ts_expect_topic(pub, "dispatcher.joined", 5000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    state_line(pub, 1500, 0.5);
    double hz, rms_engine, rms_on, rms_off, rms_visual;
    measure(path, &hz, &rms_engine);
    stimulus(pub, "visual", true);
    measure(path, &hz, &rms_visual);
    stimulus(pub, "auditory", true);
    measure(path, &hz, &rms_on);
    assert_true(fabs(hz - 1000) <= 2);
    stimulus(pub, "auditory", false);
    measure(path, &hz, &rms_off);
    printf("# rms engine %.3f, visual stimulus %.3f, tone %.3f, after %.3f\n", rms_engine, rms_visual, rms_on, rms_off);
    assert_true(rms_on > rms_engine + 0.1);
    assert_true(fabs(rms_off - rms_engine) < 0.02 && fabs(rms_visual - rms_engine) < 0.02);
    kill(pid, SIGTERM);
    int st = ts_stop(pid, 0, 5000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ts_close(pub);
    ts_dispatcher_stop(&d);
    unlink(path);
    rmdir(dir);
}

static void bad_scenario_is_a_configuration_error(void **state)
{
    char out[2048];
    const char *args[] = {"--scenario", "/nonexistent/s.json", NULL};
    assert_int_equal(ts_run("sound-node", args, out, sizeof out), 1);
    assert_non_null(strstr(out, "/nonexistent/s.json"));
    const char *bad[] = {"--cylinders", "0", NULL};
    assert_int_equal(ts_run("sound-node", bad, out, sizeof out), 2);
    assert_non_null(strstr(out, "0 cylinders: expected 1..16"));
    /* an audio driver asked for by name that does not work: configuration error */
    setenv("SDL_AUDIODRIVER", "no-such-driver", 1);
    const char *none[] = {"--bus", "127.0.0.1:1", NULL};
    assert_int_equal(ts_run("sound-node", none, out, sizeof out), 1);
    assert_non_null(strstr(out, "sound-node: no audio device"));
    unsetenv("SDL_AUDIODRIVER");
}

/* No sound card (ALSA asked for a card that is not there, no sound server): the node
 * runs silent, and `simctl sound off` is refused with the reason instead of answered
 * "done" (it used to say ok for an effect nobody made); `sound on` likewise. */
static void no_device_refuses_sound_on_and_off(void **state)
{
    (void)state;
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    ts_conn *watch = ts_join(d.port, "watch", "[\"dispatcher.joined\"]", NULL);
    assert_non_null(watch);
    char *saved = getenv("SDL_AUDIODRIVER") ? strdup(getenv("SDL_AUDIODRIVER")) : NULL;
    unsetenv("SDL_AUDIODRIVER");
    setenv("AUDIODEV", "hw:99", 1);
    setenv("PULSE_SERVER", "unix:/nonexistent/pulse", 1);
    char *argv[] = {"sound-node", "--bus", bus, NULL};
    pid_t pid = ts_spawn(argv, false);
    unsetenv("AUDIODEV");
    unsetenv("PULSE_SERVER");
    if (saved) setenv("SDL_AUDIODRIVER", saved, 1);
    free(saved);
    assert_true(pid > 0);
    cJSON *j = ts_expect_topic(watch, "dispatcher.joined", 20000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    char out[2048];
    for (int on = 0; on < 2; on++) {
        const char *args[] = {"sound", on ? "on" : "off", "--control", d.control_url, NULL};
        assert_int_equal(ts_run("simctl", args, out, sizeof out), 1);
        if (!strstr(out, "REFUSED by sound: no audio device")) fail_msg("%s", out);
    }
    assert_int_equal(ts_stop(pid, SIGTERM, 5000), 0);
    ts_close(watch);
    ts_dispatcher_stop(&d);
}

/* Issue 21: a sender that gets drt.stimulus wrong 1000 times printed 1000 lines on
 * sound-node's stderr. Now one line a second per cause, the count held back said on the
 * next one and at the end: the lines are few, and the counts they carry add up to
 * exactly the 1000 sent (none lost, none counted twice). The flood is followed by a
 * control.stop on the same connection, so it has all been read when sound-node ends. */
static void bad_stimulus_flood_is_throttled(void **state)
{
    char dir[64], path[128], errs[160];
    assert_true(ta_disk_audio(dir, sizeof dir, path, sizeof path));
    snprintf(errs, sizeof errs, "%s/stderr", dir);
    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *pub = ts_join(d.port, "task", "[\"dispatcher.\"]", NULL);
    assert_non_null(pub);
    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    char *argv[] = {"sound-node", "--bus", bus, "--scenario", (char *)ts_root("scenarios/motorway.json"), NULL};
    fflush(stderr);
    int saved = dup(2), fd = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    pid_t pid = ts_spawn(argv, false);
    dup2(saved, 2);
    close(saved);
    close(fd);
    cJSON *j = ts_expect_topic(pub, "dispatcher.joined", 5000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);
    for (int i = 0; i < 1000; i++)
        assert_true(ts_send_line(pub, "{\"topic\":\"drt.stimulus\",\"t\":1,\"id\":1,\"modality\":\"auditory\",\"on\":\"yes\"}"));
    assert_true(ts_send_line(pub, "{\"topic\":\"control.stop\",\"src\":\"dispatcher\"}"));
    int st = ts_stop(pid, 0, 20000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ts_close(pub);
    ts_dispatcher_stop(&d);
    FILE *f = fopen(errs, "r");
    assert_non_null(f);
    char line[1024];
    int lines = 0, said = 0;
    unsigned long long counted = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long n;
        const char *more = strstr(line, "(and ");
        if (sscanf(line, "sound-node: %llu more drt.stimulus lines held back", &n) == 1) {
            counted += n; /* the end's count */
        } else if (strstr(line, "drt.stimulus") && strncmp(line, "sound-node: ", 12) == 0) {
            if (!said) printf("# first: %s", line);
            said++;
            counted += 1 + (more && sscanf(more, "(and %llu more like it held back)", &n) == 1 ? n : 0);
        } else {
            continue;
        }
        lines++;
    }
    fclose(f);
    printf("# %d stderr lines for 1000 bad drt.stimulus (%d said, the rest counted)\n", lines, said);
    assert_true(said >= 1);
    assert_true(lines <= 30); /* 1000 unthrottled; one a second is a handful */
    assert_int_equal(counted, 1000);
    unlink(errs);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(audio_follows_rpm_and_commands),
        cmocka_unit_test(drt_auditory_stimulus_beeps),
        cmocka_unit_test(bad_scenario_is_a_configuration_error),
        cmocka_unit_test(no_device_refuses_sound_on_and_off),
        cmocka_unit_test(bad_stimulus_flood_is_throttled),
    };
    if (getenv("TEST_FILTER")) cmocka_set_test_filter(getenv("TEST_FILTER")); /* one test: TEST_FILTER=name */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
