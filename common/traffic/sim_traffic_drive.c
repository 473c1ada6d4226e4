/* sim_traffic_drive: what one agent decides in a step (see sim_traffic.h): its speed
 * cap from limits and curves ahead, the vehicle it follows, lane changes (the zone
 * model's overtaking with a shoulder check, or MOBIL), junction entry by the rules,
 * and the acceleration of the chosen model. Reads the previous step's index only, so
 * the order in which agents decide does not matter, except for junction reservations,
 * which are taken in slot order and seen at once by the agents after. */
#include "sim_traffic_impl.h"

#include <stdlib.h>

#define LINE_WHO (-2)          /* "leader" that is a stop line */
#define LC_THRESHOLD 0.2       /* MOBIL: least advantage for a lane change, m/s^2 */
#define LC_KEEP_RIGHT 0.3      /* MOBIL: bias towards the right lane, m/s^2 */
#define ROUTE_REACH 300.0      /* m before a lane's end where lane changes respect the route */
#define FORESIGHT_STEP 8.0     /* m between looks ahead for curves and limits */
#define FORESIGHT_RECALC 30.0  /* m driven before the look ahead is taken again */

void tr_route_enter(sim_traffic_agent *a, const int *pool, int road)
{
    const int *r = pool + a->route0;
    for (int i = a->route_i; i < a->n_route && i <= a->route_i + 2; i++)
        if (r[i] == road) {
            a->route_i = i;
            return;
        }
}

/* The successor of lane on the agent's route, or any (random) when the route is done
 * or the agent has none; -1 when the route's next road is not reachable from it. */
static int pick(sim_traffic *t, sim_traffic_agent *a, int lane, bool random)
{
    const sim_lg_lane *l = &t->g->lanes[lane];
    if (l->n_succ == 0) return -1;
    const int *r = t->route_pool + a->route0;
    if (a->n_route > 0 && a->route_i + 1 < a->n_route && r[a->route_i] == l->road) {
        for (int i = 0; i < l->n_succ; i++)
            if (t->g->lanes[l->succ[i]].road == r[a->route_i + 1]) return l->succ[i];
        return -1;
    }
    return l->succ[random && l->n_succ > 1 ? (int)(sim_rand_xorshift(&a->rng) % (uint64_t)l->n_succ) : 0];
}

int tr_choose_next(sim_traffic *t, sim_traffic_agent *a, int lane, bool *stuck)
{
    int n = pick(t, a, lane, true);
    const sim_lg_lane *l = &t->g->lanes[lane];
    *stuck = n < 0 && ((l->left >= 0 && pick(t, a, l->left, false) >= 0) ||
                       (l->right >= 0 && pick(t, a, l->right, false) >= 0));
    return n;
}

static double wrap(double a)
{
    while (a > M_PI) a -= 2 * M_PI;
    while (a < -M_PI) a += 2 * M_PI;
    return a;
}

/* The most the agent may drive here: the speed limit, and what lets it slow down in
 * time (at 60% of its comfortable deceleration b) for lower limits and curves ahead:
 * sqrt(min_i (v_i^2 + 2 b x_i)) over the limits and curve speeds v_i at x_i ahead.
 * Driving on by d lowers every term by 2 b d alike, so the minimum A is kept, and
 * max(A - 2 b d, min_i v_i^2) never exceeds the true value (terms passed drop out,
 * the others stay above the lowest v_i^2) nor falls to nothing; it is used until the
 * agent is FORESIGHT_RECALC further or in another lane. */
static double speed_cap(sim_traffic *t, sim_traffic_agent *a)
{
    double b = 0.6 * a->b.max_decel;
    double d = a->s - a->vcap_s;
    if (a->vcap_lane == a->lane && d >= 0 && d < FORESIGHT_RECALC)
        return sqrt(fmax(a->vcap - 2 * b * d, a->vcap_floor));
    const sim_lanegraph *g = t->g;
    double v = fmax(a->v, a->b.desired_speed);
    double reach = fmin(300.0, v * v / (2 * b) + 30.0 + FORESIGHT_RECALC);
    double cap2 = INFINITY, floor2 = INFINITY, x = 0, s = a->s;
    int lane = a->lane, hops = 0;
    while (x <= reach && lane >= 0) {
        const sim_lg_lane *l = &g->lanes[lane];
        if (s > l->length) {
            s -= l->length;
            lane = hops++ == 0 ? a->next_lane : (l->n_succ > 0 ? l->succ[0] : -1);
            if (hops > 6) break;
            continue;
        }
        double lim = sim_lanegraph_limit(g, lane, s);
        if (lim > 0) {
            cap2 = fmin(cap2, lim * lim + 2 * b * x);
            floor2 = fmin(floor2, lim * lim);
        }
        double k = fabs(sim_lanegraph_curvature(g, lane, s));
        if (k > 1e-5) {
            cap2 = fmin(cap2, t->p.lat_accel / k + 2 * b * x);
            floor2 = fmin(floor2, t->p.lat_accel / k);
        }
        x += FORESIGHT_STEP;
        s += FORESIGHT_STEP;
    }
    a->vcap = cap2;
    a->vcap_floor = floor2;
    a->vcap_s = a->s;
    a->vcap_lane = a->lane;
    return sqrt(cap2);
}

/* IDM acceleration for speed v towards v0 behind a vehicle at gap with speed vl
 * (gap INFINITY: free road). */
static double idm(const sim_traffic_behaviour *b, double v, double v0, double gap, double vl)
{
    double free_term = v0 > 0.1 ? 1.0 - pow(v / v0, 4) : -1.0;
    double inter = 0;
    if (isfinite(gap)) {
        double ss = b->min_gap + fmax(0.0, v * b->headway + v * (v - vl) / (2 * sqrt(b->max_accel * b->max_decel)));
        double g = fmax(gap, 0.1);
        inter = (ss / g) * (ss / g);
    }
    return b->max_accel * (free_term - inter);
}

static const sim_traffic_behaviour EGO_BEHAVIOUR = {
    .desired_speed = 30, .headway = 1.5, .max_accel = 1.5, .max_decel = 3, .min_gap = 2};

static const sim_traffic_behaviour *behaviour_of(const sim_traffic *t, int who)
{
    return who >= 0 && who < t->cap ? &t->agents[who].b : &EGO_BEHAVIOUR;
}

/* Shoulder check: may the agent move into lane `to` beside it? The vehicle ahead there
 * and the one approaching from behind must keep what they need at safe_decel. */
static bool lane_safe(const sim_traffic *t, int slot, int to, double sd, tr_near *front, tr_near *back)
{
    const sim_traffic_agent *a = &t->agents[slot];
    const sim_lg_lane *l = &t->g->lanes[to];
    double v = a->v;
    *front = tr_ahead(t, slot, a->length, to, a->s, l->n_succ ? l->succ[0] : -1, t->p.detect_radius);
    *back = tr_behind(t, slot, a->length, to, a->s, t->p.detect_radius);
    double need_front = a->b.min_gap + 0.5 * v + fmax(0.0, v * v - front->v * front->v) / (2 * sd);
    double vr = back->v;
    double need_back = a->b.min_gap + 0.5 * vr + fmax(0.0, vr * vr - v * v) / (2 * sd);
    return front->gap >= need_front && (back->who < 0 || back->gap >= need_back);
}

/* Whether lane `to` is a lane the agent may change into now. */
static bool lane_usable(sim_traffic *t, sim_traffic_agent *a, int to, bool needed)
{
    if (to < 0) return false;
    const sim_lg_lane *l = &t->g->lanes[to];
    /* Room for the change: the rest of the lane, unless it goes on. */
    double left = l->n_succ > 0 ? INFINITY : l->length - a->s;
    if (left < a->v * t->p.lane_change_time * 0.5 + a->length) return false;
    if (needed) return true;
    /* By choice never into a lane that ends where its own goes on (an acceleration
     * lane), and near the end
     * only into one that goes on where the agent is going. */
    if (l->n_succ == 0 && t->g->lanes[a->lane].n_succ > 0) return false;
    return l->length - a->s > ROUTE_REACH || pick(t, a, to, false) >= 0;
}

static void start_change(sim_traffic *t, sim_traffic_agent *a, int to)
{
    const sim_lg_lane *from = &t->g->lanes[a->lane], *l = &t->g->lanes[to];
    bool left = from->left == to;
    double w = 0.5 * (from->width + l->width);
    a->lane2 = a->lane;
    a->lane2_behind = false;
    a->s2 = a->s;
    a->lane = to;
    a->lat = left ? -w : w;
    a->lc_active = true;
    a->lc_rate = w / t->p.lane_change_time;
    a->ind_left = left;
    a->ind_right = !left;
    if (a->want_lane == to) a->want_lane = -1;
    bool stuck;
    a->next_lane = tr_choose_next(t, a, to, &stuck);
    a->vcap_lane = -1;
}

/* Lane changes this step. Left changes happen on even steps and right ones on odd
 * steps, so two vehicles never move into the same lane from both sides at once. */
static void change_lanes(sim_traffic *t, int slot, const tr_near *ld, double v_ideal)
{
    sim_traffic_agent *a = &t->agents[slot];
    const sim_lg_lane *l = &t->g->lanes[a->lane];
    if (a->lc_active || a->lane2 >= 0 || (l->junction >= 0 && l->n_conf > 0) || a->reserved >= 0) return;
    bool even = (t->steps & 1) == 0;
    int to = even ? l->left : l->right;
    if (to < 0) return;
    tr_near front, back;
    if (a->want_lane >= 0) { /* a trigger's or the route's: as soon as it is safe */
        int dir = a->want_lane == l->left ? l->left : a->want_lane == l->right ? l->right : -1;
        /* A lane it must leave: the others are asked to brake harder for it. */
        if (dir == to && lane_usable(t, a, to, true) && lane_safe(t, slot, to, 2 * t->p.safe_decel, &front, &back))
            start_change(t, a, to);
        return;
    }
    if (!a->b.lane_changes || !lane_usable(t, a, to, false)) return;
    if (t->p.model == SIM_TRAFFIC_ZONES) {
        double warn = a->b.min_gap + a->v * t->p.warning_time;
        bool blocked = ld->who != -1 && ld->who != LINE_WHO && ld->gap < warn && ld->v < v_ideal - 1.0;
        if (even && blocked) { /* overtaking attempt: shoulder check to the left */
            if (lane_safe(t, slot, to, t->p.safe_decel, &front, &back) && (front.who < 0 || front.gap > ld->gap + 10.0 || front.v > ld->v + 1.0))
                start_change(t, a, to);
        } else if (!even && !blocked) { /* back to the right once it is free */
            if (lane_safe(t, slot, to, t->p.safe_decel, &front, &back) && front.gap > warn + 20.0 && (front.who < 0 || front.v >= v_ideal - 2.0))
                start_change(t, a, to);
        }
        return;
    }
    /* MOBIL: the agent's advantage plus politeness times the followers' change. */
    if (!lane_safe(t, slot, to, t->p.safe_decel, &front, &back)) return;
    double here = idm(&a->b, a->v, v_ideal, ld->gap, ld->v);
    double there = idm(&a->b, a->v, v_ideal, front.gap, front.v);
    double others = 0;
    if (back.who >= 0) {
        const sim_traffic_behaviour *bb = behaviour_of(t, back.who);
        double after = idm(bb, back.v, bb->desired_speed, back.gap, a->v);
        if (after < -t->p.safe_decel) return;
        double before = idm(bb, back.v, bb->desired_speed, back.gap + a->length + front.gap, front.v);
        others += after - before;
    }
    tr_near old = tr_behind(t, slot, a->length, a->lane, a->s, t->p.detect_radius);
    if (old.who >= 0) {
        const sim_traffic_behaviour *ob = behaviour_of(t, old.who);
        double before = idm(ob, old.v, ob->desired_speed, old.gap, a->v);
        double after = idm(ob, old.v, ob->desired_speed, old.gap + a->length + ld->gap, ld->v);
        others += after - before;
    }
    double gain = there - here + a->b.politeness * others;
    if (gain > LC_THRESHOLD + (even ? LC_KEEP_RIGHT : -LC_KEEP_RIGHT)) start_change(t, a, to);
}

/* Heading at a lane's exit, and how far a lane turns (left positive). */
static double exit_heading(const sim_lanegraph *g, int lane)
{
    const sim_lg_lane *l = &g->lanes[lane];
    return g->ph[l->pt0 + l->n_pts - 1];
}
static double turn(const sim_lanegraph *g, int lane)
{
    const sim_lg_lane *l = &g->lanes[lane];
    return wrap(g->ph[l->pt0 + l->n_pts - 1] - g->ph[l->pt0]);
}

/* Whether a vehicle approaching on lane `pb` towards junction lane `cb` goes before one
 * on `pa` towards `ca`: the higher sign first; on equal signs the one from the right,
 * and straight on or right before turning left across oncoming traffic. */
static bool goes_first(const sim_lanegraph *g, int pb, int cb, int pa, int ca)
{
    const sim_lg_lane *lb = &g->lanes[pb], *la = &g->lanes[pa];
    if (lb->rank != la->rank) return lb->rank > la->rank;
    double rel = wrap(exit_heading(g, pb) - exit_heading(g, pa));
    if (rel > M_PI / 4 && rel < 3 * M_PI / 4) return true;
    if (fabs(rel) >= 3 * M_PI / 4) return turn(g, ca) > 0.5 && turn(g, cb) <= 0.5;
    return false;
}

static double dist_to_exit(const sim_traffic *t, int who, int lane, double s)
{
    return t->g->lanes[lane].length - t->g->lanes[lane].setback - s - 0.5 * tr_len(t, who);
}

/* Junction entry: may the agent go into its next lane? Granting reserves that lane
 * (seen at once by the agents deciding after). */
static bool may_enter(sim_traffic *t, int slot, double dist)
{
    sim_traffic_agent *a = &t->agents[slot];
    const sim_lanegraph *g = t->g;
    int n = a->next_lane;
    const sim_lg_lane *nl = &g->lanes[n], *l = &g->lanes[a->lane];
    if (a->reserved == n || nl->junction < 0 || nl->n_conf == 0) return true;
    double approach = fmax(t->p.approach_dist, a->v * a->v / (2 * a->b.max_decel) + 10.0);
    if (dist > approach) return false;
    bool waiting = a->v < TR_WAITING_SPEED && dist < TR_STOP_MARGIN + 3.0;
    if (waiting && a->wait_since < 0) a->wait_since = t->t;
    if (l->stop_sign && !a->stopped_at_sign) {
        if (a->v < 0.1 && dist < TR_STOP_MARGIN + 3.0) a->stopped_at_sign = true;
        else return false;
    }
    tr_near ahead = tr_ahead(t, slot, a->length, a->lane, a->s, -1, dist + 1.0);
    if (ahead.who != -1) return false; /* not first in line */
    /* Do not block the junction: the lane after it must have room for the agent. */
    if (nl->n_succ > 0) {
        tr_near exit = tr_ahead(t, slot, 0.0, nl->succ[0], 0.0, -1, 50.0);
        if (exit.who != -1 && exit.gap < a->length + a->b.min_gap + 1.0) return false;
    }
    for (int k = 0; k < nl->n_conf; k++) {
        int c = g->conf[nl->conf0 + k];
        if (t->occ[c] > 0) return false;
    }
    for (int k = 0; k < nl->n_conf; k++) {
        int c = g->conf[nl->conf0 + k];
        const sim_lg_lane *cl = &g->lanes[c];
        for (int i = 0; i < cl->n_pred; i++) {
            int p = cl->pred[i], who;
            double bs;
            if (p == a->lane || g->lanes[p].junction >= 0) continue;
            if (!t->p.all_pairs) {
                int lo = t->lane_start[p], hi = t->lane_start[p + 1];
                if (lo == hi) continue;
                who = t->idx[hi - 1].agent;
                bs = t->idx[hi - 1].s;
            } else {
                continue; /* the baseline runs on roads without junctions */
            }
            double bd = dist_to_exit(t, who, p, bs);
            if (who == TR_EGO(t)) {
                /* A moving ego on a road with priority is waited for; a stopped one waves
                 * the agents through. */
                if (t->ego.speed > 0.5 && bd < approach && goes_first(g, p, c, a->lane, n)) return false;
                continue;
            }
            const sim_traffic_agent *b = &t->agents[who];
            if (b->next_lane != c || b->reserved >= 0 || bd > approach) continue;
            if (!goes_first(g, p, c, a->lane, n)) continue;
            bool b_waiting = b->v < TR_WAITING_SPEED && bd < TR_STOP_MARGIN + 3.0 && b->wait_since >= 0;
            if (!b_waiting || !waiting) return false;
            /* Everyone waiting for someone on the right: the one waiting longest goes
             * (then the lower uid), so four arriving together do not deadlock. */
            if (b->wait_since < a->wait_since || (b->wait_since == a->wait_since && b->uid < a->uid))
                return false;
        }
    }
    a->reserved = n;
    t->occ[n]++;
    a->wait_since = -1;
    return true;
}

void tr_decide(sim_traffic *t, int slot, double dt)
{
    sim_traffic_agent *a = &t->agents[slot];
    const sim_traffic_params *p = &t->p;
    const sim_lg_lane *l = &t->g->lanes[a->lane];
    double v = a->v;
    double v_ideal = fmin(a->b.desired_speed, speed_cap(t, a));

    tr_near ld = tr_ahead(t, slot, a->length, a->lane, a->s, a->next_lane, p->detect_radius);
    if (a->lane2 >= 0 && !a->lane2_behind) { /* changing lanes: it covers both */
        const sim_lg_lane *l2 = &t->g->lanes[a->lane2];
        tr_near o = tr_ahead(t, slot, a->length, a->lane2, a->s, l2->n_succ ? l2->succ[0] : -1, p->detect_radius);
        if (o.gap < ld.gap) ld = o;
    }
    /* The stop line: where the lane ends for it (junction without right of way, a lane
     * it must leave), as a standing obstacle. */
    double dist = l->length - a->s - 0.5 * a->length;
    bool stop = false;
    if (a->next_lane >= 0 && t->g->lanes[a->next_lane].junction >= 0) dist -= l->setback;
    if (a->next_lane < 0) {
        bool stuck;
        tr_choose_next(t, a, a->lane, &stuck);
        if (stuck && a->want_lane < 0) {
            int lft = l->left, rgt = l->right;
            a->want_lane = lft >= 0 && pick(t, a, lft, false) >= 0 ? lft : rgt;
        }
        stop = stuck;
    } else if (!may_enter(t, slot, dist)) {
        stop = true;
    }
    /* (the line stands min_gap beyond where the agent is to stop: it halts at the line
     * with its front TR_STOP_MARGIN short of the exit) */
    double line = dist - TR_STOP_MARGIN + a->b.min_gap;
    if (stop && line < ld.gap) ld = (tr_near){LINE_WHO, line, 0.0};
    double light = tr_light_gap(t, a); /* a red light ahead: its stop line */
    if (light < ld.gap) ld = (tr_near){LINE_WHO, light, 0.0};

    change_lanes(t, slot, &ld, v_ideal);

    double acc;
    double gap = ld.gap, vl = ld.v;
    if (p->model == SIM_TRAFFIC_IDM) {
        acc = idm(&a->b, v, v_ideal, gap, vl);
    } else {
        acc = fmin(a->b.max_accel, fmax(-a->b.max_decel, v_ideal - v));
        if (ld.who != -1 && gap < p->detect_radius) {
            double crit = a->b.min_gap + v * p->reaction_time + fmax(0.0, v * v - vl * vl) / (2 * p->emergency_decel);
            if (gap < crit) { /* critical zone: full braking */
                acc = -p->emergency_decel;
            } else {
                /* The ideal velocity lowered by the distance to the vehicle ahead. */
                double want = a->b.min_gap + a->b.headway * vl;
                double v_follow = fmax(0.0, vl + (gap - want) / a->b.headway);
                if (v_follow < v_ideal) acc = fmin(a->b.max_accel, fmax(-a->b.max_decel, v_follow - v));
            }
        }
    }
    /* Either model: never less braking than stopping behind the vehicle ahead needs. */
    if (ld.who != -1 && v > vl) {
        double room = gap - 0.5 * a->b.min_gap;
        double need = room > 0.05 ? (v * v - vl * vl) / (2 * room) : p->emergency_decel;
        if (need > a->b.max_decel) acc = fmin(acc, -fmin(need, p->emergency_decel));
    }
    if (a->brake_left > 0) acc = fmin(acc, -a->brake_decel);
    if (acc < -p->emergency_decel) acc = -p->emergency_decel;
    if (v <= 0 && acc < 0) acc = 0;
    a->a = acc;
    (void)dt;
}
