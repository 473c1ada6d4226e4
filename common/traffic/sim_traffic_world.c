/* sim_traffic_world: what happens around the agents after they moved (see
 * sim_traffic.h): triggers entered, ambient traffic held at its density around the
 * ego, and the ego's lead vehicle. */
#include "sim_traffic_impl.h"

#include <string.h>

#define AMBIENT_PERIOD 0.5   /* s between ambient updates */
#define AMBIENT_FILL_DIST 40.0 /* m: the first fill may place vehicles this near the ego */
#define LEAD_RANGE 250.0     /* m: farthest lead vehicle reported */

static bool in_zone(const sim_traffic *t, const sim_traffic_trigger *tr, int lane, double s)
{
    if (lane < 0) return false;
    const sim_lg_lane *l = &t->g->lanes[lane];
    if (l->road != tr->road) return false;
    double rs = sim_lanegraph_road_s(t->g, lane, s);
    if (rs < tr->s_start || rs > tr->s_end) return false;
    if (!tr->lanes) return true;
    for (int i = 0; i < tr->n_lanes; i++)
        if (tr->lanes[i] == l->lane_id) return true;
    return false;
}

static void fire(sim_traffic *t, int k, int by)
{
    const sim_traffic_trigger *tr = &t->triggers[k];
    t->fired[k] = true;
    if (t->n_events < SIM_TRAFFIC_MAX_EVENTS) t->events[t->n_events++] = (sim_traffic_event){k, by};
    else t->lost_events++;
    if (tr->agent < 0 || tr->agent >= t->n_slots || !t->agents[tr->agent].active) return;
    sim_traffic_agent *a = &t->agents[tr->agent];
    if (tr->action == SIM_TA_BRAKE) {
        a->brake_decel = tr->decel;
        a->brake_left = tr->duration;
    } else if (tr->action == SIM_TA_LANE_SWITCH) {
        int to = sim_lanegraph_find(t->g, t->g->lanes[a->lane].road, tr->lane, sim_lanegraph_road_s(t->g, a->lane, a->s));
        const sim_lg_lane *l = &t->g->lanes[a->lane];
        if (to >= 0 && (to == l->left || to == l->right)) a->want_lane = to;
    }
}

static void triggers(sim_traffic *t)
{
    for (int k = 0; k < t->n_triggers; k++) {
        const sim_traffic_trigger *tr = &t->triggers[k];
        if (tr->once && t->fired[k]) continue;
        if (tr->by != SIM_TT_AGENT) {
            bool in = t->ego.valid && t->ego.on_lane && in_zone(t, tr, t->ego.pos.lane, t->ego.pos.s);
            bool entered = in && !t->ego_in[k];
            t->ego_in[k] = in;
            if (entered && tr->by == SIM_TT_EGO) fire(t, k, -1);
            if (entered && tr->by == SIM_TT_ANY) fire(t, k, -1);
            if (tr->by == SIM_TT_EGO || (tr->once && t->fired[k])) continue;
        }
        if (t->frozen) continue; /* agents that did not move entered nothing */
        int lo = tr->by == SIM_TT_AGENT ? tr->by_agent : 0;
        int hi = tr->by == SIM_TT_AGENT ? tr->by_agent + 1 : t->n_slots;
        for (int i = lo; i < hi && i < t->n_slots; i++) {
            const sim_traffic_agent *a = &t->agents[i];
            /* Entered: in the zone now, not before this step's move. */
            if (!a->active || !in_zone(t, tr, a->lane, a->s) || in_zone(t, tr, a->prev_lane, a->prev_s)) continue;
            fire(t, k, i);
            if (tr->once) break;
        }
    }
}

static double dist2(double x0, double y0, double x1, double y1)
{
    return (x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0);
}

/* Removes the ambient agent farthest from the ego (ties: the higher slot). */
static void remove_farthest(sim_traffic *t)
{
    int best = -1;
    double bd = -1;
    for (int i = 0; i < t->n_slots; i++) {
        const sim_traffic_agent *a = &t->agents[i];
        if (!a->active || !a->ambient) continue;
        double d = dist2(a->x, a->y, t->ego.x, t->ego.y);
        if (d >= bd) {
            bd = d;
            best = i;
        }
    }
    if (best < 0) return;
    t->agents[best].active = false;
    t->n_active--;
    t->n_ambient--;
}

/* The speed a new vehicle of length len may have at (lane, s) so that it and the
 * vehicles around it (in the index and placed since it was built) keep their
 * distance; negative when there is no room. */
static double room_at(const sim_traffic *t, int lane, double s, double len, double v, uint32_t first_uid)
{
    tr_near f = tr_ahead(t, -1, len, lane, s, -1, 300);
    tr_near b = tr_behind(t, -1, len, lane, s, 300);
    for (int i = 0; i < t->n_slots; i++) {
        const sim_traffic_agent *a = &t->agents[i];
        if (!a->active || a->uid < first_uid || (a->lane != lane && a->lane2 != lane)) continue;
        double gap = fabs(a->s - s) - 0.5 * (a->length + len);
        tr_near *n = a->s >= s ? &f : &b;
        if (gap < n->gap) *n = (tr_near){i, gap, a->v};
    }
    v = fmin(v, (f.gap - 3.0) / 1.5);
    if (v < 0 || b.gap < 3.0 + 0.5 * b.v + fmax(0.0, b.v * b.v - v * v) / 6.0) return -1;
    return v;
}

static void spawn(sim_traffic *t, int n_pts, double min_d2, uint32_t first_uid)
{
    const sim_lanegraph *g = t->g;
    for (int tries = 0; tries < 8 && n_pts > 0; tries++) {
        int p = t->spawn_pts[sim_rand_xorshift(&t->rng) % (uint64_t)n_pts];
        if (dist2(g->px[p], g->py[p], t->ego.x, t->ego.y) < min_d2) continue;
        int lane = 0;
        while (lane + 1 < g->n_lanes && g->lanes[lane + 1].pt0 <= p) lane++;
        const sim_lg_lane *l = &g->lanes[lane];
        /* Not in junctions, nor on a lane that ends beside another (an acceleration
         * lane): a new vehicle there would first have to merge. */
        if (l->junction >= 0 || (l->n_succ == 0 && (l->left >= 0 || l->right >= 0))) continue;
        double s = (p - l->pt0) * l->length / (l->n_pts - 1);
        double lim = sim_lanegraph_limit(g, lane, s);
        if (!(lim > 0)) lim = 100 / 3.6;
        double u = tr_unit(&t->rng);
        int model = lim > 22.0 ? (u < 0.1 ? 2 : u < 0.2 ? 1 : 0) : (u < 0.1 ? 1 : 0);
        if (model == 2 && l->right >= 0) model = 0; /* trucks keep to the right lane */
        sim_traffic_spec sp = {.model = model, .lane = lane, .s = s};
        sp.b = (sim_traffic_behaviour){.desired_speed = lim * (0.8 + 0.2 * tr_unit(&t->rng)),
                                       .headway = 1.2 + 0.8 * tr_unit(&t->rng), .max_accel = 1.5,
                                       .max_decel = 3.0, .min_gap = 2.0, .politeness = 0.3,
                                       .lane_changes = model != 2};
        if (model == 2) sp.b.desired_speed = fmin(sp.b.desired_speed, 80 / 3.6);
        sp.speed = sp.b.desired_speed;
        double len = sim_traffic_vmodels[model].length;
        if (s < len || s > l->length - len) continue;
        /* Able to stop comfortably before the lane's end (a junction may be closed). */
        double to_end = l->length - s - 0.5 * len - 3.0;
        sp.speed = fmin(sp.speed, sqrt(2 * 2.0 * fmax(0.0, to_end)));
        sp.speed = room_at(t, lane, s, len, sp.speed, first_uid);
        if (sp.speed < 0) continue;
        if (sim_traffic_add_agent(t, &sp, true, NULL) >= 0) return;
    }
}

/* Holds density * density_scale vehicles per km per lane within ambient_radius of the
 * ego: removes those beyond 1.25 radius and the farthest ones above the target, spawns
 * out of the ego's sight (ambient_min_dist) below it. */
static void ambient(sim_traffic *t, double dt)
{
    const sim_lanegraph *g = t->g;
    t->ambient_timer -= dt;
    if (!t->ego.valid || t->ambient_timer > 0 || t->frozen) return;
    t->ambient_timer += AMBIENT_PERIOD;
    if (t->ambient_timer < 0) t->ambient_timer = 0;
    double r = t->p.ambient_radius, r2 = r * r;
    for (int i = 0; i < t->n_slots; i++) {
        sim_traffic_agent *a = &t->agents[i];
        if (a->active && a->ambient && dist2(a->x, a->y, t->ego.x, t->ego.y) > 1.5625 * r2) {
            a->active = false;
            t->n_active--;
            t->n_ambient--;
        }
    }
    int n_pts = 0;
    double km = 0;
    for (int l = 0; l < g->n_lanes; l++) {
        const sim_lg_lane *ln = &g->lanes[l];
        double step = ln->length / (ln->n_pts - 1);
        for (int i = 0; i < ln->n_pts; i++) {
            int p = ln->pt0 + i;
            if (dist2(g->px[p], g->py[p], t->ego.x, t->ego.y) > r2) continue;
            t->spawn_pts[n_pts++] = p;
            km += step / 1000.0;
        }
    }
    int target = (int)floor(t->p.density * t->density_scale * km + 0.5);
    while (t->n_ambient > target) remove_farthest(t);
    double min_d = t->ambient_filled ? t->p.ambient_min_dist : AMBIENT_FILL_DIST;
    int budget = t->ambient_filled ? 4 : target;
    uint32_t first_uid = t->next_uid;
    for (int k = 0; k < budget && t->n_ambient < target && t->n_slots - t->n_active + (t->cap - t->n_slots) > 0; k++)
        spawn(t, n_pts, min_d * min_d, first_uid);
    t->ambient_filled = true;
}

/* The ego's lead vehicle: the nearest agent ahead in the ego's lane, or in the lane
 * the ego is going straight on into. */
static void lead(sim_traffic *t)
{
    sim_traffic_lead *ld = &t->lead;
    memset(ld, 0, sizeof *ld);
    ld->agent = -1;
    const sim_traffic_ego *e = &t->ego;
    if (!e->valid || !e->on_lane) return;
    const sim_lanegraph *g = t->g;
    const sim_lg_lane *el = &g->lanes[e->pos.lane];
    int next = -1;
    double best_turn = INFINITY;
    for (int i = 0; i < el->n_succ; i++) {
        const sim_lg_lane *n = &g->lanes[el->succ[i]];
        double tn = fabs(remainder(g->ph[n->pt0 + n->n_pts - 1] - g->ph[n->pt0], 2 * M_PI));
        if (tn < best_turn) {
            best_turn = tn;
            next = el->succ[i];
        }
    }
    double best = INFINITY;
    for (int i = 0; i < t->n_slots; i++) {
        const sim_traffic_agent *a = &t->agents[i];
        if (!a->active) continue;
        double ds;
        if (a->lane == e->pos.lane || (a->lane2 == e->pos.lane && !a->lane2_behind)) ds = a->s - e->pos.s;
        else if (a->lane == next) ds = el->length - e->pos.s + a->s;
        else continue;
        double gap = ds - 0.5 * (a->length + e->length);
        if (ds <= 0 || gap > LEAD_RANGE || gap >= best) continue;
        best = gap;
        ld->agent = i;
    }
    if (ld->agent < 0) return;
    ld->valid = true;
    ld->gap = best;
    ld->speed = sim_traffic_agent_speed(t, ld->agent);
    ld->thw = e->speed > 0.1 ? fmax(best, 0.0) / e->speed : INFINITY;
    ld->ttc = e->speed > ld->speed ? fmax(best, 0.0) / (e->speed - ld->speed) : INFINITY;
}

void tr_world_after_step(sim_traffic *t, double dt)
{
    triggers(t);
    ambient(t, dt);
    lead(t);
}
