/* Benchmark of the SUMO co-simulation (docs/traffic.md, "SUMO"): a 10 x 10 street grid
 * (netgenerate, 200 m blocks, 2 lanes each way) filled by random trips with SUMO's
 * warm-up; the co-simulation's time per tick (traffic-node in lockstep: the ego moved
 * into SUMO, SUMO's step, the context subscription within 300 m, traffic.state out,
 * measured from the tick sent to its sim.ack) at 100 Hz and 10 Hz, beside SUMO stepping
 * the same network and demand alone (`sumo` without TraCI, the warm-up's time taken
 * off) and the own traffic core with as many agents (a 3-lane ring), same run. The
 * difference co-simulation minus SUMO alone is what coupling costs: the three TraCI
 * round trips, the decoding, locating each listed vehicle on the roads, encoding. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_traffic.h"
#include "test_support.h"

#define WARMUP 120.0
#define PERIOD 0.2

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char dir[256];

static int sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0) fprintf(stderr, "bench_sumo: failed (%d): %s\n", rc, cmd);
    return rc;
}

static int make_inputs(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "netgenerate --grid --grid.number 10 --grid.length 200 --default.lanenumber 2 "
             "--output-file %s/grid.net.xml >%s/netgenerate.log 2>&1",
             dir, dir);
    if (sh(cmd)) return -1;
    /* a scenario whose one road runs beside the grid's bottom street (the ego's road) */
    snprintf(cmd, sizeof cmd, "%s/grid.json", dir);
    FILE *f = fopen(cmd, "w");
    if (!f) return -1;
    fprintf(f,
            "{\"format\": 1, \"name\": \"grid\", \"roads\": [{\"id\": \"r\", \"start\": {\"x\": 10, \"y\": -1.6, "
            "\"heading_deg\": 0}, \"segments\": [{\"type\": \"line\", \"length\": 1700}], \"lanes\": {\"left\": "
            "[{\"width\": 3.2}], \"right\": [{\"width\": 3.2}]}}],\n \"start_points\": [{\"name\": \"s\", \"road\": "
            "\"r\", \"s\": 50, \"lane\": -1}],\n \"traffic\": {\"engine\": \"sumo\", \"seed\": 3, \"sumo\": {\"net\": "
            "\"grid.net.xml\", \"period_s\": %g, \"warmup_s\": %g, \"end_s\": 3600}}}\n",
            PERIOD, WARMUP);
    return fclose(f) == 0 ? 0 : -1;
}

typedef struct cosim {
    ts_dispatcher d;
    ts_conn *phys;
    pid_t node;
    char line[70000];
} cosim;

static int cosim_start(cosim *c, double dt, const char *sumo_dir)
{
    if (!ts_dispatcher_start(&c->d, NULL)) return -1;
    c->phys = ts_join(c->d.port, "physics", "[\"sim.ack\",\"traffic.state\",\"dispatcher.joined\"]", NULL);
    if (!c->phys) return -1;
    char bus[64], scenario[300], step[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", c->d.port);
    snprintf(scenario, sizeof scenario, "%s/grid.json", dir);
    snprintf(step, sizeof step, "%g", dt);
    char *argv[] = {"traffic-node", "--bus",     bus,  "--scenario", scenario, "--lockstep", "--sumo-dir",
                    (char *)sumo_dir, "--sumo-step", step, NULL};
    c->node = ts_spawn(argv, false);
    for (;;) {
        cJSON *j = ts_expect_topic(c->phys, "dispatcher.joined", 600000, NULL, 0);
        if (!j) return -1;
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool it = cJSON_IsString(name) && strcmp(name->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) return 0;
    }
}

/* n ticks of dt with the ego driving along the road at 10 m/s; seconds per tick, and
 * the vehicles in SUMO and in traffic.state at the end. */
static double cosim_run(cosim *c, double dt, int n, int *total, int *listed)
{
    uint64_t seq = 0;
    double t0 = now();
    for (int k = 0; k < n; k++) {
        double t = k * dt;
        char msg[512];
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.3f,\"speed\":10,"
                 "\"pos\":[%.3f,-3.2,0],\"heading\":0}",
                 (unsigned long long)++seq, t, 60 + 10 * t);
        ts_send_line(c->phys, msg);
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.3f,\"n\":%d,\"dt\":%g,"
                 "\"run\":0,\"paused\":false}",
                 (unsigned long long)++seq, t, k, dt);
        ts_send_line(c->phys, msg);
        cJSON *st = ts_expect_topic(c->phys, "traffic.state", 60000, c->line, sizeof c->line);
        if (!st) return NAN;
        if (k == n - 1) {
            *total = (int)cJSON_GetObjectItem(st, "total")->valuedouble;
            *listed = cJSON_GetArraySize(cJSON_GetObjectItem(st, "vehicles"));
        }
        cJSON_Delete(st);
        cJSON *ack = ts_expect_topic(c->phys, "sim.ack", 60000, NULL, 0);
        if (!ack) return NAN;
        cJSON_Delete(ack);
    }
    return (now() - t0) / n;
}

static void cosim_stop(cosim *c)
{
    ts_stop(c->node, SIGTERM, 10000);
    ts_close(c->phys);
    ts_dispatcher_stop(&c->d);
}

/* SUMO alone over the same network and demand: CPU seconds per step from warm-up to
 * warm-up + span, as the difference of two runs (CPU time: the machine is shared, and
 * wall time of two separate runs differs by more than the span costs). */
static double sumo_alone(const char *sumo_dir, double dt, double span)
{
    double took[2];
    for (int i = 0; i < 2; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "SUMO_HOME=/usr/share/sumo sumo --net-file %s/grid.net.xml --route-files %s/random.rou.xml "
                 "--step-length %g --seed 3 --begin 0 --end %g --no-step-log true --duration-log.disable true "
                 "--route-steps 2 --no-warnings true >/dev/null 2>&1",
                 dir, sumo_dir, dt, WARMUP + (i ? span : 0));
        struct rusage a, b;
        getrusage(RUSAGE_CHILDREN, &a);
        if (sh(cmd)) return NAN;
        getrusage(RUSAGE_CHILDREN, &b);
        took[i] = (double)(b.ru_utime.tv_sec - a.ru_utime.tv_sec + b.ru_stime.tv_sec - a.ru_stime.tv_sec) +
                  (double)(b.ru_utime.tv_usec - a.ru_utime.tv_usec + b.ru_stime.tv_usec - a.ru_stime.tv_usec) * 1e-6;
    }
    return (took[1] - took[0]) / (span / dt);
}

/* The own core with n agents on a 3-lane ring: seconds per step of dt. */
static double own_core(int n, double dt, double span)
{
    sim_lanegraph g;
    sim_traffic t;
    sim_error err = {0};
    const double spacing = 45.0;
    if (sim_lanegraph_ring(&g, n / 3.0 * spacing / (2 * M_PI), 3, 3.75, 36.0, &err)) return NAN;
    sim_traffic_params p;
    sim_traffic_params_default(&p);
    p.max_agents = n;
    if (sim_traffic_init(&t, &g, &p, &err)) return NAN;
    for (int i = 0; i < n; i++) {
        double v = 25.0 + 10.0 * ((i * 7919) % 101) / 100.0;
        sim_traffic_spec sp = {.lane = i % 3, .s = (i / 3) * spacing + (i % 3) * spacing / 3, .speed = v};
        sp.b = (sim_traffic_behaviour){.desired_speed = v, .headway = 1.5, .max_accel = 1.5, .max_decel = 3.0,
                                       .min_gap = 2.0, .politeness = 0.3, .lane_changes = true};
        sim_traffic_add_agent(&t, &sp, false, NULL);
    }
    int steps = (int)(span / dt);
    double t0 = now();
    for (int k = 0; k < steps; k++) sim_traffic_step(&t, dt);
    double per = (now() - t0) / steps;
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
    return per;
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bench_sumo.%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (sh(cmd) || make_inputs()) return 1;
    static const struct { double dt; int ticks; } rates[] = {{0.01, 1000}, {0.1, 300}};
    int status = 0;
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        double dt = rates[i].dt;
        char sumo_dir[300];
        snprintf(sumo_dir, sizeof sumo_dir, "%s/sumo%zu", dir, i);
        cosim c;
        memset(&c, 0, sizeof c);
        int total = 0, listed = 0;
        if (cosim_start(&c, dt, sumo_dir)) {
            fprintf(stderr, "bench_sumo: the co-simulation did not start\n");
            return 1;
        }
        double co = cosim_run(&c, dt, rates[i].ticks, &total, &listed);
        cosim_stop(&c);
        double span = rates[i].ticks * dt;
        double alone = sumo_alone(sumo_dir, dt, span);
        double own = own_core(total > 0 ? total : 1, dt, span);
        if (!(co > 0) || !(alone > 0) || !(own > 0)) status = 1;
        printf("sumo co-simulation, %d vehicles in SUMO (%d listed within 300 m), %.0f Hz: %.3f ms a tick "
               "(%.2fx real time); SUMO alone %.3f ms CPU a step; coupling %.3f ms a tick; ratio %.2f; own core with "
               "%d agents %.3f ms a step, ratio %.1f\n",
               total, listed, 1 / dt, co * 1e3, dt / co, alone * 1e3, (co - alone) * 1e3, co / alone, total,
               own * 1e3, co / own);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    sh(cmd);
    return status;
}
