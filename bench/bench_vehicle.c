/* Benchmark of the vehicle models: steps per second on one core of the full model with
 * each integrator and of the two light models, as a real-time factor at a 1 kHz step,
 * side by side with the baseline (the full model with Euler) and the ratio to it.
 * Target: full model with midpoint at least 1000 x real time.
 *
 * Each run drives the reference BMW 318i from rest for 30 simulated seconds (automatic
 * gearbox, full throttle, a slow weave of the steering updated at 250 Hz like
 * input.controls) on a flat plane, the best of
 * seven repetitions, timed in thread CPU time (the build machines are shared, and CPU
 * time is what one core gives the model). Usage: bench_vehicle [vehicle.json] (default vehicles/bmw-318i.json
 * under $SIM_ROOT or the working directory). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim_vehicle.h"
#include "sim_vehicle_file.h"

#define DT 1e-3
#define STEPS 30000
#define REPEATS 7

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Seconds for STEPS steps, best of REPEATS; *checksum keeps the work observable. */
static double run(const sim_vehicle_params *p, sim_vehicle_model m, sim_integrator integ,
                  double *checksum)
{
    sim_ground_plane plane = {0, 0, 0, 1.0, 0.0};
    sim_vehicle_ground g = sim_ground_from_plane(&plane);
    static sim_vehicle v;
    double best = INFINITY;
    for (int r = 0; r < REPEATS; r++) {
        sim_vehicle_start st = {0, 0, 0, 0, 1};
        sim_error err = {0};
        if (sim_vehicle_init(&v, p, m, integ, &g, &st, &err)) {
            fprintf(stderr, "bench_vehicle: %s\n", err.msg);
            exit(1);
        }
        sim_vehicle_controls c = {.throttle = 1.0, .gear = 1, .automatic = true};
        double t0 = now();
        for (int i = 0; i < STEPS; i++) {
            if (i % 4 == 0) /* new controls at 250 Hz, the input node's rate */
                c.steer = 0.05 * sin(i * 1e-3);
            if (sim_vehicle_step(&v, &c, &g, NULL, 0, DT) != 0) {
                fprintf(stderr, "bench_vehicle: step %d failed\n", i);
                exit(1);
            }
        }
        double t = now() - t0;
        best = t < best ? t : best;
    }
    *checksum += v.y[0];
    return best;
}

int main(int argc, char **argv)
{
    char path[512];
    const char *root = getenv("SIM_ROOT");
    if (argc > 1)
        snprintf(path, sizeof(path), "%s", argv[1]);
    else
        snprintf(path, sizeof(path), "%s/vehicles/bmw-318i.json", root ? root : ".");
    sim_vehicle_params p;
    sim_error err = {0};
    if (sim_vehicle_params_load(path, &p, &err)) {
        fprintf(stderr, "bench_vehicle: %s\n", err.msg);
        return 1;
    }
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
    double checksum = 0.0, base = 0.0;
    printf("%d steps of %.0f ms (%.0f s simulated), best of %d\n", STEPS, DT * 1e3, STEPS * DT, REPEATS);
    printf("%-22s %14s %16s %12s\n", "model", "steps/s", "x real time", "vs baseline");
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        double t = run(&p, cases[k].m, cases[k].i, &checksum);
        double sps = STEPS / t;
        if (k == 0)
            base = sps;
        printf("%-22s %14.0f %16.0f %11.2fx\n", cases[k].name, sps, sps * DT, sps / base);
    }
    printf("(checksum %.3f)\n", checksum);
    return 0;
}
