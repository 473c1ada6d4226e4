/* sim_msg_clock: clock.ping, clock.pong, session.clock, session.host (see sim_msg_clock.h). */
#include "sim_msg_clock.h"

#include <math.h>
#include <string.h>

#include "sim_msg_fields.h"

#define ANY -INFINITY, INFINITY
#define HOST(T) {"host", SIM_MF_STR, SIM_MF_AT(T, host, SIM_MF_STR, SIM_CLOCK_HOST_MAX), 0, 0, SIM_CLOCK_HOST_MAX}

#define F(name, kind, ...) {#name, kind, SIM_MF_AT(sim_msg_clock_ping, name, kind, 0), __VA_ARGS__, 0}
static const sim_msg_field PING[] = {HOST(sim_msg_clock_ping), F(id, SIM_MF_U64, 0, 0), F(t1, SIM_MF_NUM, ANY),
                                     F(m1, SIM_MF_NUM, ANY)};
#undef F
#define F(name, kind, ...) {#name, kind, SIM_MF_AT(sim_msg_clock_pong, name, kind, 0), __VA_ARGS__, 0}
static const sim_msg_field PONG[] = {HOST(sim_msg_clock_pong), F(id, SIM_MF_U64, 0, 0), F(t1, SIM_MF_NUM, ANY),
                                     F(m1, SIM_MF_NUM, ANY), F(t2, SIM_MF_NUM, ANY), F(m2, SIM_MF_NUM, ANY),
                                     F(t3, SIM_MF_NUM, ANY), F(m3, SIM_MF_NUM, ANY),
                                     {"sync", SIM_MF_STR, SIM_MF_AT(sim_msg_clock_pong, sync, SIM_MF_STR, SIM_CLOCK_SYNC_MAX), 0, 0, SIM_CLOCK_SYNC_MAX},
                                     F(synced, SIM_MF_BOOL, 0, 0)};
#undef F
#define F(name, kind, ...) {#name, kind, SIM_MF_AT(sim_msg_session_clock, name, kind, 0), __VA_ARGS__, 0}
static const sim_msg_field CLOCK[] = {HOST(sim_msg_session_clock), F(offset_ms, SIM_MF_NUM, ANY),
                                      F(mono_offset_ms, SIM_MF_NUM, ANY), F(rtt_ms, SIM_MF_NUM, 0, INFINITY),
                                      F(samples, SIM_MF_INT, 1, 1000), F(answered, SIM_MF_INT, 0, 1000),
                                      {"sync", SIM_MF_STR, SIM_MF_AT(sim_msg_session_clock, sync, SIM_MF_STR, SIM_CLOCK_SYNC_MAX), 0, 0, SIM_CLOCK_SYNC_MAX},
                                      F(synced, SIM_MF_BOOL, 0, 0)};
#undef F
#define F(name, kind, ...) {#name, kind, SIM_MF_AT(sim_msg_session_host, name, kind, 0), __VA_ARGS__, 0}
static const sim_msg_field HOSTMSG[] = {
    HOST(sim_msg_session_host),
    {"state", SIM_MF_STR, SIM_MF_AT(sim_msg_session_host, state, SIM_MF_STR, 8), 0, 0, 8},
    {"reason", SIM_MF_STR, SIM_MF_AT(sim_msg_session_host, reason, SIM_MF_STR, 160), 0, 0, 160},
    F(silent_ms, SIM_MF_NUM, 0, INFINITY)};
#undef F
#define COUNT(a) (sizeof a / sizeof *a)

/* Decodes with every listed number required (absent: named). */
static int decode(const char *topic, const cJSON *msg, void *out, size_t size, const sim_msg_field *f, size_t n,
                  sim_error *err)
{
    sim_json j = {.file = topic, .err = err};
    memset(out, 0, size);
    int rc = sim_msg_fields_decode(&j, msg, out, f, n);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)out + f[i].offset;
        if (f[i].kind == SIM_MF_STR && !p[0]) return sim_json_found(&j, f[i].name, NULL, "a non-empty string");
        if (f[i].kind == SIM_MF_NUM && isnan(*(const double *)p)) return sim_json_found(&j, f[i].name, NULL, "a number");
        if (f[i].kind == SIM_MF_INT && *(const int *)p == SIM_MSG_NO_INT)
            return sim_json_found(&j, f[i].name, NULL, "an integer");
        if (f[i].kind == SIM_MF_U64 && !cJSON_GetObjectItemCaseSensitive(msg, f[i].name))
            return sim_json_found(&j, f[i].name, NULL, "an integer");
    }
    return SIM_OK;
}

cJSON *sim_msg_clock_ping_encode(const sim_msg_clock_ping *m) { return sim_msg_fields_object(m, PING, COUNT(PING)); }
int sim_msg_clock_ping_decode(const cJSON *msg, sim_msg_clock_ping *out, sim_error *err)
{
    return decode(SIM_TOPIC_CLOCK_PING, msg, out, sizeof *out, PING, COUNT(PING), err);
}
cJSON *sim_msg_clock_pong_encode(const sim_msg_clock_pong *m) { return sim_msg_fields_object(m, PONG, COUNT(PONG)); }
int sim_msg_clock_pong_decode(const cJSON *msg, sim_msg_clock_pong *out, sim_error *err)
{
    return decode(SIM_TOPIC_CLOCK_PONG, msg, out, sizeof *out, PONG, COUNT(PONG), err);
}
cJSON *sim_msg_session_clock_encode(const sim_msg_session_clock *m)
{
    return sim_msg_fields_object(m, CLOCK, COUNT(CLOCK));
}
int sim_msg_session_clock_decode(const cJSON *msg, sim_msg_session_clock *out, sim_error *err)
{
    return decode(SIM_TOPIC_SESSION_CLOCK, msg, out, sizeof *out, CLOCK, COUNT(CLOCK), err);
}
cJSON *sim_msg_session_host_encode(const sim_msg_session_host *m)
{
    return sim_msg_fields_object(m, HOSTMSG, COUNT(HOSTMSG));
}
int sim_msg_session_host_decode(const cJSON *msg, sim_msg_session_host *out, sim_error *err)
{
    int rc = decode(SIM_TOPIC_SESSION_HOST, msg, out, sizeof *out, HOSTMSG, COUNT(HOSTMSG), err);
    if (rc == SIM_OK && strcmp(out->state, "lost") != 0 && strcmp(out->state, "back") != 0) {
        sim_json j = {.file = SIM_TOPIC_SESSION_HOST, .err = err};
        return sim_json_found(&j, "state", cJSON_GetObjectItemCaseSensitive(msg, "state"), "\"lost\" or \"back\"");
    }
    return rc;
}

sim_clock_sample sim_clock_estimate(const sim_msg_clock_pong *p, double t4, double m4)
{
    sim_clock_sample s;
    s.offset = ((p->t2 - p->t1) + (p->t3 - t4)) / 2;
    s.mono_offset = ((p->m2 - p->m1) + (p->m3 - m4)) / 2;
    s.rtt = (m4 - p->m1) - (p->m3 - p->m2);
    return s;
}

const char *sim_clock_sync_daemon(const char *comm)
{
    static const char *const known[][2] = {{"chronyd", "chrony"},       {"ntpd", "ntpd"},     {"openntpd", "ntpd"},
                                           {"systemd-timesyn", "timesyncd"}, {"ptp4l", "ptp4l"}, {"phc2sys", "phc2sys"}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(comm, known[i][0]) == 0) return known[i][1];
    return NULL;
}

int sim_clock_best(const sim_clock_sample *s, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (best < 0 || s[i].rtt < s[best].rtt) best = i;
    return best;
}
