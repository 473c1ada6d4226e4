/* Benchmark: the operator's commands and recovery from crashes, on the real binaries.
 *
 * Ack latency: simctl-style REQ requests to the dispatcher's control endpoint for a
 * command that one module (a thread here, declaring acts_on) acknowledges at once,
 * p50/p99/max over N requests; beside it, the baseline in the same run: "status",
 * which the endpoint answers without the bus. The difference is the bus round trip
 * and the ack bookkeeping.
 *
 * Recovery: a headless lockstep `simctl run` of lane-change.json; each module is
 * killed with SIGKILL K times and the time until it has joined the bus again is taken
 * (for the dispatcher: until physics, input and recorder have all rejoined, and for
 * physics until its new run ticks). Beside it, the baseline: the cold start of the
 * whole session until its first tick. Usage: bench_control [N_REQUESTS [K_KILLS]]. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <nanomsg/nn.h>
#include <nanomsg/reqrep.h>

#include "test_support.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

typedef struct responder {
    ts_conn *c;
    volatile int stop;
} responder;

/* Answers every control.pause with an ok ack for its id. */
static void *respond(void *arg)
{
    responder *r = arg;
    char line[4096];
    while (!r->stop) {
        int n = ts_read_line(r->c, line, sizeof line, 50);
        if (n <= 0) continue;
        cJSON *m = cJSON_Parse(line);
        const cJSON *id = cJSON_GetObjectItem(m, "id");
        if (cJSON_IsNumber(id)) {
            char ack[160];
            snprintf(ack, sizeof ack, "{\"topic\":\"control.ack\",\"cmd\":\"pause\",\"id\":\"%.0f\",\"ok\":true,\"error\":null}",
                     id->valuedouble);
            ts_send_line(r->c, ack);
        }
        cJSON_Delete(m);
    }
    return NULL;
}

static double request_ms(int sock, const char *req)
{
    double t0 = ts_now_ms();
    nn_send(sock, req, strlen(req), 0);
    char *buf = NULL;
    int n = nn_recv(sock, &buf, NN_MSG, 0);
    if (n >= 0) nn_freemsg(buf);
    return n >= 0 ? ts_now_ms() - t0 : -1;
}

static void ack_latency(int n)
{
    ts_dispatcher d;
    if (!ts_dispatcher_start(&d, NULL)) {
        fprintf(stderr, "bench_control: no dispatcher\n");
        exit(1);
    }
    responder r = {.c = ts_join(d.port, "physics", "[\"control.pause\"]", "\"acts_on\":[\"pause\"]")};
    pthread_t th;
    pthread_create(&th, NULL, respond, &r);
    int sock = nn_socket(AF_SP, NN_REQ);
    int timeout = 3000;
    nn_setsockopt(sock, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout, sizeof timeout);
    nn_connect(sock, d.control_url);
    double *cmd = malloc((size_t)n * sizeof *cmd), *st = malloc((size_t)n * sizeof *st);
    for (int i = 0; i < n; i++) {
        st[i] = request_ms(sock, "{\"cmd\":\"status\"}");
        cmd[i] = request_ms(sock, "{\"cmd\":\"pause\"}");
    }
    printf("ack latency over %d requests (ms):        p50      p99      max\n", n);
    double c50 = pct(cmd, n, 0.5), c99 = pct(cmd, n, 0.99), s50 = pct(st, n, 0.5), s99 = pct(st, n, 0.99);
    printf("  pause, acknowledged by one module   %8.3f %8.3f %8.3f\n", c50, c99, cmd[n - 1]);
    printf("  status (baseline: no bus)           %8.3f %8.3f %8.3f\n", s50, s99, st[n - 1]);
    printf("  ratio p99 pause/status              %8.1f\n", c99 / s99);
    r.stop = 1;
    pthread_join(th, NULL);
    nn_close(sock);
    ts_close(r.c);
    ts_dispatcher_stop(&d);
    free(cmd);
    free(st);
}

/* Waits until a dispatcher.joined of each name in names (NULL-terminated) arrives. */
static double wait_joined(ts_conn *c, const char *const *names, double t0)
{
    int want = 0, got = 0;
    bool seen[8] = {0};
    while (names[want]) want++;
    while (got < want) {
        cJSON *m = ts_expect_topic(c, "dispatcher.joined", 20000, NULL, 0);
        if (!m) return -1;
        const char *name = cJSON_GetObjectItem(m, "name")->valuestring;
        for (int i = 0; i < want; i++)
            if (!seen[i] && !strcmp(name, names[i])) seen[i] = true, got++;
        cJSON_Delete(m);
    }
    return ts_now_ms() - t0;
}

static void recovery(int k)
{
    int port = ts_free_port();
    char bus[64], control[64], out[] = "/tmp/bench_control.XXXXXX";
    if (!mkdtemp(out)) exit(1);
    snprintf(bus, sizeof bus, "127.0.0.1:%d", port);
    snprintf(control, sizeof control, "tcp://127.0.0.1:%d", ts_free_port());
    char *argv[] = {"simctl", "run", (char *)ts_root("scenarios/lane-change.json"), "--headless", "--until", "100000",
                    "--no-analysis", "--bus", bus, "--control", control, "--out", out, NULL};
    double t0 = ts_now_ms();
    pid_t simctl = ts_spawn(argv, false);
    ts_wait_port(port, 10000);
    ts_conn *obs = ts_join(port, "bench", "[\"sim.tick\"]", NULL);
    cJSON *tick = ts_expect_topic(obs, "sim.tick", 20000, NULL, 0);
    double cold = ts_now_ms() - t0;
    cJSON_Delete(tick);
    printf("\nrecovery after kill -9 in a lockstep session (ms), %d kills each within 10 s\n"
           "(simctl's restart back-off doubles from 100 ms for a module that keeps dying):\n"
           "                                                            first   median      max\n", k);
    printf("  cold start of the session to its first tick (baseline)   %8.1f\n", cold);
    static const struct {
        const char *exe, *names[4];
    } mods[] = {{"physics-node", {"physics", NULL}},
                {"input-node", {"input", NULL}},
                {"recorder", {"recorder", NULL}},
                {"dispatcher", {"physics", "input", "recorder", NULL}}};
    for (size_t m = 0; m < 4; m++) {
        double *v = malloc((size_t)k * sizeof *v);
        for (int i = 0; i < k; i++) {
            ts_close(obs);
            obs = ts_join(port, "bench", "[\"dispatcher.joined\"]", NULL);
            pid_t pid = ts_child_of(simctl, mods[m].exe);
            double t = ts_now_ms();
            kill(pid, SIGKILL);
            if (!strcmp(mods[m].exe, "dispatcher")) {
                ts_close(obs);
                obs = NULL;
                while (!obs) obs = ts_join(port, "bench", "[\"dispatcher.joined\"]", NULL);
            }
            v[i] = wait_joined(obs, mods[m].names, t);
        }
        double first = v[0], med = pct(v, k, 0.5);
        printf("  %-14s rejoined%s %8.1f %8.1f %8.1f   (first: x%.1f the cold start)\n", mods[m].exe,
               m == 3 ? " (all modules)  " : "                ", first, med, v[k - 1], first / cold);
        free(v);
    }
    ts_close(obs);
    ts_stop(simctl, SIGINT, 10000);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd)) {
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000, k = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 10 || k < 1) {
        fprintf(stderr, "usage: bench_control [N_REQUESTS >= 10 [K_KILLS >= 1]]\n");
        return 2;
    }
    ack_latency(n);
    recovery(k);
    return 0;
}
