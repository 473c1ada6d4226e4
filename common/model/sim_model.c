/* sim_model: model files through libassimp's C API (sim_model.h). assimp does the
 * parsing (glTF 2.0 and the rest); this file only walks its scene into plain arrays,
 * applies each node's transform and turns glTF's frame into the vehicle frame. */
#include "sim_model.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#define MAX_DEPTH 64  /* node nesting; a deeper file is refused rather than recursed into */

/* Triangulated, points and lines sorted out (dropped below), normals made where the
 * file has none. No vertex joining: a file's vertex count stays what it says. */
static const unsigned IMPORT_FLAGS =
    aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_GenNormals | aiProcess_ValidateDataStructure;

/* glTF (X left, Y up, Z forward) to the vehicle frame (x forward, y left, z up). */
static void to_sim(const double g[3], float out[3])
{
    out[0] = (float)g[2];
    out[1] = (float)g[0];
    out[2] = (float)g[1];
}

typedef struct walk {
    const struct aiScene *sc;
    sim_model *m;
    const char *name;
    sim_error *err;
} walk;

static void mat_mul(const struct aiMatrix4x4 *a, const struct aiMatrix4x4 *b, struct aiMatrix4x4 *out)
{
    const float *pa = &a->a1, *pb = &b->a1;
    float r[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            float s = 0;
            for (int k = 0; k < 4; k++) s += pa[i * 4 + k] * pb[k * 4 + j];
            r[i * 4 + j] = s;
        }
    memcpy(&out->a1, r, sizeof r);
}

static void base_colour(const struct aiScene *sc, unsigned mat, float rgb[3])
{
    rgb[0] = rgb[1] = rgb[2] = 0.8f;
    if (mat >= sc->mNumMaterials || !sc->mMaterials[mat]) return;
    struct aiColor4D c;
    if (aiGetMaterialColor(sc->mMaterials[mat], AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS ||
        aiGetMaterialColor(sc->mMaterials[mat], AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS) {
        rgb[0] = c.r;
        rgb[1] = c.g;
        rgb[2] = c.b;
    }
    for (int i = 0; i < 3; i++)
        if (!isfinite(rgb[i]) || rgb[i] < 0) rgb[i] = 0;
        else if (rgb[i] > 1) rgb[i] = 1;
}

static void grow_bounds(float lo[3], float hi[3], const float p[3])
{
    for (int i = 0; i < 3; i++) {
        if (p[i] < lo[i]) lo[i] = p[i];
        if (p[i] > hi[i]) hi[i] = p[i];
    }
}

/* Counts the triangles and vertices under node, so that the arrays are allocated once. */
static int count(const walk *w, const struct aiNode *node, int depth, size_t *nv, size_t *ntri, size_t *nparts)
{
    if (depth > MAX_DEPTH)
        return sim_error_set(w->err, SIM_EINVAL, "%s: nodes nested deeper than %d", w->name, MAX_DEPTH);
    size_t before = *nv;
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        if (node->mMeshes[i] >= w->sc->mNumMeshes) continue;
        const struct aiMesh *mesh = w->sc->mMeshes[node->mMeshes[i]];
        if (!mesh || !(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        *nv += mesh->mNumVertices;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) *ntri += mesh->mFaces[f].mNumIndices == 3;
        if (*nv > SIM_MODEL_MAX_VERTICES)
            return sim_error_set(w->err, SIM_ETOOBIG, "%s: more than %d vertices", w->name, SIM_MODEL_MAX_VERTICES);
    }
    if (*nv > before) (*nparts)++;
    for (unsigned c = 0; c < node->mNumChildren; c++) {
        int rc = count(w, node->mChildren[c], depth + 1, nv, ntri, nparts);
        if (rc) return rc;
    }
    return SIM_OK;
}

/* Copies node's meshes as one part, under the node's transform g (glTF frame, from the
 * scene's root). */
static void add_node(walk *w, const struct aiNode *node, const struct aiMatrix4x4 *g)
{
    sim_model *m = w->m;
    sim_model_part part = {.first_vertex = m->nv, .first_index = m->ni,
                           .lo = {INFINITY, INFINITY, INFINITY}, .hi = {-INFINITY, -INFINITY, -INFINITY}};
    memcpy(part.name, node->mName.data, node->mName.length < sizeof part.name ? node->mName.length
                                                                              : sizeof part.name - 1);
    double t[3] = {g->a4, g->b4, g->c4};
    to_sim(t, part.pivot);
    /* normals go through the inverse transpose of the 3x3 part: its cofactor matrix
     * (the determinant's scale does not matter once normalised) */
    const double a[3][3] = {{g->a1, g->a2, g->a3}, {g->b1, g->b2, g->b3}, {g->c1, g->c2, g->c3}};
    double cof[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cof[i][j] = a[(i + 1) % 3][(j + 1) % 3] * a[(i + 2) % 3][(j + 2) % 3] -
                        a[(i + 1) % 3][(j + 2) % 3] * a[(i + 2) % 3][(j + 1) % 3];
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        if (node->mMeshes[i] >= w->sc->mNumMeshes) continue;
        const struct aiMesh *mesh = w->sc->mMeshes[node->mMeshes[i]];
        if (!mesh || !(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        float rgb[3];
        base_colour(w->sc, mesh->mMaterialIndex, rgb);
        int base = m->nv;
        for (unsigned k = 0; k < mesh->mNumVertices; k++) {
            sim_model_vertex *v = &m->v[m->nv++];
            const struct aiVector3D *p = &mesh->mVertices[k];
            double q[3], n[3] = {0, 0, 1}, model_pos[3];
            for (int r = 0; r < 3; r++) q[r] = a[r][0] * p->x + a[r][1] * p->y + a[r][2] * p->z;
            to_sim(q, v->pos);
            if (mesh->mNormals) {
                const struct aiVector3D *nn = &mesh->mNormals[k];
                double len = 0;
                for (int r = 0; r < 3; r++) {
                    n[r] = cof[r][0] * nn->x + cof[r][1] * nn->y + cof[r][2] * nn->z;
                    len += n[r] * n[r];
                }
                len = sqrt(len);
                if (len > 1e-12 && isfinite(len))
                    for (int r = 0; r < 3; r++) n[r] /= len;
                else
                    n[0] = n[1] = 0, n[2] = 1;
            }
            to_sim(n, v->normal);
            memcpy(v->color, rgb, sizeof rgb);
            if (mesh->mColors[0])
                for (int r = 0; r < 3; r++) {
                    float c = (&mesh->mColors[0][k].r)[r];
                    v->color[r] *= isfinite(c) && c >= 0 ? (c > 1 ? 1 : c) : 0;
                }
            for (int r = 0; r < 3; r++) model_pos[r] = v->pos[r] + part.pivot[r];
            float mp[3] = {(float)model_pos[0], (float)model_pos[1], (float)model_pos[2]};
            grow_bounds(part.lo, part.hi, mp);
        }
        for (unsigned f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3) continue;
            bool ok = true;
            for (int c = 0; c < 3; c++) ok = ok && face->mIndices[c] < mesh->mNumVertices;
            if (!ok) continue; /* assimp validates indices; a bad one is dropped, not drawn */
            for (int c = 0; c < 3; c++) m->idx[m->ni++] = (uint32_t)(base + (int)face->mIndices[c]);
        }
    }
    part.n_vertices = m->nv - part.first_vertex;
    part.n_indices = m->ni - part.first_index;
    if (part.n_vertices > 0) {
        m->parts[m->n_parts++] = part;
        grow_bounds(m->lo, m->hi, part.lo);
        grow_bounds(m->lo, m->hi, part.hi);
    }
}

static void walk_nodes(walk *w, const struct aiNode *node, const struct aiMatrix4x4 *parent)
{
    struct aiMatrix4x4 g;
    mat_mul(parent, &node->mTransformation, &g);
    add_node(w, node, &g);
    for (unsigned c = 0; c < node->mNumChildren; c++) walk_nodes(w, node->mChildren[c], &g);
}

static int from_scene(const struct aiScene *sc, const char *name, sim_model *out, sim_error *err)
{
    walk w = {.sc = sc, .m = out, .name = name, .err = err};
    size_t nv = 0, ntri = 0, nparts = 0;
    if (!sc->mRootNode)
        return sim_error_set(err, SIM_EINVAL, "%s: the model has no nodes", name);
    int rc = count(&w, sc->mRootNode, 0, &nv, &ntri, &nparts);
    if (rc) return rc;
    if (ntri == 0)
        return sim_error_set(err, SIM_EINVAL, "%s: the model has no triangles", name);
    out->v = malloc(nv * sizeof *out->v);
    out->idx = malloc(3 * ntri * sizeof *out->idx);
    out->parts = calloc(nparts, sizeof *out->parts);
    if (!out->v || !out->idx || !out->parts) {
        sim_model_free(out);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory for %zu vertices", name, nv);
    }
    for (int i = 0; i < 3; i++) out->lo[i] = INFINITY, out->hi[i] = -INFINITY;
    struct aiMatrix4x4 id = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    walk_nodes(&w, sc->mRootNode, &id);
    if (out->ni == 0) {
        sim_model_free(out);
        return sim_error_set(err, SIM_EINVAL, "%s: the model has no valid triangles", name);
    }
    return SIM_OK;
}

/* A binary glTF's chunk lengths checked against the bytes there are: libassimp
 * 5.2 allocates what the JSON chunk's length says before reading it (4 GB for one
 * flipped byte, found by fuzz/fuzz_model.c). head: the first bytes (at least 20 when
 * the file has them), total: the file's size. Other data passes unchecked. */
static int glb_check(const unsigned char *head, size_t n_head, size_t total, const char *name, sim_error *err)
{
    if (n_head < 4 || memcmp(head, "glTF", 4) != 0) return SIM_OK;
    if (n_head < 20)
        return sim_error_set(err, SIM_EINVAL, "%s: a binary glTF cut short (%zu bytes)", name, total);
    uint32_t declared = (uint32_t)head[8] | (uint32_t)head[9] << 8 | (uint32_t)head[10] << 16 | (uint32_t)head[11] << 24;
    uint32_t json = (uint32_t)head[12] | (uint32_t)head[13] << 8 | (uint32_t)head[14] << 16 | (uint32_t)head[15] << 24;
    if (declared > total || json > total - 20)
        return sim_error_set(err, SIM_EINVAL, "%s: a binary glTF whose header claims %u bytes (JSON chunk %u) in %zu",
                             name, declared, json, total);
    return SIM_OK;
}

static int import_failed(const char *name, sim_error *err)
{
    const char *why = aiGetErrorString();
    return sim_error_set(err, SIM_EINVAL, "%s: not a model libassimp reads (%s)", name,
                         why && *why ? why : "no reason given");
}

int sim_model_load(const char *path, sim_model *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    /* assimp's "unable to open" is told apart from a bad file by opening it first */
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_error_set(err, SIM_EIO, "%s: cannot read the model (%s)", path, strerror(errno));
    unsigned char head[20];
    size_t n_head = fread(head, 1, sizeof head, f);
    long total = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    fclose(f);
    int rc = total < 0 ? sim_error_set(err, SIM_EIO, "%s: cannot read the model", path)
                       : glb_check(head, n_head, (size_t)total, path, err);
    if (rc) return rc;
    const struct aiScene *sc = aiImportFile(path, IMPORT_FLAGS);
    if (!sc) return import_failed(path, err);
    rc = from_scene(sc, path, out, err);
    aiReleaseImport(sc);
    return rc;
}

int sim_model_load_memory(const void *data, size_t len, const char *hint, const char *name, sim_model *out,
                          sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (!data || len == 0 || len > 0x7fffffffu)
        return sim_error_set(err, SIM_EINVAL, "%s: empty or oversized model data (%zu bytes)", name, len);
    int rc = glb_check(data, len < 20 ? len : 20, len, name, err);
    if (rc) return rc;
    const struct aiScene *sc = aiImportFileFromMemory(data, (unsigned)len, IMPORT_FLAGS, hint ? hint : "");
    if (!sc) return import_failed(name, err);
    rc = from_scene(sc, name, out, err);
    aiReleaseImport(sc);
    return rc;
}

void sim_model_free(sim_model *m)
{
    free(m->v);
    free(m->idx);
    free(m->parts);
    memset(m, 0, sizeof *m);
}

const sim_model_part *sim_model_part_find(const sim_model *m, const char *name)
{
    for (int i = 0; i < m->n_parts; i++)
        if (strcmp(m->parts[i].name, name) == 0) return &m->parts[i];
    return NULL;
}
