/* bench_drivelog: sustained sample rows per second written through sim_drivelog with
 * commits every 100 ms (the recorder's durability: a killed process keeps every
 * committed row), beside two baselines in the same run: the same rows as CSV text
 * through stdio with an fflush every 100 ms, and SQLite with one transaction per row.
 * Also the latency of each append+tick call (the work the recorder's event loop waits
 * for): p50, p99, p99.9 and max.
 *
 *   build/bench/bench_drivelog [SECONDS per case, default 2] [DIR, default /tmp] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_drivelog.h"

typedef struct result {
    const char *name;
    double rows_per_s;
    double p50, p99, p999, max; /* microseconds, every append+tick call */
    size_t commits;
    double c50, c99, cmax;      /* microseconds, the calls that committed */
} result;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void percentiles(result *r, double *lat, size_t n)
{
    qsort(lat, n, sizeof *lat, cmp_double);
    r->p50 = lat[n / 2] * 1e6;
    r->p99 = lat[(size_t)(n * 0.99)] * 1e6;
    r->p999 = lat[(size_t)(n * 0.999)] * 1e6;
    r->max = lat[n - 1] * 1e6;
}

/* Commit latencies, in the same units, from the calls that committed. */
static void commit_percentiles(result *r, double *lat, size_t n)
{
    r->commits = n;
    if (n == 0) return;
    qsort(lat, n, sizeof *lat, cmp_double);
    r->c50 = lat[n / 2] * 1e6;
    r->c99 = lat[(size_t)(n * 0.99)] * 1e6;
    r->cmax = lat[n - 1] * 1e6;
}

static void fill(sim_drivelog_sample *s, int64_t tick)
{
    sim_drivelog_sample_init(s);
    s->run = 1;
    s->tick = tick;
    s->t = tick * 0.01;
    s->speed = 16.7 + sin(tick * 1e-3);
    s->accel = 0.1;
    s->headway_dist = 35.0;
    s->headway_time = 35.0 / s->speed;
    s->lat_dev = 0.05 * cos(tick * 1e-2);
    s->lane = -2;
    s->s = tick * 0.167;
    s->d = -5.25;
    s->x = tick * 0.167;
    s->y = 12.0;
    s->z = 0.3;
    s->heading = 0.001;
    s->yaw_rate = 0.0;
    s->steer_wheel = 0.01;
    s->wheel_angle = 0.001;
    s->throttle = 0.25;
    s->brake = 0.0;
    s->clutch = 0.0;
    s->gear = 4;
    s->rpm = 2200.0;
    snprintf(s->sector, sizeof s->sector, "S%lld", (long long)(tick / 100000));
}

enum { MAX_ROWS = 8 * 1000 * 1000 };

/* kind 0: drivelog NORMAL, 1: drivelog FULL (fsync), 2: one transaction per row. */
static int run_drivelog(result *r, int kind, const char *dir, double seconds, double *lat,
                        double *clat)
{
    size_t nc = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/bench_drivelog_%d.sqlite", dir, (int)getpid());
    sim_drivelog_write_options o = {.flush_ms = 100, .fsync_each = kind == 1};
    sim_drivelog_writer *w;
    sim_error err = {0};
    if (sim_drivelog_writer_open(path, &o, &w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    size_t n = 0;
    double t0 = now_s(), t = t0;
    while (t - t0 < seconds && n < MAX_ROWS) {
        sim_drivelog_sample s;
        fill(&s, (int64_t)n);
        double a = now_s();
        int rc = sim_drivelog_append_sample(w, &s, &err);
        if (!rc) rc = kind == 2 ? sim_drivelog_flush(w, &err) : sim_drivelog_tick(w, a, &err);
        t = now_s();
        if (rc) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        lat[n++] = t - a;
        if (kind != 2 && sim_drivelog_pending(w) == 0) clat[nc++] = t - a;
    }
    commit_percentiles(r, clat, nc);
    /* The final commit belongs to the work: rows count once they are committed. */
    if (sim_drivelog_flush(w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    t = now_s();
    r->rows_per_s = (double)sim_drivelog_committed(w) / (t - t0);
    sim_drivelog_writer_close(w, NULL);
    percentiles(r, lat, n);
    sim_drivelog_remove(path);
    return 0;
}

/* Prints a double like the CSV export does ("%.17g"), empty for NAN. */
static void put_num(FILE *f, double v)
{
    if (!isnan(v)) fprintf(f, "%.17g", v);
    fputc(',', f);
}

static int run_csv(result *r, const char *dir, double seconds, double *lat)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bench_drivelog_%d.csv", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t n = 0;
    double t0 = now_s(), t = t0, last_flush = t0;
    while (t - t0 < seconds && n < MAX_ROWS) {
        sim_drivelog_sample s;
        fill(&s, (int64_t)n);
        double a = now_s();
        fprintf(f, "%lld,%lld,", (long long)s.run, (long long)s.tick);
        const double v[] = {s.t, s.speed, s.accel, s.headway_dist, s.headway_time, s.lat_dev,
                            s.lane, s.s, s.d, s.x, s.y, s.z, s.heading, s.yaw_rate,
                            s.steer_wheel, s.wheel_angle, s.throttle, s.brake, s.clutch,
                            s.gear, s.rpm};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) put_num(f, v[i]);
        fprintf(f, "%s,%s\n", s.sector, s.task);
        if (a - last_flush >= 0.1) {
            fflush(f);
            last_flush = a;
        }
        t = now_s();
        lat[n++] = t - a;
    }
    fclose(f);
    t = now_s();
    r->rows_per_s = (double)n / (t - t0);
    percentiles(r, lat, n);
    unlink(path);
    return 0;
}

static void print(const result *r)
{
    printf("%-44s %9.0f rows/s | append+tick us: p50 %5.2f p99 %6.2f p99.9 %7.2f max %8.1f",
           r->name, r->rows_per_s, r->p50, r->p99, r->p999, r->max);
    if (r->commits)
        printf(" | %zu commits, us: p50 %7.1f p99 %7.1f max %7.1f", r->commits, r->c50, r->c99, r->cmax);
    printf("\n");
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    if (!(seconds > 0)) {
        fprintf(stderr, "usage: bench_drivelog [SECONDS] [DIR]\n");
        return 2;
    }
    double *lat = malloc(sizeof *lat * MAX_ROWS), *clat = malloc(sizeof *clat * MAX_ROWS);
    if (!lat || !clat) return 1;
    result res[4] = {{.name = "drivelog, batched commits (sync NORMAL)"},
                     {.name = "drivelog, batched commits (sync FULL)"},
                     {.name = "baseline: SQLite, one transaction per row"},
                     {.name = "baseline: CSV via stdio, fflush every 100 ms"}};
    int rc = run_drivelog(&res[0], 0, dir, seconds, lat, clat) ||
             run_drivelog(&res[1], 1, dir, seconds, lat, clat) ||
             run_drivelog(&res[2], 2, dir, seconds / 2, lat, clat) || run_csv(&res[3], dir, seconds, lat);
    free(lat);
    free(clat);
    if (rc) return 1;
    printf("sample rows (25 columns), %.1f s per case, files in %s\n", seconds, dir);
    for (int i = 0; i < 4; i++) print(&res[i]);
    printf("ratio drivelog NORMAL / one transaction per row: %.1f\n", res[0].rows_per_s / res[2].rows_per_s);
    printf("ratio drivelog NORMAL / CSV stdio:              %.2f\n", res[0].rows_per_s / res[3].rows_per_s);
    printf("ratio drivelog FULL   / CSV stdio:              %.2f\n", res[1].rows_per_s / res[3].rows_per_s);
    printf("target >= 200000 rows/s (commits <= 100 ms or 4096 rows apart): %s\n",
           res[0].rows_per_s >= 200000 ? "met" : "NOT met");
    return 0;
}
