/* requests: context.request -> context.reply (docs/context.md, "Ops"). Every request
 * gets exactly one reply, ok or not; nothing a client sends stops the server. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server.h"
#include "sim_msg_context.h"

typedef struct call {
    cs_server *s;
    const sim_msg_context_request *q;
    cJSON *result;              /* the reply's fields */
    sim_error err;
} call;

static int need_ego(call *c, const char *field)
{
    if (c->s->have_ego) return SIM_OK;
    return sim_error_set(&c->err, SIM_EAGAIN,
                         "context.request: %s: no ego position yet (no vehicle.state received): give a point", field);
}

static int add_pois(call *c, const sim_context_hit *hits, int n)
{
    cJSON *arr = cJSON_AddArrayToObject(c->result, "pois");
    if (!arr) return sim_error_set(&c->err, SIM_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        cJSON *p = sim_context_poi_json(c->s->db, hits[i].rowid, hits[i].distance);
        if (!p) return sim_error_set(&c->err, SIM_ENOMEM, "out of memory");
        cJSON_AddItemToArray(arr, p);
    }
    return SIM_OK;
}

static int op_poi_near(call *c)
{
    double x = c->q->at.x, y = c->q->at.y;
    if (c->q->at.at == SIM_CTX_AT_EGO) {
        if (need_ego(c, "x")) return c->err.code;
        x = c->s->x;
        y = c->s->y;
    }
    sim_context_hit hits[SIM_CTX_LIMIT_MAX];
    int n;
    int rc = sim_context_poi_near(c->s->db, x, y, c->q->radius, c->q->category, c->q->limit, hits, &n, &c->err);
    return rc ? rc : add_pois(c, hits, n);
}

static int op_poi_search(call *c)
{
    sim_context_hit hits[SIM_CTX_LIMIT_MAX];
    int n;
    int rc = sim_context_poi_search(c->s->db, c->q->text, c->q->category, c->q->limit, hits, &n, &c->err);
    return rc ? rc : add_pois(c, hits, n);
}

static int op_poi_get(call *c)
{
    sim_context_hit h;
    int rc = sim_context_poi_find(c->s->db, c->q->poi, &h, &c->err);
    if (rc) return rc;
    cJSON *p = sim_context_poi_json(c->s->db, h.rowid, -1);
    if (!p) return sim_error_set(&c->err, SIM_ENOMEM, "out of memory");
    cJSON_AddItemToObject(c->result, "poi", p);
    return SIM_OK;
}

/* A route end in world terms. */
static int place_xy(call *c, const sim_ctx_place *p, const char *field, sim_route_end *e)
{
    e->heading = NAN;
    if (p->at == SIM_CTX_AT_EGO) {
        if (need_ego(c, field)) return c->err.code;
        *e = (sim_route_end){c->s->x, c->s->y, c->s->heading};
    } else if (p->at == SIM_CTX_AT_POINT) {
        e->x = p->x;
        e->y = p->y;
    } else {
        sim_context_hit h;
        if (sim_context_poi_find(c->s->db, p->poi, &h, &c->err))
            return sim_error_set(&c->err, SIM_ENOTFOUND, "context.request: %s.poi: no POI with id '%s'", field, p->poi);
        e->x = h.x;
        e->y = h.y;
    }
    return SIM_OK;
}

static int op_route(call *c)
{
    sim_route_end from, to;
    int rc;
    if ((rc = place_xy(c, &c->q->from, "from", &from)) || (rc = place_xy(c, &c->q->to, "to", &to))) return rc;
    sim_route r;
    rc = sim_route_map_route(&c->s->map, &from, &to, 2.0, &r, &c->err);
    if (rc) {
        sim_error_prefix(&c->err, "route");
        return rc;
    }
    cJSON *j = cs_route_json(c->s, &r);
    if (!j) {
        sim_route_free(&r);
        return sim_error_set(&c->err, SIM_ENOMEM, "out of memory");
    }
    if (c->q->guide) {
        cs_guidance_begin(c->s, &r, to.x, to.y);
        cJSON_AddNumberToObject(j, "number", c->s->route_no);
    }
    cJSON_AddBoolToObject(j, "guided", c->q->guide);
    cJSON_AddItemToObject(c->result, "route", j);
    sim_route_free(&r);
    return SIM_OK;
}

static int op_messages(call *c)
{
    const sim_msg_context_request *q = c->q;
    cJSON *out = NULL;
    int64_t id;
    int rc;
    switch (q->op) {
    case SIM_CTX_MSG_PUSH:
        rc = sim_context_msg_push(c->s->db, q->priority, q->display, q->text, c->s->t, &id, &c->err);
        if (!rc) cJSON_AddNumberToObject(c->result, "message", (double)id);
        return rc;
    case SIM_CTX_MSG_LIST:
        rc = sim_context_msg_list(c->s->db, q->display, q->limit, &out, &c->err);
        if (!rc) cJSON_AddItemToObject(c->result, "messages", out);
        return rc;
    case SIM_CTX_MSG_POP:
        rc = sim_context_msg_pop(c->s->db, q->display, c->s->t, &out, &c->err);
        if (!rc) cJSON_AddItemToObject(c->result, "message", out ? out : cJSON_CreateNull());
        return rc;
    default:
        rc = sim_context_msg_ack(c->s->db, q->message, c->s->t, &c->err);
        if (!rc) cJSON_AddNumberToObject(c->result, "message", (double)q->message);
        return rc;
    }
}

static int op_kv(call *c)
{
    cJSON_AddStringToObject(c->result, "key", c->q->key);
    if (c->q->op == SIM_CTX_KV_SET) return sim_context_kv_set(c->s->db, c->q->key, c->q->value, &c->err);
    cJSON *v = NULL;
    int rc = sim_context_kv_get(c->s->db, c->q->key, &v, &c->err);
    if (rc) return rc;
    cJSON_AddBoolToObject(c->result, "found", v != NULL);
    cJSON_AddItemToObject(c->result, "value", v ? v : cJSON_CreateNull());
    return SIM_OK;
}

static int op_table(call *c)
{
    cJSON *rows = NULL;
    int rc = sim_context_table_query(c->s->db, c->q, &rows, &c->err);
    if (!rc) cJSON_AddItemToObject(c->result, "rows", rows);
    return rc;
}

static int dispatch(call *c)
{
    switch (c->q->op) {
    case SIM_CTX_POI_NEAR: return op_poi_near(c);
    case SIM_CTX_POI_SEARCH: return op_poi_search(c);
    case SIM_CTX_POI_GET: return op_poi_get(c);
    case SIM_CTX_ROUTE: return op_route(c);
    case SIM_CTX_ROUTE_CANCEL:
        cJSON_AddBoolToObject(c->result, "was_guiding", c->s->guiding);
        cs_guidance_end(c->s);
        return SIM_OK;
    case SIM_CTX_MSG_PUSH:
    case SIM_CTX_MSG_LIST:
    case SIM_CTX_MSG_POP:
    case SIM_CTX_MSG_ACK: return op_messages(c);
    case SIM_CTX_KV_GET:
    case SIM_CTX_KV_SET: return op_kv(c);
    case SIM_CTX_TABLE_QUERY: return op_table(c);
    case SIM_CTX_OP_COUNT: break;
    }
    return sim_error_set(&c->err, SIM_EINVAL, "context.request: op: not handled");
}

static void publish_reply(cs_server *s, sim_msg_context_reply *rep)
{
    cJSON *o = sim_msg_context_reply_encode(rep);
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    if (text && strlen(text) > CS_REPLY_MAX) {
        /* Too big for one bus line: say so instead of losing the reply. */
        rep->ok = false;
        snprintf(rep->error, sizeof rep->error,
                 "context.request: limit: the reply would be %zu bytes, over the bus's %d: ask for fewer rows",
                 strlen(text), CS_REPLY_MAX);
        cJSON_Delete(o);
        o = sim_msg_context_reply_encode(rep);
    }
    cJSON_free(text);
    if (o) sim_bus_publish(s->bus, SIM_TOPIC_CONTEXT_REPLY, s->t, o);
    else fprintf(stderr, "context-server: out of memory replying to %s\n", rep->to);
    cJSON_Delete(o);
}

void cs_handle_request(cs_server *s, const cJSON *msg)
{
    sim_msg_context_request q;
    call c = {.s = s, .q = &q};
    int rc = sim_msg_context_request_decode(msg, &q, &c.err);
    sim_msg_context_reply rep = {0};
    snprintf(rep.id, sizeof rep.id, "%s", q.id);
    rep.id_number = q.id_number;
    snprintf(rep.to, sizeof rep.to, "%s", q.src);
    if (q.op < SIM_CTX_OP_COUNT) snprintf(rep.op, sizeof rep.op, "%s", sim_ctx_op_name(q.op));
    if (!q.id[0]) snprintf(rep.id, sizeof rep.id, "?"); /* unreadable id: the requester still hears why */
    if (rc == SIM_OK) {
        c.result = cJSON_CreateObject();
        rc = c.result ? dispatch(&c) : sim_error_set(&c.err, SIM_ENOMEM, "out of memory");
    }
    rep.ok = rc == SIM_OK;
    if (rep.ok) rep.result = c.result;
    else {
        snprintf(rep.error, sizeof rep.error, "%s", c.err.msg);
        cJSON_Delete(c.result);
    }
    publish_reply(s, &rep);
    sim_msg_context_reply_free(&rep);
    sim_msg_context_request_free(&q);
}

cJSON *cs_route_json(const cs_server *s, const sim_route *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddNumberToObject(o, "length", round(r->length * 100) / 100);
    cJSON_AddNumberToObject(o, "eta", round(r->eta * 10) / 10);
    cJSON *pl = cJSON_AddArrayToObject(o, "polyline");
    int stride = (r->n_pts + CS_POLYLINE_MAX - 1) / CS_POLYLINE_MAX;
    if (stride < 1) stride = 1;
    for (int i = 0; pl && i < r->n_pts; i += stride) {
        int k = i + stride >= r->n_pts ? r->n_pts - 1 : i; /* the end always */
        double xy[2] = {round(r->px[k] * 100) / 100, round(r->py[k] * 100) / 100};
        cJSON_AddItemToArray(pl, cJSON_CreateDoubleArray(xy, 2));
        if (k == r->n_pts - 1) break;
    }
    cJSON *ms = cJSON_AddArrayToObject(o, "maneuvers");
    for (int i = 0; ms && i < r->n_mans; i++) {
        const sim_maneuver *m = &r->mans[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "type", sim_maneuver_name(m->type));
        cJSON_AddNumberToObject(j, "at", round(m->at * 100) / 100);
        cJSON_AddNumberToObject(j, "x", round(m->x * 100) / 100);
        cJSON_AddNumberToObject(j, "y", round(m->y * 100) / 100);
        cJSON_AddNumberToObject(j, "angle_deg", round(m->angle * 1800 / M_PI) / 10);
        /* the road driven after it: for a junction, the road leaving it */
        int leg = m->leg;
        while (leg + 1 < r->n_legs && s->map.g.nodes[r->legs[leg].node].junction >= 0) leg++;
        cJSON_AddStringToObject(j, "road", sim_route_map_road_id(&s->map, r->legs[leg].node));
        cJSON_AddItemToArray(ms, j);
    }
    return o;
}
