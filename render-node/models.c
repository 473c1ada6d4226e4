/* models: vehicles drawn from model files (models.h). */
#include "models.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_model.h"

/* The car models "car" stands for, picked by the vehicle's id hash. */
static const char *const car_variants[] = {"hatchback", "sedan", "estate", "suv"};
#define N_CAR_VARIANTS (int)(sizeof car_variants / sizeof *car_variants)

void rn_models_init(rn_models *ms, GLuint prog, const char *dir)
{
    memset(ms, 0, sizeof *ms);
    ms->dir = strdup(dir ? dir : "models");
    ms->ego = ms->cockpit = -1;
    ms->u_model = glGetUniformLocation(prog, "u_model");
    ms->u_tint = glGetUniformLocation(prog, "u_tint");
    ms->u_tint_on = glGetUniformLocation(prog, "u_tint_on");
    ms->u_emissive = glGetUniformLocation(prog, "u_emissive");
}

void rn_models_free(rn_models *ms)
{
    for (int i = 0; i < ms->n; i++) {
        gfx_mesh_free(&ms->items[i].mesh);
        free(ms->items[i].key);
        free(ms->items[i].path);
    }
    free(ms->items);
    free(ms->dir);
    memset(ms, 0, sizeof *ms);
    ms->ego = ms->cockpit = -1;
}

int rn_models_set_dir(rn_models *ms, const char *dir)
{
    char *d = strdup(dir);
    if (!d) return SIM_ENOMEM;
    free(ms->dir);
    ms->dir = d;
    return SIM_OK;
}

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The group a part's name puts it in; -1 for a wheel. */
static int group_of(const char *name)
{
    if (starts(name, "wheel_")) return -1;
    if (strcmp(name, "lamp_brake") == 0) return RN_GROUP_BRAKE;
    if (strcmp(name, "lamp_head") == 0) return RN_GROUP_HEAD;
    if (strcmp(name, "lamp_indicator_left") == 0) return RN_GROUP_IND_LEFT;
    if (strcmp(name, "lamp_indicator_right") == 0) return RN_GROUP_IND_RIGHT;
    if (starts(name, "paint")) return RN_GROUP_PAINT;
    if (starts(name, "bonnet")) return RN_GROUP_BONNET;
    return RN_GROUP_FIXED;
}

static char *model_path(const rn_models *ms, const char *name)
{
    if (strchr(name, '/') || ends(name, ".glb") || ends(name, ".gltf")) return strdup(name);
    size_t n = strlen(ms->dir) + strlen(name) + 6;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s.glb", ms->dir, name);
    return p;
}

/* Uploads m as one buffer: the parts' vertices (all but the wheels' moved to the
 * model frame), indices grouped so that each group and each wheel is one range. */
static int upload(rn_model *out, const sim_model *m, sim_error *err)
{
    gfx_builder b = {0};
    for (int p = 0; p < m->n_parts; p++) {
        const sim_model_part *part = &m->parts[p];
        bool wheel = group_of(part->name) < 0;
        for (int i = part->first_vertex; i < part->first_vertex + part->n_vertices; i++) {
            const sim_model_vertex *v = &m->v[i];
            double pos[3], n[3] = {v->normal[0], v->normal[1], v->normal[2]};
            for (int k = 0; k < 3; k++) pos[k] = v->pos[k] + (wheel ? 0 : part->pivot[k]);
            gfx_vertex_add(&b, pos, n, v->color);
        }
    }
    /* one pass per group, then the wheels one by one */
    for (int g = -1; g < RN_GROUP_COUNT; g++) {
        int start = b.ni;
        for (int p = 0; p < m->n_parts; p++) {
            const sim_model_part *part = &m->parts[p];
            int pg = group_of(part->name);
            if ((g < 0) != (pg < 0) || (g >= 0 && pg != g)) continue;
            if (g < 0 && out->n_wheels == RN_MODEL_MAX_WHEELS) continue; /* a 17th wheel is not drawn */
            int wstart = b.ni;
            for (int i = part->first_index; i < part->first_index + part->n_indices; i += 3)
                gfx_tri(&b, (int)m->idx[i], (int)m->idx[i + 1], (int)m->idx[i + 2]);
            if (g < 0) {
                rn_model_wheel *w = &out->wheels[out->n_wheels++];
                memcpy(w->pivot, part->pivot, sizeof w->pivot);
                w->steers = starts(part->name, "wheel_f");
                w->r = (rn_range){wstart, b.ni - wstart};
                double r = 0;
                for (int i = part->first_vertex; i < part->first_vertex + part->n_vertices; i++)
                    r = fmax(r, hypot(m->v[i].pos[0], m->v[i].pos[2]));
                out->wheel_radius = fmax(out->wheel_radius, r);
            }
        }
        if (g >= 0) out->group[g] = (rn_range){start, b.ni - start};
    }
    /* the groups lie one after the other: drawing runs of them relies on it */
    for (int g = 1; g < RN_GROUP_COUNT; g++)
        assert(out->group[g].first == out->group[g - 1].first + out->group[g - 1].count);
    const float *paint = NULL, *bonnet = NULL;
    for (int p = 0; p < m->n_parts; p++) {
        int g = group_of(m->parts[p].name);
        if (g == RN_GROUP_PAINT && !paint) paint = m->v[m->parts[p].first_vertex].color;
        if (g == RN_GROUP_BONNET && !bonnet) bonnet = m->v[m->parts[p].first_vertex].color;
    }
    out->bonnet_painted = paint && bonnet && memcmp(paint, bonnet, 3 * sizeof *paint) == 0;
    double front = -INFINITY, rear = INFINITY;
    for (int i = 0; i < out->n_wheels; i++) {
        front = fmax(front, out->wheels[i].pivot[0]);
        rear = fmin(rear, out->wheels[i].pivot[0]);
    }
    out->wheelbase = out->n_wheels >= 2 ? front - rear : 0;
    memcpy(out->lo, m->lo, sizeof out->lo);
    memcpy(out->hi, m->hi, sizeof out->hi);
    out->triangles = b.ni / 3;
    int rc = gfx_mesh_upload(&out->mesh, &b, err);
    gfx_builder_free(&b);
    return rc;
}

/* A plain model name: letters, digits, '-', '_' (no path, no dot). */
static bool plain_name(const char *name)
{
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
              *c == '_'))
            return false;
    return true;
}

int rn_models_get(rn_models *ms, const char *name, bool paths, unsigned key, sim_error *err)
{
    if (!name || !*name) name = "car";
    if (strcmp(name, "car") == 0) name = car_variants[(key ^ (key >> 11)) % N_CAR_VARIANTS];
    if (!paths && !plain_name(name))
        return sim_error_set(err, SIM_EINVAL, "model \"%.40s\": expected a name of letters, digits, '-' or '_'",
                             name);
    for (int i = 0; i < ms->n; i++)
        if (strcmp(ms->items[i].key, name) == 0) {
            if (!ms->items[i].failed) return i;
            sim_error_set(err, SIM_EINVAL, "%s: could not be loaded (drawn as a box)", ms->items[i].path);
            return -1;
        }
    if (ms->n >= RN_MODELS_MAX)
        return sim_error_set(err, SIM_ETOOBIG, "model %s: more than %d model names seen", name, RN_MODELS_MAX);
    if (ms->n == ms->cap) {
        int cap = ms->cap ? 2 * ms->cap : 16;
        rn_model *items = realloc(ms->items, (size_t)cap * sizeof *items);
        if (!items) return sim_error_set(err, SIM_ENOMEM, "out of memory for models");
        ms->items = items;
        ms->cap = cap;
    }
    rn_model *md = &ms->items[ms->n];
    memset(md, 0, sizeof *md);
    md->key = strdup(name);
    md->path = model_path(ms, name);
    if (!md->key || !md->path) {
        free(md->key);
        free(md->path);
        return sim_error_set(err, SIM_ENOMEM, "out of memory for a model's name");
    }
    ms->n++;
    sim_model m;
    sim_error e = {0};
    int rc = sim_model_load(md->path, &m, &e);
    if (!rc) {
        rc = upload(md, &m, &e);
        sim_model_free(&m);
    }
    if (rc) {
        md->failed = true;
        ms->failures++;
        fprintf(stderr, "render-node: %s (drawn as a box)\n", e.msg);
        if (err) *err = e;
        return -1;
    }
    return ms->n - 1;
}

int rn_models_set_ego(rn_models *ms, const char *model, const char *cockpit, double length, sim_error *err)
{
    int rc = SIM_OK;
    ms->ego_length = length;
    ms->ego = model && *model ? rn_models_get(ms, model, true, 0, err) : -1;
    if (model && *model && ms->ego < 0) rc = SIM_EINVAL;
    ms->cockpit = cockpit && *cockpit ? rn_models_get(ms, cockpit, true, 0, rc ? NULL : err) : -1;
    if (cockpit && *cockpit && ms->cockpit < 0) rc = SIM_EINVAL;
    return rc;
}

/* Column-major model matrix: translation pos, rotation of the pose, even scale s. */
static void pose_matrix(float m[16], const double pos[3], double heading, double pitch, double roll, double s)
{
    sim_pose p = {.pos = {pos[0], pos[1], pos[2]}, .heading = heading, .pitch = pitch, .roll = roll};
    double r[9];
    sim_pose_rotation(&p, r);
    memset(m, 0, 16 * sizeof *m);
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++) m[col * 4 + row] = (float)(r[row * 3 + col] * s);
    for (int i = 0; i < 3; i++) m[12 + i] = (float)pos[i];
    m[15] = 1;
}

static void draw_range(rn_models *ms, const rn_range *r)
{
    if (r->count <= 0) return;
    glDrawElements(GL_TRIANGLES, r->count, GL_UNSIGNED_INT, (const void *)(uintptr_t)((size_t)r->first * 4));
    ms->draw_calls++;
    ms->triangles += r->count / 3;
}

/* The wheels' state of vehicle key: found, or a free (or the oldest probed) slot. */
static rn_wheel_state *wheel_state(rn_models *ms, unsigned key, const rn_vehicle_look *look, double clock)
{
    if (key == 0) key = 1;
    unsigned h = key * 2654435761u;
    rn_wheel_state *victim = NULL;
    for (int probe = 0; probe < 8; probe++) {
        rn_wheel_state *s = &ms->wheels[(h + (unsigned)probe) % RN_MODELS_TRACKED];
        if (s->key == key) return s;
        if (!victim || s->key == 0 || (victim->key != 0 && s->clock < victim->clock)) victim = s;
    }
    *victim = (rn_wheel_state){.key = key, .heading = look->heading, .clock = clock};
    return victim;
}

void rn_wheels_advance(rn_wheel_state *s, const rn_vehicle_look *look, double radius, double wheelbase,
                       double clock)
{
    double dt = clock - s->clock;
    dt = dt < 0 ? 0 : dt > 0.5 ? 0.5 : dt;
    if (radius > 1e-3) s->angle = remainder(s->angle + look->speed * dt / radius, 2 * M_PI);
    if (isfinite(look->steer)) {
        s->steer = look->steer;
    } else if (dt > 1e-4) {
        double dh = remainder(look->heading - s->heading, 2 * M_PI);
        double target = fabs(look->speed) > 0.5 ? atan(wheelbase * (dh / dt) / look->speed) : s->steer;
        target = fmax(-0.6, fmin(0.6, target));
        s->steer += (target - s->steer) * fmin(1.0, dt / 0.2);
    }
    s->heading = look->heading;
    s->clock = clock;
}

bool rn_models_draw(rn_models *ms, int index, const rn_vehicle_look *look, double clock)
{
    if (index < 0 || index >= ms->n || ms->items[index].failed) return false;
    const rn_model *md = &ms->items[index];
    double len = md->hi[0] - md->lo[0];
    double s = len > 1e-3 && look->length > 0 ? look->length / len : 1.0;
    float m[16];
    pose_matrix(m, look->pos, look->heading, look->pitch, look->roll, s);
    glBindVertexArray(md->mesh.vao);
    glUniformMatrix4fv(ms->u_model, 1, GL_FALSE, m);
    glUniform1f(ms->u_tint_on, 0);
    glUniform1f(ms->u_emissive, 0);
    /* the fixed parts and the lamps that are off (the model's own dark lamp colour) in
     * runs; a lamp that is on is the light itself */
    static const float red_on[3] = {1.0f, 0.08f, 0.05f}, amber_on[3] = {1.0f, 0.6f, 0.0f},
                       head_on[3] = {1.0f, 1.0f, 0.92f}, tail[3] = {0.55f, 0.03f, 0.02f};
    /* with the headlights the rear lamps glow dimmer as tail lights: a car ahead at
     * night shows its back */
    const struct { int g; bool on; const float *rgb; } lamps[] = {
        {RN_GROUP_BRAKE, look->brake || look->head, look->brake ? red_on : tail}, {RN_GROUP_HEAD, look->head, head_on},
        {RN_GROUP_IND_LEFT, look->left, amber_on}, {RN_GROUP_IND_RIGHT, look->right, amber_on}};
    rn_range run = md->group[RN_GROUP_FIXED];
    for (size_t i = 0; i < sizeof lamps / sizeof *lamps; i++) {
        const rn_range *r = &md->group[lamps[i].g];
        if (!lamps[i].on || r->count == 0) {
            run.count = r->first + r->count - run.first;
            continue;
        }
        draw_range(ms, &run);
        glUniform1f(ms->u_tint_on, 1);
        glUniform1f(ms->u_emissive, 1);
        glUniform3fv(ms->u_tint, 1, lamps[i].rgb);
        draw_range(ms, r);
        glUniform1f(ms->u_tint_on, 0);
        glUniform1f(ms->u_emissive, 0);
        run = (rn_range){r->first + r->count, 0};
    }
    draw_range(ms, &run);
    /* the paint, and the bonnet with it where the model paints it */
    if (look->paint) {
        glUniform1f(ms->u_tint_on, 1);
        glUniform3fv(ms->u_tint, 1, look->paint);
    }
    rn_range paint = md->group[RN_GROUP_PAINT];
    if (md->bonnet_painted) paint.count += md->group[RN_GROUP_BONNET].count;
    draw_range(ms, &paint);
    glUniform1f(ms->u_tint_on, 0);
    if (!md->bonnet_painted) draw_range(ms, &md->group[RN_GROUP_BONNET]);
    if (md->n_wheels > 0) {
        rn_wheel_state *st = wheel_state(ms, look->key, look, clock);
        rn_wheels_advance(st, look, md->wheel_radius * s, md->wheelbase * s, clock);
        double steer = st->steer;
        double ca = cos(st->angle), sa = sin(st->angle);
        for (int i = 0; i < md->n_wheels; i++) {
            const rn_model_wheel *w = &md->wheels[i];
            double st_ = w->steers ? steer : 0, cs = cos(st_), ss = sin(st_);
            /* local = T(pivot) Rz(steer) Ry(angle): rolling forward turns the top forward */
            float local[16] = {(float)(cs * ca), (float)(ss * ca), (float)(-sa), 0,
                               (float)(-ss), (float)cs, 0, 0,
                               (float)(cs * sa), (float)(ss * sa), (float)ca, 0,
                               w->pivot[0], w->pivot[1], w->pivot[2], 1};
            float wm[16];
            sim_mat4_mul(wm, m, local);
            glUniformMatrix4fv(ms->u_model, 1, GL_FALSE, wm);
            draw_range(ms, &w->r);
        }
    }
    float id[16];
    sim_mat4_identity(id);
    glUniformMatrix4fv(ms->u_model, 1, GL_FALSE, id);
    glBindVertexArray(0);
    return true;
}

bool rn_models_draw_cockpit(rn_models *ms, const sim_pose *pose, double cog_height)
{
    bool ego = ms->ego >= 0 && !ms->items[ms->ego].failed, cockpit = ms->cockpit >= 0 && !ms->items[ms->cockpit].failed;
    if (!ego && !cockpit) return false;
    double below[3] = {0, 0, -cog_height}, p[3];
    sim_pose_to_world(pose, below, p);
    glUniform1f(ms->u_tint_on, 0);
    glUniform1f(ms->u_emissive, 0);
    float m[16];
    if (ego) {
        /* the bonnet alone: the rest of the body is behind or around the eye */
        const rn_model *md = &ms->items[ms->ego];
        double len = md->hi[0] - md->lo[0];
        pose_matrix(m, p, pose->heading, pose->pitch, pose->roll, len > 1e-3 && ms->ego_length > 0 ? ms->ego_length / len : 1.0);
        glBindVertexArray(md->mesh.vao);
        glUniformMatrix4fv(ms->u_model, 1, GL_FALSE, m);
        draw_range(ms, &md->group[RN_GROUP_BONNET]);
    }
    if (cockpit) {
        /* the interior is made for the vehicle file's eye point: not scaled */
        const rn_model *md = &ms->items[ms->cockpit];
        pose_matrix(m, p, pose->heading, pose->pitch, pose->roll, 1.0);
        glBindVertexArray(md->mesh.vao);
        glUniformMatrix4fv(ms->u_model, 1, GL_FALSE, m);
        for (int g = 0; g < RN_GROUP_COUNT; g++) draw_range(ms, &md->group[g]);
    }
    float id[16];
    sim_mat4_identity(id);
    glUniformMatrix4fv(ms->u_model, 1, GL_FALSE, id);
    glBindVertexArray(0);
    return true;
}
