/* motion-node: drives a motion base (docs/motion.md). Every 10 ms (--rate) it runs the
 * cueing of common/motion (washout, kinematics, actuator limits) on the newest
 * vehicle.state's motion at the driver's head (head_f, head_w), publishes motion.state
 * and sends the pose and actuator lengths to the platform as one UDP datagram
 * (sim_motion_packet.h; loopback by default). It fades in once the car moves, and out
 * to the neutral pose, within the actuators' limits, at pause, stop, a stale car state
 * and a lost bus; at stop and SIGINT/SIGTERM it exits once standing at neutral.
 * Exit status: 0 after stop or a signal, 1 when the platform file cannot be read or
 * the UDP socket not opened, 2 for usage errors. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_file.h"
#include "sim_motion.h"
#include "sim_motion_packet.h"
#include "sim_msg_motion.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "sim_node.h"

static const char *const ACTS_ON[] = {"pause", "resume", "stop"};
#define N_ACTS_ON (sizeof ACTS_ON / sizeof ACTS_ON[0])

typedef struct motion_node {
    sim_node *sn;
    sim_bus *bus;
    const char *platform, *udp, *scenario;
    int rate;
    double stale_ms;
    sim_motion m;
    int fd;
    struct sockaddr_in to;
    uv_timer_t timer;
    bool timer_on;
    sim_motion_input car;     /* the newest vehicle.state's head motion */
    double car_ms;            /* when it came (loop time); < 0: none yet */
    bool paused, stopping, bus_up;
    double sim_t;
    uint32_t seq;
    uint64_t t0;
} motion_node;

static bool running(const motion_node *n, double now)
{
    return n->bus_up && !n->paused && !n->stopping && n->car_ms >= 0 && now - n->car_ms <= n->stale_ms;
}

static void step(motion_node *n, uv_loop_t *loop)
{
    double now = (double)uv_now(loop);
    bool run = running(n, now);
    sim_motion_fade(&n->m, run);
    sim_motion_out o;
    sim_motion_step(&n->m, run ? &n->car : NULL, &o);
    sim_motion_state st = sim_motion_at_neutral(&n->m) ? SIM_MOTION_NEUTRAL
                          : o.gain >= 1                 ? SIM_MOTION_RUNNING
                          : run                         ? SIM_MOTION_FADING_IN
                                                        : SIM_MOTION_FADING_OUT;
    sim_motion_packet p = {.legs = n->m.pf.legs, .seq = n->seq++, .limits = o.limits, .state = st,
                           .t = (double)(uv_hrtime() - n->t0) * 1e-9};
    memcpy(p.pose, o.pose, sizeof p.pose);
    memcpy(p.len, o.len, sizeof p.len);
    uint8_t buf[SIM_MOTION_PACKET_SIZE];
    sim_motion_packet_encode(&p, buf);
    if (sendto(n->fd, buf, sizeof buf, 0, (struct sockaddr *)&n->to, sizeof n->to) < 0 && errno != EAGAIN &&
        errno != ECONNREFUSED)
        fprintf(stderr, "motion-node: udp: %s\n", strerror(errno));
    if (n->bus && n->bus_up) {
        sim_msg_motion_state ms = {.n_len = n->m.pf.legs, .limits = (int)o.limits, .gain = o.gain, .step = p.seq};
        snprintf(ms.platform, sizeof ms.platform, "%s", n->m.pf.name);
        snprintf(ms.state, sizeof ms.state, "%s", sim_motion_state_name(st));
        for (int k = 0; k < 3; k++) {
            ms.pos[k] = o.pose[k];
            ms.ang[k] = o.pose[3 + k];
            ms.f[k] = o.f[k];
            ms.w[k] = o.w[k];
            ms.car_f[k] = run ? n->car.f[k] : (k == 2 ? SIM_MOTION_G : 0);
            ms.car_w[k] = run ? n->car.w[k] : 0;
        }
        memcpy(ms.len, o.len, sizeof ms.len);
        cJSON *j = sim_msg_motion_state_encode(&ms);
        if (j) sim_bus_publish(n->bus, SIM_TOPIC_MOTION_STATE, n->sim_t, j);
        cJSON_Delete(j);
    }
    if (n->stopping && st == SIM_MOTION_NEUTRAL) sim_node_stop(n->sn, "stopped at neutral");
}

/* The steps are due on a fixed grid from the start (step k at t0 + k / rate): a late
 * timer runs the missed ones at once, so the platform gets rate datagrams a second
 * however the loop is loaded, and the filters' fixed step holds. */
static void on_timer(uv_timer_t *t)
{
    motion_node *n = t->data;
    uint64_t period = 1000000000ull / (uint64_t)n->rate, due = (uv_hrtime() - n->t0) / period + 1;
    for (int k = 0; n->seq < due && k < n->rate && n->timer_on; k++) step(n, t->loop);
    if (!n->timer_on) return;
    uint64_t next = n->t0 + (uint64_t)n->seq * period, now = uv_hrtime();
    uv_timer_start(&n->timer, on_timer, next > now ? (next - now + 999999) / 1000000 : 0, 0);
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    motion_node *n = user;
    if (!isnan(env->t)) n->sim_t = env->t;
    if (strcmp(env->topic, SIM_TOPIC_VEHICLE_STATE) == 0) {
        sim_msg_vehicle_state s;
        if (sim_msg_vehicle_state_decode(msg, &s, NULL) != SIM_OK || isnan(s.head_f[0]) || isnan(s.head_w[0]))
            return; /* a state without the head's motion (a replay, an old physics) moves nothing */
        memcpy(n->car.f, s.head_f, sizeof n->car.f);
        memcpy(n->car.w, s.head_w, sizeof n->car.w);
        n->car_ms = (double)uv_now(sim_node_loop(sn));
    } else if (strcmp(env->topic, SIM_TOPIC_SIM_TICK) == 0) {
        n->paused = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "paused"));
    } else if (strncmp(env->topic, "control.", 8) == 0) {
        const char *cmd = sim_command_receive(n->bus, n->sim_t, "motion-node", ACTS_ON, N_ACTS_ON, msg);
        if (!cmd) return;
        if (strcmp(cmd, "pause") == 0) n->paused = true;
        if (strcmp(cmd, "resume") == 0) n->paused = false;
        if (strcmp(cmd, "stop") == 0) n->stopping = true; /* ends once at neutral (on_timer) */
        sim_command_answer(n->bus, n->sim_t, "motion-node", msg, true, NULL);
    }
}

static void on_bus(sim_node *sn, const cJSON *welcome, void *user)
{
    motion_node *n = user;
    n->bus_up = welcome != NULL;
    if (!welcome) fprintf(stderr, "motion-node: bus lost: fading to neutral\n");
}

static void on_signal(sim_node *sn, int signum, void *user)
{
    motion_node *n = user;
    if (n->stopping) sim_node_stop(sn, "second signal");
    n->stopping = true;
}

static int load_platform(motion_node *n, sim_error *err)
{
    char path[1024], *text;
    size_t len;
    bool file = strchr(n->platform, '/') || strstr(n->platform, ".json");
    const char *root = getenv("SIM_ROOT");
    if (file) snprintf(path, sizeof path, "%s", n->platform);
    else snprintf(path, sizeof path, "%s%sconfig/motion/%s.json", root ? root : "", root ? "/" : "", n->platform);
    if (sim_file_read(path, &text, &len, err)) return -1;
    sim_motion_platform pf;
    int rc = sim_motion_platform_parse(text, len, path, &pf, err);
    free(text);
    if (!rc) rc = sim_motion_init(&n->m, &pf, 1.0 / n->rate, err);
    return rc;
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    motion_node *n = user;
    n->sn = sn;
    n->car_ms = -1;
    if (n->rate < 50 || n->rate > 1000) {
        sim_error_set(err, SIM_ERANGE, "--rate %d, expected 50..1000 Hz", n->rate);
        return 2;
    }
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(n->udp, host, sizeof host, &port, err)) return 2;
    memset(&n->to, 0, sizeof n->to);
    n->to.sin_family = AF_INET;
    n->to.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &n->to.sin_addr) != 1) {
        sim_error_set(err, SIM_EINVAL, "--udp %s: expected an IPv4 address", n->udp);
        return 2;
    }
    if (load_platform(n, err)) return 1;
    n->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (n->fd < 0) {
        sim_error_set(err, SIM_EIO, "udp socket: %s", strerror(errno));
        return 1;
    }
    return 0;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    motion_node *n = user;
    n->bus = sim_node_bus(sn);
    n->t0 = uv_hrtime();
    uv_timer_init(sim_node_loop(sn), &n->timer);
    n->timer.data = n;
    n->timer_on = true;
    uv_timer_start(&n->timer, on_timer, 0, 0);
    fprintf(stderr, "motion-node: %s (%s, %d actuators), %d Hz, poses to udp %s\n", n->m.pf.name,
            sim_motion_kind_name(n->m.pf.kind), n->m.pf.legs, n->rate, n->udp);
    return 0;
}

static void on_stop(sim_node *sn, const char *why, void *user)
{
    motion_node *n = user;
    n->bus = NULL;
    if (n->timer_on) uv_close((uv_handle_t *)&n->timer, NULL);
    n->timer_on = false;
}

static int teardown(sim_node *sn, void *user)
{
    motion_node *n = user;
    if (n->fd >= 0) close(n->fd);
    return 0;
}

int main(int argc, char **argv)
{
    static motion_node n = {.platform = "hexapod", .udp = "127.0.0.1:7710", .rate = 100, .stale_ms = 200, .fd = -1};
    const sim_opt opts[] = {
        {"platform", SIM_OPT_STRING, &n.platform, "NAME|FILE", "the motion base: config/motion/NAME.json or a file (default hexapod)"},
        {"udp", SIM_OPT_STRING, &n.udp, "HOST:PORT", "where the pose datagrams go (default 127.0.0.1:7710)"},
        {"rate", SIM_OPT_INT, &n.rate, "HZ", "cueing steps and datagrams per second, 50..1000 (default 100)"},
        {"scenario", SIM_OPT_STRING, &n.scenario, "FILE", "the session's scenario (simctl run gives every module one; the platform file, not the scenario, sets the cueing)"},
        {"stale-ms", SIM_OPT_DOUBLE, &n.stale_ms, "MS", "fade out when no vehicle.state came for this long (default 200)"},
    };
    static const char *const subs[] = {SIM_TOPIC_VEHICLE_STATE, SIM_TOPIC_SIM_TICK, "control."};
    const sim_node_desc desc = {
        .prog = "motion-node", .usage = "motion-node [options]",
        .about = "Motion cueing: drives a motion base from vehicle.state over UDP; publishes motion.state.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "motion", .subscribe = subs, .n_subscribe = sizeof subs / sizeof *subs, .acts_on = ACTS_ON,
                .n_acts_on = N_ACTS_ON},
        .setup = setup, .start = start, .on_message = on_message, .on_bus = on_bus, .on_signal = on_signal,
        .on_stop = on_stop, .teardown = teardown, .user = &n};
    return sim_node_run(&desc, argc, argv);
}
