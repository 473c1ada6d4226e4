/* Unit tests of the OpenDRIVE writer (sim_xodr_write): a JSON scenario's straight road
 * and arc, then a tapering road linked to it, exported; the file's geometry, lanes and
 * links checked against values solved by hand (read back with libxml2's XPath); the
 * text read back by sim_xodr gives the same lane centres (to 1e-9 m) and the same lane
 * graph, for that network and for the shipped motorway-sumo scenario; characters that
 * XML escapes survive in ids; a road without lanes is refused, naming it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "sim_scenario.h"
#include "sim_xodr.h"
#include "sim_xodr_write.h"

/* Road a: 100 m straight east from the origin, then 50 m of arc of radius 100 m to the
 * left (0.5 rad). Road b: 30 m straight on from a's end, its outer right lane tapering
 * from 3.5 m to nothing. */
static const char *const TWO_ROADS =
    "{\"format\": 1, \"name\": \"two & <roads>\", \"roads\": ["
    "{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0},"
    " \"segments\": [{\"type\": \"line\", \"length\": 100}, {\"type\": \"arc\", \"length\": 50, \"radius\": 100}],"
    " \"lanes\": {\"center_mark\": \"dashed\", \"left\": [{\"width\": 3.5, \"mark\": \"solid\"}],"
    " \"right\": [{\"width\": 3.5, \"mark\": \"dashed\"}, {\"width\": 3.5, \"mark\": \"solid\"},"
    " {\"width\": 2.0, \"type\": \"shoulder\"}]},"
    " \"speed_limits\": [{\"s_start\": 0, \"s_end\": 120, \"speed_kmh\": 90}],"
    " \"successor\": {\"road\": \"b\", \"contact\": \"start\"}},"
    "{\"id\": \"b\", \"start\": {\"x\": 147.94255386042030, \"y\": 12.241743810962724, \"heading_deg\": "
    "28.64788975654116},"
    " \"segments\": [{\"type\": \"line\", \"length\": 30}],"
    " \"lanes\": {\"left\": [{\"width\": 3.5}], \"right\": [{\"width\": 3.5}, {\"width\": 3.5, \"width_end\": 0}]},"
    " \"predecessor\": {\"road\": \"a\", \"contact\": \"end\"}}],"
    " \"start_points\": [{\"name\": \"s\", \"road\": \"a\", \"s\": 10, \"lane\": -1}]}";

static sim_scenario *parse(const char *text)
{
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    int rc = sim_scenario_parse(text, strlen(text), "t.json", ".", &sc, &d);
    if (rc) fail_msg("%s", d.n ? d.msgs[0] : "no message");
    sim_diag_free(&d);
    return sc;
}

/* The attribute of the single node an XPath names, as a number (NAN when absent). */
static double num_at(xmlDocPtr doc, const char *path, const char *attr)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST path, ctx);
    double v = NAN;
    if (o && o->nodesetval && o->nodesetval->nodeNr == 1) {
        xmlChar *s = xmlGetProp(o->nodesetval->nodeTab[0], BAD_CAST attr);
        if (s) v = strtod((const char *)s, NULL);
        xmlFree(s);
    } else {
        fail_msg("%s: %d nodes, expected 1", path, o && o->nodesetval ? o->nodesetval->nodeNr : 0);
    }
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return v;
}

static int count_at(xmlDocPtr doc, const char *path)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST path, ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return n;
}

static char *export(const sim_roadnet *net, const char *name, size_t *len)
{
    char *text = NULL;
    sim_error err = {0};
    int rc = sim_xodr_write(net, name, &text, len, &err);
    if (rc) fail_msg("sim_xodr_write: %s", err.msg);
    assert_int_equal(strlen(text), *len);
    return text;
}

static void hand_solved_values(void **state)
{
    sim_scenario *sc = parse(TWO_ROADS);
    size_t len;
    char *text = export(&sc->net, sc->name, &len);
    xmlDocPtr doc = xmlReadMemory(text, (int)len, "x.xodr", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    /* road a: 150 m; its arc starts where the line ends, heading east, curvature 1/100 */
    assert_true(num_at(doc, "/OpenDRIVE/road[@id='a']", "length") == 150);
    assert_int_equal(count_at(doc, "/OpenDRIVE/road[@id='a']/planView/geometry"), 2);
    assert_true(num_at(doc, "/OpenDRIVE/road[@id='a']/planView/geometry[1]/line/..", "length") == 100);
    const char *arc = "/OpenDRIVE/road[@id='a']/planView/geometry[2]";
    assert_true(num_at(doc, arc, "s") == 100 && num_at(doc, arc, "x") == 100 && num_at(doc, arc, "y") == 0 &&
                num_at(doc, arc, "hdg") == 0 && num_at(doc, arc, "length") == 50);
    assert_true(fabs(num_at(doc, "/OpenDRIVE/road[@id='a']/planView/geometry[2]/arc", "curvature") - 0.01) < 1e-15);
    /* road b starts at the arc's end: (100 + 100 sin 0.5, 100 (1 - cos 0.5)), heading 0.5 */
    const char *b = "/OpenDRIVE/road[@id='b']/planView/geometry";
    assert_true(fabs(num_at(doc, b, "x") - (100 + 100 * sin(0.5))) < 1e-9);
    assert_true(fabs(num_at(doc, b, "y") - 100 * (1 - cos(0.5))) < 1e-9);
    assert_true(fabs(num_at(doc, b, "hdg") - 0.5) < 1e-12);
    /* lanes: a constant width is one record; the taper 3.5 m -> 0 over 30 m has b = -3.5/30 */
    const char *a1 = "/OpenDRIVE/road[@id='a']/lanes/laneSection/right/lane[@id='-1']";
    char p[256];
    snprintf(p, sizeof p, "%s/width", a1);
    assert_true(num_at(doc, p, "a") == 3.5 && num_at(doc, p, "b") == 0);
    assert_true(num_at(doc, "/OpenDRIVE/road[@id='b']/lanes/laneSection/right/lane[@id='-2']/width", "b") ==
                -3.5 / 30);
    assert_int_equal(count_at(doc, "/OpenDRIVE/road[@id='a']/lanes/laneSection/right/lane[@id='-3' and "
                                   "@type='shoulder']"),
                     1);
    assert_int_equal(count_at(doc, "/OpenDRIVE/road[@id='a']/lanes/laneSection/center/lane[@id='0']/"
                                   "roadMark[@type='broken']"),
                     1);
    /* links: a -> b at b's start, and lane by lane (a's -3 has no partner on b) */
    assert_int_equal(count_at(doc, "/OpenDRIVE/road[@id='a']/link/successor[@elementType='road' and "
                                   "@elementId='b' and @contactPoint='start']"),
                     1);
    snprintf(p, sizeof p, "%s/link/successor", a1);
    assert_true(num_at(doc, p, "id") == -1);
    assert_true(num_at(doc, "/OpenDRIVE/road[@id='b']/lanes/laneSection/left/lane[@id='1']/link/predecessor", "id") ==
                1);
    assert_int_equal(count_at(doc, "/OpenDRIVE/road[@id='a']/lanes/laneSection/right/lane[@id='-3']/link"), 0);
    /* 90 km/h from 0 to 120 m, then no limit */
    assert_true(fabs(num_at(doc, "/OpenDRIVE/road[@id='a']/type[@s='0']/speed", "max") - 25) < 1e-12);
    assert_int_equal(count_at(doc, "/OpenDRIVE/road[@id='a']/type[@s='120' and not(speed)]"), 1);
    /* the name's & and < escaped, and back as they were */
    assert_int_equal(count_at(doc, "/OpenDRIVE/header[@name='two & <roads>']"), 1);
    xmlFreeDoc(doc);
    free(text);
    sim_scenario_free(sc);
}

/* The export read back: every lane centre at every metre within 1e-9 m, the same lane
 * types and widths, and the same lanes next along the lane graph. */
static void same_network(const sim_roadnet *a, const sim_roadnet *b)
{
    assert_int_equal(a->n_roads, b->n_roads);
    assert_int_equal(a->n_junctions, b->n_junctions);
    for (int ri = 0; ri < a->n_roads; ri++) {
        const sim_road *r = &a->roads[ri];
        int rj = sim_roadnet_find_road(b, r->id);
        assert_int_equal(rj, ri);
        assert_true(fabs(r->length - b->roads[rj].length) < 1e-9);
        assert_int_equal(r->n_sections, b->roads[rj].n_sections);
        for (double s = 0; s <= r->length; s += 1.0) {
            int sec = sim_road_section_at(r, s);
            const sim_lane_section *ls = &r->sections[sec];
            for (int id = -ls->n_right; id <= ls->n_left; id++) {
                if (!id) continue;
                double t1, t2;
                bool h1 = sim_road_lane_center(r, s, id, &t1), h2 = sim_road_lane_center(&b->roads[rj], s, id, &t2);
                assert_true(h1 == h2);
                if (!h1) continue;
                sim_road_pose p1, p2;
                sim_road_pose_at(a, ri, s, t1, &p1);
                sim_road_pose_at(b, rj, s, t2, &p2);
                if (hypot(p1.x - p2.x, p1.y - p2.y) > 1e-9)
                    fail_msg("road %s s %.1f lane %d: (%.12f, %.12f) exported as (%.12f, %.12f)", r->id, s, id, p1.x,
                             p1.y, p2.x, p2.y);
                assert_int_equal(sim_road_lane(r, sec, id)->type, sim_road_lane(&b->roads[rj], sec, id)->type);
            }
        }
        for (int sec = 0; sec < r->n_sections; sec++)
            for (int id = -r->sections[sec].n_right; id <= r->sections[sec].n_left; id++)
                for (int dir = -1; dir <= 1; dir += 2) {
                    if (!id) continue;
                    sim_lane_ref from = {ri, sec, id, dir}, o1[8], o2[8];
                    int n1 = sim_roadnet_lane_next(a, &from, o1, 8), n2 = sim_roadnet_lane_next(b, &from, o2, 8);
                    assert_int_equal(n1, n2);
                    for (int k = 0; k < n1 && k < 8; k++) assert_memory_equal(&o1[k], &o2[k], sizeof o1[k]);
                }
        double l1 = sim_road_speed_limit(r, 50), l2 = sim_road_speed_limit(&b->roads[rj], 50);
        assert_true(fabs(l1 - l2) < 1e-12);
    }
}

static void round_trip(const sim_roadnet *net, const char *name)
{
    size_t len;
    char *text = export(net, name, &len);
    sim_roadnet back = {0};
    sim_error err = {0};
    if (sim_xodr_parse(text, len, "export.xodr", &back, NULL, &err)) fail_msg("read back: %s", err.msg);
    same_network(net, &back);
    sim_roadnet_free(&back);
    free(text);
}

static void read_back_the_same(void **state)
{
    sim_scenario *sc = parse(TWO_ROADS);
    round_trip(&sc->net, sc->name);
    sim_scenario_free(sc);
}

/* The shipped motorway: clothoids, a junction with lane links, a tapering lane in a
 * second lane section, speed limits. */
static void motorway_read_back_the_same(void **state)
{
    sim_scenario *sc = NULL;
    sim_error err = {0};
    if (sim_scenario_load_err("scenarios/motorway-sumo.json", &sc, &err)) fail_msg("%s", err.msg);
    assert_int_equal(sc->net.n_junctions, 1);
    round_trip(&sc->net, sc->name);
    sim_scenario_free(sc);
}

static void refused(void **state)
{
    sim_roadnet net = {0};
    sim_road r = {.id = "lonely", .junction = -1};
    net.roads = &r;
    net.n_roads = 1;
    char *text = (char *)1;
    size_t len = 7;
    sim_error err = {0};
    assert_int_equal(sim_xodr_write(&net, "x", &text, &len, &err), SIM_EINVAL);
    assert_null(text);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err.msg, "road \"lonely\": has no geometry"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_solved_values),
        cmocka_unit_test(read_back_the_same),
        cmocka_unit_test(motorway_read_back_the_same),
        cmocka_unit_test(refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
