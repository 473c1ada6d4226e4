/* route: scenario -> path for the scripted driver (see route.h).
 *
 * The path starts at the start point and follows the road graph: along each road to
 * its end in the direction of travel (right lanes run with the reference line, left
 * lanes against it), then onto the linked road, or through a junction by the
 * connection that carries the current lane and turns least (the driver goes straight
 * on where it can). One point a metre, laterally at the ideal lane of the task covering
 * each s; between tasks the lateral position where the last task ended, and on a road
 * without tasks the current lane's centre. Each point carries the speed limit, lowered
 * for the path's curvature so that the car slows down for turns. It ends at a road without a link, after
 * ROUTE_MAX_M, or when it would drive a road a third time (a ring). */
#include "route.h"

#include <math.h>
#include <stdlib.h>

#include "sim_road.h"
#include "sim_scenario.h"

#define PATH_STEP 1.0       /* m between path points */
#define ROUTE_MAX_M 30000.0 /* longest path built */
#define ROUTE_MAX_LEGS 256  /* roads driven, at most */
#define CURVE_ACCEL 3.0     /* m/s^2 of lateral acceleration the driver accepts in curves */
#define BRAKE_ACCEL 2.0     /* m/s^2 the driver slows down with before a curve */
#define CURVE_SPAN 5        /* points either side for the curvature estimate */

/* The ideal d at s: the task on road covering s, else *carry (updated by tasks). */
static double ideal_d(const sim_scenario *sc, int road, double s, double *carry)
{
    for (int i = 0; i < sc->n_tasks; i++) {
        const sim_task *t = &sc->tasks[i];
        if (t->road != road || s < t->s_start || s > t->s_end) continue;
        *carry = sim_task_ideal_d(t, s);
        break;
    }
    return *carry;
}

/* A road driven in one direction, in one lane. */
typedef struct route_leg {
    int road, lane;
    double s0, dir; /* start s and +1 (with the reference line) or -1 */
} route_leg;

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

/* Heading of travel at the far end of a leg. */
static double end_heading(const sim_roadnet *net, const route_leg *l)
{
    const sim_road *r = &net->roads[l->road];
    sim_road_pose pose;
    sim_road_pose_at(net, l->road, l->dir > 0 ? r->length : 0.0, 0.0, &pose);
    return l->dir > 0 ? pose.heading : pose.heading + M_PI;
}

static double angle_diff(double a, double b)
{
    return fabs(remainder(a - b, 2.0 * M_PI));
}

/* The lane of road `to` nearest to `lane` (same side), or 0 when it has none there. */
static int nearest_lane(const sim_road *to, int lane)
{
    int n = lane < 0 ? to->n_right : to->n_left;
    if (n == 0) return 0;
    int k = abs(lane) < n ? abs(lane) : n;
    return lane < 0 ? -k : k;
}

/* Onto a road linked end to end: its contact end says the new direction; lane ids
 * change sign when the two reference lines face each other. */
static bool next_by_road(const sim_roadnet *net, const sim_road_link *link, const route_leg *cur, route_leg *out)
{
    const sim_road *to = &net->roads[link->index];
    bool same_way = (link->contact == SIM_CONTACT_START) == (cur->dir > 0);
    int lane = same_way ? cur->lane : -cur->lane;
    out->road = link->index;
    out->dir = link->contact == SIM_CONTACT_START ? 1.0 : -1.0;
    out->s0 = out->dir > 0 ? 0.0 : to->length;
    out->lane = nearest_lane(to, lane);
    /* Driving with the reference line means a right lane, against it a left one. */
    if ((out->dir > 0) != (out->lane < 0)) out->lane = nearest_lane(to, -out->lane);
    return out->lane != 0;
}

/* Through a junction: the connection from our road that carries our lane and turns
 * least. */
static bool next_by_junction(const sim_roadnet *net, int junction, const route_leg *cur, route_leg *out)
{
    const sim_junction *j = &net->junctions[junction];
    double heading = end_heading(net, cur), best = INFINITY;
    for (int c = 0; c < j->n_conns; c++) {
        const sim_connection *conn = &j->conns[c];
        if (conn->incoming != cur->road) continue;
        for (int k = 0; k < conn->n_lanes; k++) {
            if (conn->lanes[k].from != cur->lane) continue;
            route_leg cand = {.road = conn->connecting, .lane = conn->lanes[k].to,
                        .dir = conn->contact == SIM_CONTACT_START ? 1.0 : -1.0};
            cand.s0 = cand.dir > 0 ? 0.0 : net->roads[cand.road].length;
            double turn = angle_diff(end_heading(net, &cand), heading);
            if (turn < best) {
                best = turn;
                *out = cand;
            }
        }
    }
    return best < INFINITY;
}

static bool next_leg(const sim_roadnet *net, const route_leg *cur, route_leg *out)
{
    const sim_road *r = &net->roads[cur->road];
    const sim_road_link *link = cur->dir > 0 ? &r->succ : &r->pred;
    if (link->kind == SIM_LINK_ROAD) return next_by_road(net, link, cur, out);
    if (link->kind == SIM_LINK_JUNCTION) return next_by_junction(net, link->index, cur, out);
    /* A connecting road inside a junction leads on by its own links, handled above;
     * anything else is a dead end. */
    return false;
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

static int build(const sim_scenario *sc, const char *start, sim_driver_path *path,
                 double **limits, sim_error *err)
{
    int si;
    int rc = sim_scenario_start_index(sc, start, &si, err);
    if (rc) return rc;
    const sim_start_point *st = &sc->starts[si];
    const sim_roadnet *net = &sc->net;
    route_leg cur = {.road = st->road, .lane = st->lane, .s0 = st->s, .dir = st->lane > 0 ? -1.0 : 1.0};
    double carry = st->d, driven = 0.0;
    int *visits = calloc((size_t)net->n_roads, sizeof *visits);
    path_buf b = {0};
    rc = visits ? SIM_OK : SIM_ENOMEM;
    for (int legs = 0; rc == SIM_OK && legs < ROUTE_MAX_LEGS && driven < ROUTE_MAX_M; legs++) {
        const sim_road *road = &net->roads[cur.road];
        double end = cur.dir > 0 ? road->length : 0.0;
        size_t n = (size_t)floor(fabs(end - cur.s0) / PATH_STEP) + 2;
        /* The first point of a following road is the last of the one before. */
        for (size_t i = legs ? 1 : 0; i < n && rc == SIM_OK; i++) {
            double s = cur.s0 + cur.dir * PATH_STEP * (double)i;
            if (cur.dir * (s - end) > 0) s = end;
            sim_road_pose pose, ref;
            sim_road_pose_at(net, cur.road, s, ideal_d(sc, cur.road, s, &carry), &pose);
            sim_road_pose_at(net, cur.road, s, 0.0, &ref);
            rc = push_point(&b, legs, &pose, &ref, sim_road_speed_limit(road, s));
            if (s == end) break;
        }
        driven += fabs(end - cur.s0);
        visits[cur.road]++;
        route_leg next = {0};
        if (rc || !next_leg(net, &cur, &next) || visits[next.road] >= 2) break;
        cur = next;
        if (!sim_road_lane_center(&net->roads[cur.road], cur.lane, &carry)) break;
    }
    free(visits);
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
        sim_error_prefix(err, "%s: start point \"%s\"", sc->path, st->name);
        return rc;
    }
    /* Points are 1 m apart (at most; a road's last step is shorter), so
     * sim_driver_path_set drops none and limits[i] stays the limit at path point i. */
    *limits = b.lim;
    return SIM_OK;
}

int in_route_build(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                sim_error *err)
{
    sim_scenario *sc = NULL;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    rc = build(sc, start, path, limits, err); /* its messages name the file */
    sim_scenario_free(sc);
    return rc;
}
