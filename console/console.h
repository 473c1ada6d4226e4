/* console: the web gateway (docs/console.md). Each browser page is a WebSocket that
 * the gateway joins to the bus with a TCP connection of its own, so the dispatcher
 * checks, limits and cuts off a page exactly as it does a module. This header is what
 * the gateway's files share: the gateway (one per process), a page (one per
 * WebSocket) and the frames the gateway answers itself (`console.*`).
 *
 * Ownership: the gateway owns its pages (a list); a page is freed once its WebSocket
 * has closed, its bus connection's handle is closed and no command of its is in
 * flight (page_release). Frames queued to a page are owned by the page. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <libwebsockets.h>
#include <uv.h>

#include "sim_line.h"
#include "sim_page.h"

/* The bus's own line limit: a page's frame is one bus line. */
#define CONSOLE_MAX_FRAME SIM_PAGE_MAX_LINE
/* Bytes queued towards one page before the gateway stops reading its bus connection:
 * the rest waits in the dispatcher's send queue, where its rules apply (state topics
 * keep the newest value, a page behind on events is cut off). */
#define CONSOLE_PAGE_QUEUE_MAX (256 * 1024)
/* Bytes written towards the dispatcher for one page and not yet sent, beyond which
 * the page's frames are refused: a page cannot make the gateway hold its flood. */
#define CONSOLE_BUS_WRITE_MAX (4 * 1024 * 1024)

/* Commands of one page in flight at once (each holds a worker thread up to 5 s). */
#define CONSOLE_PAGE_COMMANDS_MAX 4

typedef struct console_frame {
    struct console_frame *next;
    size_t len;
    unsigned char data[]; /* LWS_PRE bytes of room, then len bytes */
} console_frame;

typedef struct console_gateway console_gateway;

typedef struct console_page {
    console_gateway *gw;
    struct console_page *next;     /* in gw->pages */
    struct lws *wsi;               /* NULL once the WebSocket has closed */
    uv_tcp_t tcp;                  /* the page's bus connection */
    uv_connect_t connect_req;
    bool tcp_open;                 /* uv_tcp_init done and handle not closed yet */
    bool connected, bus_closed, reading, welcomed;
    sim_page_role role;            /* what it may send (from its WebSocket's ?role=, main.c) */
    bool leaving;                  /* the WebSocket closed: draining the bus connection */
    int pending;                   /* commands in flight (their answers hold the page) */
    char name[65];                 /* from the page's hello */
    uint64_t id;                   /* the gateway's number for it, in its log lines */
    sim_linebuf lines;             /* from the dispatcher */
    char readbuf[65536];
    console_frame *head, *tail;    /* frames to send to the browser */
    console_frame *early, *early_tail; /* lines from the page before the bus connection was up */
    size_t queued;                 /* their bytes */
    char *rx;                      /* a message arriving in fragments */
    size_t rx_len;
    bool rx_overflow;
    char close_reason[128];        /* sent with the WebSocket close, once the bus is gone */
} console_page;

struct console_gateway {
    uv_loop_t *loop;
    struct lws_context *lws;
    struct sockaddr_storage bus_addr;
    const char *bus_token;         /* put in each page's hello; NULL: none */
    const char *control_url;       /* the dispatcher's operator endpoint */
    const char *token;             /* the browser's token (?token=); NULL: none */
    int port;                      /* the port listened on (Host headers must name it) */
    const char *allow_hosts;       /* --allow-host: more names for Host, comma-separated */
    const char *allow_origins;     /* --allow-origin: more page origins, comma-separated */
    char operator_secret[33];      /* set as an HttpOnly cookie with the operator's page (/) */
    char token_secret[33];         /* set as an HttpOnly cookie with a page asked for with the
                                      right ?token=: the WebSocket then needs no token in its URL */
    char *roads_json;              /* the scenario's map, made once (NULL: no --scenario) */
    console_page *pages;
    uint64_t next_id;
    bool closing;
};

/* page.c: a page's life from the WebSocket side (lws callbacks call these). */
console_page *page_open(console_gateway *gw, struct lws *wsi);
/* A piece of a message from the page; final: the message is complete. */
void page_on_frame(console_page *p, const char *data, size_t len, bool final);
/* Returns -1 when the WebSocket is to be closed (the bus connection has ended). */
int page_on_writeable(console_page *p);
void page_on_ws_closed(console_page *p);
/* Queues one text frame (copied) to the browser; a NUL-terminated string or len bytes. */
void page_send(console_page *p, const char *data, size_t len);
/* Queues {"topic":"console.error","error":why} (and keeps the page). */
void page_send_error(console_page *p, const char *why);
/* Frees the page when nothing refers to it any more. */
void page_release(console_page *p);

/* control.c: an operator command from a page, sent to the control endpoint on a worker
 * thread (the request waits up to the dispatcher's ack wait); the reply goes back as
 * {"topic":"console.reply","req":R,"reply":{...}} or with "error" instead. req is the
 * page's request (owned by the caller); its "topic" and "req" are not sent. */
void console_command(console_page *p, const cJSON *req);

/* roads.c: the scenario's map for the page (roads as polylines, POIs, triggers, start
 * points) as one JSON object; *out is malloc'd (caller frees). Pure. */
struct sim_scenario;
int console_roads_json(const struct sim_scenario *sc, char **out);

#endif
