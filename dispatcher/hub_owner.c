/* hub_owner: who may say what on the bus (docs/protocol.md, "Who may publish what"):
 * topic families owned by their first publisher, the session's secret, unique names,
 * and durable modules' acknowledgements (durable.ack). Part of the hub (hub_impl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub_impl.h"

/* "durable.ack" {"received": N}: the module has processed (committed) the first N lines
 * it read on this connection, the welcome included; they are not handed over again. */
void hub_handle_ack(conn *c, const char *line, size_t len)
{
    cJSON *msg = cJSON_ParseWithLength(line, len);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(msg, "received");
    if (!c->durable || !cJSON_IsNumber(n) || n->valuedouble < 0) {
        cJSON_Delete(msg);
        hub_send_error(c, c->durable ? "durable.ack: \"received\" must be a number of lines >= 0"
                                     : "durable.ack is for durable modules (\"durable\": true in hello)");
        return;
    }
    uint64_t received = (uint64_t)n->valuedouble;
    cJSON_Delete(msg);
    c->acks = true;
    while (c->sent_base < received && msgvec_count(&c->sent)) {
        msg_unref(msgvec_pop(&c->sent));
        c->sent_base++;
    }
}

static bool is_session_name(const hub *h, const char *name)
{
    for (size_t i = 0; i < h->n_session_names; i++)
        if (strcmp(h->session_names[i], name) == 0) return true;
    return false;
}

void hub_remember_session_name(hub *h, const char *name)
{
    if (is_session_name(h, name) || h->n_session_names == sizeof h->session_names / sizeof h->session_names[0]) return;
    snprintf(h->session_names[h->n_session_names++], ROUTE_MAX_NAME + 1, "%s", name);
}

/* Who may say hello under a name (docs/protocol.md, "Who may publish what"); NULL when
 * c may, else why not. */
const char *hub_hello_refusal(const hub *h, const conn *c, const route_hello *hello)
{
    for (const conn *o = h->conns; o; o = o->next)
        if (o != c && o->said_hello && !o->closing && strcmp(o->name, hello->name) == 0)
            return "hello: a module of that name is connected; names are unique while their owner lives";
    if (h->secret && !hello->session) {
        if (hello->durable)
            return "hello: \"durable\" is for the session's modules (they show the session's secret)";
        /* a lockstep client holds the clock for as long as it stays connected */
        if (hello->lockstep)
            return "hello: \"lockstep\" is for the session's modules and clients given its secret "
                   "(SIM_BUS_SECRET); a client without it would freeze the clock";
        if (is_session_name(h, hello->name) || route_session_name(hello->name))
            return "hello: that name belongs to a module of this session (it shows the session's secret)";
        for (const backlog *b = h->backlogs; b; b = b->next)
            if (strcmp(b->name, hello->name) == 0)
                return "hello: that name belongs to a module of this session (it shows the session's secret)";
    }
    return NULL;
}

/* Refuses a line on a topic c does not own: an error to c, and dispatcher.refused
 * for everyone (the recorder logs it as an event), at most one a second per
 * connection with the count of those not announced. */
static void refuse_topic(conn *c, const char *topic, const char *why)
{
    hub *h = c->h;
    char msg[512];
    snprintf(msg, sizeof msg, "topic \"%s\" refused: %s; line dropped (docs/protocol.md, \"Who may publish what\")",
             topic, why);
    hub_send_error(c, msg);
    uint64_t now = uv_now(h->loop);
    if (c->refused_at_ms && now - c->refused_at_ms < 1000) {
        c->refused_unsaid++;
        return;
    }
    c->refused_at_ms = now;
    cJSON *f = cJSON_CreateObject();
    cJSON_AddNumberToObject(f, "id", (double)c->id);
    cJSON_AddStringToObject(f, "name", c->name);
    cJSON_AddStringToObject(f, "refused", topic);
    cJSON_AddStringToObject(f, "error", msg);
    cJSON_AddNumberToObject(f, "more", (double)c->refused_unsaid);
    c->refused_unsaid = 0;
    hub_publish(h, SIM_TOPIC_DISPATCHER_REFUSED, f);
    cJSON_Delete(f);
}

/* Where the owner of cab's copy of family f is kept; NULL when HUB_MAX_CABS cabs
 * have one already. */
static conn **cab_owner(hub *h, const char *cab, route_family f)
{
    for (size_t k = 0; k < h->n_cab_owners; k++)
        if (strcmp(h->cab_owners[k].cab, cab) == 0) return &h->cab_owners[k].owner[f];
    if (h->n_cab_owners == HUB_MAX_CABS) return NULL;
    size_t k = h->n_cab_owners++;
    snprintf(h->cab_owners[k].cab, sizeof h->cab_owners[k].cab, "%s", cab);
    return &h->cab_owners[k].owner[f];
}

/* The ownership rules (route.h): true when c may publish on topic; else refused. A
 * cab's copy of a per-cab topic (cab.NAME.vehicle.state) belongs to its family as the
 * plain topic does, with an owner per cab (docs/cabs.md). */
bool hub_may_publish(conn *c, const char *topic)
{
    hub *h = c->h;
    char cab[SIM_CAB_NAME_MAX + 1];
    const char *rest;
    bool of_cab = sim_cab_split(topic, cab, sizeof cab, &rest);
    route_family f = route_topic_family(of_cab ? rest : topic);
    if (f == ROUTE_FAMILY_NONE) return true;
    char why[320], words[ROUTE_FAMILY_WORDS];
    if (h->secret && !c->session) {
        snprintf(why, sizeof why, "%s %s", route_family_topics(f, words, sizeof words),
                 f == ROUTE_FAMILY_CONTROL ? "come only from the operator endpoint (simctl pause, resume, stop, ...) "
                                             "or a module of the session"
                                           : "are published only by the session's modules");
        refuse_topic(c, topic, why);
        return false;
    }
    /* Commands and the end of the scenario are not owned: the endpoint and, in a
     * session, every module of it (more than one module may end a scenario). */
    if (f == ROUTE_FAMILY_CONTROL || f == ROUTE_FAMILY_END) return true;
    conn **slot = of_cab ? cab_owner(h, cab, f) : &h->owner[f];
    if (!slot) {
        snprintf(why, sizeof why, "a session has at most %d cabs", HUB_MAX_CABS);
        refuse_topic(c, topic, why);
        return false;
    }
    conn *o = *slot;
    if (o && o != c) {
        snprintf(why, sizeof why, "%s%s%s are owned by '%s' (id %llu) while it is connected",
                 route_family_topics(f, words, sizeof words), of_cab ? " of cab " : "", of_cab ? cab : "",
                 o->name, (unsigned long long)o->id);
        refuse_topic(c, topic, why);
        return false;
    }
    *slot = c;
    return true;
}

