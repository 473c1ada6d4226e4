/* sim_traffic: the traffic world, its sorted neighbour index and the step (see
 * sim_traffic.h; the agents' decisions are in sim_traffic_drive.c, ambient traffic and
 * triggers in sim_traffic_world.c). */
#include "sim_traffic_impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

const sim_traffic_vmodel sim_traffic_vmodels[] = {
    {"car", 4.5, 1.8, 1.5},  {"van", 5.2, 2.0, 2.2},     {"truck", 16.5, 2.55, 4.0},
    {"bus", 12.0, 2.55, 3.2}, {"bicycle", 1.8, 0.6, 1.7}, {"motorcycle", 2.2, 0.8, 1.4},
};
const int sim_traffic_n_vmodels = (int)(sizeof sim_traffic_vmodels / sizeof *sim_traffic_vmodels);

int sim_traffic_vmodel_find(const char *name)
{
    for (int i = 0; name && i < sim_traffic_n_vmodels; i++)
        if (strcmp(sim_traffic_vmodels[i].name, name) == 0) return i;
    return 0;
}

void sim_traffic_params_default(sim_traffic_params *p)
{
    memset(p, 0, sizeof *p);
    p->model = SIM_TRAFFIC_ZONES;
    p->seed = 1;
    p->max_agents = 1024;
    p->emergency_decel = 9.0;
    p->lat_accel = 2.0;
    p->reaction_time = 0.3;
    p->warning_time = 3.0;
    p->detect_radius = 150.0;
    p->lane_change_time = 4.0;
    p->safe_decel = 3.0;
    p->approach_dist = 35.0;
    p->ambient_radius = 600.0;
    p->ambient_min_dist = 150.0;
}

void sim_traffic_free(sim_traffic *t)
{
    free(t->agents);
    free(t->route_pool);
    free(t->idx);
    free(t->idx_tmp);
    free(t->lane_start);
    free(t->lane_count);
    free(t->occ);
    free(t->spawn_pts);
    free(t->fired);
    free(t->ego_in);
    free(t->stamp);
    memset(t, 0, sizeof *t);
}

int sim_traffic_init(sim_traffic *t, const sim_lanegraph *g, const sim_traffic_params *p,
                     sim_error *err)
{
    memset(t, 0, sizeof *t);
    t->ego_ran_red = -1;
    if (p->max_agents < 1 || p->max_agents > 10000000)
        return sim_error_set(err, SIM_ERANGE, "traffic: max_agents %d, expected 1 to 10000000", p->max_agents);
    if (g->n_lanes < 1) return sim_error_set(err, SIM_EINVAL, "traffic: the road network has no driving lane");
    t->g = g;
    t->p = *p;
    t->cap = p->max_agents;
    size_t n_ent = 2 * (size_t)t->cap + 2;
    t->agents = calloc((size_t)t->cap, sizeof *t->agents);
    t->idx = calloc(n_ent, sizeof *t->idx);
    t->idx_tmp = calloc(n_ent, sizeof *t->idx_tmp);
    t->lane_start = calloc((size_t)g->n_lanes + 1, sizeof *t->lane_start);
    t->lane_count = calloc((size_t)g->n_lanes + 1, sizeof *t->lane_count);
    t->occ = calloc((size_t)g->n_lanes, sizeof *t->occ);
    t->spawn_pts = calloc((size_t)g->n_pts + 1, sizeof *t->spawn_pts);
    t->stamp = calloc((size_t)t->cap + 1, sizeof *t->stamp);
    if (!t->agents || !t->idx || !t->idx_tmp || !t->lane_start || !t->lane_count || !t->occ ||
        !t->spawn_pts || !t->stamp) {
        sim_traffic_free(t);
        return sim_error_set(err, SIM_ENOMEM, "traffic: out of memory for %d agents", p->max_agents);
    }
    t->density_scale = 1.0;
    t->rng = sim_rand_mix(p->seed) | 1;
    t->next_uid = 1;
    return SIM_OK;
}

void sim_traffic_set_triggers(sim_traffic *t, const sim_traffic_trigger *tr, int n)
{
    free(t->fired);
    free(t->ego_in);
    t->fired = calloc((size_t)n + 1, sizeof *t->fired);
    t->ego_in = calloc((size_t)n + 1, sizeof *t->ego_in);
    t->triggers = t->fired && t->ego_in ? tr : NULL;
    t->n_triggers = t->triggers ? n : 0;
}

int sim_traffic_add_agent(sim_traffic *t, const sim_traffic_spec *spec, bool ambient, sim_error *err)
{
    const sim_lanegraph *g = t->g;
    if (spec->lane < 0 || spec->lane >= g->n_lanes || !(spec->s >= 0) || spec->s > g->lanes[spec->lane].length)
        return sim_error_set(err, SIM_EINVAL, "traffic: agent at lane %d s %g: no such place", spec->lane, spec->s);
    int slot = -1;
    for (int i = 0; i < t->n_slots && ambient; i++) /* reuse a free slot (scenario agents keep theirs) */
        if (!t->agents[i].active && t->agents[i].ambient) {
            slot = i;
            break;
        }
    if (slot < 0) {
        if (t->n_slots == t->cap) return sim_error_set(err, SIM_ETOOBIG, "traffic: full (%d agents)", t->cap);
        slot = t->n_slots++;
    }
    if (spec->n_route > 0) {
        if (t->n_route_pool + spec->n_route > t->cap_route_pool) {
            int cap = t->cap_route_pool ? t->cap_route_pool : 64;
            while (cap < t->n_route_pool + spec->n_route) cap *= 2;
            int *pool = realloc(t->route_pool, (size_t)cap * sizeof *pool);
            if (!pool) return sim_error_set(err, SIM_ENOMEM, "traffic: out of memory");
            t->route_pool = pool;
            t->cap_route_pool = cap;
        }
    }
    sim_traffic_agent *a = &t->agents[slot];
    memset(a, 0, sizeof *a);
    const sim_traffic_vmodel *m = &sim_traffic_vmodels[spec->model >= 0 && spec->model < sim_traffic_n_vmodels ? spec->model : 0];
    a->active = true;
    a->ambient = ambient;
    a->uid = t->next_uid++;
    a->model = (int)(m - sim_traffic_vmodels);
    a->length = m->length;
    a->width = m->width;
    a->height = m->height;
    a->b = spec->b;
    a->lane = spec->lane;
    a->s = spec->s;
    a->v = spec->speed >= 0 ? spec->speed : spec->b.desired_speed;
    a->lane2 = a->want_lane = a->reserved = -1;
    a->wait_since = -1;
    a->vcap_lane = -1;
    a->rng = sim_rand_mix((uint64_t)t->p.seed << 32 ^ a->uid) | 1;
    if (spec->n_route > 0) {
        memcpy(t->route_pool + t->n_route_pool, spec->route, (size_t)spec->n_route * sizeof *spec->route);
        a->route0 = t->n_route_pool;
        a->n_route = spec->n_route;
        t->n_route_pool += spec->n_route;
        tr_route_enter(a, t->route_pool, g->lanes[a->lane].road);
    }
    bool stuck;
    a->next_lane = tr_choose_next(t, a, a->lane, &stuck);
    sim_lanegraph_pose(g, a->lane, a->s, 0, &a->x, &a->y, &a->heading);
    a->prev_lane = a->lane;
    a->prev_s = a->s;
    t->n_active++;
    if (ambient) t->n_ambient++;
    return slot;
}


/* How far ahead the ego's sideways motion is foreseen: agents treat it as in the lane
 * it is drifting into this many seconds before it gets there. */
#define EGO_FORESIGHT_S 1.0

void sim_traffic_set_ego(sim_traffic *t, double x, double y, double heading, double speed,
                         double length, double width)
{
    sim_traffic_ego *e = &t->ego;
    int hint = e->valid && e->on_lane ? e->pos.lane : -1;
    bool had_prev = e->valid && e->on_lane;
    sim_lg_pos prev = e->pos;
    if (speed < 0) { /* moving backwards (a car spun round): its direction of motion counts */
        heading += M_PI;
        speed = -speed;
    }
    e->valid = true;
    e->x = x;
    e->y = y;
    e->heading = heading;
    e->speed = speed;
    e->length = length;
    e->width = width;
    e->lane2 = -1;
    /* The lane whose direction matches the ego's (not the oncoming one beside it). */
    e->on_lane = sim_lanegraph_locate(t->g, x, y, hint, 0.5, &e->pos);
    if (e->on_lane && cos(e->pos.heading - heading) < 0) e->on_lane = false;
    if (!e->on_lane) return;
    tr_ego_crossed(t, had_prev, &prev);
    const sim_lg_lane *l = &t->g->lanes[e->pos.lane];
    /* Where it will be: drifting sideways it already counts in the lane it drifts into. */
    double lat = e->pos.lat + EGO_FORESIGHT_S * speed * sin(heading - e->pos.heading);
    if (fabs(lat) < fabs(e->pos.lat)) lat = e->pos.lat;
    double edge = fabs(lat) + 0.5 * width - 0.5 * l->width;
    if (edge > 0) e->lane2 = lat > 0 ? l->left : l->right;
}

/* ---- the sorted neighbour index --------------------------------------------------- */

/* The (up to two) entries an agent (or the ego) has in the index now. */
static int entries_of(const sim_traffic *t, int agent, sim_tidx out[2])
{
    int n = 0;
    if (agent == TR_EGO(t)) {
        if (!t->ego.valid || !t->ego.on_lane) return 0;
        out[n++] = (sim_tidx){agent, t->ego.pos.lane, t->ego.pos.s};
        if (t->ego.lane2 >= 0) out[n++] = (sim_tidx){agent, t->ego.lane2, t->ego.pos.s};
        return n;
    }
    const sim_traffic_agent *a = &t->agents[agent];
    if (!a->active) return 0;
    out[n++] = (sim_tidx){agent, a->lane, a->s};
    if (a->lane2 >= 0) out[n++] = (sim_tidx){agent, a->lane2, a->s2};
    return n;
}

static bool before(const sim_tidx *a, const sim_tidx *b)
{
    return a->s < b->s || (a->s == b->s && a->agent < b->agent);
}

static void insertion_sort(sim_tidx *e, int n)
{
    for (int k = 1; k < n; k++) {
        sim_tidx x = e[k];
        int j = k - 1;
        while (j >= 0 && before(&x, &e[j])) {
            e[j + 1] = e[j];
            j--;
        }
        e[j + 1] = x;
    }
}

/* The index, rebuilt each step in linear time while few vehicles pass each other in
 * one step: entries still in the lane they were in come first, in last step's order
 * (nearly sorted: an insertion sort), entries new to a lane (lane changes, lane ends,
 * new agents) after them; both are counted into lanes (stable), sorted, and merged.
 * stamp[agent] says which of its entries were placed this step (bits 0 and 1). */
static void index_build(sim_traffic *t)
{
    uint32_t step = ((uint32_t)t->steps + 1) << 2;
    int nl = t->g->n_lanes, n = 0;
    memset(t->lane_count, 0, (size_t)(nl + 1) * sizeof *t->lane_count);
    for (int k = 0; k < t->n_idx; k++) {
        int a = t->idx[k].agent, lane = t->idx[k].lane;
        sim_tidx e[2];
        int ne = entries_of(t, a, e);
        if ((t->stamp[a] & ~3u) != step) t->stamp[a] = step;
        for (int i = 0; i < ne; i++)
            if (e[i].lane == lane && !(t->stamp[a] & (1u << i))) {
                t->stamp[a] |= 1u << i;
                t->idx_tmp[n++] = e[i];
                t->lane_count[lane]++;
            }
    }
    int n_stay = n;
    for (int a = 0; a <= t->n_slots; a++) {
        int who = a == t->n_slots ? TR_EGO(t) : a;
        sim_tidx e[2];
        int ne = entries_of(t, who, e);
        if ((t->stamp[who] & ~3u) != step) t->stamp[who] = step;
        for (int i = 0; i < ne; i++)
            if (!(t->stamp[who] & (1u << i))) t->idx_tmp[n++] = e[i];
    }
    /* lane_count holds the stayers per lane; count the arrivals into starts too. */
    int *stay = t->lane_count;
    memset(t->lane_start, 0, (size_t)(nl + 1) * sizeof *t->lane_start);
    for (int k = n_stay; k < n; k++) t->lane_start[t->idx_tmp[k].lane + 1]++;
    int sum = 0;
    for (int l = 0; l < nl; l++) {
        int arrivals = t->lane_start[l + 1];
        t->lane_start[l] = sum;
        sum += stay[l] + arrivals;
    }
    t->lane_start[nl] = sum;
    /* Place stayers at each lane's start, arrivals after them: cursors in occ. */
    int *cur = t->occ;
    for (int l = 0; l < nl; l++) cur[l] = t->lane_start[l];
    for (int k = 0; k < n; k++) t->idx[cur[t->idx_tmp[k].lane]++] = t->idx_tmp[k];
    t->n_idx = n;
    for (int l = 0; l < nl; l++) {
        int lo = t->lane_start[l], mid = lo + stay[l], hi = t->lane_start[l + 1];
        insertion_sort(t->idx + lo, mid - lo);
        if (mid == hi) continue;
        insertion_sort(t->idx + mid, hi - mid);
        int i = lo, j = mid, o = lo;
        while (i < mid && j < hi) t->idx_tmp[o++] = before(&t->idx[j], &t->idx[i]) ? t->idx[j++] : t->idx[i++];
        while (i < mid) t->idx_tmp[o++] = t->idx[i++];
        while (j < hi) t->idx_tmp[o++] = t->idx[j++];
        memcpy(t->idx + lo, t->idx_tmp + lo, (size_t)(hi - lo) * sizeof *t->idx);
    }
    for (int k = 0; k < n; k++) {
        const sim_tidx *e = &t->idx[k];
        if (e->agent < t->cap && e->lane == t->agents[e->agent].lane) t->agents[e->agent].idx_pos = k;
    }
}

/* Index of the first entry of lane at s >= from. An agent asking about its own place
 * starts from its own entry instead of a binary search (the same answer). */
static int lower_bound(const sim_traffic *t, int lane, double from, int self)
{
    int lo = t->lane_start[lane], hi = t->lane_start[lane + 1];
    if (self >= 0 && self < t->cap) {
        int k = t->agents[self].idx_pos;
        if (k >= lo && k < hi && t->idx[k].agent == self && t->idx[k].s == from) {
            while (k > lo && t->idx[k - 1].s >= from) k--;
            return k;
        }
    }
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (t->idx[mid].s < from) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The entry of lane nearest to `from` on one side (not self): dir +1 the first at
 * s >= from, dir -1 the last at s < from; through the index, or testing all entries
 * (the baseline, same answer: ties go to the lower slot). */
static bool nearest_entry(const sim_traffic *t, int lane, double from, int dir, int self, int *who, double *s)
{
    if (!t->p.all_pairs) {
        int k = lower_bound(t, lane, from, self) - (dir < 0);
        for (; k >= t->lane_start[lane] && k < t->lane_start[lane + 1]; k += dir)
            if (t->idx[k].agent != self) {
                *who = t->idx[k].agent;
                *s = t->idx[k].s;
                return true;
            }
        return false;
    }
    bool found = false;
    for (int k = 0; k < t->n_idx; k++) {
        const sim_tidx *e = &t->idx[k];
        if (e->lane != lane || e->agent == self || (dir > 0 ? e->s < from : e->s >= from)) continue;
        if (!found || dir * e->s < dir * *s || (e->s == *s && e->agent < *who)) {
            *who = e->agent;
            *s = e->s;
            found = true;
        }
    }
    return found;
}

tr_near tr_ahead(const sim_traffic *t, int self, double len, int lane, double s, int next,
                 double range)
{
    tr_near r = {-1, INFINITY, 0};
    double base = -s; /* distance from the vehicle to the start of the lane searched */
    double from = s;
    for (int hop = 0; lane >= 0 && base < range && hop < 8; hop++) {
        int who;
        double es;
        if (nearest_entry(t, lane, from, 1, self, &who, &es)) {
            r.who = who;
            r.gap = base + es - 0.5 * tr_len(t, who) - 0.5 * len;
            r.v = tr_speed(t, who);
            return r;
        }
        base += t->g->lanes[lane].length;
        from = -INFINITY;
        const sim_lg_lane *l = &t->g->lanes[lane];
        lane = hop == 0 ? next : (l->n_succ > 0 ? l->succ[0] : -1);
    }
    return r;
}

tr_near tr_behind(const sim_traffic *t, int self, double len, int lane, double s, double range)
{
    tr_near r = {-1, INFINITY, 0};
    int who;
    double es;
    if (nearest_entry(t, lane, s, -1, self, &who, &es)) {
        r.who = who;
        r.gap = s - es - 0.5 * tr_len(t, who) - 0.5 * len;
        r.v = tr_speed(t, who);
        return r;
    }
    const sim_lg_lane *l = &t->g->lanes[lane];
    for (int i = 0; i < l->n_pred; i++) {
        int p = l->pred[i];
        if (p == lane || !nearest_entry(t, p, INFINITY, -1, self, &who, &es)) continue;
        double gap = s + t->g->lanes[p].length - es - 0.5 * tr_len(t, who) - 0.5 * len;
        if (gap < r.gap && gap < range) {
            r.who = who;
            r.gap = gap;
            r.v = tr_speed(t, who);
        }
    }
    return r;
}

/* ---- moving ------------------------------------------------------------------------ */

#define LC_SLOPE 0.15 /* most sideways speed per forward speed in a lane change (8.5 deg) */

static void leave(sim_traffic *t, sim_traffic_agent *a)
{
    a->active = false;
    t->n_active--;
    if (a->ambient) t->n_ambient--;
}

static void integrate(sim_traffic *t, int slot, double dt)
{
    sim_traffic_agent *a = &t->agents[slot];
    const sim_lanegraph *g = t->g;
    a->prev_lane = a->lane;
    a->prev_s = a->s;
    double v1 = a->v + a->a * dt, ds;
    if (v1 < 0) { /* stops within the step */
        ds = a->a < 0 ? a->v * a->v / (-2 * a->a) : 0;
        v1 = 0;
    } else {
        ds = 0.5 * (a->v + v1) * dt;
    }
    a->v = v1;
    a->s += ds;
    if (a->brake_left > 0) a->brake_left -= dt;
    /* Sideways at most LC_SLOPE of the speed: a vehicle moves sideways by driving. */
    double lat_speed = fmin(a->lc_rate, LC_SLOPE * a->v);
    if (a->lc_active) {
        double step = lat_speed * dt;
        if (fabs(a->lat) <= step) {
            a->lat = 0;
            a->lc_active = false;
            a->ind_left = a->ind_right = false;
        } else {
            a->lat -= a->lat > 0 ? step : -step;
        }
        if (a->lane2 >= 0 && !a->lane2_behind &&
            fabs(a->lat) + 0.5 * a->width <= 0.5 * g->lanes[a->lane].width)
            a->lane2 = -1;
    }
    if (a->lane2 >= 0 && a->lane2_behind) {
        a->s2 = a->s + g->lanes[a->lane2].length;
        if (a->s - 0.5 * a->length > 0.2) a->lane2 = -1;
    } else if (a->lane2 >= 0) {
        a->s2 = a->s;
    }
    while (a->s > g->lanes[a->lane].length) {
        if (a->next_lane < 0) {
            leave(t, a);
            return;
        }
        a->s -= g->lanes[a->lane].length;
        a->lat = 0;
        a->lc_active = false;
        a->ind_left = a->ind_right = false;
        a->lane2 = a->lane;
        a->lane2_behind = true;
        a->s2 = a->s + g->lanes[a->lane].length;
        a->lane = a->next_lane;
        if (a->reserved == a->lane) a->reserved = -1;
        a->wait_since = -1;
        a->stopped_at_sign = false;
        tr_route_enter(a, t->route_pool, g->lanes[a->lane].road);
        bool stuck;
        a->next_lane = tr_choose_next(t, a, a->lane, &stuck);
    }
    sim_lanegraph_pose(g, a->lane, a->s, a->lat, &a->x, &a->y, &a->heading);
    if (a->lc_active && a->v > 0) a->heading += atan2(a->lat > 0 ? -lat_speed : lat_speed, a->v);
    a->brake_light = a->a < -0.5 || (a->v < 0.1 && a->a <= 0);
}

/* Vehicles on each lane, and holding a junction lane they are about to enter: what a
 * junction entry checks. */
static void occupancy(sim_traffic *t)
{
    memset(t->occ, 0, (size_t)t->g->n_lanes * sizeof *t->occ);
    for (int i = 0; i < t->n_slots; i++) {
        const sim_traffic_agent *a = &t->agents[i];
        if (!a->active) continue;
        t->occ[a->lane]++;
        if (a->lane2 >= 0) t->occ[a->lane2]++;
        if (a->reserved >= 0) t->occ[a->reserved]++;
    }
    if (t->ego.valid && t->ego.on_lane) {
        t->occ[t->ego.pos.lane]++;
        if (t->ego.lane2 >= 0) t->occ[t->ego.lane2]++;
    }
}

void sim_traffic_step(sim_traffic *t, double dt)
{
    t->n_events = 0;
    if (!t->frozen) {
        index_build(t);
        occupancy(t);
        for (int i = 0; i < t->n_slots; i++)
            if (t->agents[i].active && !t->agents[i].external) tr_decide(t, i, dt);
        for (int i = 0; i < t->n_slots; i++)
            if (t->agents[i].active && !t->agents[i].external) integrate(t, i, dt);
    }
    tr_world_after_step(t, dt);
    t->t += dt;
    t->steps++;
}

double sim_traffic_agent_speed(const sim_traffic *t, int slot)
{
    return t->frozen ? 0.0 : t->agents[slot].v;
}

int sim_traffic_nearest(const sim_traffic *t, double x, double y, double radius, int *out, int max)
{
    int n = 0;
    double r2 = radius * radius;
    for (int i = 0; i < t->n_slots; i++) {
        const sim_traffic_agent *a = &t->agents[i];
        if (!a->active) continue;
        double d2 = (a->x - x) * (a->x - x) + (a->y - y) * (a->y - y);
        if (d2 > r2) continue;
        /* Insertion into the sorted list of the max nearest. */
        int k = n < max ? n++ : max;
        if (k == max) {
            const sim_traffic_agent *w = &t->agents[out[max - 1]];
            if (max == 0 || (w->x - x) * (w->x - x) + (w->y - y) * (w->y - y) <= d2) continue;
            k = max - 1;
        }
        while (k > 0) {
            const sim_traffic_agent *b = &t->agents[out[k - 1]];
            if ((b->x - x) * (b->x - x) + (b->y - y) * (b->y - y) <= d2) break;
            out[k] = out[k - 1];
            k--;
        }
        out[k] = i;
    }
    return n;
}
