/* lights: traffic-light heads (lights.h). */
#include "lights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POST 0.07      /* m: half the post's width */
#define DEPTH 0.25     /* m: the housing's depth */
#define LAMP 0.11      /* m: half a lamp's size */

/* A box of half sizes (hl along the face direction, hw across, from z0 to z1) centred
 * at c, turned to heading h, into b with colour col. */
static void turned_box(gfx_builder *b, const double c[2], double h, double hl, double hw, double z0, double z1,
                       const float col[3])
{
    double f[2] = {cos(h), sin(h)}, r[2] = {sin(h), -cos(h)};
    double p[8][3];
    for (int i = 0; i < 8; i++) {
        double a = (i & 1) ? hl : -hl, w = (i & 2) ? hw : -hw;
        p[i][0] = c[0] + a * f[0] + w * r[0];
        p[i][1] = c[1] + a * f[1] + w * r[1];
        p[i][2] = (i & 4) ? z1 : z0;
    }
    static const int faces[6][4] = {{1, 3, 7, 5}, {2, 0, 4, 6}, {3, 2, 6, 7}, {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
    for (int k = 0; k < 6; k++) {
        double q[4][3];
        for (int j = 0; j < 4; j++) memcpy(q[j], p[faces[k][j]], sizeof q[j]);
        gfx_quad(b, q, col);
    }
}

static int upload(gfx_mesh *m, gfx_builder *b, sim_error *err)
{
    int rc = gfx_mesh_upload(m, b, err);
    gfx_builder_free(b);
    memset(b, 0, sizeof *b);
    return rc;
}

static int build_head(rn_light_head *out, const sim_light_head *h, sim_error *err)
{
    static const float post_c[3] = {0.35f, 0.36f, 0.38f}, box_c[3] = {0.06f, 0.06f, 0.07f};
    static const float white[3] = {1, 1, 1};
    double height = h->height > 0.2 ? h->height : 0.8, width = h->width > 0.1 ? h->width : 0.3;
    double z0 = h->z + (h->z_offset > 0 ? h->z_offset : 2.5), z1 = z0 + height;
    double f[2] = {cos(h->heading), sin(h->heading)};
    double foot[2] = {h->x, h->y};
    /* the housing hangs in front of the post, its face towards the traffic */
    double box[2] = {h->x + (POST + DEPTH / 2) * f[0], h->y + (POST + DEPTH / 2) * f[1]};
    gfx_builder b = {0};
    turned_box(&b, foot, h->heading, POST, POST, h->z, z1, post_c);
    turned_box(&b, box, h->heading, DEPTH / 2, width / 2, z0, z1, box_c);
    int rc = upload(&out->body, &b, err);
    if (rc) return rc;
    bool ped = h->kind == SIM_HEAD_PEDESTRIAN;
    double face[2] = {box[0] + (DEPTH / 2 + 0.01) * f[0], box[1] + (DEPTH / 2 + 0.01) * f[1]};
    double lamp = fmin(LAMP, 0.4 * width);
    for (int k = 0; k < 3; k++) {
        if (ped && k == 1) continue;
        /* centres at 5/6, 3/6, 1/6 of the height (a pedestrian head: 3/4 and 1/4) */
        double zc = ped ? z0 + height * (k == 0 ? 0.75 : 0.25) : z0 + height * (5 - 2 * k) / 6.0;
        turned_box(&b, face, h->heading, 0.01, lamp, zc - lamp, zc + lamp, white);
        if ((rc = upload(&out->lamp[k], &b, err))) return rc;
    }
    out->lo[0] = h->x - 1, out->lo[1] = h->y - 1, out->lo[2] = h->z;
    out->hi[0] = h->x + 1, out->hi[1] = h->y + 1, out->hi[2] = z1;
    return SIM_OK;
}

void rn_lights_set_program(rn_lights *L, GLuint prog)
{
    L->u_model = glGetUniformLocation(prog, "u_model");
    L->u_tint = glGetUniformLocation(prog, "u_tint");
    L->u_tint_on = glGetUniformLocation(prog, "u_tint_on");
    L->u_emissive = glGetUniformLocation(prog, "u_emissive");
}

int rn_lights_init(rn_lights *L, const sim_scenario *sc, GLuint prog, double t, sim_error *err)
{
    memset(L, 0, sizeof *L);
    L->lights = &sc->net.lights;
    rn_lights_set_program(L, prog);
    if (L->lights->n_heads == 0) return SIM_OK;
    if (!(L->heads = calloc((size_t)L->lights->n_heads, sizeof *L->heads)))
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    L->n = L->lights->n_heads;
    int rc = SIM_OK;
    for (int i = 0; i < L->n && !rc; i++) rc = build_head(&L->heads[i], &L->lights->heads[i], err);
    if (!rc) rn_lights_show_at(L, t);
    return rc;
}

void rn_lights_show_at(rn_lights *L, double t)
{
    sim_lights_run run;
    sim_error err = {0};
    if (sim_lights_run_init(&run, L->lights, &err)) return;
    sim_lights_update(L->lights, &run, t);
    for (int i = 0; i < L->n; i++) L->heads[i].state = run.state[i];
    sim_lights_run_free(&run);
}

void rn_lights_free(rn_lights *L)
{
    for (int i = 0; i < L->n; i++) {
        gfx_mesh_free(&L->heads[i].body);
        for (int k = 0; k < 3; k++) gfx_mesh_free(&L->heads[i].lamp[k]);
    }
    free(L->heads);
    memset(L, 0, sizeof *L);
}

bool rn_lights_set(rn_lights *L, const char *id, const char *state)
{
    int h = sim_lights_find_head(L->lights, id), s = sim_light_state_parse(state);
    if (h < 0 || h >= L->n || s < 0) return false;
    L->heads[h].state = (sim_light_state)s;
    return true;
}

void rn_lights_draw(rn_lights *L, const sim_frustum *f, double clock)
{
    static const float on[3][3] = {{1.0f, 0.08f, 0.04f}, {1.0f, 0.62f, 0.0f}, {0.1f, 1.0f, 0.35f}};
    static const float off[3][3] = {{0.16f, 0.03f, 0.03f}, {0.16f, 0.11f, 0.02f}, {0.03f, 0.14f, 0.06f}};
    float id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    glUniformMatrix4fv(L->u_model, 1, GL_FALSE, id);
    bool blink = fmod(clock, 1.0) < 0.5;
    for (int i = 0; i < L->n; i++) {
        rn_light_head *h = &L->heads[i];
        if (!sim_frustum_box_visible(f, h->lo, h->hi)) continue;
        glUniform1f(L->u_tint_on, 0);
        glUniform1f(L->u_emissive, 0);
        gfx_mesh_draw(&h->body);
        L->draw_calls++;
        sim_light_state s = h->state;
        bool lit[3] = {s == SIM_SIGNAL_RED || s == SIM_SIGNAL_RED_AMBER,
                       s == SIM_SIGNAL_AMBER || s == SIM_SIGNAL_RED_AMBER || (s == SIM_SIGNAL_FLASHING_AMBER && blink),
                       s == SIM_SIGNAL_GREEN};
        glUniform1f(L->u_tint_on, 1);
        for (int k = 0; k < 3; k++) {
            if (!h->lamp[k].vao) continue;
            glUniform3fv(L->u_tint, 1, lit[k] ? on[k] : off[k]);
            glUniform1f(L->u_emissive, lit[k] ? 1.0f : 0.0f);
            gfx_mesh_draw(&h->lamp[k]);
            L->draw_calls++;
        }
    }
    glUniform1f(L->u_tint_on, 0);
    glUniform1f(L->u_emissive, 0);
}
