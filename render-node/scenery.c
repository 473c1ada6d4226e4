/* scenery: roadside objects drawn instanced by kind (scenery.h). */
#include "scenery.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "materials.h"
#include "sim_model.h"
#include "sim_scenario_objects.h"
#include "sim_scenery.h"

#define INST_FLOATS 11 /* pose 4, size 4, tint 3 */

static const float bark[3] = {0.36f, 0.26f, 0.17f}, leaf[3] = {0.20f, 0.38f, 0.14f}, leaf2[3] = {0.16f, 0.32f, 0.12f},
                   white[3] = {0.92f, 0.92f, 0.90f}, black[3] = {0.05f, 0.05f, 0.05f},
                   amber[3] = {0.95f, 0.55f, 0.05f}, steel[3] = {0.62f, 0.64f, 0.66f},
                   concrete[3] = {0.70f, 0.69f, 0.66f}, wall[3] = {0.80f, 0.74f, 0.64f},
                   roof[3] = {0.45f, 0.22f, 0.17f}, glass[3] = {0.22f, 0.28f, 0.34f}, pole[3] = {0.45f, 0.47f, 0.50f},
                   lamp[3] = {1.0f, 0.95f, 0.8f}, grey[3] = {0.6f, 0.6f, 0.6f},
                   sign_blue[3] = {0.05f, 0.22f, 0.62f};

static void box(gfx_builder *b, double x0, double y0, double z0, double x1, double y1, double z1, const float c[3])
{
    gfx_box(b, (double[3]){x0, y0, z0}, (double[3]){x1, y1, z1}, c);
}

/* A frustum of n sides from radius r0 at z0 to r1 at z1 (r1 = 0: a cone), with its
 * bottom cap. Normals per face, so the crown looks faceted like a low-poly tree. */
static void frustum(gfx_builder *b, int n, double r0, double z0, double r1, double z1, double turn, const float c[3])
{
    for (int i = 0; i < n; i++) {
        double a = turn + 2 * M_PI * i / n, e = turn + 2 * M_PI * (i + 1) / n;
        double p0[3] = {r0 * cos(a), r0 * sin(a), z0}, p1[3] = {r0 * cos(e), r0 * sin(e), z0};
        double p2[3] = {r1 * cos(e), r1 * sin(e), z1}, p3[3] = {r1 * cos(a), r1 * sin(a), z1};
        gfx_quad(b, (const double[4][3]){{p0[0], p0[1], p0[2]}, {p1[0], p1[1], p1[2]}, {p2[0], p2[1], p2[2]},
                                         {p3[0], p3[1], p3[2]}}, c);
        double bot[3][3] = {{0, 0, z0}, {p1[0], p1[1], z0}, {p0[0], p0[1], z0}};
        double n_down[3] = {0, 0, -1};
        int k = gfx_vertex_add(b, bot[0], n_down, c);
        gfx_vertex_add(b, bot[1], n_down, c);
        gfx_vertex_add(b, bot[2], n_down, c);
        gfx_tri(b, k, k + 1, k + 2);
    }
}

/* The unit mesh of each kind (scenery.h: x along, y across, z up, height 1). */
static void build_kind(gfx_builder *b, sim_object_kind k)
{
    switch (k) {
    case SIM_OBJ_TREE:
        box(b, -0.05, -0.05, 0, 0.05, 0.05, 0.35, bark);
        frustum(b, 7, 0.5, 0.25, 0.38, 0.6, 0, leaf);
        frustum(b, 7, 0.38, 0.6, 0.0, 1.0, 0.4, leaf2);
        break;
    case SIM_OBJ_BUSH:
        frustum(b, 6, 0.42, 0, 0.5, 0.45, 0, leaf);
        frustum(b, 6, 0.5, 0.45, 0.15, 1.0, 0.5, leaf2);
        break;
    case SIM_OBJ_DELINEATOR:
        /* the German post: white, a black band near the top, a reflector facing traffic */
        box(b, -0.5, -0.5, 0, 0.5, 0.5, 0.72, white);
        box(b, -0.5, -0.5, 0.72, 0.5, 0.5, 0.95, black);
        box(b, -0.5, -0.5, 0.95, 0.5, 0.5, 1.0, white);
        box(b, 0.5, -0.3, 0.78, 0.56, 0.3, 0.88, amber);
        break;
    case SIM_OBJ_GUARD_RAIL:
        box(b, 0, -0.5, 0.7, 1, 0.5, 1.0, steel);
        box(b, 0, -0.2, 0, 0.03, 0.2, 0.85, pole);
        break;
    case SIM_OBJ_BARRIER:
        box(b, 0, -0.5, 0, 1, 0.5, 0.2, concrete);
        box(b, 0, -0.25, 0.2, 1, 0.25, 1.0, concrete);
        break;
    case SIM_OBJ_KERB:
        box(b, 0, -0.5, 0, 1, 0.5, 1, concrete);
        break;
    case SIM_OBJ_BUILDING:
        /* window bands on the four walls, a hand's breadth proud of them; drawn before
         * the walls, so that the wall behind a window fails the depth test unshaded */
        for (double z = 0.12; z < 0.9; z += 0.2) {
            box(b, -0.505, -0.42, z, 0.505, 0.42, z + 0.08, glass);
            box(b, -0.42, -0.505, z, 0.42, 0.505, z + 0.08, glass);
        }
        box(b, -0.5, -0.5, 0, 0.5, 0.5, 0.95, wall);
        box(b, -0.52, -0.52, 0.95, 0.52, 0.52, 1.0, roof);
        break;
    case SIM_OBJ_STREET_LIGHT:
        box(b, -0.05, -0.4, 0, 0.05, 0.4, 1.0, pole);
        box(b, 0, -0.3, 0.96, 1.0, 0.3, 1.0, pole);
        box(b, 0.8, -0.6, 0.94, 1.05, 0.6, 0.97, lamp);
        break;
    case SIM_OBJ_POLE:
        box(b, -0.3, -0.08, 0, 0.3, 0.08, 0.7, pole);
        box(b, -0.5, -0.5, 0.7, 0.5, 0.5, 1.0, white);
        break;
    case SIM_OBJ_GANTRY:
        /* a sign bridge (sim_scenery.c: 1 m deep, the span wide, 7 m high): a post at
         * each end, a truss along the top, and a blue board over each half facing its
         * traffic (the right half's, driving along +x, sees the -x face), its lower
         * edge at 0.68 of the height; two white bands stand for its lettering */
        box(b, -0.25, -0.5, 0, 0.25, -0.48, 1, steel);
        box(b, -0.25, 0.48, 0, 0.25, 0.5, 1, steel);
        box(b, -0.25, -0.5, 0.88, 0.25, 0.5, 0.98, steel);
        for (int side = -1; side <= 1; side += 2) {
            /* x outwards from the truss: the board's grey back, its blue face, the bands */
            double y0 = side < 0 ? -0.44 : 0.06, y1 = y0 + 0.38, f = side; /* the face looks to -x on the right */
            box(b, fmin(0.26 * f, 0.3 * f), y0, 0.68, fmax(0.26 * f, 0.3 * f), y1, 0.97, steel);
            box(b, fmin(0.3 * f, 0.32 * f), y0, 0.68, fmax(0.3 * f, 0.32 * f), y1, 0.97, sign_blue);
            box(b, fmin(0.32 * f, 0.33 * f), y0 + 0.06, 0.87, fmax(0.32 * f, 0.33 * f), y1 - 0.06, 0.9, white);
            box(b, fmin(0.32 * f, 0.33 * f), y0 + 0.06, 0.77, fmax(0.32 * f, 0.33 * f), y1 - 0.16, 0.8, white);
        }
        break;
    default:
        box(b, -0.5, -0.5, 0, 0.5, 0.5, 1, grey);
        break;
    }
}

/* Small things are drawn to a third of the range: at 1280 x 720 a 0.12 m post is under
 * a pixel wide beyond 150 m. */
static double kind_range(sim_object_kind k, double range)
{
    switch (k) {
    case SIM_OBJ_DELINEATOR:
    case SIM_OBJ_KERB:
    case SIM_OBJ_BUSH:
    case SIM_OBJ_POLE:
        return range / 3;
    case SIM_OBJ_GUARD_RAIL:
    case SIM_OBJ_BARRIER:
    case SIM_OBJ_STREET_LIGHT:
        return range / 2;
    default:
        return range;
    }
}

static int upload_kind(rn_scenery_kind *k, const gfx_builder *b)
{
    if (b->failed)
        return SIM_ENOMEM;
    glGenVertexArrays(1, &k->vao);
    glBindVertexArray(k->vao);
    glGenBuffers(1, &k->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, k->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)b->nv * (GLsizeiptr)sizeof *b->v, b->v, GL_STATIC_DRAW);
    for (int a = 0; a < 3; a++) {
        glEnableVertexAttribArray((GLuint)a);
        glVertexAttribPointer((GLuint)a, 3, GL_FLOAT, GL_FALSE, sizeof(gfx_vertex), (void *)(uintptr_t)(a * 12));
    }
    glGenBuffers(1, &k->ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, k->ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)b->ni * 4, b->idx, GL_STATIC_DRAW);
    glGenBuffers(1, &k->inst);
    glBindBuffer(GL_ARRAY_BUFFER, k->inst);
    const int stride = INST_FLOATS * 4;
    glEnableVertexAttribArray(3);
    glVertexAttribPointer(3, 4, GL_FLOAT, GL_FALSE, stride, (void *)0);
    glVertexAttribDivisor(3, 1);
    glEnableVertexAttribArray(4);
    glVertexAttribPointer(4, 4, GL_FLOAT, GL_FALSE, stride, (void *)16);
    glVertexAttribDivisor(4, 1);
    glEnableVertexAttribArray(5);
    glVertexAttribPointer(5, 3, GL_FLOAT, GL_FALSE, stride, (void *)32);
    glVertexAttribDivisor(5, 1);
    glBindVertexArray(0);
    k->n_index = b->ni;
    return SIM_OK;
}

/* Extruded footprints: walls from z to z + height, a flat top (a fan, fine for the
 * convex outlines OpenDRIVE objects mostly have). */
static void outline_mesh(gfx_builder *b, const sim_world_object *o)
{
    int n = o->n_outline;
    for (int i = 0; i < n; i++) {
        const double *p = &o->outline[2 * i], *q = &o->outline[2 * ((i + 1) % n)];
        double quad[4][3] = {{p[0], p[1], o->z}, {q[0], q[1], o->z}, {q[0], q[1], o->z + o->height},
                             {p[0], p[1], o->z + o->height}};
        gfx_quad(b, quad, grey);
    }
    double up[3] = {0, 0, 1};
    int k0 = b->nv;
    for (int i = 0; i < n; i++)
        gfx_vertex_add(b, (double[3]){o->outline[2 * i], o->outline[2 * i + 1], o->z + o->height}, up, grey);
    for (int i = 1; i + 1 < n; i++)
        gfx_tri(b, k0, k0 + i, k0 + i + 1);
}

static int by_kind(const void *a, const void *b)
{
    const sim_world_object *x = a, *y = b;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    return x->x < y->x ? -1 : x->x > y->x; /* a fixed order within a kind */
}

/* A model file as a kind's unit mesh: its bounds mapped onto the unit box (x, y to
 * [-0.5, 0.5] about their middle, z from its lowest point to [0, 1]), so that an
 * instance's length, width and height size it as they size the built-in shape; the
 * normals go through the inverse of that scaling (renormalised in the shader). */
static int model_mesh(gfx_builder *b, const char *path, sim_error *err)
{
    sim_model m = {0};
    int rc = sim_model_load(path, &m, err);
    if (rc) return rc;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int p = 0; p < m.n_parts; p++)
        for (int i = m.parts[p].first_vertex; i < m.parts[p].first_vertex + m.parts[p].n_vertices; i++)
            for (int k = 0; k < 3; k++) {
                double x = (double)m.v[i].pos[k] + m.parts[p].pivot[k];
                lo[k] = fmin(lo[k], x);
                hi[k] = fmax(hi[k], x);
            }
    double ext[3], mid[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]};
    for (int k = 0; k < 3; k++) ext[k] = hi[k] - lo[k];
    if (!(ext[0] > 1e-6 && ext[1] > 1e-6 && ext[2] > 1e-6)) {
        sim_model_free(&m);
        return sim_error_set(err, SIM_EINVAL, "%s: the model is flat (%.3g x %.3g x %.3g m)", path, ext[0], ext[1],
                             ext[2]);
    }
    for (int p = 0; p < m.n_parts; p++)
        for (int i = m.parts[p].first_vertex; i < m.parts[p].first_vertex + m.parts[p].n_vertices; i++) {
            double pos[3], n[3];
            for (int k = 0; k < 3; k++) {
                pos[k] = ((double)m.v[i].pos[k] + m.parts[p].pivot[k] - mid[k]) / ext[k];
                n[k] = (double)m.v[i].normal[k] * ext[k];
            }
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int k = 0; k < 3 && len > 0; k++) n[k] /= len;
            gfx_vertex_add(b, pos, n, m.v[i].color);
        }
    for (int i = 0; i + 2 < m.ni; i += 3)
        gfx_tri(b, (int)m.idx[i], (int)m.idx[i + 1], (int)m.idx[i + 2]);
    sim_model_free(&m);
    return b->failed ? sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path) : SIM_OK;
}

static void kind_free(rn_scenery_kind *m)
{
    if (m->vao) glDeleteVertexArrays(1, &m->vao);
    GLuint bufs[3] = {m->vbo, m->ibo, m->inst};
    for (int i = 0; i < 3; i++)
        if (bufs[i]) glDeleteBuffers(1, &bufs[i]);
    memset(m, 0, sizeof *m);
}

int rn_scenery_use_models(rn_scenery *s, const char *dir, sim_error *err)
{
    static const struct { sim_object_kind kind; const char *name; } from_file[] = {
        {SIM_OBJ_TREE, "tree"}, {SIM_OBJ_BUILDING, "building"},
    };
    int loaded = 0, rc = SIM_OK;
    for (size_t i = 0; i < sizeof from_file / sizeof *from_file; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.glb", dir ? dir : "models", from_file[i].name);
        gfx_builder b = {0};
        sim_error why = {0};
        rn_scenery_kind fresh = {0};
        int r = model_mesh(&b, path, &why);
        if (r == SIM_OK) r = upload_kind(&fresh, &b);
        gfx_builder_free(&b);
        if (r == SIM_OK) {
            kind_free(&s->kinds[from_file[i].kind]);
            s->kinds[from_file[i].kind] = fresh;
            s->from_model[from_file[i].kind] = true;
            loaded++;
            continue;
        }
        kind_free(&fresh);
        fprintf(stderr, "render-node: scenery: %s; the built-in %s stands in\n",
                why.msg[0] ? why.msg : "out of memory", from_file[i].name);
        if (rc == SIM_OK) rc = sim_error_set(err, r, "%s", why.msg[0] ? why.msg : "out of memory");
    }
    return rc == SIM_OK ? loaded : rc;
}

int rn_scenery_init(rn_scenery *s, const sim_scenario *sc, sim_error *err)
{
    memset(s, 0, sizeof *s);
    s->range = 400;
    s->u_material = -1;
    /* the same list the physics node makes its obstacles of */
    int rc = sim_scenario_objects(sc, &s->list);
    /* by kind, so that a frame walks each kind's run once */
    if (s->list.n > 1)
        qsort(s->list.items, (size_t)s->list.n, sizeof *s->list.items, by_kind);
    for (int i = 0; i < s->list.n; i++) {
        int k = s->list.items[i].kind;
        if (!s->kind_count[k]) s->kind_first[k] = i;
        s->kind_count[k]++;
    }
    gfx_builder ob = {0};
    for (int i = 0; rc >= 0 && i < s->list.n; i++)
        if (s->list.items[i].n_outline >= 3)
            outline_mesh(&ob, &s->list.items[i]);
    for (int k = 0; rc >= 0 && k < SIM_OBJ_KIND_COUNT; k++) {
        gfx_builder b = {0};
        build_kind(&b, (sim_object_kind)k);
        rc = upload_kind(&s->kinds[k], &b);
        gfx_builder_free(&b);
    }
    if (rc >= 0)
        rc = gfx_mesh_upload(&s->outlines, &ob, err);
    gfx_builder_free(&ob);
    if (rc < 0) {
        rn_scenery_free(s);
        return sim_error_set(err, SIM_ENOMEM, "scenery: out of memory");
    }
    return SIM_OK;
}

void rn_scenery_free(rn_scenery *s)
{
    for (int k = 0; k < SIM_OBJ_KIND_COUNT; k++)
        kind_free(&s->kinds[k]);
    gfx_mesh_free(&s->outlines);
    sim_object_list_free(&s->list);
    free(s->scratch);
    free(s->order);
    memset(s, 0, sizeof *s);
}

/* A tint per object from its place: trees and buildings differ from their neighbours
 * the same way in every frame and every run. */
static void tint(const sim_world_object *o, float out[3])
{
    unsigned h = (unsigned)(int)floor(o->x * 7.0) * 73856093u ^ (unsigned)(int)floor(o->y * 7.0) * 19349663u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    float a = (float)(h & 255) / 255, b = (float)((h >> 8) & 255) / 255;
    if (o->kind == SIM_OBJ_BUILDING) {
        /* plaster colours: white, sand, ochre, pale grey-blue */
        out[0] = 0.85f + 0.2f * a - 0.15f * b;
        out[1] = 0.85f + 0.1f * a;
        out[2] = 0.8f + 0.25f * b - 0.1f * a;
    } else if (o->kind == SIM_OBJ_TREE || o->kind == SIM_OBJ_BUSH) {
        out[0] = 0.8f + 0.4f * a;
        out[1] = 0.85f + 0.3f * b;
        out[2] = 0.8f + 0.2f * a;
    } else {
        out[0] = out[1] = out[2] = 1;
    }
}

static int by_distance(const void *a, const void *b)
{
    const rn_scenery_order *x = a, *y = b;
    return x->d < y->d ? -1 : x->d > y->d;
}

void rn_scenery_draw(rn_scenery *s, const sim_camera *cam, const sim_frustum *f)
{
    s->draw_calls = 0;
    s->triangles = s->instances = 0;
    if (s->range <= 0 || !s->list.n)
        return;
    if (s->cap_scratch < s->list.n) {
        /* two halves: instances as found, then sorted by distance */
        float *p = realloc(s->scratch, (size_t)s->list.n * 2 * INST_FLOATS * sizeof *p);
        if (!p)
            return;
        s->scratch = p;
        void *o = realloc(s->order, (size_t)s->list.n * sizeof *s->order);
        if (!o)
            return;
        s->order = o;
        s->cap_scratch = s->list.n;
    }
    /* the unit meshes are closed and wound outwards: their back faces never show */
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glFrontFace(cam->mirrored ? GL_CW : GL_CCW); /* a mirror's projection reverses the winding */
    for (int k = 0; k < SIM_OBJ_KIND_COUNT; k++) {
        double r = kind_range((sim_object_kind)k, s->range), r2 = r * r;
        int n = 0;
        for (int i = s->kind_first[k]; i < s->kind_first[k] + s->kind_count[k]; i++) {
            const sim_world_object *o = &s->list.items[i];
            if (o->n_outline >= 3)
                continue;
            bool segment = k == SIM_OBJ_GUARD_RAIL || k == SIM_OBJ_BARRIER || k == SIM_OBJ_KERB;
            double c = cos(o->heading), sn = sin(o->heading);
            double cx = o->x + (segment ? c * o->length / 2 : 0), cy = o->y + (segment ? sn * o->length / 2 : 0);
            double dx = cx - cam->eye[0], dy = cy - cam->eye[1];
            if (dx * dx + dy * dy > r2)
                continue;
            double rad = 0.5 * hypot(o->length, o->width);
            double lo[3] = {cx - rad, cy - rad, o->z}, hi[3] = {cx + rad, cy + rad, o->z + o->height};
            if (f && !sim_frustum_box_visible(f, lo, hi))
                continue;
            float *v = &s->scratch[n * INST_FLOATS];
            s->order[n].d = dx * dx + dy * dy;
            s->order[n].slot = n;
            v[0] = (float)o->x, v[1] = (float)o->y, v[2] = (float)o->z, v[3] = (float)o->heading;
            v[4] = (float)o->length, v[5] = (float)o->width, v[6] = (float)o->height, v[7] = 0;
            tint(o, &v[8]);
            n++;
        }
        if (!n)
            continue;
        /* near ones first: llvmpipe shades only what passes the depth test, and a street
         * of buildings seen along its length overlaps itself many times */
        qsort(s->order, (size_t)n, sizeof *s->order, by_distance);
        float *sorted = s->scratch + (size_t)s->list.n * INST_FLOATS;
        for (int j = 0; j < n; j++)
            memcpy(&sorted[j * INST_FLOATS], &s->scratch[s->order[j].slot * INST_FLOATS], INST_FLOATS * sizeof *sorted);
        rn_scenery_kind *m = &s->kinds[k];
        bool cement = k == SIM_OBJ_KERB || k == SIM_OBJ_BARRIER || k == SIM_OBJ_BOX;
        if (cement) {
            if (s->prog_detail)
                glUseProgram(s->prog_detail);
            glUniform1i(s->u_material, RN_MAT_CONCRETE);
        }
        glBindBuffer(GL_ARRAY_BUFFER, m->inst);
        /* orphaned every frame: the driver need not wait for the last frame's draw */
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)n * INST_FLOATS * 4, sorted, GL_STREAM_DRAW);
        glBindVertexArray(m->vao);
        glDrawElementsInstanced(GL_TRIANGLES, m->n_index, GL_UNSIGNED_INT, 0, n);
        s->draw_calls++;
        s->triangles += (long)m->n_index / 3 * n;
        s->instances += n;
        if (cement) {
            glUniform1i(s->u_material, RN_MAT_NONE);
            if (s->prog_detail)
                glUseProgram(s->prog);
        }
    }
    glBindVertexArray(0);
    glDisable(GL_CULL_FACE);
    glFrontFace(GL_CCW);
}

void rn_scenery_draw_outlines(rn_scenery *s, const sim_frustum *f)
{
    if (s->outlines.n_index && (!f || sim_frustum_box_visible(f, s->outlines.lo, s->outlines.hi))) {
        gfx_mesh_draw(&s->outlines);
        s->draw_calls++;
    }
}

int rn_scenery_lamps(const rn_scenery *s, const sim_camera *cam, float *xyz, int max)
{
    double best[16];
    int n = 0;
    if (max > 16)
        max = 16;
    const int k = SIM_OBJ_STREET_LIGHT;
    for (int i = s->kind_first[k]; i < s->kind_first[k] + s->kind_count[k]; i++) {
        const sim_world_object *o = &s->list.items[i];
        /* the head: at the arm's end, under its top (the unit mesh's lamp) */
        double p[3] = {o->x + cos(o->heading) * 0.9 * o->length, o->y + sin(o->heading) * 0.9 * o->length,
                       o->z + 0.94 * o->height};
        double d[3] = {p[0] - cam->eye[0], p[1] - cam->eye[1], p[2] - cam->eye[2]};
        double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        double along = d[0] * cam->forward[0] + d[1] * cam->forward[1] + d[2] * cam->forward[2];
        if (d2 > 150.0 * 150.0 || along < -20)
            continue;
        /* insertion into the nearest `max` */
        int j = n < max ? n++ : max;
        if (j == max && d2 >= best[max - 1])
            continue;
        if (j == max)
            j = max - 1;
        while (j > 0 && best[j - 1] > d2) {
            best[j] = best[j - 1];
            memcpy(&xyz[3 * j], &xyz[3 * (j - 1)], 3 * sizeof *xyz);
            j--;
        }
        best[j] = d2;
        for (int a = 0; a < 3; a++)
            xyz[3 * j + a] = (float)p[a];
    }
    return n;
}
