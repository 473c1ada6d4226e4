/* Benchmark of the static obstacles (sim_obstacles): what the physics node pays for
 * trees, rails and buildings having bodies. For shipped scenarios: the time to place
 * the world's objects and build their grid at start-up, and the car-against-obstacles
 * test per 1 kHz step (thread CPU time, the car put at random points 5 m right of a
 * random road's reference line, where the roadside objects stand), beside the
 * baseline, one step of the full model with the midpoint integrator on flat ground,
 * and the ratio (the share the test adds to a step). Target: under 10 %.
 *
 * Usage: bench_obstacles (scenarios and the vehicle file under $SIM_ROOT or the
 * working directory). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "sim_scenario.h"
#include "sim_scenario_objects.h"
#include "sim_vehicle_file.h"

#define N_TESTS 200000
#define N_STEPS 20000

static const char *root_path(const char *rel, char *buf, size_t size)
{
    const char *root = getenv("SIM_ROOT");
    snprintf(buf, size, "%s/%s", root ? root : ".", rel);
    return buf;
}

int main(void)
{
    char path[1024];
    sim_error err = {0};
    sim_vehicle_params p;
    if (sim_vehicle_params_load(root_path("vehicles/bmw-318i.json", path, sizeof path), &p, &err)) {
        fprintf(stderr, "bench_obstacles: %s\n", err.msg);
        return 1;
    }
    sim_ground_plane plane = {0, 0, 0, 1, 0};
    sim_vehicle_ground g = sim_ground_from_plane(&plane);
    sim_vehicle *v = malloc(sizeof *v);
    if (!v) return 1;
    sim_vehicle_start st = {0, 0, 0, 25, 3};
    if (sim_vehicle_init(v, &p, SIM_VEHICLE_FULL, SIM_INTEGRATOR_MIDPOINT, &g, &st, &err)) return 1;
    /* the baseline: full-model steps, cruising */
    sim_vehicle_controls c = {.throttle = 0.3, .automatic = true, .gear = 3};
    double t0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < N_STEPS; i++) sim_vehicle_step(v, &c, &g, NULL, 0, 1e-3);
    double step_us = (bench_clock(CLOCK_THREAD_CPUTIME_ID) - t0) / N_STEPS * 1e6;
    printf("%-22s %10s %8s %8s %12s %12s %7s\n", "scenario", "objects", "shapes", "grid", "start-up ms",
           "test us/step", "ratio");
    static const char *const files[] = {"scenarios/motorway.json", "scenarios/rural.json", "scenarios/town.json",
                                        "scenarios/town03-sumo.json"};
    double y0[SIM_VEHICLE_STATE_LEN];
    memcpy(y0, v->y, sizeof y0);
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        sim_scenario *sc;
        if (sim_scenario_load(root_path(files[f], path, sizeof path), &sc, NULL)) {
            fprintf(stderr, "bench_obstacles: %s does not load\n", path);
            return 1;
        }
        double a = bench_clock(CLOCK_THREAD_CPUTIME_ID);
        sim_object_list list = {0};
        sim_obstacles obs;
        if (sim_scenario_objects(sc, &list) < 0 || sim_scenario_light_posts(sc, &list) < 0 ||
            sim_scenario_obstacles(&list, &obs, &err))
            return 1;
        double startup_ms = (bench_clock(CLOCK_THREAD_CPUTIME_ID) - a) * 1e3;
        /* the places first, so that only the test is timed */
        double (*at)[2] = malloc(N_TESTS * sizeof *at);
        if (!at) return 1;
        uint64_t rs = 42;
        for (int i = 0; i < N_TESTS; i++) {
            int r = (int)(bench_urand(&rs) * sc->net.n_roads);
            sim_road_pose ps;
            sim_road_pose_at(&sc->net, r, bench_urand(&rs) * sc->net.roads[r].length, -5.0, &ps);
            at[i][0] = ps.x;
            at[i][1] = ps.y;
        }
        sim_obstacle_hit hits[8];
        long touched = 0;
        a = bench_clock(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < N_TESTS; i++) {
            v->y[0] = at[i][0];
            v->y[1] = at[i][1];
            touched += sim_vehicle_hit_obstacles(v, &obs, hits, 8);
            memcpy(v->y, y0, sizeof y0); /* undo the response */
        }
        double test_us = (bench_clock(CLOCK_THREAD_CPUTIME_ID) - a) / N_TESTS * 1e6;
        char grid[32];
        snprintf(grid, sizeof grid, "%dx%d", obs.nx, obs.ny);
        const char *name = strrchr(files[f], '/') + 1;
        printf("%-22s %10d %8d %8s %12.1f %12.3f %6.1f%%   (%ld touching)\n", name, list.n, obs.n, grid, startup_ms,
               test_us, 100 * test_us / step_us, touched);
        free(at);
        sim_obstacles_free(&obs);
        sim_object_list_free(&list);
        sim_scenario_free(sc);
    }
    printf("baseline: one full-model step (midpoint, 1 kHz, flat): %.2f us\n", step_us);
    free(v);
    return 0;
}
