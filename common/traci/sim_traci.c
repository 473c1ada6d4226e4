/* sim_traci: TraCI's bytes, written and read (see sim_traci.h). The reader checks every
 * length against what is left, since SUMO's answers come from another process and the
 * fuzz target feeds it anything. */
#include "sim_traci.h"
#include "sim_traci_put.h"

#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

void sim_traci_buf_free(sim_traci_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

unsigned char *sim_traci_grow(sim_traci_buf *b, size_t n)
{
    if (b->oom) return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->oom = true;
            return NULL;
        }
        b->data = d;
        b->cap = cap;
    }
    unsigned char *p = b->data + b->len;
    b->len += n;
    return p;
}

void sim_traci_put_u8(sim_traci_buf *b, int v)
{
    unsigned char *p = sim_traci_grow(b, 1);
    if (p) p[0] = (unsigned char)v;
}

static void be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8),
    p[3] = (unsigned char)v;
}

void sim_traci_put_i32(sim_traci_buf *b, int32_t v)
{
    unsigned char *p = sim_traci_grow(b, 4);
    if (p) be32(p, (uint32_t)v);
}

void sim_traci_put_f64(sim_traci_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u); /* IEEE 754 binary64, sent big-endian */
    unsigned char *p = sim_traci_grow(b, 8);
    if (!p) return;
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(u >> (56 - 8 * k));
}

void sim_traci_put_str(sim_traci_buf *b, const char *s)
{
    size_t n = strlen(s);
    sim_traci_put_i32(b, (int32_t)n);
    unsigned char *p = sim_traci_grow(b, n);
    if (p) memcpy(p, s, n);
}

void sim_traci_put_typed_str(sim_traci_buf *b, const char *s)
{
    sim_traci_put_u8(b, SIM_TRACI_TYPE_STRING);
    sim_traci_put_str(b, s);
}

void sim_traci_put_typed_i32(sim_traci_buf *b, int32_t v)
{
    sim_traci_put_u8(b, SIM_TRACI_TYPE_INTEGER);
    sim_traci_put_i32(b, v);
}

void sim_traci_put_typed_f64(sim_traci_buf *b, double v)
{
    sim_traci_put_u8(b, SIM_TRACI_TYPE_DOUBLE);
    sim_traci_put_f64(b, v);
}

void sim_traci_msg_begin(sim_traci_buf *b)
{
    b->len = 0;
    b->oom = false;
    sim_traci_put_i32(b, 0);
}

int sim_traci_msg_end(sim_traci_buf *b, sim_error *err)
{
    if (b->oom || b->len < 4 || b->len > INT32_MAX)
        return sim_error_set(err, SIM_ENOMEM, "TraCI: out of memory building a message");
    be32(b->data, (uint32_t)b->len);
    return SIM_OK;
}

/* A command's header is written with a 1-byte length and widened afterwards when its
 * content turns out longer than 255 bytes. */
size_t sim_traci_cmd_begin(sim_traci_buf *b, int id)
{
    size_t at = b->len;
    sim_traci_put_u8(b, 0);
    sim_traci_put_u8(b, id);
    return at;
}

void sim_traci_cmd_end(sim_traci_buf *b, size_t at)
{
    if (b->oom) return;
    size_t n = b->len - at; /* length byte, id, content */
    if (n <= 255) {
        b->data[at] = (unsigned char)n;
        return;
    }
    if (!sim_traci_grow(b, 4)) return;
    memmove(b->data + at + 5, b->data + at + 1, n - 1);
    b->data[at] = 0;
    be32(b->data + at + 1, (uint32_t)(n + 4));
}

void sim_traci_cmd_get_version(sim_traci_buf *b)
{
    sim_traci_cmd_end(b, sim_traci_cmd_begin(b, SIM_TRACI_CMD_GETVERSION));
}

void sim_traci_cmd_step(sim_traci_buf *b, double target_s)
{
    size_t at = sim_traci_cmd_begin(b, SIM_TRACI_CMD_SIMSTEP);
    sim_traci_put_f64(b, target_s);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_close(sim_traci_buf *b)
{
    sim_traci_cmd_end(b, sim_traci_cmd_begin(b, SIM_TRACI_CMD_CLOSE));
}

/* The head of a get/set command: variable and object id. */
size_t sim_traci_var_cmd(sim_traci_buf *b, int cmd, int var, const char *obj)
{
    size_t at = sim_traci_cmd_begin(b, cmd);
    sim_traci_put_u8(b, var);
    sim_traci_put_str(b, obj);
    return at;
}

void sim_traci_cmd_add_route(sim_traci_buf *b, const char *route, const char *const *edges, int n_edges)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_SET_ROUTE_VARIABLE, SIM_TRACI_ADD, route);
    sim_traci_put_u8(b, SIM_TRACI_TYPE_STRINGLIST);
    sim_traci_put_i32(b, n_edges);
    for (int i = 0; i < n_edges; i++) sim_traci_put_str(b, edges[i]);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_add_vehicle(sim_traci_buf *b, const char *veh, const char *route, const char *type,
                               const char *depart_lane, const char *depart_pos)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, SIM_TRACI_ADD_FULL, veh);
    sim_traci_put_u8(b, SIM_TRACI_TYPE_COMPOUND);
    sim_traci_put_i32(b, 14);
    const char *s[12] = {route, type, "now", depart_lane, depart_pos, "0", "current", "max", "current", "", "", ""};
    for (int i = 0; i < 12; i++) sim_traci_put_typed_str(b, s[i]);
    sim_traci_put_typed_i32(b, 0); /* person capacity */
    sim_traci_put_typed_i32(b, 0); /* person number */
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_move_to_xy(sim_traci_buf *b, const char *veh, const char *edge, int lane, double x, double y,
                              double angle_deg, int keep_route)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, SIM_TRACI_MOVE_TO_XY, veh);
    sim_traci_put_u8(b, SIM_TRACI_TYPE_COMPOUND);
    sim_traci_put_i32(b, 7);
    sim_traci_put_typed_str(b, edge);
    sim_traci_put_typed_i32(b, lane);
    sim_traci_put_typed_f64(b, x);
    sim_traci_put_typed_f64(b, y);
    sim_traci_put_typed_f64(b, angle_deg);
    sim_traci_put_u8(b, SIM_TRACI_TYPE_BYTE);
    sim_traci_put_u8(b, keep_route);
    sim_traci_put_typed_f64(b, 100.0); /* match threshold, SUMO's default */
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_set_vehicle_int(sim_traci_buf *b, int var, const char *veh, int32_t v)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, var, veh);
    sim_traci_put_typed_i32(b, v);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_set_vehicle_double(sim_traci_buf *b, int var, const char *veh, double v)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, var, veh);
    sim_traci_put_typed_f64(b, v);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_set_scale(sim_traci_buf *b, double scale)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_SET_SIM_VARIABLE, SIM_TRACI_VAR_SCALE, "");
    sim_traci_put_typed_f64(b, scale);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_get_leader(sim_traci_buf *b, const char *veh, double dist)
{
    size_t at = sim_traci_var_cmd(b, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, SIM_TRACI_VAR_LEADER, veh);
    sim_traci_put_typed_f64(b, dist);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_get_vehicle_count(sim_traci_buf *b)
{
    sim_traci_cmd_end(b, sim_traci_var_cmd(b, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, SIM_TRACI_ID_COUNT, ""));
}

void sim_traci_cmd_subscribe_vehicle_context(sim_traci_buf *b, const char *veh, double begin, double end,
                                             double range, const uint8_t *vars, int n_vars)
{
    sim_traci_cmd_subscribe_context(b, SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT, veh, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE,
                                    begin, end, range, vars, n_vars);
}

/* ---- reading ---- */

static int short_read(sim_traci_reader *r, size_t need, sim_error *err)
{
    return sim_error_set(err, SIM_EINVAL, "TraCI: the answer ends at byte %zu of %zu, %zu more expected", r->pos,
                         r->len, need);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int sim_traci_msg_length(const unsigned char head[4], size_t max, size_t *len, sim_error *err)
{
    uint32_t n = rd32(head);
    if (n < 4 || n > max)
        return sim_error_set(err, SIM_EINVAL, "TraCI: a message of %u bytes, expected 4..%zu", n, max);
    *len = n;
    return SIM_OK;
}

int sim_traci_reader_init(sim_traci_reader *r, const unsigned char *msg, size_t len, sim_error *err)
{
    r->p = msg;
    r->len = len;
    r->pos = 0;
    if (len < 4 || rd32(msg) != len)
        return sim_error_set(err, SIM_EINVAL, "TraCI: the message's length field does not match its %zu bytes", len);
    r->pos = 4;
    return SIM_OK;
}

int sim_traci_read_u8(sim_traci_reader *r, int *v, sim_error *err)
{
    *v = 0;
    if (r->len - r->pos < 1) return short_read(r, 1, err);
    *v = r->p[r->pos++];
    return SIM_OK;
}

int sim_traci_read_i32(sim_traci_reader *r, int32_t *v, sim_error *err)
{
    *v = 0;
    if (r->len - r->pos < 4) return short_read(r, 4, err);
    *v = (int32_t)rd32(r->p + r->pos);
    r->pos += 4;
    return SIM_OK;
}

int sim_traci_read_f64(sim_traci_reader *r, double *v, sim_error *err)
{
    *v = 0;
    if (r->len - r->pos < 8) return short_read(r, 8, err);
    uint64_t u = 0;
    for (int k = 0; k < 8; k++) u = u << 8 | r->p[r->pos + (size_t)k];
    memcpy(v, &u, sizeof *v);
    r->pos += 8;
    return SIM_OK;
}

int sim_traci_read_string(sim_traci_reader *r, const char **s, int32_t *len, sim_error *err)
{
    int32_t n;
    *s = "";
    *len = 0;
    int rc = sim_traci_read_i32(r, &n, err);
    if (rc) return rc;
    if (n < 0 || (size_t)n > r->len - r->pos)
        return sim_error_set(err, SIM_EINVAL, "TraCI: a string of %d bytes at byte %zu, only %zu left", n, r->pos,
                             r->len - r->pos);
    *s = (const char *)r->p + r->pos;
    *len = n;
    r->pos += (size_t)n;
    return SIM_OK;
}

int sim_traci_read_value(sim_traci_reader *r, sim_traci_value *v, sim_error *err)
{
    memset(v, 0, sizeof *v);
    int rc = sim_traci_read_u8(r, &v->type, err), u;
    if (rc) return rc;
    switch (v->type) {
    case SIM_TRACI_TYPE_UBYTE:
    case SIM_TRACI_TYPE_BYTE:
        if ((rc = sim_traci_read_u8(r, &u, err))) return rc;
        v->i = v->type == SIM_TRACI_TYPE_BYTE ? (int8_t)u : u;
        v->d = v->i;
        return SIM_OK;
    case SIM_TRACI_TYPE_INTEGER:
        if ((rc = sim_traci_read_i32(r, &v->i, err))) return rc;
        v->d = v->i;
        return SIM_OK;
    case SIM_TRACI_TYPE_DOUBLE:
        return sim_traci_read_f64(r, &v->d, err);
    case SIM_TRACI_TYPE_STRING:
        return sim_traci_read_string(r, &v->s, &v->s_len, err);
    case SIM_TRACI_TYPE_POSITION_2D:
    case SIM_TRACI_TYPE_POSITION_3D:
        for (int k = 0; k < (v->type == SIM_TRACI_TYPE_POSITION_3D ? 3 : 2); k++)
            if ((rc = sim_traci_read_f64(r, &v->pos[k], err))) return rc;
        return SIM_OK;
    case SIM_TRACI_TYPE_STRINGLIST: {
        int32_t n;
        if ((rc = sim_traci_read_i32(r, &n, err))) return rc;
        if (n < 0 || (size_t)n > (r->len - r->pos) / 4)
            return sim_error_set(err, SIM_EINVAL, "TraCI: a list of %d strings at byte %zu", n, r->pos);
        for (int32_t k = 0; k < n; k++) {
            const char *s;
            int32_t len;
            if ((rc = sim_traci_read_string(r, &s, &len, err))) return rc;
        }
        v->i = n;
        return SIM_OK;
    }
    case SIM_TRACI_TYPE_COMPOUND: /* its count; the items follow, read by the caller */
        return sim_traci_read_i32(r, &v->i, err);
    default:
        return sim_error_set(err, SIM_EINVAL, "TraCI: a value of type 0x%02x at byte %zu, which this client does "
                                              "not read", v->type, r->pos - 1);
    }
}

int sim_traci_read_cmd(sim_traci_reader *r, int *id, size_t *end, sim_error *err)
{
    size_t start = r->pos;
    int n8, rc = sim_traci_read_u8(r, &n8, err);
    if (rc) return rc;
    size_t n = (size_t)n8, head = 1;
    if (n8 == 0) {
        int32_t n32;
        if ((rc = sim_traci_read_i32(r, &n32, err))) return rc;
        n = n32 < 0 ? 0 : (size_t)n32;
        head = 5;
    }
    if (n < head + 1 || n > r->len - start)
        return sim_error_set(err, SIM_EINVAL, "TraCI: a command of %zu bytes at byte %zu, %zu left", n, start,
                             r->len - start);
    if ((rc = sim_traci_read_u8(r, id, err))) return rc;
    *end = start + n;
    return SIM_OK;
}

int sim_traci_read_status(sim_traci_reader *r, int cmd, sim_error *err)
{
    int id, result;
    size_t end;
    const char *desc;
    int32_t dlen;
    int rc = sim_traci_read_cmd(r, &id, &end, err);
    if (rc || (rc = sim_traci_read_u8(r, &result, err)) || (rc = sim_traci_read_string(r, &desc, &dlen, err)))
        return rc;
    if (r->pos != end)
        return sim_error_set(err, SIM_EINVAL, "TraCI: the status of command 0x%02x does not end where its length says",
                             id);
    if (id != cmd)
        return sim_error_set(err, SIM_EINVAL, "TraCI: a status for command 0x%02x where 0x%02x was expected", id, cmd);
    if (result != SIM_TRACI_RTYPE_OK)
        return sim_error_set(err, SIM_EINVAL, "SUMO refused command 0x%02x: %.*s", cmd, (int)(dlen > 300 ? 300 : dlen),
                             desc);
    return SIM_OK;
}

int sim_traci_read_version(sim_traci_reader *r, int32_t *api, char *id, size_t id_cap, sim_error *err)
{
    int cid;
    size_t end;
    const char *s;
    int32_t n;
    int rc = sim_traci_read_cmd(r, &cid, &end, err);
    if (rc) return rc;
    if (cid != SIM_TRACI_CMD_GETVERSION)
        return sim_error_set(err, SIM_EINVAL, "TraCI: answer 0x%02x to getVersion", cid);
    if ((rc = sim_traci_read_i32(r, api, err)) || (rc = sim_traci_read_string(r, &s, &n, err))) return rc;
    if (id_cap) {
        size_t k = (size_t)n < id_cap - 1 ? (size_t)n : id_cap - 1;
        memcpy(id, s, k);
        id[k] = 0;
    }
    r->pos = end;
    return SIM_OK;
}

/* A get command's answer up to its value: response id, variable, object. */
static int read_get_head(sim_traci_reader *r, int response, int var, size_t *end, sim_error *err)
{
    int cid, vid;
    const char *s;
    int32_t n;
    int rc = sim_traci_read_cmd(r, &cid, end, err);
    if (rc || (rc = sim_traci_read_u8(r, &vid, err)) || (rc = sim_traci_read_string(r, &s, &n, err))) return rc;
    if (cid != response || vid != var)
        return sim_error_set(err, SIM_EINVAL, "TraCI: answer 0x%02x/0x%02x where 0x%02x/0x%02x was expected", cid, vid,
                             response, var);
    return SIM_OK;
}

static int read_get_tail(sim_traci_reader *r, size_t end, sim_error *err)
{
    if (r->pos > end) return sim_error_set(err, SIM_EINVAL, "TraCI: a value runs past its command");
    r->pos = end;
    return SIM_OK;
}

int sim_traci_read_get(sim_traci_reader *r, int response, int var, sim_traci_value *v, sim_error *err)
{
    size_t end;
    int rc = read_get_head(r, response, var, &end, err);
    if (rc || (rc = sim_traci_read_value(r, v, err))) return rc;
    return read_get_tail(r, end, err);
}

int sim_traci_read_leader(sim_traci_reader *r, char *id, size_t id_cap, double *dist, sim_error *err)
{
    size_t end;
    sim_traci_value c, who, d;
    int rc = read_get_head(r, SIM_TRACI_RESPONSE_GET_VEHICLE_VARIABLE, SIM_TRACI_VAR_LEADER, &end, err);
    if (rc || (rc = sim_traci_read_value(r, &c, err))) return rc;
    if (c.type != SIM_TRACI_TYPE_COMPOUND || c.i != 2)
        return sim_error_set(err, SIM_EINVAL, "TraCI: the leader is a value of type 0x%02x (%d items), expected a "
                             "compound of 2", c.type, c.i);
    if ((rc = sim_traci_read_value(r, &who, err)) || (rc = sim_traci_read_value(r, &d, err))) return rc;
    if (who.type != SIM_TRACI_TYPE_STRING || d.type != SIM_TRACI_TYPE_DOUBLE)
        return sim_error_set(err, SIM_EINVAL, "TraCI: the leader is (0x%02x, 0x%02x), expected (string, double)",
                             who.type, d.type);
    if (id_cap) {
        size_t k = (size_t)who.s_len < id_cap - 1 ? (size_t)who.s_len : id_cap - 1;
        memcpy(id, who.s, k);
        id[k] = 0;
    }
    *dist = d.d;
    return read_get_tail(r, end, err);
}

/* One object's variables: (variable, status, typed value) n_vars times. */
static int read_object_vars(sim_traci_reader *r, sim_traci_object *o, int n_vars, sim_error *err)
{
    o->n_vars = n_vars;
    for (int i = 0; i < n_vars; i++) {
        int var, status, rc;
        if ((rc = sim_traci_read_u8(r, &var, err)) || (rc = sim_traci_read_u8(r, &status, err)) ||
            (rc = sim_traci_read_value(r, &o->value[i], err)))
            return rc;
        o->var[i] = (uint8_t)var;
        o->ok[i] = status == SIM_TRACI_RTYPE_OK; /* an error carries a typed string */
    }
    return SIM_OK;
}

/* A variable subscription's result: the object, then its variables. */
static int read_variables(sim_traci_reader *r, int response, size_t end, sim_traci_object_fn fn, void *user,
                          sim_error *err)
{
    sim_traci_object o;
    memset(&o, 0, sizeof o);
    o.response = response;
    int n_vars, rc;
    if ((rc = sim_traci_read_string(r, &o.id, &o.id_len, err)) || (rc = sim_traci_read_u8(r, &n_vars, err)))
        return rc;
    if (n_vars > SIM_TRACI_MAX_VARS)
        return sim_error_set(err, SIM_EINVAL, "TraCI: %d variables per object, at most %d read", n_vars,
                             SIM_TRACI_MAX_VARS);
    if ((rc = read_object_vars(r, &o, n_vars, err))) return rc;
    if (r->pos > end) return sim_error_set(err, SIM_EINVAL, "TraCI: an object runs past its subscription");
    return fn ? fn(&o, user) : SIM_OK;
}

static int read_context(sim_traci_reader *r, int response, size_t end, sim_traci_object_fn fn, void *user,
                        sim_error *err)
{
    const char *ego;
    int32_t ego_len, n_obj;
    int domain, n_vars, rc;
    if ((rc = sim_traci_read_string(r, &ego, &ego_len, err)) || (rc = sim_traci_read_u8(r, &domain, err)) ||
        (rc = sim_traci_read_u8(r, &n_vars, err)) || (rc = sim_traci_read_i32(r, &n_obj, err)))
        return rc;
    if (n_vars > SIM_TRACI_MAX_VARS)
        return sim_error_set(err, SIM_EINVAL, "TraCI: %d variables per object, at most %d read", n_vars,
                             SIM_TRACI_MAX_VARS);
    if (n_obj < 0 || (size_t)n_obj > (end - r->pos) / 4)
        return sim_error_set(err, SIM_EINVAL, "TraCI: %d objects in %zu bytes", n_obj, end - r->pos);
    sim_traci_object o;
    for (int32_t k = 0; k < n_obj; k++) {
        memset(&o, 0, sizeof o);
        o.response = response;
        o.domain = domain;
        if ((rc = sim_traci_read_string(r, &o.id, &o.id_len, err)) || (rc = read_object_vars(r, &o, n_vars, err)))
            return rc;
        if (r->pos > end) return sim_error_set(err, SIM_EINVAL, "TraCI: an object runs past its subscription");
        if (fn && (rc = fn(&o, user))) return rc;
    }
    return SIM_OK;
}

int sim_traci_read_subscription(sim_traci_reader *r, sim_traci_object_fn fn, void *user, sim_error *err)
{
    int id;
    size_t end;
    int rc = sim_traci_read_cmd(r, &id, &end, err);
    if (rc) return rc;
    /* context results are 0x90..0x9f, variable results 0xe0..0xef (any domain) */
    bool context = id >= 0x90 && id <= 0x9f, variables = id >= 0xe0 && id <= 0xef;
    if (context || variables) {
        /* a sub-reader bounded by the command, so nothing reads past it */
        sim_traci_reader sub = {.p = r->p, .len = end, .pos = r->pos};
        rc = context ? read_context(&sub, id, end, fn, user, err) : read_variables(&sub, id, end, fn, user, err);
        if (rc) return rc;
        if (sub.pos != end)
            return sim_error_set(err, SIM_EINVAL, "TraCI: %zu bytes left over in a subscription result",
                                 end - sub.pos);
    }
    r->pos = end; /* anything else is skipped whole */
    return SIM_OK;
}

int sim_traci_read_step(sim_traci_reader *r, sim_traci_object_fn fn, void *user, sim_error *err)
{
    int32_t n;
    int rc = sim_traci_read_i32(r, &n, err);
    if (rc) return rc;
    if (n < 0 || (size_t)n > (r->len - r->pos) / 2)
        return sim_error_set(err, SIM_EINVAL, "TraCI: %d subscription results in %zu bytes", n, r->len - r->pos);
    for (int32_t k = 0; k < n; k++)
        if ((rc = sim_traci_read_subscription(r, fn, user, err))) return rc;
    return SIM_OK;
}
