/* queue: message buffers, FIFOs of references and durable backlogs (see queue.h). */
#include "queue.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_error.h"

msgbuf *msg_new(const char *line, size_t len, const char *topic, bool is_state)
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

void msg_ref(msgbuf *m)
{
    assert(m->refs > 0); /* a freed buffer is never queued again */
    m->refs++;
}

void msg_unref(msgbuf *m)
{
    if (!m) return;
    assert(m->refs > 0);
    if (--m->refs == 0) free(m);
}

int msgvec_push(msgvec *v, msgbuf *m)
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
    msg_ref(m);
    v->items[v->n++] = m;
    v->bytes += m->len;
    return SIM_OK;
}

size_t msgvec_count(const msgvec *v) { return v->n - v->head; }

msgbuf *msgvec_pop(msgvec *v)
{
    if (v->head == v->n) return NULL;
    msgbuf *m = v->items[v->head++];
    assert(v->bytes >= m->len);
    v->bytes -= m->len;
    if (v->head == v->n) v->head = v->n = 0;
    return m; /* the reference moves to the caller */
}

void msgvec_clear(msgvec *v)
{
    for (size_t i = v->head; i < v->n; i++) msg_unref(v->items[i]);
    free(v->items);
    memset(v, 0, sizeof *v);
}

backlog *backlog_new(const char *name, char **subs, size_t n_subs, bool all)
{
    backlog *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    snprintf(b->name, sizeof b->name, "%s", name);
    b->subs = route_subs_copy(subs, n_subs);
    if (n_subs && !b->subs) { /* a backlog matching nothing would lose data silently */
        free(b);
        return NULL;
    }
    b->n_subs = n_subs;
    b->all = all;
    return b;
}

void backlog_free(backlog *b)
{
    if (!b) return;
    msgvec_clear(&b->q);
    route_subs_free(b->subs, b->n_subs);
    free(b);
}

void backlog_add(backlog *b, msgbuf *m, size_t limit)
{
    if (msgvec_push(&b->q, m) != SIM_OK) {
        b->dropped++;
        return;
    }
    while (b->q.bytes > limit && msgvec_count(&b->q) > 1) {
        msg_unref(msgvec_pop(&b->q));
        b->dropped++;
    }
}
