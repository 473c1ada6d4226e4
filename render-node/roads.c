/* roads: road, mark, sign and POI meshes (roads.h). All road geometry comes through
 * road_adapter.h. */
#include "roads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "materials.h"
#include "road_adapter.h"
#include "signtex.h"
#include "sim_lct.h"

#define STEP 2.0          /* m between cross-sections */
#define DASH 3.0          /* broken line: 3 m mark, 6 m gap */
#define DASH_PERIOD 9.0
#define DOUBLE_GAP 0.12   /* m between the two lines of a double mark */

static const float lane_colors[][3] = {
    [RA_LANE_DRIVING] = {0.30f, 0.30f, 0.32f}, [RA_LANE_SHOULDER] = {0.38f, 0.38f, 0.39f},
    [RA_LANE_MEDIAN] = {0.26f, 0.40f, 0.20f},  [RA_LANE_SIDEWALK] = {0.62f, 0.61f, 0.58f},
    [RA_LANE_PARKING] = {0.34f, 0.34f, 0.36f}, [RA_LANE_OTHER] = {0.40f, 0.38f, 0.34f},
};
static const float white[3] = {0.95f, 0.95f, 0.95f}, yellow[3] = {0.95f, 0.78f, 0.1f};

static void surface_point(const sim_scenario *sc, int road, double s, double t, double lift, double p[3],
                          double n[3])
{
    ra_pose(sc, road, s, t, p, NULL);
    ra_normal(sc, road, s, t, n);
    p[2] += lift;
}

/* A strip from s0 to s1 (inside one lane section) between border ka moved by oa and
 * border kb moved by ob, in steps of at most STEP; borders are looked up at every step,
 * as lane widths vary along s. */
static void strip2(gfx_builder *b, const sim_scenario *sc, int road, double s0, double s1, int ka, double oa, int kb,
                   double ob, double lift, const float ca[3], const float cb[3])
{
    int n = (int)ceil((s1 - s0) / STEP);
    if (n < 1) n = 1;
    int prev = -1;
    ra_section sec;
    for (int i = 0; i <= n; i++) {
        double s = s0 + (s1 - s0) * i / n, p[3], q[3], np[3], nq[3];
        /* the section at the middle of the strip: its layout holds on [s0, s1] */
        ra_section_at(sc, road, i == 0 ? fmin(s + 1e-6, s1) : i == n ? fmax(s - 1e-6, s0) : s, &sec);
        if (ka >= sec.n || kb >= sec.n)
            return;
        surface_point(sc, road, s, sec.t[ka] + oa, lift, p, np);
        surface_point(sc, road, s, sec.t[kb] + ob, lift, q, nq);
        int k = gfx_vertex_add(b, p, np, ca);
        gfx_vertex_add(b, q, nq, cb);
        if (prev >= 0) {
            /* a is on the right, so (prev a, a, b) runs counter-clockwise from above */
            gfx_tri(b, prev, k, k + 1);
            gfx_tri(b, prev, k + 1, prev + 1);
        }
        prev = k;
    }
}

/* The same in one colour. */
static void strip(gfx_builder *b, const sim_scenario *sc, int road, double s0, double s1, int ka, double oa, int kb,
                  double ob, double lift, const float c[3])
{
    strip2(b, sc, road, s0, s1, ka, oa, kb, ob, lift, c, c);
}

/* Driving lane k (between borders k and k + 1) over [s0, s1] with its wheel paths worn
 * darker (rubber, polish): two bands 0.55 to 1.25 m in from each border, where a car's
 * wheels run in the lane's middle, darkest at 0.9 m; the colour shades across each band
 * (vertex colours), and the asphalt texture goes over it. Lanes under 2.8 m: plain. */
static void worn_lane(gfx_builder *b, const sim_scenario *sc, int road, double s0, double s1, int k,
                      const ra_section *sec, const float c[3])
{
    if (sec->t[k + 1] - sec->t[k] < 2.8) {
        strip(b, sc, road, s0, s1, k, 0, k + 1, 0, RN_ROAD_LIFT, c);
        return;
    }
    const float w[3] = {c[0] * 0.84f, c[1] * 0.84f, c[2] * 0.84f};
    static const double in[] = {0, 0.55, 0.9, 1.25};
    for (int side = 0; side < 2; side++) /* from border k inwards, then from border k + 1 */
        for (int i = 0; i < 3; i++) {
            const float *ca = i == 2 ? w : c, *cb = i == 1 ? w : c;
            int kb = k + side;
            double oa = side ? -in[i] : in[i], ob = side ? -in[i + 1] : in[i + 1];
            if (side)
                strip2(b, sc, road, s0, s1, kb, ob, kb, oa, RN_ROAD_LIFT, cb, ca);
            else
                strip2(b, sc, road, s0, s1, kb, oa, kb, ob, RN_ROAD_LIFT, ca, cb);
        }
    strip(b, sc, road, s0, s1, k, in[3], k + 1, -in[3], RN_ROAD_LIFT, c);
}

/* The mark of border k over [s0, s1] (one lane section; its type taken at each piece's
 * middle). Broken lines are cut on the road's own s grid, so chunks join without a seam. */
static void mark_lines(gfx_builder *b, const sim_scenario *sc, int road, double s0, double s1, int k)
{
    int n = (int)ceil((s1 - s0) / STEP);
    if (n < 1) n = 1;
    for (int i = 0; i < n; i++) {
        double a = s0 + (s1 - s0) * i / n, e = s0 + (s1 - s0) * (i + 1) / n;
        ra_section sec;
        ra_section_at(sc, road, (a + e) / 2, &sec);
        if (k >= sec.n || sec.mark[k] == RA_MARK_NONE)
            continue;
        ra_mark m = sec.mark[k];
        double w = sec.mark_width[k];
        const float *c = sec.yellow[k] ? yellow : white;
        bool broken[2] = {m == RA_MARK_BROKEN, false};
        double off[2] = {0, 0};
        int lines = 1;
        if (m != RA_MARK_SOLID && m != RA_MARK_BROKEN) {
            /* double: [0] the right line (seen along s), [1] the left */
            lines = 2;
            off[0] = -(w + DOUBLE_GAP) / 2;
            off[1] = (w + DOUBLE_GAP) / 2;
            broken[0] = m == RA_MARK_BROKEN_SOLID || m == RA_MARK_BROKEN_BROKEN;
            broken[1] = m == RA_MARK_SOLID_BROKEN || m == RA_MARK_BROKEN_BROKEN;
        }
        for (int l = 0; l < lines; l++) {
            double pa = a, pe = e;
            if (broken[l]) {
                /* the part of the dash that starts at or before a */
                double d = floor(a / DASH_PERIOD) * DASH_PERIOD;
                pa = fmax(a, d);
                pe = fmin(e, d + DASH);
                if (pe <= pa + 1e-6) {
                    /* or a dash starting inside the piece */
                    d += DASH_PERIOD;
                    pa = d;
                    pe = fmin(e, d + DASH);
                }
            }
            if (pe > pa + 1e-6)
                strip(b, sc, road, pa, pe, k, off[l] - w / 2, k, off[l] + w / 2, RN_MARK_LIFT, c);
        }
    }
}

static int build_chunk(rn_roads *r, int chunk, const sim_scenario *sc, int road, double s0, double s1, sim_error *err)
{
    gfx_builder surf = {0}, marks = {0};
    /* piece by piece where lane sections change inside the chunk */
    for (double a = s0; a < s1 - 1e-6;) {
        double sa, sb;
        ra_section_range(sc, road, a + 1e-6, &sa, &sb);
        double e = fmin(s1, sb);
        if (e <= a + 1e-6)
            e = s1;
        ra_section sec;
        ra_section_at(sc, road, (a + e) / 2, &sec);
        for (int k = 0; k + 1 < sec.n; k++)
            if (sec.lane[k] == RA_LANE_DRIVING)
                worn_lane(&surf, sc, road, a, e, k, &sec, lane_colors[sec.lane[k]]);
            else
                strip(&surf, sc, road, a, e, k, 0, k + 1, 0, RN_ROAD_LIFT, lane_colors[sec.lane[k]]);
        for (int k = 0; k < sec.n; k++)
            mark_lines(&marks, sc, road, a, e, k);
        a = e;
    }
    int rc = gfx_mesh_upload(&r->surface[chunk], &surf, err);
    if (!rc)
        rc = gfx_mesh_upload(&r->marks[chunk], &marks, err);
    gfx_builder_free(&surf);
    gfx_builder_free(&marks);
    return rc;
}

/* A face-up rectangle of size w x h centred at c, facing `heading`, as 4 textured
 * vertices (u left to right, v top to bottom as the viewer sees it). */
static void sign_face(rn_sign_quad *q, const double c[3], double heading, double w, double h)
{
    double rx = -sin(heading), ry = cos(heading); /* the viewer's right */
    double nx = cos(heading) * 0.01, ny = sin(heading) * 0.01; /* just in front of the board */
    gfx_tvertex v[4];
    const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
    for (int i = 0; i < 4; i++) {
        v[i].pos[0] = (float)(c[0] + nx + su[i] * rx * w / 2);
        v[i].pos[1] = (float)(c[1] + ny + su[i] * ry * w / 2);
        v[i].pos[2] = (float)(c[2] + sv[i] * h / 2);
        v[i].uv[0] = (float)((su[i] + 1) / 2);
        v[i].uv[1] = (float)((1 - sv[i]) / 2);
    }
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    gfx_tmesh_upload(&q->mesh, v, 4, idx, 6);
}

static void post(gfx_builder *b, const double base[3], double height, const float c[3])
{
    double lo[3] = {base[0] - 0.04, base[1] - 0.04, base[2] - 0.2};
    double hi[3] = {base[0] + 0.04, base[1] + 0.04, base[2] + height};
    gfx_box(b, lo, hi, c);
}

static const float grey[3] = {0.55f, 0.55f, 0.55f};

/* The board's back in the face's outline (a disc behind a round sign, not a square),
 * a hand's width behind the face: n points of the outline in the face's plane, given
 * as (u, v) in [-1, 1] across and up. */
static void sign_back(gfx_builder *b, const double c[3], double heading, double w, double ht, const double *uv, int n)
{
    double rx = -sin(heading), ry = cos(heading), bx = -cos(heading) * 0.02, by = -sin(heading) * 0.02;
    double nrm[3] = {-cos(heading), -sin(heading), 0};
    int k0 = b->nv;
    for (int i = 0; i < n; i++) {
        double p[3] = {c[0] + bx + rx * uv[2 * i] * w / 2, c[1] + by + ry * uv[2 * i] * w / 2, c[2] + uv[2 * i + 1] * ht / 2};
        gfx_vertex_add(b, p, nrm, grey);
    }
    for (int i = 1; i + 1 < n; i++)
        gfx_tri(b, k0, k0 + i + 1, k0 + i); /* counter-clockwise seen from behind */
}

static int add_sign(rn_roads *r, gfx_builder *furn, const sim_scenario *sc, int road, const ra_sign *s, double t)
{
    double p[3], h;
    ra_pose(sc, road, s->s, t, p, &h);
    double w, ht;
    rn_sign_quad *q = &r->signs[r->n_signs];
    q->tex = rn_sign_texture(s, &w, &ht);
    double bottom = s->type == RA_SIGN_LANE_CHANGE ? 1.6 : 1.4;
    double c[3] = {p[0], p[1], p[2] + bottom + ht / 2};
    sign_face(q, c, s->heading, w, ht);
    if (s->type == RA_SIGN_LANE_CHANGE && s->legible_m > 0) {
        ra_sign blank = *s;
        blank.lane_index = -1; /* signtex: the board without lanes */
        q->tex_blank = rn_sign_texture(&blank, &w, &ht);
        q->legible_m = s->legible_m;
        q->at[0] = p[0], q->at[1] = p[1];
        q->travel[0] = -cos(s->heading), q->travel[1] = -sin(s->heading);
    }
    r->n_signs++;
    /* the post stands behind the board (its front 0.03 m behind the back), so that it
     * never crosses the face: it reaches up to the board's middle */
    double behind[3] = {p[0] - cos(s->heading) * 0.09, p[1] - sin(s->heading) * 0.09, p[2]};
    post(furn, behind, bottom + ht / 2, grey);
    double uv[2 * 32];
    int n = 0;
    switch (s->type) {
    case RA_SIGN_SPEED_LIMIT:
        n = 32;
        for (int i = 0; i < n; i++) {
            uv[2 * i] = cos(2 * M_PI * i / n);
            uv[2 * i + 1] = sin(2 * M_PI * i / n);
        }
        break;
    case RA_SIGN_STOP:
        n = 8;
        for (int i = 0; i < n; i++) {
            uv[2 * i] = cos((i + 0.5) * M_PI / 4);
            uv[2 * i + 1] = sin((i + 0.5) * M_PI / 4);
        }
        break;
    case RA_SIGN_YIELD: /* a triangle pointing down */
        n = 3;
        memcpy(uv, (const double[6]){-1, 0.95, 0, -0.95, 1, 0.95}, sizeof(double[6]));
        break;
    case RA_SIGN_PRIORITY:
        n = 4;
        memcpy(uv, (const double[8]){0, -1, 1, 0, 0, 1, -1, 0}, sizeof(double[8]));
        break;
    default:
        n = 4;
        memcpy(uv, (const double[8]){-1, -1, 1, -1, 1, 1, -1, 1}, sizeof(double[8]));
        break;
    }
    sign_back(furn, c, s->heading, w, ht, uv, n);
    return SIM_OK;
}

static void poi_marker(gfx_builder *b, const sim_poi *poi)
{
    /* colour from the category's name: the same category, the same colour */
    unsigned hsh = 5381;
    for (const char *c = poi->category ? poi->category : ""; *c; c++)
        hsh = hsh * 33 + (unsigned char)*c;
    float col[3] = {0.3f + 0.7f * (float)((hsh >> 0) & 255) / 255, 0.3f + 0.7f * (float)((hsh >> 8) & 255) / 255,
                    0.3f + 0.7f * (float)((hsh >> 16) & 255) / 255};
    double base[3] = {poi->x, poi->y, poi->z};
    post(b, base, 3.0, grey);
    double lo[3] = {poi->x - 0.35, poi->y - 0.35, poi->z + 3.0}, hi[3] = {poi->x + 0.35, poi->y + 0.35, poi->z + 3.7};
    gfx_box(b, lo, hi, col);
}

int rn_roads_init(rn_roads *r, const sim_scenario *sc, sim_error *err)
{
    memset(r, 0, sizeof *r);
    int chunks = 0, signs = 0;
    for (int i = 0; i < ra_road_count(sc); i++) {
        chunks += (int)ceil(ra_road_length(sc, i) / RN_ROAD_CHUNK);
        signs += 2 * ra_sign_count(sc, i);
    }
    r->surface = calloc((size_t)chunks + 1, sizeof *r->surface);
    r->marks = calloc((size_t)chunks + 1, sizeof *r->marks);
    r->signs = calloc((size_t)signs + 1, sizeof *r->signs);
    ra_sign *list = calloc((size_t)signs + 1, sizeof *list);
    if (!r->surface || !r->marks || !r->signs || !list) {
        free(list);
        rn_roads_free(r);
        return sim_error_set(err, SIM_ENOMEM, "roads: out of memory");
    }
    gfx_builder furn = {0};
    int rc = SIM_OK;
    for (int i = 0; i < ra_road_count(sc) && !rc; i++) {
        double len = ra_road_length(sc, i);
        for (double s = 0; s < len - 1e-6 && !rc; s += RN_ROAD_CHUNK)
            rc = build_chunk(r, r->n_chunks++, sc, i, s, fmin(s + RN_ROAD_CHUNK, len), err);
        int n = ra_signs(sc, i, list, signs);
        ra_section sec;
        for (int k = 0; k < n && !rc; k++) {
            ra_section_at(sc, i, list[k].s, &sec);
            double right = sec.n ? sec.t[0] : 0, left = sec.n ? sec.t[sec.n - 1] : 0;
            double t = list[k].t;
            rc = add_sign(r, &furn, sc, i, &list[k], t);
            /* lane-change signs stand on both sides of the road, as on the LCT track */
            if (!rc && list[k].type == RA_SIGN_LANE_CHANGE)
                rc = add_sign(r, &furn, sc, i, &list[k], t < 0 ? left + 1.5 : right - 1.5);
        }
    }
    for (int i = 0; i < sc->n_pois; i++)
        poi_marker(&furn, &sc->pois[i]);
    if (!rc)
        rc = gfx_mesh_upload(&r->furniture, &furn, err);
    gfx_builder_free(&furn);
    free(list);
    if (rc)
        rn_roads_free(r);
    return rc;
}

void rn_roads_free(rn_roads *r)
{
    for (int i = 0; i < r->n_chunks; i++) {
        gfx_mesh_free(&r->surface[i]);
        gfx_mesh_free(&r->marks[i]);
    }
    for (int i = 0; i < r->n_signs; i++) {
        gfx_mesh_free(&r->signs[i].mesh);
        if (r->signs[i].tex)
            glDeleteTextures(1, &r->signs[i].tex);
        if (r->signs[i].tex_blank)
            glDeleteTextures(1, &r->signs[i].tex_blank);
    }
    gfx_mesh_free(&r->furniture);
    free(r->surface);
    free(r->marks);
    free(r->signs);
    memset(r, 0, sizeof *r);
}

static bool visible(const gfx_mesh *m, const sim_frustum *f)
{
    return m->n_index && (!f || sim_frustum_box_visible(f, m->lo, m->hi));
}

void rn_roads_draw_surface(rn_roads *r, const sim_frustum *f)
{
    r->draw_calls = 0;
    /* marks before the surface under them, so that the surface there is not shaded */
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(-2.0f, -4.0f);
    glUniform1i(r->u_material, RN_MAT_PAINT);
    for (int i = 0; i < r->n_chunks; i++)
        if (visible(&r->marks[i], f)) {
            gfx_mesh_draw(&r->marks[i]);
            r->draw_calls++;
        }
    glPolygonOffset(-1.0f, -2.0f);
    glUniform1i(r->u_material, RN_MAT_ASPHALT);
    for (int i = 0; i < r->n_chunks; i++)
        if (visible(&r->surface[i], f)) {
            gfx_mesh_draw(&r->surface[i]);
            r->draw_calls++;
        }
    glDisable(GL_POLYGON_OFFSET_FILL);
    glUniform1i(r->u_material, RN_MAT_NONE);
}

void rn_roads_draw_furniture(rn_roads *r, const sim_frustum *f)
{
    if (visible(&r->furniture, f)) {
        gfx_mesh_draw(&r->furniture);
        r->draw_calls++;
    }
}

void rn_roads_draw_signs(rn_roads *r, const sim_frustum *f, GLint u_tex)
{
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(u_tex, 0);
    for (int i = 0; i < r->n_signs; i++)
        if (visible(&r->signs[i].mesh, f)) {
            const rn_sign_quad *q = &r->signs[i];
            bool blank = q->tex_blank &&
                         sim_lct_board_at(sim_lct_board_ahead(q->at[0], q->at[1], r->viewer[0], r->viewer[1],
                                                              q->travel[0], q->travel[1]),
                                          q->legible_m) == SIM_LCT_BOARD_BLANK;
            glBindTexture(GL_TEXTURE_2D, blank ? q->tex_blank : q->tex);
            gfx_mesh_draw(&r->signs[i].mesh);
            r->draw_calls++;
        }
}
