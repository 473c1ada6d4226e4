/* Benchmark: the dispatcher against nanomsg PUB/SUB, side by side in one run.
 *
 * Fan-out throughput: one publisher, 1/4/8 subscribers, ~256-byte JSON messages,
 * delivered messages per second per subscriber. One-way latency: one subscriber,
 * timed from each message's scheduled send time, at 1 kHz and at full rate
 * (p50/p99/p99.9/max). The dispatcher is the real bin/dispatcher on loopback; the
 * baseline is a nanomsg PUB socket bound on loopback with SUB sockets connected to it.
 * nanomsg PUB drops for slow subscribers instead of pushing back, so its delivered
 * count and loss are printed too. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <nanomsg/nn.h>
#include <nanomsg/pubsub.h>

#include "test_support.h"

#define PAYLOAD 256
#define MAX_SUBS 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    double left;
    while ((left = t - now_s()) > 0) {
        if (left > 0.0002) {
            struct timespec ts = {0, (long)((left - 0.0001) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
}

/* A message of exactly PAYLOAD bytes including the newline, carrying its sequence
 * number and scheduled send time. */
static size_t make_msg(char *buf, long seq, double sched, bool end)
{
    int n = snprintf(buf, PAYLOAD, "{\"topic\":\"bench.data\",\"src\":\"bench\",\"seq\":%ld,\"t\":0,\"end\":%d,\"sched\":%.9f,\"pad\":\"",
                     seq, end ? 1 : 0, sched);
    while (n < PAYLOAD - 3) buf[n++] = 'x';
    buf[n++] = '"';
    buf[n++] = '}';
    buf[n++] = '\n';
    return (size_t)n;
}

static bool parse_msg(const char *m, long *seq, double *sched, bool *end)
{
    const char *p = strstr(m, "\"seq\":");
    const char *q = strstr(m, "\"sched\":");
    const char *e = strstr(m, "\"end\":");
    if (!p || !q || !e) return false;
    *seq = strtol(p + 6, NULL, 10);
    *sched = strtod(q + 8, NULL);
    *end = e[6] == '1';
    return true;
}

/* ---------- transports ---------- */

typedef enum { T_DISPATCHER, T_NANOMSG } transport;

typedef struct sub {
    transport kind;
    int fd;           /* TCP (dispatcher) */
    int nn;           /* nanomsg SUB */
    ts_conn *conn;
    long received;
    double *lat;      /* latency samples (seconds), NULL when not measured */
    long lat_n, lat_cap;
    pthread_t thread;
    double last_t;
} sub;

static int recv_one(sub *s, char *buf, size_t size)
{
    if (s->kind == T_DISPATCHER) return ts_read_line(s->conn, buf, size, 5000);
    char *m = NULL;
    int n = nn_recv(s->nn, &m, NN_MSG, 0);
    if (n < 0) return n == -1 && nn_errno() == ETIMEDOUT ? 0 : -1;
    size_t c = (size_t)n < size - 1 ? (size_t)n : size - 1;
    memcpy(buf, m, c);
    buf[c] = '\0';
    nn_freemsg(m);
    return n;
}

static void *sub_main(void *arg)
{
    sub *s = arg;
    char buf[1024];
    for (;;) {
        int n = recv_one(s, buf, sizeof buf);
        if (n <= 0) break;
        long seq;
        double sched;
        bool end;
        if (!parse_msg(buf, &seq, &sched, &end)) continue;
        double t = now_s();
        if (end) break;
        s->received++;
        s->last_t = t;
        if (s->lat && s->lat_n < s->lat_cap) s->lat[s->lat_n++] = t - sched;
    }
    return NULL;
}

typedef struct pub {
    transport kind;
    ts_conn *conn;
    int nn;
} pub;

static void pub_send(pub *p, const char *msg, size_t len)
{
    if (p->kind == T_DISPATCHER) ts_send(p->conn, msg, len);
    else nn_send(p->nn, msg, len - 1, 0); /* a nanomsg message needs no newline */
}

typedef struct setup {
    transport kind;
    int port;         /* dispatcher port */
    char url[64];     /* nanomsg */
    pub p;
    sub subs[MAX_SUBS];
    int n;
} setup;

static void open_setup(setup *st, transport kind, int port, int n, long lat_cap)
{
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->n = n;
    st->p.kind = kind;
    if (kind == T_DISPATCHER) {
        st->port = port;
        for (int i = 0; i < n; i++) {
            char name[32];
            snprintf(name, sizeof name, "sub%d", i);
            st->subs[i].conn = ts_join(port, name, "[\"bench.\"]", NULL);
        }
        st->p.conn = ts_join(port, "pub", "[]", NULL);
    } else {
        snprintf(st->url, sizeof st->url, "tcp://127.0.0.1:%d", ts_free_port());
        st->p.nn = nn_socket(AF_SP, NN_PUB);
        nn_bind(st->p.nn, st->url);
        for (int i = 0; i < n; i++) {
            int s = nn_socket(AF_SP, NN_SUB);
            nn_setsockopt(s, NN_SUB, NN_SUB_SUBSCRIBE, "", 0);
            int timeout = 2000, rcvbuf = 1 << 20;
            nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVTIMEO, &timeout, sizeof timeout);
            nn_setsockopt(s, NN_SOL_SOCKET, NN_RCVBUF, &rcvbuf, sizeof rcvbuf);
            nn_connect(s, st->url);
            st->subs[i].nn = s;
        }
        ts_sleep_ms(300); /* let the subscriptions reach the publisher */
    }
    for (int i = 0; i < n; i++) {
        st->subs[i].kind = kind;
        if (lat_cap) {
            st->subs[i].lat = malloc(sizeof(double) * (size_t)lat_cap);
            st->subs[i].lat_cap = lat_cap;
        }
        pthread_create(&st->subs[i].thread, NULL, sub_main, &st->subs[i]);
    }
}

static void close_setup(setup *st)
{
    char msg[PAYLOAD + 1];
    size_t len = make_msg(msg, -1, now_s(), true);
    /* End markers until every subscriber has stopped (nanomsg may drop some). */
    for (int tries = 0; tries < 200; tries++) {
        pub_send(&st->p, msg, len);
        bool all = true;
        for (int i = 0; i < st->n; i++) {
            if (!st->subs[i].thread) continue;
            if (pthread_tryjoin_np(st->subs[i].thread, NULL) == 0) st->subs[i].thread = 0;
            else all = false;
        }
        if (all) break;
        ts_sleep_ms(10);
    }
    for (int i = 0; i < st->n; i++) {
        if (st->subs[i].thread) pthread_join(st->subs[i].thread, NULL);
        if (st->kind == T_DISPATCHER) ts_close(st->subs[i].conn);
        else nn_close(st->subs[i].nn);
        free(st->subs[i].lat);
    }
    if (st->kind == T_DISPATCHER) ts_close(st->p.conn);
    else nn_close(st->p.nn);
}

/* ---------- measurements ---------- */

typedef struct { double rate; double loss; } tput;

static tput throughput(transport kind, int port, int nsubs, long count)
{
    setup st;
    open_setup(&st, kind, port, nsubs, 0);
    char msg[PAYLOAD + 1];
    double t0 = now_s();
    for (long i = 0; i < count; i++) {
        size_t len = make_msg(msg, i, 0, false);
        pub_send(&st.p, msg, len);
    }
    /* Wait until the subscribers have everything or have been quiet for a while. */
    long last_total = -1;
    double quiet_since = now_s();
    for (;;) {
        long total = 0;
        for (int i = 0; i < nsubs; i++) total += st.subs[i].received;
        if (total == count * nsubs) break;
        if (total != last_total) {
            last_total = total;
            quiet_since = now_s();
        } else if (now_s() - quiet_since > 0.5) {
            break;
        }
        ts_sleep_ms(1);
    }
    double t1 = 0;
    long total = 0;
    for (int i = 0; i < nsubs; i++) {
        total += st.subs[i].received;
        if (st.subs[i].last_t > t1) t1 = st.subs[i].last_t;
    }
    close_setup(&st);
    tput r = {.rate = (double)total / nsubs / (t1 - t0), .loss = 1.0 - (double)total / (double)(count * nsubs)};
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct { double p50, p99, p999, max; long n; } lat_stats;

static lat_stats latency(transport kind, int port, double rate_hz, long count)
{
    setup st;
    open_setup(&st, kind, port, 1, count);
    char msg[PAYLOAD + 1];
    double start = now_s() + 0.01;
    for (long i = 0; i < count; i++) {
        double sched = rate_hz > 0 ? start + (double)i / rate_hz : now_s();
        if (rate_hz > 0) sleep_until(sched);
        size_t len = make_msg(msg, i, sched, false);
        pub_send(&st.p, msg, len);
    }
    for (int i = 0; i < 500 && st.subs[0].received < count; i++) ts_sleep_ms(2);
    sub *s = &st.subs[0];
    lat_stats r = {0};
    r.n = s->lat_n;
    if (s->lat_n) {
        qsort(s->lat, (size_t)s->lat_n, sizeof(double), cmp_double);
        r.p50 = s->lat[(long)(0.5 * (double)(s->lat_n - 1))];
        r.p99 = s->lat[(long)(0.99 * (double)(s->lat_n - 1))];
        r.p999 = s->lat[(long)(0.999 * (double)(s->lat_n - 1))];
        r.max = s->lat[s->lat_n - 1];
    }
    close_setup(&st);
    return r;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    double scale = argc > 1 ? strtod(argv[1], NULL) : 1.0;
    ts_dispatcher d;
    const char *args[] = {"--queue-kib", "65536", NULL};
    if (!ts_dispatcher_start(&d, args)) {
        fprintf(stderr, "bench_bus: cannot start the dispatcher from $SIM_BIN\n");
        return 1;
    }
    /* Each case runs REPS times, the two transports alternating, and the medians are
     * compared: on a shared machine a single run says little. */
    enum { REPS = 5 };
    printf("Fan-out throughput, %d-byte JSON messages, delivered msgs/s per subscriber (median of %d)\n", PAYLOAD, REPS);
    printf("%-12s %16s %16s %10s %8s\n", "subscribers", "dispatcher", "nanomsg", "ratio", "nn loss");
    const int fan[] = {1, 4, 8};
    for (int k = 0; k < 3; k++) {
        long count = (long)(100000 * scale / fan[k]);
        if (count < 1000) count = 1000;
        double ra[REPS], rb[REPS], lb[REPS];
        for (int r = 0; r < REPS; r++) {
            tput a = throughput(T_DISPATCHER, d.port, fan[k], count);
            tput b = throughput(T_NANOMSG, 0, fan[k], count);
            if (a.loss > 0) printf("  (dispatcher lost %.3f%%: a defect)\n", a.loss * 100);
            ra[r] = a.rate;
            rb[r] = b.rate;
            lb[r] = b.loss;
        }
        qsort(ra, REPS, sizeof(double), cmp_double);
        qsort(rb, REPS, sizeof(double), cmp_double);
        qsort(lb, REPS, sizeof(double), cmp_double);
        printf("%-12d %16.0f %16.0f %9.2fx %7.1f%%\n", fan[k], ra[REPS / 2], rb[REPS / 2], ra[REPS / 2] / rb[REPS / 2],
               lb[REPS / 2] * 100);
    }
    printf("\nOne-way latency from the scheduled send time, 1 subscriber (microseconds)\n");
    printf("%-22s %9s %9s %9s %9s %8s\n", "", "p50", "p99", "p99.9", "max", "samples");
    struct { const char *name; double hz; long n; } modes[] = {
        {"1 kHz", 1000, (long)(3000 * scale)},
        {"full rate", 0, (long)(100000 * scale)},
    };
    for (int m = 0; m < 2; m++) {
        if (modes[m].n < 500) modes[m].n = 500;
        lat_stats a = latency(T_DISPATCHER, d.port, modes[m].hz, modes[m].n);
        lat_stats b = latency(T_NANOMSG, 0, modes[m].hz, modes[m].n);
        char label[64];
        snprintf(label, sizeof label, "%s dispatcher", modes[m].name);
        printf("%-22s %9.1f %9.1f %9.1f %9.1f %8ld\n", label, a.p50 * 1e6, a.p99 * 1e6, a.p999 * 1e6, a.max * 1e6, a.n);
        snprintf(label, sizeof label, "%s nanomsg", modes[m].name);
        printf("%-22s %9.1f %9.1f %9.1f %9.1f %8ld\n", label, b.p50 * 1e6, b.p99 * 1e6, b.p999 * 1e6, b.max * 1e6, b.n);
        printf("%-22s %8.2fx %8.2fx %8.2fx %8.2fx\n", "  ratio (disp/nn)", a.p50 / b.p50, a.p99 / b.p99, a.p999 / b.p999,
               a.max / b.max);
    }
    ts_dispatcher_stop(&d);
    return 0;
}
