/* scene: drawing one view (scene.h). */
#include "scene.h"

#include <math.h>
#include <string.h>

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

int rn_scene_init(rn_scene *s, const sim_scenario *sc, const char *dir, const sim_view_rig *rig, double cog_height,
                  sim_error *err)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    s->rig = *rig;
    s->cog_height = cog_height;
    s->draw_terrain = s->draw_roads = s->draw_cars = true;
    int rc;
    if ((rc = gfx_program(dir, "lit", &s->lit, err)) || (rc = gfx_program(dir, "tex", &s->tex, err)) ||
        (rc = gfx_program(dir, "sky", &s->sky, err)))
        return rc;
    glGenVertexArrays(1, &s->empty_vao);
    if ((rc = rn_terrain_init(&s->terrain, sc, err)) || (rc = rn_roads_init(&s->roads, sc, err)) ||
        (rc = rn_objects_init(&s->objects, s->lit, err)))
        return rc;
    rn_hud_init(&s->hud);
    return SIM_OK;
}

void rn_scene_free(rn_scene *s)
{
    rn_terrain_free(&s->terrain);
    rn_roads_free(&s->roads);
    rn_objects_free(&s->objects);
    rn_hud_free(&s->hud);
    if (s->lit) glDeleteProgram(s->lit);
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

static void draw_cars(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, const lighting *l,
                      const sim_frustum *f)
{
    bool blink = fmod(fs->clock, 0.8) < 0.4;
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
    }
    if (!fs->have_ego)
        return;
    if (v->view == SIM_VIEW_CHASE) {
        double size[3] = {s->rig.length, s->rig.width, 1.42};
        rn_lamps lamps = {.brake = fs->ego_brake, .head = l->headlights};
        rn_objects_draw_ego(&s->objects, &fs->ego, s->cog_height, size, fs->ego_speed, fs->ego_steer, &lamps,
                            fs->clock);
    }
}

int rn_scene_draw(rn_scene *s, const rn_frame_state *fs, const rn_view_opts *v, int w, int h, sim_camera *cam,
                  rn_frame_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    lighting l;
    lighting_for(fs->light, fs->weather, &l);
    sim_camera_params cp = {.view = v->view, .yaw_offset = v->yaw_offset, .fov_y = v->fov_y,
                            .aspect = (double)w / h, .z_near = 0.25, .z_far = 5000};
    sim_camera_setup(cam, &fs->ego, &s->rig, &cp);
    sim_frustum f;
    sim_frustum_from_matrix(&f, cam->view_proj);
    double vis = fs->visibility > 0 ? fs->visibility : 20000;
    float fog_k = (float)(3.0 / vis);

    glViewport(0, 0, w, h);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDisable(GL_CULL_FACE);
    glClearColor(l.horizon[0], l.horizon[1], l.horizon[2], 1);
    if (s->magenta)
        glClearColor(1, 0, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

    GLuint p = s->lit;
    glUseProgram(p);
    float id[16];
    sim_mat4_identity(id);
    um(p, "u_view_proj", cam->view_proj);
    um(p, "u_model", id);
    u3(p, "u_sun_dir", l.sun_dir);
    u3(p, "u_sun_color", l.sun_color);
    u3(p, "u_ambient", l.ambient);
    u3d(p, "u_eye", cam->eye);
    u3(p, "u_fog_color", l.horizon);
    u1(p, "u_fog_k", fog_k);
    u1(p, "u_emissive", 0);
    u1(p, "u_tint_on", 0);
    double hp[3], hd[3], fwd[3] = {cos(-0.035), 0, -sin(0.035)};
    sim_pose_to_world(&fs->ego, (double[3]){s->rig.length / 2 - 0.2, 0, -0.1}, hp);
    double r[9];
    sim_pose_rotation(&fs->ego, r);
    for (int i = 0; i < 3; i++) hd[i] = r[3 * i] * fwd[0] + r[3 * i + 1] * fwd[1] + r[3 * i + 2] * fwd[2];
    u3d(p, "u_head_pos", hp);
    u3d(p, "u_head_dir", hd);
    u1(p, "u_head_on", l.headlights && fs->have_ego ? 1.0f : 0.0f);

    /* The cockpit first: nothing in the world comes nearer than the bonnet's front, so
     * it needs no depth clear, and what it hides is never shaded. */
    if (fs->have_ego && s->draw_cars &&
        (v->view == SIM_VIEW_FRONT || v->view == SIM_VIEW_LEFT || v->view == SIM_VIEW_RIGHT)) {
        rn_objects_draw_cockpit(&s->objects, &fs->ego, s->cog_height, s->rig.eye);
        stats->draw_calls++;
    }
    /* Front to back, as llvmpipe shades only what passes the depth test: roads (their
     * polygon offset keeps them above the ground they lie on), cars, then the terrain
     * around them, then the sky. */
    if (s->draw_roads) {
        rn_roads_draw_lit(&s->roads, &f);
        stats->draw_calls += s->roads.draw_calls;
    }
    if (s->draw_cars) {
        s->objects.draw_calls = 0;
        draw_cars(s, fs, v, &l, &f);
        stats->draw_calls += s->objects.draw_calls;
    }
    if (s->draw_terrain) {
        int rc = rn_terrain_draw(&s->terrain, cam, h, &f);
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
    }
    /* the sky where nothing else was drawn: it lies at the far plane */
    if (!s->magenta)
        draw_sky(s, cam, &l, w, h);
    /* sign faces after the opaque scene (their texture has transparent corners) */
    if (s->draw_roads) {
        glUseProgram(s->tex);
        um(s->tex, "u_view_proj", cam->view_proj);
        um(s->tex, "u_model", id);
        u3d(s->tex, "u_eye", cam->eye);
        u3(s->tex, "u_fog_color", l.horizon);
        u1(s->tex, "u_fog_k", fog_k);
        float bright = (l.ambient[0] + l.sun_color[0]) * 1.0f;
        u1(s->tex, "u_bright", bright > 1 ? 1 : bright);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(-1.0f, -2.0f);
        int before = s->roads.draw_calls;
        rn_roads_draw_signs(&s->roads, &f, glGetUniformLocation(s->tex, "u_tex"));
        stats->draw_calls += s->roads.draw_calls - before;
        glDisable(GL_POLYGON_OFFSET_FILL);
        glDisable(GL_BLEND);
    }
    /* the HUD: identity matrices, no fog */
    glUseProgram(s->tex);
    um(s->tex, "u_view_proj", id);
    um(s->tex, "u_model", id);
    u1(s->tex, "u_fog_k", 0);
    u1(s->tex, "u_bright", 1);
    s->hud.full = v->view == SIM_VIEW_FRONT || v->view == SIM_VIEW_CHASE;
    s->hud.tan_half_fov_y = v->view == SIM_VIEW_FRONT ? tan(cam->fov_y / 2) : 0; /* DRT dot: driver's view only */
    if (!s->no_hud)
        rn_hud_draw(&s->hud, w, h, fs->clock, glGetUniformLocation(s->tex, "u_tex"));
    return SIM_OK;
}
