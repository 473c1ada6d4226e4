/* Benchmark of the traffic core (common/traffic): 10,000 agents on a 3-lane ring road
 * stepped at 100 Hz, finding their neighbours through the per-lane sorted index,
 * beside the same world finding them by testing every vehicle (the all-pairs
 * baseline, which must give the same traffic); and 100,000 agents at 10 Hz. Prints
 * agent-updates per second on one core, the real-time factor, the ratio and the
 * memory per agent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_traffic.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* n agents spread evenly over a 3-lane ring with spacing m between vehicles of a lane,
 * desired speeds 25..35 m/s so that they catch up, overtake and return. */
static void populate(sim_traffic *t, const sim_lanegraph *g, int n, double spacing)
{
    for (int i = 0; i < n; i++) {
        int lane = i % 3;
        double s = (i / 3) * spacing + lane * spacing / 3;
        double v = 25.0 + 10.0 * ((i * 7919) % 101) / 100.0;
        sim_traffic_spec sp = {.model = i % 10 == 0 ? 2 : 0, .lane = lane, .s = s, .speed = v};
        sp.b = (sim_traffic_behaviour){.desired_speed = v, .headway = 1.5, .max_accel = 1.5, .max_decel = 3.0,
                                       .min_gap = 2.0, .politeness = 0.3, .lane_changes = true};
        if (sim_traffic_add_agent(t, &sp, false, NULL) < 0) exit(1);
    }
    (void)g;
}

static int world(sim_traffic *t, sim_lanegraph *g, int n, bool all_pairs)
{
    const double spacing = 45.0;
    double radius = n / 3.0 * spacing / (2 * M_PI);
    sim_error err = {0};
    if (sim_lanegraph_ring(g, radius, 3, 3.75, 36.0, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    sim_traffic_params p;
    sim_traffic_params_default(&p);
    p.max_agents = n;
    p.all_pairs = all_pairs;
    if (sim_traffic_init(t, g, &p, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    populate(t, g, n, spacing);
    return 0;
}

/* Steps and times; returns agent-updates per second. */
static double run(sim_traffic *t, int steps, double dt)
{
    double t0 = now();
    for (int k = 0; k < steps; k++) sim_traffic_step(t, dt);
    double el = now() - t0;
    return (double)t->n_active * steps / el;
}

int main(void)
{
    sim_lanegraph g, gb;
    sim_traffic t, b;
    const int n = 10000;
    if (world(&t, &g, n, false) || world(&b, &gb, n, true)) return 1;
    /* Same traffic either way: a few steps of both, compared agent by agent. */
    const int check = 5;
    double rate_base = run(&b, check, 0.01);
    run(&t, check, 0.01);
    bool same = memcmp(t.agents, b.agents, (size_t)n * sizeof *t.agents) == 0;
    double rate = run(&t, 1000, 0.01);
    int lane_changes = 0;
    for (int i = 0; i < n; i++) lane_changes += t.agents[i].lane != i % 3;
    printf("traffic 10000 agents, 3-lane ring, 100 Hz: sorted index %.3g agent-updates/s (%.2fx real time), "
           "all pairs %.3g agent-updates/s, ratio %.0f; same traffic both ways: %s; %d agents in another lane "
           "after 10 s\n",
           rate, rate / (n * 100.0), rate_base, rate / rate_base, same ? "yes" : "NO", lane_changes);
    size_t per_agent = sizeof(sim_traffic_agent) + 2 * 2 * sizeof(sim_tidx) + sizeof(uint32_t);
    printf("traffic memory per agent: %zu bytes (agent %zu, 2 index entries + scratch %zu, stamp %zu); "
           "lane graph %.1f MB for the %.0f km ring\n",
           per_agent, sizeof(sim_traffic_agent), 4 * sizeof(sim_tidx), sizeof(uint32_t),
           g.n_pts * (4 * sizeof(double) + sizeof(float)) / 1e6, g.lanes[0].length / 1000);
    sim_traffic_free(&t);
    sim_traffic_free(&b);
    sim_lanegraph_free(&g);
    sim_lanegraph_free(&gb);

    const int big = 100000;
    if (world(&t, &g, big, false)) return 1;
    double rate_big = run(&t, 100, 0.1);
    printf("traffic 100000 agents, 3-lane ring, 10 Hz: %.3g agent-updates/s (%.2fx real time)\n", rate_big,
           rate_big / (big * 10.0));
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
    return same ? 0 : 1;
}
