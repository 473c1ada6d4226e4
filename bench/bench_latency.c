/* Benchmark of the wheel-to-picture delay (docs/latency.md), side by side in one run:
 * `simctl latency` (a virtual wheel stepping past half lock, render-node offscreen at
 * --fps 60 pacing with the photodiode patch read back) with today's interpolating
 * renderer (--motion interpolate: the pose one state period behind, physics states on
 * the 100 Hz grid only) and with prediction (the default: early states, the pose
 * carried to the frame's presentation). Prints each one's step-to-patch median, p95
 * and p99, every frame's own p50/p95/p99 and the stage split, and the ratios
 * predict / interpolate. Needs SIM_BIN and SIM_ROOT (make bench sets them).
 * Argument: steps per run (default 30). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "test_support.h"

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static cJSON *run(const char *motion, int steps)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' latency scenarios/lane-change.json --json --steps %d --motion %s",
             ts_root("."), ts_bin("simctl"), steps, motion);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    static char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    pclose(p);
    return cJSON_Parse(out);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 30;
    if (steps < 1) steps = 30;
    static const char *const motions[2] = {"interpolate", "predict"};
    cJSON *r[2];
    for (int i = 0; i < 2; i++) r[i] = run(motions[i], steps);
    printf("wheel to picture, lane-change, quality low, 1280x720, %d steps each (llvmpipe offscreen, --fps 60)\n", steps);
    printf("%-24s %12s %12s %8s\n", "", "interpolate", "predict", "ratio");
    static const char *const rows[][2] = {{"patch median (ms)", "median_ms"}, {"patch p95 (ms)", "p95_ms"},
                                          {"patch p99 (ms)", "p99_ms"}};
    for (size_t k = 0; k < 3; k++) {
        double a = num(r[0], rows[k][1]), b = num(r[1], rows[k][1]);
        printf("%-24s %12.1f %12.1f %8.2f\n", rows[k][0], a, b, b / a);
    }
    static const char *const frows[][2] = {{"frames p50 (ms)", "p50_ms"}, {"frames p95 (ms)", "p95_ms"},
                                           {"frames p99 (ms)", "p99_ms"}, {"fps", "fps"}};
    for (size_t k = 0; k < 4; k++) {
        double a = num(cJSON_GetObjectItemCaseSensitive(r[0], "frames"), frows[k][1]);
        double b = num(cJSON_GetObjectItemCaseSensitive(r[1], "frames"), frows[k][1]);
        printf("%-24s %12.1f %12.1f %8.2f\n", frows[k][0], a, b, b / a);
    }
    static const char *const stages[] = {"device", "input", "step", "physics", "wait", "draw", "swap"};
    for (int k = 0; k < 7; k++) {
        double a = num(cJSON_GetObjectItemCaseSensitive(r[0], "stages_ms"), stages[k]);
        double b = num(cJSON_GetObjectItemCaseSensitive(r[1], "stages_ms"), stages[k]);
        printf("stage %-18s %12.2f %12.2f\n", stages[k], a, b);
    }
    printf("%-24s %12.0f %12.0f\n", "causality violations", num(r[0], "causality_violations"),
           num(r[1], "causality_violations"));
    printf("%-24s %12.0f %12.0f\n", "steps measured", num(r[0], "measured"), num(r[1], "measured"));
    int bad = !r[0] || !r[1];
    cJSON_Delete(r[0]);
    cJSON_Delete(r[1]);
    return bad;
}
