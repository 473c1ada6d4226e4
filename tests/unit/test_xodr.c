/* The OpenDRIVE reader on small documents written here: exact error messages (file,
 * line, element, what was expected), unsupported elements counted once each, the
 * junction gap check, and the road model's answers on a layout solved by hand (lane
 * sections, a cubic width, lane offset, string ids, the lane graph across sections,
 * roads and a junction, s clamped beyond the end). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_road.h"
#include "sim_scenario.h"
#include "sim_xodr.h"

#include "ts_assert.h"

static int parse(const char *xml, sim_roadnet *net, sim_xodr_report *rep, sim_error *err)
{
    return sim_xodr_parse(xml, strlen(xml), "t.xodr", net, rep, err);
}

static void expect_error(const char *xml, const char *msg)
{
    sim_roadnet net;
    sim_error err = {0};
    assert_int_not_equal(parse(xml, &net, NULL, &err), SIM_OK);
    assert_string_equal(err.msg, msg);
    assert_int_equal(net.n_roads, 0); /* nothing kept */
}

/* A straight road of length len along x from (x0, 0), one right lane of 3 m. */
#define ROAD(id, junc, len, x0, links)                                                          \
    "<road id=\"" id "\" junction=\"" junc "\" length=\"" #len "\">" links                      \
    "<planView><geometry s=\"0\" x=\"" #x0 "\" y=\"0\" hdg=\"0\" length=\"" #len "\"><line/></geometry></planView>" \
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\"/></center>"               \
    "<right><lane id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane></right>" \
    "</laneSection></lanes></road>"

static void errors_name_file_line_and_element(void **state)
{
    (void)state;
    expect_error("<OpenDRIVE>\n<road id=\"a\" length=\"3\">\n<planView>\n"
                 "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"-3\"><line/></geometry>\n"
                 "</planView></road></OpenDRIVE>",
                 "t.xodr: 4: <geometry> has length -3, expected > 0");
    expect_error("<OpenDRIVE>\n<road id=\"a\" length=\"3\">\n<planView>\n"
                 "<geometry s=\"0\" x=\"zero\" y=\"0\" hdg=\"0\" length=\"3\"><line/></geometry>\n"
                 "</planView></road></OpenDRIVE>",
                 "t.xodr: 4: <geometry> has x \"zero\", expected a finite number");
    expect_error("<OpenDRIVE>\n<road id=\"a\" length=\"3\"><planView>\n<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" "
                 "length=\"3\"><clothoid/></geometry></planView></road></OpenDRIVE>",
                 "t.xodr: 3: <clothoid> is not a geometry shape, expected <line>, <arc>, <spiral>, <poly3> or <paramPoly3>");
    expect_error("<OpenDRIVE>\n" ROAD("a", "-1", 10, 0, "<link>\n<successor elementType=\"road\" elementId=\"b\" contactPoint=\"start\"/></link>") "</OpenDRIVE>",
                 "t.xodr: 3: <successor> has elementId \"b\", expected the id of a road");
    expect_error("<OpenDRIVE>\n" ROAD("a", "-1", 10, 0, "") "\n" ROAD("a", "-1", 10, 0, "") "</OpenDRIVE>",
                 "t.xodr: 3: <road> has id \"a\" again, expected a unique id");
    expect_error("<OpenDRIVE><road id=\"a\" length=\"3\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"3\">"
                 "<line/></geometry></planView>\n<lanes><laneSection s=\"0\"><right>\n<lane id=\"-2\" type=\"driving\"/>"
                 "</right></laneSection></lanes></road></OpenDRIVE>",
                 "t.xodr: 3: <lane> has id -2, expected one of -1..-1 once in <right>");
    expect_error("<road id=\"a\"/>", "t.xodr: 1: <road> is the root, expected <OpenDRIVE>");
    /* Found by fuzz_xodr (fuzz/corpus/fuzz_xodr/regression-two-planviews.xodr): a
     * second planView once overran the first one's geometries. */
    expect_error("<OpenDRIVE><road id=\"a\" length=\"3\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" "
                 "length=\"3\"><line/></geometry></planView>\n<planView/></road></OpenDRIVE>",
                 "t.xodr: 2: <planView> again, expected one per <road>");
    expect_error("<OpenDRIVE><road id=\"a\" length=\"3\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" "
                 "length=\"3\"><line/></geometry></planView><lanes><laneSection s=\"0\"><center><lane id=\"0\"/>\n"
                 "<lane id=\"0\"/></center></laneSection></lanes></road></OpenDRIVE>",
                 "t.xodr: 2: <lane> again in <center>, expected the one centre lane");
    sim_roadnet net;
    sim_error err = {0};
    assert_int_equal(parse("<OpenDRIVE>\n<road id=\"a\"", &net, NULL, &err), SIM_EINVAL);
    assert_true(strncmp(err.msg, "t.xodr: 2: not well-formed XML: ", 32) == 0);
    assert_null(strchr(err.msg, '\n'));
}

static void junction_gap_is_an_error(void **state)
{
    (void)state;
    /* Road b connects a's end (x = 10) to c, but starts at x = 12.5: 2.5 m away. */
    const char *xml =
        "<OpenDRIVE>"
        ROAD("a", "-1", 10, 0, "<link><successor elementType=\"junction\" elementId=\"J\"/></link>")
        ROAD("b", "J", 5, 12.5, "<link><predecessor elementType=\"road\" elementId=\"a\" contactPoint=\"end\"/>"
                              "<successor elementType=\"road\" elementId=\"c\" contactPoint=\"start\"/></link>")
        ROAD("c", "-1", 10, 17.5, "<link><predecessor elementType=\"junction\" elementId=\"J\"/></link>")
        "\n<junction id=\"J\">\n<connection id=\"0\" incomingRoad=\"a\" connectingRoad=\"b\" contactPoint=\"start\">"
        "<laneLink from=\"-1\" to=\"-1\"/></connection></junction></OpenDRIVE>";
    expect_error(xml, "t.xodr: 3: <connection> id J: connecting road \"b\" (start) lies 2.500 m from incoming road "
                      "\"a\", expected within 0.1 m");
}

/* A direct junction (OpenDRIVE 1.7 10.6): road a's end meets road c's start with no
 * connecting road; the lane graph leads from a's lane -1 onto c's and back, and a
 * direct connection without linkedRoad is an error naming it. */
static void direct_junction(void **state)
{
    (void)state;
    const char *xml =
        "<OpenDRIVE>"
        ROAD("a", "-1", 10, 0, "<link><successor elementType=\"junction\" elementId=\"J\"/></link>")
        ROAD("c", "-1", 10, 10, "<link><predecessor elementType=\"junction\" elementId=\"J\"/></link>")
        "\n<junction id=\"J\" type=\"direct\">\n<connection id=\"0\" incomingRoad=\"a\" linkedRoad=\"c\" "
        "contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection></junction></OpenDRIVE>";
    sim_roadnet net;
    sim_xodr_report rep;
    sim_error err = {0};
    assert_int_equal(parse(xml, &net, &rep, &err), SIM_OK);
    int a = sim_roadnet_find_road(&net, "a"), c = sim_roadnet_find_road(&net, "c");
    sim_lane_ref out[4], from_a = {a, 0, -1, 1}, from_c = {c, 0, -1, 1};
    assert_int_equal(sim_roadnet_lane_next(&net, &from_a, out, 4), 1);
    assert_int_equal(out[0].road, c);
    assert_int_equal(out[0].lane, -1);
    assert_int_equal(out[0].dir, 1);
    assert_int_equal(sim_roadnet_lane_prev(&net, &from_c, out, 4), 1);
    assert_int_equal(out[0].road, a);
    assert_int_equal(out[0].lane, -1);
    assert_int_equal(out[0].dir, 1);
    sim_roadnet_free(&net);
    char bad[4096];
    snprintf(bad, sizeof bad, "%s", xml);
    char *l = strstr(bad, "linkedRoad");
    memcpy(l, "lonkedRoad", 10);
    expect_error(bad, "t.xodr: 3: <connection> has no linkedRoad, expected the id of a road (the junction is direct)");
}

/* Two sections on road "main" (the second adds lane -2 whose width grows as a cubic),
 * a lane offset, then a junction onto "exit" through connecting road "conn". */
static const char *net_xml =
    "<OpenDRIVE><header revMajor=\"1\" revMinor=\"6\"><geoReference><![CDATA[+proj=tmerc]]></geoReference></header>"
    "<road id=\"main\" junction=\"-1\" length=\"100\">"
    "<link><successor elementType=\"junction\" elementId=\"J1\"/></link>"
    "<type s=\"0\" type=\"motorway\"><speed max=\"90\" unit=\"km/h\"/></type>"
    "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry></planView>"
    "<elevationProfile><elevation s=\"0\" a=\"1\" b=\"0.02\" c=\"0\" d=\"0\"/></elevationProfile>"
    "<lanes><laneOffset s=\"0\" a=\"0.5\" b=\"0\" c=\"0\" d=\"0\"/>"
    "<laneSection s=\"0\"><left><lane id=\"1\" type=\"sidewalk\"><width sOffset=\"0\" a=\"2\" b=\"0\" c=\"0\" d=\"0\"/></lane></left>"
    "<center><lane id=\"0\" type=\"none\"><roadMark sOffset=\"0\" type=\"solid solid\" color=\"yellow\" width=\"0.15\"/></lane></center>"
    "<right><lane id=\"-1\" type=\"driving\"><link><successor id=\"-1\"/></link><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
    "<roadMark sOffset=\"0\" type=\"broken\" width=\"0.12\"/><speed sOffset=\"0\" max=\"20\" unit=\"m/s\"/></lane></right></laneSection>"
    "<laneSection s=\"40\"><center><lane id=\"0\" type=\"none\"/></center>"
    "<right><lane id=\"-1\" type=\"driving\"><link><predecessor id=\"-1\"/></link><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
    "<lane id=\"-2\" type=\"exit\"><width sOffset=\"0\" a=\"0\" b=\"0\" c=\"0.0012\" d=\"-0.000016\"/>"
    "<width sOffset=\"50\" a=\"1\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes>"
    "<objects><object id=\"o1\" s=\"10\" t=\"-5\"/><object id=\"o2\" s=\"20\" t=\"-5\"/></objects><signals><signal id=\"s1\" s=\"30\" t=\"-5\"/></signals></road>"
    "<road id=\"conn\" junction=\"J1\" length=\"20\">"
    "<link><predecessor elementType=\"road\" elementId=\"main\" contactPoint=\"end\"/>"
    "<successor elementType=\"road\" elementId=\"exit\" contactPoint=\"start\"/></link>"
    "<planView><geometry s=\"0\" x=\"100\" y=\"-3.0\" hdg=\"0\" length=\"20\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center><right><lane id=\"-1\" type=\"driving\">"
    "<width sOffset=\"0\" a=\"1\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes></road>"
    "<road id=\"exit\" junction=\"-1\" length=\"50\">"
    "<link><predecessor elementType=\"junction\" elementId=\"J1\"/></link>"
    "<planView><geometry s=\"0\" x=\"120\" y=\"-3.0\" hdg=\"0\" length=\"50\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\"/></center><right><lane id=\"-1\" type=\"driving\">"
    "<width sOffset=\"0\" a=\"1\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes></road>"
    "<junction id=\"J1\"><connection id=\"0\" incomingRoad=\"main\" connectingRoad=\"conn\" contactPoint=\"start\">"
    "<laneLink from=\"-2\" to=\"-1\"/></connection></junction>"
    "<controller id=\"c\"/></OpenDRIVE>";

static void model_answers_solved_by_hand(void **state)
{
    (void)state;
    sim_roadnet net;
    sim_xodr_report rep;
    sim_error err = {0};
    int rc = parse(net_xml, &net, &rep, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_int_equal(rep.rev_minor, 6);
    assert_string_equal(net.geo_reference, "+proj=tmerc");
    char unsup[200];
    sim_xodr_unsupported_text(&rep, unsup, sizeof unsup);
    assert_string_equal(unsup, "signal -/- (1)"); /* objects (sim_xodr_objects.c) and controllers are read */
    assert_int_equal(rep.n_controllers, 1);          /* with no heads: it runs nothing */
    assert_int_equal(rep.n_controllers_running, 0);
    assert_int_equal(rep.n_objects, 2);
    int m = sim_roadnet_find_road(&net, "main"), x = sim_roadnet_find_road(&net, "exit");
    const sim_road *r = &net.roads[m];
    assert_int_equal(r->n_sections, 2);
    NEAR(r->sections[0].s1, 40, 0);
    /* Lane -2 width: 0.0012 ds^2 - 0.000016 ds^3, at ds = 25 (s = 65): 0.75 - 0.25 = 0.5. */
    const sim_lane *l2 = sim_road_lane(r, 1, -2);
    NEAR(sim_lane_width(l2, 25), 0.5, 1e-12);
    NEAR(sim_lane_width(l2, 60), 1.0, 0); /* the second record from sOffset 50 */
    double in, out;
    assert_true(sim_road_lane_borders(r, 65, -2, &in, &out));
    NEAR(in, 0.5 - 3.5, 1e-12); /* lane offset 0.5 moves every lane */
    NEAR(out, 0.5 - 4.0, 1e-12);
    assert_false(sim_road_lane_borders(r, 30, -2, &in, &out)); /* not in section 0 */
    /* A section's first s belongs to it. */
    assert_int_equal(sim_road_section_at(r, 40), 1);
    assert_int_equal(sim_road_section_at(r, 39.999), 0);
    sim_lane_info li;
    assert_true(sim_road_lane_at(r, 10, 1.0, &li));
    assert_int_equal(li.lane, 1);
    assert_int_equal(li.type, SIM_LANE_SIDEWALK);
    assert_int_equal(li.right_mark, SIM_MARK_SOLID_SOLID);
    NEAR(sim_road_speed_limit(r, 50), 25, 1e-12);
    NEAR(sim_road_lane_speed_limit(r, 10, -1), 20, 0);
    /* Pose: elevation 1 + 0.02 s; s beyond the end is clamped and says so. */
    sim_road_pose p;
    assert_int_equal(sim_road_lane_pose(&net, m, 50, -1, 0, &p), SIM_OK);
    NEAR(p.x, 50, 1e-12);
    NEAR(p.y, 0.5 - 1.75, 1e-12);
    NEAR(p.z, 2.0, 1e-12);
    NEAR(p.pitch, -atan(0.02), 1e-12);
    assert_int_equal(sim_road_pose_at(&net, m, 130, 0, &p), SIM_ERANGE);
    NEAR(p.x, 100, 1e-12);
    /* The lane graph: -1 continues into section 1; -2 through the junction to conn, and
     * conn's lane on to exit. */
    sim_lane_ref next[4], from = {m, 0, -1, 1};
    assert_int_equal(sim_roadnet_lane_next(&net, &from, next, 4), 1);
    assert_int_equal(next[0].section, 1);
    assert_int_equal(next[0].lane, -1);
    from = (sim_lane_ref){m, 1, -2, 1};
    assert_int_equal(sim_roadnet_lane_next(&net, &from, next, 4), 1);
    assert_int_equal(next[0].road, sim_roadnet_find_road(&net, "conn"));
    assert_int_equal(next[0].dir, 1);
    from = next[0];
    assert_int_equal(sim_roadnet_lane_next(&net, &from, next, 4), 1);
    assert_int_equal(next[0].road, x);
    from = (sim_lane_ref){x, 0, -1, -1}; /* backwards out of exit: conn */
    assert_int_equal(sim_roadnet_lane_next(&net, &from, next, 4), 1);
    assert_int_equal(next[0].road, sim_roadnet_find_road(&net, "conn"));
    assert_int_equal(sim_roadnet_lane_prev(&net, &(sim_lane_ref){x, 0, -1, 1}, next, 4), 1);
    assert_int_equal(next[0].dir, 1);
    /* Location: on main's lane -2 at s = 95 (width 1 there). */
    sim_road_loc loc;
    assert_int_equal(sim_roadnet_locate(&net, 95, 0.5 - 3.5 - 0.5, &loc), SIM_OK);
    assert_int_equal(loc.road, m);
    assert_int_equal(loc.lane.lane, -2);
    NEAR(loc.s, 95, 1e-9);
    NEAR(loc.lane_offset, 0, 1e-9);
    /* Off every road: the nearest through the index. */
    assert_int_equal(sim_roadnet_locate(&net, 60, 30, &loc), SIM_OK);
    assert_false(loc.on_road);
    assert_int_equal(loc.road, m);
    NEAR(loc.distance, 30 - 2.5, 1e-9);
    sim_roadnet_free(&net);
}

/* The scenario JSON's junctions get the same check (1 cm: they are built to meet). */
static void json_junction_gap_is_an_error(void **state)
{
    (void)state;
    const char *json =
        "{\"name\": \"gap\", \"roads\": ["
        "{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0}, \"segments\": [{\"type\": \"line\", \"length\": 50}],"
        " \"lanes\": {\"right\": [{\"width\": 3.5}]}, \"successor\": {\"junction\": \"J\"}},"
        "{\"id\": \"b\", \"junction\": \"J\", \"start\": {\"x\": 50, \"y\": 0.5}, \"segments\": [{\"type\": \"line\", \"length\": 10}],"
        " \"lanes\": {\"right\": [{\"width\": 3.5}]}}],"
        "\"junctions\": [{\"id\": \"J\", \"connections\": [{\"incoming\": \"a\", \"connecting\": \"b\", \"lanes\": [[-1, -1]]}]}]}";
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    assert_int_not_equal(sim_scenario_parse(json, strlen(json), "gap.json", NULL, &sc, &d), SIM_OK);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.msgs[0], "gap.json: junctions[0].connections[0]: connecting road \"b\" (start) lies 0.500 m "
                                   "from incoming road \"a\", expected within 0.01 m");
    sim_diag_free(&d);
}

/* A scenario naming an OpenDRIVE file: its roads by string or integer ids. */
static void scenario_names_an_opendrive_file(void **state)
{
    (void)state;
    const char *json =
        "{\"name\": \"f\", \"roads\": {\"opendrive\": \"fabriksgatan.xodr\"},"
        " \"start_points\": [{\"name\": \"a\", \"road\": 3, \"s\": 10, \"lane\": -1},"
        "                    {\"name\": \"b\", \"road\": \"2\", \"s\": 5, \"lane\": 1}],"
        " \"traffic\": {\"agents\": [{\"id\": \"c1\", \"start\": {\"road\": 2, \"s\": 5, \"lane\": 1},"
        "                              \"route\": [2], \"desired_speed_kmh\": 30}]},"
        " \"sectors\": [{\"id\": \"s\", \"road\": 3, \"s_start\": 0, \"s_end\": 50}]}";
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    int rc = sim_scenario_parse(json, strlen(json), "f.json", "../shared/opendrive", &sc, &d);
    if (rc) fail_msg("%s", d.n ? d.msgs[0] : "?");
    assert_int_equal(sc->net.n_roads, 16);
    assert_int_equal(sc->net.n_junctions, 1);
    assert_string_equal(sc->net.roads[sc->starts[0].road].id, "3");
    assert_int_equal(sc->agents[0].n_route, 1); /* the start road listed first, not twice */
    assert_non_null(sc->roads_warning);
    assert_non_null(strstr(sc->opendrive, "fabriksgatan.xodr"));
    /* The start point sits on lane -1's centre. */
    double t;
    assert_true(sim_road_lane_center(&sc->net.roads[sc->starts[0].road], 10, -1, &t));
    NEAR(sc->starts[0].d, t, 1e-12);
    sim_scenario_free(sc);
    sim_diag_free(&d);
    /* Junctions beside the file, and a file that is not there. */
    const char *bad = "{\"name\": \"f\", \"roads\": {\"opendrive\": \"nope.xodr\"}, \"junctions\": []}";
    assert_int_not_equal(sim_scenario_parse(bad, strlen(bad), "g.json", "../shared/opendrive", &sc, &d), SIM_OK);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.msgs[0], "g.json: junctions: found junctions beside an OpenDRIVE file, expected none (they "
                                   "come from the file)");
    assert_true(strncmp(d.msgs[1], "g.json: roads.opendrive: ../shared/opendrive/nope.xodr: ", 56) == 0);
    sim_diag_free(&d);
}

/* Lane sections in the scenario JSON: a lane tapering to nothing, then a bad start. */
static void json_lane_sections_and_taper(void **state)
{
    (void)state;
    const char *json =
        "{\"name\": \"t\", \"roads\": [{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0},"
        " \"segments\": [{\"type\": \"line\", \"length\": 300}], \"lanes\": ["
        "  {\"s\": 0, \"right\": [{\"width\": 3.5}, {\"width\": 3.0}]},"
        "  {\"s\": 200, \"right\": [{\"width\": 3.5}, {\"width\": 3.0, \"width_end\": 0}]}]}]}";
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    if (sim_scenario_parse(json, strlen(json), "t.json", NULL, &sc, &d)) fail_msg("%s", d.msgs[0]);
    const sim_road *r = &sc->net.roads[0];
    assert_int_equal(r->n_sections, 2);
    NEAR(r->sections[0].s1, 200, 0);
    double in, out;
    assert_true(sim_road_lane_borders(r, 250, -2, &in, &out));
    NEAR(in - out, 1.5, 1e-12); /* half way down the taper */
    assert_true(sim_road_lane_borders(r, 300, -2, &in, &out));
    NEAR(in - out, 0.0, 1e-12);
    sim_lane_ref next[2], from = {0, 0, -2, 1};
    assert_int_equal(sim_roadnet_lane_next(&sc->net, &from, next, 2), 1);
    assert_int_equal(next[0].section, 1);
    sim_scenario_free(sc);
    const char *bad =
        "{\"name\": \"t\", \"roads\": [{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0},"
        " \"segments\": [{\"type\": \"line\", \"length\": 300}], \"lanes\": ["
        "  {\"s\": 5, \"right\": [{\"width\": 3.5}]}, {\"s\": 100, \"right\": [{\"width\": 3.5}]},"
        "  {\"s\": 50, \"right\": [{\"width\": 3.5}]}]}]}";
    assert_int_not_equal(sim_scenario_parse(bad, strlen(bad), "t.json", NULL, &sc, &d), SIM_OK);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.msgs[0], "t.json: roads[0].lanes[0].s: found 5, expected 0 (the first section starts the road)");
    assert_string_equal(d.msgs[1], "t.json: roads[0].lanes[2].s: found 50, expected a number above the previous section's s");
    sim_diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errors_name_file_line_and_element),
        cmocka_unit_test(junction_gap_is_an_error),
        cmocka_unit_test(direct_junction),
        cmocka_unit_test(model_answers_solved_by_hand),
        cmocka_unit_test(json_junction_gap_is_an_error),
        cmocka_unit_test(scenario_names_an_opendrive_file),
        cmocka_unit_test(json_lane_sections_and_taper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
