/* sim_msg_context: context.request / context.reply / context.nearby / context.guidance
 * (sim_msg_context.h). */
#include "sim_msg_context.h"

#include "sim_json.h"
#include "sim_msg_fields.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQ "context.request"

static const char *const op_names[SIM_CTX_OP_COUNT] = {
    "poi.near", "poi.search", "poi.get", "route", "route.cancel", "messages.push", "messages.list",
    "messages.pop", "messages.ack", "kv.get", "kv.set", "table.query"};

/* Fields each op accepts besides the envelope (topic, src, seq, t) and id, op. */
static const char *const op_fields[SIM_CTX_OP_COUNT] = {
    "x y radius category limit", "text category limit", "poi", "from to guide", "",
    "text priority display", "display limit", "display", "message", "key", "key value",
    "table where order desc limit offset"};

const char *sim_ctx_op_name(sim_ctx_op op)
{
    return (unsigned)op < SIM_CTX_OP_COUNT ? op_names[op] : "?";
}

const char *sim_ctx_cmp_sql(sim_ctx_cmp c)
{
    static const char *sql[] = {"=", "<>", "<", "<=", ">", ">="};
    return (unsigned)c < sizeof sql / sizeof sql[0] ? sql[c] : "=";
}

static const char *const cmp_names[] = {"=", "!=", "<", "<=", ">", ">="};

bool sim_ctx_identifier_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n >= SIM_CTX_NAME_MAX) return false;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
    return true;
}

/* "context.request: FIELD: found X, expected Y" (or "missing, expected Y"), in the
 * form of every message error (sim_json). */
static int bad(sim_error *err, const char *field, const char *expected, const cJSON *v)
{
    sim_json j = {.file = REQ, .err = err};
    return sim_json_found(&j, field, v, expected);
}

/* A string field of 1..cap-1 characters (0.. when allow_empty). Absent: dst
 * unchanged, error only when required. */
static int get_str(const cJSON *o, const char *key, char *dst, size_t cap, bool required, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char what[80];
    snprintf(what, sizeof what, "a string of 1..%zu characters", cap - 1);
    if (!v) return required ? bad(err, key, what, v) : SIM_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= cap) return bad(err, key, what, v);
    snprintf(dst, cap, "%s", v->valuestring);
    return SIM_OK;
}

static int get_num(const cJSON *o, const char *key, double *dst, double lo, double hi, bool lo_open,
                   bool required, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char what[80];
    snprintf(what, sizeof what, "a number in %s%g, %g]", lo_open ? "(" : "[", lo, hi);
    if (!v) return required ? bad(err, key, what, v) : SIM_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble > hi ||
        (lo_open ? v->valuedouble <= lo : v->valuedouble < lo))
        return bad(err, key, what, v);
    *dst = v->valuedouble;
    return SIM_OK;
}

static int get_int(const cJSON *o, const char *key, int64_t *dst, int64_t lo, int64_t hi, bool required,
                   sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char what[80];
    snprintf(what, sizeof what, "an integer in [%lld, %lld]", (long long)lo, (long long)hi);
    if (!v) return required ? bad(err, key, what, v) : SIM_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < (double)lo ||
        v->valuedouble > (double)hi)
        return bad(err, key, what, v);
    *dst = (int64_t)v->valuedouble;
    return SIM_OK;
}

static int get_limit(const cJSON *o, int *dst, sim_error *err)
{
    int64_t v = *dst;
    int rc = get_int(o, "limit", &v, 1, SIM_CTX_LIMIT_MAX, false, err);
    *dst = (int)v;
    return rc;
}

static int get_bool(const cJSON *o, const char *key, bool *dst, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return SIM_OK;
    if (!cJSON_IsBool(v)) return bad(err, key, "true or false", v);
    *dst = cJSON_IsTrue(v);
    return SIM_OK;
}

/* x and y together, or neither (the ego). */
static int get_xy(const cJSON *o, const char *prefix, sim_ctx_place *p, sim_error *err)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "x"), *y = cJSON_GetObjectItemCaseSensitive(o, "y");
    char kx[32], ky[32];
    snprintf(kx, sizeof kx, "%sx", prefix);
    snprintf(ky, sizeof ky, "%sy", prefix);
    if (!x && !y) return SIM_OK;
    if (!x) return bad(err, kx, "a number with \"y\"", x);
    if (!y) return bad(err, ky, "a number with \"x\"", y);
    const char *what = "a number in [-1e+07, 1e+07]";
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > SIM_CTX_COORD_MAX)
        return bad(err, kx, what, x);
    if (!cJSON_IsNumber(y) || !isfinite(y->valuedouble) || fabs(y->valuedouble) > SIM_CTX_COORD_MAX)
        return bad(err, ky, what, y);
    p->at = SIM_CTX_AT_POINT;
    p->x = x->valuedouble;
    p->y = y->valuedouble;
    return SIM_OK;
}

/* route's from/to: "ego", {"x", "y"} or {"poi"}. */
static int get_place(const cJSON *o, const char *key, sim_ctx_place *p, bool required, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *what = "\"ego\", {\"x\": X, \"y\": Y} or {\"poi\": ID}";
    p->at = SIM_CTX_AT_EGO;
    if (!v) return required ? bad(err, key, what, v) : SIM_OK;
    if (cJSON_IsString(v) && strcmp(v->valuestring, "ego") == 0) return SIM_OK;
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) == 0) return bad(err, key, what, v);
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%s.", key);
    if (cJSON_GetObjectItemCaseSensitive(v, "poi")) {
        if (cJSON_GetArraySize(v) != 1) return bad(err, key, what, v);
        char field[24];
        snprintf(field, sizeof field, "%s.poi", key);
        const cJSON *poi = cJSON_GetObjectItemCaseSensitive(v, "poi");
        if (!cJSON_IsString(poi) || !poi->valuestring[0] || strlen(poi->valuestring) >= SIM_CTX_NAME_MAX)
            return bad(err, field, "a POI id of 1..63 characters", poi);
        p->at = SIM_CTX_AT_POI;
        snprintf(p->poi, sizeof p->poi, "%s", poi->valuestring);
        return SIM_OK;
    }
    if (cJSON_GetArraySize(v) != 2) return bad(err, key, what, v);
    int rc = get_xy(v, prefix, p, err);
    if (rc) return rc;
    return p->at == SIM_CTX_AT_POINT ? SIM_OK : bad(err, key, what, v);
}

static int get_filters(const cJSON *o, sim_msg_context_request *r, sim_error *err)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "where");
    if (!w) return SIM_OK;
    char what[96];
    snprintf(what, sizeof what, "an array of at most %d {\"column\", \"op\", \"value\"}", SIM_CTX_FILTERS_MAX);
    if (!cJSON_IsArray(w) || cJSON_GetArraySize(w) > SIM_CTX_FILTERS_MAX) return bad(err, "where", what, w);
    const cJSON *f;
    cJSON_ArrayForEach(f, w) {
        int i = r->n_filters;
        char field[48];
        snprintf(field, sizeof field, "where[%d]", i);
        if (!cJSON_IsObject(f) || cJSON_GetArraySize(f) != 3) return bad(err, field, "{\"column\", \"op\", \"value\"}", f);
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(f, "column");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(f, "op");
        const cJSON *val = cJSON_GetObjectItemCaseSensitive(f, "value");
        snprintf(field, sizeof field, "where[%d].column", i);
        if (!cJSON_IsString(col) || !sim_ctx_identifier_ok(col->valuestring))
            return bad(err, field, "a column name ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)", col);
        snprintf(field, sizeof field, "where[%d].op", i);
        int cmp = -1;
        for (int k = 0; cJSON_IsString(op) && k < 6; k++)
            if (strcmp(op->valuestring, cmp_names[k]) == 0) cmp = k;
        if (cmp < 0) return bad(err, field, "one of =, !=, <, <=, >, >=", op);
        snprintf(field, sizeof field, "where[%d].value", i);
        bool ok = (cJSON_IsNumber(val) && isfinite(val->valuedouble)) || cJSON_IsBool(val) ||
                  (cJSON_IsString(val) && strlen(val->valuestring) <= SIM_CTX_TEXT_MAX) ||
                  (cJSON_IsNull(val) && (cmp == SIM_CTX_EQ || cmp == SIM_CTX_NE));
        if (!ok) return bad(err, field, "a number, a string of at most 1024 characters, true/false, or null with = or !=", val);
        sim_ctx_filter *fl = &r->filters[i];
        snprintf(fl->column, sizeof fl->column, "%s", col->valuestring);
        fl->cmp = (sim_ctx_cmp)cmp;
        fl->value = cJSON_Duplicate(val, true);
        if (!fl->value) return sim_error_set(err, SIM_ENOMEM, REQ ": out of memory");
        r->n_filters++;
    }
    return SIM_OK;
}

/* Every field is known to the op (typos are refused, not ignored). */
static int check_fields(const cJSON *msg, sim_ctx_op op, sim_error *err)
{
    static const char *const envelope[] = {"topic", "src", "seq", "t", "id", "op"};
    const cJSON *f;
    cJSON_ArrayForEach(f, msg) {
        bool known = false;
        for (size_t k = 0; k < sizeof envelope / sizeof envelope[0]; k++) known |= strcmp(f->string, envelope[k]) == 0;
        const char *list = op_fields[op];
        size_t n = strlen(f->string);
        for (const char *p = list; !known && *p;) {
            const char *e = strchr(p, ' ');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            known = len == n && strncmp(p, f->string, n) == 0;
            p += len + (e ? 1 : 0);
        }
        if (!known)
            return sim_error_set(err, SIM_EINVAL, REQ ": %.64s: unknown field for %s, expected %s%s", f->string,
                                 op_names[op], list[0] ? "one of: " : "none", list);
    }
    return SIM_OK;
}

int sim_msg_context_request_decode(const cJSON *msg, sim_msg_context_request *r, sim_error *err)
{
    memset(r, 0, sizeof *r);
    r->op = SIM_CTX_OP_COUNT;
    r->radius = 1000;
    r->limit = 10;
    r->priority = 5;
    if (!cJSON_IsObject(msg)) return sim_error_set(err, SIM_EINVAL, REQ ": expected an object");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
    if (cJSON_IsString(src)) snprintf(r->src, sizeof r->src, "%s", src->valuestring);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (cJSON_IsString(id) && id->valuestring[0] && strlen(id->valuestring) <= SIM_CTX_ID_MAX) {
        snprintf(r->id, sizeof r->id, "%s", id->valuestring);
    } else if (cJSON_IsNumber(id) && id->valuedouble == floor(id->valuedouble) && fabs(id->valuedouble) < 9e15) {
        snprintf(r->id, sizeof r->id, "%lld", (long long)id->valuedouble);
        r->id_number = true;
    } else {
        return bad(err, "id", "a string of 1..64 characters or an integer", id);
    }
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(msg, "op");
    for (int k = 0; cJSON_IsString(op) && k < SIM_CTX_OP_COUNT; k++)
        if (strcmp(op->valuestring, op_names[k]) == 0) r->op = (sim_ctx_op)k;
    if (r->op == SIM_CTX_OP_COUNT)
        return bad(err, "op", "one of poi.near, poi.search, poi.get, route, route.cancel, messages.push, "
                              "messages.list, messages.pop, messages.ack, kv.get, kv.set, table.query", op);
    int rc = check_fields(msg, r->op, err);
    if (rc) return rc;
    int64_t v;
    switch (r->op) {
    case SIM_CTX_POI_NEAR:
        if ((rc = get_xy(msg, "", &r->at, err))) return rc;
        if ((rc = get_num(msg, "radius", &r->radius, 0, SIM_CTX_RADIUS_MAX, true, false, err))) return rc;
        if ((rc = get_str(msg, "category", r->category, sizeof r->category, false, err))) return rc;
        return get_limit(msg, &r->limit, err);
    case SIM_CTX_POI_SEARCH:
        if ((rc = get_str(msg, "text", r->text, 257, true, err))) return rc;
        if ((rc = get_str(msg, "category", r->category, sizeof r->category, false, err))) return rc;
        return get_limit(msg, &r->limit, err);
    case SIM_CTX_POI_GET:
        return get_str(msg, "poi", r->poi, sizeof r->poi, true, err);
    case SIM_CTX_ROUTE:
        if ((rc = get_place(msg, "from", &r->from, false, err))) return rc;
        if ((rc = get_place(msg, "to", &r->to, true, err))) return rc;
        if (r->to.at == SIM_CTX_AT_EGO) return bad(err, "to", "a point or a POI (the route leads away from the ego)", cJSON_GetObjectItemCaseSensitive(msg, "to"));
        r->guide = r->from.at == SIM_CTX_AT_EGO;
        return get_bool(msg, "guide", &r->guide, err);
    case SIM_CTX_ROUTE_CANCEL:
        return SIM_OK;
    case SIM_CTX_MSG_PUSH:
        snprintf(r->display, sizeof r->display, "cluster");
        if ((rc = get_str(msg, "text", r->text, sizeof r->text, true, err))) return rc;
        v = r->priority;
        if ((rc = get_int(msg, "priority", &v, 0, 9, false, err))) return rc;
        r->priority = (int)v;
        return get_str(msg, "display", r->display, sizeof r->display, false, err);
    case SIM_CTX_MSG_LIST:
        r->limit = 50;
        if ((rc = get_str(msg, "display", r->display, sizeof r->display, false, err))) return rc;
        return get_limit(msg, &r->limit, err);
    case SIM_CTX_MSG_POP:
        return get_str(msg, "display", r->display, sizeof r->display, false, err);
    case SIM_CTX_MSG_ACK:
        return get_int(msg, "message", &r->message, 1, INT64_C(1) << 53, true, err);
    case SIM_CTX_KV_GET:
        return get_str(msg, "key", r->key, sizeof r->key, true, err);
    case SIM_CTX_KV_SET: {
        if ((rc = get_str(msg, "key", r->key, sizeof r->key, true, err))) return rc;
        const cJSON *val = cJSON_GetObjectItemCaseSensitive(msg, "value");
        if (!val) return bad(err, "value", "any JSON value of at most 8192 bytes", val);
        char *text = cJSON_PrintUnformatted(val);
        size_t n = text ? strlen(text) : 0;
        cJSON_free(text);
        if (!text || n > SIM_CTX_VALUE_MAX) return bad(err, "value", "any JSON value of at most 8192 bytes", val);
        r->value = cJSON_Duplicate(val, true);
        return r->value ? SIM_OK : sim_error_set(err, SIM_ENOMEM, REQ ": out of memory");
    }
    case SIM_CTX_TABLE_QUERY: {
        r->limit = 100;
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "table");
        if (!cJSON_IsString(t) || !sim_ctx_identifier_ok(t->valuestring))
            return bad(err, "table", "a table name ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)", t);
        snprintf(r->table, sizeof r->table, "%s", t->valuestring);
        if ((rc = get_filters(msg, r, err))) return rc;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(msg, "order");
        if (o) {
            if (!cJSON_IsString(o) || !sim_ctx_identifier_ok(o->valuestring))
                return bad(err, "order", "a column name ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)", o);
            snprintf(r->order, sizeof r->order, "%s", o->valuestring);
        }
        if ((rc = get_bool(msg, "desc", &r->desc, err))) return rc;
        if ((rc = get_limit(msg, &r->limit, err))) return rc;
        v = 0;
        if ((rc = get_int(msg, "offset", &v, 0, 1000000000, false, err))) return rc;
        r->offset = (int)v;
        return SIM_OK;
    }
    case SIM_CTX_OP_COUNT:
        break;
    }
    return SIM_OK;
}

void sim_msg_context_request_free(sim_msg_context_request *r)
{
    cJSON_Delete(r->value);
    r->value = NULL;
    for (int i = 0; i < r->n_filters; i++) {
        cJSON_Delete(r->filters[i].value);
        r->filters[i].value = NULL;
    }
    r->n_filters = 0;
}

static void add_id(cJSON *o, const char *id, bool number)
{
    if (number) cJSON_AddNumberToObject(o, "id", (double)strtoll(id, NULL, 10));
    else cJSON_AddStringToObject(o, "id", id);
}

static cJSON *place_json(const sim_ctx_place *p)
{
    if (p->at == SIM_CTX_AT_EGO) return cJSON_CreateString("ego");
    cJSON *o = cJSON_CreateObject();
    if (p->at == SIM_CTX_AT_POI) {
        cJSON_AddStringToObject(o, "poi", p->poi);
    } else {
        cJSON_AddNumberToObject(o, "x", p->x);
        cJSON_AddNumberToObject(o, "y", p->y);
    }
    return o;
}

/* Only the fields the op reads, defaults included, so that decode(encode(r)) == r. */
cJSON *sim_msg_context_request_encode(const sim_msg_context_request *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add_id(o, r->id, r->id_number);
    cJSON_AddStringToObject(o, "op", sim_ctx_op_name(r->op));
    switch (r->op) {
    case SIM_CTX_POI_NEAR:
        if (r->at.at == SIM_CTX_AT_POINT) {
            cJSON_AddNumberToObject(o, "x", r->at.x);
            cJSON_AddNumberToObject(o, "y", r->at.y);
        }
        cJSON_AddNumberToObject(o, "radius", r->radius);
        if (r->category[0]) cJSON_AddStringToObject(o, "category", r->category);
        cJSON_AddNumberToObject(o, "limit", r->limit);
        break;
    case SIM_CTX_POI_SEARCH:
        cJSON_AddStringToObject(o, "text", r->text);
        if (r->category[0]) cJSON_AddStringToObject(o, "category", r->category);
        cJSON_AddNumberToObject(o, "limit", r->limit);
        break;
    case SIM_CTX_POI_GET:
        cJSON_AddStringToObject(o, "poi", r->poi);
        break;
    case SIM_CTX_ROUTE:
        cJSON_AddItemToObject(o, "from", place_json(&r->from));
        cJSON_AddItemToObject(o, "to", place_json(&r->to));
        cJSON_AddBoolToObject(o, "guide", r->guide);
        break;
    case SIM_CTX_MSG_PUSH:
        cJSON_AddStringToObject(o, "text", r->text);
        cJSON_AddNumberToObject(o, "priority", r->priority);
        cJSON_AddStringToObject(o, "display", r->display);
        break;
    case SIM_CTX_MSG_LIST:
        if (r->display[0]) cJSON_AddStringToObject(o, "display", r->display);
        cJSON_AddNumberToObject(o, "limit", r->limit);
        break;
    case SIM_CTX_MSG_POP:
        if (r->display[0]) cJSON_AddStringToObject(o, "display", r->display);
        break;
    case SIM_CTX_MSG_ACK:
        cJSON_AddNumberToObject(o, "message", (double)r->message);
        break;
    case SIM_CTX_KV_SET:
        cJSON_AddStringToObject(o, "key", r->key);
        cJSON_AddItemToObject(o, "value", cJSON_Duplicate(r->value, true));
        break;
    case SIM_CTX_KV_GET:
        cJSON_AddStringToObject(o, "key", r->key);
        break;
    case SIM_CTX_TABLE_QUERY: {
        cJSON_AddStringToObject(o, "table", r->table);
        if (r->n_filters) {
            cJSON *w = cJSON_AddArrayToObject(o, "where");
            for (int i = 0; w && i < r->n_filters; i++) {
                cJSON *f = cJSON_CreateObject();
                cJSON_AddStringToObject(f, "column", r->filters[i].column);
                cJSON_AddStringToObject(f, "op", cmp_names[r->filters[i].cmp]);
                cJSON_AddItemToObject(f, "value", cJSON_Duplicate(r->filters[i].value, true));
                cJSON_AddItemToArray(w, f);
            }
        }
        if (r->order[0]) cJSON_AddStringToObject(o, "order", r->order);
        cJSON_AddBoolToObject(o, "desc", r->desc);
        cJSON_AddNumberToObject(o, "limit", r->limit);
        cJSON_AddNumberToObject(o, "offset", r->offset);
        break;
    }
    case SIM_CTX_ROUTE_CANCEL:
    case SIM_CTX_OP_COUNT:
        break;
    }
    return o;
}

/* ---- reply ----------------------------------------------------------------------- */

cJSON *sim_msg_context_reply_encode(const sim_msg_context_reply *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add_id(o, r->id, r->id_number);
    cJSON_AddStringToObject(o, "to", r->to);
    cJSON_AddBoolToObject(o, "ok", r->ok);
    if (r->op[0]) cJSON_AddStringToObject(o, "op", r->op);
    else cJSON_AddNullToObject(o, "op");
    if (!r->ok) {
        cJSON_AddStringToObject(o, "error", r->error);
    } else if (r->result) {
        const cJSON *f;
        cJSON_ArrayForEach(f, r->result) {
            if (cJSON_GetObjectItemCaseSensitive(o, f->string)) continue; /* never a key twice */
            cJSON_AddItemToObject(o, f->string, cJSON_Duplicate(f, true));
        }
    }
    return o;
}

int sim_msg_context_reply_decode(const cJSON *msg, sim_msg_context_reply *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(msg, "to");
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(msg, "ok");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(msg, "op");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(msg, "error");
    if (cJSON_IsString(id)) {
        snprintf(out->id, sizeof out->id, "%s", id->valuestring);
    } else if (cJSON_IsNumber(id)) {
        snprintf(out->id, sizeof out->id, "%lld", (long long)id->valuedouble);
        out->id_number = true;
    } else {
        return sim_error_set(err, SIM_EINVAL, "context.reply: id: missing, expected the request's id");
    }
    if (!cJSON_IsString(to)) return sim_error_set(err, SIM_EINVAL, "context.reply: to: missing, expected a module name");
    if (!cJSON_IsBool(ok)) return sim_error_set(err, SIM_EINVAL, "context.reply: ok: missing, expected true or false");
    if (cJSON_IsFalse(ok) && !cJSON_IsString(e))
        return sim_error_set(err, SIM_EINVAL, "context.reply: error: missing, expected a string when ok is false");
    snprintf(out->to, sizeof out->to, "%s", to->valuestring);
    out->ok = cJSON_IsTrue(ok);
    if (cJSON_IsString(op)) snprintf(out->op, sizeof out->op, "%s", op->valuestring);
    if (cJSON_IsString(e)) snprintf(out->error, sizeof out->error, "%s", e->valuestring);
    out->result = cJSON_CreateObject();
    if (!out->result) return sim_error_set(err, SIM_ENOMEM, "context.reply: out of memory");
    static const char *const skip[] = {"topic", "src", "seq", "t", "id", "to", "ok", "op", "error"};
    const cJSON *f;
    cJSON_ArrayForEach(f, msg) {
        bool header = false;
        for (size_t k = 0; k < sizeof skip / sizeof skip[0]; k++) header |= strcmp(f->string, skip[k]) == 0;
        if (!header) cJSON_AddItemToObject(out->result, f->string, cJSON_Duplicate(f, true));
    }
    return SIM_OK;
}

void sim_msg_context_reply_free(sim_msg_context_reply *r)
{
    cJSON_Delete(r->result);
    r->result = NULL;
}

/* ---- events ---------------------------------------------------------------------- */

#define F(name, kind, lo, hi) {#name, kind, SIM_MF_AT(sim_msg_context_nearby, name, kind, 0), lo, hi, 0}
#define S(name) {#name, SIM_MF_STR, SIM_MF_AT(sim_msg_context_nearby, name, SIM_MF_STR, sizeof ((sim_msg_context_nearby *)0)->name), 0, 0, sizeof ((sim_msg_context_nearby *)0)->name}
static const sim_msg_field NEARBY[] = {
    S(event), S(poi), S(name), S(category),
    F(distance, SIM_MF_NUM, 0, INFINITY),
    F(x, SIM_MF_NUM, -INFINITY, INFINITY),
    F(y, SIM_MF_NUM, -INFINITY, INFINITY),
};
#undef F
#undef S

#define F(name, kind, lo, hi) {#name, kind, SIM_MF_AT(sim_msg_context_guidance, name, kind, 0), lo, hi, 0}
#define S(name) {#name, SIM_MF_STR, SIM_MF_AT(sim_msg_context_guidance, name, SIM_MF_STR, sizeof ((sim_msg_context_guidance *)0)->name), 0, 0, sizeof ((sim_msg_context_guidance *)0)->name}
static const sim_msg_field GUIDANCE[] = {
    F(route, SIM_MF_INT, 0, 2e9),
    S(next),
    F(index, SIM_MF_INT, 0, 2e9),
    S(road),
    F(distance, SIM_MF_NUM, 0, INFINITY),
    F(remaining, SIM_MF_NUM, 0, INFINITY),
    F(eta, SIM_MF_NUM, 0, INFINITY),
    F(off_route, SIM_MF_BOOL, 0, 0),
    F(rerouted, SIM_MF_BOOL, 0, 0),
    F(arrived, SIM_MF_BOOL, 0, 0),
};
#undef F
#undef S

static cJSON *encode(const void *m, const sim_msg_field *f, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    if (o && sim_msg_fields_encode(o, m, f, n)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *sim_msg_context_nearby_encode(const sim_msg_context_nearby *m)
{
    return encode(m, NEARBY, sizeof NEARBY / sizeof *NEARBY);
}

int sim_msg_context_nearby_decode(const cJSON *msg, sim_msg_context_nearby *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_CONTEXT_NEARBY, .err = err};
    return sim_msg_fields_decode(&j, msg, out, NEARBY, sizeof NEARBY / sizeof *NEARBY);
}

cJSON *sim_msg_context_guidance_encode(const sim_msg_context_guidance *m)
{
    return encode(m, GUIDANCE, sizeof GUIDANCE / sizeof *GUIDANCE);
}

int sim_msg_context_guidance_decode(const cJSON *msg, sim_msg_context_guidance *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_CONTEXT_GUIDANCE, .err = err};
    return sim_msg_fields_decode(&j, msg, out, GUIDANCE, sizeof GUIDANCE / sizeof *GUIDANCE);
}
