/* sim_traci_tls: the TraCI commands and answers for SUMO's traffic lights, lanes and
 * persons (sim_traci.h, "traffic lights, lanes, persons"): generic gets and
 * subscriptions, string lists, a light's controlled links, a lane's shape. Like the
 * rest of the reader, every length is checked against what is left. */
#include "sim_traci.h"
#include "sim_traci_put.h"

void sim_traci_cmd_get(sim_traci_buf *b, int cmd, int var, const char *obj)
{
    sim_traci_cmd_end(b, sim_traci_var_cmd(b, cmd, var, obj));
}

void sim_traci_cmd_subscribe_variables(sim_traci_buf *b, int cmd, const char *obj, double begin, double end,
                                       const uint8_t *vars, int n_vars)
{
    size_t at = sim_traci_cmd_begin(b, cmd);
    sim_traci_put_f64(b, begin);
    sim_traci_put_f64(b, end);
    sim_traci_put_str(b, obj);
    sim_traci_put_u8(b, n_vars);
    for (int i = 0; i < n_vars; i++) sim_traci_put_u8(b, vars[i]);
    sim_traci_cmd_end(b, at);
}

void sim_traci_cmd_subscribe_context(sim_traci_buf *b, int cmd, const char *obj, int domain, double begin,
                                     double end, double range, const uint8_t *vars, int n_vars)
{
    size_t at = sim_traci_cmd_begin(b, cmd);
    sim_traci_put_f64(b, begin);
    sim_traci_put_f64(b, end);
    sim_traci_put_str(b, obj);
    sim_traci_put_u8(b, domain);
    sim_traci_put_f64(b, range);
    sim_traci_put_u8(b, n_vars);
    for (int i = 0; i < n_vars; i++) sim_traci_put_u8(b, vars[i]);
    sim_traci_cmd_end(b, at);
}

/* A get's answer up to its value: response id, variable, object; *end where it ends. */
static int get_head(sim_traci_reader *r, int response, int var, size_t *end, sim_error *err)
{
    int cid, vid;
    sim_traci_str obj;
    int rc = sim_traci_read_cmd(r, &cid, end, err);
    if (rc || (rc = sim_traci_read_u8(r, &vid, err)) || (rc = sim_traci_read_string(r, &obj.s, &obj.len, err)))
        return rc;
    if (cid != response || vid != var)
        return sim_error_set(err, SIM_EINVAL, "TraCI: answer 0x%02x/0x%02x where 0x%02x/0x%02x was expected", cid, vid,
                             response, var);
    return SIM_OK;
}

static int get_tail(sim_traci_reader *r, size_t end, sim_error *err)
{
    if (r->pos > end) return sim_error_set(err, SIM_EINVAL, "TraCI: a value runs past its command");
    r->pos = end;
    return SIM_OK;
}

static int expect_type(sim_traci_reader *r, int want, const char *what, sim_error *err)
{
    int t, rc = sim_traci_read_u8(r, &t, err);
    if (rc) return rc;
    if (t != want)
        return sim_error_set(err, SIM_EINVAL, "TraCI: %s is a value of type 0x%02x at byte %zu, expected 0x%02x", what,
                             t, r->pos - 1, want);
    return SIM_OK;
}

/* A count of items each at least min_bytes long, checked against what is left. */
static int read_count(sim_traci_reader *r, size_t min_bytes, const char *what, int32_t *n, sim_error *err)
{
    int rc = sim_traci_read_i32(r, n, err);
    if (rc) return rc;
    if (*n < 0 || (size_t)*n > (r->len - r->pos) / min_bytes)
        return sim_error_set(err, SIM_EINVAL, "TraCI: %d %s at byte %zu, %zu bytes left", *n, what, r->pos,
                             r->len - r->pos);
    return SIM_OK;
}

static int read_strings(sim_traci_reader *r, int32_t n, sim_traci_str *out, int cap, sim_traci_string_fn fn,
                        void *user, sim_error *err)
{
    for (int32_t k = 0; k < n; k++) {
        sim_traci_str s;
        int rc = sim_traci_read_string(r, &s.s, &s.len, err);
        if (rc) return rc;
        if (out && k < cap) out[k] = s;
        if (fn && (rc = fn((int)k, s, user))) return rc;
    }
    return SIM_OK;
}

int sim_traci_read_get_strings(sim_traci_reader *r, int response, int var, sim_traci_string_fn fn, void *user,
                               sim_error *err)
{
    size_t end;
    int32_t n;
    int rc = get_head(r, response, var, &end, err);
    if (rc || (rc = expect_type(r, SIM_TRACI_TYPE_STRINGLIST, "the list", err)) ||
        (rc = read_count(r, 4, "strings", &n, err)) || (rc = read_strings(r, n, NULL, 0, fn, user, err)))
        return rc;
    return get_tail(r, end, err);
}

/* SUMO 1.15 (as sent by the real sumo, see test_traci): a compound of N items, where
 * the first is the integer-typed number of signals, then per signal an integer-typed
 * count of links and each link as a typed string list of three lanes. */
int sim_traci_read_tl_links(sim_traci_reader *r, sim_traci_link_fn fn, void *user, sim_error *err)
{
    size_t end;
    int32_t n_signals, n_links, n_lanes;
    int rc = get_head(r, SIM_TRACI_RESPONSE_GET_TL_VARIABLE, SIM_TRACI_TL_CONTROLLED_LINKS, &end, err);
    int32_t n_items;
    if (rc || (rc = expect_type(r, SIM_TRACI_TYPE_COMPOUND, "the controlled links", err)) ||
        (rc = read_count(r, 5, "items", &n_items, err)) ||
        (rc = expect_type(r, SIM_TRACI_TYPE_INTEGER, "the number of signals", err)) ||
        (rc = read_count(r, 5, "signals", &n_signals, err)))
        return rc;
    for (int32_t i = 0; i < n_signals; i++) {
        if ((rc = expect_type(r, SIM_TRACI_TYPE_INTEGER, "a signal's link count", err)) ||
            (rc = read_count(r, 5, "links", &n_links, err)))
            return rc;
        for (int32_t k = 0; k < n_links; k++) {
            sim_traci_str lanes[3] = {{"", 0}, {"", 0}, {"", 0}};
            if ((rc = expect_type(r, SIM_TRACI_TYPE_STRINGLIST, "a link", err)) ||
                (rc = read_count(r, 4, "lanes of a link", &n_lanes, err)))
                return rc;
            if (n_lanes != 3)
                return sim_error_set(err, SIM_EINVAL, "TraCI: a link of %d lanes at byte %zu, expected 3", n_lanes,
                                     r->pos);
            if ((rc = read_strings(r, n_lanes, lanes, 3, NULL, NULL, err))) return rc;
            sim_traci_link l = {.signal = (int)i, .from = lanes[0], .to = lanes[1], .via = lanes[2]};
            if (r->pos > end) return sim_error_set(err, SIM_EINVAL, "TraCI: a link runs past its command");
            if (fn && (rc = fn(&l, user))) return rc;
        }
    }
    return get_tail(r, end, err);
}

int sim_traci_read_shape(sim_traci_reader *r, int response, int var, double (*xy)[2], int cap, int *n, sim_error *err)
{
    size_t end;
    int count;
    *n = 0;
    int rc = get_head(r, response, var, &end, err);
    if (rc || (rc = expect_type(r, SIM_TRACI_TYPE_POLYGON, "the shape", err)) ||
        (rc = sim_traci_read_u8(r, &count, err)))
        return rc;
    if (count == 0) { /* past 255 points: 0, then a 4-byte count */
        int32_t c32;
        if ((rc = read_count(r, 16, "points", &c32, err))) return rc;
        count = (int)c32;
    }
    if ((size_t)count > (r->len - r->pos) / 16)
        return sim_error_set(err, SIM_EINVAL, "TraCI: a shape of %d points at byte %zu, %zu bytes left", count, r->pos,
                             r->len - r->pos);
    if (count > cap) return sim_error_set(err, SIM_ETOOBIG, "TraCI: a shape of %d points, at most %d read", count, cap);
    for (int i = 0; i < count; i++)
        if ((rc = sim_traci_read_f64(r, &xy[i][0], err)) || (rc = sim_traci_read_f64(r, &xy[i][1], err))) return rc;
    *n = count;
    return get_tail(r, end, err);
}
