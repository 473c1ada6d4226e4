/* route: the dispatcher's rules, apart from the sockets so that they can be tested
 * alone: which lines a connection may send, what a hello must hold, which topics a
 * subscription matches and which topics are "state" (only the newest kept for a
 * consumer that is behind). Pure: no I/O, no globals (docs/protocol.md). */
#ifndef DISPATCHER_ROUTE_H
#define DISPATCHER_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_topics.h"

#define ROUTE_MAX_NAME 64       /* bytes of a module name */
#define ROUTE_MAX_SUBS 64       /* prefixes in one hello */
#define ROUTE_MAX_PREFIX 256    /* bytes of one prefix */
#define ROUTE_MAX_TOPIC 255     /* bytes of a topic */
#define ROUTE_MAX_STATE_PATTERNS 16
#define ROUTE_ACTS_ON_MAX 256   /* bytes of a hello's "acts_on", kept as ",a,b," */

/* True when topic starts with one of the n prefixes (always when all). */
bool route_subs_match(char **subs, size_t n, bool all, const char *topic);
/* A deep copy of n prefixes (NULL for n == 0 or when out of memory: all or nothing). */
char **route_subs_copy(char **subs, size_t n);
void route_subs_free(char **subs, size_t n);

/* State-topic patterns: "*.state" (suffix), "sim.*" (prefix) or an exact topic. */
typedef struct route_patterns {
    char *p[ROUTE_MAX_STATE_PATTERNS];
    size_t n;
} route_patterns;

/* Parses a comma-separated list (empty entries skipped, at most
 * ROUTE_MAX_STATE_PATTERNS kept). SIM_OK or SIM_ENOMEM. Free with route_patterns_free. */
int route_patterns_parse(const char *csv, route_patterns *out);
bool route_patterns_match(const route_patterns *pt, const char *topic);
void route_patterns_free(route_patterns *pt);

/* What to do with a line from a connection, decided from its topic. */
typedef enum route_line {
    ROUTE_LINE_FORWARD, /* route it to the subscribers */
    ROUTE_LINE_HELLO,   /* a hello to check with route_hello_parse */
    ROUTE_LINE_REFUSE,  /* answer dispatcher.error with *why; the line is dropped */
} route_line;
route_line route_classify(const char *topic, bool said_hello, const char **why);

/* Topic ownership (docs/protocol.md, "Who may publish what"): the topics a session's
 * own modules publish fall into families; the first connection that publishes a topic
 * of a family owns the family while it is connected, and a line of that family from
 * anyone else is refused. With a session secret (simctl run), only connections that
 * showed it may publish an owned family at all. Other topics (hud.*, log.mark,
 * context.request, a tool's own) are free to all. */
typedef enum route_family {
    ROUTE_FAMILY_CLOCK = SIM_TOPIC_FAMILY_CLOCK,       /* sim.* (but sim.ack, sim.end), vehicle.state, ffb.command: physics */
    ROUTE_FAMILY_TRAFFIC = SIM_TOPIC_FAMILY_TRAFFIC,   /* traffic.state, traffic.event, ..., signal.* */
    ROUTE_FAMILY_INPUT = SIM_TOPIC_FAMILY_INPUT,       /* input.controls, input.button */
    ROUTE_FAMILY_RECORDER = SIM_TOPIC_FAMILY_RECORDER, /* log.status, log.error */
    ROUTE_FAMILY_CONTEXT = SIM_TOPIC_FAMILY_CONTEXT,   /* context.reply, context.nearby, context.guidance */
    ROUTE_FAMILY_SESSION = SIM_TOPIC_FAMILY_SESSION,   /* session.*: simctl */
    ROUTE_FAMILY_CONTROL = SIM_TOPIC_FAMILY_CONTROL,   /* control.* (but control.ack): the operator endpoint */
    ROUTE_FAMILY_END = SIM_TOPIC_FAMILY_END, /* sim.end: any module of the session (physics at its last
                                              * sector, traffic-node at an OpenSCENARIO stop trigger), never owned */
    ROUTE_FAMILIES = SIM_TOPIC_FAMILIES,
    ROUTE_FAMILY_NONE = SIM_TOPIC_FAMILY_NONE, /* free to all */
} route_family;
/* The family topic belongs to, or ROUTE_FAMILY_NONE: its row's in sim_topics.def. */
route_family route_topic_family(const char *topic);
/* Whether name is one of a session's module names (recorder, physics, ..., render-VIEW):
 * in a session, such a hello needs the session's secret from the dispatcher's start,
 * not only once that module has joined (a squatter joining first took "recorder"). */
bool route_session_name(const char *name);
/* Words for a family in errors, "sim.* (but sim.ack and sim.end), vehicle.state and
 * ffb.command", made from sim_topics.def into buf; returns buf, or "no family". */
#define ROUTE_FAMILY_WORDS 256 /* enough for any family's words */
const char *route_family_topics(route_family f, char *buf, size_t cap);

/* True for error reports ("<anything>.error"), which the dispatcher also keeps. */
bool route_is_error_topic(const char *topic);

/* A hello that passed the checks. subs is owned (move it or route_hello_free it). */
typedef struct route_hello {
    char name[ROUTE_MAX_NAME + 1];
    char **subs;
    size_t n_subs;
    bool all;            /* no "subscribe": every topic */
    bool lockstep, durable;
    char acts_on[ROUTE_ACTS_ON_MAX]; /* ",pause,resume,": the commands it acts on; "" none */
    bool session;        /* showed the session's secret */
} route_hello;

/* True when acts_on (as in route_hello) lists cmd. */
bool route_acts_on(const char *acts_on, const char *cmd);

typedef enum route_verdict {
    ROUTE_OK,
    ROUTE_REFUSED,       /* answer dispatcher.error with *why; the connection may retry */
    ROUTE_REFUSED_CLOSE, /* answer with *why, then close (wrong or missing token) */
    ROUTE_NOMEM,         /* close: out of memory */
} route_verdict;

/* Checks a hello line (len bytes of JSON, already scanned as a message) against the
 * rules of docs/protocol.md, token (NULL: none required) and secret (the session's,
 * NULL: none; a hello may show it as "secret", a wrong one is refused and closed like a
 * wrong token). On ROUTE_OK *out is filled; otherwise *why (static text) says what was
 * wrong. */
route_verdict route_hello_parse(const char *line, size_t len, const char *token, const char *secret,
                                route_hello *out, const char **why);
void route_hello_free(route_hello *h);

#endif
