/* Benchmark of motion cueing: one step of motion-node's chain (sim_motion_step on the
 * hexapod of config/motion/hexapod.json: washout, fade, limiter with its inverse
 * kinematics, and the forward kinematics when an actuator is held back) against one
 * physics step in the same run (the reference BMW 318i, full model, midpoint, 1 ms,
 * on a flat plane, as physics-node steps it), both timed in thread CPU time, best of
 * seven. The car's input to the cueing cycles through a 0.8 g stop and a lane change
 * (4 m/s^2 each way), so the limiter acts in some steps; one 10.5 s cycle of it is
 * made before the clock runs (the cueing is timed, not the input's sines). Goal (issue 44): cueing per
 * step <= 0.1x a physics step. Also per 10 ms of driving: one cueing step (100 Hz)
 * against ten physics steps (1 kHz).
 *
 * Usage: bench_motion [--steps N] (default 100000). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "sim_file.h"
#include "sim_motion.h"
#include "sim_vehicle.h"
#include "sim_vehicle_file.h"

#define REPEATS 7

static const char *root_path(char *buf, size_t n, const char *rel)
{
    const char *root = getenv("SIM_ROOT");
    snprintf(buf, n, "%s/%s", root ? root : ".", rel);
    return buf;
}

/* The car's motion at the head for step i (10 ms steps): 3 s standing, 3 s braking at
 * 0.8 g, 2 s standing, a 2.5 s lane change, over again. */
static void input_at(int i, sim_motion_input *in)
{
    double t = fmod(i * 0.01, 10.5);
    memset(in, 0, sizeof *in);
    in->f[2] = SIM_MOTION_G;
    if (t >= 3 && t < 6) in->f[0] = -0.8 * SIM_MOTION_G;
    if (t >= 8) {
        double s = sin(2 * M_PI * (t - 8) / 2.5);
        in->f[1] = 4 * s;
        in->w[2] = 0.25 * s;
    }
}

int main(int argc, char **argv)
{
    int steps = 100000;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--steps") == 0) steps = atoi(argv[++i]);
    if (steps < 100) {
        fprintf(stderr, "bench_motion: --steps: at least 100\n");
        return 2;
    }
    char path[512], *text;
    size_t len;
    sim_error err = {0};
    sim_motion_platform pf;
    if (sim_file_read(root_path(path, sizeof path, "config/motion/hexapod.json"), &text, &len, &err) ||
        sim_motion_platform_parse(text, len, path, &pf, &err)) {
        fprintf(stderr, "bench_motion: %s\n", err.msg);
        return 1;
    }
    free(text);
    sim_vehicle_params p;
    if (sim_vehicle_params_load(root_path(path, sizeof path, "vehicles/bmw-318i.json"), &p, &err)) {
        fprintf(stderr, "bench_motion: %s\n", err.msg);
        return 1;
    }
    sim_ground_plane plane = {0, 0, 0, 1.0, 0.0};
    sim_vehicle_ground g = sim_ground_from_plane(&plane);

    /* the car's input, one cycle of it, made before the clock runs: the cueing is timed,
     * not the sines of the made-up drive */
    enum { CYCLE = 1050 };
    static sim_motion_input inputs[CYCLE];
    for (int i = 0; i < CYCLE; i++) input_at(i, &inputs[i]);
    double best_motion = INFINITY, best_car = INFINITY, sink = 0;
    unsigned limited = 0;
    static sim_motion m;
    static sim_vehicle v;
    for (int r = 0; r < REPEATS; r++) {
        if (sim_motion_init(&m, &pf, 0.01, &err)) {
            fprintf(stderr, "bench_motion: %s\n", err.msg);
            return 1;
        }
        sim_motion_fade(&m, true);
        limited = 0;
        double t0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0, k = 0; i < steps; i++, k = k + 1 == CYCLE ? 0 : k + 1) {
            sim_motion_out o;
            sim_motion_step(&m, &inputs[k], &o);
            limited += o.limits != 0;
            sink += o.len[0];
        }
        double t = bench_clock(CLOCK_THREAD_CPUTIME_ID) - t0;
        if (t < best_motion) best_motion = t;

        sim_vehicle_start st = {0, 0, 0, 0, 1};
        if (sim_vehicle_init(&v, &p, SIM_VEHICLE_FULL, SIM_INTEGRATOR_MIDPOINT, &g, &st, &err)) {
            fprintf(stderr, "bench_motion: %s\n", err.msg);
            return 1;
        }
        sim_vehicle_controls c = {.throttle = 1.0, .gear = 1, .automatic = true};
        t0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < steps; i++) {
            if (i % 4 == 0) c.steer = 0.05 * sin(i * 1e-3);
            if (sim_vehicle_step(&v, &c, &g, NULL, 0, 1e-3)) {
                fprintf(stderr, "bench_motion: physics step %d failed\n", i);
                return 1;
            }
        }
        t = bench_clock(CLOCK_THREAD_CPUTIME_ID) - t0;
        if (t < best_car) best_car = t;
        sink += v.y[0];
    }
    double us_m = best_motion / steps * 1e6, us_c = best_car / steps * 1e6;
    printf("%d steps each, best of %d, thread CPU time (checksum %.3g)\n", steps, REPEATS, sink);
    printf("%-44s %10s %10s\n", "case", "us/step", "ratio");
    printf("%-44s %10.3f %10s\n", "physics: full/midpoint 1 ms, flat (baseline)", us_c, "1");
    printf("%-44s %10.3f %10.3f\n", "cueing: washout + limiter + IK, hexapod", us_m, us_m / us_c);
    printf("  the limiter held an actuator back in %.1f %% of the steps\n", 100.0 * limited / steps);
    printf("per 10 ms of driving: cueing 1 step %.3f us, physics 10 steps %.3f us: ratio %.4f (goal per step <= 0.1: %s)\n",
           us_m, 10 * us_c, us_m / (10 * us_c), us_m / us_c <= 0.1 ? "met" : "NOT met");
    return 0;
}
