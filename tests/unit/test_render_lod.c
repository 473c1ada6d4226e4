/* Unit tests of sim_lod: block errors solved by hand, the screen-space error, the
 * selection refining near the eye and on rough ground, balancing, stitching index
 * patterns (area, winding, no odd vertex on a stitched edge), a whole selection being
 * watertight (every vertex one side of a shared edge uses, the other uses too), brute
 * force, and frustum culling. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lod.h"
#include "sim_terrain.h"

static double plane(void *ctx, double x, double y) { (void)ctx; return 3 + 0.1 * x - 0.25 * y; }
static double parabola(void *ctx, double x, double y) { (void)ctx; (void)y; return x * x; }
static double hills(void *ctx, double x, double y)
{
    (void)ctx;
    return 20 * sin(x / 37.0) * cos(y / 23.0) + 0.5 * sin(x / 11.0 + y / 13.0);
}
/* Smooth in the west half, rough in the east. */
static double half_rough(void *ctx, double x, double y)
{
    (void)ctx;
    return x <= 136 ? 0 : 4 * sin((x - 136) / 3.0) * sin(y / 3.0);
}

static void plane_has_no_error_and_stays_one_block(void **state)
{
    (void)state;
    sim_lod_tree t;
    assert_int_equal(sim_lod_build(&t, 16, 3, -100, -50, 400, plane, NULL, NULL), 0);
    assert_int_equal(t.n, 16 * 8 + 1);
    assert_true(fabs(t.step - 400.0 / 128) < 1e-12);
    assert_true(t.err[0] < 1e-4);
    /* the root's height range: the plane's extremes at two corners */
    assert_true(fabs(t.zmin[0] - plane(NULL, -100, 350)) < 1e-3);
    assert_true(fabs(t.zmax[0] - plane(NULL, 300, -50)) < 1e-3);
    sim_lod_selection sel = {0};
    sim_lod_view v = {.eye = {0, 0, 5}, .scale = 1000, .tolerance = 1, .force_level = -1};
    assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
    assert_int_equal(sel.n, 1);
    assert_int_equal(sel.blocks[0].level, 0);
    assert_int_equal(sel.blocks[0].stitch, 0);
    sim_lod_selection_free(&sel);
    sim_lod_free(&t);
}

static void parabola_error_solved_by_hand(void **state)
{
    (void)state;
    /* z = x^2 on [0, 4], block 2, depth 1: the root's cells are 2 m wide, and its chord
     * between x = 0 and 2 is 2 at x = 1 where z = 1; between 2 and 4 it is 10 at x = 3
     * where z = 9: the root's error is 1 m, the finest blocks' 0. */
    sim_lod_tree t;
    assert_int_equal(sim_lod_build(&t, 2, 1, 0, 0, 4, parabola, NULL, NULL), 0);
    assert_true(fabs(t.err[0] - 1.0) < 1e-6);
    for (int k = 1; k < 5; k++)
        assert_true(t.err[k] == 0);
    assert_true(t.zmin[0] == 0 && t.zmax[0] == 16);
    /* eye 10 m west of the box at the height of its middle: 1 m * 100 px / 10 m */
    sim_lod_view v = {.eye = {-10, 2, 8}, .scale = 100, .tolerance = 5, .force_level = -1};
    assert_true(fabs(sim_lod_screen_error(&t, &v, 0, 0, 0) - 10.0) < 1e-9);
    sim_lod_selection sel = {0};
    assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
    assert_int_equal(sel.n, 4); /* 10 px > 5 px: split */
    v.tolerance = 11;
    assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
    assert_int_equal(sel.n, 1);
    sim_lod_selection_free(&sel);
    sim_lod_free(&t);
}

static void bad_parameters_refused(void **state)
{
    (void)state;
    sim_lod_tree t;
    sim_error err = {0};
    assert_int_equal(sim_lod_build(&t, 12, 2, 0, 0, 10, plane, NULL, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "power of two"));
    assert_int_equal(sim_lod_build(&t, 16, SIM_LOD_MAX_DEPTH + 1, 0, 0, 10, plane, NULL, &err), SIM_EINVAL);
    assert_int_equal(sim_lod_build(&t, 16, 2, 0, 0, -1, plane, NULL, &err), SIM_EINVAL);
    assert_int_equal(sim_lod_build(&t, 16, 2, NAN, 0, 1, plane, NULL, &err), SIM_EINVAL);
}

/* Winding, area and stitched edges of all 16 index patterns. */
static void index_patterns(void **state)
{
    (void)state;
    enum { B = 8, W = B + 1 };
    uint32_t idx[6 * B * B];
    for (unsigned mask = 0; mask < 16; mask++) {
        int n = sim_lod_block_indices(B, mask, idx);
        assert_int_equal(n % 3, 0);
        if (mask == 0)
            assert_int_equal(n, 6 * B * B);
        else
            assert_true(n < 6 * B * B);
        double area = 0;
        for (int k = 0; k < n; k += 3) {
            double p[3][2];
            for (int c = 0; c < 3; c++) {
                p[c][0] = idx[k + c] % W;
                p[c][1] = idx[k + c] / W;
                int x = (int)p[c][0], y = (int)p[c][1];
                if ((mask & SIM_EDGE_WEST) && x == 0) assert_int_equal(y % 2, 0);
                if ((mask & SIM_EDGE_EAST) && x == B) assert_int_equal(y % 2, 0);
                if ((mask & SIM_EDGE_SOUTH) && y == 0) assert_int_equal(x % 2, 0);
                if ((mask & SIM_EDGE_NORTH) && y == B) assert_int_equal(x % 2, 0);
            }
            double a = ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
                        (p[2][0] - p[0][0]) * (p[1][1] - p[0][1])) / 2;
            assert_true(a > 0); /* counter-clockwise from above, none degenerate */
            area += a;
        }
        /* all positive and summing to the square: no overlap, no hole */
        assert_true(fabs(area - B * B) < 1e-9);
    }
}

static const sim_lod_block *block_at(const sim_lod_selection *s, int level, int ix, int iy)
{
    for (int i = 0; i < s->n; i++)
        if (s->blocks[i].level == level && s->blocks[i].ix == ix && s->blocks[i].iy == iy)
            return &s->blocks[i];
    return NULL;
}

/* Every finest vertex on a block's border: how many block edges pass there (covers)
 * and how many of those use it in their triangles (uses). Watertight: uses is 0 or
 * covers everywhere. */
static void check_watertight(const sim_lod_tree *t, const sim_lod_selection *sel)
{
    int n = t->n, B = t->block;
    int *covers = calloc((size_t)n * n, sizeof *covers), *uses = calloc((size_t)n * n, sizeof *uses);
    uint32_t *idx = malloc(6 * (size_t)B * B * sizeof *idx);
    char *used = malloc((size_t)(B + 1) * (B + 1));
    assert_non_null(covers); assert_non_null(uses); assert_non_null(idx); assert_non_null(used);
    for (int b = 0; b < sel->n; b++) {
        const sim_lod_block *bl = &sel->blocks[b];
        int s = 1 << (t->depth - bl->level);
        int gx = bl->ix * B * s, gy = bl->iy * B * s;
        int m = sim_lod_block_indices(B, bl->stitch, idx);
        memset(used, 0, (size_t)(B + 1) * (B + 1));
        for (int k = 0; k < m; k++) used[idx[k]] = 1;
        for (int j = 0; j <= B; j++)
            for (int i = 0; i <= B; i++) {
                int edges = (i == 0) + (i == B) + (j == 0) + (j == B);
                if (!edges) continue;
                int p = (gy + j * s) * n + gx + i * s;
                covers[p] += edges;
                if (used[j * (B + 1) + i]) uses[p] += edges;
            }
        /* finest vertices between a block's own edge vertices: covered, not used */
        for (int k = 0; k < B * s; k++) {
            if (k % s == 0) continue;
            int pts[4] = {gy * n + gx + k, (gy + B * s) * n + gx + k, (gy + k) * n + gx,
                          (gy + k) * n + gx + B * s};
            for (int e = 0; e < 4; e++) covers[pts[e]]++;
        }
    }
    for (int p = 0; p < n * n; p++)
        if (uses[p] != 0 && uses[p] != covers[p])
            fail_msg("T-junction at finest vertex (%d, %d): %d of %d edges use it", p % n, p / n, uses[p], covers[p]);
    free(covers); free(uses); free(idx); free(used);
}

static void check_balanced(const sim_lod_tree *t, const sim_lod_selection *sel)
{
    int side = sel->leaf_side;
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            int l = sel->leaf_level[y * side + x];
            if (x + 1 < side) assert_true(abs(l - sel->leaf_level[y * side + x + 1]) <= 1);
            if (y + 1 < side) assert_true(abs(l - sel->leaf_level[(y + 1) * side + x]) <= 1);
        }
    /* the blocks tile the square exactly */
    double area = 0;
    for (int i = 0; i < sel->n; i++) area += pow(t->size / (1 << sel->blocks[i].level), 2);
    assert_true(fabs(area - t->size * t->size) < 1e-6);
}

static void selection_near_fine_far_coarse_balanced_watertight(void **state)
{
    (void)state;
    sim_lod_tree t;
    assert_int_equal(sim_lod_build(&t, 8, 5, 0, 0, 1024, hills, NULL, NULL), 0);
    double eyes[4][3] = {{10, 10, 30}, {512, 512, 40}, {1000, 300, 25}, {-300, 500, 100}};
    sim_lod_selection sel = {0};
    for (int e = 0; e < 4; e++) {
        sim_lod_view v = {.eye = {eyes[e][0], eyes[e][1], eyes[e][2]}, .scale = 700,
                          .tolerance = 2, .force_level = -1};
        assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
        check_balanced(&t, &sel);
        check_watertight(&t, &sel);
        int levels[SIM_LOD_MAX_DEPTH + 1] = {0};
        for (int i = 0; i < sel.n; i++) {
            const sim_lod_block *b = &sel.blocks[i];
            levels[b->level]++;
            /* every drawn block meets the tolerance unless it is at the finest level */
            if (b->level < t.depth)
                assert_true(sim_lod_screen_error(&t, &v, b->level, b->ix, b->iy) <= v.tolerance);
            /* stitch bits say exactly where the neighbour is coarser */
            int side = 1 << b->level;
            int nb[4][2] = {{b->ix - 1, b->iy}, {b->ix + 1, b->iy}, {b->ix, b->iy - 1}, {b->ix, b->iy + 1}};
            for (int k = 0; k < 4; k++) {
                if (nb[k][0] < 0 || nb[k][1] < 0 || nb[k][0] >= side || nb[k][1] >= side) {
                    assert_false(b->stitch & (1u << k));
                    continue;
                }
                bool coarser = block_at(&sel, b->level - 1, nb[k][0] / 2, nb[k][1] / 2) != NULL;
                assert_int_equal(!!(b->stitch & (1u << k)), coarser);
            }
        }
        if (e < 3) {
            /* the block under the eye is the finest, the selection far smaller than brute force */
            int lx = (int)(eyes[e][0] / 32), ly = (int)(eyes[e][1] / 32);
            assert_int_equal(sel.leaf_level[ly * 32 + lx], 5);
            assert_true(sel.n < 1024 / 2);
            assert_true(levels[5] > 0 && levels[5] < 1024 / 4);
        }
    }
    sim_lod_selection_free(&sel);
    sim_lod_free(&t);
}

static void rough_ground_refined_before_smooth(void **state)
{
    (void)state;
    sim_lod_tree t;
    assert_int_equal(sim_lod_build(&t, 8, 4, 0, 0, 256, half_rough, NULL, NULL), 0);
    /* eye above the middle: both halves equally far */
    sim_lod_view v = {.eye = {128, 128, 60}, .scale = 700, .tolerance = 1, .force_level = -1};
    sim_lod_selection sel = {0};
    assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
    /* finest blocks: many on the rough half, none on the smooth one */
    int west = 0, east = 0;
    for (int i = 0; i < sel.n; i++) {
        if (sel.blocks[i].level != t.depth) continue;
        if ((sel.blocks[i].ix + 0.5) * 16 < 128) west++; else east++;
    }
    assert_int_equal(west, 0);
    assert_true(east >= 16);
    check_watertight(&t, &sel);
    sim_lod_selection_free(&sel);
    sim_lod_free(&t);
}

static void brute_force_and_culling(void **state)
{
    (void)state;
    sim_lod_tree t;
    assert_int_equal(sim_lod_build(&t, 8, 4, 0, 0, 512, hills, NULL, NULL), 0);
    sim_lod_selection sel = {0};
    sim_lod_view v = {.eye = {256, 256, 30}, .scale = 700, .tolerance = 2, .force_level = 4};
    assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
    assert_int_equal(sel.n, 256);
    for (int i = 0; i < sel.n; i++) assert_int_equal(sel.blocks[i].stitch, 0);

    /* looking east from the middle: nothing west of the eye (behind it) is drawn */
    sim_camera cam;
    sim_pose pose = {.pos = {256, 256, 30}, .heading = 0};
    sim_view_rig rig = {.eye = {0, 0, 0}};
    sim_camera_params cp = {.view = SIM_VIEW_FRONT, .fov_y = 0.8, .aspect = 16.0 / 9, .z_far = 2000};
    sim_camera_setup(&cam, &pose, &rig, &cp);
    sim_frustum f;
    sim_frustum_from_matrix(&f, cam.view_proj);
    v.frustum = &f;
    assert_int_equal(sim_lod_select(&t, &v, &sel), 0);
    assert_int_equal(sel.n + sel.culled, 256);
    assert_true(sel.n < 256 / 2 + 16);
    for (int i = 0; i < sel.n; i++) assert_true((sel.blocks[i].ix + 1) * 32.0 > 256 - 1e-9);
    sim_lod_selection_free(&sel);
    sim_lod_free(&t);
}

static double terrain_height(void *ctx, double x, double y) { return sim_terrain_height(ctx, x, y); }

/* The drawn terrain's vertices are the physics' surface: built from sim_terrain_height
 * (the spline the wheels touch), at 4 points per control-net cell, each vertex equals
 * it to float precision, and the finest blocks' error against the spline midway
 * between vertices is small against the control net's relief. */
static void vertices_are_the_physics_surface(void **state)
{
    (void)state;
    sim_grid g;
    /* relief like the rural scenario's: smallest features 6 grid points (48 m) across */
    assert_int_equal(sim_grid_fractal(&g, 65, 65, 7, 3, 24, 0.5, NULL), 0);
    for (int i = 0; i < 65 * 65; i++) g.v[i] = 100 + 30 * g.v[i];
    sim_terrain ter;
    assert_int_equal(sim_terrain_init(&ter, &g, -50, 20, 8, NULL), 0);
    sim_lod_tree t;
    /* 512 m square, finest step 2 m: 16 cells x 2^4 */
    assert_int_equal(sim_lod_build(&t, 16, 4, -50, 20, 512, terrain_height, &ter, NULL), 0);
    assert_true(fabs(t.step - 2.0) < 1e-12);
    for (int j = 0; j < t.n; j += 7)
        for (int i = 0; i < t.n; i += 5) {
            double x = -50 + i * t.step, y = 20 + j * t.step;
            double z = sim_terrain_height(&ter, x, y);
            assert_true(fabs(t.h[j * t.n + i] - z) <= 1e-5 * fabs(z));
        }
    /* midway between finest vertices the triangles stay within 5 cm of the spline */
    for (int j = 0; j + 1 < t.n; j += 3)
        for (int i = 0; i + 1 < t.n; i += 3) {
            double x = -50 + (i + 0.5) * t.step, y = 20 + (j + 0.25) * t.step;
            /* triangle (i,j) (i+1,j) (i+1,j+1) holds u = 0.5 >= v = 0.25 */
            double ha = t.h[j * t.n + i], hb = t.h[j * t.n + i + 1], hc = t.h[(j + 1) * t.n + i + 1];
            double drawn = ha + 0.5 * (hb - ha) + 0.25 * (hc - hb);
            assert_true(fabs(drawn - sim_terrain_height(&ter, x, y)) < 0.05);
        }
    sim_lod_free(&t);
    sim_terrain_free(&ter);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plane_has_no_error_and_stays_one_block),
        cmocka_unit_test(parabola_error_solved_by_hand),
        cmocka_unit_test(bad_parameters_refused),
        cmocka_unit_test(index_patterns),
        cmocka_unit_test(selection_near_fine_far_coarse_balanced_watertight),
        cmocka_unit_test(rough_ground_refined_before_smooth),
        cmocka_unit_test(brute_force_and_culling),
        cmocka_unit_test(vertices_are_the_physics_surface),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
