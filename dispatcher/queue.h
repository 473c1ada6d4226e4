/* queue: the dispatcher's message buffers and queues, apart from any socket so that
 * they can be tested alone. A line received once is copied into one reference-counted
 * msgbuf and queued, by reference, on every connection and backlog that wants it.
 * Single-threaded (the hub's loop). */
#ifndef DISPATCHER_QUEUE_H
#define DISPATCHER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route.h"

typedef struct msgbuf {
    uint32_t refs;
    uint32_t len;       /* bytes of data, newline included */
    bool is_state;
    bool direct;        /* addressed to one connection (welcome, error): never re-sent */
    char *topic;        /* points into the allocation, after data */
    char data[];
} msgbuf;

/* A FIFO of message references; plain storage, zeroed to start. */
typedef struct msgvec {
    msgbuf **items;
    size_t n, cap, head; /* items[head..n) are live: a cheap FIFO */
    size_t bytes;
} msgvec;

/* What is kept for a durable module while it is away (or catching up). */
typedef struct backlog {
    struct backlog *next;  /* in the hub's list while its module is away */
    char name[ROUTE_MAX_NAME + 1];
    char **subs;
    size_t n_subs;
    bool all;
    msgvec q;
    uint64_t dropped;
    uint64_t resent;       /* messages at q's head its module was sent before and did not
                              acknowledge (the welcome's "resent") */
} backlog;

/* A copy of line (len bytes, a newline appended) with one reference held by the
 * caller; NULL when out of memory. */
msgbuf *msg_new(const char *line, size_t len, const char *topic, bool is_state);
void msg_ref(msgbuf *m);
/* Drops one reference; the last frees m. NULL is ignored. */
void msg_unref(msgbuf *m);

/* Appends m, taking a reference of its own. SIM_OK or SIM_ENOMEM. */
int msgvec_push(msgvec *v, msgbuf *m);
size_t msgvec_count(const msgvec *v);
/* The oldest message, or NULL when empty; the queue's reference moves to the caller. */
msgbuf *msgvec_pop(msgvec *v);
/* Drops every reference and the storage; v is empty (and reusable) after. */
void msgvec_clear(msgvec *v);

/* A backlog for name with a copy of the subscriptions (NULL when out of memory). */
backlog *backlog_new(const char *name, char **subs, size_t n_subs, bool all);
void backlog_free(backlog *b);
/* Appends m, then drops the oldest messages while the backlog holds more than limit
 * bytes (counted in dropped): a durable module away for longer than its backlog
 * covers loses the oldest data, never the newest. */
void backlog_add(backlog *b, msgbuf *m, size_t limit);

#endif
