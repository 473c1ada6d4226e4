/* page: one browser page on the bus. The gateway opens a TCP connection to the
 * dispatcher for each WebSocket and relays: every frame the page sends is one bus
 * line (its hello first), every line the dispatcher sends is one frame to the page.
 * The gateway checks only what the dispatcher cannot see (a frame is one JSON object
 * whose src is the page's own name, at most 65536 bytes) and answers the frames
 * addressed to itself (console.command, console.roads); the rest, the hello included,
 * is the dispatcher's to judge, with its own words coming back to the page.
 *
 * Flow control: frames to a page are queued here up to CONSOLE_PAGE_QUEUE_MAX bytes;
 * beyond that the gateway stops reading the page's bus connection, so a page that
 * does not read fills the dispatcher's send queue for it, and the dispatcher's rules
 * (latest value for state topics, cut-off for events) act on the page alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "sim_page.h"
#include "sim_tcp.h"

typedef struct {
    uv_write_t req;
    console_page *page;
    size_t len;
    char data[];
} bus_write;

static void start_reading(console_page *p);

void page_send(console_page *p, const char *data, size_t len)
{
    if (!p->wsi) return;
    console_frame *f = malloc(sizeof *f + LWS_PRE + len);
    if (!f) return;
    f->next = NULL;
    f->len = len;
    memcpy(f->data + LWS_PRE, data, len);
    if (p->tail) p->tail->next = f;
    else p->head = f;
    p->tail = f;
    p->queued += len;
    lws_callback_on_writable(p->wsi);
}

void page_send_error(console_page *p, const char *why)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "topic", SIM_TOPIC_CONSOLE_ERROR);
    cJSON_AddStringToObject(o, "error", why);
    char *s = cJSON_PrintUnformatted(o);
    if (s) page_send(p, s, strlen(s));
    free(s);
    cJSON_Delete(o);
}

static void free_frames(console_page *p)
{
    while (p->head) {
        console_frame *f = p->head;
        p->head = f->next;
        free(f);
    }
    p->tail = NULL;
    p->queued = 0;
}

void page_release(console_page *p)
{
    if (p->wsi || p->tcp_open || p->pending > 0) return;
    console_gateway *gw = p->gw;
    for (console_page **pp = &gw->pages; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    }
    free_frames(p);
    while (p->early) {
        console_frame *f = p->early;
        p->early = f->next;
        free(f);
    }
    free(p->rx);
    sim_linebuf_free(&p->lines);
    free(p);
}

static void on_tcp_closed(uv_handle_t *h)
{
    console_page *p = h->data;
    p->tcp_open = false;
    page_release(p);
}

/* The bus connection is over (the dispatcher closed it, or the page left): the page's
 * WebSocket is closed too once what is queued for it has been sent. */
static void close_bus(console_page *p, const char *why)
{
    if (p->bus_closed) return;
    p->bus_closed = true;
    p->connected = false;
    if (why) {
        snprintf(p->close_reason, sizeof p->close_reason, "%s", why);
        fprintf(stderr, "console: page %llu (%s): %s\n", (unsigned long long)p->id,
                p->name[0] ? p->name : "no hello yet", why);
    }
    if (p->tcp_open && !uv_is_closing((uv_handle_t *)&p->tcp)) uv_close((uv_handle_t *)&p->tcp, on_tcp_closed);
    if (p->wsi) lws_callback_on_writable(p->wsi);
}

static int on_bus_line(const char *line, size_t len, void *user)
{
    console_page *p = user;
    if (!p->welcomed) {
        char topic[256];
        double t;
        if (sim_msg_scan(line, len, topic, sizeof topic, &t, NULL) == SIM_OK &&
            strcmp(topic, SIM_TOPIC_DISPATCHER_WELCOME) == 0)
            p->welcomed = true;
    }
    page_send(p, line, len);
    return 0;
}

static void alloc_read(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    console_page *p = h->data;
    buf->base = p->readbuf;
    buf->len = sizeof p->readbuf;
}

static void on_bus_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    console_page *p = s->data;
    if (n < 0 || p->leaving) {
        if (p->leaving) {
            if (n < 0) {
                close_bus(p, NULL);
                page_release(p);
            }
            return;
        }
        close_bus(p, n == UV_EOF ? "the dispatcher closed this page's bus connection"
                                 : "the bus connection failed");
        return;
    }
    if (n == 0) return;
    sim_tcp_quickack(&p->tcp);
    if (sim_linebuf_feed(&p->lines, buf->base, (size_t)n, on_bus_line, p) == SIM_LINE_TOO_LONG) {
        close_bus(p, "the dispatcher sent a line over 65536 bytes");
        return;
    }
    if (p->queued > CONSOLE_PAGE_QUEUE_MAX && p->reading) {
        uv_read_stop(s);
        p->reading = false;
    }
}

static void start_reading(console_page *p)
{
    if (p->reading || !p->connected || p->bus_closed) return;
    if (uv_read_start((uv_stream_t *)&p->tcp, alloc_read, on_bus_read) == 0) p->reading = true;
}

static void on_bus_written(uv_write_t *req, int status)
{
    bus_write *w = (bus_write *)req;
    console_page *p = w->page;
    free(w);
    if (status < 0 && status != UV_ECANCELED) close_bus(p, "writing to the dispatcher failed");
}

/* Sends one line (a newline is added) to the dispatcher for the page. */
static void bus_send(console_page *p, const char *line, size_t len)
{
    if (p->bus_closed) {
        page_send_error(p, "not on the bus (the connection to the dispatcher is closed)");
        return;
    }
    if (!p->connected) {
        /* still connecting: kept, in order, until the connection is up */
        console_frame *f = malloc(sizeof *f + len);
        if (!f) return;
        f->next = NULL;
        f->len = len;
        memcpy(f->data, line, len);
        if (p->early_tail) p->early_tail->next = f;
        else p->early = f;
        p->early_tail = f;
        return;
    }
    if (uv_stream_get_write_queue_size((uv_stream_t *)&p->tcp) > CONSOLE_BUS_WRITE_MAX) {
        page_send_error(p, "frame refused: over 4 MiB waiting to be sent to the dispatcher for this page");
        return;
    }
    bus_write *w = malloc(sizeof *w + len + 1);
    if (!w) return;
    w->page = p;
    w->len = len + 1;
    memcpy(w->data, line, len);
    w->data[len] = '\n';
    uv_buf_t b = uv_buf_init(w->data, (unsigned)(len + 1));
    if (uv_write(&w->req, (uv_stream_t *)&p->tcp, &b, 1, on_bus_written) != 0) {
        free(w);
        close_bus(p, "writing to the dispatcher failed");
    }
}

static void on_connected(uv_connect_t *req, int status)
{
    console_page *p = req->data;
    if (p->bus_closed) return;
    if (status < 0) {
        close_bus(p, "cannot connect to the dispatcher");
        return;
    }
    p->connected = true;
    uv_tcp_nodelay(&p->tcp, 1);
    start_reading(p);
    while (p->early && !p->bus_closed) {
        console_frame *f = p->early;
        p->early = f->next;
        bus_send(p, (const char *)f->data, f->len);
        free(f);
    }
    p->early_tail = NULL;
}

console_page *page_open(console_gateway *gw, struct lws *wsi)
{
    console_page *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (sim_linebuf_init(&p->lines, CONSOLE_MAX_FRAME) != SIM_OK) {
        free(p);
        return NULL;
    }
    p->gw = gw;
    p->wsi = wsi;
    p->id = ++gw->next_id;
    p->next = gw->pages;
    gw->pages = p;
    uv_tcp_init(gw->loop, &p->tcp);
    p->tcp.data = p;
    p->tcp_open = true;
    p->connect_req.data = p;
    if (uv_tcp_connect(&p->connect_req, &p->tcp, (const struct sockaddr *)&gw->bus_addr, on_connected) != 0)
        close_bus(p, "cannot connect to the dispatcher");
    return p;
}

static void answer_roads(console_page *p, const cJSON *msg)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(msg, "req");
    char head[96];
    if (!p->gw->roads_json) {
        page_send_error(p, "console.roads: the console was started without --scenario");
        return;
    }
    int n = snprintf(head, sizeof head, "{\"topic\":\"" SIM_TOPIC_CONSOLE_ROADS "\",\"req\":%.17g,\"map\":",
                     cJSON_IsNumber(req) ? req->valuedouble : 0.0);
    size_t len = (size_t)n + strlen(p->gw->roads_json) + 1;
    char *s = malloc(len + 1);
    if (!s) return;
    snprintf(s, len + 1, "%s%s}", head, p->gw->roads_json);
    page_send(p, s, len);
    free(s);
}

/* One complete message from the page: checked (sim_page), then sent on, answered by
 * the gateway, or refused with the reason. */
static void handle_message(console_page *p, const char *data, size_t len)
{
    sim_page_result r;
    sim_error err = {0};
    if (sim_page_check(data, len, p->name, p->welcomed, p->gw->bus_token, &r, &err) != SIM_OK) return;
    /* each page role gets only its rights (sim_page_role_allows): a participant's HMI,
     * SuRT or questionnaire page neither commands nor publishes another role's topics */
    if ((r.action == SIM_PAGE_COMMAND || (r.action == SIM_PAGE_FORWARD && !r.hello)) &&
        sim_page_role_allows(p->role, r.topic, &err) != SIM_OK) {
        page_send_error(p, err.msg);
        sim_page_result_free(&r);
        return;
    }
    switch (r.action) {
    case SIM_PAGE_FORWARD:
        if (r.hello) snprintf(p->name, sizeof p->name, "%s", r.hello_name);
        bus_send(p, r.line, strlen(r.line));
        break;
    case SIM_PAGE_COMMAND:
        /* (the operator role is granted only to a WebSocket that showed the operator's
         * cookie, HttpOnly and SameSite=Strict, set with "/", or a program's token) */
        if (!p->welcomed) page_send_error(p, "console.command: say hello first");
        else console_command(p, r.msg);
        break;
    case SIM_PAGE_ROADS:
        answer_roads(p, r.msg);
        break;
    case SIM_PAGE_REFUSED:
        page_send_error(p, err.msg);
        break;
    }
    sim_page_result_free(&r);
}

void page_on_frame(console_page *p, const char *data, size_t len, bool final)
{
    if (!p->rx_overflow) {
        if (p->rx_len + len > CONSOLE_MAX_FRAME) {
            p->rx_overflow = true;
        } else if (len) {
            if (!p->rx) p->rx = malloc(CONSOLE_MAX_FRAME + 1);
            if (!p->rx) return;
            memcpy(p->rx + p->rx_len, data, len);
            p->rx_len += len;
        }
    }
    if (!final) return;
    if (p->rx_overflow) page_send_error(p, "frame refused: over 65536 bytes (the bus's line limit)");
    else handle_message(p, p->rx, p->rx_len);
    p->rx_overflow = false;
    p->rx_len = 0;
}

int page_on_writeable(console_page *p)
{
    console_frame *f = p->head;
    if (f) {
        p->head = f->next;
        if (!p->head) p->tail = NULL;
        p->queued -= f->len;
        int n = lws_write(p->wsi, f->data + LWS_PRE, f->len, LWS_WRITE_TEXT);
        free(f);
        if (n < 0) return -1;
        if (p->head || p->bus_closed) lws_callback_on_writable(p->wsi);
        if (p->queued < CONSOLE_PAGE_QUEUE_MAX / 2) start_reading(p);
        return 0;
    }
    if (p->bus_closed) {
        lws_close_reason(p->wsi, LWS_CLOSE_STATUS_GOINGAWAY, (unsigned char *)p->close_reason,
                         strlen(p->close_reason));
        return -1;
    }
    return 0;
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    console_page *p = req->data;
    free(req);
    if (status < 0) close_bus(p, NULL);
}

/* A page leaving is a module leaving (docs/protocol.md, Session 4): shut down the
 * sending side and read (dropping) until the dispatcher's end of file, so that the
 * page's last lines are not lost to a reset; then the handle closes. */
void page_on_ws_closed(console_page *p)
{
    p->wsi = NULL;
    free_frames(p);
    if (!p->bus_closed && p->connected) {
        uv_shutdown_t *req = malloc(sizeof *req);
        if (req) {
            req->data = p;
            p->leaving = true;
            start_reading(p);
            if (uv_shutdown(req, (uv_stream_t *)&p->tcp, on_shutdown) == 0) return;
            free(req);
        }
    }
    close_bus(p, NULL);
    page_release(p);
}
