/* Benchmark: the input node as a lockstep participant, against a do-nothing one.
 *
 * Lockstep runs go as fast as the slowest participant answers each sim.tick, so this
 * is what the input node costs a headless run. The benchmark plays the physics node:
 * per tick it sends vehicle.state and sim.tick through the real bin/dispatcher and
 * waits for input.controls and sim.ack. Subject: bin/input-node --driver script on
 * scenarios/lane-change.json (route following, speed control, shifting). Baseline: a
 * participant inside the benchmark that answers every tick at once with fixed
 * controls, so the dispatcher's hops cost the same on both sides. Prints ticks per
 * second and per-tick round trip (p50, p99), median of 3 runs each. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "test_support.h"

typedef struct result {
    double ticks_per_s, p50_us, p99_us;
} result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reads lines on c until one contains needle; false on timeout. */
static bool read_until(ts_conn *c, const char *needle, char *line, size_t size)
{
    while (ts_read_line(c, line, size, 5000) > 0)
        if (strstr(line, needle)) return true;
    return false;
}

/* One run of `ticks` lockstep ticks; echo is the in-benchmark participant or NULL
 * when the input node answers. */
static result run(ts_conn *phys, ts_conn *echo, int ticks)
{
    static char line[1 << 16];
    double *rt = malloc((size_t)ticks * sizeof *rt);
    double start = ts_now_ms();
    for (int n = 0; n < ticks; n++) {
        double t = n * 0.01, x = 1400 + 16.67 * t;
        char msg[512];
        double t0 = ts_now_ms();
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%d,\"t\":%.2f,\"speed\":16.67,"
                 "\"pos\":[%.3f,-1.75,0],\"heading\":0,\"yaw_rate\":0,\"gear\":3,\"rpm\":2800}\n"
                 "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%d,\"t\":%.2f,\"n\":%d,\"dt\":0.01,"
                 "\"run\":0,\"paused\":false}",
                 2 * n + 1, t, x, 2 * n + 2, t, n);
        if (!ts_send_line(phys, msg)) exit(1);
        if (echo) {
            if (!read_until(echo, "\"sim.tick\"", line, sizeof line)) exit(1);
            snprintf(msg, sizeof msg,
                     "{\"topic\":\"input.controls\",\"src\":\"echo\",\"seq\":%d,\"t\":%.2f,\"steer\":0,"
                     "\"steer_deg\":0,\"throttle\":0.3,\"brake\":0,\"clutch\":0,\"gear\":3}\n"
                     "{\"topic\":\"sim.ack\",\"src\":\"echo\",\"seq\":%d,\"t\":%.2f,\"n\":%d}",
                     2 * n + 1, t, 2 * n + 2, t, n);
            if (!ts_send_line(echo, msg)) exit(1);
        }
        if (!read_until(phys, "\"input.controls\"", line, sizeof line) ||
            !read_until(phys, "\"sim.ack\"", line, sizeof line)) {
            fprintf(stderr, "bench_input: no answer to tick %d\n", n);
            exit(1);
        }
        rt[n] = (ts_now_ms() - t0) * 1000.0;
    }
    result r = {.ticks_per_s = ticks / ((ts_now_ms() - start) / 1000.0)};
    qsort(rt, (size_t)ticks, sizeof *rt, cmp_double);
    r.p50_us = rt[ticks / 2];
    r.p99_us = rt[(int)(ticks * 0.99)];
    free(rt);
    return r;
}

static result median3(result *r)
{
    double v[3] = {r[0].ticks_per_s, r[1].ticks_per_s, r[2].ticks_per_s};
    qsort(v, 3, sizeof *v, cmp_double);
    for (int i = 0; i < 3; i++)
        if (r[i].ticks_per_s == v[1]) return r[i];
    return r[0];
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int ticks = (int)(2000 * (scale > 0 ? scale : 1.0));
    ts_dispatcher d;
    if (!ts_dispatcher_start(&d, NULL)) return 1;
    ts_conn *phys = ts_join(d.port, "physics", "[\"input.\",\"sim.ack\"]", NULL);
    if (!phys) return 1;
    result base[3], node[3];

    /* Baseline: the participant is this process. */
    ts_conn *echo = ts_join(d.port, "echo", "[\"sim.tick\"]", "\"lockstep\":true");
    if (!echo) return 1;
    for (int i = 0; i < 3; i++) base[i] = run(phys, echo, ticks);
    ts_close(echo);

    char bus[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    char scen[1024];
    snprintf(scen, sizeof scen, "%s", ts_root("scenarios/lane-change.json"));
    char *args[] = {"input-node", "--bus", bus, "--driver", "script", "--scenario", scen, "--start",
                    "sector2", "--lockstep", NULL};
    pid_t pid = ts_spawn(args, false);
    ts_sleep_ms(300); /* joined */
    for (int i = 0; i < 3; i++) node[i] = run(phys, NULL, ticks);
    ts_stop(pid, SIGTERM, 3000);
    ts_close(phys);
    ts_dispatcher_stop(&d);

    result b = median3(base), n = median3(node);
    printf("Lockstep round trips through the dispatcher, %d ticks per run, median of 3\n", ticks);
    printf("%-34s %12s %10s %10s\n", "participant", "ticks/s", "p50 us", "p99 us");
    printf("%-34s %12.0f %10.1f %10.1f\n", "do-nothing (baseline)", b.ticks_per_s, b.p50_us, b.p99_us);
    printf("%-34s %12.0f %10.1f %10.1f\n", "input-node --driver script", n.ticks_per_s, n.p50_us,
           n.p99_us);
    printf("%-34s %11.2fx %9.2fx %9.2fx\n", "ratio (node/baseline)", n.ticks_per_s / b.ticks_per_s,
           n.p50_us / b.p50_us, n.p99_us / b.p99_us);
    return 0;
}
