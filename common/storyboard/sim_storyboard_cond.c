/* sim_storyboard_cond: the storyboard's conditions and the measures they use (see
 * sim_storyboard.h). Distances between entities are taken in the triggering entity's
 * frame (longitudinal along its heading, lateral across it) or straight (Euclidean);
 * freespace distances are between bounding boxes. */
#include "sim_storyboard_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_storyboard_center(const sim_storyboard *sb, int e, double *x, double *y)
{
    const sim_sb_state_ent *s = &sb->ent[e];
    const sim_sb_entity *m = &sb->m->entities[e];
    double c = cos(s->heading), sn = sin(s->heading);
    *x = s->x + m->center[0] * c - m->center[1] * sn;
    *y = s->y + m->center[0] * sn + m->center[1] * c;
}

/* Corners of e's bounding box, counter-clockwise. */
static void corners(const sim_storyboard *sb, int e, double px[4], double py[4])
{
    double cx, cy, h = sb->ent[e].heading, c = cos(h), s = sin(h);
    const sim_sb_entity *m = &sb->m->entities[e];
    sim_storyboard_center(sb, e, &cx, &cy);
    static const double fx[4] = {1, -1, -1, 1}, fy[4] = {1, 1, -1, -1};
    for (int i = 0; i < 4; i++) {
        double lx = fx[i] * m->length / 2, ly = fy[i] * m->width / 2;
        px[i] = cx + lx * c - ly * s;
        py[i] = cy + lx * s + ly * c;
    }
}

/* Separating axis test of two rectangles. */
bool sim_storyboard_overlap(const sim_storyboard *sb, int a, int b)
{
    double ax[4], ay[4], bx[4], by[4];
    corners(sb, a, ax, ay);
    corners(sb, b, bx, by);
    for (int r = 0; r < 2; r++) {
        const double *px = r ? bx : ax, *py = r ? by : ay;
        for (int i = 0; i < 2; i++) {
            double nx = -(py[i + 1] - py[i]), ny = px[i + 1] - px[i];
            double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
            for (int k = 0; k < 4; k++) {
                double pa = ax[k] * nx + ay[k] * ny, pb = bx[k] * nx + by[k] * ny;
                amin = fmin(amin, pa);
                amax = fmax(amax, pa);
                bmin = fmin(bmin, pb);
                bmax = fmax(bmax, pb);
            }
            if (amax < bmin || bmax < amin) return false;
        }
    }
    return true;
}

static double seg_point(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double u = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    return hypot(px - ax - u * dx, py - ay - u * dy);
}

/* Shortest distance between the bounding boxes (0 when they overlap). */
static double box_dist(const sim_storyboard *sb, int a, int b)
{
    if (sim_storyboard_overlap(sb, a, b)) return 0;
    double ax[4], ay[4], bx[4], by[4], d = INFINITY;
    corners(sb, a, ax, ay);
    corners(sb, b, bx, by);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) {
            d = fmin(d, seg_point(ax[i], ay[i], bx[k], by[k], bx[(k + 1) % 4], by[(k + 1) % 4]));
            d = fmin(d, seg_point(bx[i], by[i], ax[k], ay[k], ax[(k + 1) % 4], ay[(k + 1) % 4]));
        }
    return d;
}

/* Half the extent of e's box along direction (c, s) from its centre. */
static double half_extent(const sim_storyboard *sb, int e, double c, double s)
{
    double h = sb->ent[e].heading;
    const sim_sb_entity *m = &sb->m->entities[e];
    double along = fabs(c * cos(h) + s * sin(h)), across = fabs(-c * sin(h) + s * cos(h));
    return 0.5 * (m->length * along + m->width * across);
}

double sim_storyboard_long_dist(const sim_storyboard *sb, int a, int b, bool freespace)
{
    const sim_sb_state_ent *sa = &sb->ent[a];
    double c = cos(sa->heading), s = sin(sa->heading), ax, ay, bx, by;
    if (!freespace) {
        ax = sa->x;
        ay = sa->y;
        bx = sb->ent[b].x;
        by = sb->ent[b].y;
        return (bx - ax) * c + (by - ay) * s;
    }
    sim_storyboard_center(sb, a, &ax, &ay);
    sim_storyboard_center(sb, b, &bx, &by);
    double d = (bx - ax) * c + (by - ay) * s;
    double gap = fabs(d) - half_extent(sb, a, c, s) - half_extent(sb, b, c, s);
    if (gap < 0) gap = 0;
    return d < 0 ? -gap : gap;
}

static double lat_dist(const sim_storyboard *sb, int a, int b, bool freespace)
{
    const sim_sb_state_ent *sa = &sb->ent[a];
    double c = cos(sa->heading), s = sin(sa->heading), ax, ay, bx, by;
    sim_storyboard_center(sb, a, &ax, &ay);
    sim_storyboard_center(sb, b, &bx, &by);
    if (!freespace) {
        ax = sa->x, ay = sa->y, bx = sb->ent[b].x, by = sb->ent[b].y;
    }
    double d = -(bx - ax) * s + (by - ay) * c;
    if (!freespace) return d;
    double gap = fabs(d) - half_extent(sb, a, -s, c) - half_extent(sb, b, -s, c);
    return gap < 0 ? 0 : d < 0 ? -gap : gap;
}

static bool compare(sim_sb_rule r, double a, double b)
{
    if (isnan(a)) return false;
    switch (r) {
    case SIM_SB_GT: return a > b;
    case SIM_SB_LT: return a < b;
    case SIM_SB_EQ: return fabs(a - b) < 1e-9;
    case SIM_SB_GE: return a >= b;
    case SIM_SB_LE: return a <= b;
    default: return fabs(a - b) >= 1e-9;
    }
}

/* Distance from entity e to a position (reference point, or its box when freespace). */
static double pos_dist(const sim_storyboard *sb, int e, const sim_sb_condition *c)
{
    double x, y, h;
    if (!sb_position(sb, &c->pos, &x, &y, &h, NULL, NULL, NULL)) return NAN;
    const sim_sb_state_ent *s = &sb->ent[e];
    double ex = s->x, ey = s->y;
    if (c->freespace) sim_storyboard_center(sb, e, &ex, &ey);
    double dx = x - ex, dy = y - ey, ch = cos(s->heading), sh = sin(s->heading);
    double d = c->dist == SIM_SB_DIST_LONG ? fabs(dx * ch + dy * sh)
               : c->dist == SIM_SB_DIST_LAT ? fabs(-dx * sh + dy * ch) : hypot(dx, dy);
    if (c->freespace)
        d -= c->dist == SIM_SB_DIST_LAT ? sb->m->entities[e].width / 2
             : c->dist == SIM_SB_DIST_LONG ? sb->m->entities[e].length / 2 : half_extent(sb, e, dx / fmax(hypot(dx, dy), 1e-9), dy / fmax(hypot(dx, dy), 1e-9));
    return d < 0 ? 0 : d;
}

/* The value an entity condition compares for triggering entity e (NAN: undefined). */
static double entity_value(sim_storyboard *sb, const sim_sb_condition *c, int e)
{
    const sim_sb_state_ent *s = &sb->ent[e];
    int r = c->entity;
    switch (c->type) {
    case SIM_SB_C_SPEED: return s->v;
    case SIM_SB_C_ACCELERATION: return s->a;
    case SIM_SB_C_RELATIVE_SPEED: return s->v - sb->ent[r].v;
    case SIM_SB_C_STANDSTILL: return s->v < 1e-3 ? s->still_time : -1;
    case SIM_SB_C_END_OF_ROAD: return s->end_of_road ? s->eor_time : -1;
    case SIM_SB_C_TRAVELED: return s->odometer;
    case SIM_SB_C_REACH_POSITION:
    case SIM_SB_C_DISTANCE: return pos_dist(sb, e, c);
    case SIM_SB_C_RELATIVE_DISTANCE:
        if (!sb->ent[r].placed) return NAN;
        if (c->dist == SIM_SB_DIST_LONG) return fabs(sim_storyboard_long_dist(sb, e, r, c->freespace));
        if (c->dist == SIM_SB_DIST_LAT) return fabs(lat_dist(sb, e, r, c->freespace));
        if (c->freespace) return box_dist(sb, e, r);
        return hypot(sb->ent[r].x - s->x, sb->ent[r].y - s->y);
    case SIM_SB_C_TIME_HEADWAY: {
        if (!sb->ent[r].placed) return NAN;
        double d = c->dist == SIM_SB_DIST_EUCLID ? (c->freespace ? box_dist(sb, e, r) : hypot(sb->ent[r].x - s->x, sb->ent[r].y - s->y))
                                                 : sim_storyboard_long_dist(sb, e, r, c->freespace);
        if (c->dist == SIM_SB_DIST_EUCLID && sim_storyboard_long_dist(sb, e, r, false) < 0) d = -d;
        if (d <= 0) return NAN; /* not defined for a vehicle behind */
        return s->v > 1e-6 ? d / s->v : INFINITY;
    }
    case SIM_SB_C_TTC: {
        double d, closing;
        double ch = cos(s->heading), sh = sin(s->heading);
        if (r >= 0) {
            if (!sb->ent[r].placed) return NAN;
            d = sim_storyboard_long_dist(sb, e, r, c->freespace);
            double rv = sb->ent[r].v * cos(sb->ent[r].heading - s->heading);
            closing = s->v - rv;
        } else {
            double x, y;
            if (!sb_position(sb, &c->pos, &x, &y, NULL, NULL, NULL, NULL)) return NAN;
            d = (x - s->x) * ch + (y - s->y) * sh;
            closing = s->v;
        }
        if (d <= 0 || closing <= 1e-9) return NAN; /* not closing in: no collision to come */
        return d / closing;
    }
    default: return NAN;
    }
}

/* RelativeClearanceCondition for lane-bound entity e: does no other entity (of those
 * named, else any) lie between dist_back behind and value ahead of it (bumper to
 * bumper when freespace) in a lane the ranges name (relative lane numbers, left +, in
 * e's direction; a lane the other way only when opposite)? An entity's lane is the
 * lane centre nearest to it across e's road. */
static bool clearance(sim_storyboard *sb, const sim_sb_condition *c, int e)
{
    const sim_sb_state_ent *s = &sb->ent[e];
    if (!s->on_lane) return false;
    const sim_lanegraph *g = sb->g;
    const sim_lg_lane *ln = &g->lanes[s->lane];
    double rs = sim_lanegraph_road_s(g, s->lane, s->s);
    /* the centres of the lanes beside e's, relative lane k at shift[k + 8] */
    double shift[17];
    bool ok[17], fwd[17];
    for (int k = -8; k <= 8; k++) {
        int id = ln->lane_id, step = (k > 0) == ln->forward ? 1 : -1;
        for (int q = 0; q < abs(k); q++) {
            id += step;
            if (id == 0) id += step;
        }
        int o = sim_lanegraph_find(g, ln->road, id, rs);
        ok[k + 8] = o >= 0;
        if (o < 0) continue;
        double ax, ay, ah, bx, by, bh;
        sim_lanegraph_pose(g, s->lane, s->s, 0, &ax, &ay, &ah);
        sim_lanegraph_pose(g, o, sim_lanegraph_lane_s(g, o, rs), 0, &bx, &by, &bh);
        shift[k + 8] = -(bx - ax) * sin(ah) + (by - ay) * cos(ah);
        fwd[k + 8] = g->lanes[o].forward == ln->forward;
    }
    for (int i = 0; i < (c->n_ref ? c->n_ref : sb->m->n_entities); i++) {
        int o = c->n_ref ? sb->m->trig[c->ref0 + i] : i;
        if (o == e || !sb->ent[o].placed) continue;
        double d = sim_storyboard_long_dist(sb, e, o, c->freespace);
        if (d > c->value || d < -c->dist_back) continue;
        double lat = sb_lat_of(sb, s, &sb->ent[o]), best = INFINITY;
        int rel = 99;
        for (int k = -8; k <= 8; k++)
            if (ok[k + 8] && fabs(lat - shift[k + 8]) < best) best = fabs(lat - shift[k + 8]), rel = k;
        if (rel == 99 || (!fwd[rel + 8] && !c->opposite)) continue;
        bool in_range = c->n_ranges == 0;
        for (int r = 0; r < c->n_ranges && !in_range; r++) in_range = rel >= c->lane_from[r] && rel <= c->lane_to[r];
        if (in_range) return false;
    }
    return true;
}

static bool entity_holds(sim_storyboard *sb, const sim_sb_condition *c, int e)
{
    if (!sb->ent[e].placed) return false;
    switch (c->type) {
    case SIM_SB_C_REACH_POSITION: return entity_value(sb, c, e) < c->tolerance;
    case SIM_SB_C_STANDSTILL:
    case SIM_SB_C_END_OF_ROAD:
    case SIM_SB_C_TRAVELED: return entity_value(sb, c, e) >= c->value - 1e-9;
    case SIM_SB_C_OFFROAD: return sb->ent[e].offroad_time > 0 && sb->ent[e].offroad_time >= c->value - 1e-9;
    case SIM_SB_C_CLEARANCE: return clearance(sb, c, e);
    case SIM_SB_C_COLLISION:
        if (c->entity >= 0) return c->entity != e && sb->ent[c->entity].placed && sim_storyboard_overlap(sb, e, c->entity);
        for (int o = 0; o < sb->m->n_entities; o++)
            if (o != e && sb->ent[o].placed && sim_storyboard_overlap(sb, e, o)) return true;
        return false;
    default: return compare(c->rule, entity_value(sb, c, e), c->value);
    }
}

bool sb_condition(sim_storyboard *sb, int ci)
{
    const sim_sb_condition *c = &sb->m->conds[ci];
    switch (c->type) {
    case SIM_SB_C_SIM_TIME: return compare(c->rule, sb->t, c->value);
    case SIM_SB_C_ELEMENT_STATE:
        if (c->state <= SIM_SB_ST_COMPLETE) return sb->state[c->element] == c->state;
        return sb->trans[c->element] == c->state && sb->step - sb->trans_step[c->element] <= 1;
    case SIM_SB_C_SIGNAL:
    case SIM_SB_C_SIGNAL_PHASE: return sb_signal_shows(sb, c);
    case SIM_SB_C_PARAMETER: {
        const char *v = sb->pvalue[c->param];
        char *e1, *e2;
        double a = strtod(v, &e1), b = strtod(c->pvalue, &e2);
        bool num = !isnan(sb->pnum[c->param]) || (e1 != v && !*e1);
        if (!isnan(sb->pnum[c->param])) a = sb->pnum[c->param];
        if (num && e2 != c->pvalue && !*e2) return compare(c->rule, a, b);
        int k = strcmp(v, c->pvalue);
        return c->rule == SIM_SB_EQ ? k == 0 : c->rule == SIM_SB_NE ? k != 0 : false;
    }
    default: break;
    }
    const int *tr = sb->m->trig + c->trig0;
    for (int i = 0; i < c->n_trig; i++) {
        bool h = entity_holds(sb, c, tr[i]);
        if (c->all && !h) return false;
        if (!c->all && h) return true;
    }
    return c->all && c->n_trig > 0;
}
