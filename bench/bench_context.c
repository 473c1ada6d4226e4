/* Benchmark of the context server, each figure beside a baseline in the same run:
 * In-process figures are per second of CPU time on one core.
 *   poi.near:  1,000,000 POIs, the R*Tree query (sim_context_poi_near) vs a linear
 *              scan of the same points in memory, queries/s on one core;
 *   route:     A* over the route graphs of town, motorway and CARLA's Town03 vs plain Dijkstra (the same
 *              search without the heuristic), microseconds per route with polyline;
 *   round trip: request to reply at the client through the real dispatcher and
 *              context-server at 100 requests/s while physics, input and the server run
 *              a session at 100 Hz, vs an echo peer through the same dispatcher.
 * Usage: bench_context [N_POIS]. Scenario and executables from $SIM_ROOT / $SIM_BIN. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_context.h"
#include "sim_route_roads.h"
#include "sim_scenario.h"
#include "test_support.h"

static double now(void)
{
    return ts_now_ms() / 1000.0;
}

/* In-process rates count this thread's CPU time: the build machine is shared, and
 * time spent descheduled is not the code's. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

#define SIDE 100000.0 /* m: 1e6 POIs over 100 km x 100 km, 100 per km^2 */
#define RADIUS 500.0
#define LIMIT 10
static const char *const CATS[] = {"fuel", "restaurant", "parking", "hotel", "shop", "cafe", "pharmacy", "charging"};
#define N_CATS 8

/* Baseline: every point, distance and category, keeping the `limit` nearest. */
static int linear_near(const double *xy, const char *const *cats, int n, double x, double y, double r,
                       const char *cat, int limit, sim_context_hit *hits)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        double dx = xy[2 * i] - x, dy = xy[2 * i + 1] - y;
        if (dx > r || dx < -r || dy > r || dy < -r) continue;
        double d = sqrt(dx * dx + dy * dy);
        if (d > r || (cat && cats[i] != cat)) continue;
        if (count == limit && d >= hits[count - 1].distance) continue;
        int k = count < limit ? count++ : count - 1;
        while (k > 0 && hits[k - 1].distance > d) {
            hits[k] = hits[k - 1];
            k--;
        }
        hits[k] = (sim_context_hit){i + 1, xy[2 * i], xy[2 * i + 1], d};
    }
    return count;
}

static void bench_near(int n)
{
    double *xy = malloc(2 * (size_t)n * sizeof *xy);
    const char **cats = malloc((size_t)n * sizeof *cats);
    for (int i = 0; i < n; i++) {
        xy[2 * i] = round(SIDE * urand() * 100) / 100; /* the database keeps centimetres */
        xy[2 * i + 1] = round(SIDE * urand() * 100) / 100;
        cats[i] = CATS[i % N_CATS];
    }
    sim_context *c;
    sim_error err;
    double t0 = cpu();
    if (sim_context_open(":memory:", &c, &err) || sim_context_poi_insert_many(c, xy, n, cats, &err)) {
        fprintf(stderr, "bench_context: %s\n", err.msg);
        exit(1);
    }
    double build = cpu() - t0;
    enum { Q = 2000 };
    double qx[Q], qy[Q];
    for (int q = 0; q < Q; q++) {
        qx[q] = SIDE * urand();
        qy[q] = SIDE * urand();
    }
    sim_context_hit a[LIMIT], b[LIMIT];
    /* Both answer the same (a check, not the benchmark). */
    long found = 0;
    for (int q = 0; q < 200; q++) {
        int na, nb;
        const char *cat = CATS[q % N_CATS];
        sim_context_poi_near(c, qx[q], qy[q], RADIUS, cat, LIMIT, a, &na, &err);
        nb = linear_near(xy, cats, n, qx[q], qy[q], RADIUS, cat, LIMIT, b);
        if (na != nb) {
            fprintf(stderr, "bench_context: poi.near and the scan differ (%d vs %d)\n", na, nb);
            exit(1);
        }
        for (int k = 0; k < na; k++)
            if (a[k].rowid != b[k].rowid) {
                fprintf(stderr, "bench_context: poi.near and the scan differ at %d\n", k);
                exit(1);
            }
        found += na;
    }
    int reps = 0;
    t0 = cpu();
    double t;
    do {
        for (int q = 0; q < Q; q++) {
            int na;
            sim_context_poi_near(c, qx[q], qy[q], RADIUS, CATS[q % N_CATS], LIMIT, a, &na, &err);
        }
        reps++;
    } while ((t = cpu() - t0) < 2.0);
    double rate = reps * Q / t;
    int lin = 0;
    t0 = cpu();
    do {
        linear_near(xy, cats, n, qx[lin % Q], qy[lin % Q], RADIUS, CATS[lin % N_CATS], LIMIT, b);
        lin++;
    } while ((t = cpu() - t0) < 2.0);
    double lin_rate = lin / t;
    printf("poi.near %d POIs (r %.0f m, one of %d categories, limit %d, %.1f hits/query)\n", n, RADIUS, N_CATS, LIMIT,
           found / 200.0);
    printf("  R*Tree   %10.0f queries/s   linear scan %8.1f queries/s   ratio %.0f   (built in %.1f s)\n", rate, lin_rate,
           rate / lin_rate, build);
    sim_context_close(c);
    free(xy);
    free(cats);
}

static double route_us(const sim_route_map *m, const sim_route_end *from, const sim_route_end *to, int n,
                       bool heuristic, int *expanded)
{
    sim_route_pos a[2], b[2];
    int na = sim_route_map_positions(m, from, a), nb = sim_route_map_positions(m, to, b);
    sim_route r;
    double t0 = cpu();
    for (int i = 0; i < n; i++) {
        if (sim_route_find(&m->g, a, na, b, nb, heuristic, &r, NULL)) exit(1);
        *expanded = r.expanded;
        sim_route_map_polyline(m, &r, 2.0);
        sim_route_free(&r);
    }
    return (cpu() - t0) / n * 1e6;
}

static void bench_route(const char *file)
{
    sim_scenario *sc;
    sim_error err;
    if (sim_scenario_load_err(ts_root(file), &sc, &err)) {
        fprintf(stderr, "bench_context: %s\n", err.msg);
        exit(1);
    }
    sim_route_map m;
    if (sim_route_map_build(&m, &sc->net, &err)) exit(1);
    /* the longest trip: from the first start point to the farthest POI, or (a file of
     * roads only) between the two graph nodes farthest apart */
    sim_route_end from = {0, 0, NAN}, to = {0, 0, NAN};
    double far = -1;
    if (sc->n_starts && sc->n_pois) {
        from = (sim_route_end){sc->starts[0].x, sc->starts[0].y, sc->starts[0].heading};
        for (int i = 0; i < sc->n_pois; i++) {
            double d = hypot(sc->pois[i].x - from.x, sc->pois[i].y - from.y);
            if (d > far) {
                far = d;
                to.x = sc->pois[i].x;
                to.y = sc->pois[i].y;
            }
        }
    } else {
        for (int a = 0; a < m.g.n_nodes; a++)
            for (int b = 0; b < m.g.n_nodes; b++) {
                const sim_route_node *na = &m.g.nodes[a], *nb = &m.g.nodes[b];
                double d = hypot(na->x0 - nb->x0, na->y0 - nb->y0);
                if (d > far && na->junction < 0 && nb->junction < 0) {
                    far = d;
                    from = (sim_route_end){na->x0, na->y0, na->h0};
                    to = (sim_route_end){nb->x0, nb->y0, NAN};
                }
            }
    }
    int ea, ed;
    double astar = route_us(&m, &from, &to, 2000, true, &ea);
    double dijk = route_us(&m, &from, &to, 2000, false, &ed);
    sim_route r;
    sim_route_map_route(&m, &from, &to, 2.0, &r, &err);
    printf("route %s: %d graph nodes, %.0f m, %d manoeuvres\n", file, m.g.n_nodes, r.length, r.n_mans);
    printf("  A*      %8.1f us/route (%d nodes expanded)   Dijkstra %8.1f us/route (%d expanded)   ratio %.2f\n", astar,
           ea, dijk, ed, dijk / astar);
    sim_route_free(&r);
    sim_route_map_free(&m);
    sim_scenario_free(sc);
}

/* ---- round trip ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Requests every 10 ms for n requests; each waits for its reply. Latencies in ms. */
static void ping(ts_conn *c, const char *topic, const char *body, const char *reply_topic, int n, double *lat)
{
    char line[4096], buf[70000];
    double next = now();
    for (int i = 0; i < n; i++) {
        while (now() < next) usleep(200);
        next += 0.010;
        snprintf(line, sizeof line, "{\"topic\":\"%s\",\"src\":\"bench\",\"seq\":%d,\"id\":%d,%s}", topic, i + 1, i, body);
        double t0 = now();
        if (!ts_send_line(c, line)) exit(1);
        for (;;) {
            if (ts_read_line(c, buf, sizeof buf, 5000) <= 0) {
                fprintf(stderr, "bench_context: no reply to %s %d\n", topic, i);
                exit(1);
            }
            char want[64];
            snprintf(want, sizeof want, "\"id\":%d,", i);
            if (strstr(buf, reply_topic) && strstr(buf, want)) break;
        }
        lat[i] = (now() - t0) * 1e3;
    }
    qsort(lat, (size_t)n, sizeof *lat, cmp_double);
}

/* The echo peer: what any module answering over the bus costs, without the server. */
static pid_t start_echo(int port)
{
    pid_t pid = fork();
    if (pid) return pid;
    ts_conn *c = ts_join(port, "echo", "[\"bench.ping\"]", NULL);
    char buf[4096];
    for (int seq = 1; c; seq++) {
        int n = ts_read_line(c, buf, sizeof buf, 60000);
        if (n <= 0) break;
        char *id = strstr(buf, "\"id\":");
        char out[256];
        snprintf(out, sizeof out, "{\"topic\":\"bench.pong\",\"src\":\"echo\",\"seq\":%d,\"t\":0,\"id\":%d,\"ok\":true}", seq,
                 id ? atoi(id + 5) : -1);
        ts_send_line(c, out);
    }
    _exit(0);
}

static void bench_round_trip(void)
{
    ts_dispatcher d;
    if (!ts_dispatcher_start(&d, NULL)) exit(1);
    char bus[32], scen[1024], db[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(scen, sizeof scen, "%s", ts_root("scenarios/town.json"));
    snprintf(db, sizeof db, "/tmp/bench_context_%d.db", (int)getpid());
    char *cs[] = {"context-server", "--scenario", scen, "--db", db, "--bus", bus, NULL};
    char *in[] = {"input-node", "--driver", "script", "--scenario", scen, "--bus", bus, NULL};
    char *ph[] = {"physics-node", "--scenario", scen, "--vehicle", (char *)ts_root("vehicles/bmw-318i.json"), "--bus",
                  bus, NULL};
    pid_t p_cs = ts_spawn(cs, false), p_in = ts_spawn(in, false), p_ph = ts_spawn(ph, false);
    pid_t p_echo = start_echo(d.port);
    ts_conn *c = ts_join(d.port, "bench", "[\"context.reply\",\"bench.pong\",\"vehicle.state\"]", NULL);
    /* the session is running once vehicle.state flows; then only replies matter */
    cJSON *st = ts_expect_topic(c, "vehicle.state", 10000, NULL, 0);
    if (!st) exit(1);
    cJSON_Delete(st);
    ts_close(c);
    c = ts_join(d.port, "bench", "[\"context.reply\",\"bench.pong\"]", NULL);
    usleep(300000); /* the context server joins (its first reply below would wait anyway) */
    enum { N = 1000 };
    static double ctx[N], echo[N];
    ping(c, "context.request", "\"op\":\"poi.near\",\"category\":\"fuel\",\"limit\":1", "context.reply", N, ctx);
    ping(c, "bench.ping", "\"x\":1", "bench.pong", N, echo);
    printf("bus round trip at 100 requests/s during a 100 Hz session (%d requests, ms)\n", N);
    printf("                      p50      p99    p99.9      max\n");
    printf("  poi.near (ego)  %8.3f %8.3f %8.3f %8.3f\n", ctx[N / 2], ctx[N * 99 / 100], ctx[N * 999 / 1000], ctx[N - 1]);
    printf("  echo peer       %8.3f %8.3f %8.3f %8.3f\n", echo[N / 2], echo[N * 99 / 100], echo[N * 999 / 1000], echo[N - 1]);
    printf("  ratio p99 %.2f\n", ctx[N * 99 / 100] / echo[N * 99 / 100]);
    ts_close(c);
    kill(p_echo, SIGTERM);
    waitpid(p_echo, NULL, 0);
    ts_stop(p_ph, SIGTERM, 5000);
    ts_stop(p_in, SIGTERM, 5000);
    ts_stop(p_cs, SIGTERM, 5000);
    ts_dispatcher_stop(&d);
    sim_context_remove_files(db, NULL);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (n < 1000) n = 1000;
    bench_near(n);
    bench_route("scenarios/town.json");
    bench_route("scenarios/motorway.json");
    bench_route("../shared/opendrive/Town03.xodr");
    bench_round_trip();
    return 0;
}
