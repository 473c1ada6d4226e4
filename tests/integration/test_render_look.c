/* Integration tests of the look of render-node's pictures (issue 30; offscreen, real
 * OpenGL on Mesa), each computed from the geometry: roadside scenery where its rules put
 * it and none on the lanes, sign posts behind their faces and no square behind a round
 * sign, retroreflective sign faces and markings at night, the sun's shadows. */
#include "render_picture.h"
#include "sim_scenery.h"

/* Scenery where its rule puts it: the lane-change track is a rural road (auto style),
 * so trees stand beside it. The test places them with the same rules and seed, picks
 * the nearest tree 25..70 m ahead on the right, and finds leaves where its crown
 * projects (green, and not there without scenery), from the tree model and, with no
 * models folder, from the built-in tree; on the lanes the pictures with and without
 * scenery are the same. */
static void scenery_tree_where_placed_none_on_road(void **state)
{
    (void)state;
    render(tmp("scn.png"), LCT);
    render(tmp("scn0.png"), LCT " --no-scenery");
    image with, without;
    image_load(tmp("scn.png"), &with);
    image_load(tmp("scn0.png"), &without);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &lct_pose);
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(ts_root("scenarios/lane-change.json"), &sc, NULL), 0);
    sim_scenery_config def;
    sim_scenery_config_init(&def);
    sim_object_list l = {0};
    assert_true(sim_scenery_place(&sc->net, sc->scenery ? sc->scenery : &def, &l) > 0);
    const sim_world_object *tree = NULL;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        double ahead = o->x - lct_pose.pos[0];
        if (o->kind == SIM_OBJ_TREE && ahead > 25 && ahead < 70 && o->y < -10 && (!tree || o->y > tree->y))
            tree = o;
    }
    assert_non_null(tree);
    /* the crown's middle: 0.6 of the height, on the side facing the road */
    const unsigned char *p = at(&with, &c, tree->x, tree->y + tree->width * 0.15, tree->z + 0.6 * tree->height);
    const unsigned char *q = at(&without, &c, tree->x, tree->y + tree->width * 0.15, tree->z + 0.6 * tree->height);
    assert_true(p[1] > p[0] + 15 && p[1] > p[2] + 15); /* leaves */
    assert_true(diff(p, q) > 40);
    /* the trees are drawn from models/tree.glb; with no models there the built-in tree
     * stands in (its crown covers the same point) and the node names the file */
    char msg[4096], args[1024];
    snprintf(args, sizeof args, "--size %dx%d --screenshot %s --models %s " LCT, W, H, tmp("scn1.png"),
             tmp("no-models"));
    assert_int_equal(run_render(msg, sizeof msg, NULL, args), 0);
    assert_non_null(strstr(msg, "no-models/tree.glb"));
    assert_non_null(strstr(msg, "the built-in tree stands in"));
    image builtin;
    image_load(tmp("scn1.png"), &builtin);
    const unsigned char *r = at(&builtin, &c, tree->x, tree->y + tree->width * 0.15, tree->z + 0.6 * tree->height);
    assert_true(r[1] > r[0] + 15 && r[1] > r[2] + 15);
    assert_true(diff(r, q) > 40);
    free(builtin.px);
    /* every lane centre from 10 to 150 m ahead: the same with and without scenery */
    for (double ahead = 10; ahead <= 150; ahead += 5)
        for (double y = -1.75; y >= -8.75; y -= 3.5) {
            const unsigned char *a = at(&with, &c, lct_pose.pos[0] + ahead, y, 0.02);
            const unsigned char *b = at(&without, &c, lct_pose.pos[0] + ahead, y, 0.02);
            assert_true(diff(a, b) <= 6);
        }
    sim_object_list_free(&l);
    sim_scenery_config_free(&def);
    sim_scenario_free(sc);
    free(with.px);
    free(without.px);
}

/* The round 60 sign at the track's start seen from the front at 12 m: below the
 * number, on the face's vertical middle, the face is white (its post stands behind it,
 * it used to cross the face up to its middle), and the corner of the face's square
 * shows the sky (no grey square behind a round sign). */
static void sign_post_behind_round_face(void **state)
{
    (void)state;
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(ts_root("scenarios/lane-change.json"), &sc, NULL), 0);
    const sim_sign *sg = &sc->net.roads[0].signs[0];
    assert_int_equal(sg->type, SIM_SIGN_SPEED_LIMIT);
    double s_sign = sg->s, d_sign = sg->d;
    sim_scenario_free(sc);
    /* on the sign's line, 12 m before it, looking along the road */
    sim_pose pose = {.pos = {s_sign - 12, d_sign - 0.37, 0.52}};
    char args[512];
    snprintf(args, sizeof args, "--scenario scenarios/lane-change.json --pose %g,%g,0.52,0 --no-hud --no-scenery",
             pose.pos[0], pose.pos[1]);
    render(tmp("sign.png"), args);
    image im;
    image_load(tmp("sign.png"), &im);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &pose);
    /* the face: 0.9 m across, its bottom 1.4 m up, facing -x */
    double zc = 1.4 + 0.45;
    const unsigned char *below_number = at(&im, &c, s_sign, d_sign, zc - 0.6 * 0.45);
    assert_true(lum(below_number) > 0.8);
    const unsigned char *corner = at(&im, &c, s_sign, d_sign - 0.9 * 0.45, zc + 0.9 * 0.45);
    assert_true(corner[2] > corner[0] + 20); /* sky blue, not the board's grey */
    free(im.px);
}

/* At night a sign face in the low beam sends the light back to the driver: the Lane
 * Change Test board 40 m ahead is brighter than the lit road at its foot (without
 * retroreflection it would be lit by the night's ambient light alone, darker than the
 * road in the beam). */
static void sign_face_retroreflective_at_night(void **state)
{
    (void)state;
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(ts_root("scenarios/lane-change.json"), &sc, NULL), 0);
    const sim_sign *sg = &sc->net.roads[0].signs[1];
    assert_int_equal(sg->type, SIM_SIGN_LANE_CHANGE);
    double s_sign = sg->s, d_sign = sg->d;
    sim_scenario_free(sc);
    sim_pose pose = {.pos = {s_sign - 40, -5.25, 0.52}};
    char args[512];
    snprintf(args, sizeof args, "--scenario scenarios/lane-change.json --pose %g,-5.25,0.52,0 --no-hud --light night",
             pose.pos[0]);
    render(tmp("retro.png"), args);
    image im;
    image_load(tmp("retro.png"), &im);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &pose);
    /* the arrow's column (target lane -1, the leftmost: the board's left third) */
    double y = d_sign + 1.0 - (0.03 + 0.5 * 0.94 / 3) * 2.0;
    double face = lum(at(&im, &c, s_sign, y, 1.6 + 1.5 * 0.65));
    double road = lum(at(&im, &c, s_sign, -5.25, 0.02));
    double road_near = lum(at(&im, &c, s_sign - 25, -5.25, 0.02));
    print_message("night: sign face %.3f, road beside it %.3f, road in the beam at 15 m %.3f\n", face, road, road_near);
    assert_true(face > 2 * road);
    assert_true(face > road_near);
    free(im.px);
}

/* The sun's shadow (high preset, clear day; the sun stands in the west-south-west,
 * 43 degrees up): beside a 10 m building on flat ground, the grass on the side away
 * from the sun is darker than the grass on the sun's side at the same distance from
 * the building; without shadows (low) they are alike. */
static double patch_lum(const image *im, const sim_camera *c, double x, double y)
{
    int px, py;
    assert_true(project(c, x, y, 0, &px, &py));
    double sum = 0;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++)
            sum += lum(pixel(im, px + dx, py + dy));
    return sum / 25;
}

static void shadow_darker_away_from_sun(void **state)
{
    (void)state;
    FILE *f = fopen(tmp("shadow.json"), "w");
    assert_non_null(f);
    fputs("{\"name\":\"shadow\",\"roads\":[{\"id\":\"r\",\"start\":{\"x\":0,\"y\":0,\"heading_deg\":0},"
          "\"segments\":[{\"type\":\"line\",\"length\":300}],\"lanes\":{\"left\":[{\"width\":3.5}],"
          "\"right\":[{\"width\":3.5}]}}],\"environment\":{\"light\":\"day\",\"weather\":\"clear\"},"
          "\"scenery\":{\"style\":\"none\",\"objects\":[{\"kind\":\"building\",\"x\":40,\"y\":-14,"
          "\"length_m\":10,\"width_m\":8,\"height_m\":10}]}}", f);
    fclose(f);
    /* from the north, 15 m up, looking south and 25 degrees down at the building */
    sim_pose pose = {.pos = {40, 30, 15}, .heading = -M_PI / 2, .pitch = 25 * M_PI / 180};
    char args[600];
    snprintf(args, sizeof args, "--scenario %s --pose 40,30,15,-90,25 --no-hud --quality high", tmp("shadow.json"));
    render(tmp("shadow-high.png"), args);
    /* low without the detail textures: the grass's patches would differ between the two
     * 5x5 patches by as much as a shadow */
    snprintf(args, sizeof args, "--scenario %s --pose 40,30,15,-90,25 --no-hud --quality low --no-detail",
             tmp("shadow.json"));
    render(tmp("shadow-low.png"), args);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &pose);
    /* 8 m from the middle towards the sun (west-south-west) and away from it */
    const double sx = -0.89, sy = -0.44;
    double lit_side[2] = {40 + 8 * sx, -14 + 8 * sy}, shade_side[2] = {40 - 8 * sx, -14 - 8 * sy};
    image hi, lo;
    image_load(tmp("shadow-high.png"), &hi);
    image_load(tmp("shadow-low.png"), &lo);
    double a = patch_lum(&hi, &c, lit_side[0], lit_side[1]), b = patch_lum(&hi, &c, shade_side[0], shade_side[1]);
    double a0 = patch_lum(&lo, &c, lit_side[0], lit_side[1]), b0 = patch_lum(&lo, &c, shade_side[0], shade_side[1]);
    print_message("shadow: sun side %.3f, away %.3f (low, no shadows: %.3f, %.3f)\n", a, b, a0, b0);
    assert_true(b < 0.75 * a);
    assert_true(fabs(b0 - a0) < 0.1 * a0);
    free(hi.px);
    free(lo.px);
}

/* Road paint is retroreflective too: at night, in the low beam, the solid edge line
 * 25 to 45 m ahead stands out from the asphalt beside it by far more than its colour
 * does by day (paint 0.95 against asphalt 0.30: a factor of about 3). */
static void markings_retroreflective_at_night(void **state)
{
    (void)state;
    /* (with lit.frag's paint lit like the asphalt the ratios were 2.9 to 3.1) */
    char cmd[800], msg[4096];
    /* medium: the preset with retroreflective paint (llvmpipe would pick low) */
    snprintf(cmd, sizeof cmd, "--screenshot %s " LCT " --no-scenery --light night --size 1280x720 --quality medium",
             tmp("marks.png"));
    assert_int_equal(run_render(msg, sizeof msg, NULL, cmd), 0);
    image im;
    image_load(tmp("marks.png"), &im);
    sim_camera c;
    sim_view_rig rig = {.eye = {-0.25, 0.37, 0.63}, .length = 4.47, .width = 1.74};
    sim_camera_params cp = {.view = SIM_VIEW_FRONT, .aspect = 1280.0 / 720, .z_near = 0.25, .z_far = 5000};
    sim_camera_setup(&c, &lct_pose, &rig, &cp);
    for (double ahead = 25; ahead <= 45; ahead += 10) {
        double ndc[2], best = 0;
        /* the line between lanes -1 and -2 is broken; the solid one at -10.5 is the edge */
        assert_true(sim_camera_project(&c, (double[3]){lct_pose.pos[0] + ahead, -10.5, 0.03}, ndc));
        int px = (int)((ndc[0] + 1) / 2 * 1280), py = (int)((1 - ndc[1]) / 2 * 720);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                best = fmax(best, lum(pixel(&im, px + dx, py + dy)));
        assert_true(sim_camera_project(&c, (double[3]){lct_pose.pos[0] + ahead, -8.75, 0.02}, ndc));
        double road = lum(pixel(&im, (int)((ndc[0] + 1) / 2 * 1280), (int)((1 - ndc[1]) / 2 * 720)));
        print_message("night, %g m: edge line %.3f, asphalt %.3f, ratio %.2f\n", ahead, best, road, best / road);
        assert_true(best > 5 * road);
    }
    free(im.px);
}

/* Street lights light the street at night: in town, the sidewalk under the nearest
 * light 20 to 60 m ahead is brighter than the same place drawn without scenery (where
 * only the night's ambient light reaches it). */
static void street_lights_light_the_street_at_night(void **state)
{
    (void)state;
    sim_scenario *sc = NULL;
    assert_int_equal(sim_scenario_load(ts_root("scenarios/town.json"), &sc, NULL), 0);
    sim_scenery_config def;
    sim_scenery_config_init(&def);
    sim_object_list l = {0};
    assert_true(sim_scenery_place(&sc->net, &def, &l) > 0);
    /* on the first street (along +x at y = 0), 1.5 m right of its centre */
    sim_pose pose = {.pos = {60, -1.5, 0.52}};
    const sim_world_object *lamp = NULL;
    for (int i = 0; i < l.n; i++) {
        const sim_world_object *o = &l.items[i];
        if (o->kind == SIM_OBJ_STREET_LIGHT && o->y < 0 && o->y > -6 && o->x > pose.pos[0] + 20 &&
            o->x < pose.pos[0] + 60 && (!lamp || o->x < lamp->x))
            lamp = o;
    }
    assert_non_null(lamp);
    double x = lamp->x, y = lamp->y + 0.8; /* on the sidewalk beside the pole, towards the road */
    sim_object_list_free(&l);
    sim_scenery_config_free(&def);
    sim_scenario_free(sc);
    /* medium: the preset with street lights (llvmpipe would pick low) */
    render(tmp("lamps.png"), "--scenario scenarios/town.json --pose 60,-1.5,0.52,0 --no-hud --light night --quality medium");
    render(tmp("lamps0.png"),
           "--scenario scenarios/town.json --pose 60,-1.5,0.52,0 --no-hud --light night --no-scenery --quality medium");
    image with, without;
    image_load(tmp("lamps.png"), &with);
    image_load(tmp("lamps0.png"), &without);
    sim_camera c;
    camera(&c, SIM_VIEW_FRONT, &pose);
    double a = lum(at(&with, &c, x, y, 0.05)), b = lum(at(&without, &c, x, y, 0.05));
    print_message("night: sidewalk under a street light %.3f, without the lights %.3f\n", a, b);
    assert_true(a > 1.5 * b + 0.02);
    free(with.px);
    free(without.px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scenery_tree_where_placed_none_on_road),
        cmocka_unit_test(sign_post_behind_round_face),
        cmocka_unit_test(sign_face_retroreflective_at_night),
        cmocka_unit_test(shadow_darker_away_from_sun),
        cmocka_unit_test(markings_retroreflective_at_night),
        cmocka_unit_test(street_lights_light_the_street_at_night),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
