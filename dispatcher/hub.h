/* hub: the dispatcher's core: connections, hello, routing, bounded send queues,
 * latest-value state topics, durable backlogs and statistics (docs/protocol.md).
 * One hub per process, owned by main.c; everything runs on one libuv loop. */
#ifndef DISPATCHER_HUB_H
#define DISPATCHER_HUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "sim_error.h"

typedef struct hub hub;

typedef struct hub_config {
    const char *host;           /* listen address */
    int port;
    const char *token;          /* NULL: none required */
    size_t queue_limit;         /* bytes per connection before overflow handling */
    size_t backlog_limit;       /* bytes kept for the durable modules of a session, all
                                   backlogs together (HUB_MAX_DURABLE names at most) */
    int hello_timeout_ms;       /* a connection without hello is closed after this; 0: 5000 */
    const char *secret;         /* the session's secret (simctl run's SIM_BUS_SECRET); NULL:
                                   no session, every connection may own a family */
    const char *state_topics;   /* comma-separated patterns: "*.state,sim.tick" */
    double stats_interval;      /* seconds between dispatcher.stats */
} hub_config;

/* Durable names one dispatcher keeps (connected or away): a hello beyond them is
 * refused, so that durable hellos cannot multiply what the dispatcher holds. */
#define HUB_MAX_DURABLE 8

int hub_open(uv_loop_t *loop, const hub_config *cfg, hub **out, sim_error *err);
/* The port actually bound (useful with port 0). */
int hub_port(const hub *h);
/* Publishes a message made by the dispatcher itself: src/seq/t are added. fields is
 * borrowed. */
void hub_publish(hub *h, const char *topic, const cJSON *fields);
/* Called with every control.ack a module publishes (src: the module's name; msg is
 * borrowed for the call), after it was routed. One listener: the control endpoint. */
typedef void (*hub_ack_cb)(void *user, const char *src, const cJSON *msg);
void hub_set_ack_listener(hub *h, hub_ack_cb fn, void *user);
/* The names of the connected modules that declared in their hello that they act on
 * cmd ("acts_on"), at most cap of them; returns how many were written. */
#define HUB_NAME_CAP 65
size_t hub_acting_on(const hub *h, const char *cmd, char (*names)[HUB_NAME_CAP], size_t cap);
/* The modules array for dispatcher.stats and the control endpoint's "status". Caller frees. */
cJSON *hub_status(hub *h);
/* The backlogs kept for durable modules that are away: name, messages, bytes,
 * dropped. Caller frees. */
cJSON *hub_backlogs(hub *h);
/* The newest error report per topic and module (topics ending in ".error"), each with
 * "age_s". Caller frees. */
cJSON *hub_errors(hub *h);
/* The newest bridge.status of each instrument bridge, with its age_s (docs/instruments.md). */
cJSON *hub_bridges(hub *h);
/* Closes every connection and the listener; the loop then ends. */
void hub_close(hub *h);
/* Frees the hub after hub_close once the loop has run its close callbacks. */
void hub_free(hub *h);

#endif
