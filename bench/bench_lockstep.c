/* Benchmark: lockstep ticks per second of a session with one extra participant.
 *
 * A real session on loopback: bin/dispatcher, bin/physics-node --lockstep (motorway
 * scenario, full model) and bin/input-node with the scripted driver in lockstep, plus
 * one more lockstep participant that answers every sim.tick with a state message and
 * its sim.ack:
 *   - none          (the session alone, for scale)
 *   - C client      (common/protocol/sim_bus, in a forked child)
 *   - Python client (bench/participant_simbus.py: simbus.Bus, state and ack in one write)
 *   - naive Python  (clients/python/examples/naive_lockstep.py: a plain socket, two
 *                    sendall per tick, no socket options)
 * Each does the same work: it subscribes to sim.tick and answers with a small state
 * message and the ack. The benchmark watches sim.tick and times simulated seconds
 * 1..UNTIL (100 ticks per simulated second); median of REPS sessions each, the kinds
 * taking turns so that the load of a shared machine falls on all of them alike.
 * Usage: bench_lockstep [UNTIL]. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_bus.h"
#include "test_support.h"

#define REPS 5
#define START_T 1.0

typedef enum { P_NONE, P_C, P_PYTHON, P_NAIVE, P_KINDS } kind;
static const char *const kind_label[P_KINDS] = {"none (session alone)", "C client (sim_bus)",
                                                "Python client (simbus)", "naive Python"};
static const char *const kind_name[P_KINDS] = {NULL, "cpart", "pyclient", "naive"};

/* ---------- the C participant ---------- */

typedef struct cpart {
    double until;
    uv_loop_t *loop;
} cpart;

static void cpart_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line,
                          size_t len, void *user)
{
    cpart *p = user;
    if (strcmp(topic, "sim.tick") != 0) return;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(msg, "n");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    if (!cJSON_IsNumber(n) || !cJSON_IsNumber(t)) return;
    cJSON *body = cJSON_CreateObject();
    cJSON_AddNumberToObject(body, "n", n->valuedouble);
    sim_bus_publish(bus, "cpart.state", t->valuedouble, body);
    sim_bus_publish(bus, "sim.ack", t->valuedouble, body);
    cJSON_Delete(body);
    if (t->valuedouble >= p->until - 1e-9) sim_bus_close(bus);
}

static pid_t spawn_c_participant(int port, double until)
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    static const char *const subs[] = {"sim.tick"};
    cpart p = {.until = until, .loop = uv_default_loop()};
    sim_bus_options o = {.name = "cpart", .port = port, .subscribe = subs, .n_subscribe = 1,
                         .lockstep = true, .on_message = cpart_message, .user = &p};
    sim_bus *bus;
    sim_error err;
    if (sim_bus_open(p.loop, &o, &bus, &err) != SIM_OK) {
        fprintf(stderr, "bench_lockstep: %s\n", err.msg);
        _exit(1);
    }
    uv_run(p.loop, UV_RUN_DEFAULT); /* ends once the bus has closed after `until` */
    _exit(0);
}

static pid_t spawn_python(const char *script, char *const args[])
{
    char *argv[16] = {"python3", (char *)ts_root(script)};
    int n = 2;
    for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* ---------- one session ---------- */

static double num_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

/* Ticks per second over simulated seconds START_T..until; < 0 on failure. */
static double run_session(kind k, double until)
{
    ts_dispatcher d;
    if (!ts_dispatcher_start(&d, NULL)) return -1;
    char bus[32], wait_for[64], until_s[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(wait_for, sizeof wait_for, "input,bench%s%s", kind_name[k] ? "," : "", kind_name[k] ? kind_name[k] : "");
    snprintf(until_s, sizeof until_s, "%g", until);
    /* The benchmark only watches (not in lockstep); physics waits for it to join. A
     * sim.tick it is too slow for may be replaced by a newer one: it counts n, not lines. */
    ts_conn *w = ts_join(d.port, "bench", "[\"sim.tick\"]", NULL);
    const char *scen = ts_root("scenarios/motorway.json");
    char *phys[] = {"physics-node", "--bus", bus, "--lockstep", "--scenario", (char *)scen, "--wait-for", wait_for, NULL};
    char *inp[] = {"input-node", "--bus", bus, "--driver", "script", "--lockstep", "--scenario", (char *)scen, NULL};
    pid_t pp = ts_spawn(phys, false), ip = ts_spawn(inp, false), xp = 0;
    if (k == P_C) xp = spawn_c_participant(d.port, until);
    if (k == P_PYTHON) xp = spawn_python("bench/participant_simbus.py", (char *[]){bus, until_s, NULL});
    if (k == P_NAIVE) xp = spawn_python("clients/python/examples/naive_lockstep.py", (char *[]){bus, until_s, NULL});

    double t0 = 0, n0 = 0, rate = -1;
    char line[4096];
    while (w) {
        int len = ts_read_line(w, line, sizeof line, 30000);
        if (len <= 0) break;
        if (!strstr(line, "\"topic\":\"sim.tick\"")) continue;
        double n = num_after(line, "\"n\":"), t = num_after(line, "\"t\":");
        if (t0 == 0 && t >= START_T - 1e-9) {
            t0 = ts_now_ms();
            n0 = n;
        } else if (t0 > 0 && t >= until - 1e-9) {
            rate = (n - n0) / ((ts_now_ms() - t0) / 1000.0);
            break;
        }
    }
    if (w) ts_close(w);
    if (xp > 0) ts_stop(xp, SIGTERM, 5000);
    ts_stop(ip, SIGTERM, 5000);
    ts_stop(pp, SIGTERM, 5000);
    ts_dispatcher_stop(&d);
    return rate;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    double until = argc > 1 ? atof(argv[1]) : 30.0;
    if (until <= START_T + 1) {
        fprintf(stderr, "usage: bench_lockstep [UNTIL seconds > %g]\n", START_T + 1);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0); /* forked children must not inherit unwritten output */
    double r[P_KINDS][REPS], med[P_KINDS];
    printf("Lockstep session (physics full model, scripted input, motorway), ticks/s over t=%g..%g s, median of %d\n",
           START_T, until, REPS);
    for (int i = 0; i < REPS; i++) {
        for (int k = 0; k < P_KINDS; k++) {
            r[k][i] = run_session((kind)k, until);
            if (r[k][i] <= 0) {
                fprintf(stderr, "bench_lockstep: session with %s did not reach t=%g\n", kind_label[k], until);
                return 1;
            }
        }
    }
    printf("%-26s %10s %10s %10s %12s\n", "extra participant", "median", "min", "max", "60 s takes");
    for (int k = 0; k < P_KINDS; k++) {
        qsort(r[k], REPS, sizeof r[k][0], cmp_double);
        med[k] = r[k][REPS / 2];
        printf("%-26s %10.0f %10.0f %10.0f %11.2fs\n", kind_label[k], med[k], r[k][0], r[k][REPS - 1], 6000.0 / med[k]);
    }
    printf("ratio C client / Python client:      %.2fx\n", med[P_C] / med[P_PYTHON]);
    printf("ratio Python client / naive Python:  %.2fx   (goal <= 2x)\n", med[P_PYTHON] / med[P_NAIVE]);
    printf("Python client >= 2000 ticks/s:       %s\n", med[P_PYTHON] >= 2000 ? "yes" : "NO");
    return 0;
}
