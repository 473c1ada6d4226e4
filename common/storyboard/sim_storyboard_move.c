/* sim_storyboard_move: how the storyboard's entities move each step (see
 * sim_storyboard.h): speed from their longitudinal action, lateral offset from their
 * lateral action, along their lane and its successors (towards their goal when routed),
 * or along a trajectory in the world. */
#include "sim_storyboard_impl.h"
#include "sim_route.h"

#include <math.h>
#include <stdlib.h>

#define MIN_SPEED 0.1   /* m/s, as in sim_storyboard_act.c */

/* Metres to drive from lane `from`'s start to lane `goal`'s over the route graph
 * (common/routing, lane changes included), or INFINITY when it cannot be reached. */
static double route_length(const sim_storyboard *sb, int from, int goal)
{
    sim_route_pos a = {from, 0}, b = {goal, 0};
    sim_route r;
    sim_error err = {0};
    if (sim_route_find(sb->routes, &a, 1, &b, 1, false, &r, &err) != SIM_OK) return INFINITY;
    double len = r.length;
    sim_route_free(&r);
    return len;
}

/* ---- motion ----------------------------------------------------------------------- */

/* World metres per metre of lane s at lat metres left of the lane's centre: a lane's s
 * is its road's (sim_lanegraph.h), so on a curve an entity at distance d left of the
 * reference line covers (1 - kappa d) m per m of s. The centre's factor comes from its
 * samples (the chord between the two around s), the offset's from the curvature. */
static double lane_stretch(const sim_lanegraph *g, int lane, double s, double lat)
{
    const sim_lg_lane *l = &g->lanes[lane];
    if (l->n_pts < 2 || !(l->length > 0)) return 1;
    double step = l->length / (l->n_pts - 1);
    int i = (int)(fmax(s, 0) / step);
    if (i > l->n_pts - 2) i = l->n_pts - 2;
    int p = l->pt0 + i;
    double f = hypot(g->px[p + 1] - g->px[p], g->py[p + 1] - g->py[p]) / step - sim_lanegraph_curvature(g, lane, s) * lat;
    return f > 0.1 ? f : 0.1; /* past the centre of curvature: no sense, no division by 0 */
}

static double dist_xy(double ax, double ay, double bx, double by) { return hypot(bx - ax, by - ay); }

/* Longitudinal actions that control speed from others' states. */
static void speed_control(sim_storyboard *sb, int e, double dt)
{
    sim_sb_state_ent *s = &sb->ent[e];
    if (s->long_inst < 0) return;
    sim_sb_inst *in = &sb->inst[s->long_inst];
    const sim_sb_action *a = &sb->m->actions[in->action];
    double v = s->v;
    if (a->type == SIM_SB_A_SPEED) {
        double tau = sb->t + dt - in->t0;
        if (a->continuous && a->relative) in->v1 = sb_target_speed(sb, a);
        if (in->T > 0 && tau < in->T) v = in->v0 + (in->v1 - in->v0) * sb_shape(a->dyn.shape, tau / in->T);
        else {
            v = in->v1;
            if (!a->continuous) sb_action_end(sb, s->long_inst);
        }
    } else if (a->type == SIM_SB_A_SPEED_PROFILE) {
        const sim_sb_seg *seg = sb->prof + in->prof0;
        v = sim_sb_profile_speed(seg, in->n_seg, &in->seg, sb->t + dt - in->t0);
        if (in->seg >= in->n_seg - 1) sb_action_end(sb, s->long_inst); /* on the final speed */
    } else if (a->type == SIM_SB_A_LONG_DISTANCE) {
        const sim_sb_state_ent *r = &sb->ent[a->entity];
        double gap = sim_storyboard_long_dist(sb, e, a->entity, a->freespace);
        double want = a->by_time ? a->target * r->v : a->target;
        sim_sb_limits lim = sb_limits(&sb->m->entities[e], &a->lim);
        double up = isfinite(lim.max_acc) ? lim.max_acc : 5.0, down = isfinite(lim.max_dec) ? lim.max_dec : 10.0;
        /* close the gap error in about 2 s, within maxAcceleration / maxDeceleration; the
         * acceleration grows at most at maxAccelerationRate (towards more braking at
         * maxDecelerationRate) per s, as esmini's controller (it eases off at once) */
        double acc = (r->v + (gap - want) / 2.0 - v) / dt;
        acc = fmax(-down, fmin(up, acc));
        if (acc >= 0 && acc > in->acc) acc = fmin(acc, in->acc + lim.max_acc_rate * dt);
        else if (acc < 0 && acc < in->acc) acc = fmax(acc, in->acc - lim.max_dec_rate * dt);
        in->acc = acc;
        v = fmin(v + acc * dt, lim.max_speed);
        if (!a->continuous && fabs(gap - want) < 0.1 && fabs(r->v - v) < 0.1) sb_action_end(sb, s->long_inst);
    } else if (a->type == SIM_SB_A_SYNCHRONIZE) {
        const sim_sb_state_ent *mst = &sb->ent[a->entity];
        double mx, my, ox, oy;
        if (!sb_position(sb, &a->pos2, &mx, &my, NULL, NULL, NULL, NULL) ||
            !sb_position(sb, &a->pos, &ox, &oy, NULL, NULL, NULL, NULL)) {
            sb_action_end(sb, s->long_inst);
            return;
        }
        double dm = dist_xy(mst->x, mst->y, mx, my), d = dist_xy(s->x, s->y, ox, oy);
        /* the final speed: absolute, relative to the master's speed now (RelativeSpeedToMaster,
         * followed as the master's speed changes, as esmini), or none (NAN) */
        double fin = !a->relative ? a->target : a->rel == SIM_SB_REL_FACTOR ? mst->v * a->target : mst->v + a->target;
        if (fin < 0) fin = 0;
        if (dm < 1.0 || d < 1.0) {
            if (!isnan(fin)) v = fin;
            sb_action_end(sb, s->long_inst);
        } else if (mst->v < MIN_SPEED) {
            /* a standing master gives no time to arrive in: keep the speed, wait for it
             * to move (esmini; jumping to the final speed is a step nobody asked for) */
        } else {
            double tm = dm / mst->v;
            /* average speed d/tm; with a final speed the profile is linear to it */
            v = isnan(fin) ? d / tm : fmax(0, 2 * d / tm - fin);
        }
    }
    s->v = v < 0 ? 0 : v;
}

#define LAT_REACHED 0.01 /* m: a LateralDistanceAction that is not continuous ends this close */

/* LateralDistanceAction: the offset from the reference entity (in->d1) kept in the
 * entity's lane frame. No DynamicConstraints: at once. maxSpeed alone: at that lateral
 * speed (at most the entity's speed) straight to it. maxAcceleration: a critically
 * damped spring (stiffness 0.4 maxAcceleration per m, as esmini's), its acceleration
 * within maxAcceleration and changing at most at maxAccelerationRate, the lateral
 * speed within maxSpeed and the entity's speed. */
static void lat_distance(sim_storyboard *sb, sim_sb_state_ent *s, sim_sb_inst *in, const sim_sb_action *a, double dt)
{
    const sim_sb_state_ent *r = &sb->ent[a->entity];
    double err = sb_lat_of(sb, s, r) + in->d1 - s->lat; /* m to move left */
    const sim_sb_limits *given = &a->lim;
    sim_sb_limits lim = sb_limits(&sb->m->entities[in->entity], given);
    bool rigid = isnan(given->max_speed) && isnan(given->max_acc) && isnan(given->max_dec) &&
                 isnan(given->max_acc_rate) && isnan(given->max_dec_rate);
    double vmax = fmin(lim.max_speed, fabs(s->v)), move;
    if (rigid || (!isfinite(lim.max_acc) && !isfinite(lim.max_speed))) {
        move = err;
    } else if (!isfinite(lim.max_acc)) {
        move = fabs(err) <= vmax * dt ? err : copysign(vmax * dt, err);
    } else {
        double k = 0.4 * lim.max_acc, acc = k * err - 2 * sqrt(k) * in->d0;
        acc = fmax(in->acc - lim.max_acc_rate * dt, fmin(in->acc + lim.max_acc_rate * dt, acc));
        acc = fmax(-lim.max_acc, fmin(lim.max_acc, acc));
        in->acc = acc;
        in->d0 = fmax(-vmax, fmin(vmax, in->d0 + acc * dt));
        move = in->d0 * dt;
    }
    s->lat += move;
    if (!a->continuous && fabs(err - move) < LAT_REACHED) sb_action_end(sb, s->lat_inst);
}

static void lateral(sim_storyboard *sb, int e, double dt)
{
    sim_sb_state_ent *s = &sb->ent[e];
    if (s->lat_inst < 0) return;
    sim_sb_inst *in = &sb->inst[s->lat_inst];
    const sim_sb_action *a = &sb->m->actions[in->action];
    if (a->type == SIM_SB_A_LAT_DISTANCE) {
        if (s->on_lane) lat_distance(sb, s, in, a, dt);
        else sb_action_end(sb, s->lat_inst);
        return;
    }
    double tau = sb->t + dt - in->t0;
    if (a->type == SIM_SB_A_LANE_OFFSET && a->relative && a->continuous) in->d1 = sb->ent[a->entity].lat + a->target;
    if (in->T > 0 && tau < in->T) s->lat = in->d0 + (in->d1 - in->d0) * sb_shape(a->dyn.shape, tau / in->T);
    else {
        s->lat = in->d1;
        if (!a->continuous) sb_action_end(sb, s->lat_inst);
    }
}

/* The successor to take at a lane's end: towards the goal when routed, else the first. */
static int next_lane(sim_storyboard *sb, const sim_sb_state_ent *s)
{
    const sim_lg_lane *l = &sb->g->lanes[s->lane];
    if (l->n_succ == 0) return -1;
    if (s->goal_lane < 0 || l->n_succ == 1) return l->succ[0];
    int best = l->succ[0];
    double best_len = route_length(sb, best, s->goal_lane);
    for (int k = 1; k < l->n_succ; k++) {
        double len = route_length(sb, l->succ[k], s->goal_lane);
        if (len < best_len) best = l->succ[k], best_len = len;
    }
    return best;
}

static void follow_path(sim_storyboard *sb, int e, double dt)
{
    sim_sb_state_ent *s = &sb->ent[e];
    sim_sb_inst *in = &sb->inst[s->path_inst];
    const sim_sb_action *a = &sb->m->actions[in->action];
    if (a->type == SIM_SB_A_ACQUIRE_POSITION) return; /* routed on lanes: see next_lane */
    const double *vx = sb->px + in->pool0, *vy = sb->py + in->pool0;
    int n_pts = a->n_route;
    double px = s->x, py = s->y;
    if (a->timed && !isnan(a->pt[0])) {
        /* the vertices' times: position interpolated at the trajectory's time */
        double t = (a->continuous ? sb->t + dt - in->t0 : sb->t + dt) * a->dyn.value + a->target;
        while (in->seg < n_pts - 2 && t > a->pt[in->seg + 1]) in->seg++;
        double t0 = a->pt[in->seg], t1 = a->pt[in->seg + 1];
        double u = t1 > t0 ? (t - t0) / (t1 - t0) : 1;
        if (u < 0) u = 0;
        if (u > 1) u = 1;
        s->x = vx[in->seg] + u * (vx[in->seg + 1] - vx[in->seg]);
        s->y = vy[in->seg] + u * (vy[in->seg + 1] - vy[in->seg]);
        if (t >= a->pt[n_pts - 1]) sb_action_end(sb, s->path_inst);
    } else {
        double left = s->v * dt;
        while (left > 0 && in->seg < n_pts - 1) {
            double sx = vx[in->seg + 1] - vx[in->seg], sy = vy[in->seg + 1] - vy[in->seg];
            double len = hypot(sx, sy), rest = len - in->along;
            if (left < rest) {
                in->along += left;
                left = 0;
            } else {
                left -= rest;
                in->seg++;
                in->along = 0;
            }
        }
        if (in->seg >= n_pts - 1) {
            s->x = vx[n_pts - 1];
            s->y = vy[n_pts - 1];
            sb_action_end(sb, s->path_inst);
        } else {
            double sx = vx[in->seg + 1] - vx[in->seg], sy = vy[in->seg + 1] - vy[in->seg];
            double len = hypot(sx, sy), u = len > 0 ? in->along / len : 0;
            s->x = vx[in->seg] + u * sx;
            s->y = vy[in->seg] + u * sy;
        }
    }
    if (hypot(s->x - px, s->y - py) > 1e-6) s->heading = atan2(s->y - py, s->x - px);
    s->odometer += hypot(s->x - px, s->y - py);
    /* Where its trajectory ended it goes straight on at its speed (sb_move), not snapped
     * onto the nearest lane: esmini keeps such an entity where the trajectory left it
     * (traffic_lights' Pedestrian_1 jumped 24 m when snapped). */
}

/* Along the lane (backwards when reversed): successors (predecessors) at its ends.
 * At the end of a road with nothing after it the entity is held there; held a second
 * step (it was at the end already) its speed is set to 0, as esmini's default
 * controller does (lane_change_simple's comment: an EndOfRoadCondition of 2.5 s resets
 * the speed, one of 0 s, teleporting the entity the step it arrives, does not); an
 * action still running sets it again the next step. */
static void drive_lane(sim_storyboard *sb, sim_sb_state_ent *s, double dt)
{
    const sim_lg_lane *L = sb->g->lanes;
    double lat0 = s->lat;
    bool was_end = s->end_of_road;
    lateral(sb, (int)(s - sb->ent), dt);
    /* speed is along the lane where the entity is, not along the reference line */
    double stretch = lane_stretch(sb->g, s->lane, s->s, s->lat), ds = s->v * dt / stretch;
    s->s += s->reverse ? -ds : ds;
    s->odometer += ds * stretch;
    s->end_of_road = false;
    double over = 0; /* m of s past the end where it is held */
    while (!s->reverse && s->s > L[s->lane].length) {
        int n = next_lane(sb, s);
        if (n < 0) {
            over = s->s - L[s->lane].length;
            s->s = L[s->lane].length;
            break;
        }
        s->s -= L[s->lane].length;
        s->lane = n;
    }
    while (s->reverse && s->s < 0) {
        if (L[s->lane].n_pred == 0) {
            over = -s->s;
            s->s = 0;
            break;
        }
        s->lane = L[s->lane].pred[0];
        s->s += L[s->lane].length;
    }
    s->odometer -= over * stretch;
    if (s->reverse ? s->s <= 1e-9 && L[s->lane].n_pred == 0 : s->s >= L[s->lane].length - 1e-9 && L[s->lane].n_succ == 0)
        s->end_of_road = true;
    if (over > 0 && was_end) s->v = 0;
    if (s->path_inst >= 0 && s->lane == s->goal_lane && s->s >= sb->inst[s->path_inst].d1) {
        sb_action_end(sb, s->path_inst);
        s->goal_lane = -1;
    }
    sb_update_pose(sb, s);
    if (ds > 1e-9) s->heading += atan2((s->lat - lat0) * (s->reverse ? -1 : 1), ds * stretch); /* drifting sideways */
}

void sb_move(sim_storyboard *sb, double dt)
{
    for (int e = 0; e < sb->m->n_entities; e++) {
        sim_sb_state_ent *s = &sb->ent[e];
        if (!s->placed || s->external) {
            if (s->external) { /* its actions still run their course */
                if (s->long_inst >= 0 || s->lat_inst >= 0) {
                    double v = s->v, lat = s->lat;
                    speed_control(sb, e, dt);
                    lateral(sb, e, dt);
                    s->v = v;
                    s->lat = lat;
                }
            }
            continue;
        }
        double v0 = s->v;
        speed_control(sb, e, dt);
        s->a = (s->v - v0) / dt;
        if (s->path_inst >= 0 && !s->on_lane) {
            follow_path(sb, e, dt);
        } else if (s->on_lane) {
            drive_lane(sb, s, dt);
        } else if (s->path_inst < 0) { /* off the lanes, its trajectory done: straight on */
            s->x += s->v * dt * cos(s->heading);
            s->y += s->v * dt * sin(s->heading);
            s->odometer += s->v * dt;
        }
        sim_lg_pos q;
        bool off = sb->track_offroad && !sim_lanegraph_locate(sb->g, s->x, s->y, s->on_lane ? s->lane : -1, 0.0, &q);
        s->offroad_time = off ? s->offroad_time + dt : 0;
        s->still_time = s->v < 1e-3 ? s->still_time + dt : 0;
        s->eor_time = s->end_of_road ? s->eor_time + dt : 0;
    }
}
