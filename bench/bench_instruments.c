/* bench_instruments: a 10-minute drive's log written through the recorder's logic
 * (sim_recording + sim_drivelog) as fast as it goes, with and without a 1 kHz sensor of
 * two channels beside the 100 Hz samples, in the same run: the time each takes, their
 * ratio, how many times faster than real time the sensor case is written, and that
 * every row is there (60,000 samples, 1,200,000 sensor values). Messages are the bus
 * lines the recorder parses (sim.tick with physics' wall stamp, vehicle.state,
 * sensor.ecg with its own clock and wall stamp); commits every 10 ms of the drive's wall
 * clock, as the recorder's default --flush-ms.
 *
 *   build/bench/bench_instruments [MINUTES, default 10] [DIR, default /tmp] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "sim_drivelog.h"
#include "sim_recording.h"

static sim_recording rec;

static int feed(sim_drivelog_writer *w, double wall, const char *line, size_t len)
{
    cJSON *msg = cJSON_ParseWithLength(line, len);
    if (!msg) return -1;
    sim_recording_set_wall(&rec, wall);
    sim_error err = {0};
    int rc = sim_recording_feed(&rec, w, cJSON_GetObjectItem(msg, "topic")->valuestring, msg, line, len, &err);
    cJSON_Delete(msg);
    if (rc) fprintf(stderr, "bench_instruments: %s\n", err.msg);
    return rc;
}

static int count_samples(const char *path, long long *n)
{
    sim_drivelog_reader *r;
    sim_error err = {0};
    sim_drivelog_sample *s;
    size_t ns = 0;
    int rc = sim_drivelog_reader_open(path, &r, &err);
    if (!rc) rc = sim_drivelog_read_samples(r, sim_drivelog_range_all(), &s, &ns, &err);
    if (!rc) free(s);
    sim_drivelog_reader_close(r);
    *n = (long long)ns;
    return rc;
}

static int count_sensor(const sim_drivelog_sensor *s, const char *unit, void *user)
{
    (void)s, (void)unit;
    (*(long long *)user)++;
    return 0;
}

/* One drive of `minutes`; sensor_hz 0: none. Returns seconds taken (CPU of this thread). */
static double drive(const char *path, double minutes, int sensor_hz, long long *samples, long long *values)
{
    remove(path);
    sim_drivelog_writer *w;
    sim_error err = {0};
    sim_drivelog_write_options o = {.flush_ms = 10};
    if (sim_drivelog_writer_open(path, &o, &w, &err)) return -1;
    sim_recording_init(&rec, false, -1);
    double wall0 = 1795000000.0;
    long ticks = (long)(minutes * 60 * 100);
    char line[512];
    double t0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    for (long n = 0; n < ticks; n++) {
        double t = n * 0.01, wall = wall0 + t;
        int len = snprintf(line, sizeof line,
                           "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%ld,\"t\":%.2f,\"n\":%ld,"
                           "\"dt\":0.01,\"run\":0,\"paused\":false,\"wall\":%.6f}", 2 * n, t, n, wall);
        if (feed(w, wall + 0.0005, line, (size_t)len)) return -1;
        len = snprintf(line, sizeof line,
                       "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%ld,\"t\":%.2f,\"tick\":%ld,"
                       "\"run\":0,\"speed\":%.3f,\"pos\":[%.3f,1.5,0],\"heading\":0,\"yaw_rate\":0,\"gear\":3,"
                       "\"rpm\":2500,\"steer_angle\":0.01}", 2 * n + 1, t, n, 20.0, 20.0 * t);
        if (feed(w, wall + 0.0006, line, (size_t)len)) return -1;
        for (int k = 0; k < sensor_hz / 100; k++) {
            double ws = wall + k * (1.0 / sensor_hz);
            len = snprintf(line, sizeof line,
                           "{\"topic\":\"sensor.ecg\",\"src\":\"bridge-ecg\",\"seq\":%ld,\"t\":0,\"t_src\":%.6f,"
                           "\"wall\":%.6f,\"values\":{\"ecg\":%.4f,\"eda\":%.3f},\"units\":{\"ecg\":\"mV\",\"eda\":\"uS\"}}",
                           n * 10 + k, 500 + n * 0.01 + k * 0.001, ws, sin(ws * 7), 3 + 0.001 * k);
            if (feed(w, ws + 0.002, line, (size_t)len)) return -1;
        }
        if (sim_drivelog_tick(w, n * 0.01, &err)) {
            fprintf(stderr, "bench_instruments: %s\n", err.msg);
            return -1;
        }
    }
    if (sim_recording_release_held(&rec, w, &err) || sim_drivelog_writer_close(w, &err)) {
        fprintf(stderr, "bench_instruments: %s\n", err.msg);
        return -1;
    }
    double took = bench_clock(CLOCK_THREAD_CPUTIME_ID) - t0;
    sim_drivelog_reader *r;
    *values = 0;
    if (count_samples(path, samples) || sim_drivelog_reader_open(path, &r, &err) ||
        sim_drivelog_each_sensor(r, sim_drivelog_range_all(), NULL, count_sensor, values, &err))
        return -1;
    sim_drivelog_reader_close(r);
    return took;
}

int main(int argc, char **argv)
{
    double minutes = argc > 1 ? atof(argv[1]) : 10;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    if (!(minutes > 0)) {
        fprintf(stderr, "usage: bench_instruments [MINUTES] [DIR]\n");
        return 2;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/bench_instruments_%d.sqlite", dir, (int)getpid());
    long long s0, v0, s1, v1;
    double base = drive(path, minutes, 0, &s0, &v0);
    double with = drive(path, minutes, 1000, &s1, &v1);
    remove(path);
    if (base < 0 || with < 0) return 1;
    long long want_s = (long long)(minutes * 6000), want_v = want_s * 10 * 2;
    printf("a %.0f-minute drive through sim_recording + sim_drivelog (CPU s of one core), files in %s\n", minutes, dir);
    printf("baseline: 100 Hz samples only                 %7.2f s  (%lld samples)\n", base, s0);
    printf("with a 1 kHz sensor of 2 channels beside them  %7.2f s  (%lld samples, %lld sensor values)\n", with, s1,
           v1);
    printf("ratio with sensor / samples only: %.2f\n", with / base);
    printf("written %.0fx faster than real time with the sensor\n", minutes * 60 / with);
    printf("nothing lost: %s (expected %lld samples, %lld sensor values)\n",
           s0 == want_s && s1 == want_s && v0 == 0 && v1 == want_v ? "yes" : "NO", want_s, want_v);
    return s0 == want_s && s1 == want_s && v1 == want_v ? 0 : 1;
}
