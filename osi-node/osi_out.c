/* osi_out: see osi_out.h. */
#include "osi_out.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_bus.h"
#include "sim_net.h"

#define TOKEN_LINE_MAX 512

typedef struct consumer {
    uv_tcp_t tcp;
    osi_out *o;
    struct consumer *next;
    bool admitted, fresh, closing;
    char line[TOKEN_LINE_MAX];
    size_t line_len;
    char peer[64];
} consumer;

struct osi_out {
    uv_loop_t *loop;
    uv_tcp_t server;
    bool listening;
    char *token;        /* NULL: consumers are admitted at once (loopback) */
    consumer *consumers;
    int udp_fd;
    struct sockaddr_in udp_to;
    size_t udp_max, oversize;
    void (*on_fresh)(void *user);
    void *user;
    int open_handles;
    bool closing;
};

/* One framed message shared by the writes to every consumer. */
typedef struct frame {
    int refs;
    uv_buf_t buf;
    uint8_t data[];
} frame;

typedef struct write_req {
    uv_write_t req;
    frame *f;
} write_req;

static void maybe_free(osi_out *o)
{
    if (o->closing && o->open_handles == 0) {
        free(o->token);
        free(o);
    }
}

static void on_consumer_closed(uv_handle_t *h)
{
    consumer *c = h->data;
    osi_out *o = c->o;
    for (consumer **p = &o->consumers; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    free(c);
    o->open_handles--;
    maybe_free(o);
}

static void drop(consumer *c, const char *why)
{
    if (c->closing) return;
    c->closing = true;
    if (why) fprintf(stderr, "osi-node: consumer %s: %s: disconnected\n", c->peer, why);
    uv_close((uv_handle_t *)&c->tcp, on_consumer_closed);
}

static void on_written(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    if (--w->f->refs == 0) free(w->f);
    consumer *c = req->handle->data;
    free(w);
    if (status < 0 && status != UV_ECANCELED) drop(c, uv_strerror(status));
}

static void put(consumer *c, frame *f)
{
    if (c->closing) return;
    if (uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) > OSI_OUT_BEHIND_MAX) {
        drop(c, "more than 256 MiB behind the stream");
        return;
    }
    write_req *w = malloc(sizeof *w);
    if (!w) {
        drop(c, "out of memory");
        return;
    }
    w->f = f;
    f->refs++;
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &f->buf, 1, on_written);
    if (rc < 0) {
        f->refs--;
        free(w);
        drop(c, uv_strerror(rc));
    }
}

/* The message framed as in a trace file: its length, 4 bytes little-endian, first. */
static frame *framed(const uint8_t *msg, size_t len)
{
    frame *f = malloc(sizeof *f + 4 + len);
    if (!f) return NULL;
    f->refs = 1; /* the sender's, dropped once every write is queued */
    f->data[0] = (uint8_t)len, f->data[1] = (uint8_t)(len >> 8), f->data[2] = (uint8_t)(len >> 16),
    f->data[3] = (uint8_t)(len >> 24);
    memcpy(f->data + 4, msg, len);
    f->buf = uv_buf_init((char *)f->data, (unsigned)(4 + len));
    return f;
}

static void send_to(osi_out *o, const uint8_t *msg, size_t len, bool fresh)
{
    if (!o->consumers) return;
    frame *f = framed(msg, len);
    if (!f) {
        fprintf(stderr, "osi-node: out of memory: a GroundTruth was not sent\n");
        return;
    }
    for (consumer *c = o->consumers; c; c = c->next)
        if (c->admitted && c->fresh == fresh) {
            put(c, f);
            c->fresh = false;
        }
    if (--f->refs == 0) free(f);
}

void osi_out_greet(osi_out *o, const uint8_t *msg, size_t len)
{
    send_to(o, msg, len, true);
}

void osi_out_send(osi_out *o, const uint8_t *msg, size_t len, double t)
{
    send_to(o, msg, len, false);
    if (o->udp_fd < 0) return;
    if (len > o->udp_max) {
        if (o->oversize++ == 0)
            fprintf(stderr, "osi-node: udp: the GroundTruth at t %.3f s is %zu bytes, more than one datagram carries "
                    "(%zu): not sent (this note comes once; TCP has no such limit)\n", t, len, o->udp_max);
        return;
    }
    if (sendto(o->udp_fd, msg, len, 0, (struct sockaddr *)&o->udp_to, sizeof o->udp_to) < 0 && errno != EAGAIN &&
        errno != ECONNREFUSED)
        fprintf(stderr, "osi-node: udp: %s\n", strerror(errno));
}

size_t osi_out_oversize(const osi_out *o)
{
    return o->oversize;
}

size_t osi_out_consumers(const osi_out *o)
{
    size_t n = 0;
    for (const consumer *c = o->consumers; c; c = c->next) n += c->admitted && !c->closing;
    return n;
}

bool osi_out_fresh(const osi_out *o)
{
    for (const consumer *c = o->consumers; c; c = c->next)
        if (c->admitted && c->fresh && !c->closing) return true;
    return false;
}

static void admit(consumer *c)
{
    c->admitted = true;
    c->fresh = true;
    fprintf(stderr, "osi-node: consumer %s joined\n", c->peer);
    if (c->o->on_fresh) c->o->on_fresh(c->o->user);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    consumer *c = h->data;
    size_t room = sizeof c->line - c->line_len;
    if (c->admitted || room == 0) { /* after the token: read and thrown away */
        static char sink[4096];
        *buf = uv_buf_init(sink, sizeof sink);
        return;
    }
    *buf = uv_buf_init(c->line + c->line_len, (unsigned)room);
}

/* Consumers send nothing but the token line; the rest is read and ignored, EOF or an
 * error ends them. */
static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    consumer *c = s->data;
    if (n < 0) {
        drop(c, n == UV_EOF ? NULL : uv_strerror((int)n));
        return;
    }
    if (c->admitted || n == 0) return;
    c->line_len += (size_t)n;
    char *nl = memchr(c->line, '\n', c->line_len);
    if (!nl && c->line_len < sizeof c->line) return;
    if (!nl) {
        drop(c, "no token line within 512 bytes");
        return;
    }
    *nl = 0;
    if (nl > c->line && nl[-1] == '\r') nl[-1] = 0;
    if (!sim_net_token_equal(c->o->token, c->line)) {
        drop(c, "wrong token");
        return;
    }
    admit(c);
}

static void on_connection(uv_stream_t *server, int status)
{
    osi_out *o = server->data;
    if (status < 0 || o->closing) return;
    consumer *c = calloc(1, sizeof *c);
    if (!c) return;
    c->o = o;
    uv_tcp_init(o->loop, &c->tcp);
    c->tcp.data = c;
    o->open_handles++;
    c->next = o->consumers;
    o->consumers = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
        drop(c, NULL);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    struct sockaddr_storage ss;
    int sl = sizeof ss;
    snprintf(c->peer, sizeof c->peer, "?");
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sl) == 0) {
        char ip[48] = "";
        int port = 0;
        if (ss.ss_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
            uv_ip4_name(a, ip, sizeof ip), port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
            uv_ip6_name(a, ip, sizeof ip), port = ntohs(a->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
    }
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (!o->token) admit(c);
}

static void on_server_closed(uv_handle_t *h)
{
    osi_out *o = h->data;
    o->open_handles--;
    maybe_free(o);
}

static int open_server(osi_out *o, const char *listen, const char *token, sim_error *err)
{
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(listen, host, sizeof host, &port, err)) return SIM_EINVAL;
    if (!sim_net_is_loopback(host)) {
        if (!token || !token[0])
            return sim_error_set(err, SIM_EINVAL, "--listen %s is not loopback: a token is required to listen there "
                                 "(--token or SIM_BUS_TOKEN; consumers send it as their first line)", listen);
        if (!(o->token = strdup(token))) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    struct sockaddr_storage addr;
    if (uv_ip4_addr(strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, port, (struct sockaddr_in *)&addr) != 0 &&
        uv_ip6_addr(host, port, (struct sockaddr_in6 *)&addr) != 0)
        return sim_error_set(err, SIM_EINVAL, "--listen %s: expected an IP address and a port", listen);
    uv_tcp_init(o->loop, &o->server);
    o->server.data = o;
    o->open_handles++;
    o->listening = true;
    int rc = uv_tcp_bind(&o->server, (const struct sockaddr *)&addr, 0);
    if (!rc) rc = uv_listen((uv_stream_t *)&o->server, 16, on_connection);
    if (rc) return sim_error_set(err, SIM_EIO, "--listen %s: %s", listen, uv_strerror(rc));
    return 0;
}

static int open_udp(osi_out *o, const char *udp, sim_error *err)
{
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(udp, host, sizeof host, &port, err)) return SIM_EINVAL;
    o->udp_to.sin_family = AF_INET;
    o->udp_to.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &o->udp_to.sin_addr) != 1)
        return sim_error_set(err, SIM_EINVAL, "--udp %s: expected an IPv4 address", udp);
    o->udp_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (o->udp_fd < 0) return sim_error_set(err, SIM_EIO, "udp socket: %s", strerror(errno));
    /* room for the largest datagram */
    int sz = (int)OSI_OUT_UDP_MAX + 1024;
    setsockopt(o->udp_fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    return 0;
}

int osi_out_open(uv_loop_t *loop, const char *listen, const char *udp, const char *token, size_t udp_max,
                 void (*on_fresh)(void *user), void *user, osi_out **out, sim_error *err)
{
    *out = NULL;
    if (udp_max < 1 || udp_max > OSI_OUT_UDP_MAX)
        return sim_error_set(err, SIM_ERANGE, "--udp-max %zu: a datagram carries 1 to %u bytes", udp_max,
                             OSI_OUT_UDP_MAX);
    osi_out *o = calloc(1, sizeof *o);
    if (!o) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    *o = (osi_out){.loop = loop, .udp_fd = -1, .udp_max = udp_max, .on_fresh = on_fresh, .user = user};
    int rc = listen ? open_server(o, listen, token, err) : 0;
    if (!rc && udp) rc = open_udp(o, udp, err);
    if (rc) {
        osi_out_close(o);
        return rc;
    }
    *out = o;
    return 0;
}

static void on_shut(uv_shutdown_t *sd, int status)
{
    uv_close((uv_handle_t *)sd->handle, on_consumer_closed);
    free(sd);
}

void osi_out_close(osi_out *o)
{
    if (!o || o->closing) return;
    o->closing = true;
    if (o->udp_fd >= 0) close(o->udp_fd);
    o->udp_fd = -1;
    if (o->listening) uv_close((uv_handle_t *)&o->server, on_server_closed);
    /* each consumer after what is queued for it (uv_shutdown waits for the writes;
     * a close at once would cancel them) */
    for (consumer *c = o->consumers; c; c = c->next) {
        if (c->closing) continue;
        c->closing = true;
        uv_shutdown_t *sd = malloc(sizeof *sd);
        if (!sd || uv_shutdown(sd, (uv_stream_t *)&c->tcp, on_shut) < 0) {
            free(sd);
            uv_close((uv_handle_t *)&c->tcp, on_consumer_closed);
        }
    }
    maybe_free(o);
}
