/* Routing: A* against an independent Dijkstra on random graphs (shortest), routes
 * connected and as long as the sum of their pieces, the town scenario's routes and
 * manoeuvres worked out by hand, and guidance along a route. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_route.h"
#include "sim_route_roads.h"
#include "sim_scenario.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static uint64_t rng_state = 12345;
static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Random graph: points in a 1 km square, nodes = directed pieces between points,
 * each at least as long as its chord (as roads are), edges where pieces meet. */
static void random_graph(sim_route_graph *g, int n_pts, int n_nodes, double *px, double *py, int *from, int *to)
{
    sim_route_graph_init(g);
    for (int i = 0; i < n_pts; i++) {
        px[i] = 1000 * urand();
        py[i] = 1000 * urand();
    }
    for (int k = 0; k < n_nodes; k++) {
        int a = (int)(urand() * n_pts), b = (int)(urand() * n_pts);
        if (a == b) b = (b + 1) % n_pts;
        from[k] = a;
        to[k] = b;
        double chord = hypot(px[b] - px[a], py[b] - py[a]);
        double h = atan2(py[b] - py[a], px[b] - px[a]);
        sim_route_node n = {.length = chord * (1 + 0.5 * urand()) + 0.1, .x0 = px[a], .y0 = py[a], .h0 = h,
                            .x1 = px[b], .y1 = py[b], .h1 = h, .junction = -1};
        assert_int_equal(sim_route_graph_add_node(g, &n), k);
    }
    for (int k = 0; k < n_nodes; k++)
        for (int j = 0; j < n_nodes; j++)
            if (to[k] == from[j]) assert_int_equal(sim_route_graph_add_edge(g, k, j), 0);
    assert_int_equal(sim_route_graph_finish(g), 0);
}

/* Plain O(n^2) Dijkstra written apart from the library: distance from a start
 * position to a goal position, INFINITY when unreachable. */
static double reference(const sim_route_graph *g, sim_route_pos st, sim_route_pos go)
{
    int n = g->n_nodes;
    double *dist = malloc((size_t)n * sizeof *dist);
    char *done = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) dist[i] = INFINITY;
    double best = go.node == st.node && go.t >= st.t ? go.t - st.t : INFINITY;
    for (int e = 0; e < g->n_edges; e++)
        if (g->edge_from[e] == st.node) {
            double c = g->nodes[st.node].length - st.t;
            if (c < dist[g->edge_to[e]]) dist[g->edge_to[e]] = c;
        }
    for (;;) {
        int u = -1;
        for (int i = 0; i < n; i++)
            if (!done[i] && isfinite(dist[i]) && (u < 0 || dist[i] < dist[u])) u = i;
        if (u < 0) break;
        done[u] = 1;
        for (int e = 0; e < g->n_edges; e++)
            if (g->edge_from[e] == u && dist[u] + g->nodes[u].length < dist[g->edge_to[e]])
                dist[g->edge_to[e]] = dist[u] + g->nodes[u].length;
    }
    if (dist[go.node] + go.t < best) best = dist[go.node] + go.t;
    free(dist);
    free(done);
    return best;
}

static bool has_edge(const sim_route_graph *g, int a, int b)
{
    int ne;
    const int *next = sim_route_graph_next(g, a, &ne);
    for (int e = 0; e < ne; e++)
        if (next[e] == b) return true;
    return false;
}

/* Connected, from the start to the goal, length the sum of the pieces. */
static void check_shape(const sim_route_graph *g, const sim_route *r, sim_route_pos st, sim_route_pos go)
{
    assert_true(r->n_legs >= 1);
    double sum = 0;
    for (int i = 0; i < r->n_legs; i++) {
        const sim_route_leg *l = &r->legs[i];
        NEAR(l->at, sum, 1e-9);
        sum += l->t1 - l->t0;
        if (i > 0) {
            assert_true(has_edge(g, r->legs[i - 1].node, l->node));
            NEAR(r->legs[i - 1].t1, g->nodes[r->legs[i - 1].node].length, 0);
            NEAR(l->t0, 0, 0);
        }
    }
    NEAR(r->length, sum, 1e-9);
    if (r->n_legs == 1 || r->legs[0].node == st.node) {
        assert_int_equal(r->legs[0].node, st.node);
        NEAR(r->legs[0].t0, st.t, 0);
    }
    assert_int_equal(r->legs[r->n_legs - 1].node, go.node);
    NEAR(r->legs[r->n_legs - 1].t1, go.t, 0);
}

static void astar_equals_dijkstra_on_random_graphs(void **state)
{
    enum { PTS = 30, NODES = 90, TRIALS = 400 };
    double px[PTS], py[PTS];
    int from[NODES], to[NODES];
    int found = 0, unreachable = 0;
    for (int graph = 0; graph < 20; graph++) {
        sim_route_graph g;
        random_graph(&g, PTS, NODES, px, py, from, to);
        for (int trial = 0; trial < TRIALS / 20; trial++) {
            sim_route_pos st = {(int)(urand() * NODES), 0}, go = {(int)(urand() * NODES), 0};
            st.t = urand() * g.nodes[st.node].length;
            go.t = urand() * g.nodes[go.node].length;
            double want = reference(&g, st, go);
            sim_route r, d;
            sim_error err;
            int rc = sim_route_find(&g, &st, 1, &go, 1, true, &r, &err);
            int rd = sim_route_find(&g, &st, 1, &go, 1, false, &d, &err);
            if (!isfinite(want)) {
                assert_int_equal(rc, SIM_ENOTFOUND);
                assert_int_equal(rd, SIM_ENOTFOUND);
                unreachable++;
                continue;
            }
            assert_int_equal(rc, 0);
            assert_int_equal(rd, 0);
            NEAR(r.length, want, 1e-6);
            NEAR(d.length, want, 1e-6);
            assert_true(r.expanded <= d.expanded); /* the heuristic never costs work */
            check_shape(&g, &r, st, go);
            found++;
            sim_route_free(&r);
            sim_route_free(&d);
        }
        sim_route_graph_free(&g);
    }
    assert_true(found > 200); /* the random graphs are mostly connected */
    assert_true(unreachable >= 0);
}

static void eta_follows_the_speed_limits(void **state)
{
    sim_route_graph g;
    sim_route_graph_init(&g);
    sim_route_node a = {.length = 100, .x1 = 100, .junction = -1};
    sim_route_node b = {.length = 200, .x0 = 100, .x1 = 300, .junction = -1};
    assert_int_equal(sim_route_graph_add_node(&g, &a), 0);
    assert_int_equal(sim_route_graph_add_node(&g, &b), 1);
    assert_int_equal(sim_route_graph_add_limit(&g, 0, 0, 100, 10), 0);
    assert_int_equal(sim_route_graph_add_limit(&g, 1, 0, 50, 20), 0); /* 150 m unlimited */
    assert_int_equal(sim_route_graph_add_edge(&g, 0, 1), 0);
    assert_int_equal(sim_route_graph_finish(&g), 0);
    sim_route r;
    sim_route_pos st = {0, 40}, go = {1, 120};
    assert_int_equal(sim_route_find(&g, &st, 1, &go, 1, true, &r, NULL), 0);
    NEAR(r.length, 60 + 120, 1e-12);
    /* 60 m at 10 m/s, 50 m at 20 m/s, 70 m at the default 50 km/h */
    NEAR(r.eta, 6 + 2.5 + 70 / (50 / 3.6), 1e-9);
    /* no manoeuvre on a plain link straight on: depart and arrive only */
    assert_int_equal(r.n_mans, 2);
    assert_int_equal(r.mans[0].type, SIM_MAN_DEPART);
    assert_int_equal(r.mans[1].type, SIM_MAN_ARRIVE);
    NEAR(r.mans[1].at, 180, 1e-12);
    sim_route_free(&r);
    /* backwards along one node: there is no way round */
    sim_error err;
    sim_route_pos back = {0, 10};
    assert_int_equal(sim_route_find(&g, &st, 1, &back, 1, true, &r, &err), SIM_ENOTFOUND);
    assert_string_equal(err.msg, "no route: the goal cannot be reached from the start");
    sim_route_pos bad = {2, 0};
    assert_int_equal(sim_route_find(&g, &bad, 1, &back, 1, true, &r, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "start[0]: node 2, expected 0..1");
    sim_route_graph_free(&g);
}

/* A road that splits without a junction: straight on, a branch 20 degrees to the right
 * (an exit: a straighter way goes on), one 20 degrees left, a U-turn. */
static void exits_and_uturns(void **state)
{
    sim_route_graph g;
    sim_route_graph_init(&g);
    double r20 = 20 * M_PI / 180;
    sim_route_node a = {.length = 100, .x1 = 100, .junction = -1};
    sim_route_node b = {.length = 100, .x0 = 100, .x1 = 200, .junction = -1};
    sim_route_node c = {.length = 100, .x0 = 100, .x1 = 100 + 100 * cos(r20), .y1 = -100 * sin(r20), .h0 = -r20,
                        .h1 = -r20, .junction = -1};
    sim_route_node d = {.length = 100, .x0 = 100, .x1 = 100 + 100 * cos(r20), .y1 = 100 * sin(r20), .h0 = r20,
                        .h1 = r20, .junction = -1};
    sim_route_node u = {.length = 100, .x0 = 100, .y0 = 5, .x1 = 0, .y1 = 5, .h0 = M_PI, .h1 = M_PI, .junction = -1};
    sim_route_node *all[] = {&a, &b, &c, &d, &u};
    for (int i = 0; i < 5; i++) assert_int_equal(sim_route_graph_add_node(&g, all[i]), i);
    for (int i = 1; i < 5; i++) assert_int_equal(sim_route_graph_add_edge(&g, 0, i), 0);
    assert_int_equal(sim_route_graph_finish(&g), 0);
    sim_maneuver_type want[] = {SIM_MAN_STRAIGHT, SIM_MAN_EXIT_RIGHT, SIM_MAN_EXIT_LEFT, SIM_MAN_UTURN};
    for (int i = 1; i < 5; i++) {
        sim_route r;
        sim_route_pos st = {0, 10}, go = {i, 50};
        assert_int_equal(sim_route_find(&g, &st, 1, &go, 1, true, &r, NULL), 0);
        assert_int_equal(r.n_mans, 3);
        assert_int_equal(r.mans[1].type, want[i - 1]);
        NEAR(r.mans[1].at, 90, 1e-12);
        NEAR(r.mans[1].done, 90, 1e-12); /* no junction: complete where it begins */
        sim_route_free(&r);
    }
    sim_route_graph_free(&g);
}

static sim_scenario *load_town(void)
{
    sim_scenario *sc = NULL;
    sim_diag d = {0};
    assert_int_equal(sim_scenario_load("scenarios/town.json", &sc, &d), 0);
    sim_diag_free(&d);
    return sc;
}

static double road_length(const sim_scenario *sc, const char *id)
{
    int r = sim_roadnet_find_road(&sc->net, id);
    assert_true(r >= 0);
    return sc->net.roads[r].length;
}

/* From the start point "home" (h0_0 s 20, driving east) to the fuel station on v2_0 at
 * s 60: east along h0_0 and h0_1 (straight on at J10), left at the corner J20, north
 * 60 m. Every other way is longer (worked out on the grid). */
static void town_route_home_to_fuel_east(void **state)
{
    sim_scenario *sc = load_town();
    sim_route_map m;
    sim_error err;
    assert_int_equal(sim_route_map_build(&m, &sc->net, &err), 0);
    int home = sim_scenario_find_start(sc, "home");
    sim_route_end from = {sc->starts[home].x, sc->starts[home].y, sc->starts[home].heading};
    sim_route_end to = {309, 70, NAN}; /* the POI, 9 m east of v2_0 */
    sim_route r;
    assert_int_equal(sim_route_map_route(&m, &from, &to, 2.0, &r, &err), 0);
    double want = (road_length(sc, "h0_0") - 20) + road_length(sc, "J10_WE") + road_length(sc, "h0_1") +
                  road_length(sc, "J20_WN") + 60;
    NEAR(r.length, want, 1e-6);
    NEAR(want, 110 + 20 + 130 + 5 * M_PI + 60, 1e-9);
    NEAR(r.eta, want / (50 / 3.6), 1e-6);
    const char *roads[] = {"h0_0", "J10_WE", "h0_1", "J20_WN", "v2_0"};
    assert_int_equal(r.n_legs, 5);
    for (int i = 0; i < 5; i++) assert_string_equal(sim_route_map_road_id(&m, r.legs[i].node), roads[i]);
    sim_maneuver_type want_m[] = {SIM_MAN_DEPART, SIM_MAN_STRAIGHT, SIM_MAN_LEFT, SIM_MAN_ARRIVE};
    assert_int_equal(r.n_mans, 4);
    for (int i = 0; i < 4; i++) assert_int_equal(r.mans[i].type, want_m[i]);
    NEAR(r.mans[1].at, 110, 1e-9);            /* entering J10 */
    NEAR(r.mans[2].at, 110 + 20 + 130, 1e-9); /* entering J20 */
    NEAR(r.mans[2].angle, M_PI / 2, 1e-9);
    NEAR(r.mans[2].done, 110 + 20 + 130 + 5 * M_PI, 1e-9); /* complete at the junction's exit */
    /* The polyline runs along lane -1 (1.5 m right of the reference line) and ends at
     * v2_0 s 60: (301.5, 70). */
    assert_true(r.n_pts > 100);
    NEAR(r.px[0], 30, 1e-6);
    NEAR(r.py[0], -1.5, 1e-6);
    NEAR(r.px[r.n_pts - 1], 301.5, 1e-6);
    NEAR(r.py[r.n_pts - 1], 70, 1e-6);
    NEAR(r.ps[r.n_pts - 1], r.length, 1e-9);
    for (int i = 1; i < r.n_pts; i++) /* no jumps */
        assert_true(hypot(r.px[i] - r.px[i - 1], r.py[i] - r.py[i - 1]) < 2.4); /* 2 m, 2.3 m on the outside of a curve */
    sim_route_free(&r);

    /* From home to the hotel (v2_1 s 50): left at J10, right at J11, left at J21 is
     * 110 + 3 x 5 pi + 130 + 130 + 50, shorter than straight on to the corner (quarter
     * circles of radius 10 are shorter than 20 m straight through a junction). */
    to = (sim_route_end){291, 210, NAN};
    assert_int_equal(sim_route_map_route(&m, &from, &to, 2.0, &r, &err), 0);
    NEAR(r.length, 110 + 15 * M_PI + 130 + 130 + 50, 1e-6);
    sim_maneuver_type want_h[] = {SIM_MAN_DEPART, SIM_MAN_LEFT, SIM_MAN_RIGHT, SIM_MAN_LEFT, SIM_MAN_ARRIVE};
    assert_int_equal(r.n_mans, 5);
    for (int i = 0; i < 5; i++) assert_int_equal(r.mans[i].type, want_h[i]);
    sim_route_free(&r);

    /* Heading west from home the car must turn: the way round is longer. */
    from.heading += M_PI;
    to = (sim_route_end){309, 70, NAN};
    assert_int_equal(sim_route_map_route(&m, &from, &to, 2.0, &r, &err), 0);
    assert_true(r.length > want + 100);
    sim_route_free(&r);
    sim_route_map_free(&m);
    sim_scenario_free(sc);
}

static void sample_line(const sim_route_graph *g, int leg, int node, double t, double *x, double *y, void *user)
{
    const sim_route_node *n = &g->nodes[node];
    *x = n->x0 + (n->x1 - n->x0) * t / n->length;
    *y = n->y0 + (n->y1 - n->y0) * t / n->length;
}

/* An L: 300 m east, a junction piece turning left, 300 m north. Guidance announces
 * the left turn at 200, 100 and 30 m, passes it, and arrives; a car 20 m away from the
 * route is off it after SIM_GUIDE_OFF_COUNT updates. */
static void guidance_along_an_l(void **state)
{
    sim_route_graph g;
    sim_route_graph_init(&g);
    sim_route_node a = {.length = 300, .x1 = 300, .junction = -1};
    sim_route_node j = {.length = 20, .x0 = 300, .x1 = 310, .y1 = 10, .h1 = M_PI / 2, .junction = 0};
    sim_route_node j2 = {.length = 20, .x0 = 300, .x1 = 320, .h1 = 0, .junction = 0};
    sim_route_node b = {.length = 300, .x0 = 310, .y0 = 10, .h0 = M_PI / 2, .x1 = 310, .y1 = 310,
                        .h1 = M_PI / 2, .junction = -1};
    sim_route_graph_add_node(&g, &a);
    sim_route_graph_add_node(&g, &j);
    sim_route_graph_add_node(&g, &j2);
    sim_route_graph_add_node(&g, &b);
    sim_route_graph_add_edge(&g, 0, 1);
    sim_route_graph_add_edge(&g, 0, 2);
    sim_route_graph_add_edge(&g, 1, 3);
    sim_route_graph_finish(&g);
    sim_route r;
    sim_route_pos st = {0, 0}, go = {3, 200};
    assert_int_equal(sim_route_find(&g, &st, 1, &go, 1, true, &r, NULL), 0);
    assert_int_equal(sim_route_polyline(&r, &g, 5, sample_line, NULL), 0);
    assert_int_equal(r.n_mans, 3);
    assert_int_equal(r.mans[1].type, SIM_MAN_LEFT);
    NEAR(r.mans[1].at, 300, 0);

    sim_guidance gd;
    sim_guidance_start(&gd, &r);
    int announced[4] = {0}, passed = 0, arrived = 0;
    for (double x = 0; x <= 300; x += 1) {
        sim_guidance_change ch;
        sim_guidance_update(&gd, x, 1.0, 0, &ch);
        assert_false(gd.off_route);
        passed += ch.next_changed;
        if (ch.announce && gd.next == 1) {
            double dist = sim_guidance_distance(&gd);
            int k = dist > 200 ? 0 : dist > 100 ? 1 : dist > 30 ? 2 : 3;
            announced[k]++;
        }
        if (x < 300) NEAR(sim_guidance_distance(&gd), 300 - x, 1e-9);
    }
    assert_int_equal(announced[0], 1); /* at 300 m: within 500 */
    assert_int_equal(announced[1], 1);
    assert_int_equal(announced[2], 1);
    assert_int_equal(announced[3], 1);
    for (double y = 10; y <= 210; y += 1) {
        sim_guidance_change ch;
        sim_guidance_update(&gd, 311, y, M_PI / 2, &ch);
        passed += ch.next_changed;
        arrived += ch.arrived;
    }
    assert_int_equal(passed, 1); /* the turn, at x 300 */
    assert_int_equal(arrived, 1);
    NEAR(gd.s, 300 + 20 + 190, 1e-9); /* arrived SIM_GUIDE_ARRIVE_M before the end */
    assert_true(gd.arrived);

    sim_guidance_start(&gd, &r);
    int offs = 0;
    for (int k = 0; k < 5; k++) {
        sim_guidance_change ch;
        sim_guidance_update(&gd, 100, 20, 0, &ch);
        offs += ch.went_off;
        assert_int_equal(gd.off_route, k + 1 >= SIM_GUIDE_OFF_COUNT);
    }
    assert_int_equal(offs, 1);
    /* Driving the route backwards is off it too. */
    sim_guidance_start(&gd, &r);
    for (int k = 0; k < SIM_GUIDE_OFF_COUNT; k++) {
        sim_guidance_change ch;
        sim_guidance_update(&gd, 100 - k, 0, M_PI, &ch);
    }
    assert_true(gd.off_route);
    sim_route_free(&r);
    sim_route_graph_free(&g);
}

/* CARLA's Town03 (OpenDRIVE, lane sections and junctions): between random pairs of
 * places A* finds the Dijkstra length, the legs follow graph edges, and the polyline
 * along lane centres has no gap wider than the file's own lane links make. */
static void town03_routes_equal_dijkstra(void **state)
{
    sim_scenario *sc = NULL;
    sim_diag d = {0};
    assert_int_equal(sim_scenario_load("../shared/opendrive/Town03.xodr", &sc, &d), 0);
    sim_diag_free(&d);
    sim_route_map m;
    sim_error err;
    assert_int_equal(sim_route_map_build(&m, &sc->net, &err), 0);
    assert_true(m.g.n_nodes > 500);
    int found = 0;
    for (int trial = 0; trial < 200; trial++) {
        sim_route_pos st = {(int)(urand() * m.g.n_nodes), 0}, go = {(int)(urand() * m.g.n_nodes), 0};
        st.t = urand() * m.g.nodes[st.node].length;
        go.t = urand() * m.g.nodes[go.node].length;
        double want = reference(&m.g, st, go);
        sim_route r;
        int rc = sim_route_find(&m.g, &st, 1, &go, 1, true, &r, &err);
        if (!isfinite(want)) {
            assert_int_equal(rc, SIM_ENOTFOUND);
            continue;
        }
        assert_int_equal(rc, 0);
        NEAR(r.length, want, 1e-6);
        check_shape(&m.g, &r, st, go);
        assert_int_equal(sim_route_map_polyline(&m, &r, 2.0), 0);
        /* Town03's own lane links jump: road 127's lane -1 continues as lane -5 of a 7 cm
         * section, across four lanes of type none, 9.8 m to the side. Nothing wider. */
        for (int i = 1; i < r.n_pts; i++) assert_true(hypot(r.px[i] - r.px[i - 1], r.py[i] - r.py[i - 1]) < 10.0);
        found++;
        sim_route_free(&r);
    }
    assert_true(found > 150); /* Town03 is one connected town */
    sim_route_map_free(&m);
    sim_scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(astar_equals_dijkstra_on_random_graphs),
        cmocka_unit_test(eta_follows_the_speed_limits),
        cmocka_unit_test(exits_and_uturns),
        cmocka_unit_test(town_route_home_to_fuel_east),
        cmocka_unit_test(guidance_along_an_l),
        cmocka_unit_test(town03_routes_equal_dijkstra),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
