/* Benchmark of the vehicle models: steps per second on one core of the full model with
 * each integrator and of the two light models, as a real-time factor at a 1 kHz step,
 * side by side with the baseline (the full model with Euler on the same ground) and
 * the ratio to it; beside each, the work per step in a figure that does not move with
 * the clock or with other programs sharing the core: hardware instructions per step
 * (perf_event_open, user space) where the machine counts them, else calibrated cycles
 * per step (the step's time over the time of one link of a dependent chain of 64-bit
 * multiply-adds, which takes 4 cycles on current x86-64 and ARM cores, measured in
 * the same run). The header line says which.
 * Targets: full model with midpoint at least 1000x real time on the heightfield.
 *
 * Each run drives the reference BMW 318i from rest for 30 simulated seconds (automatic
 * gearbox, full throttle, a slow weave of the steering updated at 250 Hz like
 * input.controls) on two grounds: a flat plane, and a heightfield (a seeded fractal
 * terrain of 513 x 513 points 2 m apart, 4 m from lowest to highest, evaluated as the
 * cubic B-spline surface of sim_terrain like the physics node does off the roads),
 * the best of seven repetitions, timed in thread CPU time.
 *
 * Usage: bench_vehicle [--only CASE] [--steps N] [--repeats N] [vehicle.json]
 * (default vehicles/bmw-318i.json under $SIM_ROOT or the working directory). --only
 * runs one case (its name as printed, e.g. "terrain full/midpoint"), for counting its
 * instructions under valgrind: the difference of two step counts cancels the set-up. */
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim_terrain.h"
#include "sim_vehicle.h"
#include "sim_vehicle_file.h"

#define DT 1e-3

static int steps = 30000, repeats = 7;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- work per step ---- */

static int perf_fd = -1;

/* Opens a user-space instruction counter of this thread; false where there is none
 * (no PMU in the virtual machine, perf_event_paranoid > 2). */
static bool counter_open(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof(a);
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    perf_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    return perf_fd >= 0;
}

static void counter_start(void)
{
    if (perf_fd >= 0) {
        ioctl(perf_fd, PERF_EVENT_IOC_RESET, 0);
        ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0);
    }
}

static double counter_stop(void)
{
    uint64_t n = 0;
    if (perf_fd >= 0) {
        ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        if (read(perf_fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
            n = 0;
    }
    return (double)n;
}

/* Seconds per link of a dependent multiply-add chain (4 cycles: imul 3 + add 1), best of
 * a few; the chain's result is returned through *sink so it is not optimised away. */
static double calibrate(uint64_t *sink)
{
    const long n = 20000000;
    double best = INFINITY;
    for (int r = 0; r < 3; r++) {
        uint64_t x = *sink | 1;
        double t0 = now();
        for (long i = 0; i < n; i++)
            x = x * 0x5851F42D4C957F2DULL + 1;
        double t = (now() - t0) / n;
        *sink += x;
        best = t < best ? t : best;
    }
    return best;
}

/* ---- grounds ---- */

static int terrain_sample(void *ctx, double x, double y, sim_ground_sample *out)
{
    sim_terrain_sample s;
    sim_terrain_eval(ctx, x, y, &s);
    out->height = s.z;
    out->normal[0] = s.n[0];
    out->normal[1] = s.n[1];
    out->normal[2] = s.n[2];
    out->friction = s.friction;
    out->roughness = 0.0;
    return 0;
}

static double terrain_height(void *ctx, double x, double y)
{
    return sim_terrain_height(ctx, x, y);
}

static int make_terrain(sim_terrain *t)
{
    sim_grid g;
    sim_error err = {0};
    if (sim_grid_fractal(&g, 513, 513, 7, 5, 64.0, 0.5, &err) != 0) {
        fprintf(stderr, "bench_vehicle: %s\n", err.msg);
        return -1;
    }
    for (size_t i = 0; i < (size_t)g.nx * (size_t)g.ny; i++)
        g.v[i] *= 4.0;
    if (sim_terrain_init(t, &g, 0.0, 0.0, 2.0, &err) != 0) {
        fprintf(stderr, "bench_vehicle: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* ---- runs ---- */

typedef struct result {
    double seconds;      /* best of the repetitions, for steps steps */
    double instructions; /* counted in that best run (0 without a counter) */
} result;

static result run(const sim_vehicle_params *p, sim_vehicle_model m, sim_integrator integ,
                  const sim_vehicle_ground *g, double x0, double y0, double heading, double *checksum)
{
    static sim_vehicle v;
    result best = {INFINITY, 0.0};
    for (int r = 0; r < repeats; r++) {
        sim_vehicle_start st = {x0, y0, heading, 0, 1};
        sim_error err = {0};
        if (sim_vehicle_init(&v, p, m, integ, g, &st, &err)) {
            fprintf(stderr, "bench_vehicle: %s\n", err.msg);
            exit(1);
        }
        sim_vehicle_controls c = {.throttle = 1.0, .gear = 1, .automatic = true};
        counter_start();
        double t0 = now();
        for (int i = 0; i < steps; i++) {
            if (i % 4 == 0) /* new controls at 250 Hz, the input node's rate */
                c.steer = 0.05 * sin(i * 1e-3);
            if (sim_vehicle_step(&v, &c, g, NULL, 0, DT) != 0) {
                fprintf(stderr, "bench_vehicle: step %d failed\n", i);
                exit(1);
            }
        }
        double t = now() - t0;
        double n = counter_stop();
        if (t < best.seconds)
            best = (result){t, n};
    }
    *checksum += v.y[0];
    return best;
}

int main(int argc, char **argv)
{
    char path[512];
    const char *root = getenv("SIM_ROOT"), *only = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
            steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else
            file = argv[i];
    }
    if (steps < 1 || repeats < 1) {
        fprintf(stderr, "bench_vehicle: --steps and --repeats: expected positive counts\n");
        return 2;
    }
    if (file)
        snprintf(path, sizeof(path), "%s", file);
    else
        snprintf(path, sizeof(path), "%s/vehicles/bmw-318i.json", root ? root : ".");
    sim_vehicle_params p;
    sim_error err = {0};
    if (sim_vehicle_params_load(path, &p, &err)) {
        fprintf(stderr, "bench_vehicle: %s\n", err.msg);
        return 1;
    }
    sim_terrain terrain;
    if (make_terrain(&terrain) != 0)
        return 1;
    sim_ground_plane plane = {0, 0, 0, 1.0, 0.0};
    sim_vehicle_ground grounds[2] = {sim_ground_from_plane(&plane), {terrain_sample, &terrain, terrain_height, 0.0}};
    grounds[1].max_slope = sim_terrain_max_slope(&terrain);
    const char *ground_names[2] = {"flat", "terrain"};
    struct {
        const char *name;
        sim_vehicle_model m;
        sim_integrator i;
    } cases[] = {
        {"full/euler (baseline)", SIM_VEHICLE_FULL, SIM_INTEGRATOR_EULER},
        {"full/midpoint", SIM_VEHICLE_FULL, SIM_INTEGRATOR_MIDPOINT},
        {"full/rk4", SIM_VEHICLE_FULL, SIM_INTEGRATOR_RK4},
        {"simple", SIM_VEHICLE_SIMPLE, SIM_INTEGRATOR_EULER},
        {"wall", SIM_VEHICLE_WALL, SIM_INTEGRATOR_EULER},
    };
    bool counted = counter_open();
    uint64_t sink = 1;
    double cal = counted ? 0.0 : calibrate(&sink);
    double checksum = 0.0;
    printf("%d steps of %.0f ms (%.0f s simulated), best of %d\n", steps, DT * 1e3, steps * DT, repeats);
    if (counted)
        printf("work per step: instructions (perf_event_open, user space)\n");
    else
        printf("work per step: calibrated cycles (no instruction counter here: step time / time of "
               "a 4-cycle multiply-add link, %.3f ns)\n", cal * 1e9);
    printf("%-30s %12s %12s %12s %12s\n", "ground model", "steps/s", "x real time", "vs baseline",
           counted ? "instr/step" : "cycles/step");
    for (int gi = 0; gi < 2; gi++) {
        double base = 0.0;
        for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            char name[64];
            snprintf(name, sizeof(name), "%s %s", ground_names[gi], cases[k].name);
            if (only && strncmp(name, only, strlen(only)) != 0)
                continue;
            /* On the heightfield the car starts near a corner heading across it, so
             * that it stays on the map for the whole run. */
            result r = run(&p, cases[k].m, cases[k].i, &grounds[gi], gi ? 40.0 : 0.0,
                           gi ? 40.0 : 0.0, gi ? M_PI / 4 : 0.0, &checksum);
            double sps = steps / r.seconds;
            if (k == 0)
                base = sps;
            double work = counted ? r.instructions / steps : r.seconds / steps / cal * 4.0;
            printf("%-30s %12.0f %12.0f %11.2fx %12.0f\n", name, sps, sps * DT,
                   base > 0.0 ? sps / base : 1.0, work);
        }
    }
    printf("(checksum %.3f %llu)\n", checksum, (unsigned long long)(sink & 1));
    sim_terrain_free(&terrain);
    return 0;
}
