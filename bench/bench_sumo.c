/* Benchmark of the SUMO co-simulation at city scale (docs/traffic.md "SUMO",
 * docs/performance.md): 1,000 and 10,000 SUMO vehicles at 100 Hz and 10 Hz. Each case
 * runs three things side by side, tick by tick (so that the load of a shared machine
 * falls on each alike), and prints them with the ratios:
 *
 *   1. the co-simulated tick: traffic-node in lockstep on the bus (the ego moved into
 *      SUMO, SUMO's step, the context subscription within 300 m, each listed vehicle
 *      located on the scenario's roads, traffic.state out), from sim.tick sent to sim.ack
 *      received, with the CPU time SUMO and traffic-node spent a tick (/proc);
 *   2. SUMO alone over TraCI: a SUMO of the bench's own on the same net and demand, one
 *      step command a tick and nothing else;
 *   3. the coupling's parts: another SUMO of the bench's own, sent the coupling's three
 *      TraCI messages a tick (written and read with common/traci; traffic.state encoded
 *      with common/protocol and printed as the bus sends it), each part timed: SUMO's
 *      step (sent to the answer's first byte), the transfer (sending, and the answer's
 *      first byte to its last), decoding the subscription results, encoding traffic.state.
 *      Then, on that SUMO, as many ticks with the whole fleet subscribed (what every
 *      vehicle on the socket would cost).
 * Beside them the own traffic core (common/traffic) with as many agents (a 3-lane ring).
 *
 * Set-up takes seconds, not minutes of warm-up: a generated grid (netgenerate, 20 x 20
 * junctions, 200 m blocks, 2 lanes each way: 3,040 lanes) and a generated route file
 * whose vehicles all depart at 0 on lanes and positions spread over the grid (at most 4
 * a lane, 45 m apart), each on a 40-edge random walk (9 minutes of driving), so the
 * count is there after SUMO's first step. The count is read at every tick and printed.
 *
 * Usage: bench_sumo [SCALE]   ticks per case times SCALE (default 1: a minute or two;
 * scripts/bench-sumo-device.sh runs 10). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_sumo_link.h"
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

/* The ego's x at the session's time t: along the middle street at 10 m/s. */
static double ego_x(double t) { return 60 + 10 * t; }
#define EGO_Y (STREET_Y - 3.2)

/* ---- 1. the co-simulated tick: traffic-node on the bus ---- */

/* What a case measured one way, summed over the timed ticks (divided at the end). */
typedef struct parts {
    double wall;                             /* s */
    double cpu_sumo, cpu_self;               /* s: SUMO's, and the coupling's (traffic-node, or this client) */
    double wait, transfer, decode, encode;   /* s */
    double kb_in, kb_out, kb_state;
    int count_min, count_max, listed;
} parts;

static void count_into(parts *p, int count)
{
    if (count < p->count_min) p->count_min = count;
    if (count > p->count_max) p->count_max = count;
}

typedef struct cosim {
    ts_dispatcher d;
    ts_conn *phys;
    pid_t node, sumo;
    uint64_t seq;
    double dt, cpu0_sumo, cpu0_node;
    char sumo_dir[300];
    parts p;
} cosim;

/* Tick k (from -1: the ego goes in, not timed): vehicle.state and sim.tick out,
 * traffic.state and sim.ack back. */
static int cosim_tick(cosim *c, int k)
{
    static char line[1 << 17];
    double t = (k + 1) * c->dt, w0 = wall();
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"topic\":\"vehicle.state\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.3f,\"speed\":10,"
             "\"pos\":[%.3f,%.3f,0],\"heading\":0}",
             (unsigned long long)++c->seq, t, ego_x(t), EGO_Y);
    ts_send_line(c->phys, msg);
    snprintf(msg, sizeof msg,
             "{\"topic\":\"sim.tick\",\"src\":\"physics\",\"seq\":%llu,\"t\":%.3f,\"n\":%d,\"dt\":%g,"
             "\"run\":0,\"paused\":false}",
             (unsigned long long)++c->seq, t, k + 1, c->dt);
    ts_send_line(c->phys, msg);
    cJSON *st = ts_expect_topic(c->phys, "traffic.state", 120000, line, sizeof line);
    if (!st) return -1;
    int total = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(st, "total"));
    c->p.listed = cJSON_GetArraySize(cJSON_GetObjectItem(st, "vehicles"));
    cJSON_Delete(st);
    cJSON *ack = ts_expect_topic(c->phys, "sim.ack", 120000, NULL, 0);
    if (!ack) return -1;
    cJSON_Delete(ack);
    if (k >= 0) {
        c->p.wall += wall() - w0;
        count_into(&c->p, total);
    }
    return 0;
}

/* The dispatcher, traffic-node with SUMO on the case's scenario, the first tick. */
static int cosim_open(cosim *c, int n, double dt)
{
    memset(c, 0, sizeof *c);
    c->dt = dt;
    c->p.count_min = 1 << 30;
    snprintf(c->sumo_dir, sizeof c->sumo_dir, "%s/node%d", dir, n);
    if (!ts_dispatcher_start(&c->d, NULL)) return -1;
    c->phys = ts_join(c->d.port, "physics", "[\"sim.ack\",\"traffic.state\",\"dispatcher.joined\"]", NULL);
    if (!c->phys) return -1;
    char bus[64], scenario[300], step[32];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", c->d.port);
    snprintf(scenario, sizeof scenario, "%s/grid%d.json", dir, n);
    snprintf(step, sizeof step, "%g", dt);
    char *argv[] = {"traffic-node", "--bus",    bus,           "--scenario", scenario, "--lockstep",
                    "--sumo-dir",   c->sumo_dir, "--sumo-step", step,        NULL};
    fflush(stdout);
    c->node = ts_spawn(argv, false);
    for (;;) {
        cJSON *j = ts_expect_topic(c->phys, "dispatcher.joined", 120000, NULL, 0);
        if (!j) return -1;
        const cJSON *name = cJSON_GetObjectItem(j, "name");
        bool it = cJSON_IsString(name) && strcmp(name->valuestring, "traffic") == 0;
        cJSON_Delete(j);
        if (it) break;
    }
    c->sumo = ts_child_of(c->node, "sumo");
    if (cosim_tick(c, -1)) return -1;
    c->cpu0_sumo = proc_cpu(c->sumo);
    c->cpu0_node = proc_cpu(c->node);
    return 0;
}

static void cosim_finish(cosim *c, int ticks)
{
    c->p.cpu_sumo = (proc_cpu(c->sumo) - c->cpu0_sumo) / ticks;
    c->p.cpu_self = (proc_cpu(c->node) - c->cpu0_node) / ticks;
    c->p.wall /= ticks;
}

static void cosim_close(cosim *c)
{
    if (c->node > 0) ts_stop(c->node, SIGTERM, 10000);
    if (c->phys) ts_close(c->phys);
    if (c->d.pid > 0) ts_dispatcher_stop(&c->d);
}

/* ---- 2. the bench's own TraCI connection: SUMO alone, then the coupling's parts ---- */

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

/* A SUMO of the bench's own, past the warm-up, with what its ticks measured. */
typedef struct session {
    tlink l;
    double t, dt, cpu0;
    parts p;
} session;

static int session_open(session *s, int n, double dt)
{
    char net[300], routes[300], log[300];
    snprintf(net, sizeof net, "%s/grid.net.xml", dir);
    snprintf(routes, sizeof routes, "%s/v%d.rou.xml", dir, n);
    static int opened;
    snprintf(log, sizeof log, "%s/sumo-%d.log", dir, ++opened);
    memset(&s->p, 0, sizeof s->p);
    s->p.count_min = 1 << 30;
    s->dt = dt;
    s->t = WARMUP - dt;
    if (link_open(&s->l, net, routes, dt, log) || step_to(&s->l, s->t, NULL, NULL)) return -1;
    count_into(&s->p, vehicle_count(&s->l));
    return 0;
}

/* From here the ticks are timed. */
static void session_start(session *s)
{
    s->cpu0 = proc_cpu(s->l.pid);
    s->l.wait = s->l.transfer = s->l.bytes_in = s->l.bytes_out = 0;
}

static void session_finish(session *s, int ticks)
{
    parts *p = &s->p;
    p->cpu_sumo = (proc_cpu(s->l.pid) - s->cpu0) / ticks;
    p->wait = s->l.wait / ticks;
    p->transfer = s->l.transfer / ticks;
    p->kb_in = s->l.bytes_in / ticks / 1024;
    p->kb_out = s->l.bytes_out / ticks / 1024;
    p->wall /= ticks;
    p->cpu_self /= ticks;
    p->decode /= ticks;
    p->encode /= ticks;
    p->kb_state /= ticks;
}

/* SUMO alone: one step command a tick, nothing else. */
static int alone_tick(session *s)
{
    double w0 = wall();
    if (step_to(&s->l, s->t += s->dt, NULL, NULL)) return -1;
    s->p.wall += wall() - w0;
    return 0;
}

/* One tick of the coupling, as traffic-node/sumo.c does it: (1) the ego in (moveToXY;
 * at k -2 added, at k -1 the context subscription of `radius` made), (2) the step
 * bringing the vehicles within the radius, (3) the count and the ego's leader;
 * traffic.state encoded and printed as the bus sends it. Timed from k 0. */
static int coupled_tick(session *s, int k, double radius, decoded *d)
{
    tlink *l = &s->l;
    parts *co = &s->p;
    sim_error err = {0};
    double w0 = wall(), c0 = bench_clock(CLOCK_THREAD_CPUTIME_ID), decode = 0;
    s->t += s->dt;
    sim_traci_reader r;
    sim_traci_msg_begin(&l->out);
    if (k == -2) {
        sim_traci_cmd_add_vehicle(&l->out, "ego", "", "DEFAULT_VEHTYPE", "first", "base");
        sim_traci_cmd_set_vehicle_int(&l->out, SIM_TRACI_VAR_SPEEDSETMODE, "ego", 0);
        sim_traci_cmd_set_vehicle_int(&l->out, SIM_TRACI_VAR_LANECHANGE_MODE, "ego", 0);
    }
    if (k == -1) sim_traci_cmd_subscribe_vehicle_context(&l->out, "ego", 0, 1e9, radius, vars, N_VARS);
    sim_traci_cmd_move_to_xy(&l->out, "ego", "", 0, ego_x(s->t - WARMUP) + 2.5, EGO_Y, 90, 0);
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
    decode += wall() - q0;
    d->n = 0;
    d->ex = ego_x(s->t - WARMUP);
    sim_traci_msg_begin(&l->out);
    sim_traci_cmd_step(&l->out, s->t);
    if (link_exchange(l, &r)) goto fail;
    q0 = wall();
    if (sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err) || sim_traci_read_step(&r, on_object, d, &err))
        goto fail;
    decode += wall() - q0;
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
    decode += wall() - q0;
    /* traffic.state: the nearest MAX_LISTED (a partial selection), as traffic-node lists them */
    double e0 = wall();
    int m = d->n < MAX_LISTED ? d->n : MAX_LISTED;
    for (int i = 0; i < m; i++) {
        int best = i;
        for (int j = i + 1; j < d->n; j++)
            if (d->dist[j] < d->dist[best]) best = j;
        sim_msg_traffic_vehicle v = d->v[i];
        double dd = d->dist[i];
        d->v[i] = d->v[best], d->dist[i] = d->dist[best];
        d->v[best] = v, d->dist[best] = dd;
    }
    sim_msg_traffic_state st = {.total = count.i - 1, .ambient = count.i - 1, .vehicles = d->v, .n_vehicles = m};
    cJSON *j = sim_msg_traffic_state_encode(&st);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    if (!text) goto fail;
    double encode = wall() - e0, kb = strlen(text) / 1024.0;
    free(text);
    cJSON_Delete(j);
    if (k >= 0) {
        co->wall += wall() - w0;
        co->cpu_self += bench_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
        co->decode += decode;
        co->encode += encode;
        co->kb_state += kb;
        count_into(co, count.i - 1);
        co->listed = d->n;
    }
    return 0;
fail:
    fprintf(stderr, "bench_sumo: TraCI at %g s: %s\n", s->t, err.msg[0] ? err.msg : "the connection failed");
    return -1;
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
    if (system("command -v sumo >/dev/null 2>&1 && command -v netgenerate >/dev/null 2>&1") != 0)
        return fprintf(stderr, "bench_sumo: needs SUMO's `sumo` and `netgenerate` on PATH; install them with "
                               "`apt-get install sumo sumo-tools` (`sh scripts/deps.sh` does)\n"), 1;
    snprintf(dir, sizeof dir, "/tmp/bench_sumo.%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (sh(cmd)) return 1;
    list_edges();
    static const struct { int n; double dt; int ticks; } cases[] = {
        {1000, 0.01, 100}, {1000, 0.1, 40}, {10000, 0.01, 20}, {10000, 0.1, 15}};
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
        /* the three side by side, tick by tick, so that the load of the shared machine
         * falls on each alike; then the whole fleet subscribed, on the coupling's SUMO */
        static cosim c;
        static session al, cs;
        static decoded d;
        memset(&al, 0, sizeof al), memset(&cs, 0, sizeof cs);
        al.l.fd = cs.l.fd = -1;
        int ok = cosim_open(&c, n, dt) == 0 && session_open(&al, n, dt) == 0 && session_open(&cs, n, dt) == 0 &&
                 coupled_tick(&cs, -2, RADIUS, &d) == 0 && coupled_tick(&cs, -1, RADIUS, &d) == 0;
        if (ok) {
            session_start(&al);
            session_start(&cs);
        }
        for (int k = 0; ok && k < ticks; k++)
            ok = cosim_tick(&c, k) == 0 && alone_tick(&al) == 0 && coupled_tick(&cs, k, RADIUS, &d) == 0;
        if (ok) {
            cosim_finish(&c, ticks);
            session_finish(&al, ticks);
            session_finish(&cs, ticks);
            count_into(&al.p, vehicle_count(&al.l));
        }
        parts co = c.p, alone = al.p, near = cs.p;
        cosim_close(&c);
        link_close(&al.l);
        ok = ok && coupled_tick(&cs, -1, 2 * GRID * BLOCK, &d) == 0;
        memset(&cs.p, 0, sizeof cs.p);
        cs.p.count_min = 1 << 30;
        if (ok) session_start(&cs);
        for (int k = 0; ok && k < ticks; k++) ok = coupled_tick(&cs, k, 2 * GRID * BLOCK, &d) == 0;
        if (ok) session_finish(&cs, ticks);
        parts all = cs.p;
        link_close(&cs.l);
        if (!ok) {
            fprintf(stderr, "bench_sumo: %d vehicles at %g s stopped (logs in %s)\n", n, dt, dir);
            status = 1;
            continue;
        }
        double own = own_core(n, dt, ticks > 200 ? ticks : 200);
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
                                 "| %d | %.0f Hz | %d..%d | %.2f | %.2f + %.2f | %.2f | %.2f | %.2f / %.2f | %.2f | %.3f | "
                                 "%.3f | %.3f | %.3f | %.2f | %.1f |\n",
                                 n, 1 / dt, co.count_min, co.count_max, co.wall * ms, co.cpu_sumo * ms,
                                 co.cpu_self * ms, alone.wall * ms, alone.cpu_sumo * ms, co.wall / alone.wall,
                                 (co.cpu_sumo + co.cpu_self) / alone.cpu_sumo, near.wait * ms, near.transfer * ms, near.decode * ms, near.encode * ms,
                                 all.transfer * ms + all.decode * ms, own * ms, co.wall / own);
        if (used >= sizeof table) used = sizeof table - 1;
    }
    getloadavg(load, 3);
    printf("\n(ms a tick; load average %.2f %.2f %.2f at the end)\n"
           "| vehicles | rate | count | co-simulated tick | CPU: SUMO + traffic-node | SUMO alone | its CPU | ratio wall / CPU "
           "| SUMO step | transfer | decoding | encoding | whole fleet: transfer + decoding | own core | ratio |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n%s",
           load[0], load[1], load[2], table);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (status == 0) sh(cmd);
    return status;
}
