/* objects: car and cockpit meshes (objects.h). */
#include "objects.h"

#include <math.h>
#include <string.h>

#define L2 2.25   /* half length */
#define W2 0.9    /* half width */

static const float white[3] = {1, 1, 1};

static int upload(gfx_mesh *m, gfx_builder *b, sim_error *err)
{
    int rc = gfx_mesh_upload(m, b, err);
    gfx_builder_free(b);
    return rc;
}

static void box(gfx_builder *b, double x0, double y0, double z0, double x1, double y1, double z1, const float c[3])
{
    double lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
    gfx_box(b, lo, hi, c);
}

int rn_objects_init(rn_objects *o, GLuint prog, sim_error *err)
{
    memset(o, 0, sizeof *o);
    rn_models_init(&o->models, prog, NULL);
    rn_objects_set_program(o, prog);
    gfx_builder b = {0};
    int rc;
    /* body: lower box and bonnet/boot; tinted per car */
    box(&b, -L2, -W2, 0.28, L2, W2, 0.88, white);
    if ((rc = upload(&o->body, &b, err))) return rc;
    /* cabin glass, wheels, bumpers */
    const float glass[3] = {0.12f, 0.15f, 0.19f}, tyre[3] = {0.05f, 0.05f, 0.05f}, trim[3] = {0.1f, 0.1f, 0.1f};
    box(&b, -1.35, -0.8, 0.88, 0.85, 0.8, 1.45, glass);
    for (int i = 0; i < 4; i++) {
        double x = i < 2 ? 1.35 : -1.35, y = (i % 2) ? -W2 + 0.1 : W2 - 0.1;
        box(&b, x - 0.32, y - 0.11, 0.0, x + 0.32, y + 0.11, 0.64, tyre);
    }
    box(&b, -L2 - 0.05, -W2, 0.28, -L2, W2, 0.45, trim);
    box(&b, L2, -W2, 0.28, L2 + 0.05, W2, 0.45, trim);
    if ((rc = upload(&o->details, &b, err))) return rc;
    /* lamps: drawn glowing or dark by uniform */
    box(&b, -L2 - 0.02, 0.5, 0.62, -L2 + 0.01, 0.85, 0.78, white);
    box(&b, -L2 - 0.02, -0.85, 0.62, -L2 + 0.01, -0.5, 0.78, white);
    if ((rc = upload(&o->brake, &b, err))) return rc;
    box(&b, L2 - 0.05, 0.78, 0.55, L2 + 0.02, 0.92, 0.68, white);
    box(&b, -L2 - 0.02, 0.78, 0.80, -L2 + 0.05, 0.92, 0.88, white);
    if ((rc = upload(&o->ind_left, &b, err))) return rc;
    box(&b, L2 - 0.05, -0.92, 0.55, L2 + 0.02, -0.78, 0.68, white);
    box(&b, -L2 - 0.02, -0.92, 0.80, -L2 + 0.05, -0.78, 0.88, white);
    if ((rc = upload(&o->ind_right, &b, err))) return rc;
    box(&b, L2 - 0.01, 0.45, 0.58, L2 + 0.02, 0.75, 0.72, white);
    box(&b, L2 - 0.01, -0.75, 0.58, L2 + 0.02, -0.45, 0.72, white);
    if ((rc = upload(&o->head, &b, err))) return rc;
    return SIM_OK;
}

void rn_objects_set_program(rn_objects *o, GLuint prog)
{
    o->u_model = glGetUniformLocation(prog, "u_model");
    o->u_tint = glGetUniformLocation(prog, "u_tint");
    o->u_tint_on = glGetUniformLocation(prog, "u_tint_on");
    o->u_emissive = glGetUniformLocation(prog, "u_emissive");
    rn_models_set_lit(&o->models, prog);
}

/* The cockpit is built on first use: it depends on the eye point. */
static int build_cockpit(rn_objects *o, double cog_height, const double eye[3], sim_error *err)
{
    gfx_builder b = {0};
    /* Body frame, from the eye point. The bonnet runs from the windscreen's foot 0.95 m
     * ahead of the eyes and 0.22 m below them down to the front: seen from the seat it
     * fills the band from 13 to 9 degrees below the horizon, and the dashboard's top
     * meets its foot. */
    double x0 = eye[0] + 0.95, x1 = eye[0] + 2.35, z0 = eye[2] - 0.22, z1 = eye[2] - 0.36;
    const float paint[3] = {0.16f, 0.24f, 0.42f}, dash[3] = {0.06f, 0.06f, 0.07f};
    double q[4][3] = {{x0, -0.85, z0}, {x1, -0.80, z1}, {x1, 0.80, z1}, {x0, 0.85, z0}};
    gfx_quad(&b, q, paint);
    /* the dashboard: a dark shelf below the windscreen */
    double lo[3] = {eye[0] + 0.5, -0.85, eye[2] - 0.6}, hi[3] = {x0, 0.85, z0};
    gfx_box(&b, lo, hi, dash);
    (void)cog_height;
    return upload(&o->bonnet, &b, err);
}

void rn_objects_free(rn_objects *o)
{
    gfx_mesh *all[] = {&o->body, &o->details, &o->brake, &o->ind_left, &o->ind_right, &o->head, &o->bonnet, &o->dash};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        gfx_mesh_free(all[i]);
    rn_models_free(&o->models);
}

void rn_objects_colour(unsigned h, float rgb[3])
{
    static const float palette[8][3] = {
        {0.75f, 0.10f, 0.10f}, {0.85f, 0.85f, 0.85f}, {0.10f, 0.25f, 0.60f}, {0.15f, 0.15f, 0.15f},
        {0.55f, 0.55f, 0.58f}, {0.10f, 0.45f, 0.25f}, {0.85f, 0.65f, 0.10f}, {0.35f, 0.20f, 0.45f},
    };
    memcpy(rgb, palette[(h ^ (h >> 7)) % 8], 3 * sizeof *rgb);
}

static void model_matrix(float m[16], const sim_pose *p, const double scale[3])
{
    double r[9];
    sim_pose_rotation(p, r);
    memset(m, 0, 16 * sizeof *m);
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            m[col * 4 + row] = (float)(r[row * 3 + col] * scale[col]);
    for (int i = 0; i < 3; i++)
        m[12 + i] = (float)p->pos[i];
    m[15] = 1;
}

static void lamp(rn_objects *o, const gfx_mesh *m, bool on, const float on_rgb[3], const float off_rgb[3])
{
    glUniform3fv(o->u_tint, 1, on ? on_rgb : off_rgb);
    glUniform1f(o->u_emissive, on ? 1.0f : 0.0f);
    gfx_mesh_draw(m);
    o->draw_calls++;
}

void rn_objects_draw_car(rn_objects *o, const double pos[3], double heading, double pitch, double roll,
                         const double size[3], const float rgb[3], const rn_lamps *lamps)
{
    sim_pose p = {.pos = {pos[0], pos[1], pos[2]}, .heading = heading, .pitch = pitch, .roll = roll};
    double scale[3] = {size[0] / (2 * L2), size[1] / (2 * W2), size[2] / 1.45};
    float m[16];
    model_matrix(m, &p, scale);
    glUniformMatrix4fv(o->u_model, 1, GL_FALSE, m);
    glUniform1f(o->u_tint_on, 1);
    glUniform1f(o->u_emissive, 0);
    glUniform3fv(o->u_tint, 1, rgb);
    gfx_mesh_draw(&o->body);
    glUniform1f(o->u_tint_on, 0);
    gfx_mesh_draw(&o->details);
    glUniform1f(o->u_tint_on, 1);
    static const float red_on[3] = {1.0f, 0.08f, 0.05f}, red_off[3] = {0.35f, 0.03f, 0.03f};
    static const float amber_on[3] = {1.0f, 0.6f, 0.0f}, amber_off[3] = {0.4f, 0.25f, 0.05f};
    static const float head_on[3] = {1.0f, 1.0f, 0.92f}, head_off[3] = {0.7f, 0.7f, 0.72f};
    lamp(o, &o->brake, lamps->brake, red_on, red_off);
    lamp(o, &o->ind_left, lamps->left, amber_on, amber_off);
    lamp(o, &o->ind_right, lamps->right, amber_on, amber_off);
    lamp(o, &o->head, lamps->head, head_on, head_off);
    glUniform1f(o->u_tint_on, 0);
    glUniform1f(o->u_emissive, 0);
    o->draw_calls += 2;
    float id[16];
    sim_mat4_identity(id);
    glUniformMatrix4fv(o->u_model, 1, GL_FALSE, id);
}

void rn_objects_draw_agent(rn_objects *o, const rn_agent *a, const float rgb[3], const rn_lamps *lamps, double clock)
{
    int index = rn_models_get(&o->models, a->model, false, a->colour, NULL);
    rn_vehicle_look look = {.pos = {a->pos[0], a->pos[1], a->pos[2]}, .heading = a->heading,
                            .length = a->size[0], .speed = a->speed, .steer = NAN, .key = a->colour,
                            .paint = rgb, .brake = lamps->brake, .left = lamps->left, .right = lamps->right,
                            .head = lamps->head};
    if (!rn_models_queue(&o->models, index, &look, clock))
        rn_objects_draw_car(o, a->pos, a->heading, 0, 0, a->size, rgb, lamps);
}

void rn_objects_flush(rn_objects *o, GLuint prog)
{
    int before = o->models.draw_calls;
    rn_models_flush(&o->models);
    o->draw_calls += o->models.draw_calls - before;
    glUseProgram(prog);
}

void rn_objects_draw_ego(rn_objects *o, const sim_pose *pose, double cog_height, const double size[3],
                         double speed, double steer, const rn_lamps *lamps, double clock)
{
    double below[3] = {0, 0, -cog_height}, p[3];
    sim_pose_to_world(pose, below, p);
    rn_vehicle_look look = {.pos = {p[0], p[1], p[2]}, .heading = pose->heading, .pitch = pose->pitch,
                            .roll = pose->roll, .length = size[0], .speed = speed, .steer = steer,
                            .key = 0xe90u, .brake = lamps->brake, .head = lamps->head};
    if (rn_models_queue(&o->models, o->models.ego, &look, clock))
        return;
    const float red[3] = {0.7f, 0.08f, 0.06f};
    rn_objects_draw_car(o, p, pose->heading, pose->pitch, pose->roll, size, red, lamps);
}

void rn_objects_draw_cockpit(rn_objects *o, const sim_pose *pose, double cog_height, const double eye[3])
{
    int before = o->models.draw_calls;
    if (rn_models_draw_cockpit(&o->models, pose, cog_height)) {
        o->draw_calls += o->models.draw_calls - before;
        return;
    }
    if (!o->bonnet.vao) {
        sim_error err = {0};
        if (build_cockpit(o, cog_height, eye, &err))
            return;
    }
    float m[16];
    const double one[3] = {1, 1, 1};
    model_matrix(m, pose, one);
    glUniformMatrix4fv(o->u_model, 1, GL_FALSE, m);
    gfx_mesh_draw(&o->bonnet);
    o->draw_calls++;
    float id[16];
    sim_mat4_identity(id);
    glUniformMatrix4fv(o->u_model, 1, GL_FALSE, id);
}
