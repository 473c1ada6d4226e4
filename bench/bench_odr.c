/* Benchmark of the OpenDRIVE road model on CARLA's Town03 (../shared/opendrive/, 2.3 MB,
 * 279 roads, 34 junctions), each figure beside its baseline:
 *   load:   sim_xodr_load (parse, build the model, finish the roads, index, check the
 *           junctions) vs libxml2 parsing the same file alone;
 *   locate: (x, y) -> road, lane, s, t through the spatial index (sim_roadnet_locate)
 *           vs the brute-force search over every geometry (sim_roadnet_locate_brute), on
 *           points spread over the lanes of the whole town; also points anywhere in the
 *           town's box (a third off every road: the nearest road through the index).
 * Prints rates on one core and the ratios. Files are read from $SIM_ROOT (default "."). */
#include <libxml/parser.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_road.h"
#include "sim_xodr.h"

#include "bench_util.h"

static double now(void) { return bench_clock(CLOCK_THREAD_CPUTIME_ID); }

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { return bench_urand(&rng); }

static double rate(const sim_roadnet *net, const double *pts, int n, bool brute, int rounds, int *on)
{
    double t0 = now();
    *on = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < n; k++) {
            sim_road_loc loc;
            int rc = brute ? sim_roadnet_locate_brute(net, pts[2 * k], pts[2 * k + 1], &loc)
                           : sim_roadnet_locate(net, pts[2 * k], pts[2 * k + 1], &loc);
            *on += rc == SIM_OK && loc.on_road;
        }
    return (double)n * rounds / (now() - t0);
}

int main(void)
{
    const char *root = getenv("SIM_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/../shared/opendrive/Town03.xodr", root ? root : ".");
    /* Load, 10 times each. */
    const int loads = 10;
    sim_roadnet net = {0};
    sim_error err = {0};
    double t0 = now();
    for (int i = 0; i < loads; i++) {
        sim_roadnet_free(&net);
        if (sim_xodr_load(path, &net, NULL, &err)) {
            fprintf(stderr, "bench_odr: %s\n", err.msg);
            return 1;
        }
    }
    double t_load = (now() - t0) / loads;
    t0 = now();
    for (int i = 0; i < loads; i++) {
        xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
        if (!doc) return 1;
        xmlFreeDoc(doc);
    }
    double t_xml = (now() - t0) / loads;
    printf("town03 load: %.1f ms (libxml2 parse alone %.1f ms, ratio %.2f)\n", t_load * 1e3, t_xml * 1e3,
           t_load / t_xml);

    /* On-lane points: a random road, s and lane, across the lane. */
    enum { N = 20000 };
    double *pts = malloc(sizeof *pts * 2 * N), *any = malloc(sizeof *any * 2 * N);
    if (!pts || !any) return 1;
    for (int k = 0; k < N;) {
        int ri = (int)(urand() * net.n_roads);
        const sim_road *r = &net.roads[ri];
        double s = urand() * r->length, in, out;
        const sim_lane_section *ls = &r->sections[sim_road_section_at(r, s)];
        int nl = ls->n_left + ls->n_right;
        if (nl == 0) continue;
        int pick = (int)(urand() * nl), lane = pick < ls->n_left ? pick + 1 : -(pick - ls->n_left + 1);
        if (!sim_road_lane_borders(r, s, lane, &in, &out) || fabs(out - in) < 0.1) continue;
        sim_road_pose p;
        sim_road_pose_at(&net, ri, s, in + (0.05 + 0.9 * urand()) * (out - in), &p);
        pts[2 * k] = p.x, pts[2 * k + 1] = p.y;
        k++;
    }
    double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < N; k++) {
        box[0] = fmin(box[0], pts[2 * k]), box[1] = fmin(box[1], pts[2 * k + 1]);
        box[2] = fmax(box[2], pts[2 * k]), box[3] = fmax(box[3], pts[2 * k + 1]);
    }
    for (int k = 0; k < N; k++) {
        any[2 * k] = box[0] + urand() * (box[2] - box[0]);
        any[2 * k + 1] = box[1] + urand() * (box[3] - box[1]);
    }
    int on_i, on_b;
    double ri = rate(&net, pts, N, false, 20, &on_i), rb = rate(&net, pts, 2000, true, 1, &on_b);
    printf("town03 locate on lanes: indexed %.3g /s vs brute force %.3g /s (ratio %.0f); %d of %d on a lane\n", ri,
           rb, ri / rb, on_i / 20, N);
    double ai = rate(&net, any, N, false, 5, &on_i), ab = rate(&net, any, 2000, true, 1, &on_b);
    printf("town03 locate anywhere in the box: indexed %.3g /s vs brute force %.3g /s (ratio %.0f); %.0f %% on a lane\n",
           ai, ab, ai / ab, 100.0 * on_i / 5 / N);
    free(pts);
    free(any);
    sim_roadnet_free(&net);
    return 0;
}
