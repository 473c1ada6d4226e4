/* hub_impl.h: private to the hub's files (hub.c: connections, sending, hello;
 * hub_status.c: statistics, backlogs and error reports for the operator): the
 * connection and hub structures. */
#ifndef DISPATCHER_HUB_IMPL_H
#define DISPATCHER_HUB_IMPL_H

#include "hub.h"
#include "queue.h"
#include "route.h"
#include "sim_cab.h"
#include "sim_line.h"

#define MAX_IOV 256
#define READ_BUF_SIZE (256 * 1024)
#define BACKLOG_CHUNK (256 * 1024)
/* What a durable module was sent and has not acknowledged ("durable.ack") is handed
 * over again when it vanishes. A module that never acknowledges gets the newest bytes
 * the kernel may still hold for it (hub->resend_keep: the largest send and receive
 * buffers of TCP, from /proc/sys/net/ipv4/tcp_wmem and tcp_rmem, plus 1 MiB read but not
 * processed; RESEND_KEEP_DEFAULT when they cannot be read). */
#define RESEND_KEEP_DEFAULT (16u * 1024 * 1024)
/* The newest error report per (topic, module) is kept for the operator's status. */
#define MAX_RETAINED 16
#define HUB_MAX_CABS 16 /* cabs with owned per-cab topics in one session (docs/cabs.md) */

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
    bool session;         /* showed the session's secret in its hello */
    uint64_t refused_at_ms; /* the last dispatcher.refused about it (one a second) */
    uint64_t refused_unsaid; /* refusals since, not announced */
    uint64_t id;
    char name[ROUTE_MAX_NAME + 1];
    char **subs;          /* NULL with all=true: everything */
    size_t n_subs;
    bool all;
    char acts_on[ROUTE_ACTS_ON_MAX]; /* as in route_hello */
    sim_linebuf lines;
    msgvec pending;       /* queued, not yet handed to the kernel */
    size_t first_offset;  /* bytes of pending's first item already written */
    flight *inflight;     /* at most one write request at a time */
    size_t inflight_bytes;
    backlog *spill;       /* durable only: messages waiting beyond the queue bound */
    msgvec sent;          /* durable only: messages handed to the kernel and not acknowledged
                             (direct ones too, so that counts match the module's lines) */
    uint64_t sent_base;   /* durable only: lines sent on this connection before sent's head */
    bool acks;            /* durable only: has acknowledged at least once */
    uint64_t accepted_ms; /* when the connection was accepted (hello timeout) */
    uint64_t in_msgs, out_msgs, dropped, last_in, last_out;
    double in_rate, out_rate;
};

typedef struct retained {
    char topic[ROUTE_MAX_TOPIC + 1];
    char src[ROUTE_MAX_NAME + 1];
    cJSON *msg;
    uint64_t at_ms;
} retained;

struct hub {
    uv_loop_t *loop;
    retained errors[MAX_RETAINED];
    size_t n_errors;
    retained bridges[MAX_RETAINED]; /* the newest bridge.status of each bridge */
    size_t n_bridges;
    uv_tcp_t listener;
    uv_timer_t stats_timer;
    uv_timer_t hello_timer; /* closes connections silent past hello_timeout_ms */
    hub_config cfg;
    char *token;
    char *secret;
    conn *owner[ROUTE_FAMILIES]; /* who owns each topic family (NULL: nobody yet) */
    /* The same for each cab's copy of the per-cab topics (cab.NAME.vehicle.state, ...;
     * docs/cabs.md): one owner per cab and family. */
    struct {
        char cab[SIM_CAB_NAME_MAX + 1];
        conn *owner[ROUTE_FAMILIES];
    } cab_owners[HUB_MAX_CABS];
    size_t n_cab_owners;
    /* Names session modules joined under: without the secret nobody may take them, so
     * a forger cannot slip in while a module restarts. */
    char session_names[32][ROUTE_MAX_NAME + 1];
    size_t n_session_names;
    route_patterns state;
    conn *conns;
    conn *dirty;
    backlog *backlogs;
    uint64_t next_id;
    size_t resend_keep;   /* see RESEND_KEEP_DEFAULT */
    hub_ack_cb on_ack;    /* the control endpoint's, or NULL */
    void *on_ack_user;
    uint64_t seq;
    double sim_t;
    uint64_t started_ms;
    bool closed;
    char readbuf[READ_BUF_SIZE];
};

/* The connection as the dispatcher's messages describe it: id, name, lockstep, durable. */
cJSON *hub_conn_brief(const conn *c);
/* Bytes queued for c and not yet taken by the kernel. */
size_t hub_queued_bytes(const conn *c);
/* Keeps the newest error report (a "*.error" line) of c for hub_errors. */
void hub_retain_error(hub *h, conn *c, const char *topic, const char *line, size_t len);
/* bridge.status (docs/instruments.md), kept the same way for simctl status. */
void hub_retain_bridge(hub *h, conn *c, const char *topic, const char *line, size_t len);
/* dispatcher.error to c alone. */
void hub_send_error(conn *c, const char *what);
/* hub_owner.c: NULL when c may say hello as hello says, else why not. */
const char *hub_hello_refusal(const hub *h, const conn *c, const route_hello *hello);
/* Names of the session's modules (they showed the secret) are kept for the session. */
void hub_remember_session_name(hub *h, const char *name);
/* True when c may publish on topic; else refused (error to c, dispatcher.refused). */
bool hub_may_publish(conn *c, const char *topic);
/* A durable module's "durable.ack" line. */
void hub_handle_ack(conn *c, const char *line, size_t len);
/* A durable module's "durable.flush": answered with "dispatcher.flushed" behind
 * everything queued for it (docs/protocol.md). */
void hub_handle_flush(conn *c);
/* The dispatcher.stats timer. */
void hub_on_stats(uv_timer_t *t);

#endif
