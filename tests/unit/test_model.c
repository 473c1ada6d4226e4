/* test_model.c - model files through libassimp (common/model): the generated sedan
 * loads with its vertex count, bounds and named parts as scripts/make-models.py builds
 * them; a truncated, a missing and an empty model are errors naming the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_file.h"
#include "sim_model.h"

/* scripts/make-models.py's sedan: 12 nodes, 1506 vertices (its POSITION accessors
 * summed), 4.5 m long with bumper trim 4 cm behind and 3 cm ahead of the body (x from
 * -2.29 to 2.28), mirrors 0.12 m beyond the 1.8 m body (y +-1.02), wheels on the
 * ground (radius 0.31 at z 0.31) up to the 1.45 m roof. */
#define SEDAN "models/sedan.glb"
#define SEDAN_VERTICES 1506

static void check_sedan(const sim_model *m)
{
    assert_int_equal(m->nv, SEDAN_VERTICES);
    assert_int_equal(m->ni % 3, 0);
    assert_true(m->ni >= m->nv); /* flat-shaded: three corners a triangle, none shared */
    assert_int_equal(m->n_parts, 12);
    assert_float_equal(m->lo[0], -2.29, 1e-4);
    assert_float_equal(m->hi[0], 2.28, 1e-4);
    assert_float_equal(m->lo[1], -1.02, 1e-4);
    assert_float_equal(m->hi[1], 1.02, 1e-4);
    assert_float_equal(m->lo[2], 0.0, 1e-4);
    assert_float_equal(m->hi[2], 1.45, 1e-4);
    /* the front left wheel: half the 2.72 m wheelbase ahead, half the 1.58 m track to
     * the left (+y in the vehicle frame: glTF's +X came through as left), its centre
     * one radius up; its vertices are about that pivot */
    const sim_model_part *w = sim_model_part_find(m, "wheel_fl");
    assert_non_null(w);
    assert_float_equal(w->pivot[0], 1.36, 1e-4);
    assert_float_equal(w->pivot[1], 0.79, 1e-4);
    assert_float_equal(w->pivot[2], 0.31, 1e-4);
    float rmax = 0;
    for (int i = w->first_vertex; i < w->first_vertex + w->n_vertices; i++)
        rmax = fmaxf(rmax, hypotf(m->v[i].pos[0], m->v[i].pos[2]));
    assert_float_equal(rmax, 0.31, 1e-4);
    /* every index inside the vertex array; every normal a unit vector */
    for (int i = 0; i < m->ni; i++) assert_true(m->idx[i] < (uint32_t)m->nv);
    for (int i = 0; i < m->nv; i++) {
        const float *n = m->v[i].normal;
        assert_float_equal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-4);
    }
    /* the paint keeps its base colour (0.70, 0.08, 0.06) */
    const sim_model_part *p = sim_model_part_find(m, "paint");
    assert_non_null(p);
    assert_float_equal(m->v[p->first_vertex].color[0], 0.70, 1e-3);
    assert_float_equal(m->v[p->first_vertex].color[1], 0.08, 1e-3);
    assert_non_null(sim_model_part_find(m, "bonnet"));
    assert_non_null(sim_model_part_find(m, "lamp_brake"));
    assert_null(sim_model_part_find(m, "wheel_x"));
}

static void sedan_loads_with_its_counts_and_bounds(void **state)
{
    (void)state;
    sim_model m;
    sim_error err = {0};
    assert_int_equal(sim_model_load(SEDAN, &m, &err), SIM_OK);
    check_sedan(&m);
    sim_model_free(&m);
    assert_null(m.v);
    assert_int_equal(m.nv, 0);
}

static void sedan_loads_from_memory_alike(void **state)
{
    (void)state;
    char *data;
    size_t len;
    assert_int_equal(sim_file_read(SEDAN, &data, &len, NULL), SIM_OK);
    sim_model m;
    sim_error err = {0};
    assert_int_equal(sim_model_load_memory(data, len, "glb", "sedan bytes", &m, &err), SIM_OK);
    check_sedan(&m);
    sim_model_free(&m);
    free(data);
}

static void every_shipped_model_loads(void **state)
{
    (void)state;
    static const char *const names[] = {"hatchback", "sedan", "estate", "suv", "van",
                                        "bus", "truck", "tree", "building", "cockpit"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[64];
        snprintf(path, sizeof path, "models/%s.glb", names[i]);
        sim_model m;
        sim_error err = {0};
        int rc = sim_model_load(path, &m, &err);
        if (rc) fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(rc, SIM_OK);
        assert_true(m.nv > 0 && m.n_parts > 0);
        sim_model_free(&m);
    }
}

static void missing_model_is_an_io_error_naming_it(void **state)
{
    (void)state;
    sim_model m;
    sim_error err = {0};
    assert_int_equal(sim_model_load("models/no-such-car.glb", &m, &err), SIM_EIO);
    assert_non_null(strstr(err.msg, "models/no-such-car.glb"));
    assert_null(m.v);
}

static void corrupt_model_is_an_error_naming_it(void **state)
{
    (void)state;
    char *data;
    size_t len;
    assert_int_equal(sim_file_read(SEDAN, &data, &len, NULL), SIM_OK);
    char dir[] = "/tmp/test_model_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/broken.glb", dir);
    /* the header and half the JSON chunk: a glb cut off in a download */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(data, 1, 400, f);
    fclose(f);
    sim_model m;
    sim_error err = {0};
    assert_int_equal(sim_model_load(path, &m, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, path));
    assert_null(m.v);
    /* the same bytes from memory */
    assert_int_equal(sim_model_load_memory(data, 400, "glb", "cut.glb", &m, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, "cut.glb"));
    /* text that is no model at all */
    f = fopen(path, "wb");
    fputs("this is not a model\n", f);
    fclose(f);
    assert_int_equal(sim_model_load(path, &m, &err), SIM_EINVAL);
    assert_non_null(strstr(err.msg, path));
    unlink(path);
    rmdir(dir);
    free(data);
}

static void model_without_triangles_is_refused(void **state)
{
    (void)state;
    /* a valid glTF 2.0 file with one empty node: nothing to draw */
    static const char gltf[] = "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                               "\"nodes\":[{\"name\":\"empty\"}]}";
    sim_model m;
    sim_error err = {0};
    int rc = sim_model_load_memory(gltf, sizeof gltf - 1, "gltf", "empty.gltf", &m, &err);
    assert_int_equal(rc, SIM_EINVAL);
    assert_non_null(strstr(err.msg, "empty.gltf"));
}

/* A child node under a parent moved, turned and a child scaled: the transforms
 * compose, glTF's frame becomes the vehicle frame. The parent is 1 m along glTF's +X
 * (left) and turned 90 degrees about +Y (up); the child 2 m along the parent's +Z and
 * scaled by 2, holding the triangle (0,0,0), (1,0,0), (0,1,0) with normals +Z. Solved
 * by hand: the turn takes +Z to +X and +X to -Z, so the child's origin is glTF (3, 0,
 * 0), the vehicle frame's (0, 3, 0) (3 m left); the corner (1,0,0) becomes glTF
 * (0, 0, -2) from there, 2 m back; (0,1,0) 2 m up; the normal +Z turns to +X: left. */
static void node_transforms_compose(void **state)
{
    (void)state;
    static const char gltf[] =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\""
        "parent\",\"translation\":[1,0,0],\"rotation\":[0,0.7071067811865476,0,0.7071067811865476],\"chil"
        "dren\":[1]},{\"name\":\"child\",\"mesh\":0,\"translation\":[0,0,2],\"scale\":[2,2,2]}],\"meshes\""
        ":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2,\"material\":0}]}"
        "],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.2,0.4,0.6,1]}}],\"accessors\""
        ":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\""
        ":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},{\"bufferView\""
        ":2,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],\"bufferViews\":[{\"buffer\":0,\"byt"
        "eOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36},{\"buffer\":0,"
        "\"byteOffset\":72,\"byteLength\":6}],\"buffers\":[{\"byteLength\":80,\"uri\":\"data:application/"
        "octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAA"
        "AIA/AAAAAAAAAAAAAIA/AAABAAIAAAA=\"}]}";
    sim_model m;
    sim_error err = {0};
    int rc = sim_model_load_memory(gltf, sizeof gltf - 1, "gltf", "nested.gltf", &m, &err);
    if (rc) fail_msg("%s", err.msg);
    assert_int_equal(m.n_parts, 1);
    assert_string_equal(m.parts[0].name, "child");
    const float pivot[3] = {0, 3, 0}, v1[3] = {-2, 0, 0}, v2[3] = {0, 0, 2}, n[3] = {0, 1, 0};
    for (int k = 0; k < 3; k++) {
        assert_float_equal(m.parts[0].pivot[k], pivot[k], 1e-5);
        assert_float_equal(m.v[0].pos[k], 0, 1e-5);
        assert_float_equal(m.v[1].pos[k], v1[k], 1e-5);
        assert_float_equal(m.v[2].pos[k], v2[k], 1e-5);
        for (int i = 0; i < 3; i++) assert_float_equal(m.v[i].normal[k], n[k], 1e-5);
    }
    const float lo[3] = {-2, 3, 0}, hi[3] = {0, 3, 2};
    for (int k = 0; k < 3; k++) {
        assert_float_equal(m.lo[k], lo[k], 1e-5);
        assert_float_equal(m.hi[k], hi[k], 1e-5);
    }
    assert_float_equal(m.v[0].color[2], 0.6, 1e-5);
    sim_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sedan_loads_with_its_counts_and_bounds),
        cmocka_unit_test(sedan_loads_from_memory_alike),
        cmocka_unit_test(every_shipped_model_loads),
        cmocka_unit_test(missing_model_is_an_io_error_naming_it),
        cmocka_unit_test(corrupt_model_is_an_error_naming_it),
        cmocka_unit_test(model_without_triangles_is_refused),
        cmocka_unit_test(node_transforms_compose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
