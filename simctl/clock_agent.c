/* clock_agent: `simctl __clock HOST --bus ADDR:PORT`, a lab host's clock agent
 * (docs/lab.md). `simctl run --lab` starts one on each other host (through ssh, as a
 * module); it joins the bus as "clock-HOST" (the token from SIM_BUS_TOKEN) and answers
 * each clock.ping for HOST with a clock.pong carrying the moments the ping came (t2,
 * m2) and the pong left (t3, m3) on this host's clocks, and what keeps its clock (a
 * clock daemon among its processes, the kernel's synchronised flag: looked at every
 * SYNC_LOOK_MS). SIGTERM ends it as a signal (no handler): simctl reads that as a
 * crash to restart, not as a module ending the session by itself (status 0). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_msg_clock.h"
#include "simctl.h"

#define SYNC_LOOK_MS 5000

typedef struct agent {
    const char *host;
    char sync[SIM_CLOCK_SYNC_MAX];
    bool synced;
    double sync_looked; /* monotonic s of the last look; 0: never */
    sim_bus *bus;
} agent;

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The clock daemon running here (the first found in /proc), or "none"; and whether the
 * kernel's clock is synchronised. */
static void look_at_sync(agent *a)
{
    snprintf(a->sync, sizeof a->sync, "none");
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
        const char *daemon = sim_clock_sync_daemon(comm);
        if (daemon) {
            snprintf(a->sync, sizeof a->sync, "%s", daemon);
            break;
        }
    }
    if (d) closedir(d);
    struct timex tx = {.modes = 0};
    a->synced = adjtimex(&tx) != TIME_ERROR;
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    (void)line;
    (void)len;
    agent *a = user;
    double t2 = clock_s(CLOCK_REALTIME), m2 = clock_s(CLOCK_MONOTONIC);
    sim_msg_clock_ping ping;
    if (strcmp(topic, SIM_TOPIC_CLOCK_PING) != 0 || sim_msg_clock_ping_decode(msg, &ping, NULL) != SIM_OK ||
        strcmp(ping.host, a->host) != 0)
        return;
    if (!a->sync_looked || m2 - a->sync_looked > SYNC_LOOK_MS / 1000.0) {
        look_at_sync(a);
        a->sync_looked = m2; /* (the look's time is in t3 - t2, which the round trip leaves out) */
    }
    sim_msg_clock_pong pong = {.id = ping.id, .t1 = ping.t1, .m1 = ping.m1, .t2 = t2, .m2 = m2, .synced = a->synced};
    snprintf(pong.host, sizeof pong.host, "%s", a->host);
    snprintf(pong.sync, sizeof pong.sync, "%s", a->sync);
    pong.t3 = clock_s(CLOCK_REALTIME);
    pong.m3 = clock_s(CLOCK_MONOTONIC);
    cJSON *o = sim_msg_clock_pong_encode(&pong);
    if (o) sim_bus_publish(bus, SIM_TOPIC_CLOCK_PONG, 0, o);
    cJSON_Delete(o);
}

int simctl_exec_clock(int argc, char **argv)
{
    if (argc != 5 || strcmp(argv[3], "--bus") != 0) {
        fprintf(stderr, "simctl __clock: expected HOST --bus ADDRESS:PORT\n");
        return 2;
    }
    agent a = {.host = argv[2]};
    char bus_host[256], name[96];
    int port = 0;
    sim_error err = {0};
    if (sim_bus_parse_endpoint(argv[4], bus_host, sizeof bus_host, &port, &err) != SIM_OK) {
        fprintf(stderr, "simctl __clock: --bus: %s\n", err.msg);
        return 2;
    }
    snprintf(name, sizeof name, "clock-%s", a.host);
    static const char *const subs[] = {SIM_TOPIC_CLOCK_PING};
    uv_loop_t *loop = uv_default_loop();
    sim_bus_options o = {.name = name, .host = bus_host, .port = port, .token = getenv("SIM_BUS_TOKEN"),
                         .subscribe = subs, .n_subscribe = 1, .on_message = on_message, .user = &a};
    if (sim_bus_open(loop, &o, &a.bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl __clock: %s\n", err.msg);
        return 1;
    }
    uv_run(loop, UV_RUN_DEFAULT);
    return 0;
}
