/* Unit tests of common/scenery: the placement rules on roads solved by hand (delineator
 * posts every 50 m on both sides, nothing on the lanes, trees in their band, a barrier
 * on a motorway's median, kerbs and buildings along a town street), determinism from the
 * seed, explicit objects, and the "scenery" section's errors naming the field. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_scenario.h"
#include "sim_scenery.h"

/* A straight rural road along +x from (0, 0), 1000 m, one 3.5 m lane each way. */
#define ROAD(lanes) \
    "\"roads\":[{\"id\":\"r\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},\"segments\":[{\"type\":\"line\"," \
    "\"length\":1000}],\"lanes\":" lanes "}]"
#define RURAL_LANES "{\"left\":[{\"width\":3.5}],\"right\":[{\"width\":3.5}]}"
#define MOTORWAY_LANES \
    "{\"center_mark\":\"none\",\"left\":[{\"width\":1.0,\"type\":\"median\"},{\"width\":3.75},{\"width\":3.75}," \
    "{\"width\":2.5,\"type\":\"shoulder\"}],\"right\":[{\"width\":1.0,\"type\":\"median\"},{\"width\":3.75}," \
    "{\"width\":3.75},{\"width\":2.5,\"type\":\"shoulder\"}]}"
#define TOWN_LANES \
    "{\"left\":[{\"width\":3.0},{\"width\":2.0,\"type\":\"sidewalk\"}],\"right\":[{\"width\":3.0},{\"width\":2.0," \
    "\"type\":\"sidewalk\"}]}"

static sim_scenario *parse(const char *text, sim_diag *diag)
{
    sim_scenario *sc = NULL;
    sim_scenario_parse(text, strlen(text), "test.json", NULL, &sc, diag);
    return sc;
}

static sim_scenario *load(const char *text)
{
    sim_diag diag = {0};
    sim_scenario *sc = parse(text, &diag);
    for (int i = 0; i < diag.n; i++) print_message("%s\n", diag.msgs[i]);
    sim_diag_free(&diag);
    assert_non_null(sc);
    return sc;
}

static void place(const sim_scenario *sc, sim_object_list *out)
{
    sim_scenery_config def;
    sim_scenery_config_init(&def);
    memset(out, 0, sizeof *out);
    assert_true(sim_scenery_place(&sc->net, sc->scenery ? sc->scenery : &def, out) >= 0);
    sim_scenery_config_free(&def);
}

static int count(const sim_object_list *l, sim_object_kind k)
{
    int n = 0;
    for (int i = 0; i < l->n; i++) n += l->items[i].kind == k;
    return n;
}

static void rural_delineators_trees_nothing_on_road(void **state)
{
    (void)state;
    sim_scenario *sc = load("{\"name\":\"t\"," ROAD(RURAL_LANES) "}");
    assert_int_equal(sim_scenery_road_style(&sc->net.roads[0]), SIM_SCENERY_RURAL);
    sim_object_list l;
    place(sc, &l);
    /* posts every 50 m: right side s = 0, 50, ..., 950 (20), left side 25, ..., 975 (20),
     * 0.5 m outside the 3.5 m lanes */
    assert_int_equal(count(&l, SIM_OBJ_DELINEATOR), 40);
    int trees = 0;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        /* nothing within the lanes (|y| < 3.5) */
        assert_true(fabs(o->y) >= 3.5);
        if (o->kind == SIM_OBJ_DELINEATOR) {
            assert_true(fabs(fabs(o->y) - 4.0) < 1e-6);
            double s = o->y < 0 ? o->x : o->x - 25;
            assert_true(fabs(s / 50 - round(s / 50)) < 1e-9);
        }
        if (o->kind == SIM_OBJ_TREE) {
            trees++;
            /* trunk at 4.5 m + half the crown or more beyond the edge, within the band */
            assert_true(fabs(o->y) - o->width / 2 >= 3.5 + 4.5 - 1e-9);
            assert_true(fabs(o->y) <= 3.5 + 4.5 + 30 + o->width);
            assert_true(o->height >= 7 && o->height <= 16);
        }
    }
    /* 14 m mean spacing, each side: about 1000 / 14 * 2 = 143 */
    assert_true(trees > 100 && trees < 200);
    assert_int_equal(count(&l, SIM_OBJ_GUARD_RAIL), 0); /* not on rural roads unless asked */
    assert_int_equal(count(&l, SIM_OBJ_BOX), 0);        /* no piers under a road on the ground */
    sim_object_list_free(&l);
    sim_scenario_free(sc);
}

static void same_seed_same_objects(void **state)
{
    (void)state;
    sim_scenario *a = load("{\"name\":\"t\"," ROAD(RURAL_LANES) ",\"scenery\":{\"seed\":7}}");
    sim_scenario *b = load("{\"name\":\"t\"," ROAD(RURAL_LANES) ",\"scenery\":{\"seed\":7}}");
    sim_scenario *c = load("{\"name\":\"t\"," ROAD(RURAL_LANES) ",\"scenery\":{\"seed\":8}}");
    sim_object_list la, lb, lc;
    place(a, &la);
    place(b, &lb);
    place(c, &lc);
    assert_int_equal(la.n, lb.n);
    for (int i = 0; i < la.n; i++) {
        assert_int_equal(la.items[i].kind, lb.items[i].kind);
        assert_true(la.items[i].x == lb.items[i].x && la.items[i].y == lb.items[i].y);
    }
    /* another seed moves the trees (the posts stay at their spacing) */
    int moved = 0;
    for (int i = 0; i < la.n && i < lc.n; i++)
        moved += la.items[i].kind == SIM_OBJ_TREE && lc.items[i].kind == SIM_OBJ_TREE && la.items[i].x != lc.items[i].x;
    assert_true(moved > 10);
    sim_object_list_free(&la);
    sim_object_list_free(&lb);
    sim_object_list_free(&lc);
    sim_scenario_free(a);
    sim_scenario_free(b);
    sim_scenario_free(c);
}

static void motorway_barrier_rails_markers(void **state)
{
    (void)state;
    sim_scenario *sc = load("{\"name\":\"t\"," ROAD(MOTORWAY_LANES) "}");
    assert_int_equal(sim_scenery_road_style(&sc->net.roads[0]), SIM_SCENERY_MOTORWAY);
    sim_object_list l;
    place(sc, &l);
    double barrier = 0, rails = 0;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        if (o->kind == SIM_OBJ_BARRIER) {
            assert_true(fabs(o->y) < 1e-6); /* on the median's middle */
            barrier += o->length;
        }
        if (o->kind == SIM_OBJ_GUARD_RAIL) {
            /* 0.3 m outside the shoulders: 1 + 7.5 + 2.5 + 0.3 */
            assert_true(fabs(fabs(o->y) - 11.3) < 1e-6);
            rails += o->length;
        }
    }
    assert_true(fabs(barrier - 1000) < 1e-6);
    assert_true(fabs(rails - 2000) < 1e-6);
    /* distance markers every 500 m from 250 m, both sides */
    assert_int_equal(count(&l, SIM_OBJ_POLE), 4);
    sim_object_list_free(&l);
    sim_scenario_free(sc);
}

/* Sign gantries (motorway, every 2 km by default; here every 400 m): spans from 1.5 m
 * outside one outer edge to 1.5 m outside the other, posts 0.5 m square: the edges at
 * +-(1 + 7.5 + 2.5) = 11 m, so the posts' middles at +-(11 + 1.5 + 0.25) = +-12.75 m,
 * span 25.5 m, centred on y = 0, at s = 200 and 600 (spacing / 2, then every spacing).
 * A sign at s 605 drops the one at 600 (none within 10 m of a sign); a road alongside
 * from x 150 to 250 with its lanes from y -18.5 to -11.5 takes the place of the right
 * post at 200, so that gantry is dropped too. A 1000 m road at the default spacing gets
 * none (the first would stand at 1000, its end); a 4500 m one gets two, at 1000 and 3000. */
#define MW_ROAD(id, y, len, extra) \
    "{\"id\":\"" id "\",\"start\":{\"x\":0,\"y\":" #y ",\"heading_deg\":0},\"segments\":[{\"type\":\"line\"," \
    "\"length\":" #len "}],\"lanes\":" MOTORWAY_LANES extra "}"

static void motorway_gantries_span_the_road(void **state)
{
    (void)state;
    sim_scenario *sc = load("{\"name\":\"t\",\"roads\":[" MW_ROAD("m", 0, 1000, "") "],"
                            "\"scenery\":{\"rules\":{\"gantries\":{\"spacing_m\":400}}}}");
    sim_object_list l;
    place(sc, &l);
    assert_int_equal(count(&l, SIM_OBJ_GANTRY), 2);
    double want_x[2] = {200, 600};
    int k = 0;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        if (o->kind != SIM_OBJ_GANTRY) continue;
        assert_true(fabs(o->x - want_x[k++]) < 1e-9);
        assert_true(fabs(o->y) < 1e-9 && o->z == 0 && fabs(o->heading) < 1e-12);
        assert_true(fabs(o->width - 25.5) < 1e-9);
        assert_true(o->length == 1.0 && o->height == 7.0);
        /* both posts off the paved area */
        sim_road_loc loc;
        for (int side = -1; side <= 1; side += 2)
            assert_true(sim_roadnet_locate_on_road(&sc->net, o->x, o->y + side * (o->width / 2 - 0.25), &loc) != SIM_OK ||
                        !loc.on_road);
    }
    sim_object_list_free(&l);
    sim_scenario_free(sc);

    /* offset 3 m: span 2 * (11 + 3 + 0.25) = 28.5 m */
    sc = load("{\"name\":\"t\",\"roads\":[" MW_ROAD("m", 0, 1000, "") "],"
              "\"scenery\":{\"rules\":{\"gantries\":{\"spacing_m\":400,\"offset_m\":3}}}}");
    place(sc, &l);
    for (int i = 0; i < l.n; i++)
        if (l.items[i].kind == SIM_OBJ_GANTRY) assert_true(fabs(l.items[i].width - 28.5) < 1e-9);
    assert_int_equal(count(&l, SIM_OBJ_GANTRY), 2);
    sim_object_list_free(&l);
    sim_scenario_free(sc);

    /* a sign at 605 and a road beside at 150..250: neither gantry stands */
    sc = load("{\"name\":\"t\",\"roads\":[" MW_ROAD("m", 0, 1000, ",\"signs\":[{\"s\":605,\"type\":\"speed_limit\","
              "\"speed_kmh\":100}]") ",{\"id\":\"side\",\"start\":{\"x\":150,\"y\":-15,\"heading_deg\":0},"
              "\"segments\":[{\"type\":\"line\",\"length\":100}],\"lanes\":" RURAL_LANES "}],"
              "\"scenery\":{\"rules\":{\"gantries\":{\"spacing_m\":400}}}}");
    place(sc, &l);
    assert_int_equal(count(&l, SIM_OBJ_GANTRY), 0);
    sim_object_list_free(&l);
    sim_scenario_free(sc);

    /* the defaults: every 2 km from 1 km, motorways only */
    sc = load("{\"name\":\"t\",\"roads\":[" MW_ROAD("m", 0, 1000, "") "," MW_ROAD("long", 200, 4500, "") "]}");
    place(sc, &l);
    assert_int_equal(count(&l, SIM_OBJ_GANTRY), 2);
    for (int i = 0; i < l.n; i++)
        if (l.items[i].kind == SIM_OBJ_GANTRY)
            assert_true(fabs(l.items[i].y - 200) < 1e-9 && (fabs(l.items[i].x - 1000) < 1e-9 || fabs(l.items[i].x - 3000) < 1e-9));
    sim_object_list_free(&l);
    sim_scenario_free(sc);
    sc = load("{\"name\":\"t\"," ROAD(RURAL_LANES) "}");
    place(sc, &l);
    assert_int_equal(count(&l, SIM_OBJ_GANTRY), 0);
    sim_object_list_free(&l);
    sim_scenario_free(sc);
}

static void town_kerbs_lights_buildings(void **state)
{
    (void)state;
    sim_scenario *sc = load("{\"name\":\"t\"," ROAD(TOWN_LANES) "}");
    assert_int_equal(sim_scenery_road_style(&sc->net.roads[0]), SIM_SCENERY_TOWN);
    sim_object_list l;
    place(sc, &l);
    double kerb = 0;
    int lights = 0, buildings = 0;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        if (o->kind == SIM_OBJ_KERB) {
            assert_true(fabs(fabs(o->y) - 3.0) < 1e-6); /* between the lane and the sidewalk */
            kerb += o->length;
        } else if (o->kind == SIM_OBJ_STREET_LIGHT) {
            assert_true(fabs(fabs(o->y) - 4.6) < 1e-6); /* on the sidewalk, 0.4 m from its edge */
            lights++;
        } else if (o->kind == SIM_OBJ_BUILDING) {
            assert_true(fabs(o->y) - o->width / 2 >= 5.0 + 3 - 1e-6); /* 3 m behind the sidewalk */
            buildings++;
        }
        assert_int_not_equal(o->kind, SIM_OBJ_TREE);
    }
    assert_true(fabs(kerb - 2000) < 1e-6);
    assert_int_equal(lights, 2 * 33); /* every 30 m from 15 m */
    assert_true(buildings > 2 * 1000 / 22 && buildings < 2 * 1000 / 8);
    sim_object_list_free(&l);
    sim_scenario_free(sc);
}

static void rules_and_explicit_objects(void **state)
{
    (void)state;
    sim_scenario *sc = load("{\"name\":\"t\"," ROAD(RURAL_LANES)
                            ",\"scenery\":{\"rules\":{\"trees\":false,\"bushes\":false,\"guard_rails\":true,"
                            "\"delineators\":{\"spacing_m\":100,\"offset_m\":1}},"
                            "\"objects\":[{\"kind\":\"tree\",\"x\":30,\"y\":-12,\"height_m\":12},"
                            "{\"kind\":\"model\",\"model\":\"models/x.gltf\",\"x\":5,\"y\":9,\"z\":2,"
                            "\"heading_deg\":90}]}}");
    sim_object_list l;
    place(sc, &l);
    assert_int_equal(count(&l, SIM_OBJ_TREE), 1);
    assert_int_equal(count(&l, SIM_OBJ_BUSH), 0);
    assert_int_equal(count(&l, SIM_OBJ_DELINEATOR), 20);
    assert_int_equal(count(&l, SIM_OBJ_GUARD_RAIL), 2 * 250);
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        if (o->kind == SIM_OBJ_DELINEATOR) assert_true(fabs(fabs(o->y) - 4.5) < 1e-6);
        if (o->kind == SIM_OBJ_TREE) {
            assert_true(o->x == 30 && o->y == -12 && o->z == 0 && o->height == 12);
        }
        if (o->kind == SIM_OBJ_MODEL) {
            assert_string_equal(o->model, "models/x.gltf");
            assert_true(o->z == 2 && fabs(o->heading - M_PI / 2) < 1e-12);
        }
    }
    sim_object_list_free(&l);
    sim_scenario_free(sc);
    /* style none: only the explicit objects */
    sc = load("{\"name\":\"t\"," ROAD(RURAL_LANES)
              ",\"scenery\":{\"style\":\"none\",\"objects\":[{\"kind\":\"building\",\"x\":50,\"y\":30}]}}");
    place(sc, &l);
    assert_int_equal(l.n, 1);
    assert_true(l.items[0].length == 12 && l.items[0].height == 12);
    sim_object_list_free(&l);
    sim_scenario_free(sc);
}

/* A road on its own profile, 8 m above the flat ground from s = 300 to 700 (ramps
 * between): piers every 25 m where it is more than 3 m up, reaching from the ground to
 * 0.8 m under the surface. */
static void piers_under_an_elevated_road(void **state)
{
    (void)state;
    sim_scenario *sc = load("{\"name\":\"t\",\"roads\":[{\"id\":\"r\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
                            "\"segments\":[{\"type\":\"line\",\"length\":1000}],\"lanes\":" RURAL_LANES ","
                            "\"elevation\":{\"profile\":[[0,0],[200,0],[300,8],[700,8],[800,0],[1000,0]]}}]}");
    sim_object_list l;
    place(sc, &l);
    int piers = 0;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        if (o->kind != SIM_OBJ_BOX) continue;
        piers++;
        sim_road_pose p;
        assert_int_equal(sim_road_pose_at(&sc->net, 0, o->x, 0, &p), 0);
        assert_true(p.z > 3);
        assert_true(o->z == 0 && fabs(o->height - (p.z - 0.8)) < 1e-6);
        assert_true(fabs(o->y) < 1e-6 && fmod(o->x - 12.5, 25) == 0);
    }
    /* 8 m from 300 to 700 (16 piers) and the ramps' upper parts above 3 m */
    assert_true(piers >= 16 && piers <= 26);
    sim_object_list_free(&l);
    sim_scenario_free(sc);
}

static void expect_error(const char *scenery, const char *words)
{
    char text[2048];
    snprintf(text, sizeof text, "{\"name\":\"t\"," ROAD(RURAL_LANES) ",\"scenery\":%s}", scenery);
    sim_diag diag = {0};
    sim_scenario *sc = parse(text, &diag);
    assert_null(sc);
    bool found = false;
    for (int i = 0; i < diag.n; i++) {
        print_message("%s\n", diag.msgs[i]);
        found |= strstr(diag.msgs[i], words) != NULL && strstr(diag.msgs[i], "test.json") != NULL;
    }
    sim_diag_free(&diag);
    assert_true(found);
}

static void bad_sections_named(void **state)
{
    (void)state;
    expect_error("[]", "scenery");
    expect_error("{\"style\":\"city\"}", "scenery.style");
    expect_error("{\"rules\":{\"palms\":true}}", "palms");
    expect_error("{\"rules\":{\"trees\":{\"spacing_m\":-3}}}", "scenery.rules.trees.spacing_m");
    expect_error("{\"rules\":{\"trees\":3}}", "scenery.rules.trees");
    expect_error("{\"objects\":[{\"kind\":\"palm\",\"x\":0,\"y\":0}]}", "unknown kind \"palm\"");
    expect_error("{\"objects\":[{\"kind\":\"tree\",\"y\":0}]}", "scenery.objects[0].x");
    expect_error("{\"objects\":[{\"kind\":\"model\",\"x\":0,\"y\":0}]}", "scenery.objects[0].model");
    expect_error("{\"seed\":-1}", "scenery.seed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rural_delineators_trees_nothing_on_road),
        cmocka_unit_test(same_seed_same_objects),
        cmocka_unit_test(motorway_barrier_rails_markers),
        cmocka_unit_test(motorway_gantries_span_the_road),
        cmocka_unit_test(town_kerbs_lights_buildings),
        cmocka_unit_test(rules_and_explicit_objects),
        cmocka_unit_test(piers_under_an_elevated_road),
        cmocka_unit_test(bad_sections_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
