/* sumo_lights: SUMO's traffic lights as heads on signal.state (sumo_lights.h). */
#include "sumo_lights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg.h"
#include "sumo.h"

#define MAX_SHAPE 4096    /* points of one lane's shape */
#define KERB_GAP 0.7      /* m from the rightmost lane's edge to the first post */
#define POST_STEP 0.45    /* m between the posts of one approach */

int tn_sumo_light_letter(char c)
{
    switch (c) {
    case 'r':
    case 's': return SIM_SIGNAL_RED;
    case 'y': return SIM_SIGNAL_AMBER;
    case 'u': return SIM_SIGNAL_RED_AMBER;
    case 'g':
    case 'G': return SIM_SIGNAL_GREEN;
    case 'o': return SIM_SIGNAL_FLASHING_AMBER;
    case 'O': return SIM_SIGNAL_OFF;
    default: return -1;
    }
}

/* The unit direction of a lane's last segment and its right-hand normal. */
static void lane_frame(const double l[2][2], double d[2], double n[2])
{
    double dx = l[1][0] - l[0][0], dy = l[1][1] - l[0][1], len = hypot(dx, dy);
    if (!(len > 1e-9)) dx = 1, dy = 0, len = 1;
    d[0] = dx / len, d[1] = dy / len;
    n[0] = d[1], n[1] = -d[0];
}

void tn_sumo_head_place(const double lane[2][2], double lane_w, const double kerb_lane[2][2], double kerb_w,
                        int before, sim_msg_signal_where *w)
{
    double d[2], n[2], kd[2], kn[2];
    lane_frame(lane, d, n);
    lane_frame(kerb_lane, kd, kn);
    const double *e = lane[1], *k = kerb_lane[1];
    for (int i = 0; i < 2; i++) {
        w->stop_a[i] = e[i] + 0.5 * lane_w * n[i]; /* the right end, then the left */
        w->stop_b[i] = e[i] - 0.5 * lane_w * n[i];
        w->pos[i] = k[i] + (0.5 * kerb_w + KERB_GAP + POST_STEP * before) * kn[i];
    }
    w->pos[2] = w->stop_a[2] = w->stop_b[2] = 0;
    w->heading = atan2(-kd[1], -kd[0]); /* facing the traffic that comes along the lane */
}

bool tn_sumo_crossed_line(const sim_msg_signal_where *w, const double p0[2], const double p1[2])
{
    double a[2] = {w->stop_a[0], w->stop_a[1]}, b[2] = {w->stop_b[0], w->stop_b[1]};
    double u[2] = {-cos(w->heading), -sin(w->heading)}; /* the traffic's direction */
    double m[2] = {p1[0] - p0[0], p1[1] - p0[1]};
    if (m[0] * u[0] + m[1] * u[1] <= 0) return false;
    /* p0 -> p1 and a -> b intersect: each one's ends on both sides of the other (p1 on
     * the line counts as across) */
    double s0 = (b[0] - a[0]) * (p0[1] - a[1]) - (b[1] - a[1]) * (p0[0] - a[0]);
    double s1 = (b[0] - a[0]) * (p1[1] - a[1]) - (b[1] - a[1]) * (p1[0] - a[0]);
    double t0 = m[0] * (a[1] - p0[1]) - m[1] * (a[0] - p0[0]);
    double t1 = m[0] * (b[1] - p0[1]) - m[1] * (b[0] - p0[0]);
    bool across = (s0 < 0 && s1 >= 0) || (s0 > 0 && s1 <= 0);
    return across && (t0 > 0) != (t1 > 0);
}

void tn_sumo_lights_free(tn_sumo_lights *L)
{
    free(L->ids);
    free(L->heads);
    memset(L, 0, sizeof *L);
    L->red_run = -1;
}

static int exchange(tn_sumo *s, sim_traci_reader *r, sim_error *err)
{
    size_t len;
    int rc = sim_traci_msg_end(&s->out, err);
    if (rc || (rc = tn_sumo_exchange(s, &len, err))) return rc;
    return sim_traci_reader_init(r, s->in, len, err);
}

static void copy_str(char *dst, size_t cap, sim_traci_str src)
{
    size_t n = (size_t)src.len < cap - 1 ? (size_t)src.len : cap - 1;
    memcpy(dst, src.s, n);
    dst[n] = 0;
}

static int on_id(int index, sim_traci_str id, void *user)
{
    tn_sumo_lights *L = user;
    copy_str(L->ids[index], sizeof L->ids[index], id);
    L->n_ids = index + 1;
    return 0;
}

static int count_id(int index, sim_traci_str id, void *user)
{
    (void)id;
    *(int *)user = index + 1;
    return 0;
}

typedef struct link_walk {
    tn_sumo_lights *L;
    int light;
    sim_error *err;
} link_walk;

/* The first link of each signal index makes its head; pedestrian crossings (their
 * incoming "lane" is a walking area, internal, ':') have no stop line for cars. */
static int on_link(const sim_traci_link *l, void *user)
{
    link_walk *w = user;
    tn_sumo_lights *L = w->L;
    if (l->from.len == 0 || l->from.s[0] == ':') return 0;
    if (L->n_heads && L->heads[L->n_heads - 1].light == w->light && L->heads[L->n_heads - 1].signal == l->signal)
        return 0;
    if (L->n_heads == L->cap_heads) {
        int cap = L->cap_heads ? 2 * L->cap_heads : 64;
        tn_sumo_head *h = realloc(L->heads, (size_t)cap * sizeof *h);
        if (!h) return sim_error_set(w->err, SIM_ENOMEM, "out of memory for SUMO's traffic lights");
        L->heads = h;
        L->cap_heads = cap;
    }
    tn_sumo_head *h = &L->heads[L->n_heads++];
    memset(h, 0, sizeof *h);
    h->light = w->light;
    h->signal = l->signal;
    copy_str(h->from_lane, sizeof h->from_lane, l->from);
    snprintf(h->id, sizeof h->id, "sumo:%.40s:%d", L->ids[w->light], l->signal);
    return 0;
}

/* "EDGE_INDEX" -> the index; the edge's length into *edge_len. */
static int lane_index(const char *lane, size_t *edge_len)
{
    const char *u = strrchr(lane, '_');
    *edge_len = u ? (size_t)(u - lane) : strlen(lane);
    return u ? atoi(u + 1) : 0;
}

/* The rightmost incoming lane among the heads of head h's approach (its edge), and how
 * many heads of that approach come before h. */
static int kerb_of(const tn_sumo_lights *L, int h, int *before)
{
    size_t el, ol;
    lane_index(L->heads[h].from_lane, &el);
    int best = h, best_i = 1 << 30;
    *before = 0;
    for (int k = 0; k < L->n_heads; k++) {
        int i = lane_index(L->heads[k].from_lane, &ol);
        if (ol != el || memcmp(L->heads[k].from_lane, L->heads[h].from_lane, el) != 0) continue;
        if (i < best_i) best_i = i, best = k;
        if (k < h) (*before)++;
    }
    return best;
}

/* The last segment and width of each head's incoming lane, in one message. */
static int place_heads(tn_sumo *s, sim_error *err)
{
    tn_sumo_lights *L = &s->lights;
    if (!L->n_heads) return SIM_OK;
    double (*last)[2][2] = calloc((size_t)L->n_heads, sizeof *last), *width = calloc((size_t)L->n_heads, sizeof *width);
    double (*xy)[2] = malloc(MAX_SHAPE * sizeof *xy);
    int rc = SIM_OK;
    if (!last || !width || !xy) rc = sim_error_set(err, SIM_ENOMEM, "out of memory for SUMO's traffic lights");
    sim_traci_reader r;
    if (!rc) {
        sim_traci_msg_begin(&s->out);
        for (int h = 0; h < L->n_heads; h++) {
            sim_traci_cmd_get(&s->out, SIM_TRACI_CMD_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, L->heads[h].from_lane);
            sim_traci_cmd_get(&s->out, SIM_TRACI_CMD_GET_LANE_VARIABLE, SIM_TRACI_VAR_WIDTH, L->heads[h].from_lane);
        }
        rc = exchange(s, &r, err);
    }
    for (int h = 0; h < L->n_heads && !rc; h++) {
        int n;
        sim_traci_value v;
        if ((rc = sim_traci_read_status(&r, SIM_TRACI_CMD_GET_LANE_VARIABLE, err)) ||
            (rc = sim_traci_read_shape(&r, SIM_TRACI_RESPONSE_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, xy, MAX_SHAPE, &n,
                                       err)) ||
            (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_GET_LANE_VARIABLE, err)) ||
            (rc = sim_traci_read_get(&r, SIM_TRACI_RESPONSE_GET_LANE_VARIABLE, SIM_TRACI_VAR_WIDTH, &v, err)))
            break;
        if (n < 2) {
            rc = sim_error_set(err, SIM_EINVAL, "SUMO's lane %s (light %s) has a shape of %d points, expected 2 or more",
                               L->heads[h].from_lane, L->ids[L->heads[h].light], n);
            break;
        }
        for (int k = 0; k < 2; k++) {
            last[h][k][0] = xy[n - 2 + k][0] - s->off_x;
            last[h][k][1] = xy[n - 2 + k][1] - s->off_y;
        }
        width[h] = v.type == SIM_TRACI_TYPE_DOUBLE && v.d > 0 ? v.d : 3.2;
    }
    for (int h = 0; h < L->n_heads && !rc; h++) {
        tn_sumo_head *hd = &L->heads[h];
        int before, k = kerb_of(L, h, &before);
        tn_sumo_head_place((const double(*)[2])last[h], width[h], (const double(*)[2])last[k], width[k], before,
                           &hd->where);
        sim_ground g;
        sim_scenario_ground(s->sc, hd->where.pos[0], hd->where.pos[1], &g);
        hd->where.pos[2] = g.z;
        double mid[2] = {0.5 * (hd->where.stop_a[0] + hd->where.stop_b[0]),
                         0.5 * (hd->where.stop_a[1] + hd->where.stop_b[1])};
        sim_scenario_ground(s->sc, mid[0], mid[1], &g);
        hd->where.stop_a[2] = hd->where.stop_b[2] = g.z;
        if (g.on_road && g.road >= 0) snprintf(hd->road, sizeof hd->road, "%s", s->sc->net.roads[g.road].id);
        /* to the millimetre, as traffic.state: the same bytes every run */
        double *v[] = {hd->where.pos, hd->where.stop_a, hd->where.stop_b};
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) v[a][c] = round(v[a][c] * 1000) / 1000;
        hd->where.heading = round(hd->where.heading * 1e4) / 1e4;
    }
    free(last);
    free(width);
    free(xy);
    return rc;
}

int tn_sumo_lights_setup(tn_sumo *s, sim_error *err)
{
    tn_sumo_lights *L = &s->lights;
    tn_sumo_lights_free(L);
    sim_traci_reader r;
    int n = 0, rc;
    /* the ids: counted first, then kept (the answer stays in s->in until the next exchange) */
    sim_traci_msg_begin(&s->out);
    sim_traci_cmd_get(&s->out, SIM_TRACI_CMD_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, "");
    if ((rc = exchange(s, &r, err)) || (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_GET_TL_VARIABLE, err))) return rc;
    size_t at = r.pos;
    if ((rc = sim_traci_read_get_strings(&r, SIM_TRACI_RESPONSE_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, count_id, &n, err)))
        return rc;
    if (n == 0) return SIM_OK;
    if (!(L->ids = calloc((size_t)n, sizeof *L->ids)))
        return sim_error_set(err, SIM_ENOMEM, "out of memory for SUMO's traffic lights");
    r.pos = at;
    if ((rc = sim_traci_read_get_strings(&r, SIM_TRACI_RESPONSE_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, on_id, L, err)))
        return rc;
    sim_traci_msg_begin(&s->out);
    for (int i = 0; i < L->n_ids; i++)
        sim_traci_cmd_get(&s->out, SIM_TRACI_CMD_GET_TL_VARIABLE, SIM_TRACI_TL_CONTROLLED_LINKS, L->ids[i]);
    if ((rc = exchange(s, &r, err))) return rc;
    for (int i = 0; i < L->n_ids; i++) {
        link_walk w = {.L = L, .light = i, .err = err};
        if ((rc = sim_traci_read_status(&r, SIM_TRACI_CMD_GET_TL_VARIABLE, err)) ||
            (rc = sim_traci_read_tl_links(&r, on_link, &w, err)))
            return rc;
    }
    if ((rc = place_heads(s, err))) return rc;
    /* one variable subscription per light: its state string with every step */
    static const uint8_t vars[] = {SIM_TRACI_TL_RED_YELLOW_GREEN_STATE};
    sim_traci_msg_begin(&s->out);
    for (int i = 0; i < L->n_ids; i++)
        sim_traci_cmd_subscribe_variables(&s->out, SIM_TRACI_CMD_SUBSCRIBE_TL_VARIABLE, L->ids[i], 0, 1e9, vars, 1);
    if ((rc = exchange(s, &r, err))) return rc;
    for (int i = 0; i < L->n_ids; i++) {
        if ((rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SUBSCRIBE_TL_VARIABLE, err)) ||
            (rc = sim_traci_read_subscription(&r, NULL, NULL, err)))
            return rc;
    }
    return SIM_OK;
}

bool tn_sumo_lights_on_object(tn_sumo *s, const sim_traci_object *o)
{
    if (o->response != SIM_TRACI_RESPONSE_SUBSCRIBE_TL_VARIABLE) return false;
    tn_sumo_lights *L = &s->lights;
    if (o->n_vars != 1 || !o->ok[0] || o->value[0].type != SIM_TRACI_TYPE_STRING) return true;
    int light = -1;
    for (int i = 0; i < L->n_ids && light < 0; i++)
        if ((size_t)o->id_len == strlen(L->ids[i]) && memcmp(o->id, L->ids[i], (size_t)o->id_len) == 0) light = i;
    if (light < 0) return true;
    const sim_traci_value *v = &o->value[0];
    for (int h = 0; h < L->n_heads; h++) {
        tn_sumo_head *hd = &L->heads[h];
        if (hd->light != light || hd->signal >= v->s_len) continue;
        int st = tn_sumo_light_letter(v->s[hd->signal]);
        if (st < 0) st = SIM_SIGNAL_OFF;
        if (!hd->known || hd->state != (sim_light_state)st) hd->changed = true;
        hd->state = (sim_light_state)st;
        hd->known = true;
    }
    return true;
}

void tn_sumo_lights_after_step(tn_sumo *s)
{
    tn_sumo_lights *L = &s->lights;
    if (!s->ego.valid) {
        L->have_front = false;
        return;
    }
    double f[2] = {s->ego.x + 0.5 * s->ego.length * cos(s->ego.heading),
                   s->ego.y + 0.5 * s->ego.length * sin(s->ego.heading)};
    if (L->have_front && L->red_run < 0) {
        for (int h = 0; h < L->n_heads; h++) {
            const tn_sumo_head *hd = &L->heads[h];
            if (hd->known && (hd->state == SIM_SIGNAL_RED || hd->state == SIM_SIGNAL_RED_AMBER) &&
                tn_sumo_crossed_line(&hd->where, L->front, f)) {
                L->red_run = h;
                L->red_run_speed = s->ego.speed;
                break;
            }
        }
    }
    L->front[0] = f[0], L->front[1] = f[1];
    L->have_front = true;
}

cJSON *tn_sumo_light_payload(tn_sumo *s, int h)
{
    tn_sumo_head *hd = &s->lights.heads[h];
    sim_msg_signal_state m = {.phase = SIM_MSG_NO_INT};
    snprintf(m.id, sizeof m.id, "%s", hd->id);
    snprintf(m.state, sizeof m.state, "%s", sim_light_state_name(hd->state));
    snprintf(m.controller, sizeof m.controller, "sumo:%.58s", s->lights.ids[hd->light]);
    hd->changed = false;
    return sim_msg_signal_state_encode_where(&m, &hd->where);
}

cJSON *tn_sumo_red_run_payload(tn_sumo *s)
{
    tn_sumo_lights *L = &s->lights;
    if (L->red_run < 0) return NULL;
    const tn_sumo_head *hd = &L->heads[L->red_run];
    sim_msg_signal_red_run m = {.speed = L->red_run_speed};
    snprintf(m.head, sizeof m.head, "%s", hd->id);
    snprintf(m.road, sizeof m.road, "%s", hd->road);
    L->red_run = -1;
    return sim_msg_signal_red_run_encode(&m);
}
