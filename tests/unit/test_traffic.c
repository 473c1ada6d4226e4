/* Unit tests of the traffic core (common/traffic) on the shipped motorway and town and
 * on test tracks: no box overlaps among 500 agents over 10 simulated minutes, none into
 * a normally driving ego, overtaking only into a free lane and back, a follower
 * stopping behind a lead braking at 8 m/s^2, priority to the right and no deadlock at
 * a 4-way junction, triggers, and determinism by seed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lanegraph.h"
#include "sim_scenario.h"
#include "sim_traffic.h"
#include "sim_traffic_setup.h"

#define DT 0.01       /* the physics tick */
#define CROWD_DT 0.05 /* coarser for the 10-minute crowds: harder on collisions, 5x faster */

/* ---- boxes -------------------------------------------------------------------------- */

typedef struct box {
    double x, y, h, hl, hw;
} box;

static box agent_box(const sim_traffic_agent *a)
{
    return (box){a->x, a->y, a->heading, 0.5 * a->length, 0.5 * a->width};
}

/* Separating axis test of two oriented rectangles. */
static bool overlap(const box *a, const box *b)
{
    const box *bx[2] = {a, b};
    double dx = b->x - a->x, dy = b->y - a->y;
    for (int k = 0; k < 2; k++)
        for (int ax = 0; ax < 2; ax++) {
            double h = bx[k]->h + (ax ? M_PI / 2 : 0);
            double ux = cos(h), uy = sin(h);
            double ra = 0, d = fabs(dx * ux + dy * uy);
            for (int m = 0; m < 2; m++) {
                double c = cos(bx[m]->h), s = sin(bx[m]->h);
                ra += bx[m]->hl * fabs(c * ux + s * uy) + bx[m]->hw * fabs(-s * ux + c * uy);
            }
            if (d > ra) return false;
        }
    return true;
}

static const sim_traffic *g_sort;
static int by_x(const void *pa, const void *pb)
{
    const sim_traffic_agent *a = &g_sort->agents[*(const int *)pa], *b = &g_sort->agents[*(const int *)pb];
    return a->x < b->x ? -1 : a->x > b->x;
}

/* Overlapping pairs among the active agents (sweep along x). */
static int count_overlaps(const sim_traffic *t, int *order, bool print)
{
    int n = 0, hits = 0;
    for (int i = 0; i < t->n_slots; i++)
        if (t->agents[i].active) order[n++] = i;
    g_sort = t;
    qsort(order, (size_t)n, sizeof *order, by_x);
    for (int i = 0; i < n; i++) {
        box a = agent_box(&t->agents[order[i]]);
        for (int j = i + 1; j < n; j++) {
            const sim_traffic_agent *b = &t->agents[order[j]];
            if (b->x - a.x > 20.0) break;
            box bb = agent_box(b);
            if (overlap(&a, &bb)) {
                if (print && hits++ < 3) {
                    const sim_traffic_agent *p = &t->agents[order[i]];
                    fprintf(stderr, "t %.2f overlap uid %u lane %d s %.2f lat %.2f v %.2f / uid %u lane %d s %.2f lat %.2f v %.2f\n",
                            t->t, p->uid, p->lane, p->s, p->lat, p->v, b->uid, b->lane, b->s, b->lat, b->v);
                } else {
                    hits++;
                }
            }
        }
    }
    return hits;
}

/* ---- a normally driving ego: follows its lane at the limit, keeps its distance --------- */

typedef struct ego_drv {
    int lane;
    double s, v;
} ego_drv;

static void ego_step(sim_traffic *t, ego_drv *e, double dt)
{
    const sim_lanegraph *g = t->g;
    double lim = sim_lanegraph_limit(g, e->lane, e->s);
    double v0 = lim > 0 ? lim : 25.0;
    double k = fabs(sim_lanegraph_curvature(g, e->lane, e->s));
    if (k > 1e-5 && sqrt(2.0 / k) < v0) v0 = sqrt(2.0 / k);
    double acc = 1.5 * (1 - pow(e->v / v0, 4));
    double gap = t->lead.valid ? t->lead.gap : INFINITY, vl = t->lead.valid ? t->lead.speed : 0;
    if (g->lanes[e->lane].n_succ == 0 && g->lanes[e->lane].length - e->s - 2.3 < gap) { /* the road ends: stop */
        gap = g->lanes[e->lane].length - e->s - 2.3;
        vl = 0;
    }
    if (isfinite(gap)) {
        double ss = 2.0 + e->v * 1.5 + e->v * (e->v - vl) / (2 * sqrt(1.5 * 3.0));
        gap = fmax(gap, 0.1);
        acc -= 1.5 * (ss / gap) * (ss / gap);
    }
    if (acc < -9) acc = -9;
    e->v = fmax(0.0, e->v + acc * dt);
    e->s += e->v * dt;
    while (e->s > g->lanes[e->lane].length) {
        const sim_lg_lane *l = &g->lanes[e->lane];
        if (l->n_succ == 0) {
            e->s = l->length;
            e->v = 0;
            break;
        }
        e->s -= l->length;
        e->lane = l->succ[0];
    }
    double x, y, h;
    sim_lanegraph_pose(g, e->lane, e->s, 0, &x, &y, &h);
    sim_traffic_set_ego(t, x, y, h, e->v, 4.6, 1.85);
}

static box ego_box(const sim_traffic *t)
{
    return (box){t->ego.x, t->ego.y, t->ego.heading, 0.5 * t->ego.length, 0.5 * t->ego.width};
}

static int ego_hits(const sim_traffic *t)
{
    static int printed;
    box e = ego_box(t);
    int hits = 0;
    for (int i = 0; i < t->n_slots; i++)
        if (t->agents[i].active) {
            box a = agent_box(&t->agents[i]);
            if (overlap(&e, &a)) {
                hits++;
                if (printed++ < 3)
                    fprintf(stderr, "t %.2f ego (lane %d s %.1f v %.1f) hit by uid %u lane %d s %.1f lat %.2f v %.1f\n", t->t,
                            t->ego.pos.lane, t->ego.pos.s, t->ego.speed, t->agents[i].uid, t->agents[i].lane,
                            t->agents[i].s, t->agents[i].lat, t->agents[i].v);
            }
        }
    return hits;
}

static sim_scenario *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "scenarios/%s.json", name);
    sim_scenario *sc = NULL;
    sim_error err = {0};
    if (sim_scenario_load_err(path, &sc, &err) != 0) fail_msg("%s", err.msg);
    return sc;
}

/* 500 agents (the scenario's and ambient ones filling the whole network) for 10
 * simulated minutes with an ego driving normally from the first start point. */
static void crowd(const char *name, const char *start, sim_traffic_model model, int want)
{
    sim_scenario *sc = load(name);
    sim_traffic_setup su;
    sim_error err = {0};
    assert_int_equal(sim_traffic_setup_init(&su, sc, 2000, &err), 0);
    double lane_km = 0;
    for (int i = 0; i < su.graph.n_lanes; i++)
        if (su.graph.lanes[i].junction < 0) lane_km += su.graph.lanes[i].length / 1000.0;
    su.params.model = model;
    su.params.ambient_radius = 20000;
    su.params.density = (want - sc->n_agents) / lane_km * 1.02;
    sim_traffic t;
    assert_int_equal(sim_traffic_setup_start(&su, &t, &err), 0);
    const sim_start_point *st = &sc->starts[sim_scenario_find_start(sc, start)];
    ego_drv e = {sim_lanegraph_find(&su.graph, st->road, st->lane, st->s), 0, st->speed};
    e.s = sim_lanegraph_lane_s(&su.graph, e.lane, st->s);
    int *order = malloc((size_t)t.cap * sizeof *order);
    int overlaps = 0, hits = 0, most = 0;
    for (int k = 0; k < (int)(600 / CROWD_DT); k++) {
        ego_step(&t, &e, CROWD_DT);
        sim_traffic_step(&t, CROWD_DT);
        if (t.n_active > most) most = t.n_active;
        overlaps += count_overlaps(&t, order, overlaps < 3);
        hits += ego_hits(&t);
    }
    double vsum = 0;
    for (int i = 0; i < t.n_slots; i++)
        if (t.agents[i].active) vsum += t.agents[i].v;
    fprintf(stderr, "mean speed at the end %.2f m/s\n", vsum / t.n_active);
    fprintf(stderr, "%s: most %d agents, %d at the end, ego at lane %d s %.0f\n", name, most, t.n_active, e.lane, e.s);
    assert_true(most >= want);
    assert_int_equal(overlaps, 0);
    assert_int_equal(hits, 0);
    free(order);
    sim_traffic_free(&t);
    sim_traffic_setup_free(&su);
    sim_scenario_free(sc);
}

static void motorway_500_no_overlap(void **state) { crowd("motorway", "motorway", SIM_TRAFFIC_ZONES, 500); }
/* The town's 3 x 3 grid has about 4 km of lanes: 350 vehicles are one every 11 m, a
 * crawling jam; 500 would not fit at standstill spacing (one every 8 m, for cars
 * 4.5 m long keeping 2 m and more at the junctions). */
static void town_350_no_overlap(void **state) { crowd("town", "home", SIM_TRAFFIC_ZONES, 350); }
static void motorway_500_idm_no_overlap(void **state) { crowd("motorway", "motorway", SIM_TRAFFIC_IDM, 500); }

/* The town at a density its unsigned crossings can serve (about 60 vehicles): traffic
 * keeps moving for 10 minutes, nobody stands in a junction for long (no deadlock, no
 * vehicle stuck on its way through). */
static void town_keeps_moving(void **state)
{
    sim_scenario *sc = load("town");
    sim_traffic_setup su;
    assert_int_equal(sim_traffic_setup_init(&su, sc, 200, NULL), 0);
    su.params.density = 15;
    su.params.ambient_radius = 2000;
    sim_traffic t;
    assert_int_equal(sim_traffic_setup_start(&su, &t, NULL), 0);
    static double stood[200];
    double worst = 0, v_sum = 0;
    long v_n = 0;
    for (int k = 0; k < (int)(600 / CROWD_DT); k++) {
        sim_traffic_set_ego(&t, 75, 75, 0, 0, 4.6, 1.85); /* inside a block: off every lane */
        sim_traffic_step(&t, CROWD_DT);
        for (int i = 0; i < t.n_slots; i++) {
            const sim_traffic_agent *a = &t.agents[i];
            bool in_junction = a->active && su.graph.lanes[a->lane].junction >= 0;
            stood[i] = in_junction && a->v < 0.1 ? stood[i] + CROWD_DT : 0;
            worst = fmax(worst, stood[i]);
            if (a->active && t.t > 60) {
                v_sum += a->v;
                v_n++;
            }
        }
    }
    fprintf(stderr, "town: %d vehicles, mean speed %.1f m/s, longest stand in a junction %.1f s\n", t.n_active,
            v_sum / v_n, worst);
    assert_true(t.n_active >= 50);
    /* Every crossing is unsigned and serves one conflicting path at a time: about 3 m/s
     * on average at this density (measured), well above a jam's nothing. */
    assert_true(v_sum / v_n > 2.0);
    assert_true(worst < 15.0);
    sim_traffic_free(&t);
    sim_traffic_setup_free(&su);
    sim_scenario_free(sc);
}

/* ---- small set-ups on test tracks ----------------------------------------------------- */

static sim_traffic_behaviour beh(double v)
{
    return (sim_traffic_behaviour){.desired_speed = v, .headway = 1.5, .max_accel = 1.5, .max_decel = 3.0,
                                   .min_gap = 2.0, .politeness = 0.3, .lane_changes = true};
}

static int put(sim_traffic *t, int lane, double s, double v, bool lane_changes)
{
    sim_traffic_spec sp = {.model = 0, .lane = lane, .s = s, .speed = v, .b = beh(v)};
    sp.b.lane_changes = lane_changes;
    int slot = sim_traffic_add_agent(t, &sp, false, NULL);
    assert_true(slot >= 0);
    return slot;
}

static sim_traffic_params params(sim_traffic_model model)
{
    sim_traffic_params p;
    sim_traffic_params_default(&p);
    p.model = model;
    p.max_agents = 64;
    return p;
}

/* An empty world on a straight road of n_lanes lanes, 3.5 m wide, 40 m/s limit. */
static sim_traffic_params straight_world(sim_lanegraph *g, sim_traffic *t, double length, int n_lanes,
                                         sim_traffic_model model)
{
    assert_int_equal(sim_lanegraph_straight(g, length, n_lanes, 3.5, 40, NULL), 0);
    sim_traffic_params p = params(model);
    assert_int_equal(sim_traffic_init(t, g, &p, NULL), 0);
    return p;
}

/* A fast car behind a slow one on a two-lane road: overtakes through the free left
 * lane and returns right ahead of it; with the left lane occupied beside the slow car
 * it stays behind. */
static void overtaking(sim_traffic_model model)
{
    sim_lanegraph g;
    assert_int_equal(sim_lanegraph_straight(&g, 6000, 2, 3.5, 40, NULL), 0);
    for (int blocked = 0; blocked < 2; blocked++) {
        sim_traffic t;
        sim_traffic_params p = params(model);
        assert_int_equal(sim_traffic_init(&t, &g, &p, NULL), 0);
        int slow = put(&t, 0, 400, 20, false);
        int fast = put(&t, 0, 200, 30, true);
        int blocker = blocked ? put(&t, 1, 400, 20, false) : -1;
        bool went_left = false, back_right_ahead = false;
        double min_gap = INFINITY;
        for (int k = 0; k < (int)(90 / DT); k++) {
            sim_traffic_step(&t, DT);
            const sim_traffic_agent *f = &t.agents[fast], *sl = &t.agents[slow];
            if (f->lane == 1) went_left = true;
            if (went_left && f->lane == 0 && !f->lc_active && f->s > sl->s) back_right_ahead = true;
            if (f->lane == 0 && f->s < sl->s) min_gap = fmin(min_gap, sl->s - f->s - 4.5);
            if (blocked) {
                const sim_traffic_agent *b = &t.agents[blocker];
                assert_false(f->lane == 1 && fabs(f->s - b->s) < 4.5);
            }
        }
        assert_true(min_gap > 0);
        if (blocked) {
            assert_false(went_left);
            assert_true(t.agents[fast].s < t.agents[slow].s);
        } else {
            assert_true(went_left);
            assert_true(back_right_ahead);
        }
        sim_traffic_free(&t);
    }
    sim_lanegraph_free(&g);
}

static void overtakes_zones(void **state) { overtaking(SIM_TRAFFIC_ZONES); }
static void overtakes_idm(void **state) { overtaking(SIM_TRAFFIC_IDM); }

/* The lead car brakes at 8 m/s^2 to a stop; the follower, at its own headway, stops
 * behind it without touching. */
static void braking(sim_traffic_model model)
{
    sim_lanegraph g;
    sim_traffic t;
    straight_world(&g, &t, 3000, 1, model);
    int lead = put(&t, 0, 300, 30, false);
    int foll = put(&t, 0, 300 - 4.5 - 2.0 - 1.5 * 30, 30, false);
    double min_gap = INFINITY, v_before = 0;
    for (int k = 0; k < (int)(30 / DT); k++) {
        if (k == (int)(5 / DT)) {
            t.agents[lead].brake_decel = 8.0;
            t.agents[lead].brake_left = 30.0;
            v_before = t.agents[lead].v;
        }
        if (k == (int)(6 / DT)) assert_true(fabs(v_before - t.agents[lead].v - 8.0) < 0.1);
        sim_traffic_step(&t, DT);
        min_gap = fmin(min_gap, t.agents[lead].s - t.agents[foll].s - 4.5);
    }
    assert_true(t.agents[lead].v == 0 && t.agents[foll].v < 0.05);
    fprintf(stderr, "follower stopped %.2f m behind\n", min_gap);
    assert_true(min_gap > 0.5);
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
}

static void follower_stops_zones(void **state) { braking(SIM_TRAFFIC_ZONES); }
static void follower_stops_idm(void **state) { braking(SIM_TRAFFIC_IDM); }

/* Another cab's car (docs/cabs.md) as an external agent: placed from outside at every
 * step, it brakes at 8 m/s^2 to a stop; the agent behind stops without touching it, the
 * core never moves it by itself, and it is the ego's lead. Off the road it is no
 * obstacle. */
static void external_car_is_a_leader(void **state)
{
    (void)state;
    sim_lanegraph g;
    sim_traffic t;
    straight_world(&g, &t, 3000, 1, SIM_TRAFFIC_IDM);
    int cab = sim_traffic_add_external(&t, 4.5, 1.8, NULL);
    assert_true(cab >= 0);
    assert_false(t.agents[cab].active); /* until placed */
    int foll = put(&t, 0, 300 - 4.5 - 2.0 - 1.5 * 30, 30, false);
    double s = 300, v = 30, min_gap = INFINITY, x, y, h;
    for (int k = 0; k < (int)(30 / DT); k++) {
        if (k >= (int)(5 / DT)) v = fmax(0, v - 8.0 * DT);
        s += v * DT;
        sim_lanegraph_pose(&g, 0, s, 0, &x, &y, &h);
        sim_traffic_place_external(&t, cab, x, y, h, v);
        sim_traffic_step(&t, DT);
        assert_true(t.agents[cab].active);
        assert_true(fabs(t.agents[cab].s - s) < 1e-6 && t.agents[cab].v == v); /* where it was put */
        min_gap = fmin(min_gap, t.agents[cab].s - t.agents[foll].s - 4.5);
    }
    assert_true(v == 0 && t.agents[foll].v < 0.05);
    assert_true(min_gap > 0.5);
    /* off every lane (in a field beside the road): inactive, nobody's leader */
    sim_traffic_place_external(&t, cab, x, y + 50, h, 0);
    assert_false(t.agents[cab].active);
    int active = t.n_active;
    sim_traffic_place_external(&t, cab, x, y, h, 0);
    assert_true(t.agents[cab].active);
    assert_int_equal(t.n_active, active + 1);
    sim_traffic_free(&t);
    /* the ego 50 m behind it (centre to centre) has it as its lead */
    sim_traffic_params p = params(SIM_TRAFFIC_IDM);
    assert_int_equal(sim_traffic_init(&t, &g, &p, NULL), 0);
    cab = sim_traffic_add_external(&t, 4.5, 1.8, NULL);
    sim_lanegraph_pose(&g, 0, 300, 0, &x, &y, &h);
    sim_traffic_place_external(&t, cab, x, y, h, 10);
    sim_lanegraph_pose(&g, 0, 250, 0, &x, &y, &h);
    sim_traffic_set_ego(&t, x, y, h, 20, 4.6, 1.85);
    sim_traffic_step(&t, DT);
    assert_true(t.lead.valid);
    assert_int_equal(t.lead.agent, cab);
    assert_true(fabs(t.lead.gap - (50 - 0.5 * (4.5 + 4.6))) < 0.01);
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
}

/* ---- junctions --------------------------------------------------------------------- */

typedef struct town {
    sim_scenario *sc;
    sim_traffic_setup su;
    sim_traffic t;
} town;

static void town_open(town *w)
{
    w->sc = load("town");
    assert_int_equal(sim_traffic_setup_init(&w->su, w->sc, 64, NULL), 0);
    assert_int_equal(sim_traffic_init(&w->t, &w->su.graph, &w->su.params, NULL), 0);
}

static void town_close(town *w)
{
    sim_traffic_free(&w->t);
    sim_traffic_setup_free(&w->su);
    sim_scenario_free(w->sc);
}

/* An agent on `from` (road id, lane id) at lane s, through the junction road `via` to `to`. */
static int approach(town *w, const char *from, int lane_id, double s, const char *via, const char *to)
{
    const sim_roadnet *net = &w->sc->net;
    int route[3] = {sim_roadnet_find_road(net, from), sim_roadnet_find_road(net, via), sim_roadnet_find_road(net, to)};
    sim_traffic_spec sp = {.model = 0, .lane = sim_lanegraph_find(&w->su.graph, route[0], lane_id, 0), .s = s,
                           .speed = 10, .b = beh(13.9), .route = route, .n_route = 3};
    assert_true(sp.lane >= 0);
    int slot = sim_traffic_add_agent(&w->t, &sp, false, NULL);
    assert_true(slot >= 0);
    return slot;
}

static bool in_junction(const town *w, int slot)
{
    const sim_traffic_agent *a = &w->t.agents[slot];
    return a->active && w->su.graph.lanes[a->lane].junction >= 0;
}

/* Two arriving together at the unsigned crossing J11: the one from the right (south,
 * for the one from the west) goes first. */
static void priority_to_the_right(void **state)
{
    town w;
    town_open(&w);
    int west = approach(&w, "h1_0", -1, 90, "J11_WE", "h1_1");
    int south = approach(&w, "v1_0", -1, 90, "J11_SN", "v1_1");
    double t_west = -1, t_south = -1;
    for (int k = 0; k < (int)(60 / DT) && (t_west < 0 || t_south < 0); k++) {
        sim_traffic_step(&w.t, DT);
        if (t_west < 0 && in_junction(&w, west)) t_west = w.t.t;
        if (t_south < 0 && in_junction(&w, south)) t_south = w.t.t;
    }
    fprintf(stderr, "south entered at %.2f s, west at %.2f s\n", t_south, t_west);
    assert_true(t_south > 0 && t_west > t_south);
    town_close(&w);
}

/* Four arriving together, each with one on its right: the longest waiting goes (then
 * the lowest uid) and all four are through within a minute. */
static void four_way_no_deadlock(void **state)
{
    town w;
    town_open(&w);
    int slots[4] = {
        approach(&w, "h1_0", -1, 90, "J11_WE", "h1_1"), approach(&w, "v1_0", -1, 90, "J11_SN", "v1_1"),
        approach(&w, "h1_1", 1, 90, "J11_EW", "h1_0"), approach(&w, "v1_1", 1, 90, "J11_NS", "v1_0")};
    const char *exits[4] = {"h1_1", "v1_1", "h1_0", "v1_0"};
    double min_gap_ok = 1, through[4] = {-1, -1, -1, -1};
    int *order = malloc(64 * sizeof *order);
    for (int k = 0; k < (int)(60 / DT); k++) {
        sim_traffic_step(&w.t, DT);
        if (count_overlaps(&w.t, order, true)) min_gap_ok = 0;
        for (int i = 0; i < 4; i++) {
            const sim_traffic_agent *a = &w.t.agents[slots[i]];
            if (through[i] < 0 && w.su.graph.lanes[a->lane].road == sim_roadnet_find_road(&w.sc->net, exits[i]))
                through[i] = w.t.t;
        }
    }
    fprintf(stderr, "through J11 at %.1f %.1f %.1f %.1f s\n", through[0], through[1], through[2], through[3]);
    for (int i = 0; i < 4; i++) assert_true(through[i] > 0);
    assert_true(min_gap_ok == 1);
    free(order);
    town_close(&w);
}

/* ---- triggers ------------------------------------------------------------------------ */

/* A log mark zone at s 500..510 of a ring of 1257 m, set off by agent 0: once fires at
 * the first pass only, each time at every pass. */
static void trigger_fires_once(void **state)
{
    sim_lanegraph g;
    assert_int_equal(sim_lanegraph_ring(&g, 200, 1, 3.5, 30, NULL), 0);
    for (int once = 1; once >= 0; once--) {
        sim_traffic t;
        sim_traffic_params p = params(SIM_TRAFFIC_ZONES);
        assert_int_equal(sim_traffic_init(&t, &g, &p, NULL), 0);
        int a = put(&t, 0, 100, 18, false);
        sim_traffic_trigger tr = {.road = 0, .s_start = 500, .s_end = 510, .by = SIM_TT_AGENT, .by_agent = a,
                                  .once = once, .action = SIM_TA_LOG_MARK, .agent = -1};
        sim_traffic_set_triggers(&t, &tr, 1);
        int events = 0;
        for (int k = 0; k < (int)(200 / DT); k++) {
            sim_traffic_step(&t, DT);
            for (int e = 0; e < t.n_events; e++) {
                assert_int_equal(t.events[e].trigger, 0);
                assert_int_equal(t.events[e].by, a);
                assert_true(t.agents[a].s >= 500 && t.agents[a].s <= 500 + t.agents[a].v * DT + 1e-9);
                events++;
            }
        }
        assert_int_equal(events, once ? 1 : 3); /* 200 s at 18 m/s from s 100: three passes of s 500 */
        sim_traffic_free(&t);
    }
    sim_lanegraph_free(&g);
}

/* Lane switch and abrupt braking happen as configured. */
static void trigger_actions(void **state)
{
    sim_lanegraph g;
    sim_traffic t;
    sim_traffic_params p = straight_world(&g, &t, 3000, 2, SIM_TRAFFIC_ZONES);
    int a = put(&t, 0, 100, 20, false);
    int b = put(&t, 0, 1000, 20, false);
    sim_traffic_trigger tr[2] = {
        {.road = 0, .s_start = 500, .s_end = 520, .by = SIM_TT_AGENT, .by_agent = a, .once = true,
         .action = SIM_TA_LANE_SWITCH, .agent = a, .lane = -2},
        {.road = 0, .s_start = 1500, .s_end = 1520, .by = SIM_TT_AGENT, .by_agent = b, .once = true,
         .action = SIM_TA_BRAKE, .agent = b, .decel = 5.0, .duration = 2.0}};
    sim_traffic_set_triggers(&t, tr, 2);
    double t_switch = -1, t_brake = -1, v_brake = 0;
    for (int k = 0; k < (int)(40 / DT); k++) {
        sim_traffic_step(&t, DT);
        for (int e = 0; e < t.n_events; e++) {
            if (t.events[e].trigger == 0) t_switch = t.t;
            if (t.events[e].trigger == 1) {
                t_brake = t.t;
                v_brake = t.agents[b].v;
            }
        }
        if (t_switch > 0 && t.t > t_switch + p.lane_change_time + 0.5 && t.t < t_switch + p.lane_change_time + 0.6) {
            assert_int_equal(t.agents[a].lane, 1);
            assert_false(t.agents[a].lc_active);
        }
        if (t_brake > 0 && fabs(t.t - (t_brake + 2.0)) < DT / 2)
            assert_true(fabs(v_brake - t.agents[b].v - 10.0) < 0.1);
    }
    assert_true(t_switch > 0 && t_brake > 0);
    sim_traffic_free(&t);
    sim_lanegraph_free(&g);
}

/* ---- determinism ----------------------------------------------------------------------- */

static void run_motorway(uint32_t seed, sim_traffic_agent *out, int *n)
{
    sim_scenario *sc = load("motorway");
    sim_traffic_setup su;
    assert_int_equal(sim_traffic_setup_init(&su, sc, 400, NULL), 0);
    su.params.seed = seed;
    su.params.density = 8;
    sim_traffic t;
    assert_int_equal(sim_traffic_setup_start(&su, &t, NULL), 0);
    const sim_start_point *st = &sc->starts[sim_scenario_find_start(sc, "motorway")];
    ego_drv e = {sim_lanegraph_find(&su.graph, st->road, st->lane, st->s), 0, st->speed};
    e.s = sim_lanegraph_lane_s(&su.graph, e.lane, st->s);
    for (int k = 0; k < (int)(60 / DT); k++) {
        ego_step(&t, &e, DT);
        sim_traffic_step(&t, DT);
    }
    *n = t.n_slots;
    memcpy(out, t.agents, (size_t)t.n_slots * sizeof *out);
    sim_traffic_free(&t);
    sim_traffic_setup_free(&su);
    sim_scenario_free(sc);
}

static void same_seed_same_traffic(void **state)
{
    static sim_traffic_agent a[400], b[400], c[400];
    int na, nb, nc;
    run_motorway(7, a, &na);
    run_motorway(7, b, &nb);
    run_motorway(8, c, &nc);
    assert_true(na > 50);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, (size_t)na * sizeof *a);
    bool differs = na != nc;
    for (int i = 0; !differs && i < na; i++)
        differs = a[i].lane != c[i].lane || a[i].s != c[i].s || a[i].active != c[i].active;
    assert_true(differs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overtakes_zones),
        cmocka_unit_test(overtakes_idm),
        cmocka_unit_test(follower_stops_zones),
        cmocka_unit_test(follower_stops_idm),
        cmocka_unit_test(external_car_is_a_leader),
        cmocka_unit_test(priority_to_the_right),
        cmocka_unit_test(four_way_no_deadlock),
        cmocka_unit_test(trigger_fires_once),
        cmocka_unit_test(trigger_actions),
        cmocka_unit_test(same_seed_same_traffic),
        cmocka_unit_test(motorway_500_no_overlap),
        cmocka_unit_test(town_350_no_overlap),
        cmocka_unit_test(town_keeps_moving),
        cmocka_unit_test(motorway_500_idm_no_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
