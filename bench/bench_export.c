/* bench_export: a drive log of one hour at 100 Hz (360,000 samples, an event a second)
 * exported as MCAP (zstd chunks, and uncompressed) beside the CSV export of the same
 * log in the same run (issue 43: "MCAP export of a 1 h log against simctl export
 * --csv"); prints seconds, output bytes and the ratio to CSV.
 *
 *   build/bench/bench_export [MINUTES, default 60] [DIR, default /tmp] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim_drivelog.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* A drive along a straight road: every column filled as the recorder would. */
static int make_log(const char *path, long n, sim_error *err)
{
    sim_drivelog_writer *w;
    sim_drivelog_write_options o = {.batch_rows = 8192};
    int rc = sim_drivelog_writer_open(path, &o, &w, err);
    for (long k = 0; !rc && k < n; k++) {
        sim_drivelog_sample s;
        sim_drivelog_sample_init(&s);
        s.run = 0, s.tick = k, s.t = k * 0.01;
        s.speed = 16.7 + sin(k * 1e-3), s.accel = 0.1, s.headway_dist = 35, s.headway_time = 35 / s.speed;
        s.lat_dev = 0.05 * cos(k * 1e-2), s.lane = -2, s.s = k * 0.167, s.d = -5.25, s.x = k * 0.167, s.y = 12, s.z = 0.3;
        s.heading = 0.001, s.yaw_rate = 0, s.steer_wheel = 0.01 * sin(k * 3e-2), s.wheel_angle = 0.001;
        s.throttle = 0.25, s.brake = 0, s.clutch = 0, s.gear = 4, s.rpm = 2200;
        snprintf(s.sector, sizeof s.sector, "S%ld", k / 30000);
        snprintf(s.task, sizeof s.task, "T%ld", k / 30000);
        snprintf(s.road, sizeof s.road, "main");
        rc = sim_drivelog_append_sample(w, &s, err);
        if (!rc && k % 100 == 0)
            rc = sim_drivelog_append_event(w, 0, s.t, "trigger", "mark", "{\"text\":\"a second\"}", err);
        if (!rc && k % 8192 == 0) rc = sim_drivelog_flush(w, err);
    }
    int crc = sim_drivelog_writer_close(w, err);
    return rc ? rc : crc;
}

int main(int argc, char **argv)
{
    double minutes = argc > 1 ? atof(argv[1]) : 60;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    long n = (long)(minutes * 60 * 100);
    char log[512], csv[512], mz[512], mu[512], cmd[2200];
    snprintf(log, sizeof log, "%s/bench_export_%d.sqlite", dir, (int)getpid());
    snprintf(csv, sizeof csv, "%s/bench_export_%d_csv", dir, (int)getpid());
    snprintf(mz, sizeof mz, "%s/bench_export_%d.mcap", dir, (int)getpid());
    snprintf(mu, sizeof mu, "%s/bench_export_%d_raw.mcap", dir, (int)getpid());
    sim_error err = {0};
    if (make_log(log, n, &err) || mkdir(csv, 0755)) {
        fprintf(stderr, "bench_export: %s\n", err.msg[0] ? err.msg : "cannot make the CSV folder");
        return 1;
    }
    sim_drivelog_reader *r;
    if (sim_drivelog_reader_open(log, &r, &err)) {
        fprintf(stderr, "bench_export: %s\n", err.msg);
        return 1;
    }
    double t0 = now_s();
    int rc = sim_drivelog_export_csv(r, sim_drivelog_range_all(), csv, &err);
    double t_csv = now_s() - t0;
    size_t nz = 0, nu = 0;
    t0 = now_s();
    if (!rc) rc = sim_drivelog_export_mcap(r, sim_drivelog_range_all(), mz, true, &nz, &err);
    double t_mz = now_s() - t0;
    t0 = now_s();
    if (!rc) rc = sim_drivelog_export_mcap(r, sim_drivelog_range_all(), mu, false, &nu, &err);
    double t_mu = now_s() - t0;
    sim_drivelog_reader_close(r);
    if (rc) {
        fprintf(stderr, "bench_export: %s\n", err.msg);
        return 1;
    }
    char p1[600], p2[600];
    snprintf(p1, sizeof p1, "%s/samples.csv", csv);
    snprintf(p2, sizeof p2, "%s/events.csv", csv);
    long long csv_bytes = file_size(p1) + file_size(p2);
    printf("bench_export: %.0f min log, %ld samples, %ld events\n", minutes, n, (n + 99) / 100);
    printf("  %-22s %8.2f s %12lld bytes\n", "CSV (baseline)", t_csv, csv_bytes);
    printf("  %-22s %8.2f s %12lld bytes  %zu messages  ratio %.2f x CSV time, %.2f x CSV bytes\n", "MCAP zstd", t_mz,
           file_size(mz), nz, t_mz / t_csv, (double)file_size(mz) / (double)csv_bytes);
    printf("  %-22s %8.2f s %12lld bytes  %zu messages  ratio %.2f x CSV time, %.2f x CSV bytes\n", "MCAP uncompressed",
           t_mu, file_size(mu), nu, t_mu / t_csv, (double)file_size(mu) / (double)csv_bytes);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s' '%s'", log, csv, mz, mu);
    return system(cmd) == 0 ? 0 : 1;
}
