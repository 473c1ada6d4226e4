/* sim_storyboard_act: the storyboard's private actions (see
 * sim_storyboard.h): positions, targets, and what each action does when it starts
 * (the motion it sets going is in sim_storyboard_move.c). */
#include "sim_storyboard_impl.h"
#include "sim_sb_nurbs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SPEED 0.1   /* m/s: durations given as distances use at least this speed */

double sb_shape(sim_sb_shape s, double u)
{
    if (u <= 0) return s == SIM_SB_SHAPE_STEP ? 1 : 0;
    if (u >= 1) return 1;
    switch (s) {
    case SIM_SB_SHAPE_LINEAR: return u;
    case SIM_SB_SHAPE_CUBIC: return u * u * (3 - 2 * u);
    case SIM_SB_SHAPE_SINUSOIDAL: return 0.5 - 0.5 * cos(M_PI * u);
    default: return 1;
    }
}

void sb_update_pose(sim_storyboard *sb, sim_sb_state_ent *e)
{
    if (!e->on_lane) return;
    sim_lanegraph_pose(sb->g, e->lane, e->s, e->lat, &e->x, &e->y, &e->heading);
    if (e->reverse) e->heading = remainder(e->heading + M_PI, 2 * M_PI);
}

/* The graph lane of road lane (road, lane id) at road s, and the lane's s. */
static int graph_lane(const sim_storyboard *sb, int road, int lane_id, double road_s, double *s)
{
    int l = sim_lanegraph_find(sb->g, road, lane_id, road_s);
    if (l >= 0) *s = sim_lanegraph_lane_s(sb->g, l, road_s);
    return l;
}

/* Lateral distance (left +, in lane l's direction of travel) from the centre of graph
 * lane l to that of graph lane o at the same road s, measured in the world: lanes
 * traffic does not use (borders, shoulders) may lie between them. */
static double lane_shift(const sim_lanegraph *g, int l, int o, double road_s)
{
    double ax, ay, ah, bx, by, bh;
    sim_lanegraph_pose(g, l, sim_lanegraph_lane_s(g, l, road_s), 0, &ax, &ay, &ah);
    sim_lanegraph_pose(g, o, sim_lanegraph_lane_s(g, o, road_s), 0, &bx, &by, &bh);
    return -(bx - ax) * sin(ah) + (by - ay) * cos(ah);
}

/* The road lane id n lanes to the left (negative: right) of lane id in the direction
 * of travel of a vehicle going with (forward) or against the road's s; 0 is skipped. */
static int lane_id_beside(int id, int n, bool forward)
{
    int step = (n > 0) == forward ? 1 : -1;
    for (int k = 0; k < abs(n); k++) {
        id += step;
        if (id == 0) id += step;
    }
    return id;
}

/* The lane id where an entity is: its graph lane's, or the one its offset took it to
 * (the nearest lane centre of its road's section). */
static int lane_id_at(const sim_lanegraph *g, const sim_sb_state_ent *e)
{
    const sim_lg_lane *ln = &g->lanes[e->lane];
    double rs = sim_lanegraph_road_s(g, e->lane, e->s), best = INFINITY;
    int id = ln->lane_id;
    for (int k = -8; k <= 8; k++) {
        int o = k ? sim_lanegraph_find(g, ln->road, k, rs) : -1;
        if (o < 0) continue;
        double d = fabs(lane_shift(g, e->lane, o, rs) - e->lat);
        if (d < best) {
            best = d;
            id = k;
        }
    }
    return id;
}

/* The offset from an entity's graph lane's centre to that of the road lane it is in
 * (0 but after a lane change into a lane the other way). */
static double lane_base(const sim_lanegraph *g, const sim_sb_state_ent *e)
{
    const sim_lg_lane *ln = &g->lanes[e->lane];
    double rs = sim_lanegraph_road_s(g, e->lane, e->s);
    int o = sim_lanegraph_find(g, ln->road, lane_id_at(g, e), rs);
    return o >= 0 && o != e->lane ? lane_shift(g, e->lane, o, rs) : 0;
}

/* The lane n lanes to the left (negative: right) of graph lane l at lane s, as a graph
 * lane going the same way (*out) or, for a lane the other way or none in the graph, l
 * itself with the lateral shift to that lane's centre (*shift); false when there is no
 * such lane. */
static bool lane_beside(const sim_lanegraph *g, int l, double road_s, int n, int *out, double *shift)
{
    const sim_lg_lane *ln = &g->lanes[l];
    int gl = sim_lanegraph_find(g, ln->road, lane_id_beside(ln->lane_id, n, ln->forward), road_s);
    if (gl < 0) return false;
    if (g->lanes[gl].forward == ln->forward) {
        *out = gl;
        *shift = 0;
    } else {
        *out = l;
        *shift = lane_shift(g, l, gl, road_s);
    }
    return true;
}

bool sb_position(const sim_storyboard *sb, const sim_sb_position *p, double *x, double *y, double *h, int *lane,
                 double *s, double *lat)
{
    int l = -1;
    double ls = 0, llat = 0, hh = 0;
    const sim_sb_state_ent *r = p->entity >= 0 ? &sb->ent[p->entity] : NULL;
    if (r && !r->placed) return false;
    switch (p->kind) {
    case SIM_SB_POS_WORLD:
        *x = p->x;
        *y = p->y;
        hh = p->h;
        break;
    case SIM_SB_POS_LANE:
        l = graph_lane(sb, p->road_index, p->lane, p->s, &ls);
        llat = p->offset;
        if (l < 0 && !p->has_xy) return false;
        if (l < 0) { /* a lane traffic does not use: its world pose, off the graph */
            *x = p->x;
            *y = p->y;
            hh = p->h;
            break;
        }
        /* offsets are to the left of the road's s; a lane travelled against s has its left the other way */
        if (!sb->g->lanes[l].forward) llat = -llat;
        break;
    case SIM_SB_POS_ROAD:
        return false; /* the reader turns road points into world points (sim_xosc_resolve_roads) */
    case SIM_SB_POS_REL_LANE:
    case SIM_SB_POS_REL_ROAD: {
        /* an entity off the lanes (a trajectory took it there) is measured from the lane
         * its reference point lies on */
        sim_lg_pos q = {.lane = r->lane, .s = r->s, .lat = r->lat};
        if (!r->on_lane && !sim_lanegraph_locate(sb->g, r->x, r->y, -1, 0.0, &q)) return false;
        double shift = 0, rs = sim_lanegraph_road_s(sb->g, q.lane, q.s);
        l = q.lane;
        /* a lane beside that traffic does not use (a shoulder, a border: not in the graph)
         * is taken as lanes as wide as the entity's */
        if (p->dlane != 0 && !lane_beside(sb->g, q.lane, rs, p->dlane, &l, &shift)) {
            l = q.lane;
            shift = p->dlane * sb->g->lanes[q.lane].width;
        }
        ls = sim_lanegraph_lane_s(sb->g, l, rs) + p->ds;
        llat = shift + (p->kind == SIM_SB_POS_REL_LANE ? p->offset : q.lat + p->t);
        while (ls > sb->g->lanes[l].length && sb->g->lanes[l].n_succ > 0) {
            ls -= sb->g->lanes[l].length;
            l = sb->g->lanes[l].succ[0];
        }
        while (ls < 0 && sb->g->lanes[l].n_pred > 0) {
            l = sb->g->lanes[l].pred[0];
            ls += sb->g->lanes[l].length;
        }
        break;
    }
    case SIM_SB_POS_REL_WORLD:
        *x = r->x + p->dx;
        *y = r->y + p->dy;
        hh = r->heading;
        break;
    case SIM_SB_POS_REL_OBJECT:
        *x = r->x + p->dx * cos(r->heading) - p->dy * sin(r->heading);
        *y = r->y + p->dx * sin(r->heading) + p->dy * cos(r->heading);
        hh = r->heading;
        break;
    default:
        return false;
    }
    if (l >= 0) {
        if (ls < 0) ls = 0;
        if (ls > sb->g->lanes[l].length) ls = sb->g->lanes[l].length;
        sim_lanegraph_pose(sb->g, l, ls, llat, x, y, &hh);
    }
    if (p->has_h && p->kind != SIM_SB_POS_WORLD && !(p->kind == SIM_SB_POS_LANE && l < 0))
        hh = p->h_abs ? p->h : hh + p->h; /* relative: to the lane or the entity */
    else if (p->has_h && p->kind == SIM_SB_POS_WORLD)
        hh = p->h;
    if (h) *h = hh;
    if (lane) {
        *lane = l;
        *s = ls;
        *lat = llat;
    }
    return true;
}

bool sb_place(sim_storyboard *sb, int e, const sim_sb_position *p)
{
    sim_sb_state_ent *s = &sb->ent[e];
    double x, y, h, ls, lat;
    int l;
    if (!sb_position(sb, p, &x, &y, &h, &l, &ls, &lat)) return false;
    s->placed = true;
    if (l < 0 && p->kind != SIM_SB_POS_LANE) { /* a world position: on a lane when it lies on one */
        sim_lg_pos q;
        if (sim_lanegraph_locate(sb->g, x, y, -1, 0.5, &q) && fabs(cos(q.heading - h)) > 0.5) {
            l = q.lane;
            ls = q.s;
            lat = q.lat;
        }
    }
    s->on_lane = l >= 0;
    /* Heading against the lane (a relative heading of pi): it drives the lane backwards,
     * as esmini does, rather than turning to the lane's direction. */
    s->reverse = false;
    if (s->on_lane) {
        double lx, ly, lh;
        sim_lanegraph_pose(sb->g, l, ls, lat, &lx, &ly, &lh);
        s->reverse = cos(h - lh) < -0.5;
    }
    s->x = x;
    s->y = y;
    s->heading = h;
    if (s->on_lane) {
        s->lane = l;
        s->s = ls;
        s->lat = lat;
        sb_update_pose(sb, s);
    }
    s->end_of_road = false;
    return true;
}

double sb_target_speed(const sim_storyboard *sb, const sim_sb_action *a)
{
    if (!a->relative) return a->target;
    double rv = sb->ent[a->entity].v;
    return a->rel == SIM_SB_REL_FACTOR ? rv * a->target : rv + a->target;
}

/* A speed change's duration within the entity's Performance (OpenSCENARIO: the
 * acceleration never exceeds maxAcceleration, the deceleration maxDeceleration): a
 * shape's steepest slope is peak * dv / T (linear 1, cubic 3/2 at its middle,
 * sinusoidal pi/2), so T is stretched to peak * dv / limit when shorter, as esmini
 * does (a cubic 0 -> 25 m/s over 4 s at maxAcceleration 5 takes 7.5 s). */
static double perf_duration(const sim_sb_entity *en, sim_sb_shape shape, double v0, double v1, double T)
{
    double limit = v1 > v0 ? en->max_accel : en->max_decel;
    if (!(limit > 0)) return T; /* not given: no limit */
    double peak = shape == SIM_SB_SHAPE_CUBIC ? 1.5 : shape == SIM_SB_SHAPE_SINUSOIDAL ? M_PI / 2 : 1.0;
    return fmax(T, peak * fabs(v1 - v0) / limit);
}

/* A lane change's target: the road lane id n lanes beside the reference entity's (or
 * an absolute id), as a graph lane going the entity's way (*switch_to, the entity
 * moves onto it) or as an offset on its own lane (a lane the other way, e.g. to
 * overtake); *d0 and *d1 the start and end offsets in the lane it ends on. */
static bool change_target(const sim_storyboard *sb, const sim_sb_action *a, const sim_sb_state_ent *e, int *switch_to,
                          double *d0, double *d1)
{
    const sim_lanegraph *g = sb->g;
    const sim_lg_lane *ln = &g->lanes[e->lane];
    int id;
    if (a->relative) {
        const sim_sb_state_ent *r = &sb->ent[a->entity];
        if (!r->on_lane) return false;
        id = lane_id_beside(lane_id_at(g, r), (int)lround(a->target), g->lanes[r->lane].forward);
    } else {
        id = (int)lround(a->target);
    }
    double rs = sim_lanegraph_road_s(g, e->lane, e->s);
    int gl = sim_lanegraph_find(g, ln->road, id, rs);
    if (gl < 0) return false;
    double shift = lane_shift(g, e->lane, gl, rs); /* to the target's centre, in the entity's frame */
    if (gl >= 0 && g->lanes[gl].forward == ln->forward) {
        *switch_to = gl;
        *d0 = e->lat - shift;
        *d1 = a->pos.offset;
    } else {
        *switch_to = -1;
        *d0 = e->lat;
        *d1 = shift + a->pos.offset;
    }
    return true;
}

/* Lane offset dynamics: a duration from the largest lateral acceleration allowed. */
static double offset_duration(sim_sb_shape shape, double dist, double max_acc)
{
    if (!(max_acc > 0) || dist <= 0 || shape == SIM_SB_SHAPE_STEP) return 0;
    if (shape == SIM_SB_SHAPE_SINUSOIDAL) return M_PI * sqrt(dist / (2 * max_acc));
    if (shape == SIM_SB_SHAPE_CUBIC) return sqrt(6 * dist / max_acc);
    return 2 * sqrt(dist / max_acc); /* linear: as fast as accelerating then braking at max_acc */
}

/* One of a DynamicConstraints' limits: as given, within the entity's Performance (perf
 * > 0), as esmini does; a value of 0 or less is taken as `dflt`; not given, the
 * Performance's, else none. */
static double constraint(double given, double perf, double dflt)
{
    if (isnan(given)) return perf > 0 ? perf : INFINITY;
    if (!(given > 0)) given = dflt;
    return perf > 0 ? fmin(given, perf) : given;
}

/* The limits an action's DynamicConstraints leave entity en (esmini's defaults for
 * values of 0: 250 km/h, 5 and 10 m/s^2, no jerk limit). */
sim_sb_limits sb_limits(const sim_sb_entity *en, const sim_sb_limits *given)
{
    return (sim_sb_limits){.max_speed = constraint(given->max_speed, en->max_speed, 250 / 3.6),
                           .max_acc = constraint(given->max_acc, en->max_accel, 5),
                           .max_dec = constraint(given->max_dec, en->max_decel, 10),
                           .max_acc_rate = constraint(given->max_acc_rate, 0, INFINITY),
                           .max_dec_rate = constraint(given->max_dec_rate, 0, INFINITY)};
}

double sb_lat_of(const sim_storyboard *sb, const sim_sb_state_ent *e, const sim_sb_state_ent *r)
{
    double cx, cy, ch;
    sim_lanegraph_pose(sb->g, e->lane, e->s, 0, &cx, &cy, &ch);
    return -(r->x - cx) * sin(ch) + (r->y - cy) * cos(ch);
}

/* A Clothoid's vertices from its start pose (its Position, or where the entity is):
 * heading h + k s + dk s^2 / 2 after s m, the chords' ends integrated by Simpson's
 * rule over 16 pieces each. */
static bool clothoid_vertices(const sim_storyboard *sb, const sim_sb_action *a, const sim_sb_state_ent *e, double *px,
                              double *py)
{
    double x = e->x, y = e->y, h = e->heading;
    if (a->pos.kind != SIM_SB_POS_NONE && !sb_position(sb, &a->pos, &x, &y, &h, NULL, NULL, NULL)) return false;
    int n = a->n_route, m = 16;
    double ds = a->clo_len / (n - 1) / m;
    px[0] = x;
    py[0] = y;
    for (int k = 1; k < n; k++) {
        for (int i = 0; i < m; i++) {
            double s0 = ((k - 1) * m + i) * ds, th[3];
            for (int q = 0; q < 3; q++) {
                double u = s0 + q * ds / 2;
                th[q] = h + a->clo_k * u + a->clo_dk * u * u / 2;
            }
            x += ds / 6 * (cos(th[0]) + 4 * cos(th[1]) + cos(th[2]));
            y += ds / 6 * (sin(th[0]) + 4 * sin(th[1]) + sin(th[2]));
        }
        px[k] = x;
        py[k] = y;
    }
    return true;
}

/* A Nurbs' vertices: its control points where they are now, the curve at evenly
 * spaced parameters over its knots' range. */
static bool nurbs_vertices(const sim_storyboard *sb, const sim_sb_action *a, double *px, double *py)
{
    double cx[SIM_SB_NURBS_MAX], cy[SIM_SB_NURBS_MAX];
    for (int k = 0; k < a->n_ctrl; k++)
        if (!sb_position(sb, &a->ctrl[k], &cx[k], &cy[k], NULL, NULL, NULL, NULL)) return false;
    double u0 = a->kn[a->order - 1], u1 = a->kn[a->n_ctrl];
    for (int k = 0; k < a->n_route; k++) {
        double u = u0 + (u1 - u0) * k / (a->n_route - 1);
        px[k] = sim_sb_nurbs_value(a->kn, a->order, a->cw, cx, a->n_ctrl, u);
        py[k] = sim_sb_nurbs_value(a->kn, a->order, a->cw, cy, a->n_ctrl, u);
    }
    return true;
}

void sb_action_end(sim_storyboard *sb, int i)
{
    sim_sb_inst *in = &sb->inst[i];
    if (!in->running) return;
    in->running = false;
    if (in->entity < 0) return;
    sim_sb_state_ent *e = &sb->ent[in->entity];
    if (e->long_inst == i) e->long_inst = -1;
    if (e->lat_inst == i) e->lat_inst = -1;
    if (e->path_inst == i) e->path_inst = -1;
}

void sb_action_start(sim_storyboard *sb, int i)
{
    sim_sb_inst *in = &sb->inst[i];
    const sim_sb_action *a = &sb->m->actions[in->action];
    in->running = true;
    in->t0 = sb->t;
    in->T = 0;
    if (a->type == SIM_SB_A_PARAM_SET || a->type == SIM_SB_A_PARAM_ADD || a->type == SIM_SB_A_PARAM_MULTIPLY) {
        int p = sim_sb_model_find_param(sb->m, a->param);
        if (p >= 0 && a->type == SIM_SB_A_PARAM_SET) {
            memcpy(sb->pvalue[p], a->value, SIM_SB_NAME);
            sb->pnum[p] = NAN;
        } else if (p >= 0) { /* kept as a number: the engine formats no text */
            double v = isnan(sb->pnum[p]) ? strtod(sb->pvalue[p], NULL) : sb->pnum[p];
            sb->pnum[p] = a->type == SIM_SB_A_PARAM_ADD ? v + a->target : v * a->target;
        }
        in->running = false;
        return;
    }
    if (a->type == SIM_SB_A_SIGNAL_STATE || a->type == SIM_SB_A_SIGNAL_PHASE) { /* done at once: the caller applies it (sig_req) */
        sb_signal_request(sb, a);
        in->running = false;
        return;
    }
    if (in->entity < 0 || a->type == SIM_SB_A_IGNORED || a->type == SIM_SB_A_ENVIRONMENT) {
        in->running = false;
        return;
    }
    sim_sb_state_ent *e = &sb->ent[in->entity];
    switch (a->type) {
    case SIM_SB_A_SPEED:
    case SIM_SB_A_LONG_DISTANCE:
    case SIM_SB_A_SYNCHRONIZE:
        if (e->long_inst >= 0) sb_action_end(sb, e->long_inst); /* the newer longitudinal action wins */
        e->long_inst = i;
        in->acc = e->a; /* a distance controller starts from the acceleration the entity has */
        if (a->type != SIM_SB_A_SPEED) break;
        in->v0 = e->v;
        in->v1 = sb_target_speed(sb, a);
        if (sb->m->entities[in->entity].max_speed > 0) in->v1 = fmin(in->v1, sb->m->entities[in->entity].max_speed);
        if (a->dyn.dim == SIM_SB_DIM_TIME) in->T = a->dyn.value;
        else if (a->dyn.dim == SIM_SB_DIM_RATE) in->T = a->dyn.value > 0 ? fabs(in->v1 - in->v0) / a->dyn.value : 0;
        else in->T = fabs(in->v0 + in->v1) > 1e-9 ? 2 * a->dyn.value / fabs(in->v0 + in->v1) : 0;
        if (a->dyn.shape != SIM_SB_SHAPE_STEP) in->T = perf_duration(&sb->m->entities[in->entity], a->dyn.shape, in->v0, in->v1, in->T);
        if (a->dyn.shape == SIM_SB_SHAPE_STEP || in->T <= 0) {
            e->a = 0;
            e->v = in->v1;
            if (!a->continuous) sb_action_end(sb, i);
        }
        break;
    case SIM_SB_A_SPEED_PROFILE: {
        if (e->long_inst >= 0) sb_action_end(sb, e->long_inst);
        e->long_inst = i;
        sim_sb_limits lim = sb_limits(&sb->m->entities[in->entity], &a->lim);
        double offset = a->relative ? sb->ent[a->entity].v : 0;
        in->seg = 0;
        in->n_seg = sim_sb_profile_plan(a->pt, a->pv, a->n_prof, a->follow, e->v, e->a, offset, &lim, sb->prof + in->prof0);
        break;
    }
    case SIM_SB_A_LANE_CHANGE: {
        if (!e->on_lane) {
            in->running = false;
            break;
        }
        int tl;
        if (!change_target(sb, a, e, &tl, &in->d0, &in->d1)) { /* no such lane: nothing to do */
            in->running = false;
            break;
        }
        if (e->lat_inst >= 0) sb_action_end(sb, e->lat_inst);
        e->lat_inst = i;
        if (tl >= 0) {
            double rs = sim_lanegraph_road_s(sb->g, e->lane, e->s);
            e->lane = tl;
            e->s = sim_lanegraph_lane_s(sb->g, tl, rs);
        }
        e->lat = in->d0;
        in->T = a->dyn.dim == SIM_SB_DIM_TIME       ? a->dyn.value
                : a->dyn.dim == SIM_SB_DIM_DISTANCE ? a->dyn.value / fmax(fabs(e->v), MIN_SPEED)
                : a->dyn.value > 0                  ? fabs(in->d1 - in->d0) / a->dyn.value : 0;
        if (a->dyn.shape == SIM_SB_SHAPE_STEP || in->T <= 0) {
            e->lat = in->d1;
            sb_action_end(sb, i);
        }
        break;
    }
    case SIM_SB_A_LANE_OFFSET:
        if (!e->on_lane) {
            in->running = false;
            break;
        }
        if (e->lat_inst >= 0) sb_action_end(sb, e->lat_inst);
        e->lat_inst = i;
        in->d0 = e->lat;
        /* an absolute offset is from the centre of the lane the entity is in, which after
         * a lane change into a lane the other way is not its graph lane (esmini) */
        in->d1 = a->relative ? sb->ent[a->entity].lat + a->target : lane_base(sb->g, e) + a->target;
        in->T = offset_duration(a->dyn.shape, fabs(in->d1 - in->d0), a->dyn.value);
        if (in->T <= 0) {
            e->lat = in->d1;
            if (!a->continuous) sb_action_end(sb, i);
        }
        break;
    case SIM_SB_A_LAT_DISTANCE: {
        const sim_sb_state_ent *r = &sb->ent[a->entity];
        if (!e->on_lane || !r->placed || a->entity == in->entity) {
            in->running = false;
            break;
        }
        if (e->lat_inst >= 0) sb_action_end(sb, e->lat_inst);
        e->lat_inst = i;
        /* the wanted offset from the reference entity, in the entity's lane frame: on the
         * side asked for (any: the side it is on), the distance given (freespace: between
         * the boxes' sides) or the one it has now */
        double now = e->lat - sb_lat_of(sb, e, r);
        int side = a->side ? a->side : now >= 0 ? 1 : -1;
        const sim_sb_entity *me = &sb->m->entities[in->entity], *re = &sb->m->entities[a->entity];
        double dist = isnan(a->target) ? fabs(now) : a->target + (a->freespace ? (me->width + re->width) / 2 : 0);
        in->d1 = side * dist;
        in->d0 = 0; /* lateral speed */
        in->acc = 0;
        break;
    }
    case SIM_SB_A_TELEPORT:
        sb_place(sb, in->entity, &a->pos);
        in->running = false;
        break;
    case SIM_SB_A_FOLLOW_TRAJECTORY: {
        /* the vertices where they are now (relative ones from where their entity is) */
        bool ok = true;
        if (a->clothoid) ok = clothoid_vertices(sb, a, e, sb->px + in->pool0, sb->py + in->pool0);
        if (a->nurbs) ok = nurbs_vertices(sb, a, sb->px + in->pool0, sb->py + in->pool0);
        for (int k = 0; k < a->n_route && ok && !a->clothoid && !a->nurbs; k++)
            ok = sb_position(sb, &a->route[k], &sb->px[in->pool0 + k], &sb->py[in->pool0 + k], NULL, NULL, NULL, NULL);
        if (!ok) {
            in->running = false;
            break;
        }
        if (e->path_inst >= 0) sb_action_end(sb, e->path_inst);
        e->path_inst = i;
        in->seg = 0;
        in->along = 0;
        e->on_lane = false;
        break;
    }
    case SIM_SB_A_ACQUIRE_POSITION:
    case SIM_SB_A_ASSIGN_ROUTE: {
        const sim_sb_position *goal = a->type == SIM_SB_A_ASSIGN_ROUTE ? &a->route[a->n_route - 1] : &a->pos;
        double x, y, h, s, lat;
        int l;
        if (!sb_position(sb, goal, &x, &y, &h, &l, &s, &lat)) {
            sim_lg_pos q;
            l = sim_lanegraph_locate(sb->g, x, y, -1, 1.0, &q) ? q.lane : -1;
        }
        e->goal_lane = l;
        if (a->type == SIM_SB_A_ASSIGN_ROUTE || l < 0) in->running = false; /* a route is assigned at once */
        else in->d1 = s;
        if (e->path_inst >= 0) sb_action_end(sb, e->path_inst);
        if (in->running) e->path_inst = i;
        break;
    }
    default:
        in->running = false;
        break;
    }
}

