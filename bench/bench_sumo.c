/* Benchmark of the SUMO co-simulation at city scale (docs/traffic.md "SUMO",
 * docs/performance.md): 1,000 and 10,000 SUMO vehicles at 10 Hz and 100 Hz, each case
 * three ways in the same run, side by side with the ratios:
 *
 *   1. the co-simulated tick: traffic-node in lockstep on the bus (the ego moved into
 *      SUMO, SUMO's step, the context subscription within 300 m, each listed vehicle
 *      located on the scenario's roads, traffic.state out), from sim.tick sent to sim.ack
 *      received; with the CPU time SUMO and traffic-node spent per tick (/proc);
 *   2. SUMO stepping alone over TraCI (the bench's own connection to a second SUMO on the
 *      same net and demand: one step command a tick, nothing else), and then, in the same
 *      SUMO, the coupling's three TraCI messages a tick written and read with
 *      common/traci and traffic.state encoded with common/protocol, each part timed:
 *      SUMO's step (waiting for the answer's first byte), the transfer (the bytes on the
 *      socket), decoding the subscription results, encoding traffic.state;
 *   3. the own traffic core (common/traffic) with as many agents (a 3-lane ring).
 *
 * Set-up takes seconds, not minutes of warm-up: a generated grid (netgenerate, 20 x 20
 * junctions, 200 m blocks, 2 lanes each way: 3,040 lanes) and a generated route file
 * whose vehicles all depart at 0 on lanes and positions spread over the grid (at most 4
 * a lane, 45 m apart), each on a 40-edge random walk (9 minutes of driving), so the
 * count is there from SUMO's first step. The count is read at every tick and printed.
 *
 * Usage: bench_sumo [SCALE]   ticks per case times SCALE (default 1: about a minute;
 * scripts/bench-sumo-device.sh runs 10). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "sim_msg_traffic.h"
#include "sim_traci.h"
#include "sim_traffic.h"
#include "test_support.h"

#define GRID 20
#define BLOCK 200.0
#define LANES 2
#define SLOTS 4
#define ROUTE_EDGES 40
#define WARMUP 0.2      /* s of SUMO before the session's time 0: every vehicle is in after its first step */
#define RADIUS 300.0    /* traffic-node's default --radius */
#define MAX_LISTED 64   /* traffic-node's default --max-vehicles */
#define STREET_Y 1800.0 /* the ego drives along this street, the grid's middle */

static char dir[256];

static double wall(void) { return bench_clock(CLOCK_MONOTONIC); }

static int sh(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0) fprintf(stderr, "bench_sumo: failed (%d): %s\n", rc, cmd);
    return rc;
}

/* CPU seconds (user + system) a process has used so far, from /proc; NAN when gone. */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return NAN;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *close = strrchr(buf, ')');
    unsigned long ut, st;
    if (!close || sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return NAN;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* ---- the inputs: grid, routes, scenario ---- */

/* The grid's directed edges, as netgenerate names them: node (x, y) is a letter for x
 * and a number for y ("C7"), edge "C7D7" from C7 to D7. */
typedef struct edge { int x0, y0, x1, y1; } edge;
static edge edges[4 * GRID * GRID];
static int n_edges;

static void list_edges(void)
{
    static const int dx[] = {1, 0, -1, 0}, dy[] = {0, 1, 0, -1};
    n_edges = 0;
    for (int y = 0; y < GRID; y++)
        for (int x = 0; x < GRID; x++)
            for (int d = 0; d < 4; d++) {
                int x1 = x + dx[d], y1 = y + dy[d];
                if (x1 >= 0 && x1 < GRID && y1 >= 0 && y1 < GRID) edges[n_edges++] = (edge){x, y, x1, y1};
            }
}

static void edge_name(const edge *e, char *out, size_t cap)
{
    snprintf(out, cap, "%c%d%c%d", 'A' + e->x0, e->y0, 'A' + e->x1, e->y1);
}

/* n vehicles departing at 0, spread over the lanes (a stride coprime with the lane
 * count), each on a random walk without U-turns. */
static int write_routes(int n, const char *path)
{
    int lanes = n_edges * LANES;
    if (n > lanes * SLOTS) return fprintf(stderr, "bench_sumo: %d vehicles do not fit %d lanes\n", n, lanes), -1;
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    fprintf(f, "<routes>\n");
    for (int i = 0; i < n; i++) {
        int lane = (int)(((long)(i % lanes) * 1237) % lanes), slot = i / lanes;
        edge e = edges[lane / LANES];
        fprintf(f, "  <vehicle id=\"v%d\" depart=\"0\" departLane=\"%d\" departPos=\"%g\" departSpeed=\"0\">"
                   "<route edges=\"", i, lane % LANES, 10.0 + 45.0 * slot);
        for (int k = 0; k < ROUTE_EDGES; k++) {
            char name[16];
            edge_name(&e, name, sizeof name);
            fprintf(f, "%s%s", k ? " " : "", name);
            edge next[4];
            int m = 0;
            for (int j = 0; j < n_edges; j += 1)
                if (edges[j].x0 == e.x1 && edges[j].y0 == e.y1 && !(edges[j].x1 == e.x0 && edges[j].y1 == e.y0))
                    next[m++] = edges[j];
            e = next[(int)(bench_urand(&rng) * m)];
        }
        fprintf(f, "\"/></vehicle>\n");
    }
    fprintf(f, "</routes>\n");
    return fclose(f) == 0 ? 0 : -1;
}

static int make_inputs(int n)
{
    char cmd[2048], path[512];
    snprintf(path, sizeof path, "%s/grid.net.xml", dir);
    if (access(path, R_OK) != 0) {
        snprintf(cmd, sizeof cmd,
                 "netgenerate --grid --grid.number %d --grid.length %g --default.lanenumber %d "
                 "--output-file %s >%s/netgenerate.log 2>&1",
                 GRID, BLOCK, LANES, path, dir);
        if (sh(cmd)) return -1;
    }
    snprintf(path, sizeof path, "%s/v%d.rou.xml", dir, n);
    if (write_routes(n, path)) return -1;
    /* a scenario whose one road runs beside the middle street (the ego's road) */
    snprintf(path, sizeof path, "%s/grid%d.json", dir, n);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f,
            "{\"format\": 1, \"name\": \"grid\", \"roads\": [{\"id\": \"r\", \"start\": {\"x\": 10, \"y\": %g, "
            "\"heading_deg\": 0}, \"segments\": [{\"type\": \"line\", \"length\": %g}], \"lanes\": {\"left\": "
            "[{\"width\": 3.2}], \"right\": [{\"width\": 3.2}]}}],\n \"start_points\": [{\"name\": \"s\", \"road\": "
            "\"r\", \"s\": 50, \"lane\": -1}],\n \"traffic\": {\"engine\": \"sumo\", \"seed\": 3, \"sumo\": {\"net\": "
            "\"grid.net.xml\", \"routes\": [\"v%d.rou.xml\"], \"warmup_s\": %g}}}\n",
            STREET_Y - 1.6, (GRID - 1) * BLOCK - 20, n, WARMUP);
    return fclose(f) == 0 ? 0 : -1;
}

/* The ego's place at tick k: along the middle street at 10 m/s. */
static double ego_x(double t) { return 60 + 10 * t; }
#define EGO_Y (STREET_Y - 3.2)

/* ---- 1. the co-simulated tick: traffic-node on the bus ---- */

typedef struct result {
    double wall;          /* s a tick */
    double cpu_sumo;      /* SUMO's CPU s a tick */
    double cpu_self;      /* the coupling's CPU s a tick (traffic-node, or this bench) */
    int count_min, count_max, listed;
} result;

static int cosim_run(int n, double dt, int ticks, result *res)
{
    ts_dispatcher d;
    memset(&d, 0, sizeof d);
    if (!ts_dispatcher_start(&d, NULL)) return -1;
    ts_conn *phys = ts_join(d.port, "physics", "[\"sim.ack\",\"traffic.state\",\"dispatcher.joined\"]", NULL);
    if (!phys) return -1;
    char bus[64], scenario[300], step[32], sumo_dir[300];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(scenario, sizeof scenario, "%s/grid%d.json", dir, n);
    snprintf(step, sizeof step, "%g", dt);
    snprintf(sumo_dir, sizeof sumo_dir, "%s/node%d", dir, n);
    char *argv[] = {"traffic-node", "--bus",      bus,      "--scenario",  scenario, "--lockstep",
                    "--sumo-dir",   sumo_dir,     "--sumo-step", step, NULL};
    pid_t node = ts_spawn(argv, false);
    int rc = -1;
    for (;;) {
        cJSON *j = ts_expect_topic(phys, "dispatcher.joined", 120000, NULL, 0);
        if (!j) goto out;
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool it = cJSON_IsString(name) && strcmp(name->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
    pid_t sumo = ts_child_of(node, "sumo");
    static char line[1 << 17];
    uint64_t seq = 0;
    res->count_min = 1 << 30;
    res->count_max = 0;
    double c0 = 0, n0 = 0, t0 = 0;
    for (int k = -1; k < ticks; k++) { /* tick -1: the ego goes in, not timed */
        if (k == 0) {
            c0 = proc_cpu(sumo);
            n0 = proc_cpu(node);
            t0 = wall();
        }
        double t = (k + 1) * dt;
        char msg[512];
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.3f,\"speed\":10,"
                 "\"pos\":[%.3f,%.3f,0],\"heading\":0}",
                 (unsigned long long)++seq, t, ego_x(t), EGO_Y);
        ts_send_line(phys, msg);
        snprintf(msg, sizeof msg,
                 "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.3f,\"n\":%d,\"dt\":%g,"
                 "\"run\":0,\"paused\":false}",
                 (unsigned long long)++seq, t, k + 1, dt);
        ts_send_line(phys, msg);
        cJSON *st = ts_expect_topic(phys, "traffic.state", 120000, line, sizeof line);
        if (!st) goto out;
        int total = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(st, "total"));
        if (k >= 0 && total < res->count_min) res->count_min = total;
        if (k >= 0 && total > res->count_max) res->count_max = total;
        res->listed = cJSON_GetArraySize(cJSON_GetObjectItem(st, "vehicles"));
        cJSON_Delete(st);
        cJSON *ack = ts_expect_topic(phys, "sim.ack", 120000, NULL, 0);
        if (!ack) goto out;
        cJSON_Delete(ack);
    }
    res->wall = (wall() - t0) / ticks;
    res->cpu_sumo = (proc_cpu(sumo) - c0) / ticks;
    res->cpu_self = (proc_cpu(node) - n0) / ticks;
    rc = 0;
out:
    if (rc) fprintf(stderr, "bench_sumo: the co-simulation with %d vehicles at %g s stopped (%s/sumo.log)\n", n, dt,
                    sumo_dir);
    ts_stop(node, SIGTERM, 10000);
    ts_close(phys);
    ts_dispatcher_stop(&d);
    return rc;
}

/* ---- 2. the bench's own TraCI connection: SUMO alone, then the coupling's parts ---- */

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

static int link_open(tlink *l, const char *routes, double dt)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    int port = ts_free_port();
    char net[300], port_s[16], step[32], log[300];
    snprintf(net, sizeof net, "%s/grid.net.xml", dir);
    snprintf(port_s, sizeof port_s, "%d", port);
    snprintf(step, sizeof step, "%.17g", dt);
    snprintf(log, sizeof log, "%s/alone.log", dir);
    /* SUMO's options as traffic-node gives them (sumo_proc.c) */
    char *argv[] = {"sumo", "--net-file", net, "--route-files", (char *)routes, "--step-length", step, "--seed", "3",
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
    double t0 = wall();
    for (size_t done = 0; done < l->out.len;) {
        ssize_t w = send(l->fd, l->out.data + done, l->out.len - done, MSG_NOSIGNAL);
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    double t1 = wall();
    unsigned char head[4];
    if (read_exact(l->fd, head, 4)) return -1;
    double t2 = wall();
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
    l->transfer += (t1 - t0) + (wall() - t2);
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

/* What the coupling asks of each vehicle (traffic-node/sumo.c's list). */
static const uint8_t vars[] = {SIM_TRACI_VAR_POSITION3D, SIM_TRACI_VAR_ANGLE,   SIM_TRACI_VAR_SPEED,
                               SIM_TRACI_VAR_LENGTH,     SIM_TRACI_VAR_WIDTH,   SIM_TRACI_VAR_HEIGHT,
                               SIM_TRACI_VAR_SIGNALS,    SIM_TRACI_VAR_VEHICLECLASS};
enum { V_POS, V_ANGLE, V_SPEED, V_LENGTH, V_WIDTH, V_HEIGHT, V_SIGNALS, N_VARS = 8 };

typedef struct decoded {
    sim_msg_traffic_vehicle v[GRID * GRID * 4 * LANES * SLOTS];
    double dist[GRID * GRID * 4 * LANES * SLOTS];
    int n;
    double ex;          /* the ego's x this tick */
    double decode;      /* s spent walking the answer (the callback included) */
} decoded;

/* One object of the subscription as a traffic.state vehicle: SUMO's front-bumper
 * position to the box's centre, its angle to our heading (the net's offset is 0). */
static int on_object(const sim_traci_object *o, void *user)
{
    decoded *d = user;
    if (o->n_vars != N_VARS || d->n >= (int)(sizeof d->v / sizeof *d->v)) return 0;
    if (o->id_len == 3 && memcmp(o->id, "ego", 3) == 0) return 0;
    sim_msg_traffic_vehicle *v = &d->v[d->n];
    memset(v, 0, sizeof *v);
    snprintf(v->id, sizeof v->id, "%.*s", (int)o->id_len, o->id);
    snprintf(v->model, sizeof v->model, "car");
    double h = remainder((90.0 - o->value[V_ANGLE].d) * M_PI / 180.0, 2 * M_PI), len = o->value[V_LENGTH].d;
    v->heading = h;
    v->pos[0] = o->value[V_POS].pos[0] - 0.5 * len * cos(h);
    v->pos[1] = o->value[V_POS].pos[1] - 0.5 * len * sin(h);
    v->size[0] = len;
    v->size[1] = o->value[V_WIDTH].d;
    v->size[2] = o->value[V_HEIGHT].d;
    v->velocity[0] = o->value[V_SPEED].d * cos(h);
    v->velocity[1] = o->value[V_SPEED].d * sin(h);
    v->brake = (o->value[V_SIGNALS].i & SIM_TRACI_SIGNAL_BRAKELIGHT) != 0;
    d->dist[d->n++] = hypot(v->pos[0] - d->ex, v->pos[1] - EGO_Y);
    return 0;
}

typedef struct parts {
    double wall, cpu_self, cpu_sumo;
    double wait, transfer, decode, encode;   /* s a tick */
    double kb_in, kb_out, kb_state;          /* a tick */
    int count_min, count_max, listed;
} parts;

static void count_into(parts *p, int count)
{
    if (count < p->count_min) p->count_min = count;
    if (count > p->count_max) p->count_max = count;
}

/* SUMO alone: a fresh SUMO past the warm-up, then `ticks` step commands, nothing else. */
static int traci_alone(int n, double dt, int ticks, parts *alone)
{
    char routes[300];
    snprintf(routes, sizeof routes, "%s/v%d.rou.xml", dir, n);
    tlink l;
    int rc = -1;
    double t = WARMUP - dt;
    memset(alone, 0, sizeof *alone);
    alone->count_min = 1 << 30;
    if (link_open(&l, routes, dt) || step_to(&l, t, NULL, NULL)) goto out;
    count_into(alone, vehicle_count(&l));
    double c0 = proc_cpu(l.pid), w0 = wall();
    l.wait = l.transfer = l.bytes_in = l.bytes_out = 0;
    for (int k = 0; k < ticks; k++)
        if (step_to(&l, t += dt, NULL, NULL)) goto out;
    alone->wall = (wall() - w0) / ticks;
    alone->cpu_sumo = (proc_cpu(l.pid) - c0) / ticks;
    alone->wait = l.wait / ticks;
    alone->transfer = l.transfer / ticks;
    alone->kb_in = l.bytes_in / ticks / 1024;
    count_into(alone, vehicle_count(&l));
    rc = 0;
out:
    link_close(&l);
    return rc;
}

/* `ticks` ticks of the coupling, as traffic-node/sumo.c does them: (1) the ego in
 * (moveToXY; the first time added, and the context subscription of `radius` made),
 * (2) the step bringing the vehicles within the radius, (3) the count and the ego's
 * leader; traffic.state encoded and printed as the bus sends it. Two untimed ticks
 * first (the ego added, subscribed), one when `add` is false. */
static int coupled_ticks(tlink *l, double *t, double dt, int ticks, double radius, bool add, parts *co)
{
    static decoded d;
    sim_error err = {0};
    memset(co, 0, sizeof *co);
    co->count_min = 1 << 30;
    double s0 = 0, p0 = 0, w0 = 0;
    for (int k = add ? -2 : -1; k < ticks; k++) {
        if (k == 0) {
            s0 = proc_cpu(l->pid);
            p0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
            w0 = wall();
            l->wait = l->transfer = l->bytes_in = l->bytes_out = 0;
            d.decode = 0;
        }
        *t += dt;
        sim_traci_reader r;
        sim_traci_msg_begin(&l->out);
        if (k == -2) {
            sim_traci_cmd_add_vehicle(&l->out, "ego", "", "DEFAULT_VEHTYPE", "first", "base");
            sim_traci_cmd_set_vehicle_int(&l->out, SIM_TRACI_VAR_SPEEDSETMODE, "ego", 0);
            sim_traci_cmd_set_vehicle_int(&l->out, SIM_TRACI_VAR_LANECHANGE_MODE, "ego", 0);
        }
        if (k == -1) sim_traci_cmd_subscribe_vehicle_context(&l->out, "ego", 0, 1e9, radius, vars, N_VARS);
        sim_traci_cmd_move_to_xy(&l->out, "ego", "", 0, ego_x(*t - WARMUP) + 2.5, EGO_Y, 90, 0);
        if (link_exchange(l, &r)) goto fail;
        double q0 = wall();
        /* the statuses: add and its two settings, or the subscription (and its first
         * answer), then moveToXY */
        for (int i = 0; k == -2 && i < 3; i++)
            if (sim_traci_read_status(&r, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, &err)) goto fail;
        if (k == -1 && (sim_traci_read_status(&r, SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT, &err) ||
                        sim_traci_read_subscription(&r, NULL, NULL, &err)))
            goto fail;
        if (sim_traci_read_status(&r, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, &err)) goto fail;
        d.decode += wall() - q0;
        d.n = 0;
        d.ex = ego_x(*t - WARMUP);
        sim_traci_msg_begin(&l->out);
        sim_traci_cmd_step(&l->out, *t);
        if (link_exchange(l, &r)) goto fail;
        q0 = wall();
        if (sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err) || sim_traci_read_step(&r, on_object, &d, &err))
            goto fail;
        d.decode += wall() - q0;
        sim_traci_msg_begin(&l->out);
        sim_traci_cmd_get_vehicle_count(&l->out);
        sim_traci_cmd_get_leader(&l->out, "ego", radius);
        if (link_exchange(l, &r)) goto fail;
        q0 = wall();
        sim_traci_value count;
        char lead[64];
        double gap;
        if (sim_traci_read_status(&r, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, &err) ||
            sim_traci_read_get(&r, SIM_TRACI_RESPONSE_GET_VEHICLE_VARIABLE, SIM_TRACI_ID_COUNT, &count, &err) ||
            sim_traci_read_status(&r, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, &err) ||
            sim_traci_read_leader(&r, lead, sizeof lead, &gap, &err))
            goto fail;
        d.decode += wall() - q0;
        /* traffic.state: the nearest MAX_LISTED (a partial selection), as traffic-node lists them */
        double e0 = wall();
        int m = d.n < MAX_LISTED ? d.n : MAX_LISTED;
        for (int i = 0; i < m; i++) {
            int best = i;
            for (int j = i + 1; j < d.n; j++)
                if (d.dist[j] < d.dist[best]) best = j;
            sim_msg_traffic_vehicle v = d.v[i];
            double dd = d.dist[i];
            d.v[i] = d.v[best], d.dist[i] = d.dist[best];
            d.v[best] = v, d.dist[best] = dd;
        }
        sim_msg_traffic_state st = {.total = count.i - 1, .ambient = count.i - 1, .vehicles = d.v, .n_vehicles = m};
        cJSON *j = sim_msg_traffic_state_encode(&st);
        char *text = j ? cJSON_PrintUnformatted(j) : NULL;
        if (!text) goto fail;
        if (k >= 0) {
            co->encode += wall() - e0;
            co->kb_state += strlen(text) / 1024.0;
            count_into(co, count.i - 1);
            co->listed = d.n;
        }
        free(text);
        cJSON_Delete(j);
    }
    co->wall = (wall() - w0) / ticks;
    co->cpu_sumo = (proc_cpu(l->pid) - s0) / ticks;
    co->cpu_self = (bench_clock(CLOCK_PROCESS_CPUTIME_ID) - p0) / ticks;
    co->wait = l->wait / ticks;
    co->transfer = l->transfer / ticks;
    co->decode = d.decode / ticks;
    co->encode /= ticks;
    co->kb_state /= ticks;
    co->kb_in = l->bytes_in / ticks / 1024;
    co->kb_out = l->bytes_out / ticks / 1024;
    return 0;
fail:
    fprintf(stderr, "bench_sumo: TraCI at %g s: %s\n", *t, err.msg[0] ? err.msg : "the connection failed");
    return -1;
}

/* The coupling's parts on a fresh SUMO: within the radius (as traffic-node), then the
 * whole fleet subscribed (a radius over the grid), for what the transfer and decoding
 * of every vehicle would cost. */
static int traci_coupled(int n, double dt, int ticks, parts *near, parts *all)
{
    char routes[300];
    snprintf(routes, sizeof routes, "%s/v%d.rou.xml", dir, n);
    tlink l;
    double t = WARMUP - dt;
    int rc = -1;
    if (link_open(&l, routes, dt) || step_to(&l, t, NULL, NULL) ||
        coupled_ticks(&l, &t, dt, ticks, RADIUS, true, near) ||
        coupled_ticks(&l, &t, dt, ticks, 2 * GRID * BLOCK, false, all))
        goto out;
    rc = 0;
out:
    link_close(&l);
    return rc;
}

/* ---- 3. the own core with n agents on a 3-lane ring: wall and CPU s a step ---- */

static double own_core(int n, double dt, int steps)
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
    double t0 = wall();
    for (int k = 0; k < steps; k++) sim_traffic_step(&t, dt);
    double per = (wall() - t0) / steps;
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
    return per;
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1) return fprintf(stderr, "usage: bench_sumo [SCALE]  (ticks per case times SCALE, >= 1)\n"), 2;
    snprintf(dir, sizeof dir, "/tmp/bench_sumo.%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (sh(cmd)) return 1;
    list_edges();
    static const struct { int n; double dt; int ticks; } cases[] = {
        {1000, 0.01, 200}, {1000, 0.1, 60}, {10000, 0.01, 30}, {10000, 0.1, 20}};
    double load[3] = {0};
    getloadavg(load, 3);
    printf("bench_sumo: SUMO grid %dx%d, 200 m blocks, %d lanes; vehicles depart at 0; ego along y=%g; "
           "radius %g m; load average %.2f at the start\n", GRID, GRID, n_edges * LANES, EGO_Y, RADIUS, load[0]);
    fflush(stdout);
    int status = 0;
    static char table[8192];
    size_t used = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int n = cases[i].n, ticks = cases[i].ticks * scale;
        double dt = cases[i].dt;
        if ((i == 0 || cases[i - 1].n != n) && make_inputs(n)) return 1;
        result co = {0};
        parts alone, near, all;
        if (cosim_run(n, dt, ticks, &co) || traci_alone(n, dt, ticks, &alone) ||
            traci_coupled(n, dt, ticks, &near, &all)) {
            status = 1;
            continue;
        }
        double own = own_core(n, dt, ticks);
        double ms = 1e3;
        printf("\n%d vehicles, %.0f Hz, %d ticks (vehicles in SUMO at each tick: %d..%d; within %g m of the ego %d, "
               "%d listed):\n", n, 1 / dt, ticks, co.count_min, co.count_max, RADIUS, near.listed, co.listed);
        printf("  co-simulated tick (traffic-node, sim.tick to sim.ack): %.3f ms wall (%.2fx real time); CPU a tick: "
               "SUMO %.3f ms, traffic-node %.3f ms\n", co.wall * ms, dt / co.wall, co.cpu_sumo * ms, co.cpu_self * ms);
        printf("  SUMO alone over TraCI (a step command a tick; count %d..%d): %.3f ms wall, SUMO CPU %.3f ms; ratio "
               "co-simulated / alone: wall %.2f, CPU (SUMO + traffic-node) / SUMO %.2f\n", alone.count_min,
               alone.count_max, alone.wall * ms, alone.cpu_sumo * ms, co.wall / alone.wall,
               (co.cpu_sumo + co.cpu_self) / alone.cpu_sumo);
        const parts *ps[] = {&near, &all};
        const char *what[] = {"within the radius", "whole fleet subscribed"};
        for (int k = 0; k < 2; k++) {
            const parts *p = ps[k];
            printf("  where the tick goes, %s (own TraCI client, the coupling's messages; count %d..%d, %d decoded): "
                   "%.3f ms wall = SUMO's step and answer %.3f + transfer %.3f (%.1f KiB in, %.2f KiB out) + decoding "
                   "%.3f + encoding traffic.state %.3f (%.1f KiB) + the rest %.3f; CPU: SUMO %.3f ms, client %.3f "
                   "ms\n", what[k], p->count_min, p->count_max, p->listed, p->wall * ms, p->wait * ms,
                   p->transfer * ms, p->kb_in, p->kb_out, p->decode * ms, p->encode * ms, p->kb_state,
                   (p->wall - p->wait - p->transfer - p->decode - p->encode) * ms, p->cpu_sumo * ms,
                   p->cpu_self * ms);
        }
        printf("  own core (common/traffic), %d agents on a 3-lane ring: %.3f ms a step; ratio co-simulated / own "
               "core %.1f\n", n, own * ms, co.wall / own);
        fflush(stdout);
        if (!(co.wall > 0 && alone.wall > 0 && own > 0)) status = 1;
        used += (size_t)snprintf(table + used, sizeof table - used,
                                 "| %d | %.0f Hz | %d..%d | %.2f | %.2f + %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | "
                                 "%.3f | %.3f | %.3f | %.2f | %.1f |\n",
                                 n, 1 / dt, co.count_min, co.count_max, co.wall * ms, co.cpu_sumo * ms,
                                 co.cpu_self * ms, alone.wall * ms, alone.cpu_sumo * ms, co.wall / alone.wall,
                                 near.wait * ms, near.transfer * ms, near.decode * ms, near.encode * ms,
                                 all.transfer * ms + all.decode * ms, own * ms, co.wall / own);
        if (used >= sizeof table) used = sizeof table - 1;
    }
    getloadavg(load, 3);
    printf("\n(ms a tick; load average %.2f %.2f %.2f at the end)\n"
           "| vehicles | rate | count | co-simulated tick | CPU: SUMO + traffic-node | SUMO alone | its CPU | ratio "
           "| SUMO step | transfer | decoding | encoding | whole fleet: transfer + decoding | own core | ratio |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n%s",
           load[0], load[1], load[2], table);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (status == 0) sh(cmd);
    return status;
}
