/* Benchmark of the world model's hot queries, each beside a baseline:
 *   terrain: B-spline height + analytic normal (sim_terrain_eval) vs bilinear
 *            interpolation with its (piecewise constant) gradient normal;
 *   roads:   indexed (x, y) -> road, s, d, lane (sim_roadnet_locate) vs the
 *            brute-force search over every road piece (sim_roadnet_locate_brute);
 *   ground:  what a wheel touches (sim_scenario_ground: road surface or terrain) at
 *            points near the rural road, half of them off it, vs the bare terrain.
 * Prints rates per second on one core and the ratio subject / baseline. Scenario
 * files are read from $SIM_ROOT (default "."). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_scenario.h"
#include "sim_terrain.h"

#include "bench_util.h"

static double now(void) { return bench_clock(CLOCK_MONOTONIC); }

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { return bench_urand(&rng); }

/* Baseline: bilinear height and the normal of the bilinear patch. */
static void bilinear_eval(const sim_terrain *t, double x, double y, sim_terrain_sample *out)
{
    const sim_grid *g = &t->height;
    double u = (x - t->origin_x) * t->inv_spacing, v = (y - t->origin_y) * t->inv_spacing;
    u = fmin(fmax(u, 0.0), g->nx - 1.000001);
    v = fmin(fmax(v, 0.0), g->ny - 1.000001);
    int i = (int)u, j = (int)v;
    double fu = u - i, fv = v - j;
    const double *p = g->v + (size_t)j * g->nx + i;
    double a = p[0], b = p[1], c = p[g->nx], d = p[g->nx + 1];
    out->z = a + fu * (b - a) + fv * (c - a) + fu * fv * (a - b - c + d);
    out->dzdx = ((b - a) + fv * (a - b - c + d)) * t->inv_spacing;
    out->dzdy = ((c - a) + fu * (a - b - c + d)) * t->inv_spacing;
    double inv = 1.0 / sqrt(1.0 + out->dzdx * out->dzdx + out->dzdy * out->dzdy);
    out->n[0] = -out->dzdx * inv;
    out->n[1] = -out->dzdy * inv;
    out->n[2] = inv;
}

static void bench_terrain(void)
{
    sim_grid g;
    if (sim_grid_fractal(&g, 1025, 1025, 1, 6, 64, 0.5, NULL)) exit(1);
    sim_terrain t;
    if (sim_terrain_init(&t, &g, 0, 0, 2.0, NULL)) exit(1);
    enum { N = 1 << 20, REPS = 8 };
    double *pts = malloc(sizeof(double) * 2 * N);
    /* Wheel contacts move a little between calls: random walks, not random jumps. */
    double x = 1000, y = 1000;
    for (int k = 0; k < N; k++) {
        x = fmin(fmax(x + (urand() - 0.5) * 2.0, 0), 2048);
        y = fmin(fmax(y + (urand() - 0.5) * 2.0, 0), 2048);
        pts[2 * k] = x, pts[2 * k + 1] = y;
    }
    double sum = 0, rate[2];
    for (int which = 0; which < 2; which++) {
        double t0 = now();
        for (int r = 0; r < REPS; r++)
            for (int k = 0; k < N; k++) {
                sim_terrain_sample s;
                if (which == 0) sim_terrain_eval(&t, pts[2 * k], pts[2 * k + 1], &s);
                else bilinear_eval(&t, pts[2 * k], pts[2 * k + 1], &s);
                sum += s.z + s.n[0];
            }
        rate[which] = (double)N * REPS / (now() - t0);
    }
    printf("terrain height+normal   B-spline %8.2f M/s   bilinear baseline %8.2f M/s   ratio %.2f"
           "   (1025x1025 map, checksum %.3g)\n", rate[0] / 1e6, rate[1] / 1e6, rate[0] / rate[1], sum);
    free(pts);
    sim_terrain_free(&t);
}

static void bench_roads(const char *root, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenarios/%s", root, file);
    sim_diag d = {0};
    sim_scenario *sc;
    if (sim_scenario_load(path, &sc, &d)) {
        for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
        exit(1);
    }
    sim_diag_free(&d);
    enum { N = 1 << 18 };
    double *pts = malloc(sizeof(double) * 2 * N);
    for (int k = 0; k < N; k++) {
        int r = (int)(urand() * sc->net.n_roads);
        const sim_road *rd = &sc->net.roads[r];
        double s = urand() * rd->length;
        double dd = -rd->right_width + urand() * (rd->left_width + rd->right_width);
        sim_road_pose p;
        sim_road_pose_at(&sc->net, r, s, dd, &p);
        pts[2 * k] = p.x, pts[2 * k + 1] = p.y;
    }
    double sum = 0, rate[2];
    int n_brute = N / 64;
    for (int which = 0; which < 2; which++) {
        int n = which == 0 ? N : n_brute;
        double t0 = now();
        for (int k = 0; k < n; k++) {
            sim_road_loc loc;
            if (which == 0) sim_roadnet_locate(&sc->net, pts[2 * k], pts[2 * k + 1], &loc);
            else sim_roadnet_locate_brute(&sc->net, pts[2 * k], pts[2 * k + 1], &loc);
            sum += loc.s + loc.d;
        }
        rate[which] = n / (now() - t0);
    }
    printf("road projection %-10s indexed %8.3f M/s   brute-force baseline %8.3f M/s   ratio %.1f"
           "   (%d roads, on-road points, checksum %.3g)\n", file, rate[0] / 1e6, rate[1] / 1e6,
           rate[0] / rate[1], sc->net.n_roads, sum);
    free(pts);
    sim_scenario_free(sc);
}

static void bench_ground(const char *root)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenarios/rural.json", root);
    sim_diag d = {0};
    sim_scenario *sc;
    if (sim_scenario_load(path, &sc, &d)) exit(1);
    enum { N = 1 << 18 };
    double *pts = malloc(sizeof(double) * 2 * N);
    const sim_road *rd = &sc->net.roads[0];
    for (int k = 0; k < N; k++) {
        sim_road_pose p; /* within 2 x the road's half width: about half on it */
        sim_road_pose_at(&sc->net, 0, urand() * rd->length, (urand() - 0.5) * 4 * rd->left_width, &p);
        pts[2 * k] = p.x, pts[2 * k + 1] = p.y;
    }
    double sum = 0, rate[2];
    int on = 0;
    for (int which = 0; which < 2; which++) {
        double t0 = now();
        for (int k = 0; k < N; k++) {
            if (which == 0) {
                sim_ground g;
                sim_scenario_ground(sc, pts[2 * k], pts[2 * k + 1], &g);
                sum += g.z + g.friction;
                on += g.on_road;
            } else {
                sim_terrain_sample smp;
                sim_terrain_eval(sc->terrain, pts[2 * k], pts[2 * k + 1], &smp);
                sum += smp.z + smp.friction;
            }
        }
        rate[which] = N / (now() - t0);
    }
    printf("ground contact rural    road+terrain %6.2f M/s   terrain-only baseline %8.2f M/s   ratio %.2f"
           "   (%.0f %% on the road, checksum %.3g)\n", rate[0] / 1e6, rate[1] / 1e6, rate[0] / rate[1],
           100.0 * on / N, sum);
    free(pts);
    sim_scenario_free(sc);
}

int main(void)
{
    const char *root = getenv("SIM_ROOT");
    if (!root) root = ".";
    bench_terrain();
    bench_roads(root, "motorway.json");
    bench_roads(root, "town.json");
    bench_roads(root, "rural.json");
    bench_ground(root);
    return 0;
}
