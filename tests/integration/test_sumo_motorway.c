/* Integration test of SUMO's traffic on a JSON scenario's roads (real dispatcher,
 * traffic-node, netconvert and `sumo`; the session helpers of sumo_session.h):
 * scenarios/motorway-sumo.json, whose roads traffic-node exports to OpenDRIVE
 * (sim_xodr_write) for netconvert. With the ego driving along the motorway and then
 * through its left-hand curve, every SUMO vehicle stands in a drivable lane of the
 * scenario's own road model, within centimetres of its lane centre (`simctl where`
 * agrees for a few), no two boxes overlap, and two runs give byte-identical
 * traffic.state streams; the ego put behind a SUMO car, faster than it, has that car as
 * its lead with the boxes' gap and THW and TTC from it. The town's grid of junctions
 * with SUMO's random trips: on lanes and apart there too. And the writer against
 * netconvert: a straight road and an arc exported, netconvert's lane shapes on the lane
 * centres solved by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "sim_file.h"
#include "sim_xodr_write.h"
#include "sumo_session.h"
#include "test_support.h"

#define SCENARIO "scenarios/motorway-sumo.json"
#define EGO_SPEED (100 / 3.6)

/* The ego along lane -3 (the middle lane of three) of a road at s, driving at speed. */
static void ego_on_lane(session *s, const char *road, double at)
{
    int ri = sim_roadnet_find_road(&s->sc->net, road);
    assert_true(ri >= 0);
    sim_road_pose p;
    assert_int_equal(sim_road_lane_pose(&s->sc->net, ri, at, -3, 0, &p), 0);
    s->ex = p.x, s->ey = p.y, s->eh = p.heading, s->ev = EGO_SPEED;
}

/* 5 s along the straight mw_west from the "motorway" start, 5 s through the left curve
 * of mw_east (its arc of R 1500 m from s = 250 to 1050, clothoids before and after), then
 * 5 s towards the entry (netconvert's junction "entry", about 450 m long):
 * both runs the same ego inputs. */
static void motorway_on_lanes_apart_and_the_same_twice(void **state)
{
    enum { TICKS = 1500 };
    size_t cap = 64u << 20;
    char *stream[2] = {malloc(cap), malloc(cap)};
    int most = 0, seen_curve = 0, seen_entry = 0;
    for (int run = 0; run < 2; run++) {
        session s;
        sumo_session_open(&s, SCENARIO, NULL);
        stream[run][0] = 0;
        for (int k = 0; k < TICKS; k++) {
            if (k < 500) ego_on_lane(&s, "mw_west", 200 + EGO_SPEED * k * DT);
            else if (k < 1000) ego_on_lane(&s, "mw_east", 450 + EGO_SPEED * (k - 500) * DT);
            else ego_on_lane(&s, "mw_west", 1500 + EGO_SPEED * (k - 1000) * DT);
            if (k >= 1000)
                for (int i = 0; i < s.st.n_vehicles; i++) seen_entry += strcmp(s.veh[i].road, "mw_through") == 0;
            tick(&s, stream[run], cap);
            if (run) continue;
            all_on_lanes(&s);
            char which[200] = "";
            int n = overlaps(&s, which, sizeof which);
            if (n) fail_msg("tick %d: %d pairs of boxes overlap, %s", k, n, which);
            if (s.st.n_vehicles > most) most = s.st.n_vehicles;
            for (int i = 0; i < s.st.n_vehicles; i++)
                if (strcmp(s.veh[i].road, "mw_east") == 0 && s.veh[i].s > 250 && s.veh[i].s < 1050) seen_curve++;
            if (k == 250 || k == 750 || k == 1250)
                for (int i = 0; i < 3 && i < s.st.n_vehicles; i++) where_says_lane(&s, &s.veh[i]);
        }
        session_stop(&s);
    }
    double median, p95, most_off;
    int n = lane_offsets_summary(&median, &p95, &most_off);
    fprintf(stderr, "motorway: up to %d vehicles within 300 m of the ego, %d vehicle-ticks in the R 1500 m arc, "
            "%d in the junction entry; "
            "SUMO's cars off our lane centres (%d samples going straight along a road): median %.4f m, 95th "
            "percentile %.4f m, most %.4f m\n", most, seen_curve, seen_entry, n, median, p95, most_off);
    assert_true(n > 5000);
    assert_true(seen_curve > 1000);
    assert_true(seen_entry > 100);
    assert_true(most >= 10);
    /* lanes of constant width: SUMO's lane shapes are ours (its shapes kept to 1 cm).
     * The most: a box's centre is half its length behind SUMO's front bumper along the
     * heading, so on the R 1500 m arc a 12 m lorry's centre lies (6 m)^2 / (2 x 1500 m)
     * = 1.2 cm inside the lane centre the bumper follows (6 cm on the ramp's R 300 m). */
    assert_true(median < 0.01);
    assert_true(most_off < 0.03);
    assert_true(strlen(stream[0]) > TICKS * 1000);
    assert_string_equal(stream[0], stream[1]);
    free(stream[0]);
    free(stream[1]);
}

/* Another vehicle in v's lane less than 40 m behind it (where the ego would go). */
static bool followed_closely(const session *s, const sim_msg_traffic_vehicle *v)
{
    for (int i = 0; i < s->st.n_vehicles; i++) {
        const sim_msg_traffic_vehicle *w = &s->veh[i];
        if (w != v && strcmp(w->road, v->road) == 0 && w->lane == v->lane && v->s - w->s > 0 && v->s - w->s < 40)
            return true;
    }
    return false;
}

/* The ego 20 m behind a SUMO car on the straight mw_west, in its lane and 3 m/s faster:
 * that car is the lead; gap from the boxes, THW = gap / ego speed, TTC = gap / closing
 * speed. */
static void lead_with_gap_thw_ttc(void **state)
{
    session s;
    sumo_session_open(&s, SCENARIO, NULL);
    for (int k = 0; k < 300; k++) {
        ego_on_lane(&s, "mw_west", 200 + EGO_SPEED * k * DT);
        tick(&s, NULL, 0);
    }
    char lead[64] = "";
    double lead_speed = 0;
    for (int i = 0; i < s.st.n_vehicles && !lead[0]; i++) {
        const sim_msg_traffic_vehicle *v = &s.veh[i];
        double x, y, h, speed = hypot(v->velocity[0], v->velocity[1]);
        if (strcmp(v->road, "mw_west") == 0 && v->lane < 0 && speed > 10 && v->s > 300 && v->s < 1500 &&
            !followed_closely(&s, v) && ahead_in_lane(&s, v, -20, &x, &y, &h)) {
            s.ex = x, s.ey = y, s.eh = h, s.ev = speed + 3;
            snprintf(lead, sizeof lead, "%s", v->id);
            lead_speed = speed;
        }
    }
    assert_true(lead[0]);
    /* the ego moves on at its speed; it is in SUMO from the step after it was moved */
    tick(&s, NULL, 0);
    s.ex += s.ev * DT * cos(s.eh), s.ey += s.ev * DT * sin(s.eh);
    tick(&s, NULL, 0);
    assert_true(s.st.lead.valid);
    assert_string_equal(s.st.lead.id, lead);
    const sim_msg_traffic_vehicle *v = find(&s, lead);
    assert_non_null(v);
    double along = (v->pos[0] - s.ex) * cos(s.eh) + (v->pos[1] - s.ey) * sin(s.eh);
    double gap = along - 0.5 * (EGO_LEN + v->size[0]);
    double speed = hypot(v->velocity[0], v->velocity[1]);
    fprintf(stderr, "lead %s at %.2f m/s (%.2f when picked): gap %.3f m in traffic.state, %.3f m between the boxes; "
            "THW %.3f s, TTC %.3f s\n", lead, speed, lead_speed, s.st.lead.gap, gap, s.st.lead.thw, s.st.lead.ttc);
    /* 20 m between the centres when placed, less half of each box; since then the lead
       drove two ticks and the ego one */
    assert_true(fabs(gap - (20 - 0.5 * (EGO_LEN + v->size[0]) + 2 * DT * speed - DT * s.ev)) < 0.05);
    assert_true(fabs(s.st.lead.gap - gap) < 0.05);
    assert_true(fabs(s.st.lead.speed - speed) < 1e-3);
    assert_true(fabs(s.st.lead.thw - s.st.lead.gap / s.ev) < 1e-3);
    assert_true(s.ev > speed);
    assert_true(fabs(s.st.lead.ttc - s.st.lead.gap / (s.ev - speed)) < 1e-3 * s.st.lead.ttc);
    session_stop(&s);
}

/* The town's grid (scenarios/town.json: nine junctions with connecting roads for every
 * movement, no lights) with SUMO's random trips instead of its own traffic, written
 * beside the test's files: SUMO's cars through the exported junctions stay in our
 * lanes and apart, the ego standing at the start. */
static void town_grid_on_lanes_and_apart(void **state)
{
    char *text, path[200];
    size_t len;
    sim_error err = {0};
    assert_int_equal(sim_file_read(ts_root("scenarios/town.json"), &text, &len, &err), 0);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    cJSON_DeleteItemFromObject(j, "triggers"); /* they act on the own core's agents */
    cJSON_ReplaceItemInObject(j, "traffic", cJSON_Parse("{\"engine\": \"sumo\", \"seed\": 3, \"sumo\": "
                                                        "{\"period_s\": 1, \"warmup_s\": 60}}"));
    text = cJSON_Print(j);
    cJSON_Delete(j);
    snprintf(path, sizeof path, "/tmp/test_sumo_motorway.%d.town.json", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    free(text);
    n_offsets = 0;
    session s;
    sumo_session_open(&s, path, NULL);
    int most = 0, in_junctions = 0;
    for (int k = 0; k < 1000; k++) {
        tick(&s, NULL, 0);
        all_on_lanes(&s);
        char which[200] = "";
        int n = overlaps(&s, which, sizeof which);
        if (n) fail_msg("tick %d: %d pairs of boxes overlap, %s", k, n, which);
        if (s.st.n_vehicles > most) most = s.st.n_vehicles;
        for (int i = 0; i < s.st.n_vehicles; i++) {
            int r = sim_roadnet_find_road(&s.sc->net, s.veh[i].road);
            in_junctions += r >= 0 && s.sc->net.roads[r].junction >= 0;
        }
    }
    session_stop(&s);
    unlink(path);
    double median, p95, most_off;
    int n = lane_offsets_summary(&median, &p95, &most_off);
    fprintf(stderr, "town grid: up to %d vehicles within 300 m, %d vehicle-ticks on junctions' connecting roads; off "
            "our lane centres (%d samples going straight along a road): median %.4f m, 95th percentile %.4f m, "
            "most %.4f m\n", most, in_junctions, n, median, p95, most_off);
    assert_true(most >= 20);
    assert_true(in_junctions > 1000);
    assert_true(n > 5000);
    assert_true(median < 0.01);
    assert_true(most_off < 0.05);
}

/* ---- the writer against netconvert ------------------------------------------------- */

/* A 100 m line east from the origin, then 50 m of arc of radius 100 m to the left; two
 * lanes of 3.5 m to the right of the reference line, one to the left. */
static const char *const LINE_AND_ARC =
    "{\"format\": 1, \"name\": \"line and arc\", \"roads\": [{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0, "
    "\"heading_deg\": 0}, \"segments\": [{\"type\": \"line\", \"length\": 100}, {\"type\": \"arc\", \"length\": 50, "
    "\"radius\": 100}], \"lanes\": {\"left\": [{\"width\": 3.5}], \"right\": [{\"width\": 3.5}, {\"width\": 3.5}]}}], "
    "\"start_points\": [{\"name\": \"s\", \"road\": \"a\", \"s\": 10, \"lane\": -1}]}";

/* Distance from (x, y) to the centre line of the right lane whose centre is t metres
 * right of the reference line (t > 0), solved by hand: y = -t along the line (x <= 100),
 * then the circle about (100, 100) of radius 100 + t up to 0.5 rad. */
static double off_hand_solved(double x, double y, double t)
{
    if (x <= 100) return fabs(y + t);
    double a = atan2(x - 100, 100 - y); /* angle turned along the arc */
    if (a > 0.5) return INFINITY;
    return fabs(hypot(x - 100, y - 100) - (100 + t));
}

static void netconvert_lanes_on_the_hand_solved_centres(void **state)
{
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_parse(LINE_AND_ARC, strlen(LINE_AND_ARC), "t.json", ".", &sc, &d), 0);
    sim_diag_free(&d);
    char *text;
    size_t len;
    sim_error err = {0};
    assert_int_equal(sim_xodr_write(&sc->net, sc->name, &text, &len, &err), 0);
    char dir[128], xodr[200], net[200], cmd[800];
    snprintf(dir, sizeof dir, "/tmp/test_sumo_motorway.%d", (int)getpid());
    snprintf(xodr, sizeof xodr, "%s/a.xodr", dir);
    snprintf(net, sizeof net, "%s/a.net.xml", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(xodr, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(text);
    /* as traffic-node runs it (without its lane-type map: every lane here drives; Debian's
       netconvert needs SUMO_HOME for its built-in one) */
    setenv("SUMO_HOME", "/usr/share/sumo", 0);
    snprintf(cmd, sizeof cmd, "netconvert --opendrive-files '%s' --offset.disable-normalization true "
             "--no-turnarounds true --output-file '%s' >'%s/netconvert.log' 2>&1", xodr, net, dir);
    assert_int_equal(system(cmd), 0);
    xmlDocPtr doc = xmlReadFile(net, NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    /* SUMO's edge "-a" runs along s (our right lanes): its lane 0 is our -2 (centre 5.25 m
     * right of the reference line), lane 1 our -1 (1.75 m) */
    static const struct { const char *id; double t; } lanes[] = {{"-a_0", 5.25}, {"-a_1", 1.75}};
    for (int i = 0; i < 2; i++) {
        char path[100];
        snprintf(path, sizeof path, "//edge[@id='-a']/lane[@id='%s']", lanes[i].id);
        xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST path, ctx);
        assert_true(o && o->nodesetval && o->nodesetval->nodeNr == 1);
        xmlChar *shape = xmlGetProp(o->nodesetval->nodeTab[0], BAD_CAST "shape");
        assert_non_null(shape);
        double worst = 0, x = 0, y = 0, first_x = NAN;
        int n = 0;
        for (const char *p = (const char *)shape; *p;) {
            char *e;
            x = strtod(p, &e);
            assert_true(*e == ',');
            y = strtod(e + 1, &e);
            double off = off_hand_solved(x, y, lanes[i].t);
            if (off > worst) worst = off;
            if (isnan(first_x)) first_x = x;
            n++;
            p = e + strspn(e, " ");
        }
        /* the arc's end, solved by hand: (100 + r sin 0.5, 100 - r cos 0.5), r = 100 + t */
        double r = 100 + lanes[i].t, ex = 100 + r * sin(0.5), ey = 100 - r * cos(0.5);
        fprintf(stderr, "netconvert's lane %s: %d points, at most %.4f m off the lane centre solved by hand; first x "
                "%.3f, last (%.3f, %.3f), by hand (%.3f, %.3f)\n", lanes[i].id, n, worst, first_x, x, y, ex, ey);
        assert_true(n > 20); /* the arc sampled, not a chord */
        assert_true(worst < 0.01);
        assert_true(first_x < 0.01);
        /* the lane's last point: netconvert ends it at the dead end's node shape, a few
           centimetres before the road's end, on the same circle */
        assert_true(hypot(x - ex, y - ey) < 0.1);
        xmlFree(shape);
        xmlXPathFreeObject(o);
    }
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(doc);
    sim_scenario_free(sc);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(netconvert_lanes_on_the_hand_solved_centres),
        cmocka_unit_test(motorway_on_lanes_apart_and_the_same_twice),
        cmocka_unit_test(lead_with_gap_thw_ttc),
        cmocka_unit_test(town_grid_on_lanes_and_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
