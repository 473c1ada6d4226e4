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
    rn_models_set_lit(ms, prog);
}

void rn_models_set_lit(rn_models *ms, GLuint prog)
{
    ms->u_model = glGetUniformLocation(prog, "u_model");
    ms->u_tint = glGetUniformLocation(prog, "u_tint");
    ms->u_tint_on = glGetUniformLocation(prog, "u_tint_on");
    ms->u_emissive = glGetUniformLocation(prog, "u_emissive");
}

void rn_models_free(rn_models *ms)
{
    for (int i = 0; i < ms->n; i++) {
        gfx_mesh_free(&ms->items[i].mesh);
        if (ms->items[i].part_vbo) glDeleteBuffers(1, &ms->items[i].part_vbo);
        if (ms->items[i].inst_vbo) glDeleteBuffers(1, &ms->items[i].inst_vbo);
        free(ms->items[i].queue);
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

/* The per-vertex part (location 6) and the per-vehicle attributes (7 to 12, one per
 * instance) in the model's vertex array, as car.vert names them. The instance buffer
 * starts with one zeroed vehicle: the cockpit's plain draws leave these attributes
 * enabled, and they must not read an empty buffer. */
static void instancing_buffers(rn_model *md, const float *part_of, int nv)
{
    glBindVertexArray(md->mesh.vao);
    glGenBuffers(1, &md->part_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, md->part_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)nv * (GLsizeiptr)sizeof *part_of, part_of, GL_STATIC_DRAW);
    glEnableVertexAttribArray(GFX_ATTR_PART);
    glVertexAttribPointer(GFX_ATTR_PART, 1, GL_FLOAT, GL_FALSE, sizeof *part_of, (void *)0);
    glGenBuffers(1, &md->inst_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, md->inst_vbo);
    float zero[RN_CAR_FLOATS] = {0};
    glBufferData(GL_ARRAY_BUFFER, sizeof zero, zero, GL_STREAM_DRAW);
    for (int a = 0; a < 6; a++) {
        glEnableVertexAttribArray((GLuint)(GFX_ATTR_CAR + a));
        glVertexAttribPointer((GLuint)(GFX_ATTR_CAR + a), 4, GL_FLOAT, GL_FALSE, RN_CAR_FLOATS * 4,
                              (void *)(uintptr_t)(a * 16));
        glVertexAttribDivisor((GLuint)(GFX_ATTR_CAR + a), 1);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* Uploads m as one buffer: the parts' vertices (all but the wheels' moved to the
 * model frame), indices grouped so that each group and each wheel is one range. */
static int upload(rn_model *out, const sim_model *m, sim_error *err)
{
    gfx_builder b = {0};
    /* each vertex's part for car.vert: its group, or RN_PART_WHEEL + the wheel's number
     * (wheels are numbered in the order the second pass below meets them) */
    float *part_of = malloc((size_t)(m->nv > 0 ? m->nv : 1) * sizeof *part_of);
    if (!part_of) return sim_error_set(err, SIM_ENOMEM, "out of memory for a model's parts");
    int wheels_seen = 0;
    for (int p = 0; p < m->n_parts; p++) {
        const sim_model_part *part = &m->parts[p];
        int g = group_of(part->name);
        bool wheel = g < 0;
        float tag = (float)(!wheel ? g : wheels_seen < RN_MODEL_MAX_WHEELS ? RN_PART_WHEEL + wheels_seen : 0);
        wheels_seen += wheel;
        for (int i = part->first_vertex; i < part->first_vertex + part->n_vertices; i++) {
            const sim_model_vertex *v = &m->v[i];
            double pos[3], n[3] = {v->normal[0], v->normal[1], v->normal[2]};
            for (int k = 0; k < 3; k++) pos[k] = v->pos[k] + (wheel ? 0 : part->pivot[k]);
            int at = gfx_vertex_add(&b, pos, n, v->color);
            if (!b.failed && at < m->nv) part_of[at] = tag;
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
    if (!rc) instancing_buffers(out, part_of, b.nv);
    gfx_builder_free(&b);
    free(part_of);
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

void rn_models_set_program(rn_models *ms, GLuint car)
{
    ms->car = car;
    ms->u_car_wheels = glGetUniformLocation(car, "u_wheels");
    ms->u_car_bonnet = glGetUniformLocation(car, "u_bonnet_painted");
    ms->u_car_lamp_pass = glGetUniformLocation(car, "u_lamp_pass");
    ms->u_car_emissive = glGetUniformLocation(car, "u_emissive");
    ms->u_car_tint_on = glGetUniformLocation(car, "u_tint_on");
}

bool rn_models_queue(rn_models *ms, int index, const rn_vehicle_look *look, double clock)
{
    if (index < 0 || index >= ms->n || ms->items[index].failed) return false;
    rn_model *md = &ms->items[index];
    if (md->n_queued == md->cap_queued) {
        int cap = md->cap_queued ? 2 * md->cap_queued : 16;
        float *q = realloc(md->queue, (size_t)cap * RN_CAR_FLOATS * sizeof *q);
        if (!q) return false;
        md->queue = q;
        md->cap_queued = cap;
    }
    double len = md->hi[0] - md->lo[0];
    double s = len > 1e-3 && look->length > 0 ? look->length / len : 1.0;
    float m[16];
    pose_matrix(m, look->pos, look->heading, look->pitch, look->roll, s);
    float *q = md->queue + (size_t)md->n_queued++ * RN_CAR_FLOATS;
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++) q[row * 4 + col] = m[col * 4 + row];
    q[12] = look->paint ? look->paint[0] : 0;
    q[13] = look->paint ? look->paint[1] : 0;
    q[14] = look->paint ? look->paint[2] : 0;
    q[15] = look->paint ? 1.0f : 0.0f;
    double angle = 0, steer = 0;
    if (md->n_wheels > 0) {
        rn_wheel_state *st = wheel_state(ms, look->key, look, clock);
        rn_wheels_advance(st, look, md->wheel_radius * s, md->wheelbase * s, clock);
        angle = st->angle;
        steer = st->steer;
    }
    /* the shader's wheels need only these (no trigonometry per vertex) */
    q[16] = (float)cos(angle);
    q[17] = (float)sin(angle);
    q[18] = (float)cos(steer);
    q[19] = (float)sin(steer);
    /* with the headlights the rear lamps glow dimmer as tail lights: a car ahead at
     * night shows its back */
    q[20] = look->brake ? 2.0f : look->head ? 1.0f : 0.0f;
    q[21] = look->head;
    q[22] = look->left;
    q[23] = look->right;
    bool lit[4] = {q[20] > 0, look->head, look->left, look->right};
    for (int i = 0; i < 4; i++)
        md->lamps_lit |= lit[i] && md->group[RN_GROUP_BRAKE + i].count > 0;
    return true;
}

void rn_models_flush(rn_models *ms)
{
    bool any = false;
    for (int i = 0; i < ms->n && !any; i++) any = ms->items[i].n_queued > 0;
    if (!any) return;
    glUseProgram(ms->car);
    glUniform1f(ms->u_car_tint_on, 0);
    for (int i = 0; i < ms->n; i++) {
        rn_model *md = &ms->items[i];
        if (md->n_queued == 0) continue;
        float wheels[RN_MODEL_MAX_WHEELS * 4] = {0};
        for (int w = 0; w < md->n_wheels; w++) {
            memcpy(&wheels[w * 4], md->wheels[w].pivot, 3 * sizeof(float));
            wheels[w * 4 + 3] = md->wheels[w].steers;
        }
        glUniform4fv(ms->u_car_wheels, RN_MODEL_MAX_WHEELS, wheels);
        glUniform1f(ms->u_car_bonnet, md->bonnet_painted);
        glBindVertexArray(md->mesh.vao);
        glBindBuffer(GL_ARRAY_BUFFER, md->inst_vbo);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)md->n_queued * RN_CAR_FLOATS * 4, md->queue, GL_STREAM_DRAW);
        /* everything but the lamps that are lit, then those, glowing */
        for (int pass = 0; pass < (md->lamps_lit ? 2 : 1); pass++) {
            rn_range r = {0, md->mesh.n_index};
            if (pass) {
                r.first = md->group[RN_GROUP_BRAKE].first;
                r.count = md->group[RN_GROUP_IND_RIGHT].first + md->group[RN_GROUP_IND_RIGHT].count - r.first;
            }
            glUniform1f(ms->u_car_lamp_pass, (float)pass);
            glUniform1f(ms->u_car_emissive, (float)pass);
            glDrawElementsInstanced(GL_TRIANGLES, r.count, GL_UNSIGNED_INT,
                                    (const void *)(uintptr_t)((size_t)r.first * 4), md->n_queued);
            ms->draw_calls++;
            if (!pass) ms->triangles += (long)(r.count / 3) * md->n_queued;
        }
        ms->vehicles += md->n_queued;
        md->n_queued = 0;
        md->lamps_lit = false;
    }
    glUniform1f(ms->u_car_lamp_pass, 0);
    glUniform1f(ms->u_car_emissive, 0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
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
