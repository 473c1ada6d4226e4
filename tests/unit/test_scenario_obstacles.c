/* Unit tests of a scenario's objects as collision shapes (sim_scenario_objects.h): the
 * shapes each kind gets, the event ids, and the shipped scenarios: every one has
 * bodies beside its roads (trees, rails, buildings, traffic-light posts) and none
 * stands on a drivable lane, so a car that keeps to its lanes never hits anything. */
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
#include "sim_scenario_objects.h"

static void shapes_by_kind(void **state)
{
    (void)state;
    sim_obstacle o[2];
    sim_world_object tree = {.kind = SIM_OBJ_TREE, .x = 3, .y = 4, .z = 1, .length = 5, .width = 5, .height = 10};
    assert_int_equal(sim_object_shapes(&tree, 7, o), 1);
    assert_int_equal(o[0].shape, SIM_SHAPE_CYLINDER);
    assert_true(o[0].x == 3 && o[0].y == 4 && o[0].z0 == 1 && o[0].z1 == 11 && o[0].tag == 7);
    assert_true(fabs(o[0].half_w - 0.25) < 1e-12); /* the drawn trunk: a tenth of the crown */
    sim_world_object rail = {.kind = SIM_OBJ_GUARD_RAIL, .x = 10, .y = 0, .heading = M_PI / 2, .length = 4,
                             .width = 0.3, .height = 0.75};
    assert_int_equal(sim_object_shapes(&rail, 1, o), 1);
    assert_int_equal(o[0].shape, SIM_SHAPE_RAIL);
    assert_true(fabs(o[0].x - 10) < 1e-12 && fabs(o[0].y - 2) < 1e-12 && o[0].half_l == 2 && fabs(o[0].half_w - 0.15) < 1e-12);
    sim_world_object gantry = {.kind = SIM_OBJ_GANTRY, .x = 0, .y = 0, .heading = 0, .length = 1, .width = 20,
                               .height = 7};
    assert_int_equal(sim_object_shapes(&gantry, 2, o), 2);
    assert_true(fabs(o[0].y + 10) < 1e-12 && fabs(o[1].y - 10) < 1e-12 && fabs(o[0].x) < 1e-12);
    sim_world_object house = {.kind = SIM_OBJ_BUILDING, .x = 1, .y = 2, .length = 12, .width = 8, .height = 9};
    assert_int_equal(sim_object_shapes(&house, 3, o), 1);
    assert_true(o[0].shape == SIM_SHAPE_BOX && o[0].half_l == 6 && o[0].half_w == 4);
    sim_world_object bush = {.kind = SIM_OBJ_BUSH, .length = 2, .width = 2, .height = 1.5};
    sim_world_object post = {.kind = SIM_OBJ_DELINEATOR, .length = 0.12, .width = 0.12, .height = 1};
    sim_world_object flat = {.kind = SIM_OBJ_BOX, .length = 3, .width = 3, .height = 0.0};
    assert_int_equal(sim_object_shapes(&bush, 0, o), 0);
    assert_int_equal(sim_object_shapes(&post, 0, o), 0);
    assert_int_equal(sim_object_shapes(&flat, 0, o), 0);

    sim_object_list list = {0};
    sim_world_object named = {.kind = SIM_OBJ_POLE, .id = "pole7", .length = 0.2, .width = 0.2, .height = 3};
    assert_non_null(sim_object_list_add(&list, &tree));
    assert_non_null(sim_object_list_add(&list, &named));
    char id[64];
    sim_object_event_id(&list, 0, id, sizeof id);
    assert_string_equal(id, "tree-0");
    sim_object_event_id(&list, 1, id, sizeof id);
    assert_string_equal(id, "pole7");
    sim_object_event_id(&list, 5, id, sizeof id);
    assert_string_equal(id, "");
    sim_object_list_free(&list);
}

/* The lane-change track's signs (each beside the lanes) get a 0.1 m post each, where
 * the sign stands, named by road and index, that becomes a 0.05 m cylinder to 2 m. */
static void sign_posts_where_the_signs_stand(void **state)
{
    (void)state;
    const char *root = getenv("SIM_ROOT");
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/lane-change.json", root ? root : ".");
    sim_scenario *sc;
    assert_int_equal(sim_scenario_load(path, &sc, NULL), 0);
    sim_object_list list = {0};
    int n = sim_scenario_sign_posts(sc, &list), want = 0;
    for (int r = 0; r < sc->net.n_roads; r++)
        want += sc->net.roads[r].n_signs;
    assert_true(want > 0);
    assert_int_equal(n, want);
    assert_int_equal(list.n, want);
    const sim_road *road = &sc->net.roads[0];
    sim_road_pose p;
    assert_int_equal(sim_road_pose_at(&sc->net, 0, road->signs[0].s, road->signs[0].d, &p), 0);
    const sim_world_object *o = &list.items[0];
    char id[128];
    snprintf(id, sizeof id, "sign:%s:0", road->id);
    assert_string_equal(o->id, id);
    assert_int_equal(o->kind, SIM_OBJ_POLE);
    assert_true(fabs(o->x - p.x) < 1e-9 && fabs(o->y - p.y) < 1e-9);
    sim_obstacle sh[2];
    assert_int_equal(sim_object_shapes(o, 7, sh), 1);
    assert_int_equal(sh[0].shape, SIM_SHAPE_CYLINDER);
    assert_true(fabs(sh[0].half_w - 0.05) < 1e-9);
    assert_true(fabs(sh[0].z1 - (p.z + 2.0)) < 1e-9);
    sim_object_list_free(&list);
    sim_scenario_free(sc);
}

/* Every 2 m along every drivable lane's centre line of every shipped scenario, a
 * 1.6 m square (a car's width) at the road's height from 0.2 to 1.5 m touches no
 * collision shape. */
static void shipped_lanes_are_clear(void **state)
{
    (void)state;
    static const char *const files[] = {"scenarios/drt.json", "scenarios/lane-change.json", "scenarios/lct.json",
                                        "scenarios/motorway.json", "scenarios/motorway-tor.json",
                                        "scenarios/rural.json", "scenarios/town.json", "scenarios/town03-sumo.json",
                                        /* the test scenarios the integration tests drive with lights */
                                        "tests/data/traffic_light.json", "tests/data/fabriksgatan_lights.json"};
    const char *root = getenv("SIM_ROOT");
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", root ? root : ".", files[f]);
        sim_scenario *sc;
        sim_error err = {0};
        if (sim_scenario_load(path, &sc, NULL) != 0)
            fail_msg("%s: does not load", path);
        sim_object_list list = {0};
        assert_true(sim_scenario_objects(sc, &list) >= 0);
        assert_true(sim_scenario_light_posts(sc, &list) >= 0);
        assert_true(sim_scenario_sign_posts(sc, &list) >= 0);
        sim_obstacles obs;
        assert_int_equal(sim_scenario_obstacles(&list, &obs, &err), 0);
        int samples = 0, blocked = 0;
        for (int r = 0; r < sc->net.n_roads; r++) {
            const sim_road *road = &sc->net.roads[r];
            for (int k = 0; k < road->n_sections; k++) {
                const sim_lane_section *sec = &road->sections[k];
                for (int side = 0; side < 2; side++)
                    for (int i = 0; i < (side ? sec->n_right : sec->n_left); i++) {
                        const sim_lane *lane = side ? &sec->right[i] : &sec->left[i];
                        if (!sim_lane_type_drivable(lane->type))
                            continue;
                        for (double s = sec->s0 + 1.0; s < sec->s1 - 1.0; s += 2.0) {
                            double t;
                            sim_road_pose p;
                            if (sim_lane_width(lane, s - sec->s0) < 2.0 ||
                                !sim_road_lane_center(road, s, lane->id, &t) ||
                                sim_road_pose_at(&sc->net, r, s, t, &p) != 0)
                                continue;
                            samples++;
                            int near[16];
                            int n = sim_obstacles_query(&obs, p.x - 0.8, p.y - 0.8, p.x + 0.8, p.y + 0.8, near, 16);
                            for (int q = 0; q < n && q < 16; q++) {
                                const sim_obstacle *o = &obs.items[near[q]];
                                if (o->z1 < p.z + 0.2 || o->z0 > p.z + 1.5)
                                    continue;
                                /* the square against the shape (its circle or box, coarsely: centre distance) */
                                double dx = p.x - o->x, dy = p.y - o->y;
                                double c = cos(o->heading), sn = sin(o->heading);
                                double lx = fabs(dx * c + dy * sn), ly = fabs(-dx * sn + dy * c);
                                bool hit = o->shape == SIM_SHAPE_CYLINDER
                                               ? hypot(dx, dy) < o->half_w + 0.8
                                               : lx < o->half_l + 0.8 && ly < o->half_w + 0.8;
                                if (hit) {
                                    if (blocked < 5)
                                        printf("%s: road %s lane %d s %.0f: a %s (object %d) at (%.1f, %.1f)\n",
                                               files[f], road->id, lane->id, s,
                                               sim_object_kind_name(list.items[o->tag].kind), o->tag, o->x, o->y);
                                    blocked++;
                                }
                            }
                        }
                    }
            }
        }
        int posts = 0;
        for (int i = 0; i < list.n; i++)
            posts += list.items[i].id && strncmp(list.items[i].id, "traffic_light:", 14) == 0;
        printf("%s: %d objects (%d traffic-light posts of %d heads), %d shapes, %d lane samples, %d blocked\n",
               files[f], list.n, posts, sc->net.lights.n_heads, obs.n, samples, blocked);
        assert_true(obs.n > 0 || sc->net.lights.n_heads > 0);
        assert_true(samples > 100);
        assert_int_equal(blocked, 0);
        sim_obstacles_free(&obs);
        sim_object_list_free(&list);
        sim_scenario_free(sc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shapes_by_kind),
        cmocka_unit_test(shipped_lanes_are_clear),
        cmocka_unit_test(sign_posts_where_the_signs_stand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
