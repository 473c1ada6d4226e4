/* labclock: clock offsets and lost hosts of a lab session (see labclock.h). */
#include "labclock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim_bus.h"
#include "supervise.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void lab_clock_add(lab_clock *c, const char *name)
{
    if (c->n >= SIM_LAB_HOSTS_MAX) return;
    lab_clock_host *h = &c->hosts[c->n++];
    memset(h, 0, sizeof *h);
    h->name = name;
}

/* "physics-node, recorder": the session's children on host (the clock agent not). */
static void what_ran(const session *s, const char *host, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < s->n_children; i++) {
        const child *ch = &s->children[i];
        if (!ch->host || strcmp(ch->host->name, host) != 0 || strcmp(ch->exe, "simctl") == 0) continue;
        size_t n = strlen(out);
        snprintf(out + n, size - n, "%s%s", n ? ", " : "", ch->exe);
    }
}

static void announce(lab_clock *c, lab_clock_host *h, const char *state, const char *reason)
{
    session *s = c->s;
    uint64_t now = uv_now(s->loop);
    sim_msg_session_host m = {.silent_ms = h->last_answer_ms ? (double)(now - h->last_answer_ms) : 0};
    snprintf(m.host, sizeof m.host, "%s", h->name);
    snprintf(m.state, sizeof m.state, "%s", state);
    snprintf(m.reason, sizeof m.reason, "%s", reason);
    char what[512];
    what_ran(s, h->name, what, sizeof what);
    if (strcmp(state, "lost") == 0)
        fprintf(stderr, "simctl: host %s lost: %s (silent for %.0f ms); ran there: %s\n", h->name, reason, m.silent_ms,
                what[0] ? what : "nothing");
    else
        fprintf(stderr, "simctl: host %s back: %s\n", h->name, reason);
    cJSON *o = sim_msg_session_host_encode(&m);
    if (o && s->bus) sim_bus_publish(s->bus, SIM_TOPIC_SESSION_HOST, s->last_t, o);
    cJSON_Delete(o);
}

/* The window's best exchange as session.clock (and on stderr the first time, or when
 * it moved by more than a millisecond since last said). */
static void report(lab_clock *c, lab_clock_host *h)
{
    sim_clock_sample got[SIM_CLOCK_REPORT_PINGS];
    int n = 0;
    for (int i = 0; i < SIM_CLOCK_REPORT_PINGS; i++)
        if (h->answered[i]) got[n++] = h->samples[i];
    int b = sim_clock_best(got, n);
    if (b < 0) return;
    sim_msg_session_clock m = {.offset_ms = got[b].offset * 1e3, .mono_offset_ms = got[b].mono_offset * 1e3,
                               .rtt_ms = got[b].rtt * 1e3, .samples = SIM_CLOCK_REPORT_PINGS, .answered = n};
    snprintf(m.host, sizeof m.host, "%s", h->name);
    snprintf(m.sync, sizeof m.sync, "%s", h->sync[0] ? h->sync : "none");
    m.synced = h->synced;
    session *s = c->s;
    cJSON *o = sim_msg_session_clock_encode(&m);
    if (o && s->bus) sim_bus_publish(s->bus, SIM_TOPIC_SESSION_CLOCK, s->last_t, o);
    cJSON_Delete(o);
    if (!h->printed || fabs(m.offset_ms - h->printed_offset_ms) > 1 || fabs(m.mono_offset_ms - h->printed_mono_ms) > 1) {
        fprintf(stderr,
                "simctl: clock of %s: offset %+.3f ms (monotonic %+.3f ms), round trip %.3f ms (best of %d, %d answered); "
                "kept by %s, kernel %s\n",
                h->name, m.offset_ms, m.mono_offset_ms, m.rtt_ms, SIM_CLOCK_REPORT_PINGS, n, m.sync,
                m.synced ? "synchronised" : "not synchronised");
        h->printed = true;
        h->printed_offset_ms = m.offset_ms;
        h->printed_mono_ms = m.mono_offset_ms;
    }
}

static void on_timer(uv_timer_t *t)
{
    lab_clock *c = t->data;
    session *s = c->s;
    if (s->ending) {
        uv_timer_stop(t);
        return;
    }
    uv_update_time(s->loop);
    uint64_t now = uv_now(s->loop);
    for (int i = 0; i < c->n; i++) {
        lab_clock_host *h = &c->hosts[i];
        if (h->last_answer_ms && !h->lost && now - h->last_answer_ms > SIM_CLOCK_LOST_MS) {
            h->lost = true;
            char why[96];
            snprintf(why, sizeof why, "no answer to the clock exchange for %d ms", SIM_CLOCK_LOST_MS);
            announce(c, h, "lost", why);
        }
        if (c->next_id % (SIM_CLOCK_PING_MS / 100) != 0) continue; /* the timer runs every 100 ms */
        if (h->pings == SIM_CLOCK_REPORT_PINGS) {
            report(c, h);
            memset(h->answered, 0, sizeof h->answered);
            h->pings = 0;
        }
        if (h->pings == 0) h->window_id = c->next_id;
        sim_msg_clock_ping p = {.id = c->next_id, .t1 = clock_s(CLOCK_REALTIME), .m1 = clock_s(CLOCK_MONOTONIC)};
        snprintf(p.host, sizeof p.host, "%s", h->name);
        cJSON *o = sim_msg_clock_ping_encode(&p);
        if (o && s->bus) sim_bus_publish(s->bus, SIM_TOPIC_CLOCK_PING, s->last_t, o);
        cJSON_Delete(o);
        h->pings++;
    }
    c->next_id++;
}

void lab_clock_start(lab_clock *c, session *s)
{
    if (c->started || !c->n) return;
    c->started = true;
    c->s = s;
    uv_timer_init(s->loop, &c->timer);
    c->timer.data = c;
    uv_timer_start(&c->timer, on_timer, 100, 100);
    uv_unref((uv_handle_t *)&c->timer);
}

void lab_clock_close(lab_clock *c)
{
    if (c->started) uv_close((uv_handle_t *)&c->timer, NULL);
    c->started = false;
}

void lab_clock_on_message(lab_clock *c, const char *topic, const cJSON *msg)
{
    if (!c->started) return;
    session *s = c->s;
    if (strcmp(topic, SIM_TOPIC_CLOCK_PONG) == 0) {
        double t4 = clock_s(CLOCK_REALTIME), m4 = clock_s(CLOCK_MONOTONIC);
        sim_msg_clock_pong p;
        if (sim_msg_clock_pong_decode(msg, &p, NULL) != SIM_OK) return;
        for (int i = 0; i < c->n; i++) {
            lab_clock_host *h = &c->hosts[i];
            if (strcmp(h->name, p.host) != 0) continue;
            uv_update_time(s->loop);
            h->last_answer_ms = uv_now(s->loop);
            snprintf(h->sync, sizeof h->sync, "%s", p.sync);
            h->synced = p.synced;
            if (h->lost && !s->ending) {
                h->lost = false;
                announce(c, h, "back", "its clock agent answers again");
            }
            if (p.id >= h->window_id && p.id - h->window_id < (uint64_t)SIM_CLOCK_REPORT_PINGS * (SIM_CLOCK_PING_MS / 100)) {
                int k = (int)((p.id - h->window_id) / (SIM_CLOCK_PING_MS / 100));
                h->samples[k] = sim_clock_estimate(&p, t4, m4);
                h->answered[k] = true;
            }
        }
    } else if (strcmp(topic, SIM_TOPIC_DISPATCHER_LEFT) == 0 && !s->ending) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
        if (!cJSON_IsString(name) || strncmp(name->valuestring, "clock-", 6) != 0) return;
        for (int i = 0; i < c->n; i++) {
            lab_clock_host *h = &c->hosts[i];
            if (strcmp(h->name, name->valuestring + 6) == 0 && !h->lost) {
                h->lost = true;
                const cJSON *r = cJSON_GetObjectItemCaseSensitive(msg, "reason");
                char why[160];
                snprintf(why, sizeof why, "its clock agent left the bus (%s)", cJSON_IsString(r) ? r->valuestring : "?");
                announce(c, h, "lost", why);
            }
        }
    }
}
