/* bench_sumo_link: bench_sumo's own TraCI connection to a SUMO it starts (the bytes
 * written and read by common/traci), each exchange timed: how long the answer's first
 * byte took after the message was sent (SUMO's work), and the transfer (sending, and
 * the answer's first byte to its last). traffic-node has its own (sumo_proc.c); a
 * module's code is not the benchmark's to link. Static functions: one includer. */
#ifndef BENCH_SUMO_LINK_H
#define BENCH_SUMO_LINK_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "sim_traci.h"
#include "test_support.h"

typedef struct tlink {
    pid_t pid;
    int fd;
    sim_traci_buf out;
    unsigned char *in;
    size_t in_cap, in_len;
    /* per phase, summed */
    double wait, transfer;         /* s: send done to the answer's first byte; sending and the rest */
    double bytes_out, bytes_in;
} tlink;

/* SUMO on the net and routes at a free loopback port, its output into log; connected. */
static int link_open(tlink *l, const char *net, const char *routes, double dt, const char *log)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    int port = ts_free_port();
    char port_s[16], step[32];
    snprintf(port_s, sizeof port_s, "%d", port);
    snprintf(step, sizeof step, "%.17g", dt);
    /* SUMO's options as traffic-node gives them (sumo_proc.c) */
    char *argv[] = {"sumo", "--net-file", (char *)net, "--route-files", (char *)routes, "--step-length", step, "--seed", "3",
                    "--begin", "0", "--no-step-log", "true", "--duration-log.disable", "true", "--route-steps", "2",
                    "--remote-port", port_s, NULL};
    fflush(stdout); /* else the child's copy of the buffer comes out too */
    l->pid = fork();
    if (l->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
        execvp("sumo", argv);
        _exit(127);
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int k = 0; k < 6000 && l->fd < 0; k++) {
        if (waitpid(l->pid, &(int){0}, WNOHANG) == l->pid) break;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) l->fd = fd;
        else close(fd), ts_sleep_ms(10);
    }
    if (l->fd < 0) return fprintf(stderr, "bench_sumo: SUMO took no connection (its log %s)\n", log), -1;
    int one = 1;
    setsockopt(l->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}

static int read_exact(int fd, unsigned char *p, size_t n)
{
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Sends the message in l->out and reads the answer; a reader over it in r. */
static int link_exchange(tlink *l, sim_traci_reader *r)
{
    sim_error err = {0};
    if (sim_traci_msg_end(&l->out, &err)) return -1;
    double t0 = bench_clock(CLOCK_MONOTONIC);
    for (size_t done = 0; done < l->out.len;) {
        ssize_t w = send(l->fd, l->out.data + done, l->out.len - done, MSG_NOSIGNAL);
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    double t1 = bench_clock(CLOCK_MONOTONIC);
    unsigned char head[4];
    if (read_exact(l->fd, head, 4)) return -1;
    double t2 = bench_clock(CLOCK_MONOTONIC);
    size_t total;
    if (sim_traci_msg_length(head, 256u << 20, &total, &err)) return -1;
    if (total > l->in_cap) {
        unsigned char *b = realloc(l->in, total);
        if (!b) return -1;
        l->in = b;
        l->in_cap = total;
    }
    memcpy(l->in, head, 4);
    if (read_exact(l->fd, l->in + 4, total - 4)) return -1;
    l->wait += t2 - t1;
    l->transfer += (t1 - t0) + (bench_clock(CLOCK_MONOTONIC) - t2);
    l->bytes_out += (double)l->out.len;
    l->bytes_in += (double)total;
    l->in_len = total;
    return sim_traci_reader_init(r, l->in, total, &err);
}

static void link_close(tlink *l)
{
    if (l->fd >= 0) {
        sim_traci_reader r;
        sim_traci_msg_begin(&l->out);
        sim_traci_cmd_close(&l->out);
        link_exchange(l, &r);
        close(l->fd);
    }
    if (l->pid > 0) ts_stop(l->pid, 0, 5000);
    sim_traci_buf_free(&l->out);
    free(l->in);
}

static int step_to(tlink *l, double t, sim_traci_object_fn fn, void *user)
{
    sim_error err = {0};
    sim_traci_reader r;
    sim_traci_msg_begin(&l->out);
    sim_traci_cmd_step(&l->out, t);
    if (link_exchange(l, &r) || sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err) ||
        sim_traci_read_step(&r, fn, user, &err))
        return fprintf(stderr, "bench_sumo: step to %g: %s\n", t, err.msg), -1;
    return 0;
}

static int vehicle_count(tlink *l)
{
    sim_error err = {0};
    sim_traci_reader r;
    sim_traci_value v;
    sim_traci_msg_begin(&l->out);
    sim_traci_cmd_get_vehicle_count(&l->out);
    if (link_exchange(l, &r) || sim_traci_read_status(&r, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, &err) ||
        sim_traci_read_get(&r, SIM_TRACI_RESPONSE_GET_VEHICLE_VARIABLE, SIM_TRACI_ID_COUNT, &v, &err))
        return -1;
    return v.i;
}

#endif
