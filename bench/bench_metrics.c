/* Benchmark of the analysis.
 *
 * 1. Samples per second through sim_metrics_compute (events, exact areas, lane marks,
 *    SDLP, speed, headway) on a 2-million-sample task, beside the baseline that any
 *    analysis does at least: a naive trapezoid of |d - d_ideal| over every sample. Target
 *    for the metrics: at least 20 million samples per second.
 * 2. Reading one hour of 100 Hz driving (360,001 rows) from a drive log the way the
 *    analysis does (sim_drivelog_each_sample with the 12 columns and 2 ids it uses,
 *    straight into column arrays), beside the baseline of how the reader worked before:
 *    a default (serialized) SQLite connection, every column through sqlite3_column_type
 *    and sqlite3_column_double into an array of sample structs, then copied into
 *    columns. Also the public array reader (every column) in between.
 * 3. The same hour through the full report: `analysis report LOG --timing` reports the
 *    phases; the baseline is the same report without figures. Target: well under a
 *    second.
 * Parts 2 and 3 need $SIM_BIN (make bench sets it) for `analysis synth`; skipped without.
 * Best of several runs each. */
#include <math.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim_drivelog.h"
#include "sim_metrics.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define N 2000000
#define REPS 9

static double col[11][N];
static sim_metrics_point ideal[2 * (N / 1800) + 2];
static volatile double sink;

/* A 100 Hz drive at about 60 km/h through lane changes every 300 m (30 m ramps), with a
 * wandering lateral position, a car ahead and moving controls. */
static size_t make_drive(sim_metrics_samples *smp, sim_metrics_task *task)
{
    double *t = col[0], *s = col[1], *d = col[2], *v = col[3], *lim = col[4], *hw = col[5],
           *st = col[6], *th = col[7], *br = col[8], *ml = col[9], *mr = col[10];
    double length = 0;
    for (size_t i = 0; i < N; i++) {
        t[i] = i * 0.01;
        v[i] = 16.7 + 1.5 * sin(t[i] / 17.0);
        length += v[i] * 0.01;
        s[i] = length;
    }
    size_t k = 0;
    double dcur = -1.75;
    for (double x = 100; x + 60 < length && k + 2 < sizeof ideal / sizeof ideal[0]; x += 300) {
        ideal[k++] = (sim_metrics_point){x, dcur};
        dcur = dcur < -3 ? -1.75 : -5.25;
        ideal[k++] = (sim_metrics_point){x + 30, dcur};
    }
    size_t cur = 0, cur2 = 0;
    for (size_t i = 0; i < N; i++) {
        double lagged = sim_metrics_ideal_at(ideal, k, s[i] - 15, &cur); /* the driver lags */
        double di = sim_metrics_ideal_at(ideal, k, s[i], &cur2);
        d[i] = lagged + 0.35 * sin(t[i] * 0.7) + 0.2 * sin(t[i] * 2.3 + 1);
        lim[i] = 60 / 3.6;
        hw[i] = fmod(t[i], 300) < 240 ? 40 + 15 * sin(t[i] / 23.0) : NAN;
        st[i] = 0.3 * sin(t[i] * 0.9);
        th[i] = 0.25 + 0.1 * sin(t[i] / 5.0);
        br[i] = fmax(0, sin(t[i] / 7.0) - 0.9);
        ml[i] = di + 1.75;
        mr[i] = di - 1.75;
    }
    *smp = (sim_metrics_samples){.n = N, .t = t, .s = s, .d = d, .speed = v, .speed_limit = lim,
                                 .headway = hw, .steer = st, .throttle = th, .brake = br,
                                 .mark_left = ml, .mark_right = mr};
    sim_metrics_task_init(task);
    task->s_start = 0;
    task->s_end = length;
    task->ideal = ideal;
    task->n_ideal = k;
    task->tube_half_width = 0.5;
    return k;
}

/* The baseline: trapezoid of |e| over the samples, no crossings, no events. */
static double naive_area(const sim_metrics_samples *smp, const sim_metrics_task *task)
{
    size_t cur = 0;
    double area = 0, prev = fabs(smp->d[0] - sim_metrics_ideal_at(task->ideal, task->n_ideal, smp->s[0], &cur));
    for (size_t i = 1; i < smp->n; i++) {
        double e = fabs(smp->d[i] - sim_metrics_ideal_at(task->ideal, task->n_ideal, smp->s[i], &cur));
        area += 0.5 * (prev + e) * (smp->s[i] - smp->s[i - 1]);
        prev = e;
    }
    return area;
}

static void bench_metrics(void)
{
    sim_metrics_samples smp;
    sim_metrics_task task;
    size_t k = make_drive(&smp, &task);
    double best = 1e9, best_base = 1e9;
    sim_metrics_result r = {0};
    for (int rep = 0; rep < REPS; rep++) {
        double t0 = now();
        sim_error err = {0};
        if (sim_metrics_compute(&smp, &task, &r, &err)) {
            fprintf(stderr, "bench_metrics: %s\n", err.msg);
            exit(1);
        }
        double t1 = now();
        sink = r.area_global;
        if (rep + 1 < REPS) sim_metrics_result_free(&r);
        if (t1 - t0 < best) best = t1 - t0;
        t0 = now();
        sink = naive_area(&smp, &task);
        t1 = now();
        if (t1 - t0 < best_base) best_base = t1 - t0;
    }
    double rate = N / best / 1e6, base = N / best_base / 1e6;
    printf("metrics: %d samples, %zu ideal-path points, %zu events (%zu severe), best of %d\n", N,
           k, r.n_events, r.n_mark_events, REPS);
    printf("  sim_metrics_compute         %8.1f M samples/s  (%.1f ms)\n", rate, best * 1e3);
    printf("  baseline: naive trapezoid   %8.1f M samples/s  (%.1f ms)\n", base, best_base * 1e3);
    printf("  ratio metrics/baseline      %8.2f   target >= 20 M samples/s: %s\n", rate / base,
           rate >= 20 ? "met" : "NOT met");
    sim_metrics_result_free(&r);
}

/* Runs a command and returns the seconds of its "timing:" line's phases; NAN on failure. */
static int run_report(const char *cmd, double ph[6])
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    int got = -1;
    while (fgets(line, sizeof line, p)) {
        double n;
        if (sscanf(line, "timing: samples %lf load %lf compute %lf tables %lf figures %lf html %lf",
                   &n, &ph[0], &ph[1], &ph[2], &ph[3], &ph[4]) == 6)
            got = 0;
    }
    return pclose(p) == 0 ? got : -1;
}

/* ---- part 2: reading the drive log ---- */

enum { READ_COLS = 12 };

/* What the analysis keeps of a log: 12 columns and the task and road ids. */
typedef struct columns {
    double *c[READ_COLS];
    char (*task)[SIM_DRIVELOG_ID_MAX], (*road)[SIM_DRIVELOG_ID_MAX];
    size_t n, cap;
} columns;

static void columns_put(columns *C, const sim_drivelog_sample *s)
{
    if (C->n == C->cap) {
        C->cap = C->cap ? 2 * C->cap : 4096;
        for (int k = 0; k < READ_COLS; k++)
            if (!(C->c[k] = realloc(C->c[k], C->cap * sizeof(double)))) exit(1);
        if (!(C->task = realloc(C->task, C->cap * sizeof *C->task))) exit(1);
        if (!(C->road = realloc(C->road, C->cap * sizeof *C->road))) exit(1);
    }
    size_t i = C->n++;
    const double v[READ_COLS] = {(double)s->run, (double)s->tick, s->t, s->speed, s->headway_dist,
                                 s->s, s->d, s->x, s->y, s->steer_wheel, s->throttle, s->brake};
    for (int k = 0; k < READ_COLS; k++) C->c[k][i] = v[k];
    memcpy(C->task[i], s->task, SIM_DRIVELOG_ID_MAX);
    memcpy(C->road[i], s->road, SIM_DRIVELOG_ID_MAX);
}

static void columns_free(columns *C)
{
    for (int k = 0; k < READ_COLS; k++) free(C->c[k]);
    free(C->task);
    free(C->road);
    memset(C, 0, sizeof *C);
}

static int put_cb(const sim_drivelog_sample *s, void *user)
{
    columns_put(user, s);
    return 0;
}

/* Subject: the analysis's read (analysis/logread.c). */
static size_t read_subject(const char *path)
{
    static const char *const names[] = {"run", "tick", "t", "speed", "headway_dist", "s", "d", "x",
                                        "y", "steer_wheel", "throttle", "brake", "task", "road"};
    sim_drivelog_reader *r;
    sim_error err = {0};
    columns C = {0};
    if (sim_drivelog_reader_open(path, &r, &err) ||
        sim_drivelog_each_sample(r, sim_drivelog_range_all(), names, 14, put_cb, &C, &err)) {
        fprintf(stderr, "bench_metrics: %s\n", err.msg);
        exit(1);
    }
    sim_drivelog_reader_close(r);
    size_t n = C.n;
    columns_free(&C);
    return n;
}

/* In between: the public array reader (every column), then into columns. */
static size_t read_array(const char *path)
{
    sim_drivelog_reader *r;
    sim_error err = {0};
    sim_drivelog_sample *smp;
    size_t n;
    if (sim_drivelog_reader_open(path, &r, &err) ||
        sim_drivelog_read_samples(r, sim_drivelog_range_all(), &smp, &n, &err)) {
        fprintf(stderr, "bench_metrics: %s\n", err.msg);
        exit(1);
    }
    sim_drivelog_reader_close(r);
    columns C = {0};
    for (size_t i = 0; i < n; i++) columns_put(&C, &smp[i]);
    free(smp);
    columns_free(&C);
    return n;
}

static double old_double(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int32_t old_int(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? SIM_DRIVELOG_NULL_INT : sqlite3_column_int(st, i);
}

static void old_id(sqlite3_stmt *st, int i, char *out)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    snprintf(out, SIM_DRIVELOG_ID_MAX, "%s", v ? (const char *)v : "");
}

/* Baseline: the reader before this change (sim_drivelog.c as of the first analysis
 * merge), reproduced here: serialized connection, no memory map, every column. */
static size_t read_baseline(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT run, tick, t, speed, accel, headway_dist, headway_time, lat_dev, lane,"
                           " s, d, x, y, z, heading, yaw_rate, steer_wheel, wheel_angle, throttle, brake,"
                           " clutch, gear, rpm, sector, task, road FROM samples WHERE (?1 < 0 OR run = ?1)"
                           " AND t BETWEEN ?2 AND ?3 ORDER BY run, tick",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_metrics: %s: %s\n", path, sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_bind_int64(st, 1, -1);
    sqlite3_bind_double(st, 2, -1e300);
    sqlite3_bind_double(st, 3, 1e300);
    sim_drivelog_sample *v = NULL;
    size_t n = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v))) exit(1);
        sim_drivelog_sample *s = &v[n++];
        int i = 0;
        s->run = sqlite3_column_int64(st, i++);
        s->tick = sqlite3_column_int64(st, i++);
        s->t = sqlite3_column_double(st, i++);
        double *d1[] = {&s->speed, &s->accel, &s->headway_dist, &s->headway_time, &s->lat_dev};
        for (size_t k = 0; k < 5; k++) *d1[k] = old_double(st, i++);
        s->lane = old_int(st, i++);
        double *d2[] = {&s->s, &s->d, &s->x, &s->y, &s->z, &s->heading, &s->yaw_rate,
                        &s->steer_wheel, &s->wheel_angle, &s->throttle, &s->brake, &s->clutch};
        for (size_t k = 0; k < 12; k++) *d2[k] = old_double(st, i++);
        s->gear = old_int(st, i++);
        s->rpm = old_double(st, i++);
        old_id(st, i++, s->sector);
        old_id(st, i++, s->task);
        old_id(st, i++, s->road);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    columns C = {0};
    for (size_t i = 0; i < n; i++) columns_put(&C, &v[i]);
    free(v);
    columns_free(&C);
    return n;
}

static void bench_read(const char *log)
{
    size_t (*fn[3])(const char *) = {read_baseline, read_array, read_subject};
    double best[3] = {1e9, 1e9, 1e9};
    size_t rows = 0;
    for (int rep = 0; rep < 5; rep++)
        for (int k = 0; k < 3; k++) {
            double t0 = now();
            rows = fn[k](log);
            double dt = now() - t0;
            if (dt < best[k]) best[k] = dt;
        }
    printf("drive log: %zu rows (1 h at 100 Hz) into columns, best of 5\n", rows);
    printf("  analysis read (12 columns + 2 ids, streamed)  %6.1f ms  %5.2f M rows/s\n", best[2] * 1e3,
           rows / best[2] / 1e6);
    printf("  array reader (all 26 columns)                 %6.1f ms  %5.2f M rows/s\n", best[1] * 1e3,
           rows / best[1] / 1e6);
    printf("  baseline: the reader before (all columns, serialized connection, structs)"
           "  %6.1f ms  %5.2f M rows/s\n", best[0] * 1e3, rows / best[0] / 1e6);
    printf("  ratio analysis read / baseline %.2f (%.1fx faster)\n", best[2] / best[0], best[0] / best[2]);
}

/* ---- part 3: the full report ---- */

static void bench_report(void)
{
    const char *bin = getenv("SIM_BIN");
    if (!bin) {
        printf("drive log and report: skipped (set SIM_BIN to the bin/ folder; make bench does)\n");
        return;
    }
    char dir[] = "/tmp/bench_metrics.XXXXXX";
    if (!mkdtemp(dir)) return;
    char cmd[1024], log[512];
    snprintf(cmd, sizeof cmd, "'%s/analysis' synth --out %s/log --subjects 1 --minutes 60 --tasks 6 --sqlite > /dev/null",
             bin, dir);
    snprintf(log, sizeof log, "%s/log/S01.sqlite", dir);
    if (system(cmd) != 0) {
        printf("report: synth failed\n");
        return;
    }
    bench_read(log);
    double best[6] = {1e9, 1e9, 1e9, 1e9, 1e9}, base[6] = {1e9, 1e9, 1e9, 1e9, 1e9};
    double best_sum = 1e9, base_sum = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double ph[6];
        snprintf(cmd, sizeof cmd, "'%s/analysis' report %s --out %s/out --timing", bin, log, dir);
        if (run_report(cmd, ph) == 0) {
            double sum = ph[0] + ph[1] + ph[2] + ph[3] + ph[4];
            if (sum < best_sum) best_sum = sum, memcpy(best, ph, sizeof best);
        }
        snprintf(cmd, sizeof cmd, "'%s/analysis' report %s --out %s/out2 --timing --no-plots", bin, log, dir);
        if (run_report(cmd, ph) == 0) {
            double sum = ph[0] + ph[1] + ph[2] + ph[4];
            if (sum < base_sum) base_sum = sum, memcpy(base, ph, sizeof base);
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("report: the same hour (drive log, 6 tasks), best of 5, %ld cores\n", cores);
    printf("  full report: load %.3f + compute %.3f + tables %.3f + figures %.3f + page %.3f = %.3f s\n",
           best[0], best[1], best[2], best[3], best[4], best_sum);
    printf("  baseline without figures: load %.3f + compute %.3f + tables %.3f + page %.3f = %.3f s\n",
           base[0], base[1], base[2], base[4], base_sum);
    printf("  ratio full/baseline %.1f; target (one hour in well under a second): %s\n",
           best_sum / base_sum, best_sum < 1.0 ? "met" : "NOT met");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_metrics: could not remove %s\n", dir);
}

/* ---- part 4: the secondary-task measures (issue 25) ---- */

/* CPU seconds (user + system) that cmd's processes took. */
static double child_cpu(const char *cmd)
{
    struct rusage a, b;
    getrusage(RUSAGE_CHILDREN, &a);
    if (system(cmd) != 0) return NAN;
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(b.ru_utime.tv_sec - a.ru_utime.tv_sec) + (b.ru_utime.tv_usec - a.ru_utime.tv_usec) * 1e-6 +
           (double)(b.ru_stime.tv_sec - a.ru_stime.tv_sec) + (b.ru_stime.tv_usec - a.ru_stime.tv_usec) * 1e-6;
}

/* The same synthetic hour twice: as today's logs are (baseline) and with a DRT stimulus
 * every 3-5 s, gaze samples at 30 Hz and SuRT responses (synth --secondary: about
 * 110,000 more events). CPU time of the whole report, with and without figures. */
static void bench_secondary(void)
{
    const char *bin = getenv("SIM_BIN");
    if (!bin) {
        printf("secondary-task measures: skipped (set SIM_BIN)\n");
        return;
    }
    char dir[] = "/tmp/bench_measures.XXXXXX";
    if (!mkdtemp(dir)) return;
    char cmd[1024];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "'%s/analysis' synth --out %s/%s --subjects 1 --minutes 60 --tasks 6 --sqlite%s > /dev/null",
                 bin, dir, k ? "with" : "base", k ? " --secondary" : "");
        if (system(cmd) != 0) {
            printf("secondary-task measures: synth failed\n");
            return;
        }
    }
    double cpu[2][2] = {{1e9, 1e9}, {1e9, 1e9}}; /* [log][plots] */
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < 2; k++)
            for (int plots = 0; plots < 2; plots++) {
                snprintf(cmd, sizeof cmd, "'%s/analysis' report %s/%s/S01.sqlite --out %s/out%d%d %s > /dev/null 2>&1",
                         bin, dir, k ? "with" : "base", dir, k, plots, plots ? "" : "--no-plots");
                double c = child_cpu(cmd);
                if (c < cpu[k][plots]) cpu[k][plots] = c;
            }
    printf("secondary-task measures: one hour at 100 Hz, 6 tasks, best of 3, CPU seconds (user + system)\n");
    printf("  baseline (today's log)      report --no-plots %.3f s, full report %.3f s\n", cpu[0][0], cpu[0][1]);
    printf("  with DRT, gaze 30 Hz, SuRT  report --no-plots %.3f s, full report %.3f s\n", cpu[1][0], cpu[1][1]);
    printf("  ratio with/baseline %.2f (no plots), %.2f (full); target report --no-plots < 1 s CPU: %s\n",
           cpu[1][0] / cpu[0][0], cpu[1][1] / cpu[0][1], cpu[1][0] < 1.0 ? "met" : "NOT met");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_metrics: could not remove %s\n", dir);
}

int main(void)
{
    bench_metrics();
    bench_report();
    bench_secondary();
    return 0;
}
