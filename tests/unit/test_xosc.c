/* The OpenSCENARIO reader: every file of ../shared/openscenario/xosc loads or fails
 * with its exact reason, and what each one holds that is not taken is listed exactly;
 * bad files (an unknown entity reference, a missing catalog, a wrong enumeration
 * value, an undeclared parameter, a broken expression) give errors naming file, line
 * and element; parameters, expressions, overrides and catalog bounding boxes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_scenario.h"
#include "sim_xosc.h"

#include "ts_assert.h"

#define XOSC_DIR "../shared/openscenario/xosc/"

/* Each shared file: the first diagnostic when it does not load (NULL: it loads), and
 * the elements it holds that are not taken (a file that loads is never "silently"
 * fine: this list is its exact reason for any difference to esmini). */
static const struct {
    const char *file, *error, *unsupported;
} FILES[] = {
    {"acc-test.xosc", NULL, "ObjectController (1, line 41), ActivateControllerAction (2, line 80)"},
    {"cut-in.xosc", NULL, NULL},
    {"cut-in_simple.xosc", NULL, NULL},
    {"distance_test.xosc", NULL, "ObjectController (1, line 27), ControllerAction (2, line 51)"},
    {"drive_when_close.xosc", NULL, "ObjectController (1, line 22), ActivateControllerAction (1, line 42)"},
    {"follow_ghost.xosc", NULL, "ObjectController (1, line 30), ActivateControllerAction (1, line 66)"},
    {"highway_merge.xosc", NULL, NULL}, /* soderleden.xodr's direct junction */
    {"lane_change.xosc", NULL, NULL},
    {"lane_change_simple.xosc", NULL, NULL},
    {"ltap-od.xosc", NULL, "ObjectController (1, line 40), ActivateControllerAction (1, line 74)"}, /* RoutePositions */
    {"slow-lead-vehicle.xosc", NULL, NULL},
    {"speed-profile.xosc", NULL, NULL},
    {"straight_500m.xosc", NULL, NULL},
    {"synchronize.xosc", NULL, "ObjectController (1, line 62), ControllerAction (1, line 97)"},
    {"traffic_lights.xosc", NULL, NULL}, /* TrafficSignalStateActions, TrafficSignalConditions */
    {"trajectory-test.xosc", NULL, NULL},
};

static void test_shared_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof FILES / sizeof *FILES; i++) {
        char path[256];
        snprintf(path, sizeof path, XOSC_DIR "%s", FILES[i].file);
        sim_diag d = {0};
        sim_scenario *sc = NULL;
        int rc = sim_scenario_load(path, &sc, &d);
        if (FILES[i].error) {
            assert_int_not_equal(rc, SIM_OK);
            assert_null(sc);
            assert_true(d.n >= 1);
            assert_string_equal(d.msgs[0], FILES[i].error);
        } else {
            if (rc) fprintf(stderr, "%s: %s\n", path, d.n ? d.msgs[0] : "?");
            assert_int_equal(rc, SIM_OK);
            assert_non_null(sc->xosc);
            assert_int_equal(sc->n_starts, 1);
            assert_string_equal(sc->xosc_warning ? sc->xosc_warning : "", FILES[i].unsupported ? FILES[i].unsupported : "");
            assert_true(sim_scenario_validate(path, NULL) == SIM_OK);
        }
        sim_scenario_free(sc);
        sim_diag_free(&d);
    }
}

/* ---- small documents ------------------------------------------------------------ */

#define HEAD "<?xml version=\"1.0\"?>\n<OpenSCENARIO>\n<FileHeader revMajor=\"1\" revMinor=\"2\"/>\n"
#define CATALOGS "<CatalogLocations><VehicleCatalog><Directory path=\"Catalogs/Vehicles\"/></VehicleCatalog></CatalogLocations>\n"
#define ROADS "<RoadNetwork><LogicFile filepath=\"../xodr/straight_500m.xodr\"/></RoadNetwork>\n"
#define EGO "<ScenarioObject name=\"Ego\"><CatalogReference catalogName=\"VehicleCatalog\" entryName=\"car_white\"/></ScenarioObject>\n"

static int parse(const char *xml, const sim_xosc_override *ov, int n_ov, sim_xosc *x, sim_xosc_report *rep, sim_error *err)
{
    return sim_xosc_parse(xml, strlen(xml), "t.xosc", XOSC_DIR, ov, n_ov, x, rep, err);
}

static void expect_error(const char *xml, const char *msg)
{
    sim_xosc x;
    sim_error err = {0};
    assert_int_not_equal(parse(xml, NULL, 0, &x, NULL, &err), SIM_OK);
    assert_string_equal(err.msg, msg);
    assert_int_equal(x.model.n_entities, 0); /* nothing kept */
}

static void test_errors(void **state)
{
    (void)state;
    /* an empty <TrafficSignalAction/> is counted as not taken, not a crash (found by
     * CI's fuzz pass: the count named the action's first child, which it has none of) */
    {
        sim_xosc x;
        sim_xosc_report rep = {0};
        sim_error err = {0};
        assert_int_equal(parse(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init><Actions>"
                               "<GlobalAction><InfrastructureAction><TrafficSignalAction/></InfrastructureAction>"
                               "</GlobalAction></Actions></Init></Storyboard></OpenSCENARIO>",
                               NULL, 0, &x, &rep, &err),
                         SIM_OK);
        assert_int_equal(rep.n_unsupported, 1);
        assert_string_equal(rep.unsupported[0].name, "TrafficSignalAction");
        sim_xosc_free(&x);
    }
    /* an unknown entity reference */
    expect_error(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init><Actions>\n"
                 "<Private entityRef=\"Egg\"/></Actions></Init></Storyboard></OpenSCENARIO>",
                 "t.xosc: 9: <Private> names entity \"Egg\", expected one of: Ego");
    /* a missing catalog */
    expect_error(HEAD CATALOGS ROADS "<Entities>\n<ScenarioObject name=\"Ego\"><CatalogReference catalogName=\"Trucks\" "
                 "entryName=\"car_white\"/></ScenarioObject></Entities></OpenSCENARIO>",
                 "t.xosc: 7: <CatalogReference> names catalog \"Trucks\", which is in none of the 1 catalog directories "
                 "of <CatalogLocations>");
    /* a catalog entry that is not there */
    expect_error(HEAD CATALOGS ROADS "<Entities>\n<ScenarioObject name=\"Ego\"><CatalogReference catalogName=\"VehicleCatalog\" "
                 "entryName=\"car_pink\"/></ScenarioObject></Entities></OpenSCENARIO>",
                 "t.xosc: 7: <CatalogReference> names entry \"car_pink\", which catalog \"VehicleCatalog\" does not hold");
    /* a wrong enumeration value */
    expect_error(HEAD ROADS "<Entities>\n<ScenarioObject name=\"Ego\"><Vehicle name=\"v\" vehicleCategory=\"spaceship\">"
                 "<BoundingBox><Center x=\"1\" y=\"0\" z=\"0.5\"/><Dimensions width=\"2\" length=\"4\" height=\"1.5\"/>"
                 "</BoundingBox></Vehicle></ScenarioObject></Entities></OpenSCENARIO>",
                 "t.xosc: 6: <Vehicle> has vehicleCategory \"spaceship\", expected one of: car, van, truck, trailer, "
                 "semitrailer, bus, motorbike, bicycle, train, tram");
    expect_error(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init/><Story name=\"s\"><Act name=\"a\">"
                 "<StartTrigger><ConditionGroup>\n<Condition name=\"c\" delay=\"0\" conditionEdge=\"up\"/>"
                 "</ConditionGroup></StartTrigger></Act></Story></Storyboard></OpenSCENARIO>",
                 "t.xosc: 9: <Condition> has conditionEdge \"up\", expected one of: none, rising, falling, risingOrFalling");
    /* parameters */
    expect_error(HEAD CATALOGS ROADS "<Entities>\n<ScenarioObject name=\"$Who\"/></Entities></OpenSCENARIO>",
                 "t.xosc: 7: <ScenarioObject> has name \"$Who\": no such parameter is declared");
    expect_error(HEAD "<ParameterDeclarations><ParameterDeclaration name=\"A\" parameterType=\"double\" value=\"2\"/>"
                 "</ParameterDeclarations>\n" CATALOGS ROADS "<Entities>\n<ScenarioObject name=\"E\"><Vehicle name=\"v\" "
                 "vehicleCategory=\"car\"><BoundingBox><Center x=\"${$A * (3 +}\" y=\"0\" z=\"0\"/>"
                 "<Dimensions width=\"2\" length=\"4\" height=\"1.5\"/></BoundingBox></Vehicle></ScenarioObject>"
                 "</Entities></OpenSCENARIO>",
                 "t.xosc: 8: <Center> has x \"${$A * (3 +}\": expected a number, $parameter, function or '(' at \"\"");
    /* a storyboard element that is not there */
    expect_error(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init/><StopTrigger><ConditionGroup>"
                 "<Condition name=\"c\" delay=\"0\" conditionEdge=\"none\"><ByValueCondition>\n"
                 "<StoryboardElementStateCondition storyboardElementType=\"act\" storyboardElementRef=\"Nope\" "
                 "state=\"endTransition\"/></ByValueCondition></Condition></ConditionGroup></StopTrigger></Storyboard>"
                 "</OpenSCENARIO>",
                 "t.xosc: 9: <StoryboardElementStateCondition> names act \"Nope\", which the storyboard does not have");
    /* a LateralDistanceAction's negative distance (the side is the displacement's) */
    expect_error(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init><Actions><Private entityRef=\"Ego\">"
                 "<PrivateAction><LateralAction><LateralDistanceAction entityRef=\"Ego\" distance=\"-2\" freespace=\"false\" "
                 "continuous=\"false\"/></LateralAction></PrivateAction></Private></Actions></Init></Storyboard></OpenSCENARIO>",
                 "t.xosc: 8: <LateralDistanceAction> has distance -2, expected >= 0 (the side is displacement's)");
    /* a SpeedProfileAction's entry with a negative time, one without entries */
    expect_error(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init><Actions><Private entityRef=\"Ego\">"
                 "<PrivateAction><LongitudinalAction><SpeedProfileAction followingMode=\"follow\">\n"
                 "<SpeedProfileEntry time=\"-1\" speed=\"3\"/></SpeedProfileAction></LongitudinalAction></PrivateAction>"
                 "</Private></Actions></Init></Storyboard></OpenSCENARIO>",
                 "t.xosc: 9: <SpeedProfileEntry> has time -1, expected >= 0 (s after the entry before)");
    expect_error(HEAD CATALOGS ROADS "<Entities>" EGO "</Entities>\n<Storyboard><Init><Actions><Private entityRef=\"Ego\">"
                 "<PrivateAction><LongitudinalAction><SpeedProfileAction followingMode=\"position\"/></LongitudinalAction>"
                 "</PrivateAction></Private></Actions></Init></Storyboard></OpenSCENARIO>",
                 "t.xosc: 8: <SpeedProfileAction> has no <SpeedProfileEntry>");
    expect_error("<OpenSCENARIO><FileHeader revMajor=\"2\" revMinor=\"0\"/></OpenSCENARIO>",
                 "t.xosc: 1: <FileHeader> has revMajor 2, expected 1 (OpenSCENARIO 1.x)");
    /* libxml2's own words vary between versions: the prefix is ours */
    sim_xosc x;
    sim_error err = {0};
    assert_int_equal(parse("<OpenSCENARIO>\n<FileHeader", NULL, 0, &x, NULL, &err), SIM_EINVAL);
    assert_true(strncmp(err.msg, "t.xosc: 2: not well-formed XML: ", 32) == 0);
}

/* synchronize.xosc's four maneuver groups take Synchronize_NPC from the HWManeuvers
 * catalog, each with its own assignments ("$NPCTargetLaneId" names NPCTargetLaneId):
 * the NPCs' SynchronizeAction targets lanes -2, -3, -4, -3 (NPC1..4LaneId). */
static void test_catalog_maneuvers(void **state)
{
    (void)state;
    sim_diag d = {0};
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(XOSC_DIR "synchronize.xosc", &sc, &d), SIM_OK);
    const sim_sb_model *m = &sc->xosc->model;
    int lanes[8], n = 0, maneuvers = 0;
    for (int i = 0; i < m->n_elements; i++)
        maneuvers += m->elements[i].type == SIM_SB_E_MANEUVER && strcmp(m->elements[i].name, "Synchronize_NPC") == 0;
    for (int i = 0; i < m->n_actions && n < 8; i++)
        if (m->actions[i].type == SIM_SB_A_SYNCHRONIZE) lanes[n++] = m->actions[i].pos.lane;
    assert_int_equal(maneuvers, 4);
    assert_int_equal(n, 4);
    assert_int_equal(lanes[0], -2);
    assert_int_equal(lanes[1], -3);
    assert_int_equal(lanes[2], -4);
    assert_int_equal(lanes[3], -3);
    sim_scenario_free(sc);
    sim_diag_free(&d);
}

static void test_parameters_and_catalogs(void **state)
{
    (void)state;
    sim_xosc x;
    sim_error err = {0};
    const char *xml = HEAD "<ParameterDeclarations>"
                           "<ParameterDeclaration name=\"Speed\" parameterType=\"double\" value=\"108\"/>"
                           "<ParameterDeclaration name=\"Car\" parameterType=\"string\" value=\"car_white\"/>"
                           "</ParameterDeclarations>\n" CATALOGS ROADS
                           "<Entities><ScenarioObject name=\"Ego\"><CatalogReference catalogName=\"VehicleCatalog\" "
                           "entryName=\"$Car\"/></ScenarioObject></Entities>\n"
                           "<Storyboard><Init><Actions><Private entityRef=\"Ego\"><PrivateAction><LongitudinalAction>"
                           "<SpeedAction><SpeedActionDynamics dynamicsShape=\"step\" dynamicsDimension=\"time\" value=\"0\"/>"
                           "<SpeedActionTarget><AbsoluteTargetSpeed value=\"${round($Speed / 3.6 * 10) / 10 - -1}\"/>"
                           "</SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Private></Actions>"
                           "</Init></Storyboard></OpenSCENARIO>";
    assert_int_equal(parse(xml, NULL, 0, &x, NULL, &err), SIM_OK);
    assert_int_equal(x.model.n_entities, 1);
    /* car_white of the shared catalog */
    NEAR(x.model.entities[0].length, 5.04, 1e-12);
    NEAR(x.model.entities[0].width, 2.0, 1e-12);
    NEAR(x.model.entities[0].center[0], 1.4, 1e-12);
    NEAR(x.model.entities[0].max_speed, 250 / 3.6, 1e-9);
    assert_string_equal(x.model.entities[0].type, "car");
    NEAR(x.model.actions[0].target, 31.0, 1e-12);
    sim_xosc_free(&x);
    /* overrides */
    sim_xosc_override ov[4];
    int n = sim_xosc_parse_overrides("Speed=72,Car=car_red", ov, 4, &err);
    assert_int_equal(n, 2);
    assert_int_equal(parse(xml, ov, n, &x, NULL, &err), SIM_OK);
    NEAR(x.model.actions[0].target, 21.0, 1e-12);
    assert_string_equal(x.model.params[1].value, "car_red");
    sim_xosc_free(&x);
    n = sim_xosc_parse_overrides("Sped=72", ov, 4, &err);
    assert_int_not_equal(parse(xml, ov, n, &x, NULL, &err), SIM_OK);
    assert_string_equal(err.msg, "t.xosc: 2: <OpenSCENARIO> declares no parameter \"Sped\" to override");
    assert_int_equal(sim_xosc_parse_overrides("Speed", ov, 4, &err), SIM_EINVAL);
    assert_string_equal(err.msg, "parameter \"Speed\": expected NAME=VALUE");
}

/* The shared cut-in with its speed overridden: the ego's start speed follows. */
static void test_scenario_overrides(void **state)
{
    (void)state;
    sim_xosc_override ov[2];
    sim_error err = {0};
    int n = sim_xosc_parse_overrides("EgoSpeed=72,EgoStartS=100", ov, 2, &err);
    sim_scenario *sc;
    sim_diag d = {0};
    assert_int_equal(sim_scenario_load_xosc(XOSC_DIR "cut-in.xosc", ov, n, NULL, &sc, &d), SIM_OK);
    NEAR(sc->starts[0].speed, 20.0, 1e-9);
    /* the start is the bounding box's centre: 1.4 m ahead of the reference point */
    NEAR(sc->starts[0].s, 101.4, 1e-3); /* located back from x, y on a curving road */
    assert_int_equal(sc->starts[0].lane, -3);
    assert_string_equal(sc->starts[0].name, "Ego");
    sim_scenario_free(sc);
    /* the ego by name */
    assert_int_equal(sim_scenario_load_xosc(XOSC_DIR "cut-in.xosc", NULL, 0, "OverTaker", &sc, &d), SIM_OK);
    assert_string_equal(sc->starts[0].name, "OverTaker");
    assert_int_equal(sc->starts[0].lane, -2);
    sim_scenario_free(sc);
    assert_int_not_equal(sim_scenario_load_xosc(XOSC_DIR "cut-in.xosc", NULL, 0, "Nobody", &sc, &d), SIM_OK);
    assert_string_equal(d.msgs[0], XOSC_DIR "cut-in.xosc: <Entities> has no entity \"Nobody\" to be the ego");
    sim_diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_files),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_catalog_maneuvers), cmocka_unit_test(test_parameters_and_catalogs),
        cmocka_unit_test(test_scenario_overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
