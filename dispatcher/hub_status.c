/* hub_status: what the dispatcher tells the operator about its modules: per-connection
 * statistics (dispatcher.stats, simctl status), the backlogs kept for durable modules
 * that are away, and the newest error report of each module (see hub.h). */
#include "hub_impl.h"

#include <stdio.h>
#include <string.h>


/* Module error reports (topics ending in ".error", e.g. log.error for a full disk)
 * are routed like any message and also kept, newest per topic and module, so that
 * `simctl status` shows them to the operator however they were missed. */
static void retain(hub *h, retained *kept, size_t *n, conn *c, const char *topic, const char *line, size_t len)
{
    cJSON *msg = cJSON_ParseWithLength(line, len);
    if (!msg) return;
    retained *slot = NULL;
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(kept[i].topic, topic) && !strcmp(kept[i].src, c->name)) slot = &kept[i];
    if (!slot && *n < MAX_RETAINED) slot = &kept[(*n)++];
    if (!slot) { /* full: replace the oldest */
        slot = &kept[0];
        for (size_t i = 1; i < *n; i++)
            if (kept[i].at_ms < slot->at_ms) slot = &kept[i];
    }
    cJSON_Delete(slot->msg);
    snprintf(slot->topic, sizeof slot->topic, "%s", topic);
    snprintf(slot->src, sizeof slot->src, "%s", c->name);
    slot->msg = msg;
    slot->at_ms = uv_now(h->loop);
}

void hub_retain_error(hub *h, conn *c, const char *topic, const char *line, size_t len)
{
    retain(h, h->errors, &h->n_errors, c, topic, line, len);
}

void hub_retain_bridge(hub *h, conn *c, const char *topic, const char *line, size_t len)
{
    retain(h, h->bridges, &h->n_bridges, c, topic, line, len);
}

static cJSON *retained_json(hub *h, const retained *kept, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_Duplicate(kept[i].msg, 1);
        cJSON_AddNumberToObject(o, "age_s", (double)(uv_now(h->loop) - kept[i].at_ms) / 1000.0);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

cJSON *hub_errors(hub *h) { return retained_json(h, h->errors, h->n_errors); }
cJSON *hub_bridges(hub *h) { return retained_json(h, h->bridges, h->n_bridges); }


/* ---------- statistics ---------- */

cJSON *hub_backlogs(hub *h)
{
    cJSON *away = cJSON_CreateArray();
    for (backlog *b = h->backlogs; b; b = b->next) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", b->name);
        cJSON_AddNumberToObject(o, "messages", (double)msgvec_count(&b->q));
        cJSON_AddNumberToObject(o, "bytes", (double)b->q.bytes);
        cJSON_AddNumberToObject(o, "dropped", (double)b->dropped);
        cJSON_AddItemToArray(away, o);
    }
    return away;
}

cJSON *hub_status(hub *h)
{
    cJSON *arr = cJSON_CreateArray();
    for (conn *c = h->conns; c; c = c->next) {
        if (!c->said_hello) continue;
        cJSON *o = hub_conn_brief(c);
        cJSON_AddNumberToObject(o, "in_msgs", (double)c->in_msgs);
        cJSON_AddNumberToObject(o, "out_msgs", (double)c->out_msgs);
        cJSON_AddNumberToObject(o, "in_rate", c->in_rate);
        cJSON_AddNumberToObject(o, "out_rate", c->out_rate);
        cJSON_AddNumberToObject(o, "dropped", (double)c->dropped);
        cJSON_AddNumberToObject(o, "queued_bytes", (double)hub_queued_bytes(c));
        if (c->spill) cJSON_AddNumberToObject(o, "catching_up", (double)msgvec_count(&c->spill->q));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

void hub_on_stats(uv_timer_t *t)
{
    hub *h = t->data;
    double dt = h->cfg.stats_interval > 0 ? h->cfg.stats_interval : 1.0;
    for (conn *c = h->conns; c; c = c->next) {
        c->in_rate = (double)(c->in_msgs - c->last_in) / dt;
        c->out_rate = (double)(c->out_msgs - c->last_out) / dt;
        c->last_in = c->in_msgs;
        c->last_out = c->out_msgs;
    }
    cJSON *f = cJSON_CreateObject();
    cJSON_AddItemToObject(f, "connections", hub_status(h));
    cJSON_AddItemToObject(f, "backlogs", hub_backlogs(h));
    cJSON_AddNumberToObject(f, "uptime", (double)(uv_now(h->loop) - h->started_ms) / 1000.0);
    hub_publish(h, "dispatcher.stats", f);
    cJSON_Delete(f);
}

