/* scene: drawing one view (scene.h). */
#include "scene.h"

#include <math.h>
#include <string.h>

#include "materials.h"

/* Light and sky of a time of day. */
typedef struct lighting {
    float sun_dir[3], sun_color[3], ambient[3];
    float zenith[3], horizon[3], ground[3], sun_disc[3];
    bool headlights;
} lighting;

/* The three times of day: sun elevation and azimuth (rad), then the colours. */
static const struct preset {
    double elev, az;
    float sun_color[3], ambient[3], zenith[3], horizon[3], ground[3], sun_disc[3];
    bool headlights;
} presets[] = {
    /* day: sun high in the south-west */
    {0.75, 3.6, {0.80f, 0.78f, 0.70f}, {0.42f, 0.44f, 0.48f}, {0.22f, 0.42f, 0.80f}, {0.68f, 0.78f, 0.92f},
     {0.35f, 0.42f, 0.30f}, {1.0f, 1.0f, 0.92f}, false},
    /* dusk (dawn the same in the east): a low sun, an orange horizon */
    {0.06, 4.6, {0.65f, 0.42f, 0.25f}, {0.22f, 0.20f, 0.24f}, {0.18f, 0.24f, 0.45f}, {0.85f, 0.52f, 0.32f},
     {0.18f, 0.18f, 0.14f}, {1.0f, 0.75f, 0.45f}, true},
    /* night: moonlight, no disc */
    {0.5, 3.6, {0.05f, 0.05f, 0.08f}, {0.05f, 0.05f, 0.07f}, {0.01f, 0.012f, 0.03f}, {0.03f, 0.035f, 0.06f},
     {0.02f, 0.025f, 0.02f}, {0.03f, 0.035f, 0.06f}, true},
};

static void lighting_for(sim_light light, sim_weather weather, lighting *l)
{
    const struct preset *p = &presets[light == SIM_LIGHT_NIGHT ? 2 : light == SIM_LIGHT_DAWN || light == SIM_LIGHT_DUSK];
    double az = light == SIM_LIGHT_DAWN ? 1.4 : p->az;
    memset(l, 0, sizeof *l);
    memcpy(l->sun_color, p->sun_color, sizeof l->sun_color);
    memcpy(l->ambient, p->ambient, sizeof l->ambient);
    memcpy(l->zenith, p->zenith, sizeof l->zenith);
    memcpy(l->horizon, p->horizon, sizeof l->horizon);
    memcpy(l->ground, p->ground, sizeof l->ground);
    memcpy(l->sun_disc, p->sun_disc, sizeof l->sun_disc);
    l->headlights = p->headlights;
    l->sun_dir[0] = (float)(cos(p->elev) * cos(az));
    l->sun_dir[1] = (float)(cos(p->elev) * sin(az));
    l->sun_dir[2] = (float)sin(p->elev);
    if (weather != SIM_WEATHER_CLEAR) {
        /* overcast: a grey sky, no sun disc, softer light */
        float lum = (l->horizon[0] + l->horizon[1] + l->horizon[2]) / 3;
        for (int i = 0; i < 3; i++) {
            l->zenith[i] = 0.3f * l->zenith[i] + 0.7f * lum * 0.85f;
            l->horizon[i] = 0.3f * l->horizon[i] + 0.7f * lum;
            l->sun_disc[i] = l->zenith[i];
            l->ambient[i] += 0.3f * l->sun_color[i];
            l->sun_color[i] *= 0.5f;
        }
    }
}

static const char *const quality_names[] = {"low", "medium", "high"};

int rn_quality_parse(const char *name)
{
    for (int i = 0; name && i < 3; i++)
        if (!strcmp(name, quality_names[i]))
            return i;
    return -1;
}

const char *rn_quality_name(rn_quality q) { return quality_names[q >= 0 && q <= 2 ? q : 1]; }

rn_quality rn_quality_for_renderer(const char *gl_renderer, bool *software)
{
    bool sw = gl_renderer && (strstr(gl_renderer, "llvmpipe") || strstr(gl_renderer, "softpipe") ||
                              strstr(gl_renderer, "swrast"));
    if (software)
        *software = sw;
    return sw ? RN_QUALITY_LOW : RN_QUALITY_MEDIUM;
}

double rn_quality_lod_tolerance(rn_quality q)
{
    return q == RN_QUALITY_LOW ? 4.0 : q == RN_QUALITY_HIGH ? 1.5 : 2.0;
}

/* Makes programs[v] the current lit, instanced and vehicle programs, and gives their
 * uniform locations to those who keep them. */
static void use_programs(rn_scene *s, int v)
{
    s->variant = v;
    s->variant_no_detail = s->no_detail;
    s->lit = s->programs[v][RN_PROG_LIT];
    s->inst = s->programs[v][RN_PROG_INST];
    s->car = s->programs[v][RN_PROG_CAR];
    s->lit_detail = s->no_detail ? s->lit : s->programs[v][RN_PROG_LIT_DETAIL];
    s->inst_detail = s->no_detail ? s->inst : s->programs[v][RN_PROG_INST_DETAIL];
    rn_objects_set_program(&s->objects, s->lit);
    rn_models_set_program(&s->objects.models, s->car);
    rn_lights_set_program(&s->lights, s->lit);
    s->roads.u_material = glGetUniformLocation(s->lit_detail, "u_material");
    s->scenery.prog = s->inst;
    s->scenery.prog_detail = s->inst_detail;
    s->scenery.u_material = glGetUniformLocation(s->inst_detail, "u_material");
}

/* The frame's programs: street lights' variant v, and no_detail as it is now. */
static GLuint *frame_programs(rn_scene *s, GLuint out[RN_PROG_COUNT])
{
    out[RN_PROG_LIT] = s->lit;
    out[RN_PROG_INST] = s->inst;
    out[RN_PROG_CAR] = s->car;
    out[RN_PROG_LIT_DETAIL] = s->lit_detail;
    out[RN_PROG_INST_DETAIL] = s->inst_detail;
    return out;
}

int rn_scene_init(rn_scene *s, const sim_scenario *sc, const char *dir, const sim_view_rig *rig, double cog_height,
                  rn_quality quality, sim_error *err)
{
    memset(s, 0, sizeof *s);
    s->quality = quality;
    s->sc = sc;
    s->rig = *rig;
    s->cog_height = cog_height;
    s->draw_terrain = s->draw_roads = s->draw_cars = s->draw_scenery = true;
    int rc;
    bool low = quality == RN_QUALITY_LOW;
    /* the lit, instanced and vehicle programs, the lit and instanced ones again with
     * detail.glsl (the materials' textures, at every preset); medium and high twice,
     * without and with street lights (lit.frag: the loop alone costs a quarter of
     * llvmpipe's frame) */
    for (int v = 0; v < (low ? 1 : 2); v++) {
        const char *lights = v ? "#define RN_STREET_LIGHTS\n" : "";
        char plain[96], det[160];
        snprintf(plain, sizeof plain, "%s", lights);
        snprintf(det, sizeof det, "#define RN_DETAIL\n%s%s", low ? "#define RN_DETAIL_ONE\n" : "", lights);
        GLuint *p = s->programs[v];
        if ((rc = low ? gfx_program_defines(dir, "light", "lit_vl", "flat", plain, &p[RN_PROG_LIT], err)
                      : gfx_program_defines(dir, NULL, "lit", "lit", plain, &p[RN_PROG_LIT], err)) ||
            (rc = low ? gfx_program_defines(dir, "light", "inst_vl", "flat", plain, &p[RN_PROG_INST], err)
                      : gfx_program_defines(dir, NULL, "inst", "lit", plain, &p[RN_PROG_INST], err)) ||
            (rc = gfx_program_defines(dir, "light", "car", low ? "flat" : "lit", plain, &p[RN_PROG_CAR], err)) ||
            (rc = low ? gfx_program_lib(dir, "light", "lit_vl", "flat", "detail", det, &p[RN_PROG_LIT_DETAIL], err)
                      : gfx_program_lib(dir, NULL, "lit", "lit", "detail", det, &p[RN_PROG_LIT_DETAIL], err)) ||
            (rc = low ? gfx_program_lib(dir, "light", "inst_vl", "flat", "detail", det, &p[RN_PROG_INST_DETAIL], err)
                      : gfx_program_lib(dir, NULL, "inst", "lit", "detail", det, &p[RN_PROG_INST_DETAIL], err)))
            return rc;
        glUseProgram(p[RN_PROG_CAR]);
        glUniform1f(glGetUniformLocation(p[RN_PROG_CAR], "u_vertex_light"), low ? 1.0f : 0.0f);
        /* the samplers' units, once: two sampler types on one unit (both default to 0)
         * make every draw fail */
        for (int k = 0; k < RN_PROG_COUNT; k++) {
            glUseProgram(p[k]);
            glUniform1i(glGetUniformLocation(p[k], "u_detail"), 1);
            glUniform1i(glGetUniformLocation(p[k], "u_shadow"), 2);
        }
    }
    if (low) /* the vertex-lit preset has no street lights */
        memcpy(s->programs[1], s->programs[0], sizeof s->programs[0]);
    if ((rc = gfx_program(dir, "tex", &s->tex, err)) || (rc = gfx_program(dir, "sky", &s->sky, err)))
        return rc;
    s->lit = s->programs[0][RN_PROG_LIT];
    s->inst = s->programs[0][RN_PROG_INST];
    s->car = s->programs[0][RN_PROG_CAR];
    glGenVertexArrays(1, &s->empty_vao);
    if ((rc = rn_terrain_init(&s->terrain, sc, err)) || (rc = rn_roads_init(&s->roads, sc, err)) ||
        (rc = rn_objects_init(&s->objects, s->lit, err)) || (rc = rn_lights_init(&s->lights, sc, s->lit, 0, err)) ||
        (rc = rn_scenery_init(&s->scenery, sc, err)))
        return rc;
    s->scenery.range = low ? 200 : quality == RN_QUALITY_HIGH ? 1200 : 500;
    use_programs(s, 0);
    rn_rain_init(&s->rain);
    /* the detail textures at every preset (drivers judge speed from the ground's texture);
     * anisotropic filtering keeps it beyond 20 m at grazing angles */
    bool software = false;
    rn_quality_for_renderer((const char *)glGetString(GL_RENDERER), &software);
    if (!(s->detail = rn_materials_texture(software ? 1.0f : low ? RN_ANISO_LOW : RN_ANISO, software, &s->anisotropy)))
        return sim_error_set(err, SIM_ENOMEM, "materials: out of memory");
    if (!low) {
        bool high = quality == RN_QUALITY_HIGH;
        if ((rc = rn_shadow_init(&s->shadow, high ? 2048 : 1024, high ? 120 : 60, err)))
            return rc;
    }
    rn_hud_init(&s->hud);
    return SIM_OK;
}

void rn_scene_free(rn_scene *s)
{
    rn_terrain_free(&s->terrain);
    rn_roads_free(&s->roads);
    rn_objects_free(&s->objects);
    rn_lights_free(&s->lights);
    rn_scenery_free(&s->scenery);
    rn_shadow_free(&s->shadow);
    rn_rain_free(&s->rain);
    if (s->detail) glDeleteTextures(1, &s->detail);
    rn_hud_free(&s->hud);
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < RN_PROG_COUNT; k++)
            if (s->programs[v][k] && (v == 0 || s->programs[v][k] != s->programs[0][k])) /* low: [1] is [0] */
                glDeleteProgram(s->programs[v][k]);
    if (s->tex) glDeleteProgram(s->tex);
    if (s->sky) glDeleteProgram(s->sky);
    if (s->empty_vao) glDeleteVertexArrays(1, &s->empty_vao);
    memset(s, 0, sizeof *s);
}

static void u3(GLuint p, const char *name, const float v[3]) { glUniform3fv(glGetUniformLocation(p, name), 1, v); }
static void u3d(GLuint p, const char *name, const double v[3])
{
    float f[3] = {(float)v[0], (float)v[1], (float)v[2]};
    u3(p, name, f);
}
static void u1(GLuint p, const char *name, float v) { glUniform1f(glGetUniformLocation(p, name), v); }
static void um(GLuint p, const char *name, const float m[16])
{
    glUniformMatrix4fv(glGetUniformLocation(p, name), 1, GL_FALSE, m);
}

static void draw_sky(rn_scene *s, const sim_camera *c, const lighting *l, int w, int h)
{
    glUseProgram(s->sky);
    double right[3] = {-c->left[0], -c->left[1], -c->left[2]};
    if (c->mirrored)
        for (int i = 0; i < 3; i++) right[i] = -right[i];
    u3d(s->sky, "u_fwd", c->forward);
    u3d(s->sky, "u_right", right);
    u3d(s->sky, "u_up", c->up);
    u1(s->sky, "u_tan_y", (float)tan(c->fov_y / 2));
    u1(s->sky, "u_aspect", (float)c->aspect);
    u3(s->sky, "u_zenith", l->zenith);
    u3(s->sky, "u_horizon", l->horizon);
    u3(s->sky, "u_ground", l->ground);
    u3(s->sky, "u_sun_disc", l->sun_disc);
    /* the sun's disc (0.03 rad across, as the real one's 0.0093 looks too small on a
     * screen) where its direction projects */
    double far[3], ndc[2];
    for (int i = 0; i < 3; i++) far[i] = c->eye[i] + 1000.0 * l->sun_dir[i];
    float sun_px[2] = {0, 0}, sun_r = 0;
    if (l->sun_dir[2] > 0 && sim_camera_project(c, far, ndc)) {
        sun_px[0] = (float)((ndc[0] + 1) / 2 * w);
        sun_px[1] = (float)((ndc[1] + 1) / 2 * h);
        sun_r = (float)(0.015 / tan(c->fov_y / 2) * h / 2);
    }
    glUniform2fv(glGetUniformLocation(s->sky, "u_sun_px"), 1, sun_px);
    u1(s->sky, "u_sun_r", sun_r);
    glDepthMask(GL_FALSE);
    glBindVertexArray(s->empty_vao);
    glDrawArrays(GL_TRIANGLES, 0, 16 * 16 * 6);
    glDepthMask(GL_TRUE);
}

/* The other cars in view and the ego car in the chase view: those with models queued and
 * drawn instanced at the end, one call per model (models.h), boxes one by one; the lit
 * program is current before and after. Returns how many vehicles were drawn. */
static int draw_cars(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, const lighting *l,
                     const sim_frustum *f)
{
    bool blink = fmod(fs->clock, 0.8) < 0.4;
    int drawn = 0;
    for (int i = 0; i < fs->n_agents; i++) {
        const rn_agent *a = &fs->agents[i];
        double r = 0.5 * hypot(a->size[0], a->size[1]);
        double lo[3] = {a->pos[0] - r, a->pos[1] - r, a->pos[2]}, hi[3] = {a->pos[0] + r, a->pos[1] + r,
                                                                            a->pos[2] + a->size[2]};
        if (!sim_frustum_box_visible(f, lo, hi))
            continue;
        float rgb[3];
        rn_objects_colour(a->colour, rgb);
        rn_lamps lamps = {.brake = a->brake, .head = l->headlights,
                          .left = blink && (a->indicator == 1 || a->indicator == 2),
                          .right = blink && (a->indicator == -1 || a->indicator == 2)};
        rn_objects_draw_agent(&s->objects, a, rgb, &lamps, fs->clock);
        drawn++;
    }
    if (fs->have_ego && v->view == SIM_VIEW_CHASE) {
        double size[3] = {s->rig.length, s->rig.width, 1.42};
        rn_lamps lamps = {.brake = fs->ego_brake, .head = l->headlights};
        rn_objects_draw_ego(&s->objects, &fs->ego, s->cog_height, size, fs->ego_speed, fs->ego_steer, &lamps,
                            fs->clock);
        drawn++;
    }
    rn_objects_flush(&s->objects, s->lit);
    return drawn;
}

/* What one frame's passes share: the light, the fog, the street lamps near the
 * camera, whether shadows are on, and the ego car's headlight. */
typedef struct frame_ctx {
    lighting l;
    float fog_k;
    bool rain, shadows;
    float lamps[3 * 8];
    int n_lamps;
    double hp[3], hd[3]; /* headlight position and direction */
    float id[16];
} frame_ctx;

/* The sun's shadow map (clear weather, the sun up; medium and high): what casts
 * shadows seen from the sun, around the part of the view nearest the eye. */
static void draw_shadow_map(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, sim_camera *cam,
                            const frame_ctx *c, rn_frame_stats *stats)
{
    double centre[3];
    for (int i = 0; i < 3; i++)
        centre[i] = cam->eye[i] + cam->forward[i] * s->shadow.radius * 0.7;
    rn_shadow_matrices(&s->shadow, c->l.sun_dir, centre);
    sim_frustum lf;
    sim_frustum_from_matrix(&lf, s->shadow.view_proj);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, 0); /* not sampled while drawn into */
    glBindFramebuffer(GL_FRAMEBUFFER, s->shadow.fbo);
    glViewport(0, 0, s->shadow.size, s->shadow.size);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glClear(GL_DEPTH_BUFFER_BIT);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(2.0f, 4.0f);
    GLuint progs[RN_PROG_COUNT];
    frame_programs(s, progs);
    for (int k = 0; k < RN_PROG_COUNT; k++) {
        GLuint p = progs[k];
        glUseProgram(p);
        um(p, "u_view_proj", s->shadow.view_proj);
        u1(p, "u_shadow_on", 0);
    }
    if (s->draw_cars) {
        s->objects.draw_calls = 0;
        draw_cars(s, fs, v, &c->l, &lf);
        stats->draw_calls += s->objects.draw_calls;
    }
    if (s->draw_scenery) {
        glUseProgram(s->inst);
        rn_scenery_draw(&s->scenery, cam, &lf);
        stats->draw_calls += s->scenery.draw_calls;
    }
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

/* The ego car's headlight: from the bonnet's front, pitched 2 degrees down. */
static void headlight_of(const rn_scene *s, const rn_frame_state *fs, double hp[3], double hd[3])
{
    double fwd[3] = {cos(-0.035), 0, -sin(0.035)};
    sim_pose_to_world(&fs->ego, (double[3]){s->rig.length / 2 - 0.2, 0, -0.1}, hp);
    double r[9];
    sim_pose_rotation(&fs->ego, r);
    for (int i = 0; i < 3; i++) hd[i] = r[3 * i] * fwd[0] + r[3 * i + 1] * fwd[1] + r[3 * i + 2] * fwd[2];
}

/* The instanced scenery and vehicles share the lit program's fragment stage and its
 * uniforms: all of the frame's programs get its camera, light, fog and lamps; the lit
 * one is bound after. */
static void set_lit_uniforms(rn_scene *s, const rn_frame_state *fs, const sim_camera *cam, const frame_ctx *c)
{
    const lighting *l = &c->l;
    GLuint progs[RN_PROG_COUNT];
    frame_programs(s, progs);
    for (int k = 0; k < RN_PROG_COUNT; k++) {
        GLuint p = progs[k];
        glUseProgram(p);
        um(p, "u_view_proj", cam->view_proj);
        um(p, "u_model", c->id);
        u3(p, "u_sun_dir", l->sun_dir);
        u3(p, "u_sun_color", l->sun_color);
        u3(p, "u_ambient", l->ambient);
        u3d(p, "u_eye", cam->eye);
        u3(p, "u_fog_color", l->horizon);
        u1(p, "u_fog_k", c->fog_k);
        u1(p, "u_emissive", 0);
        u1(p, "u_tint_on", 0);
        u3d(p, "u_head_pos", c->hp);
        u3d(p, "u_head_dir", c->hd);
        u1(p, "u_head_on", l->headlights && fs->have_ego ? 1.0f : 0.0f);
        glUniform1i(glGetUniformLocation(p, "u_material"), RN_MAT_NONE);
        u1(p, "u_lod_bias", s->anisotropy > 1 ? 0.0f : -1.0f);
        u1(p, "u_wet", c->rain ? 1.0f : 0.0f);
        um(p, "u_shadow_mat", s->shadow.lookup);
        u1(p, "u_shadow_on", c->shadows ? 1.0f : 0.0f);
        glUniform3fv(glGetUniformLocation(p, "u_lamps"), 8, c->lamps);
        glUniform1i(glGetUniformLocation(p, "u_n_lamps"), c->n_lamps);
        u1(p, "u_lamp_gain", fs->light == SIM_LIGHT_NIGHT ? 1.0f : 0.3f);
    }
    glUseProgram(s->lit);
}

/* The terrain with the ground material (the detail program; the lit one is current
 * after), and its level-of-detail figures. */
static int draw_terrain(rn_scene *s, sim_camera *cam, int h, const sim_frustum *f, rn_frame_stats *stats)
{
    glUseProgram(s->lit_detail);
    glUniform1i(s->roads.u_material, s->magenta ? RN_MAT_NONE : RN_MAT_GROUND);
    int rc = rn_terrain_draw(&s->terrain, cam, h, f);
    glUniform1i(s->roads.u_material, RN_MAT_NONE);
    glUseProgram(s->lit);
    if (rc)
        return rc;
    stats->triangles = s->terrain.triangles;
    stats->draw_calls += s->terrain.draw_calls;
    stats->terrain_blocks = s->terrain.sel.n;
    stats->culled = s->terrain.sel.culled;
    stats->min_level = 99;
    for (int i = 0; i < s->terrain.sel.n; i++) {
        const sim_lod_block *b = &s->terrain.sel.blocks[i];
        if (b->level < stats->min_level) stats->min_level = b->level;
        if (b->level > stats->max_level) stats->max_level = b->level;
        stats->stitched += b->stitch != 0;
    }
    return SIM_OK;
}

/* The opaque world front to back, as llvmpipe shades only what passes the depth
 * test: the cockpit, roads, cars, traffic lights, scenery, terrain. */
static int draw_opaque(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, int h, sim_camera *cam,
                       const sim_frustum *f, const frame_ctx *c, rn_frame_stats *stats)
{
    /* The cockpit first: nothing in the world comes nearer than the bonnet's front, so
     * it needs no depth clear, and what it hides is never shaded. */
    if (fs->have_ego && s->draw_cars &&
        (v->view == SIM_VIEW_FRONT || v->view == SIM_VIEW_LEFT || v->view == SIM_VIEW_RIGHT)) {
        rn_objects_draw_cockpit(&s->objects, &fs->ego, s->cog_height, s->rig.eye);
        stats->draw_calls++;
    }
    /* roads (their polygon offset keeps them above the ground they lie on), cars, then
     * the terrain around them; the sky comes after */
    if (s->draw_roads) {
        glUseProgram(s->lit_detail);
        rn_roads_draw_surface(&s->roads, f);
        glUseProgram(s->lit);
        rn_roads_draw_furniture(&s->roads, f);
        stats->draw_calls += s->roads.draw_calls;
    }
    if (s->draw_cars) {
        s->objects.draw_calls = 0;
        stats->vehicles = draw_cars(s, fs, v, &c->l, f);
        stats->vehicle_draw_calls = s->objects.draw_calls;
        stats->draw_calls += s->objects.draw_calls;
    }
    if (s->draw_roads) { /* traffic lights stand with the roads */
        s->lights.draw_calls = 0;
        rn_lights_draw(&s->lights, f, fs->clock);
        stats->draw_calls += s->lights.draw_calls;
    }
    if (s->draw_scenery) {
        s->scenery.draw_calls = 0;
        rn_scenery_draw_outlines(&s->scenery, f);
        int outlines = s->scenery.draw_calls;
        glUseProgram(s->inst);
        rn_scenery_draw(&s->scenery, cam, f);
        glUseProgram(s->lit);
        stats->draw_calls += outlines + s->scenery.draw_calls;
        stats->scenery_triangles = s->scenery.triangles;
        stats->scenery_instances = s->scenery.instances;
    }
    if (s->draw_terrain)
        return draw_terrain(s, cam, h, f, stats);
    return SIM_OK;
}

/* Rain: streaks a little brighter than the sky's horizon, hidden by what is nearer. */
static void draw_rain_streaks(rn_scene *s, const rn_frame_state *fs, const sim_camera *cam, const lighting *l)
{
    glUseProgram(s->lit);
    u1(s->lit, "u_emissive", 1);
    float rgb[3];
    for (int i = 0; i < 3; i++)
        rgb[i] = fminf(1.0f, l->horizon[i] * 1.25f + 0.05f);
    glDepthMask(GL_FALSE);
    rn_rain_draw(&s->rain, cam->eye, fs->clock, rgb);
    glDepthMask(GL_TRUE);
    u1(s->lit, "u_emissive", 0);
}

/* Sign faces after the opaque scene (their texture has transparent corners). */
static void draw_signs(rn_scene *s, const rn_frame_state *fs, const sim_camera *cam, const sim_frustum *f,
                       const frame_ctx *c, rn_frame_stats *stats)
{
    const lighting *l = &c->l;
    glUseProgram(s->tex);
    um(s->tex, "u_view_proj", cam->view_proj);
    um(s->tex, "u_model", c->id);
    u3d(s->tex, "u_eye", cam->eye);
    u3(s->tex, "u_fog_color", l->horizon);
    u1(s->tex, "u_fog_k", c->fog_k);
    float bright = (l->ambient[0] + l->sun_color[0]) * 1.0f;
    u1(s->tex, "u_bright", bright > 1 ? 1 : bright);
    u1(s->tex, "u_retro", 1);
    u3d(s->tex, "u_head_pos", c->hp);
    u3d(s->tex, "u_head_dir", c->hd);
    u1(s->tex, "u_head_on", l->headlights && fs->have_ego ? 1.0f : 0.0f);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-1.0f, -2.0f);
    /* LCT boards are blank until the driver is near: measured from the ego car */
    s->roads.viewer[0] = fs->have_ego ? fs->ego.pos[0] : cam->eye[0];
    s->roads.viewer[1] = fs->have_ego ? fs->ego.pos[1] : cam->eye[1];
    int before = s->roads.draw_calls;
    rn_roads_draw_signs(&s->roads, f, glGetUniformLocation(s->tex, "u_tex"));
    stats->draw_calls += s->roads.draw_calls - before;
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDisable(GL_BLEND);
}

/* The textured program with identity matrices, no fog, full brightness: what the HUD
 * and the study's page are drawn with. */
static void use_flat_program(rn_scene *s, const float id[16])
{
    glUseProgram(s->tex);
    um(s->tex, "u_view_proj", id);
    um(s->tex, "u_model", id);
    u1(s->tex, "u_fog_k", 0);
    u1(s->tex, "u_bright", 1);
    u1(s->tex, "u_retro", 0);
}

/* The HUD: identity matrices, no fog. */
static void draw_hud(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, int w, int h,
                     const sim_camera *cam, const float id[16])
{
    use_flat_program(s, id);
    s->hud.full = v->view == SIM_VIEW_FRONT || v->view == SIM_VIEW_CHASE;
    s->hud.tan_half_fov_y = v->view == SIM_VIEW_FRONT ? tan(cam->fov_y / 2) : 0; /* DRT dot: driver's view only */
    if (!s->no_hud)
        rn_hud_draw(&s->hud, w, h, fs->clock, glGetUniformLocation(s->tex, "u_tex"));
}

int rn_scene_draw(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, int w, int h, sim_camera *cam,
                  rn_frame_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    frame_ctx c = {0};
    lighting_for(fs->light, fs->weather, &c.l);
    sim_camera_params cp = {.view = v->view, .yaw_offset = v->yaw_offset, .fov_y = v->fov_y,
                            .aspect = (double)w / h, .z_near = 0.25, .z_far = 5000};
    sim_camera_setup(cam, &fs->ego, &s->rig, &cp);
    sim_frustum f;
    sim_frustum_from_matrix(&f, cam->view_proj);
    double vis = fs->visibility > 0 ? fs->visibility : fs->weather == SIM_WEATHER_FOG ? 150 : 20000;
    c.fog_k = (float)(3.0 / vis);
    c.rain = fs->weather == SIM_WEATHER_RAIN;

    /* street lights are on when the headlights are (dusk, night); the programs that
     * draw them only when one is near */
    c.n_lamps = c.l.headlights && s->draw_scenery ? rn_scenery_lamps(&s->scenery, cam, c.lamps, 8) : 0;
    if (s->variant != (c.n_lamps > 0) || s->variant_no_detail != s->no_detail)
        use_programs(s, c.n_lamps > 0);

    c.shadows = s->shadow.tex && fs->weather == SIM_WEATHER_CLEAR && fs->light != SIM_LIGHT_NIGHT &&
                c.l.sun_dir[2] > 0.1 && (s->draw_scenery || s->draw_cars);
    if (c.shadows)
        draw_shadow_map(s, fs, v, cam, &c, stats);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D_ARRAY, s->detail);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, c.shadows ? s->shadow.tex : 0);
    glActiveTexture(GL_TEXTURE0);

    glViewport(0, 0, w, h);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDisable(GL_CULL_FACE);
    glClearColor(c.l.horizon[0], c.l.horizon[1], c.l.horizon[2], 1);
    if (s->magenta)
        glClearColor(1, 0, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

    sim_mat4_identity(c.id);
    headlight_of(s, fs, c.hp, c.hd);
    set_lit_uniforms(s, fs, cam, &c);
    int rc = draw_opaque(s, fs, v, h, cam, &f, &c, stats);
    if (rc)
        return rc;
    /* the sky where nothing else was drawn: it lies at the far plane */
    if (!s->magenta)
        draw_sky(s, cam, &c.l, w, h);
    if (c.rain && !s->magenta) {
        draw_rain_streaks(s, fs, cam, &c.l);
        stats->draw_calls++;
    }
    if (s->draw_roads)
        draw_signs(s, fs, cam, &f, &c, stats);
    draw_hud(s, fs, v, w, h, cam, c.id);
    return SIM_OK;
}

void rn_scene_draw_page(rn_scene *s, int w, int h, double now)
{
    static const float id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    glViewport(0, 0, w, h);
    glClearColor(0.10f, 0.14f, 0.20f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    use_flat_program(s, id);
    rn_hud_draw(&s->hud, w, h, now, glGetUniformLocation(s->tex, "u_tex"));
}
