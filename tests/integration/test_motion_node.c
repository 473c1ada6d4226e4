/* Integration test of motion-node with a UDP listener: a car (the test, joined as
 * physics) stands, brakes at 0.8 g for 3 s and changes lanes; the listener receives
 * every pose datagram in order (seq without a gap) at 100 Hz, the actuators never pass
 * their stroke, velocity or acceleration (from the datagrams' lengths, step by step),
 * the braking shows as a pitch nose down, motion.state is on the bus; then the dispatcher
 * goes away and the node fades to the neutral pose within the limits; SIGTERM then
 * ends it with status 0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_file.h"
#include "sim_motion.h"
#include "sim_motion_packet.h"
#include "sim_msg_motion.h"
#include "test_support.h"

#define DT 0.01
#define G SIM_MOTION_G

typedef struct listener {
    int fd, port;
    sim_motion_packet last;
    int count;
    double len_v[6];           /* the last velocity of each actuator */
    unsigned limits_seen;
    double max_pitch;
    const sim_motion_platform *pf;
} listener;

static void listen_udp(listener *l)
{
    l->fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(l->fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(l->fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t n = sizeof a;
    assert_int_equal(getsockname(l->fd, (struct sockaddr *)&a, &n), 0);
    l->port = ntohs(a.sin_port);
}

/* Reads the datagrams there are (waiting up to wait_ms for the first): each must follow
 * the last one, and keep every actuator limit. */
static int drain(listener *l, int wait_ms)
{
    int got = 0;
    struct pollfd p = {.fd = l->fd, .events = POLLIN};
    while (poll(&p, 1, got ? 0 : wait_ms) > 0) {
        uint8_t buf[256];
        ssize_t n = recv(l->fd, buf, sizeof buf, 0);
        sim_motion_packet k;
        sim_error err;
        assert_int_equal(sim_motion_packet_decode(buf, (size_t)n, &k, &err), SIM_OK);
        assert_int_equal(k.legs, 6);
        if (l->count > 0) {
            assert_int_equal(k.seq, l->last.seq + 1); /* every pose, in order */
            for (int i = 0; i < 6; i++) {
                double v = (k.len[i] - l->last.len[i]) / DT, a = (v - l->len_v[i]) / DT;
                assert_true(fabs(v) <= l->pf->vel_max + 1e-6);
                if (l->count > 1) assert_true(fabs(a) <= l->pf->acc_max + 1e-4);
                l->len_v[i] = v;
            }
        }
        for (int i = 0; i < 6; i++) assert_true(k.len[i] >= l->pf->len_min - 1e-9 && k.len[i] <= l->pf->len_max + 1e-9);
        l->limits_seen |= k.limits;
        if (k.pose[4] > l->max_pitch) l->max_pitch = k.pose[4];
        l->last = k;
        l->count++;
        got++;
    }
    return got;
}

static void send_state(ts_conn *c, double t, const double f[3], const double w[3])
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"topic\":\"vehicle.state\",\"t\":%.3f,\"speed\":20,\"head_f\":[%.6f,%.6f,%.6f],"
             "\"head_w\":[%.6f,%.6f,%.6f]}", t, f[0], f[1], f[2], w[0], w[1], w[2]);
    assert_true(ts_send_line(c, line));
}

static void poses_in_order_at_the_rate_and_neutral_after_a_lost_bus(void **state)
{
    char *text;
    size_t len;
    sim_error err;
    sim_motion_platform pf;
    const char *file = ts_root("config/motion/hexapod.json");
    assert_int_equal(sim_file_read(file, &text, &len, &err), SIM_OK);
    assert_int_equal(sim_motion_platform_parse(text, len, file, &pf, &err), SIM_OK);
    free(text);
    listener l = {.pf = &pf};
    listen_udp(&l);

    ts_dispatcher d;
    assert_true(ts_dispatcher_start(&d, NULL));
    ts_conn *car = ts_join(d.port, "physics", "[\"dispatcher.\"]", NULL);
    ts_conn *tap = ts_join(d.port, "tap", "[\"motion.state\"]", NULL);
    assert_non_null(car);
    assert_non_null(tap);
    char bus[64], udp[64];
    snprintf(bus, sizeof bus, "127.0.0.1:%d", d.port);
    snprintf(udp, sizeof udp, "127.0.0.1:%d", l.port);
    char *argv[] = {"motion-node", "--bus", bus, "--udp", udp, "--platform", (char *)file, NULL};
    pid_t pid = ts_spawn(argv, false);
    cJSON *j = ts_expect_topic(car, "dispatcher.joined", 5000, NULL, 0);
    assert_non_null(j);
    cJSON_Delete(j);

    /* 2.5 s standing (the fade in), 3 s braking at 0.8 g, 1.5 s standing, a 2.5 s lane
     * change (lateral 4 m/s^2 one way then the other, yawing and rolling with it) */
    double t0 = ts_now_ms(), next = t0;
    int first = -1, steps = 0;
    double t_first = 0;
    for (int k = 0; k < 950; k++) {
        double t = k * DT, f[3] = {0, 0, G}, w[3] = {0};
        if (t >= 2.5 && t < 5.5) f[0] = -0.8 * G;
        if (t >= 7.0 && t < 9.5) {
            double s = sin(2 * M_PI * (t - 7.0) / 2.5);
            f[1] = 4 * s;
            w[2] = 0.25 * s;
            w[0] = 0.05 * cos(2 * M_PI * (t - 7.0) / 2.5);
        }
        send_state(car, t, f, w);
        next += 10;
        while (ts_now_ms() < next) {
            int got = drain(&l, (int)fmax(1, next - ts_now_ms()));
            if (got && first < 0) first = l.count - got, t_first = ts_now_ms();
        }
    }
    steps = l.count - first;
    double secs = (ts_now_ms() - t_first) / 1000;
    fprintf(stderr, "motion-node: %d datagrams in %.2f s (%.1f Hz), limits seen %#x, max pitch %.2f deg\n", steps,
            secs, steps / secs, l.limits_seen, l.max_pitch * 180 / M_PI);
    assert_true(steps / secs > 90 && steps / secs < 110);
    assert_int_equal(l.last.state, SIM_MOTION_RUNNING);
    assert_true(l.max_pitch > 2 * M_PI / 180); /* braking: nose down (pitch > 0), tilt coordination */
    j = ts_expect_topic(tap, "motion.state", 2000, NULL, 0);
    assert_non_null(j);
    sim_msg_motion_state ms;
    assert_int_equal(sim_msg_motion_state_decode(j, &ms, &err), SIM_OK);
    assert_int_equal(ms.n_len, 6);
    assert_string_equal(ms.platform, "hexapod");
    cJSON_Delete(j);

    /* the bus goes away while the car turns: fade to neutral, within the limits */
    ts_close(tap);
    ts_close(car);
    ts_dispatcher_stop(&d);
    double lost = ts_now_ms();
    while (l.last.state != SIM_MOTION_NEUTRAL && ts_now_ms() - lost < 10000) drain(&l, 100);
    fprintf(stderr, "motion-node: neutral %.2f s after the bus was lost\n", (ts_now_ms() - lost) / 1000);
    assert_int_equal(l.last.state, SIM_MOTION_NEUTRAL);
    assert_true(ts_now_ms() - lost < (pf.fade_s + 1.5) * 1000);
    double L0[6];
    sim_motion_ik(&pf, (double[6]){0}, L0);
    for (int i = 0; i < 6; i++) {
        assert_true(fabs(l.last.pose[i]) < 1e-9);
        assert_true(fabs(l.last.len[i] - L0[i]) < 1e-9);
    }
    int st = ts_stop(pid, SIGTERM, 5000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(l.fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poses_in_order_at_the_rate_and_neutral_after_a_lost_bus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
