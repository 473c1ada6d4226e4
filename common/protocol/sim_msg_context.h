/* sim_msg_context: the context server's bus messages (docs/context.md, docs/protocol.md):
 * context.request {id, op, ...} from any module, context.reply {id, to, ok, op, ...}
 * addressed to the requester, and the proactive context.nearby and context.guidance.
 *
 * Request decoding checks every field a client can send: types, ranges, lengths,
 * identifiers; each failure names the field and what was expected. Nothing in a
 * request is ever SQL text: table and column names are identifiers checked here and
 * again against the database's schema. Fuzzed by fuzz/fuzz_context_request.c.
 *
 * Ownership: a decoded request owns the cJSON values it copied (kv value, filter
 * values): sim_msg_context_request_free. A reply's `result` belongs to the reply
 * (sim_msg_context_reply_free); encode copies it. */
#ifndef SIM_MSG_CONTEXT_H
#define SIM_MSG_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_CTX_ID_MAX 64          /* request id, as text */
#define SIM_CTX_NAME_MAX 64        /* identifiers: poi ids, categories, displays, tables, columns */
#define SIM_CTX_KEY_MAX 128        /* kv keys */
#define SIM_CTX_TEXT_MAX 1024      /* message texts, search text, string filter values */
#define SIM_CTX_VALUE_MAX 8192     /* a kv value, serialised */
#define SIM_CTX_LIMIT_MAX 1000     /* rows or POIs in one reply */
#define SIM_CTX_RADIUS_MAX 100000  /* m */
#define SIM_CTX_FILTERS_MAX 16
#define SIM_CTX_COORD_MAX 1e7      /* m, as scenario coordinates */

typedef enum {
    SIM_CTX_POI_NEAR,
    SIM_CTX_POI_SEARCH,
    SIM_CTX_POI_GET,
    SIM_CTX_ROUTE,
    SIM_CTX_ROUTE_CANCEL,
    SIM_CTX_MSG_PUSH,
    SIM_CTX_MSG_LIST,
    SIM_CTX_MSG_POP,
    SIM_CTX_MSG_ACK,
    SIM_CTX_KV_GET,
    SIM_CTX_KV_SET,
    SIM_CTX_TABLE_QUERY,
    SIM_CTX_OP_COUNT
} sim_ctx_op;

const char *sim_ctx_op_name(sim_ctx_op op);

/* One end of a route: the ego car, a world point or a POI. */
typedef enum { SIM_CTX_AT_EGO, SIM_CTX_AT_POINT, SIM_CTX_AT_POI } sim_ctx_at;
typedef struct sim_ctx_place {
    sim_ctx_at at;
    double x, y;
    char poi[SIM_CTX_NAME_MAX];
} sim_ctx_place;

typedef enum { SIM_CTX_EQ, SIM_CTX_NE, SIM_CTX_LT, SIM_CTX_LE, SIM_CTX_GT, SIM_CTX_GE } sim_ctx_cmp;
/* SQL spelling of a comparison ("=", "<>", ...): constant text, never from a client. */
const char *sim_ctx_cmp_sql(sim_ctx_cmp c);

typedef struct sim_ctx_filter {
    char column[SIM_CTX_NAME_MAX];
    sim_ctx_cmp cmp;
    cJSON *value;                  /* owned copy: a number, string, true/false or null (= only) */
} sim_ctx_filter;

typedef struct sim_msg_context_request {
    char id[SIM_CTX_ID_MAX + 1];   /* as text */
    bool id_number;                /* the id was an integer: echoed as one */
    char src[SIM_CTX_NAME_MAX];    /* the requester (the envelope's src) */
    sim_ctx_op op;
    /* poi.near, poi.search, messages.list, table.query */
    sim_ctx_place at;              /* poi.near: x, y, or the ego when both are absent */
    double radius;                 /* m, default 1000 */
    char category[SIM_CTX_NAME_MAX]; /* "" = any */
    int limit;                     /* default 10 (poi.*), 50 (messages.list), 100 (table.query) */
    char text[SIM_CTX_TEXT_MAX + 1]; /* poi.search, messages.push */
    /* poi.get */
    char poi[SIM_CTX_NAME_MAX];
    /* route */
    sim_ctx_place from, to;
    bool guide;                    /* start guidance (default: when from is the ego) */
    /* messages.* */
    int priority;                  /* 0..9, default 5 */
    char display[SIM_CTX_NAME_MAX]; /* push: default "cluster"; list/pop: "" = any */
    int64_t message;               /* ack */
    /* kv.* */
    char key[SIM_CTX_KEY_MAX + 1];
    cJSON *value;                  /* kv.set: owned copy */
    /* table.query */
    char table[SIM_CTX_NAME_MAX];
    sim_ctx_filter filters[SIM_CTX_FILTERS_MAX];
    int n_filters;
    char order[SIM_CTX_NAME_MAX];  /* "" = none */
    bool desc;
    int offset;
} sim_msg_context_request;

/* Decodes a context.request message (the whole message, envelope included). On error
 * err names the field, e.g. `context.request: "radius": expected a number in (0,
 * 100000], found -5`; out->id holds the id when it could be read (to address the
 * refusal), and out->op is valid when the op could be read. */
int sim_msg_context_request_decode(const cJSON *msg, sim_msg_context_request *out, sim_error *err);
cJSON *sim_msg_context_request_encode(const sim_msg_context_request *r);
void sim_msg_context_request_free(sim_msg_context_request *r);
/* Whether s is an identifier accepted for tables and columns: [A-Za-z_][A-Za-z0-9_]*,
 * 1..63 characters. */
bool sim_ctx_identifier_ok(const char *s);

/* context.reply: {id, to, ok, op, error (when !ok)} and, when ok, the fields of
 * `result` (an object: pois, route, messages, value, rows, ...). */
typedef struct sim_msg_context_reply {
    char id[SIM_CTX_ID_MAX + 1];
    bool id_number;
    char to[SIM_CTX_NAME_MAX];
    bool ok;
    char op[32];                   /* "" when the request's op could not be read */
    char error[SIM_ERROR_MSG_MAX];
    cJSON *result;                 /* owned; may be NULL */
} sim_msg_context_reply;

cJSON *sim_msg_context_reply_encode(const sim_msg_context_reply *r);
int sim_msg_context_reply_decode(const cJSON *msg, sim_msg_context_reply *out, sim_error *err);
void sim_msg_context_reply_free(sim_msg_context_reply *r);

/* context.nearby: the ego entered or left a POI's radius. */
typedef struct sim_msg_context_nearby {
    char event[8];                 /* "enter" / "leave" */
    char poi[SIM_CTX_NAME_MAX], name[SIM_CTX_TEXT_MAX + 1], category[SIM_CTX_NAME_MAX];
    double distance;               /* m from the ego */
    double x, y;                   /* the POI */
} sim_msg_context_nearby;
/* Events are decoded field by field; absent fields are NAN, SIM_MSG_NO_INT or "". */
cJSON *sim_msg_context_nearby_encode(const sim_msg_context_nearby *m);
int sim_msg_context_nearby_decode(const cJSON *msg, sim_msg_context_nearby *out, sim_error *err);

/* context.guidance: along the active route. */
typedef struct sim_msg_context_guidance {
    int route;                     /* route number (counts up with each route and re-route) */
    char next[16];                 /* manoeuvre name: straight, left, right, exit_left, ... arrive */
    int index;                     /* its index in the route's maneuvers */
    char road[SIM_CTX_NAME_MAX];   /* the road it leads onto */
    double distance;               /* m from the ego to it */
    double remaining;              /* m to the destination */
    double eta;                    /* s to the destination at the speed limits */
    bool off_route, rerouted, arrived;
} sim_msg_context_guidance;
cJSON *sim_msg_context_guidance_encode(const sim_msg_context_guidance *m);
int sim_msg_context_guidance_decode(const cJSON *msg, sim_msg_context_guidance *out, sim_error *err);

#endif
