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
#include "sim_command.h"
#include "sim_line.h"
#include "sim_net.h"

#define MAX_NAME 64
#define MAX_SUBS 64
#define MAX_PREFIX 256
#define MAX_TOPIC 255
#define MAX_STATE_PATTERNS 16
#define MAX_IOV 256
#define READ_BUF_SIZE (256 * 1024)
#define BACKLOG_CHUNK (256 * 1024)
/* What a durable module was last sent is kept this long (bytes): on a sudden loss the
 * dispatcher cannot know what the module processed, so it hands these over again. */
#define RESEND_KEEP (2 * 1024 * 1024)
/* The newest error report per (topic, module) is kept for the operator's status. */
#define MAX_RETAINED 16

typedef struct msgbuf {
    uint32_t refs;
    uint32_t len;       /* bytes of data, newline included */
    bool is_state;
    bool direct;        /* addressed to one connection (welcome, error): never re-sent */
    char *topic;        /* points into the allocation, after data */
    char data[];
} msgbuf;

typedef struct msgvec {
    msgbuf **items;
    size_t n, cap, head; /* items[head..n) are live: a cheap FIFO */
    size_t bytes;
} msgvec;

typedef struct backlog {
    struct backlog *next;  /* in hub->backlogs while its module is away */
    char name[MAX_NAME + 1];
    char **subs;
    size_t n_subs;
    bool all;
    msgvec q;
    uint64_t dropped;
} backlog;

typedef struct conn conn;

typedef struct flight {
    uv_write_t req;
    conn *c;
    size_t n;
    msgbuf *msgs[MAX_IOV];
    uv_buf_t bufs[MAX_IOV];
} flight;

struct conn {
    uv_tcp_t tcp;
    hub *h;
    conn *next, *prev;
    conn *dirty_next;
    bool dirty, closing, said_hello, lockstep, durable;
    uint64_t id;
    char name[MAX_NAME + 1];
    char **subs;          /* NULL with all=true: everything */
    size_t n_subs;
    bool all;
    char acts_on[256];    /* ",pause,resume,": the commands it declared it acts on */
    sim_linebuf lines;
    msgvec pending;       /* queued, not yet handed to the kernel */
    size_t first_offset;  /* bytes of pending's first item already written */
    flight *inflight;     /* at most one write request at a time */
    size_t inflight_bytes;
    backlog *spill;       /* durable only: messages waiting beyond the queue bound */
    msgvec sent;          /* durable only: the newest messages handed to the kernel */
    uint64_t in_msgs, out_msgs, dropped, last_in, last_out;
    double in_rate, out_rate;
};

typedef struct retained {
    char topic[MAX_TOPIC + 1];
    char src[MAX_NAME + 1];
    cJSON *msg;
    uint64_t at_ms;
} retained;

struct hub {
    uv_loop_t *loop;
    retained errors[MAX_RETAINED];
    size_t n_errors;
    uv_tcp_t listener;
    uv_timer_t stats_timer;
    hub_config cfg;
    char *token;
    char *state_patterns[MAX_STATE_PATTERNS];
    size_t n_state_patterns;
    conn *conns;
    conn *dirty;
    backlog *backlogs;
    uint64_t next_id;
    hub_ack_cb on_ack;
    void *on_ack_user;
    uint64_t seq;
    double sim_t;
    uint64_t started_ms;
    bool closed;
    char readbuf[READ_BUF_SIZE];
};

/* ---------- messages ---------- */

static msgbuf *msg_new(const char *line, size_t len, const char *topic, bool is_state)
{
    size_t tlen = strlen(topic);
    msgbuf *m = malloc(sizeof *m + len + 1 + tlen + 1);
    if (!m) return NULL;
    m->refs = 1;
    m->len = (uint32_t)len + 1;
    m->is_state = is_state;
    m->direct = false;
    memcpy(m->data, line, len);
    m->data[len] = '\n';
    m->topic = m->data + len + 1;
    memcpy(m->topic, topic, tlen + 1);
    return m;
}

static void msg_unref(msgbuf *m)
{
    if (m && --m->refs == 0) free(m);
}

static int vec_push(msgvec *v, msgbuf *m)
{
    if (v->n == v->cap) {
        if (v->head > 0) { /* reuse the consumed front before growing */
            memmove(v->items, v->items + v->head, (v->n - v->head) * sizeof *v->items);
            v->n -= v->head;
            v->head = 0;
        }
        if (v->n == v->cap) {
            size_t cap = v->cap ? v->cap * 2 : 16;
            msgbuf **items = realloc(v->items, cap * sizeof *items);
            if (!items) return SIM_ENOMEM;
            v->items = items;
            v->cap = cap;
        }
    }
    m->refs++;
    v->items[v->n++] = m;
    v->bytes += m->len;
    return SIM_OK;
}

static size_t vec_count(const msgvec *v) { return v->n - v->head; }

static msgbuf *vec_pop(msgvec *v)
{
    if (v->head == v->n) return NULL;
    msgbuf *m = v->items[v->head++];
    v->bytes -= m->len;
    if (v->head == v->n) v->head = v->n = 0;
    return m; /* the reference moves to the caller */
}

static void vec_clear(msgvec *v)
{
    for (size_t i = v->head; i < v->n; i++) msg_unref(v->items[i]);
    free(v->items);
    memset(v, 0, sizeof *v);
}

/* ---------- subscriptions ---------- */

static bool subs_match(char **subs, size_t n, bool all, const char *topic)
{
    if (all) return true;
    for (size_t i = 0; i < n; i++)
        if (strncmp(topic, subs[i], strlen(subs[i])) == 0) return true;
    return false;
}

static void subs_free(char **subs, size_t n)
{
    for (size_t i = 0; i < n; i++) free(subs[i]);
    free(subs);
}

static char **subs_copy(char **subs, size_t n)
{
    if (!n) return NULL;
    char **out = calloc(n, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        /* A NULL entry would crash subs_match: all or nothing. */
        if (!(out[i] = strdup(subs[i]))) {
            subs_free(out, i);
            return NULL;
        }
    }
    return out;
}

static bool is_state_topic(const hub *h, const char *topic)
{
    size_t tl = strlen(topic);
    for (size_t i = 0; i < h->n_state_patterns; i++) {
        const char *p = h->state_patterns[i];
        size_t pl = strlen(p);
        if (p[0] == '*') {
            if (tl >= pl - 1 && strcmp(topic + tl - (pl - 1), p + 1) == 0) return true;
        } else if (pl && p[pl - 1] == '*') {
            if (strncmp(topic, p, pl - 1) == 0) return true;
        } else if (strcmp(topic, p) == 0) {
            return true;
        }
    }
    return false;
}

/* ---------- backlogs (durable modules) ---------- */

static backlog *backlog_new(const char *name, char **subs, size_t n_subs, bool all)
{
    backlog *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    snprintf(b->name, sizeof b->name, "%s", name);
    b->subs = subs_copy(subs, n_subs);
    if (n_subs && !b->subs) { /* a backlog matching nothing would lose data silently */
        free(b);
        return NULL;
    }
    b->n_subs = n_subs;
    b->all = all;
    return b;
}

static void backlog_free(backlog *b)
{
    if (!b) return;
    vec_clear(&b->q);
    subs_free(b->subs, b->n_subs);
    free(b);
}

/* Appends, dropping the oldest messages beyond the limit (counted): a durable module
 * away for longer than its backlog covers loses the oldest data, never the newest. */
static void backlog_add(hub *h, backlog *b, msgbuf *m)
{
    if (vec_push(&b->q, m) != SIM_OK) {
        b->dropped++;
        return;
    }
    while (b->q.bytes > h->cfg.backlog_limit && vec_count(&b->q) > 1) {
        msg_unref(vec_pop(&b->q));
        b->dropped++;
    }
}

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

static size_t queued_bytes(const conn *c)
{
    return c->pending.bytes - c->first_offset + c->inflight_bytes;
}

/* Queues m for c. Returns false when c had to be closed. */
static bool conn_enqueue(conn *c, msgbuf *m)
{
    hub *h = c->h;
    if (c->closing) return true;
    /* A durable module catching up gets everything through its spill backlog, in order. */
    if (c->spill) {
        backlog_add(h, c->spill, m);
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
                m->refs++;
                c->pending.items[i] = m;
                msg_unref(old);
                c->dropped++;
                return true;
            }
        }
    }
    if (queued_bytes(c) + m->len > h->cfg.queue_limit) {
        if (c->durable) {
            c->spill = backlog_new(c->name, NULL, 0, true);
            if (c->spill) {
                backlog_add(h, c->spill, m);
                return true;
            }
        }
        conn_close(c, "send queue overflow");
        return false;
    }
    if (vec_push(&c->pending, m) != SIM_OK) {
        conn_close(c, "out of memory");
        return false;
    }
    mark_dirty(c);
    return true;
}

/* A message leaves the queue for the kernel. Durable connections remember it. */
static void retire(conn *c, msgbuf *m)
{
    c->out_msgs++;
    if (c->durable && !m->direct) {
        vec_push(&c->sent, m);
        while (c->sent.bytes > RESEND_KEEP && vec_count(&c->sent) > 1) msg_unref(vec_pop(&c->sent));
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
    if (!c->spill || c->inflight || vec_count(&c->pending)) return;
    size_t moved = 0;
    msgbuf *m;
    while (moved < BACKLOG_CHUNK && (m = vec_pop(&c->spill->q))) {
        moved += m->len;
        vec_push(&c->pending, m);
        msg_unref(m);
    }
    if (vec_count(&c->spill->q) == 0) {
        c->dropped += c->spill->dropped;
        backlog_free(c->spill);
        c->spill = NULL;
    }
}

static void conn_flush(conn *c)
{
    refill_from_spill(c);
    while (!c->inflight && vec_count(&c->pending)) {
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
        while (done && vec_count(&c->pending)) {
            msgbuf *m = c->pending.items[c->pending.head];
            size_t rest = m->len - c->first_offset;
            if (done >= rest) {
                done -= rest;
                c->first_offset = 0;
                vec_pop(&c->pending); /* m; its reference moves here */
                retire(c, m);
                msg_unref(m);
            } else {
                c->first_offset += done;
                done = 0;
            }
        }
        if (vec_count(&c->pending) == 0) {
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
        while (f->n < MAX_IOV && vec_count(&c->pending)) {
            size_t off = c->first_offset;
            msgbuf *m = vec_pop(&c->pending);
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

/* everyone: membership news (joined/left) reaches every module whatever it
 * subscribed to, since lockstep bookkeeping depends on it. */
static void route(hub *h, msgbuf *m, conn *from, bool everyone)
{
    for (conn *c = h->conns, *next; c; c = next) {
        next = c->next;
        if (c == from || !c->said_hello || c->closing) continue;
        if (everyone || subs_match(c->subs, c->n_subs, c->all, m->topic)) conn_enqueue(c, m);
    }
    for (backlog *b = h->backlogs; b; b = b->next)
        if (subs_match(b->subs, b->n_subs, b->all, m->topic)) backlog_add(h, b, m);
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
    char key[40];
    snprintf(key, sizeof key, ",%s,", cmd);
    size_t n = 0;
    for (const conn *c = h->conns; c; c = c->next) {
        if (!c->said_hello || c->closing || !strstr(c->acts_on, key)) continue;
        if (n < cap) snprintf(names[n], HUB_NAME_CAP, "%s", c->name);
        n++;
    }
    return n < cap ? n : cap;
}

void hub_publish(hub *h, const char *topic, const cJSON *fields)
{
    char *text = make_line(h, topic, fields);
    if (!text) return;
    msgbuf *m = msg_new(text, strlen(text), topic, is_state_topic(h, topic));
    free(text);
    if (!m) return;
    route(h, m, NULL, strcmp(topic, "dispatcher.left") == 0);
    msg_unref(m);
    flush_dirty(h);
}

static void send_error(conn *c, const char *what)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "error", what);
    if (c->said_hello) cJSON_AddNumberToObject(f, "id", (double)c->id);
    send_to(c, "dispatcher.error", f);
    cJSON_Delete(f);
}

/* ---------- connections ---------- */

static void on_conn_closed(uv_handle_t *handle)
{
    conn *c = handle->data;
    sim_linebuf_free(&c->lines);
    free(c);
}

static cJSON *conn_brief(const conn *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)c->id);
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddBoolToObject(o, "lockstep", c->lockstep);
    cJSON_AddBoolToObject(o, "durable", c->durable);
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

/* hello's "acts_on": known command names, kept as ",a,b," in out; NULL or why not. */
static const char *parse_acts_on(const cJSON *arr, char *out, size_t cap)
{
    out[0] = '\0';
    if (!arr) return NULL;
    if (!cJSON_IsArray(arr)) return "hello: \"acts_on\" must be an array of command names";
    size_t used = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        bool known = false;
        for (size_t i = 0; cJSON_IsString(it) && sim_command_names[i] && !known; i++)
            known = strcmp(it->valuestring, sim_command_names[i]) == 0 && strcmp(it->valuestring, "status") != 0;
        if (!known) return "hello: every \"acts_on\" entry must name an operator command (docs/protocol.md)";
        int n = snprintf(out + used, cap - used, "%s%s,", used ? "" : ",", it->valuestring);
        if (n < 0 || (size_t)n >= cap - used) return "hello: \"acts_on\" is too long";
        used += (size_t)n;
    }
    return NULL;
}

static void conn_close(conn *c, const char *reason)
{
    if (c->closing) return;
    hub *h = c->h;
    c->closing = true;
    /* Best effort: whatever is queued for it (an error reply, say) goes out first. */
    if (!c->inflight && vec_count(&c->pending)) {
        uv_buf_t bufs[MAX_IOV];
        size_t n = 0;
        for (size_t i = c->pending.head; i < c->pending.n && n < MAX_IOV; i++, n++)
            bufs[n] = uv_buf_init(c->pending.items[i]->data + (n ? 0 : c->first_offset),
                                  c->pending.items[i]->len - (unsigned)(n ? 0 : c->first_offset));
        uv_try_write((uv_stream_t *)&c->tcp, bufs, (unsigned)n);
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
            while ((m = vec_pop(&c->sent))) {
                backlog_add(h, b, m);
                msg_unref(m);
            }
            for (size_t i = c->pending.head; i < c->pending.n; i++) backlog_add(h, b, c->pending.items[i]);
            if (c->spill) {
                while ((m = vec_pop(&c->spill->q))) {
                    backlog_add(h, b, m);
                    msg_unref(m);
                }
                b->dropped += c->spill->dropped;
            }
            b->next = h->backlogs;
            h->backlogs = b;
        }
    }
    vec_clear(&c->pending);
    vec_clear(&c->sent);
    backlog_free(c->spill);
    c->spill = NULL;
    subs_free(c->subs, c->n_subs);
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

static void handle_hello(conn *c, const cJSON *msg)
{
    hub *h = c->h;
    if (h->token) {
        const cJSON *tok = cJSON_GetObjectItemCaseSensitive(msg, "token");
        if (!cJSON_IsString(tok) || !sim_net_token_equal(h->token, tok->valuestring)) {
            send_error(c, tok ? "hello: wrong token" : "hello: this dispatcher requires a \"token\"");
            conn_close(c, "bad token");
            return;
        }
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > MAX_NAME) {
        send_error(c, "hello: \"name\" must be a string of 1 to 64 bytes");
        return;
    }
    const cJSON *subs = cJSON_GetObjectItemCaseSensitive(msg, "subscribe");
    if (subs && !cJSON_IsArray(subs)) {
        send_error(c, "hello: \"subscribe\" must be an array of topic prefixes (strings)");
        return;
    }
    int n = subs ? cJSON_GetArraySize(subs) : 0;
    if (n > MAX_SUBS) {
        send_error(c, "hello: \"subscribe\" has more than 64 prefixes");
        return;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, subs) {
        if (!cJSON_IsString(it) || strlen(it->valuestring) > MAX_PREFIX) {
            send_error(c, "hello: every \"subscribe\" entry must be a string of at most 256 bytes");
            return;
        }
    }
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(msg, "lockstep");
    const cJSON *du = cJSON_GetObjectItemCaseSensitive(msg, "durable");
    if ((ls && !cJSON_IsBool(ls)) || (du && !cJSON_IsBool(du))) {
        send_error(c, "hello: \"lockstep\" and \"durable\" must be true or false");
        return;
    }
    const char *why = parse_acts_on(cJSON_GetObjectItemCaseSensitive(msg, "acts_on"), c->acts_on, sizeof c->acts_on);
    if (why) {
        send_error(c, why);
        return;
    }
    c->all = subs == NULL;
    if (n) {
        char *list[MAX_SUBS];
        int i = 0;
        cJSON_ArrayForEach(it, subs) list[i++] = it->valuestring;
        c->subs = subs_copy(list, (size_t)n);
        if (!c->subs) {
            conn_close(c, "out of memory");
            return;
        }
        c->n_subs = (size_t)n;
    }
    snprintf(c->name, sizeof c->name, "%s", name->valuestring);
    c->lockstep = cJSON_IsTrue(ls);
    c->durable = cJSON_IsTrue(du);
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
        if (o != c && o->said_hello && !o->closing) cJSON_AddItemToArray(peers, conn_brief(o));
    if (taken) {
        cJSON_AddNumberToObject(w, "backlog", (double)vec_count(&taken->q));
        cJSON_AddNumberToObject(w, "backlog_dropped", (double)taken->dropped);
    }
    send_to(c, "dispatcher.welcome", w);
    cJSON_Delete(w);
    if (taken) {
        c->spill = taken;
        mark_dirty(c);
    }
    cJSON *j = conn_brief(c);
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

/* Module error reports (topics ending in ".error", e.g. log.error for a full disk)
 * are routed like any message and also kept, newest per topic and module, so that
 * `simctl status` shows them to the operator however they were missed. */
static void retain_error(hub *h, conn *c, const char *topic, const char *line, size_t len)
{
    cJSON *msg = cJSON_ParseWithLength(line, len);
    if (!msg) return;
    retained *slot = NULL;
    for (size_t i = 0; i < h->n_errors; i++)
        if (!strcmp(h->errors[i].topic, topic) && !strcmp(h->errors[i].src, c->name)) slot = &h->errors[i];
    if (!slot && h->n_errors < MAX_RETAINED) slot = &h->errors[h->n_errors++];
    if (!slot) { /* full: replace the oldest */
        slot = &h->errors[0];
        for (size_t i = 1; i < h->n_errors; i++)
            if (h->errors[i].at_ms < slot->at_ms) slot = &h->errors[i];
    }
    cJSON_Delete(slot->msg);
    snprintf(slot->topic, sizeof slot->topic, "%s", topic);
    snprintf(slot->src, sizeof slot->src, "%s", c->name);
    slot->msg = msg;
    slot->at_ms = uv_now(h->loop);
}

cJSON *hub_errors(hub *h)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < h->n_errors; i++) {
        cJSON *o = cJSON_Duplicate(h->errors[i].msg, 1);
        cJSON_AddNumberToObject(o, "age_s", (double)(uv_now(h->loop) - h->errors[i].at_ms) / 1000.0);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static int on_line(const char *line, size_t len, void *user)
{
    conn *c = user;
    hub *h = c->h;
    char topic[MAX_TOPIC + 1];
    double t;
    sim_error err;
    c->in_msgs++;
    /* Validated and routed without building a tree: only hello is parsed in full. */
    if (sim_msg_scan(line, len, topic, sizeof topic, &t, &err) != SIM_OK) {
        send_error(c, err.msg);
        return 0;
    }
    if (!c->said_hello) {
        if (strcmp(topic, "hello") == 0) {
            /* cJSON would cut a string at an escaped NUL: a name or token with one
             * would silently become another. */
            if (memmem(line, len, "\\u0000", 6)) {
                send_error(c, "hello: strings must not contain \\u0000");
                return c->closing ? 1 : 0;
            }
            cJSON *msg = cJSON_ParseWithLength(line, len);
            if (msg) handle_hello(c, msg);
            cJSON_Delete(msg);
        } else {
            send_error(c, "the first message must be {\"topic\":\"hello\",\"name\":...}; line dropped");
        }
    } else if (strcmp(topic, "hello") == 0) {
        send_error(c, "hello was already said on this connection; line dropped");
    } else if (strncmp(topic, "dispatcher.", 11) == 0) {
        send_error(c, "topics beginning with \"dispatcher.\" are reserved for the dispatcher; line dropped");
    } else {
        if (strcmp(topic, "sim.tick") == 0 && t == t) h->sim_t = t;
        size_t tl = strlen(topic);
        if (tl > 6 && strcmp(topic + tl - 6, ".error") == 0) retain_error(h, c, topic, line, len);
        msgbuf *m = msg_new(line, len, topic, is_state_topic(h, topic));
        if (m) {
            route(h, m, c, false);
            msg_unref(m);
        }
        if (h->on_ack && strcmp(topic, "control.ack") == 0) {
            cJSON *msg = cJSON_ParseWithLength(line, len);
            if (msg) h->on_ack(h->on_ack_user, c->name, msg);
            cJSON_Delete(msg);
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
        int rc = sim_linebuf_feed(&c->lines, buf->base, (size_t)nread, on_line, c);
        if (rc == SIM_LINE_TOO_LONG && !c->closing) {
            send_error(c, "line longer than 65536 bytes; closing the connection");
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
    c->next = h->conns;
    if (h->conns) h->conns->prev = c;
    h->conns = c;
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read);
}

/* ---------- statistics ---------- */

cJSON *hub_backlogs(hub *h)
{
    cJSON *away = cJSON_CreateArray();
    for (backlog *b = h->backlogs; b; b = b->next) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", b->name);
        cJSON_AddNumberToObject(o, "messages", (double)vec_count(&b->q));
        cJSON_AddNumberToObject(o, "bytes", (double)b->q.bytes);
        cJSON_AddNumberToObject(o, "dropped", (double)b->dropped);
        cJSON_AddItemToArray(away, o);
    }
    return away;
}

cJSON *hub_status(hub *h)
{
    cJSON *arr = cJSON_CreateArray();
    for (conn *c = h->conns; c; c = c->next) {
        if (!c->said_hello) continue;
        cJSON *o = conn_brief(c);
        cJSON_AddNumberToObject(o, "in_msgs", (double)c->in_msgs);
        cJSON_AddNumberToObject(o, "out_msgs", (double)c->out_msgs);
        cJSON_AddNumberToObject(o, "in_rate", c->in_rate);
        cJSON_AddNumberToObject(o, "out_rate", c->out_rate);
        cJSON_AddNumberToObject(o, "dropped", (double)c->dropped);
        cJSON_AddNumberToObject(o, "queued_bytes", (double)queued_bytes(c));
        if (c->spill) cJSON_AddNumberToObject(o, "catching_up", (double)vec_count(&c->spill->q));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static void on_stats(uv_timer_t *t)
{
    hub *h = t->data;
    double dt = h->cfg.stats_interval > 0 ? h->cfg.stats_interval : 1.0;
    for (conn *c = h->conns; c; c = c->next) {
        c->in_rate = (double)(c->in_msgs - c->last_in) / dt;
        c->out_rate = (double)(c->out_msgs - c->last_out) / dt;
        c->last_in = c->in_msgs;
        c->last_out = c->out_msgs;
    }
    cJSON *f = cJSON_CreateObject();
    cJSON_AddItemToObject(f, "connections", hub_status(h));
    cJSON_AddItemToObject(f, "backlogs", hub_backlogs(h));
    cJSON_AddNumberToObject(f, "uptime", (double)(uv_now(h->loop) - h->started_ms) / 1000.0);
    hub_publish(h, "dispatcher.stats", f);
    cJSON_Delete(f);
}

/* ---------- lifecycle ---------- */

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
    const char *patterns = cfg->state_topics ? cfg->state_topics : "*.state,sim.tick";
    char *copy = strdup(patterns), *save = NULL;
    if (!copy || (cfg->token && !h->token)) {
        free(copy);
        hub_free(h);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    for (char *p = strtok_r(copy, ",", &save); p && h->n_state_patterns < MAX_STATE_PATTERNS;
         p = strtok_r(NULL, ",", &save))
        if (*p && (h->state_patterns[h->n_state_patterns] = strdup(p))) h->n_state_patterns++;
    free(copy);

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
    uv_timer_start(&h->stats_timer, on_stats, every, every);
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
}

void hub_free(hub *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n_errors; i++) cJSON_Delete(h->errors[i].msg);
    for (size_t i = 0; i < h->n_state_patterns; i++) free(h->state_patterns[i]);
    free(h->token);
    free(h);
}
