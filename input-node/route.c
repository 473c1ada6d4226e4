/* route: scenario -> path for the scripted driver (see route.h).
 *
 * The path starts at the start point and follows the lane graph (sim_roadnet_lane_next):
 * along its lane to the end of each lane section in the direction of travel (right
 * lanes run with the reference line in right-hand traffic, left lanes against it),
 * then into the linked lane of the next section or road, or through a junction by the
 * connection that carries the current lane and turns least (the driver goes straight
 * on where it can); roads linked without lane links continue in the nearest lane. One
 * point a metre, laterally at the ideal line of the task covering each s (moving into
 * it over TASK_LEAD_M before the task, not stepping into it); after a task,
 * on the same road, where it ended; elsewhere the current lane's centre, which follows
 * lane widths and the lane offset. Each point carries the lane's speed limit, lowered
 * for the path's curvature so that the car slows down for turns. It ends at a dead
 * end, after ROUTE_MAX_M, or when it would drive a road a third time (a ring). */
#include "route.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "route_goal.h"
#include "sim_road.h"
#include "sim_scenario.h"

#define PATH_STEP 1.0       /* m between path points */
#define ROUTE_MAX_M 30000.0 /* longest path built */
#define ROUTE_MAX_PIECES 1024 /* lane pieces (a lane in one lane section) driven, at most */
#define CURVE_ACCEL 3.0     /* m/s^2 of lateral acceleration the driver accepts in curves */
#define BRAKE_ACCEL 2.0     /* m/s^2 the driver slows down with before a curve */
#define CURVE_SPAN 5        /* points either side for the curvature estimate */
#define TASK_LEAD_M 150.0   /* m before a task over which the path moves into its line */

/* The ideal d at s of the task on road covering s; false when none does. */
static bool task_d(const sim_scenario *sc, int road, double s, double *d)
{
    for (int i = 0; i < sc->n_tasks; i++) {
        const sim_task *t = &sc->tasks[i];
        if (t->road != road || s < t->s_start || s > t->s_end) continue;
        *d = sim_task_ideal_d(t, s);
        return true;
    }
    return false;
}

/* The nearest task on road whose entry (its first s in direction dir) lies ahead of s
 * within `within` metres: its entry s and ideal d there. The path steers into that line
 * over the distance before the entry instead of stepping into it at the entry, where
 * the line may sit a lane or more away (motorway.json: the curve tasks start in lane
 * -3, the ramp's merge leaves the car in lane -4). */
static bool task_ahead(const sim_scenario *sc, int road, double s, int dir, double within,
                       double *s_entry, double *d_entry)
{
    bool found = false;
    for (int i = 0; i < sc->n_tasks; i++) {
        const sim_task *t = &sc->tasks[i];
        double e = dir > 0 ? t->s_start : t->s_end, ahead = dir * (e - s);
        if (t->road != road || ahead <= 0 || ahead > within) continue;
        if (found && ahead >= dir * (*s_entry - s)) continue;
        *s_entry = e, *d_entry = sim_task_ideal_d(t, e), found = true;
    }
    return found;
}

/* The path points, the reference line's points beside them (whose curvature is the
 * road's, free of the ideal path's lane changes) and the speed limit at each. */
typedef struct path_buf {
    double *xy, *ref, *lim;
    int *leg;       /* which road of the route a point is on */
    size_t n, cap;
} path_buf;

static int push_point(path_buf *b, int leg, const sim_road_pose *at, const sim_road_pose *ref, double limit)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        double *xy = realloc(b->xy, 2 * cap * sizeof *xy);
        if (!xy) return SIM_ENOMEM;
        b->xy = xy;
        double *rf = realloc(b->ref, 2 * cap * sizeof *rf);
        if (!rf) return SIM_ENOMEM;
        b->ref = rf;
        double *lim = realloc(b->lim, cap * sizeof *lim);
        if (!lim) return SIM_ENOMEM;
        b->lim = lim;
        int *legs = realloc(b->leg, cap * sizeof *legs);
        if (!legs) return SIM_ENOMEM;
        b->leg = legs;
        b->cap = cap;
    }
    b->leg[b->n] = leg;
    b->xy[2 * b->n] = at->x;
    b->xy[2 * b->n + 1] = at->y;
    b->ref[2 * b->n] = ref->x;
    b->ref[2 * b->n + 1] = ref->y;
    b->lim[b->n++] = limit;
    return SIM_OK;
}

static double angle_diff(double a, double b)
{
    return fabs(remainder(a - b, 2.0 * M_PI));
}

/* Where a lane piece ends in its direction of travel: its section's far end. */
static double piece_end(const sim_roadnet *net, const sim_lane_ref *l)
{
    const sim_lane_section *ls = &net->roads[l->road].sections[l->section];
    return l->dir > 0 ? ls->s1 : ls->s0;
}

/* Heading of travel at the far end of the road a lane piece is on. */
static double end_heading(const sim_roadnet *net, const sim_lane_ref *l)
{
    const sim_road *r = &net->roads[l->road];
    sim_road_pose pose;
    sim_road_pose_at(net, l->road, l->dir > 0 ? r->length : 0.0, 0.0, &pose);
    return l->dir > 0 ? pose.heading : pose.heading + M_PI;
}

/* The lane of road `to` nearest to `lane` (same side) at s, or 0 when it has none. */
static int nearest_lane(const sim_road *to, double s, int lane)
{
    const sim_lane_section *ls = &to->sections[sim_road_section_at(to, s)];
    int n = lane < 0 ? ls->n_right : ls->n_left;
    if (n == 0) return 0;
    int k = abs(lane) < n ? abs(lane) : n;
    return lane < 0 ? -k : k;
}

/* Roads linked end to end whose lane counts differ and say nothing of lane links (the
 * project's scenario files): the nearest lane on the side that runs our way. */
static bool next_by_nearest(const sim_roadnet *net, const sim_lane_ref *cur, sim_lane_ref *out)
{
    const sim_road *r = &net->roads[cur->road];
    const sim_road_link *link = cur->dir > 0 ? &r->succ : &r->pred;
    if (link->kind != SIM_LINK_ROAD) return false;
    const sim_road *to = &net->roads[link->index];
    bool same_way = (link->contact == SIM_CONTACT_START) == (cur->dir > 0);
    int dir = link->contact == SIM_CONTACT_START ? 1 : -1, sec = dir > 0 ? 0 : to->n_sections - 1;
    double s0 = dir > 0 ? 0.0 : to->length;
    int lane = nearest_lane(to, s0, same_way ? cur->lane : -cur->lane);
    /* Driving with the reference line means a forward lane. */
    if (lane && sim_road_lane_forward(to, lane) != (dir > 0)) lane = nearest_lane(to, s0, -lane);
    *out = (sim_lane_ref){link->index, sec, lane, dir};
    return lane != 0;
}

/* A lane that narrows to nothing by the end of this piece (an acceleration lane's
 * taper): the inner neighbour the driver merges into over the piece, else 0. */
static int merge_lane(const sim_road *r, const sim_lane_ref *cur)
{
    const sim_lane_section *ls = &r->sections[cur->section];
    const sim_lane *l = sim_road_lane(r, cur->section, cur->lane);
    double far = (cur->dir > 0 ? ls->s1 : ls->s0) - ls->s0, near = (cur->dir > 0 ? ls->s0 : ls->s1) - ls->s0;
    if (!l || sim_lane_width(l, far) >= 0.5 || sim_lane_width(l, near) < 0.5) return 0;
    int inner = cur->lane + (cur->lane < 0 ? 1 : -1);
    return inner != 0 && sim_road_lane(r, cur->section, inner) ? inner : 0;
}

/* The next lane piece: along the lane graph (sections, roads, junctions), towards the
 * next task not yet driven where a junction offers several ways (route_goal.h), else
 * turning least. */
static bool next_piece(const sim_roadnet *net, const in_goals *goals, const sim_lane_ref *cur, sim_lane_ref *out)
{
    sim_lane_ref cand[32];
    int n = sim_roadnet_lane_next(net, cur, cand, 32);
    if (n == 0) return next_by_nearest(net, cur, out);
    int k = in_goals_choose(goals, cand, n < 32 ? n : 32);
    if (k >= 0) {
        *out = cand[k];
        return true;
    }
    double heading = end_heading(net, cur), best = INFINITY;
    for (int i = 0; i < n && i < 32; i++) {
        double turn = cand[i].road == cur->road ? 0.0 : angle_diff(end_heading(net, &cand[i]), heading);
        if (turn < best) {
            best = turn;
            *out = cand[i];
        }
    }
    return true;
}

/* Lowers each point's speed (m/s; 0 means no limit) to what the road's curvature
 * there allows at CURVE_ACCEL, then makes the car slow down before curves at
 * BRAKE_ACCEL: a driver takes a junction's turn slowly, not at the street's limit.
 * The curvature is the reference line's, so lane changes cost no speed, and it is
 * taken within one road (reference lines of linked roads may lie side by side). */
static void limit_for_curves(const double *xy, const double *ref, const int *leg, double *lim, size_t n)
{
    for (size_t i = CURVE_SPAN; i + CURVE_SPAN < n; i++) {
        if (leg[i - CURVE_SPAN] != leg[i + CURVE_SPAN]) continue;
        const double *a = &ref[2 * (i - CURVE_SPAN)], *b = &ref[2 * i], *c = &ref[2 * (i + CURVE_SPAN)];
        /* Curvature of the circle through three points: 4 * area / (product of sides). */
        double ab = hypot(b[0] - a[0], b[1] - a[1]), bc = hypot(c[0] - b[0], c[1] - b[1]);
        double ca = hypot(a[0] - c[0], a[1] - c[1]);
        double cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        double k = ab * bc * ca > 1e-9 ? 2.0 * fabs(cross) / (ab * bc * ca) : 0.0;
        if (k < 1e-6) continue;
        double v = sqrt(CURVE_ACCEL / k);
        if (lim[i] <= 0 || v < lim[i]) lim[i] = v;
    }
    for (size_t i = n - 1; i-- > 0;) {
        if (lim[i + 1] <= 0) continue;
        double ds = hypot(xy[2 * i + 2] - xy[2 * i], xy[2 * i + 3] - xy[2 * i + 1]);
        double v = sqrt(lim[i + 1] * lim[i + 1] + 2.0 * BRAKE_ACCEL * ds);
        if (lim[i] <= 0 || v < lim[i]) lim[i] = v;
    }
}

/* Where the path enters and leaves junctions: point indices, turned into spans once
 * the path's distances are known. */
typedef struct span_idx {
    size_t in, out;
} span_idx;

static int build(const sim_scenario *sc, const char *start, sim_driver_path *path,
                 double **limits, in_junction_span **spans_out, int *n_spans_out, sim_error *err)
{
    span_idx *jx = NULL;
    int n_jx = 0, cap_jx = 0;
    int si;
    int rc = sim_scenario_start_index(sc, start, &si, err);
    if (rc) return rc;
    const sim_start_point *st = &sc->starts[si];
    const sim_roadnet *net = &sc->net;
    const sim_road *r0 = &net->roads[st->road];
    sim_lane_ref cur = {st->road, sim_road_section_at(r0, st->s), st->lane, sim_road_lane_forward(r0, st->lane) ? 1 : -1};
    double s0 = st->s, carry = st->d, driven = 0.0;
    double lead_from = s0; /* where on this road the path may start moving into a task's line */
    bool held = false; /* a task on this road set the lateral position: keep it */
    int *visits = calloc((size_t)net->n_roads, sizeof *visits), legs = 0;
    path_buf b = {0};
    in_goals goals;
    rc = in_goals_init(&goals, sc, err);
    if (rc) {
        free(visits);
        return rc;
    }
    rc = visits ? SIM_OK : SIM_ENOMEM;
    if (visits) visits[cur.road] = 1;
    for (int pieces = 0; rc == SIM_OK && pieces < ROUTE_MAX_PIECES && driven < ROUTE_MAX_M; pieces++) {
        const sim_road *road = &net->roads[cur.road];
        double end = piece_end(net, &cur);
        int merge_to = held ? 0 : merge_lane(road, &cur);
        size_t n = (size_t)floor(fabs(end - s0) / PATH_STEP) + 2;
        /* The first point of a following piece is the last of the one before. */
        for (size_t i = pieces ? 1 : 0; i < n && rc == SIM_OK; i++) {
            double s = s0 + cur.dir * PATH_STEP * (double)i;
            if (cur.dir * (s - end) > 0) s = end;
            /* A task's ideal line; after it, on the same road, where it ended (in the
             * lane it ended in); elsewhere the lane's centre, which follows the lane
             * sections' widths and the lane offset. */
            double d;
            sim_lane_info li;
            bool in_task = task_d(sc, cur.road, s, &d);
            in_goals_passed(&goals, cur.road, s);
            if (in_task) {
                carry = d, held = true, lead_from = s;
                if (sim_road_lane_at(road, s, d, &li)) cur.lane = li.lane;
            } else if (!held && sim_road_lane_center(road, s, cur.lane, &d)) {
                double to;
                if (merge_to && sim_road_lane_center(road, s, merge_to, &to)) {
                    double u = fmin(1.0, fabs(s - s0) / fmax(fabs(end - s0), 1.0)), w = u * u * (3.0 - 2.0 * u);
                    d = (1.0 - w) * d + w * to;
                }
                carry = d;
            } else {
                d = carry;
            }
            /* Ahead of a task: ease from here into its line by the task's entry (a lane
             * change over at most TASK_LEAD_M, no shorter than this road allows). */
            double s_t = 0.0, d_t = 0.0;
            if (!in_task && task_ahead(sc, cur.road, s, cur.dir, TASK_LEAD_M, &s_t, &d_t)) {
                double span = fmin(TASK_LEAD_M, fabs(s_t - lead_from));
                double u = span > 0 ? fmax(0.0, 1.0 - fabs(s_t - s) / span) : 1.0;
                double w = u * u * (3.0 - 2.0 * u);
                d = (1.0 - w) * d + w * d_t;
            }
            sim_road_pose pose, ref;
            sim_road_pose_at(net, cur.road, s, d, &pose);
            sim_road_pose_at(net, cur.road, s, 0.0, &ref);
            rc = push_point(&b, legs, &pose, &ref, sim_road_lane_speed_limit(road, s, cur.lane));
            if (s == end) break;
        }
        driven += fabs(end - s0);
        if (merge_to) cur.lane = merge_to;
        sim_lane_ref next;
        if (rc || !next_piece(net, &goals, &cur, &next)) break;
        if (next.road != cur.road) {
            if (visits[next.road] >= 2) break;
            bool into = net->roads[next.road].junction >= 0, from = net->roads[cur.road].junction >= 0;
            if (into && !from && b.n > 0) { /* entering a junction at the last point */
                if (n_jx == cap_jx) {
                    int c = cap_jx ? 2 * cap_jx : 16;
                    span_idx *nj = realloc(jx, (size_t)c * sizeof *nj);
                    if (!nj) {
                        rc = SIM_ENOMEM;
                        break;
                    }
                    jx = nj, cap_jx = c;
                }
                jx[n_jx++] = (span_idx){b.n - 1, SIZE_MAX};
            } else if (from && !into && n_jx > 0 && jx[n_jx - 1].out == SIZE_MAX) {
                jx[n_jx - 1].out = b.n - 1;
            }
            visits[next.road]++;
            legs++;
            held = false;
            lead_from = NAN;
        }
        cur = next;
        /* Against s a piece starts at its section's end, which belongs to the next
         * section: start just inside this one. */
        const sim_lane_section *ls = &net->roads[cur.road].sections[cur.section];
        s0 = cur.dir > 0 ? ls->s0 : nextafter(ls->s1, -INFINITY);
        if (isnan(lead_from)) lead_from = s0;
        if (!sim_road_lane_center(&net->roads[cur.road], s0, cur.lane, &carry)) break;
    }
    free(visits);
    in_goals_free(&goals);
    if (rc == SIM_OK) {
        limit_for_curves(b.xy, b.ref, b.leg, b.lim, b.n);
        rc = sim_driver_path_set(path, b.xy, b.n, err);
    }
    else sim_error_set(err, rc, "path: out of memory");
    free(b.xy);
    free(b.ref);
    free(b.leg);
    if (rc) {
        free(b.lim);
        free(jx);
        sim_error_prefix(err, "%s: start point \"%s\"", sc->path, st->name);
        return rc;
    }
    /* Points are 1 m apart (at most; a piece's last step is shorter), so
     * sim_driver_path_set drops none and limits[i] stays the limit at path point i. */
    *limits = b.lim;
    in_junction_span *spans = NULL;
    int n_spans = 0;
    if (spans_out && n_jx > 0 && (spans = calloc((size_t)n_jx, sizeof *spans))) {
        for (int k = 0; k < n_jx; k++) {
            size_t a = jx[k].in, z = jx[k].out == SIZE_MAX ? path->n - 1 : jx[k].out;
            if (a + 1 >= path->n || z >= path->n || z <= a) continue;
            in_junction_span *sp = &spans[n_spans++];
            sp->s0 = path->s[a];
            sp->s1 = path->s[z];
            sp->cx = 0.5 * (path->x[a] + path->x[z]);
            sp->cy = 0.5 * (path->y[a] + path->y[z]);
            sp->heading = atan2(path->y[a + 1] - path->y[a], path->x[a + 1] - path->x[a]);
        }
    }
    free(jx);
    if (spans_out) {
        *spans_out = spans;
        *n_spans_out = n_spans;
    }
    return SIM_OK;
}

int in_route_build(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                sim_error *err)
{
    sim_scenario *sc = NULL;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    rc = build(sc, start, path, limits, NULL, NULL, err); /* its messages name the file */
    sim_scenario_free(sc);
    return rc;
}

int in_route_build_spans(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                         in_junction_span **spans, int *n_spans, sim_error *err)
{
    sim_scenario *sc = NULL;
    *spans = NULL;
    *n_spans = 0;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    rc = build(sc, start, path, limits, spans, n_spans, err);
    sim_scenario_free(sc);
    return rc;
}
