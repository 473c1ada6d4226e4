/* sim_msg_clock: the lab's clock exchange and host watch on the bus (docs/lab.md,
 * docs/protocol.md).
 *
 *   clock.ping {host, id, t1, m1}     simctl run --lab, to each other host's clock agent
 *                                     (`simctl __clock HOST`), every SIM_CLOCK_PING_MS
 *   clock.pong {host, id, t1, m1, t2, m2, t3, m3, sync, synced}   that agent's answer
 *   session.clock {host, offset_ms, mono_offset_ms, rtt_ms, samples, answered, sync, synced}
 *                                     simctl, every SIM_CLOCK_REPORT_PINGS pings per host
 *   session.host {host, state, reason, silent_ms}   simctl: a host "lost" or "back"
 *
 * The four time stamps, NTP style: t1 the ping sent (the measurer's clock), t2 the ping
 * received and t3 the pong sent (the host's clock), t4 the pong received (the
 * measurer's, not on the bus). t* are CLOCK_REALTIME in Unix seconds, m* the same
 * moments on CLOCK_MONOTONIC (s). offset = ((t2 - t1) + (t3 - t4)) / 2: how far the
 * host's clock is ahead of the measurer's (a host time T is the measurer's T - offset);
 * rtt = (m4 - m1) - (m3 - m2): the time on the wire and in the dispatcher.
 * session.clock gives, of the last `samples` exchanges of that host, the one with the
 * smallest round trip (its error is at most rtt / 2); answered: how many of them came
 * back. sync: what keeps that host's clock ("chrony", "ntpd", "timesyncd", "ptp4l",
 * "phc2sys": the daemon found running there; "none"), synced: whether its kernel says
 * its clock is synchronised (adjtimex: not TIME_ERROR). */
#ifndef SIM_MSG_CLOCK_H
#define SIM_MSG_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_CLOCK_HOST_MAX 64
#define SIM_CLOCK_PING_MS 100      /* one exchange per host this often */
#define SIM_CLOCK_REPORT_PINGS 20  /* session.clock after this many (2 s), best of them */
#define SIM_CLOCK_LOST_MS 700      /* no answer for this long: the host is lost */
#define SIM_CLOCK_SYNC_MAX 16

typedef struct sim_msg_clock_ping {
    char host[SIM_CLOCK_HOST_MAX];
    uint64_t id;
    double t1, m1;
} sim_msg_clock_ping;

typedef struct sim_msg_clock_pong {
    char host[SIM_CLOCK_HOST_MAX];
    uint64_t id;
    double t1, m1, t2, m2, t3, m3;
    char sync[SIM_CLOCK_SYNC_MAX];
    bool synced;
} sim_msg_clock_pong;

typedef struct sim_msg_session_clock {
    char host[SIM_CLOCK_HOST_MAX];
    double offset_ms, mono_offset_ms, rtt_ms;
    int samples, answered;
    char sync[SIM_CLOCK_SYNC_MAX];
    bool synced;
} sim_msg_session_clock;

typedef struct sim_msg_session_host {
    char host[SIM_CLOCK_HOST_MAX];
    char state[8];    /* "lost", "back" */
    char reason[160];
    double silent_ms; /* since its last answer */
} sim_msg_session_host;

cJSON *sim_msg_clock_ping_encode(const sim_msg_clock_ping *m);
int sim_msg_clock_ping_decode(const cJSON *msg, sim_msg_clock_ping *out, sim_error *err);
cJSON *sim_msg_clock_pong_encode(const sim_msg_clock_pong *m);
int sim_msg_clock_pong_decode(const cJSON *msg, sim_msg_clock_pong *out, sim_error *err);
cJSON *sim_msg_session_clock_encode(const sim_msg_session_clock *m);
int sim_msg_session_clock_decode(const cJSON *msg, sim_msg_session_clock *out, sim_error *err);
cJSON *sim_msg_session_host_encode(const sim_msg_session_host *m);
int sim_msg_session_host_decode(const cJSON *msg, sim_msg_session_host *out, sim_error *err);

/* One exchange's estimate (s): the pong and the moment it came back (t4 realtime, m4
 * monotonic). Pure. */
typedef struct sim_clock_sample {
    double offset, mono_offset, rtt;
} sim_clock_sample;
sim_clock_sample sim_clock_estimate(const sim_msg_clock_pong *p, double t4, double m4);
/* The clock daemon a process name (/proc/PID/comm) is, as sync names it ("chrony" for
 * chronyd, "ntpd", "timesyncd" for systemd-timesyncd, "ptp4l", "phc2sys"), or NULL. Pure. */
const char *sim_clock_sync_daemon(const char *comm);
/* The index of the sample with the smallest rtt among s[0..n); -1 when n is 0. */
int sim_clock_best(const sim_clock_sample *s, int n);

#endif
