/* sim_bus: the module side of the bus: connect, hello, receive, publish, reconnect
 * (see sim_bus.h and docs/protocol.md). */
#include "sim_bus.h"

#include <assert.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cab.h"
#include "sim_line.h"

#define DRAIN_MS 1000 /* closing: the longest wait for the dispatcher's EOF */
#define RECONNECT_FIRST_MS 50
#define RECONNECT_MAX_MS 500

typedef enum { BUS_IDLE, BUS_CONNECTING, BUS_HELLO_SENT, BUS_READY, BUS_CLOSING } bus_state;

struct sim_bus {
    uv_loop_t *loop;
    uv_tcp_t *tcp;          /* NULL between connections; freed in its close callback */
    uv_timer_t retry;
    uv_connect_t connect_req;
    bus_state state;
    bool closing;
    int open_handles;       /* handles opened and not yet closed */
    unsigned retry_ms;

    char *name, *host, *token;
    char *secret; /* the session's, from $SIM_BUS_SECRET (simctl run); NULL: none */
    char *cab;    /* the module's cab, from $SIM_CAB (docs/cabs.md); NULL: none */
    uint64_t received; /* lines read on the current connection, the welcome included */
    char **subscribe;
    size_t n_subscribe;
    char **acts_on;
    size_t n_acts_on;
    uv_tcp_t *draining;     /* closing gracefully: shut down, read until EOF */
    bool subscribe_none, lockstep, durable;
    int port;
    sim_bus_message_cb on_message;
    sim_bus_state_cb on_state;
    void *user;

    sim_linebuf lines;
    uint64_t seq;
    uint64_t dropped;
    char readbuf[65536];    /* one read is outstanding at a time */
};

typedef struct {
    uv_write_t req;
    char data[];
} write_req;

static void start_connect(sim_bus *bus);
static void schedule_reconnect(sim_bus *bus);

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Copies n strings (none when src is NULL); false when out of memory (what was
 * copied is still recorded in *dst and *n_dst for the caller to free). */
static bool copy_strings(const char *const *src, size_t n, char ***dst, size_t *n_dst)
{
    if (!src || !n) return true;
    *dst = calloc(n, sizeof **dst);
    if (!*dst) return false;
    *n_dst = n;
    bool ok = true;
    for (size_t i = 0; i < n; i++) ok = ((*dst)[i] = strdup(src[i])) != NULL && ok;
    return ok;
}

int sim_bus_parse_endpoint(const char *text, char *host_out, size_t host_size, int *port_out,
                           sim_error *err)
{
    if (!text || !*text) return sim_error_set(err, SIM_EINVAL, "empty endpoint: expected HOST:PORT");
    const char *colon = strrchr(text, ':');
    const char *host = text;
    size_t host_len;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':')
            return sim_error_set(err, SIM_EINVAL, "'%s': expected [IPv6]:PORT", text);
        host = text + 1;
        host_len = (size_t)(close - host);
        colon = close + 1;
    } else {
        if (!colon) return sim_error_set(err, SIM_EINVAL, "'%s': expected HOST:PORT", text);
        host_len = (size_t)(colon - text);
    }
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || port < 1 || port > 65535)
        return sim_error_set(err, SIM_EINVAL, "'%s': port must be 1..65535", text);
    if (host_len == 0 || host_len >= host_size)
        return sim_error_set(err, SIM_EINVAL, "'%s': missing or overlong host", text);
    memcpy(host_out, host, host_len);
    host_out[host_len] = '\0';
    *port_out = (int)port;
    return SIM_OK;
}

static void free_bus(sim_bus *bus)
{
    free(bus->name);
    free(bus->host);
    free(bus->token);
    free(bus->secret);
    free(bus->cab);
    for (size_t i = 0; i < bus->n_subscribe; i++) free(bus->subscribe[i]);
    free(bus->subscribe);
    for (size_t i = 0; i < bus->n_acts_on; i++) free(bus->acts_on[i]);
    free(bus->acts_on);
    sim_linebuf_free(&bus->lines);
    free(bus);
}

/* Every handle the bus opens (the retry timer, each connection's TCP handle) is
 * counted; the bus is freed when it is closing and the last one has closed, so a late
 * close callback of a lost connection never sees freed memory. */
static void on_handle_closed(uv_handle_t *h)
{
    sim_bus *bus = h->data;
    if (h != (uv_handle_t *)&bus->retry) free(h);
    if (--bus->open_handles == 0 && bus->closing) free_bus(bus);
}

static void on_write_done(uv_write_t *req, int status)
{
    free(req);
}

static int write_raw(sim_bus *bus, const char *data, size_t len)
{
    if (!bus->tcp || (bus->state != BUS_READY && bus->state != BUS_HELLO_SENT)) {
        bus->dropped++;
        return SIM_ECLOSED;
    }
    write_req *w = malloc(sizeof *w + len + 1);
    if (!w) return SIM_ENOMEM;
    memcpy(w->data, data, len);
    w->data[len] = '\n';
    uv_buf_t buf = uv_buf_init(w->data, (unsigned)len + 1);
    if (uv_write(&w->req, (uv_stream_t *)bus->tcp, &buf, 1, on_write_done) != 0) {
        free(w);
        bus->dropped++;
        return SIM_ECLOSED;
    }
    return SIM_OK;
}

static void lose_connection(sim_bus *bus)
{
    bool was_ready = bus->state == BUS_READY;
    if (bus->tcp) {
        uv_close((uv_handle_t *)bus->tcp, on_handle_closed);
        bus->tcp = NULL;
    }
    bus->lines.len = 0;
    bus->lines.overflow = false;
    if (bus->closing) return;
    bus->state = BUS_IDLE;
    if (was_ready && bus->on_state) bus->on_state(bus, NULL, bus->user);
    schedule_reconnect(bus);
}

static int on_line(const char *line, size_t len, void *user)
{
    sim_bus *bus = user;
    cJSON *msg;
    const char *topic;
    bus->received++; /* every line, as the dispatcher counts them for durable.ack */
    if (sim_msg_parse(line, len, &msg, &topic, NULL) != SIM_OK) return 0; /* not ours to judge */
    if (bus->cab) { /* a cab's module: its own per-cab topics without their prefix */
        const char *as;
        sim_cab_seen seen = sim_cab_receive(bus->cab, topic, &as);
        if (seen == SIM_CAB_SEEN_DROP) {
            cJSON_Delete(msg);
            return 0;
        }
        char plain[256];
        cJSON *item = cJSON_GetObjectItemCaseSensitive(msg, "topic");
        if (seen == SIM_CAB_SEEN_OWN && snprintf(plain, sizeof plain, "%s", as) < (int)sizeof plain &&
            cJSON_SetValuestring(item, plain))
            topic = item->valuestring;
    }
    if (bus->state == BUS_HELLO_SENT && strcmp(topic, "dispatcher.welcome") == 0) {
        assert(bus->tcp && !bus->closing); /* welcomed only on a live connection */
        bus->state = BUS_READY;
        bus->retry_ms = RECONNECT_FIRST_MS;
        if (bus->on_state) bus->on_state(bus, msg, bus->user);
    } else if (bus->on_message) {
        bus->on_message(bus, topic, msg, line, len, bus->user);
    }
    cJSON_Delete(msg);
    /* A callback may have closed the bus; stop delivering then. */
    return bus->closing ? 1 : 0;
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    sim_bus *bus = h->data;
    buf->base = bus->readbuf;
    buf->len = sizeof bus->readbuf;
}

static void finish_drain(sim_bus *bus);

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    sim_bus *bus = s->data;
    if (bus->closing) {
        /* Closing: what still arrives is read and dropped until the dispatcher closes
         * its side. A socket closed with unread data sends a reset, and a reset can
         * make the dispatcher lose our last lines (a control.ack before exiting). */
        if (nread < 0) finish_drain(bus);
        return;
    }
    if (nread > 0) {
        int rc = sim_linebuf_feed(&bus->lines, buf->base, (size_t)nread, on_line, bus);
        if (rc == SIM_LINE_TOO_LONG && !bus->closing) lose_connection(bus);
    } else if (nread < 0) {
        if (!bus->closing) lose_connection(bus);
    }
}

static void send_hello(sim_bus *bus)
{
    cJSON *hello = cJSON_CreateObject();
    cJSON_AddStringToObject(hello, "topic", "hello");
    cJSON_AddStringToObject(hello, "name", bus->name);
    if (bus->subscribe || bus->subscribe_none) {
        cJSON *arr = cJSON_AddArrayToObject(hello, "subscribe");
        for (size_t i = 0; i < bus->n_subscribe; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(bus->subscribe[i]));
    }
    if (bus->n_acts_on) {
        cJSON *arr = cJSON_AddArrayToObject(hello, "acts_on");
        for (size_t i = 0; i < bus->n_acts_on; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(bus->acts_on[i]));
    }
    if (bus->lockstep) cJSON_AddTrueToObject(hello, "lockstep");
    if (bus->durable) cJSON_AddTrueToObject(hello, "durable");
    if (bus->token) cJSON_AddStringToObject(hello, "token", bus->token);
    if (bus->secret) cJSON_AddStringToObject(hello, "secret", bus->secret);
    char *text = cJSON_PrintUnformatted(hello);
    cJSON_Delete(hello);
    if (text) {
        assert(bus->state == BUS_CONNECTING && bus->tcp); /* one hello per connection */
        bus->state = BUS_HELLO_SENT;
        write_raw(bus, text, strlen(text));
        free(text);
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    sim_bus *bus = req->data;
    if (bus->closing) return;
    if (status != 0) {
        lose_connection(bus);
        return;
    }
    uv_tcp_nodelay(bus->tcp, 1);
    bus->state = BUS_CONNECTING;
    bus->received = 0;
    send_hello(bus);
    uv_read_start((uv_stream_t *)bus->tcp, alloc_cb, on_read);
}

static void start_connect(sim_bus *bus)
{
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    if (uv_ip4_addr(bus->host, bus->port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(bus->host, bus->port, (struct sockaddr_in6 *)&addr) != 0) {
        /* A name: resolve synchronously; the bus is configured with loopback or an
         * address nearly always, and this happens only on (re)connect. */
        uv_getaddrinfo_t gai;
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        char port[16];
        snprintf(port, sizeof port, "%d", bus->port);
        if (uv_getaddrinfo(bus->loop, &gai, NULL, bus->host, port, &hints) != 0 || !gai.addrinfo) {
            schedule_reconnect(bus);
            return;
        }
        memcpy(&addr, gai.addrinfo->ai_addr, gai.addrinfo->ai_addrlen);
        uv_freeaddrinfo(gai.addrinfo);
    }
    assert(!bus->tcp && !bus->closing); /* one connection at a time, none once closing */
    bus->tcp = malloc(sizeof *bus->tcp);
    if (!bus->tcp) {
        schedule_reconnect(bus);
        return;
    }
    uv_tcp_init(bus->loop, bus->tcp);
    bus->open_handles++;
    bus->tcp->data = bus;
    bus->connect_req.data = bus;
    bus->state = BUS_CONNECTING;
    if (uv_tcp_connect(&bus->connect_req, bus->tcp, (struct sockaddr *)&addr, on_connect) != 0)
        lose_connection(bus);
}

static void on_retry(uv_timer_t *t)
{
    sim_bus *bus = t->data;
    if (!bus->closing) start_connect(bus);
}

static void schedule_reconnect(sim_bus *bus)
{
    uv_timer_start(&bus->retry, on_retry, bus->retry_ms, 0);
    bus->retry_ms = bus->retry_ms * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : bus->retry_ms * 2;
}

/* A cab's module also asks for "cab.<cab>.<prefix>" for each prefix that covers a
 * per-cab topic; false when out of memory. */
static bool cab_subscriptions(sim_bus *bus)
{
    size_t n = bus->n_subscribe, more = 0;
    for (size_t i = 0; i < n; i++) more += sim_cab_prefix_covers(bus->subscribe[i]);
    if (!more) return true;
    char **all = realloc(bus->subscribe, (n + more) * sizeof *all);
    if (!all) return false;
    bus->subscribe = all;
    for (size_t i = 0; i < n; i++) {
        if (!sim_cab_prefix_covers(all[i])) continue;
        char *s = NULL;
        if (asprintf(&s, SIM_CAB_PREFIX "%s.%s", bus->cab, all[i]) < 0) return false;
        all[bus->n_subscribe++] = s;
    }
    return true;
}

int sim_bus_open(uv_loop_t *loop, const sim_bus_options *o, sim_bus **out, sim_error *err)
{
    *out = NULL;
    /* A dispatcher that goes away must not kill the module with SIGPIPE; write errors
     * are handled (reconnect) instead. */
    signal(SIGPIPE, SIG_IGN);
    if (!o->name || !*o->name) return sim_error_set(err, SIM_EINVAL, "bus: a module name is required");
    sim_bus *bus = calloc(1, sizeof *bus);
    if (!bus) return sim_error_set(err, SIM_ENOMEM, "bus: out of memory");
    bus->loop = loop;
    bus->name = strdup(o->name);
    bus->host = strdup(o->host ? o->host : SIM_BUS_DEFAULT_HOST);
    /* The token and the session's secret travel through the environment from simctl
     * run, never on a command line (`ps` shows those to every user). */
    const char *env_token = getenv("SIM_BUS_TOKEN"), *env_secret = getenv("SIM_BUS_SECRET");
    bus->token = dup_or_null(o->token ? o->token : env_token && env_token[0] ? env_token : NULL);
    bus->secret = dup_or_null(env_secret && env_secret[0] ? env_secret : NULL);
    const char *env_cab = getenv(SIM_CAB_ENV);
    if (env_cab && env_cab[0] && !sim_cab_name_ok(env_cab)) {
        free_bus(bus);
        return sim_error_set(err, SIM_EINVAL, "bus: " SIM_CAB_ENV "='%.40s': a cab's name is 1 to %d of A-Z a-z 0-9 _ -",
                             env_cab, SIM_CAB_NAME_MAX);
    }
    if (env_cab && env_cab[0]) { /* the cab's module joins as NAME@CAB (docs/cabs.md) */
        char *named = NULL;
        bus->cab = strdup(env_cab);
        if (asprintf(&named, "%s@%s", bus->name, env_cab) < 0) named = NULL;
        free(bus->name);
        bus->name = named;
        if (!bus->cab || !bus->name) {
            free_bus(bus);
            return sim_error_set(err, SIM_ENOMEM, "bus: out of memory");
        }
    }
    bus->port = o->port ? o->port : SIM_BUS_DEFAULT_PORT;
    bus->subscribe_none = o->subscribe_none;
    bus->lockstep = o->lockstep;
    bus->durable = o->durable;
    bus->on_message = o->on_message;
    bus->on_state = o->on_state;
    bus->user = o->user;
    bus->retry_ms = RECONNECT_FIRST_MS;
    bool copied = copy_strings(o->subscribe, o->n_subscribe, &bus->subscribe, &bus->n_subscribe) &&
                  copy_strings(o->acts_on, o->n_acts_on, &bus->acts_on, &bus->n_acts_on) &&
                  (!bus->cab || cab_subscriptions(bus));
    if (!copied || !bus->name || !bus->host || sim_linebuf_init(&bus->lines, SIM_BUS_MAX_LINE) != SIM_OK) {
        free_bus(bus);
        return sim_error_set(err, SIM_ENOMEM, "bus: out of memory");
    }
    uv_timer_init(loop, &bus->retry);
    bus->open_handles++;
    bus->retry.data = bus;
    start_connect(bus);
    *out = bus;
    return SIM_OK;
}

int sim_bus_publish(sim_bus *bus, const char *topic, double t, const cJSON *payload)
{
    if (bus->state != BUS_READY) {
        bus->dropped++;
        return SIM_ECLOSED;
    }
    assert(bus->tcp); /* ready means connected */
    cJSON *msg = cJSON_CreateObject();
    if (!msg) return SIM_ENOMEM;
    char wire[256];
    if (bus->cab && sim_cab_wire(bus->cab, topic, wire, sizeof wire) >= 0) topic = wire;
    cJSON_AddStringToObject(msg, "topic", topic);
    cJSON_AddStringToObject(msg, "src", bus->name);
    cJSON_AddNumberToObject(msg, "seq", (double)++bus->seq);
    cJSON_AddNumberToObject(msg, "t", t);
    if (payload) {
        /* References: the payload's items are printed, not copied or freed. */
        for (const cJSON *it = payload->child; it; it = it->next)
            cJSON_AddItemReferenceToObject(msg, it->string, (cJSON *)it);
    }
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!text) return SIM_ENOMEM;
    int rc = write_raw(bus, text, strlen(text));
    free(text);
    return rc;
}

int sim_bus_send_line(sim_bus *bus, const char *line, size_t len)
{
    if (bus->state != BUS_READY) {
        bus->dropped++;
        return SIM_ECLOSED;
    }
    return write_raw(bus, line, len);
}

uint64_t sim_bus_received(const sim_bus *bus) { return bus->received; }

bool sim_bus_connected(const sim_bus *bus)
{
    return bus && bus->state == BUS_READY;
}

uint64_t sim_bus_dropped(const sim_bus *bus)
{
    return bus->dropped;
}

/* The end of a graceful close: the socket (after the dispatcher's EOF, an error, or
 * DRAIN_MS) and the timer. */
static void finish_drain(sim_bus *bus)
{
    if (!bus->draining) return;
    uv_close((uv_handle_t *)bus->draining, on_handle_closed);
    bus->draining = NULL;
    uv_timer_stop(&bus->retry);
    uv_close((uv_handle_t *)&bus->retry, on_handle_closed);
}

static void on_drain_timeout(uv_timer_t *t)
{
    finish_drain(t->data);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    sim_bus *bus = req->handle->data;
    free(req);
    if (status < 0) finish_drain(bus); /* else: the dispatcher's EOF ends it (on_read) */
}

void sim_bus_close(sim_bus *bus)
{
    if (!bus || bus->closing) return;
    bool graceful = bus->state == BUS_READY || bus->state == BUS_HELLO_SENT;
    bus->closing = true;
    bus->state = BUS_CLOSING;
    uv_timer_stop(&bus->retry);
    if (bus->tcp) {
        /* Messages already published still go out: shutdown waits for queued writes;
         * reading goes on (and drops) until the dispatcher has closed too. */
        uv_shutdown_t *req = graceful ? malloc(sizeof *req) : NULL;
        if (req && uv_shutdown(req, (uv_stream_t *)bus->tcp, on_shutdown) == 0) {
            bus->draining = bus->tcp;
            bus->tcp = NULL;
            uv_timer_start(&bus->retry, on_drain_timeout, DRAIN_MS, 0);
            return;
        }
        free(req);
        uv_read_stop((uv_stream_t *)bus->tcp);
        uv_close((uv_handle_t *)bus->tcp, on_handle_closed);
        bus->tcp = NULL;
    }
    uv_close((uv_handle_t *)&bus->retry, on_handle_closed);
}
