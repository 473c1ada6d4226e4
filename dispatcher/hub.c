/* hub: connections, routing and flow control of the dispatcher (see hub.h).
 *
 * A line received from a module is checked (sim_msg_parse), copied once into a
 * reference-counted msgbuf and queued, by reference, on every subscribed connection.
 * Queues are flushed at the end of each read callback with one writev per connection
 * (uv_try_write), so a burst of lines costs one system call per consumer. Whatever the
 * kernel does not take becomes a write in flight; only while a connection has one is
 * it "behind", and then state topics keep only their newest message. */
#include "hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_bus.h"
#include "sim_line.h"
#include "sim_tcp.h"
#include "hub_impl.h"

/* ---------- sending ---------- */

static void conn_close(conn *c, const char *reason);
static void conn_flush(conn *c);

static void mark_dirty(conn *c)
{
    if (c->dirty) return;
    c->dirty = true;
    c->dirty_next = c->h->dirty;
    c->h->dirty = c;
}

static void flush_dirty(hub *h)
{
    while (h->dirty) {
        conn *c = h->dirty;
        h->dirty = c->dirty_next;
        c->dirty = false;
        if (!c->closing) conn_flush(c);
    }
}

size_t hub_queued_bytes(const conn *c)
{
    return c->pending.bytes - c->first_offset + c->inflight_bytes;
}

/* Queues m for c. Returns false when c had to be closed. */
static bool conn_enqueue(conn *c, msgbuf *m)
{
    hub *h = c->h;
    if (c->closing) return true;
    /* A durable module catching up gets everything through its spill backlog, in order.
     * The spill is never trimmed while the module is connected: its head is what the
     * welcome promised ("backlog"), and a module that trusts that count (a new recorder
     * skips it) would take live messages for the promised ones. Beyond the bound the
     * connection is closed instead: everything moves to the backlog kept for its name,
     * where what the bound drops is counted and reported at the next welcome. */
    if (c->spill) {
        backlog_add(c->spill, m, SIZE_MAX);
        if (c->spill->q.bytes > h->cfg.backlog_limit) {
            conn_close(c, "backlog overflow");
            return false;
        }
        mark_dirty(c);
        return true;
    }
    if (c->inflight && m->is_state && !c->durable) {
        /* Behind: keep only the newest message of a state topic. The first pending item
         * may be partly written already, so it is never replaced. */
        for (size_t i = c->pending.head + (c->first_offset ? 1 : 0); i < c->pending.n; i++) {
            msgbuf *old = c->pending.items[i];
            if (old->is_state && strcmp(old->topic, m->topic) == 0) {
                c->pending.bytes = c->pending.bytes - old->len + m->len;
                msg_ref(m);
                c->pending.items[i] = m;
                msg_unref(old);
                c->dropped++;
                return true;
            }
        }
    }
    if (hub_queued_bytes(c) + m->len > h->cfg.queue_limit) {
        if (c->durable) {
            c->spill = backlog_new(c->name, NULL, 0, true);
            if (c->spill) {
                backlog_add(c->spill, m, SIZE_MAX);
                return true;
            }
        }
        conn_close(c, "send queue overflow");
        return false;
    }
    if (msgvec_push(&c->pending, m) != SIM_OK) {
        conn_close(c, "out of memory");
        return false;
    }
    mark_dirty(c);
    return true;
}

/* A message leaves the queue for the kernel. Durable connections remember it until
 * the module acknowledges it; one that does not acknowledge, as long as the kernel may
 * hold it. */
static void retire(conn *c, msgbuf *m)
{
    c->out_msgs++;
    if (!c->durable) return;
    if (msgvec_push(&c->sent, m) != SIM_OK) {
        c->sent_base++; /* out of memory: counted as gone, the window is only shorter */
        return;
    }
    size_t keep = c->acks ? c->h->cfg.backlog_limit : c->h->resend_keep;
    while (c->sent.bytes > keep && msgvec_count(&c->sent) > 1) {
        msg_unref(msgvec_pop(&c->sent));
        c->sent_base++;
    }
}

static void on_write_done(uv_write_t *req, int status)
{
    flight *f = (flight *)req;
    conn *c = f->c;
    for (size_t i = 0; i < f->n; i++) msg_unref(f->msgs[i]);
    c->inflight = NULL;
    c->inflight_bytes = 0;
    free(f);
    if (status < 0) {
        if (!c->closing) conn_close(c, "write failed");
        return;
    }
    if (!c->closing) conn_flush(c);
}

/* Moves what the spill backlog holds into the send queue, a chunk at a time, once the
 * queue has drained; the spill is dropped when empty so live traffic flows directly. */
static void refill_from_spill(conn *c)
{
    if (!c->spill || c->inflight || msgvec_count(&c->pending)) return;
    size_t moved = 0;
    msgbuf *m;
    while (moved < BACKLOG_CHUNK && (m = msgvec_pop(&c->spill->q))) {
        moved += m->len;
        msgvec_push(&c->pending, m);
        msg_unref(m);
    }
    if (msgvec_count(&c->spill->q) == 0) {
        c->dropped += c->spill->dropped;
        backlog_free(c->spill);
        c->spill = NULL;
    }
}

static void conn_flush(conn *c)
{
    refill_from_spill(c);
    while (!c->inflight && msgvec_count(&c->pending)) {
        uv_buf_t bufs[MAX_IOV];
        size_t n = 0;
        for (size_t i = c->pending.head; i < c->pending.n && n < MAX_IOV; i++, n++) {
            msgbuf *m = c->pending.items[i];
            size_t off = n == 0 ? c->first_offset : 0;
            bufs[n] = uv_buf_init(m->data + off, m->len - (unsigned)off);
        }
        int wrote = uv_try_write((uv_stream_t *)&c->tcp, bufs, (unsigned)n);
        size_t done = wrote > 0 ? (size_t)wrote : 0;
        if (wrote < 0 && wrote != UV_EAGAIN) {
            conn_close(c, "write failed");
            return;
        }
        /* Retire what the kernel took. */
        while (done && msgvec_count(&c->pending)) {
            msgbuf *m = c->pending.items[c->pending.head];
            size_t rest = m->len - c->first_offset;
            if (done >= rest) {
                done -= rest;
                c->first_offset = 0;
                msgvec_pop(&c->pending); /* m; its reference moves here */
                retire(c, m);
                msg_unref(m);
            } else {
                c->first_offset += done;
                done = 0;
            }
        }
        if (msgvec_count(&c->pending) == 0) {
            refill_from_spill(c);
            continue;
        }
        /* The kernel is full: hand the rest to libuv; the connection is now behind. */
        flight *f = malloc(sizeof *f);
        if (!f) {
            conn_close(c, "out of memory");
            return;
        }
        f->c = c;
        f->n = 0;
        size_t bytes = 0;
        while (f->n < MAX_IOV && msgvec_count(&c->pending)) {
            size_t off = c->first_offset;
            msgbuf *m = msgvec_pop(&c->pending);
            c->first_offset = 0;
            f->msgs[f->n] = m;
            f->bufs[f->n] = uv_buf_init(m->data + off, m->len - (unsigned)off);
            bytes += m->len - off;
            f->n++;
            retire(c, m);
        }
        c->inflight = f;
        c->inflight_bytes = bytes;
        if (uv_write(&f->req, (uv_stream_t *)&c->tcp, f->bufs, (unsigned)f->n, on_write_done) != 0) {
            for (size_t i = 0; i < f->n; i++) msg_unref(f->msgs[i]);
            c->inflight = NULL;
            c->inflight_bytes = 0;
            free(f);
            conn_close(c, "write failed");
            return;
        }
    }
}

/* ---------- routing ---------- */

/* The backlogs of the modules away share one bound (--backlog-mib): beyond it the
 * oldest messages of the largest backlog go first (counted in its dropped). */
static void trim_backlogs(hub *h)
{
    for (;;) {
        size_t total = 0;
        backlog *largest = NULL;
        for (backlog *b = h->backlogs; b; b = b->next) {
            total += b->q.bytes;
            if (!largest || b->q.bytes > largest->q.bytes) largest = b;
        }
        if (total <= h->cfg.backlog_limit || !largest || msgvec_count(&largest->q) <= 1) return;
        msg_unref(msgvec_pop(&largest->q));
        largest->dropped++;
    }
}

/* everyone: membership news (joined/left) reaches every module whatever it
 * subscribed to, since lockstep bookkeeping depends on it. */
static void route(hub *h, msgbuf *m, conn *from, bool everyone)
{
    for (conn *c = h->conns, *next; c; c = next) {
        next = c->next;
        if (c == from || !c->said_hello || c->closing) continue;
        if (everyone || route_subs_match(c->subs, c->n_subs, c->all, m->topic)) conn_enqueue(c, m);
    }
    bool added = false;
    for (backlog *b = h->backlogs; b; b = b->next)
        if (route_subs_match(b->subs, b->n_subs, b->all, m->topic)) {
            backlog_add(b, m, h->cfg.backlog_limit);
            added = true;
        }
    if (added) trim_backlogs(h);
}

static char *make_line(hub *h, const char *topic, const cJSON *fields)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "topic", topic);
    cJSON_AddStringToObject(msg, "src", "dispatcher");
    cJSON_AddNumberToObject(msg, "seq", (double)++h->seq);
    cJSON_AddNumberToObject(msg, "t", h->sim_t);
    if (fields)
        for (const cJSON *it = fields->child; it; it = it->next)
            cJSON_AddItemReferenceToObject(msg, it->string, (cJSON *)it);
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    return text;
}

static void send_to(conn *c, const char *topic, const cJSON *fields)
{
    char *text = make_line(c->h, topic, fields);
    if (!text) return;
    msgbuf *m = msg_new(text, strlen(text), topic, false);
    free(text);
    if (!m) return;
    m->direct = true;
    conn_enqueue(c, m);
    msg_unref(m);
}

void hub_set_ack_listener(hub *h, hub_ack_cb fn, void *user)
{
    h->on_ack = fn;
    h->on_ack_user = user;
}

size_t hub_acting_on(const hub *h, const char *cmd, char (*names)[HUB_NAME_CAP], size_t cap)
{
    size_t n = 0;
    for (const conn *c = h->conns; c && n < cap; c = c->next)
        if (c->said_hello && !c->closing && route_acts_on(c->acts_on, cmd))
            snprintf(names[n++], HUB_NAME_CAP, "%s", c->name);
    return n;
}

void hub_publish(hub *h, const char *topic, const cJSON *fields)
{
    char *text = make_line(h, topic, fields);
    if (!text) return;
    msgbuf *m = msg_new(text, strlen(text), topic, route_patterns_match(&h->state, topic));
    free(text);
    if (!m) return;
    route(h, m, NULL, strcmp(topic, "dispatcher.left") == 0);
    msg_unref(m);
    flush_dirty(h);
}

void hub_send_error(conn *c, const char *what)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "error", what);
    if (c->said_hello) cJSON_AddNumberToObject(f, "id", (double)c->id);
    send_to(c, "dispatcher.error", f);
    cJSON_Delete(f);
}

/* The barrier of a durable module that is stopping: queued like any message for it
 * (pending queue or spill, both in order), so it arrives after everything routed to it
 * before the request was read. */
void hub_handle_flush(conn *c)
{
    if (!c->durable) {
        hub_send_error(c, "durable.flush is for durable modules (\"durable\": true in hello)");
        return;
    }
    cJSON *f = cJSON_CreateObject();
    send_to(c, SIM_TOPIC_DISPATCHER_FLUSHED, f);
    cJSON_Delete(f);
}

/* ---------- connections ---------- */

static void on_conn_closed(uv_handle_t *handle)
{
    conn *c = handle->data;
    sim_linebuf_free(&c->lines);
    free(c);
}

cJSON *hub_conn_brief(const conn *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)c->id);
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddBoolToObject(o, "lockstep", c->lockstep);
    cJSON_AddBoolToObject(o, "durable", c->durable);
    /* whether it showed the session's secret: --wait-for counts only those */
    cJSON_AddBoolToObject(o, "session", c->session);
    if (c->acts_on[0]) {
        cJSON *a = cJSON_AddArrayToObject(o, "acts_on");
        for (const char *p = c->acts_on + 1; *p; p += strcspn(p, ",") + 1) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(p, ","), p);
            cJSON_AddItemToArray(a, cJSON_CreateString(name));
        }
    }
    return o;
}

static void conn_close(conn *c, const char *reason)
{
    if (c->closing) return;
    hub *h = c->h;
    c->closing = true;
    /* Best effort: whatever is queued for it (an error reply, say) goes out first. */
    if (!c->inflight && msgvec_count(&c->pending)) {
        uv_buf_t bufs[MAX_IOV];
        size_t n = 0;
        for (size_t i = c->pending.head; i < c->pending.n && n < MAX_IOV; i++, n++)
            bufs[n] = uv_buf_init(c->pending.items[i]->data + (n ? 0 : c->first_offset),
                                  c->pending.items[i]->len - (unsigned)(n ? 0 : c->first_offset));
        uv_try_write((uv_stream_t *)&c->tcp, bufs, (unsigned)n);
    }
    for (int f = 0; f < ROUTE_FAMILIES; f++) {
        if (h->owner[f] == c) h->owner[f] = NULL;
        for (size_t k = 0; k < h->n_cab_owners; k++)
            if (h->cab_owners[k].owner[f] == c) h->cab_owners[k].owner[f] = NULL;
    }
    if (c->prev) c->prev->next = c->next;
    else h->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    if (c->said_hello && c->durable && !h->closed) {
        /* Keep what arrives while it is away. It starts with what it was sent last
         * (it may have died before processing it; durable modules ignore repeats),
         * then what was queued, then the spill. */
        backlog *b = backlog_new(c->name, c->subs, c->n_subs, c->all);
        if (b) {
            msgbuf *m;
            while ((m = msgvec_pop(&c->sent))) {
                if (!m->direct) {
                    backlog_add(b, m, h->cfg.backlog_limit);
                    b->resent++;
                }
                msg_unref(m);
            }
            for (size_t i = c->pending.head; i < c->pending.n; i++) backlog_add(b, c->pending.items[i], h->cfg.backlog_limit);
            if (c->spill) {
                while ((m = msgvec_pop(&c->spill->q))) {
                    backlog_add(b, m, h->cfg.backlog_limit);
                    msg_unref(m);
                }
                b->dropped += c->spill->dropped;
            }
            b->next = h->backlogs;
            h->backlogs = b;
            trim_backlogs(h);
        }
    }
    msgvec_clear(&c->pending);
    msgvec_clear(&c->sent);
    backlog_free(c->spill);
    c->spill = NULL;
    route_subs_free(c->subs, c->n_subs);
    c->subs = NULL;
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
    if (c->said_hello && !h->closed) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddNumberToObject(f, "id", (double)c->id);
        cJSON_AddStringToObject(f, "name", c->name);
        cJSON_AddStringToObject(f, "reason", reason);
        hub_publish(h, "dispatcher.left", f);
        cJSON_Delete(f);
    }
}

static void handle_hello(conn *c, const char *line, size_t len)
{
    hub *h = c->h;
    route_hello hello;
    const char *why;
    switch (route_hello_parse(line, len, h->token, h->secret, &hello, &why)) {
    case ROUTE_OK: break;
    case ROUTE_REFUSED: hub_send_error(c, why); return;
    case ROUTE_REFUSED_CLOSE:
        hub_send_error(c, why);
        conn_close(c, "bad token");
        return;
    case ROUTE_NOMEM: conn_close(c, "out of memory"); return;
    }
    if ((why = hub_hello_refusal(h, c, &hello))) {
        route_hello_free(&hello);
        hub_send_error(c, why);
        /* A module restarted before its old connection was seen to end: closed, so that
         * its bus client connects again (and is welcome once the name is free). */
        if (strstr(why, "is connected")) conn_close(c, "name in use");
        return;
    }
    if (hello.durable) {
        /* Its own backlog (a module coming back) does not count against it. */
        size_t held = 0;
        for (conn *o = h->conns; o; o = o->next) held += o != c && o->said_hello && o->durable && !o->closing;
        for (backlog *b = h->backlogs; b; b = b->next) held += strcmp(b->name, hello.name) != 0;
        if (held >= HUB_MAX_DURABLE) {
            route_hello_free(&hello);
            char msg[160];
            snprintf(msg, sizeof msg, "hello: this dispatcher already keeps %d durable modules (docs/protocol.md); "
                     "say hello without \"durable\"", HUB_MAX_DURABLE);
            hub_send_error(c, msg);
            return;
        }
    }
    c->all = hello.all;
    c->subs = hello.subs; /* moved */
    c->n_subs = hello.n_subs;
    snprintf(c->name, sizeof c->name, "%s", hello.name);
    c->lockstep = hello.lockstep;
    c->durable = hello.durable;
    c->session = hello.session;
    if (c->session) hub_remember_session_name(h, c->name);
    snprintf(c->acts_on, sizeof c->acts_on, "%s", hello.acts_on);
    c->id = ++h->next_id;
    c->said_hello = true;

    /* A durable module coming back takes over the backlog kept for its name. */
    backlog *taken = NULL;
    if (c->durable) {
        for (backlog **pp = &h->backlogs; *pp; pp = &(*pp)->next) {
            if (strcmp((*pp)->name, c->name) == 0) {
                taken = *pp;
                *pp = taken->next;
                taken->next = NULL;
                break;
            }
        }
    }
    cJSON *w = cJSON_CreateObject();
    cJSON_AddNumberToObject(w, "id", (double)c->id);
    cJSON_AddNumberToObject(w, "protocol", 1);
    cJSON *peers = cJSON_AddArrayToObject(w, "peers");
    for (conn *o = h->conns; o; o = o->next)
        if (o != c && o->said_hello && !o->closing) cJSON_AddItemToArray(peers, hub_conn_brief(o));
    if (taken) {
        cJSON_AddNumberToObject(w, "backlog", (double)msgvec_count(&taken->q));
        cJSON_AddNumberToObject(w, "backlog_dropped", (double)taken->dropped);
        /* what the bound dropped came off the head: the resent part first */
        uint64_t resent = taken->resent > taken->dropped ? taken->resent - taken->dropped : 0;
        if (resent > msgvec_count(&taken->q)) resent = msgvec_count(&taken->q);
        cJSON_AddNumberToObject(w, "resent", (double)resent);
    }
    send_to(c, "dispatcher.welcome", w);
    cJSON_Delete(w);
    if (taken) {
        /* Said once: a module cut off again before the spill drains must not be told of
         * these losses twice (a recorder would log them twice, or count them against the
         * old drive's tail it is still discarding). */
        c->dropped += taken->dropped;
        taken->dropped = 0;
        taken->resent = 0;
        c->spill = taken;
        mark_dirty(c);
    }
    cJSON *j = hub_conn_brief(c);
    /* Announced to everyone but the newcomer, who has its welcome. */
    char *text = make_line(h, "dispatcher.joined", j);
    cJSON_Delete(j);
    if (text) {
        msgbuf *m = msg_new(text, strlen(text), "dispatcher.joined", false);
        free(text);
        if (m) {
            route(h, m, c, true);
            msg_unref(m);
        }
    }
}
static int on_line(const char *line, size_t len, void *user)
{
    conn *c = user;
    hub *h = c->h;
    char topic[ROUTE_MAX_TOPIC + 1];
    double t;
    sim_error err;
    c->in_msgs++;
    /* Validated and routed without building a tree: only hello is parsed in full. */
    if (sim_msg_scan(line, len, topic, sizeof topic, &t, &err) != SIM_OK) {
        hub_send_error(c, err.msg);
        return 0;
    }
    const char *why;
    switch (route_classify(topic, c->said_hello, &why)) {
    case ROUTE_LINE_HELLO: handle_hello(c, line, len); break;
    case ROUTE_LINE_REFUSE: hub_send_error(c, why); break;
    case ROUTE_LINE_FORWARD: {
        if (strcmp(topic, "durable.ack") == 0) {
            hub_handle_ack(c, line, len);
            break;
        }
        if (strcmp(topic, "durable.flush") == 0) {
            hub_handle_flush(c);
            break;
        }
        if (!hub_may_publish(c, topic)) break;
        if (strcmp(topic, "sim.tick") == 0 && t == t) h->sim_t = t;
        if (route_is_error_topic(topic)) hub_retain_error(h, c, topic, line, len);
        else if (!strcmp(topic, "bridge.status")) hub_retain_bridge(h, c, topic, line, len);
        msgbuf *m = msg_new(line, len, topic, route_patterns_match(&h->state, topic));
        if (m) {
            route(h, m, c, false);
            msg_unref(m);
        }
        if (h->on_ack && strcmp(topic, "control.ack") == 0) {
            cJSON *msg = cJSON_ParseWithLength(line, len);
            if (msg) h->on_ack(h->on_ack_user, c->name, msg);
            cJSON_Delete(msg);
        }
        break;
    }
    }
    return c->closing ? 1 : 0;
}

static void alloc_cb(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    conn *c = handle->data;
    /* One buffer for all connections: each read is consumed before the next. */
    buf->base = c->h->readbuf;
    buf->len = sizeof c->h->readbuf;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    conn *c = s->data;
    hub *h = c->h;
    if (nread > 0) {
        sim_tcp_quickack(&c->tcp); /* a peer without TCP_NODELAY must not wait 40 ms for our ACK */
        int rc = sim_linebuf_feed(&c->lines, buf->base, (size_t)nread, on_line, c);
        if (rc == SIM_LINE_TOO_LONG && !c->closing) {
            hub_send_error(c, "line longer than 65536 bytes; closing the connection");
            conn_close(c, "line too long");
        }
    } else if (nread < 0) {
        conn_close(c, nread == UV_EOF ? "disconnected" : uv_strerror((int)nread));
    }
    flush_dirty(h);
}

static void on_connection(uv_stream_t *server, int status)
{
    hub *h = server->data;
    if (status < 0) return;
    conn *c = calloc(1, sizeof *c);
    if (!c) return;
    c->h = h;
    uv_tcp_init(h->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0 ||
        sim_linebuf_init(&c->lines, SIM_BUS_MAX_LINE) != SIM_OK) {
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    c->accepted_ms = uv_now(h->loop);
    c->next = h->conns;
    if (h->conns) h->conns->prev = c;
    h->conns = c;
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read);
}

/* ---------- lifecycle ---------- */

/* The third number of a /proc/sys/net/ipv4/tcp_[rw]mem file (the most the kernel
 * lets a socket buffer grow to), 0 when unreadable. */
static size_t tcp_max(const char *file)
{
    FILE *f = fopen(file, "r");
    unsigned long lo, def, max = 0;
    if (f && fscanf(f, "%lu %lu %lu", &lo, &def, &max) != 3) max = 0;
    if (f) fclose(f);
    return (size_t)max;
}

/* What the kernel may hold for one connection: our send buffer, the peer's receive
 * buffer, and 1 MiB the module may have read and not yet processed. */
static size_t kernel_buffers(void)
{
    size_t w = tcp_max("/proc/sys/net/ipv4/tcp_wmem"), r = tcp_max("/proc/sys/net/ipv4/tcp_rmem");
    if (!w || !r) return RESEND_KEEP_DEFAULT;
    return w + r + (1u << 20);
}

/* A connection must say hello within hello_timeout_ms: 300 silent connections each
 * held a read buffer and a slot for as long as their peers wished. */
static void on_hello_timer(uv_timer_t *t)
{
    hub *h = t->data;
    uint64_t now = uv_now(h->loop);
    for (conn *c = h->conns, *next; c; c = next) {
        next = c->next;
        if (c->said_hello || c->closing || now - c->accepted_ms < (uint64_t)h->cfg.hello_timeout_ms) continue;
        char why[96];
        snprintf(why, sizeof why, "no hello within %d ms; closing the connection", h->cfg.hello_timeout_ms);
        hub_send_error(c, why);
        conn_close(c, "no hello");
    }
    flush_dirty(h);
}

int hub_open(uv_loop_t *loop, const hub_config *cfg, hub **out, sim_error *err)
{
    *out = NULL;
    hub *h = calloc(1, sizeof *h);
    if (!h) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    h->loop = loop;
    h->cfg = *cfg;
    if (!h->cfg.queue_limit) h->cfg.queue_limit = 4u << 20;
    if (!h->cfg.backlog_limit) h->cfg.backlog_limit = 256u << 20;
    h->token = cfg->token ? strdup(cfg->token) : NULL;
    h->secret = cfg->secret ? strdup(cfg->secret) : NULL;
    const char *patterns = cfg->state_topics ? cfg->state_topics : "*.state,sim.tick";
    if (route_patterns_parse(patterns, &h->state) != SIM_OK || (cfg->token && !h->token) ||
        (cfg->secret && !h->secret)) {
        hub_free(h);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }

    /* Error paths below free through hub_free: the token and patterns are the hub's. */
    struct sockaddr_storage addr;
    if (uv_ip4_addr(cfg->host, cfg->port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(cfg->host, cfg->port, (struct sockaddr_in6 *)&addr) != 0) {
        hub_free(h);
        return sim_error_set(err, SIM_EINVAL, "--listen: '%s' is not an IPv4 or IPv6 address", cfg->host);
    }
    uv_tcp_init(loop, &h->listener);
    h->listener.data = h;
    int rc = uv_tcp_bind(&h->listener, (struct sockaddr *)&addr, 0);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&h->listener, 128, on_connection);
    if (rc != 0) {
        uv_close((uv_handle_t *)&h->listener, NULL);
        uv_run(loop, UV_RUN_NOWAIT);
        hub_free(h);
        return sim_error_set(err, SIM_EIO, "cannot listen on %s:%d: %s", cfg->host, cfg->port, uv_strerror(rc));
    }
    uv_timer_init(loop, &h->stats_timer);
    h->stats_timer.data = h;
    uint64_t every = (uint64_t)((cfg->stats_interval > 0 ? cfg->stats_interval : 1.0) * 1000);
    uv_timer_start(&h->stats_timer, hub_on_stats, every, every);
    if (h->cfg.hello_timeout_ms <= 0) h->cfg.hello_timeout_ms = 5000;
    h->resend_keep = kernel_buffers();
    uv_timer_init(loop, &h->hello_timer);
    h->hello_timer.data = h;
    uint64_t sweep = (uint64_t)(h->cfg.hello_timeout_ms / 4 > 0 ? h->cfg.hello_timeout_ms / 4 : 1);
    uv_timer_start(&h->hello_timer, on_hello_timer, sweep, sweep);
    h->started_ms = uv_now(loop);
    *out = h;
    return SIM_OK;
}

int hub_port(const hub *h)
{
    struct sockaddr_storage addr;
    int len = sizeof addr;
    if (uv_tcp_getsockname(&h->listener, (struct sockaddr *)&addr, &len) != 0) return -1;
    if (addr.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&addr)->sin_port);
    return ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
}

static void on_hub_handle_closed(uv_handle_t *handle)
{
    (void)handle;
}

void hub_close(hub *h)
{
    if (h->closed) return;
    h->closed = true;
    while (h->conns) conn_close(h->conns, "dispatcher stopping");
    while (h->backlogs) {
        backlog *b = h->backlogs;
        h->backlogs = b->next;
        backlog_free(b);
    }
    uv_close((uv_handle_t *)&h->listener, on_hub_handle_closed);
    uv_close((uv_handle_t *)&h->stats_timer, on_hub_handle_closed);
    uv_close((uv_handle_t *)&h->hello_timer, on_hub_handle_closed);
}

void hub_free(hub *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n_errors; i++) cJSON_Delete(h->errors[i].msg);
    for (size_t i = 0; i < h->n_bridges; i++) cJSON_Delete(h->bridges[i].msg);
    route_patterns_free(&h->state);
    free(h->token);
    free(h->secret);
    free(h);
}


