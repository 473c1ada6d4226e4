/* Benchmark of the analysis.
 *
 * 1. Samples per second through sim_metrics_compute (events, exact areas, lane marks,
 *    SDLP, speed, headway) on a 2-million-sample task, beside the baseline that any
 *    analysis does at least: a naive trapezoid of |d - d_ideal| over every sample. Target
 *    for the metrics: at least 20 million samples per second.
 * 2. One hour of 100 Hz driving through the full report: `analysis synth` writes a
 *    synthetic hour (CSV export and drive log), `analysis report --timing` reports the
 *    phases; the baseline is the same report without figures. Needs $SIM_BIN (make
 *    bench sets it); skipped without.
 * Best of several runs each, on one core for part 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static void bench_report(void)
{
    const char *bin = getenv("SIM_BIN");
    if (!bin) {
        printf("report: skipped (set SIM_BIN to the bin/ folder; make bench does)\n");
        return;
    }
    char dir[] = "/tmp/bench_metrics.XXXXXX";
    if (!mkdtemp(dir)) return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s/analysis' synth --out %s/in --subjects 1 --minutes 60 --tasks 6 > /dev/null"
             " && '%s/analysis' synth --out %s/log --subjects 1 --minutes 60 --tasks 6 --sqlite > /dev/null",
             bin, dir, bin, dir);
    if (system(cmd) != 0) {
        printf("report: synth failed\n");
        return;
    }
    /* Loading the same hour from the drive log (SQLite) instead of the CSV export. */
    double sqlite_load = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double ph[6];
        snprintf(cmd, sizeof cmd, "'%s/analysis' report %s/log/S01.sqlite --out %s/out3 --timing --no-plots",
                 bin, dir, dir);
        if (run_report(cmd, ph) == 0 && ph[0] < sqlite_load) sqlite_load = ph[0];
    }
    double best[6] = {1e9, 1e9, 1e9, 1e9, 1e9}, base[6] = {1e9, 1e9, 1e9, 1e9, 1e9};
    double best_sum = 1e9, base_sum = 1e9;
    for (int rep = 0; rep < 3; rep++) {
        double ph[6];
        snprintf(cmd, sizeof cmd, "'%s/analysis' report %s/in/S01 --out %s/out --timing", bin, dir, dir);
        if (run_report(cmd, ph) == 0) {
            double sum = ph[1] + ph[2] + ph[3] + ph[4];
            if (sum < best_sum) best_sum = sum, memcpy(best, ph, sizeof best);
        }
        snprintf(cmd, sizeof cmd, "'%s/analysis' report %s/in/S01 --out %s/out2 --timing --no-plots", bin, dir, dir);
        if (run_report(cmd, ph) == 0) {
            double sum = ph[1] + ph[2] + ph[4];
            if (sum < base_sum) base_sum = sum, memcpy(base, ph, sizeof base);
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("report: 1 h of 100 Hz driving (360001 samples, 6 tasks, CSV export), best of 3, %ld cores\n", cores);
    printf("  full report: compute %.3f + tables %.3f + figures %.3f + page %.3f = %.3f s\n", best[1],
           best[2], best[3], best[4], best_sum);
    printf("  baseline without figures:  compute %.3f + tables %.3f + page %.3f = %.3f s\n", base[1],
           base[2], base[4], base_sum);
    printf("  ratio full/baseline %.1f; reading the drive before either: %.3f s from the drive log "
           "(SQLite), %.3f s from its 119 MB CSV export\n",
           best_sum / base_sum, sqlite_load, best[0]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_metrics: could not remove %s\n", dir);
}

int main(void)
{
    bench_metrics();
    bench_report();
    return 0;
}
