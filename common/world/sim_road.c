/* sim_road: poses and heights on roads, ownership, lookup and names (see sim_road.h;
 * geometry in sim_road_geom.c, lanes in sim_road_lanes.c, location in
 * sim_road_locate.c). */
#include "sim_road.h"
#include "sim_road_impl.h"

#include "sim_enum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim_road_geom_at(const sim_road *r, double s)
{
    int lo = 0, hi = r->n_geoms - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (r->geoms[mid].s0 <= s) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

void sim_road_ref_point(const sim_road *r, double s, double h, double *x, double *y, double *hdg)
{
    if (r->n_geoms == 0) { /* an empty (invalid) road: the origin, never a crash */
        *x = *y = *hdg = 0.0;
        return;
    }
    const sim_geom *g = &r->geoms[sim_road_geom_at(r, s)];
    sim_geom_eval(g, s - g->s0, x, y, hdg);
    *x -= h * sin(*hdg);
    *y += h * cos(*hdg);
}

double sim_road_t_to_h(const sim_road *r, double s, double t)
{
    return r->n_superelevation ? t * cos(sim_poly3_eval(r->superelevation, r->n_superelevation, s, NULL)) : t;
}

double sim_road_h_to_t(const sim_road *r, double s, double h)
{
    if (!r->n_superelevation) return h;
    double c = cos(sim_poly3_eval(r->superelevation, r->n_superelevation, s, NULL));
    return c > 1e-6 ? h / c : h;
}

/* The surface point at (s, t) and its tangent along s (dx, dy, dz per metre of s). */
typedef struct surf {
    double x, y, z, h;          /* position; reference heading */
    double tx, ty, tz;          /* tangent along s */
    double roll;
} surf;

static void surface_at(const sim_roadnet *net, const sim_road *r, double s, double t, surf *o)
{
    double th = 0.0, dth = 0.0;
    if (r->n_superelevation) th = sim_poly3_eval(r->superelevation, r->n_superelevation, s, &dth);
    double ct = cos(th), st = sin(th), hz = t * ct;
    sim_road_ref_point(r, s, hz, &o->x, &o->y, &o->h);
    double k = 0.0;
    if (r->n_geoms) {
        const sim_geom *g = &r->geoms[sim_road_geom_at(r, s)];
        k = sim_geom_curvature(g, s - g->s0);
    }
    double ch = cos(o->h), sh = sin(o->h), along = 1.0 - k * hz;
    /* d/ds of ref + t cos(th) n with n = (-sin h, cos h), n' = -k (cos h, sin h). */
    o->tx = ch * along + t * dth * st * sh;
    o->ty = sh * along - t * dth * st * ch;
    o->roll = th;
    if (r->elev_mode == SIM_ELEV_PROFILE) {
        double dz;
        o->z = sim_poly3_eval(r->elevation, r->n_elevation, s, &dz) + t * st;
        o->tz = dz + t * ct * dth;
        return;
    }
    if (net->terrain) {
        sim_terrain_sample smp;
        sim_terrain_eval(net->terrain, o->x, o->y, &smp);
        o->z = smp.z;
        /* Slope of the terrain along the tangent: n . T = 0. */
        o->tz = smp.n[2] > 1e-9 ? -(smp.n[0] * o->tx + smp.n[1] * o->ty) / smp.n[2] : 0.0;
        double lx = -sh, ly = ch;
        double g = smp.n[2] > 1e-9 ? -(smp.n[0] * lx + smp.n[1] * ly) / smp.n[2] : 0.0;
        o->roll = atan(g);
        return;
    }
    o->z = 0.0;
    o->tz = 0.0;
}

double sim_road_height(const sim_roadnet *net, int road, double s, double d)
{
    const sim_road *r = &net->roads[road];
    s = fmin(fmax(s, 0.0), r->length);
    if (r->elev_mode == SIM_ELEV_PROFILE) {
        double th = sim_poly3_eval(r->superelevation, r->n_superelevation, s, NULL);
        return sim_poly3_eval(r->elevation, r->n_elevation, s, NULL) + d * sin(th);
    }
    double x, y, h;
    sim_road_ref_point(r, s, sim_road_t_to_h(r, s, d), &x, &y, &h);
    return net->terrain ? sim_terrain_height(net->terrain, x, y) : 0.0;
}

double sim_road_surface(const sim_roadnet *net, int road, double s, double d, double n[3])
{
    const sim_road *r = &net->roads[road];
    s = fmin(fmax(s, 0.0), r->length);
    if (r->elev_mode != SIM_ELEV_PROFILE) {
        double x, y, h;
        sim_road_ref_point(r, s, sim_road_t_to_h(r, s, d), &x, &y, &h);
        if (net->terrain) {
            sim_terrain_sample smp;
            sim_terrain_eval(net->terrain, x, y, &smp);
            memcpy(n, smp.n, sizeof smp.n);
            return smp.z;
        }
        n[0] = n[1] = 0.0;
        n[2] = 1.0;
        return 0.0;
    }
    surf o;
    surface_at(net, r, s, d, &o);
    /* n = T x L with L the unit vector across the road (left) in the tilted plane. */
    double ch = cos(o.h), sh = sin(o.h), ct = cos(o.roll), st = sin(o.roll);
    double lx = -sh * ct, ly = ch * ct, lz = st;
    double nx = o.ty * lz - o.tz * ly, ny = o.tz * lx - o.tx * lz, nz = o.tx * ly - o.ty * lx;
    double len = sqrt(nx * nx + ny * ny + nz * nz);
    if (!(len > 0)) {
        n[0] = n[1] = 0.0, n[2] = 1.0;
    } else {
        n[0] = nx / len, n[1] = ny / len, n[2] = nz / len;
    }
    return o.z;
}

int sim_road_pose_at(const sim_roadnet *net, int road, double s, double d, sim_road_pose *out)
{
    if (road < 0 || road >= net->n_roads) return SIM_ENOTFOUND;
    const sim_road *r = &net->roads[road];
    int rc = r->n_geoms == 0 ? SIM_EINVAL : (s >= 0.0 && s <= r->length) ? SIM_OK : SIM_ERANGE;
    s = fmin(fmax(s, 0.0), r->length);
    surf o;
    surface_at(net, r, s, d, &o);
    out->x = o.x;
    out->y = o.y;
    out->z = o.z;
    out->heading = atan2(o.ty, o.tx);
    out->pitch = -atan(o.tz);
    out->roll = o.roll;
    return rc;
}

int sim_road_lane_pose(const sim_roadnet *net, int road, double s, int lane, double offset,
                       sim_road_pose *out)
{
    if (road < 0 || road >= net->n_roads) return SIM_ENOTFOUND;
    const sim_road *r = &net->roads[road];
    double sc = fmin(fmax(s, 0.0), r->length), a, b;
    if (!sim_road_lane_borders(r, sc, lane, &a, &b)) return SIM_ENOTFOUND;
    double t = 0.5 * (a + b);
    int rc = sim_road_pose_at(net, road, sc, t + offset, out);
    return rc ? rc : (s == sc ? SIM_OK : SIM_ERANGE);
}

/* Gap between the connecting road's contact end and the incoming road's end at this
 * junction: lane centres for each lane link (reference lines when there are none). */
double sim_roadnet_connection_gap(const sim_roadnet *net, int ji, const sim_connection *c)
{
    const sim_road *in = &net->roads[c->incoming], *cr = &net->roads[c->connecting];
    double s_c = c->contact == SIM_CONTACT_START ? 0.0 : cr->length, best = INFINITY;
    /* The incoming road meets the junction at its end or its start (or both). */
    for (int end = 0; end < 2; end++) {
        const sim_road_link *l = end ? &in->succ : &in->pred;
        if (!(l->kind == SIM_LINK_JUNCTION && l->index == ji)) continue;
        double s_i = end ? in->length : 0.0, worst = 0.0;
        for (int k = 0; k < (c->n_lanes ? c->n_lanes : 1); k++) {
            sim_road_pose a, b;
            double ta = 0, tb = 0;
            if (c->n_lanes && (!sim_road_lane_center(in, s_i, c->lanes[k].from, &ta) ||
                               !sim_road_lane_center(cr, s_c, c->lanes[k].to, &tb)))
                continue; /* a lane that does not exist is reported apart */
            sim_road_pose_at(net, c->incoming, s_i, ta, &a);
            sim_road_pose_at(net, c->connecting, s_c, tb, &b);
            worst = fmax(worst, hypot(a.x - b.x, a.y - b.y));
        }
        best = fmin(best, worst);
    }
    return best;
}

/* ---- ownership and lookup --------------------------------------------------- */

void sim_road_free(sim_road *r)
{
    for (int i = 0; i < r->n_geoms; i++) sim_geom_free(&r->geoms[i]);
    for (int i = 0; i < r->n_signs; i++) free(r->signs[i].text);
    for (int i = 0; i < r->n_sections; i++) {
        sim_lane_section *ls = &r->sections[i];
        for (int k = 0; k < ls->n_left; k++) sim_lane_free(&ls->left[k]);
        for (int k = 0; k < ls->n_right; k++) sim_lane_free(&ls->right[k]);
        sim_lane_free(&ls->center);
        free(ls->left);
        free(ls->right);
    }
    free(r->sections);
    free(r->lane_offset);
    free(r->geoms);
    free(r->limits);
    free(r->signs);
    free(r->zones);
    free(r->elevation);
    free(r->superelevation);
    free(r->elev_s);
    free(r->elev_z);
    free(r->id);
    free(r->name);
    memset(r, 0, sizeof *r);
}

void sim_roadnet_free(sim_roadnet *net)
{
    for (int i = 0; i < net->n_roads; i++) sim_road_free(&net->roads[i]);
    for (int i = 0; i < net->n_junctions; i++) {
        sim_junction *j = &net->junctions[i];
        for (int c = 0; c < j->n_conns; c++) free(j->conns[c].lanes);
        free(j->conns);
        free(j->id);
        free(j->name);
    }
    free(net->roads);
    free(net->junctions);
    free(net->geo_reference);
    sim_object_list_free(&net->objects);
    sim_lights_free(&net->lights);
    sim_roadnet_index_free(net->index);
    memset(net, 0, sizeof *net);
}

static bool links_to(const sim_road_link *l, sim_link_kind kind, int index)
{
    return l->kind == kind && l->index == index;
}

/* Junction j holds a connection between incoming road a and connecting road b. */
static bool junction_joins(const sim_roadnet *net, int j, int a, int b)
{
    const sim_junction *jn = &net->junctions[j];
    for (int c = 0; c < jn->n_conns; c++)
        if ((jn->conns[c].incoming == a && jn->conns[c].connecting == b) ||
            (jn->conns[c].incoming == b && jn->conns[c].connecting == a))
            return true;
    return false;
}

bool sim_roadnet_connected(const sim_roadnet *net, int a, int b)
{
    if (a < 0 || b < 0 || a >= net->n_roads || b >= net->n_roads) return false;
    const sim_road *ra = &net->roads[a], *rb = &net->roads[b];
    if (links_to(&ra->pred, SIM_LINK_ROAD, b) || links_to(&ra->succ, SIM_LINK_ROAD, b) ||
        links_to(&rb->pred, SIM_LINK_ROAD, a) || links_to(&rb->succ, SIM_LINK_ROAD, a))
        return true;
    const sim_road_link *ends[4] = {&ra->pred, &ra->succ, &rb->pred, &rb->succ};
    for (int i = 0; i < 4; i++)
        if (ends[i]->kind == SIM_LINK_JUNCTION && ends[i]->index >= 0 &&
            ends[i]->index < net->n_junctions && junction_joins(net, ends[i]->index, a, b))
            return true;
    return false;
}

int sim_roadnet_find_road(const sim_roadnet *net, const char *id)
{
    for (int i = 0; i < net->n_roads; i++)
        if (net->roads[i].id && strcmp(net->roads[i].id, id) == 0) return i;
    return -1;
}

int sim_roadnet_find_junction(const sim_roadnet *net, const char *id)
{
    for (int i = 0; i < net->n_junctions; i++)
        if (net->junctions[i].id && strcmp(net->junctions[i].id, id) == 0) return i;
    return -1;
}

/* ---- names ---------------------------------------------------------------- */

static const char *const mark_names[] = {"none",         "solid",         "dashed",
                                         "solid_solid",  "solid_dashed",  "dashed_solid",
                                         "dashed_dashed", "botts_dots",   "grass",
                                         "curb",         "other"};
static const char *const lane_names[SIM_LANE_TYPE_COUNT] = {
    "driving",    "shoulder", "median", "sidewalk",       "parking",        "none",  "border",
    "stop",       "restricted", "biking", "entry",        "exit",           "onRamp", "offRamp",
    "connectingRamp", "bidirectional", "curb", "rail",     "tram",           "special"};
static const char *const sign_names[] = {"speed_limit", "lane_change", "stop",
                                         "yield",       "priority",    "text"};

#define NAMES_N(a) ((int)(sizeof(a) / sizeof((a)[0])))
int sim_mark_parse(const char *name) { return sim_enum_parse(name, mark_names, NAMES_N(mark_names)); }
const char *sim_lane_type_name(sim_lane_type t) { return lane_names[t]; }
const char *sim_sign_type_name(sim_sign_type t) { return sign_names[t]; }
