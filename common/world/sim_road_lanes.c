/* sim_road_lanes: lane sections, lane widths and borders at s, marks, speed records,
 * and the lane graph across sections, roads and junctions (see sim_road.h). */
#include "sim_road.h"
#include "sim_road_impl.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double sim_lane_width(const sim_lane *l, double ds)
{
    if (l->n_widths == 0) return l->width;
    double w = sim_poly3_eval(l->widths, l->n_widths, ds, NULL);
    return w > 0.0 ? w : 0.0;
}

const sim_road_mark *sim_lane_mark_at(const sim_lane *l, double ds)
{
    const sim_road_mark *m = NULL;
    for (int i = 0; i < l->n_marks; i++) {
        if (l->marks[i].s_offset > ds && m) break;
        m = &l->marks[i];
    }
    return m;
}

sim_mark_type sim_lane_mark_type(const sim_lane *l, double ds)
{
    const sim_road_mark *m = sim_lane_mark_at(l, ds);
    return m ? m->type : l->mark;
}

bool sim_lane_type_drivable(sim_lane_type t)
{
    switch (t) {
    case SIM_LANE_DRIVING:
    case SIM_LANE_ENTRY:
    case SIM_LANE_EXIT:
    case SIM_LANE_ON_RAMP:
    case SIM_LANE_OFF_RAMP:
    case SIM_LANE_CONNECTING_RAMP:
    case SIM_LANE_BIDIRECTIONAL:
        return true;
    default:
        return false;
    }
}

int sim_road_section_at(const sim_road *r, double s)
{
    int lo = 0, hi = r->n_sections - 1;
    if (hi < 0) return -1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (r->sections[mid].s0 <= s) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

const sim_lane *sim_road_lane(const sim_road *r, int section, int id)
{
    if (section < 0 || section >= r->n_sections) return NULL;
    const sim_lane_section *ls = &r->sections[section];
    if (id == 0) return &ls->center;
    if (id > 0) return id <= ls->n_left ? &ls->left[id - 1] : NULL;
    return id >= -ls->n_right ? &ls->right[-id - 1] : NULL; /* no -id: INT_MIN */
}

bool sim_road_has_lane(const sim_road *r, int id)
{
    for (int i = 0; id != 0 && i < r->n_sections; i++)
        if (sim_road_lane(r, i, id)) return true;
    return false;
}

double sim_road_lane_offset(const sim_road *r, double s)
{
    return sim_poly3_eval(r->lane_offset, r->n_lane_offset, s, NULL);
}

bool sim_road_lane_borders(const sim_road *r, double s, int lane, double *inner, double *outer)
{
    int si = sim_road_section_at(r, s);
    if (si < 0) return false;
    const sim_lane_section *ls = &r->sections[si];
    double t = sim_road_lane_offset(r, s), ds = s - ls->s0;
    if (lane == 0) {
        *inner = *outer = t;
        return true;
    }
    if (!sim_road_lane(r, si, lane)) return false;
    int k = lane > 0 ? lane : -lane; /* safe: the lane exists */
    const sim_lane *side = lane > 0 ? ls->left : ls->right;
    double sg = lane > 0 ? 1.0 : -1.0, acc = 0.0;
    for (int i = 0; i < k - 1; i++) acc += sim_lane_width(&side[i], ds);
    *inner = t + sg * acc;
    *outer = t + sg * (acc + sim_lane_width(&side[k - 1], ds));
    return true;
}

bool sim_road_lane_center(const sim_road *r, double s, int lane, double *t)
{
    double a, b;
    if (lane == 0 || !sim_road_lane_borders(r, s, lane, &a, &b)) return false;
    *t = 0.5 * (a + b);
    return true;
}

void sim_road_width(const sim_road *r, double s, double *left, double *right)
{
    *left = *right = 0.0;
    int si = sim_road_section_at(r, s);
    if (si < 0) return;
    const sim_lane_section *ls = &r->sections[si];
    double ds = s - ls->s0;
    for (int i = 0; i < ls->n_left; i++) *left += sim_lane_width(&ls->left[i], ds);
    for (int i = 0; i < ls->n_right; i++) *right += sim_lane_width(&ls->right[i], ds);
}

bool sim_road_lane_forward(const sim_road *r, int lane)
{
    return r->left_hand ? lane > 0 : lane < 0;
}

bool sim_road_lane_at(const sim_road *r, double s, double t, sim_lane_info *info)
{
    memset(info, 0, sizeof *info);
    int si = sim_road_section_at(r, s);
    info->section = si < 0 ? 0 : si;
    if (si < 0) return false;
    const sim_lane_section *ls = &r->sections[si];
    double c = sim_road_lane_offset(r, s), ds = s - ls->s0, rel = t - c;
    /* The centre line goes to lane -1 when it has width, else to lane 1. */
    bool left = rel > 0;
    if (rel == 0) left = !(ls->n_right > 0 && sim_lane_width(&ls->right[0], ds) > 0);
    const sim_lane *lanes = left ? ls->left : ls->right;
    int n = left ? ls->n_left : ls->n_right;
    double ad = fabs(rel), inner = 0.0, sg = left ? 1.0 : -1.0;
    sim_mark_type inner_mark = sim_lane_mark_type(&ls->center, ds);
    for (int k = 0; k < n; k++) {
        double w = sim_lane_width(&lanes[k], ds), outer = inner + w;
        sim_mark_type om = sim_lane_mark_type(&lanes[k], ds);
        if (w > 0 && ad <= outer) {
            info->lane = lanes[k].id;
            info->width = w;
            info->type = lanes[k].type;
            info->center_d = c + sg * 0.5 * (inner + outer);
            if (left) {
                info->left_d = c + outer, info->left_mark = om;
                info->right_d = c + inner, info->right_mark = inner_mark;
            } else {
                info->left_d = c - inner, info->left_mark = inner_mark;
                info->right_d = c - outer, info->right_mark = om;
            }
            return true;
        }
        inner = outer;
        if (w > 0) inner_mark = om;
    }
    return false;
}

double sim_road_speed_limit(const sim_road *r, double s)
{
    for (int i = 0; i < r->n_limits; i++)
        if (s >= r->limits[i].s_start && s <= r->limits[i].s_end) return r->limits[i].speed;
    return 0.0;
}

double sim_road_lane_speed_limit(const sim_road *r, double s, int lane)
{
    const sim_lane *l = sim_road_lane(r, sim_road_section_at(r, s), lane);
    if (l && l->n_speeds) {
        double ds = s - r->sections[sim_road_section_at(r, s)].s0, v = l->speeds[0].speed;
        for (int i = 1; i < l->n_speeds && l->speeds[i].s_offset <= ds; i++) v = l->speeds[i].speed;
        return v;
    }
    return sim_road_speed_limit(r, s);
}

const sim_surface_zone *sim_road_zone_at(const sim_road *r, double s)
{
    for (int i = 0; i < r->n_zones; i++)
        if (s >= r->zones[i].s_start && s <= r->zones[i].s_end) return &r->zones[i];
    return NULL;
}

/* ---- lane graph ------------------------------------------------------------------ */

static void put(sim_lane_ref *out, int max, int *n, int road, int section, int lane, int dir)
{
    for (int i = 0; i < *n && i < max; i++)
        if (out[i].road == road && out[i].section == section && out[i].lane == lane && out[i].dir == dir) return;
    if (*n < max) out[*n] = (sim_lane_ref){road, section, lane, dir};
    (*n)++;
}

/* Into a junction from a road the junction lists as outgoing only: the connecting
 * roads whose own link names our road at the end we leave from. */
static void enter_backwards(const sim_roadnet *net, int junction, const sim_lane_ref *from, bool at_end,
                            sim_lane_ref *out, int max, int *n)
{
    for (int ci = 0; ci < net->n_roads; ci++) {
        const sim_road *c = &net->roads[ci];
        if (c->junction != junction || ci == from->road) continue;
        for (int e = 0; e < 2; e++) {
            const sim_road_link *l = e ? &c->succ : &c->pred;
            if (l->kind != SIM_LINK_ROAD || l->index != from->road ||
                l->contact != (at_end ? SIM_CONTACT_END : SIM_CONTACT_START))
                continue;
            int sec = e ? c->n_sections - 1 : 0;
            const sim_lane_section *ls = &c->sections[sec];
            for (int id = -ls->n_right; id <= ls->n_left; id++) {
                const sim_lane *cl = sim_road_lane(c, sec, id);
                /* No lane link: the same id when both run the same way through the
                 * contact, else the mirrored one. */
                bool same = (e == 1) == (l->contact == SIM_CONTACT_START);
                int link = e ? cl->succ : cl->pred, want = link ? link : (same ? id : -id);
                if (id != 0 && want == from->lane) put(out, max, n, ci, sec, id, e ? -1 : 1);
            }
        }
    }
}

/* Out of a direct junction's linked road (a road outside the junction that a
 * connection names in place of a connecting road, sim_xodr.c) back onto the incoming
 * road: lane link to -> from, running away from the junction. */
static void direct_backwards(const sim_roadnet *net, int junction, const sim_lane_ref *from, sim_lane_ref *out,
                             int max, int *n)
{
    const sim_junction *j = &net->junctions[junction];
    for (int c = 0; c < j->n_conns; c++) {
        const sim_connection *cn = &j->conns[c];
        if (cn->connecting != from->road || net->roads[from->road].junction == junction || cn->incoming < 0 ||
            cn->incoming >= net->n_roads)
            continue;
        const sim_road *in = &net->roads[cn->incoming];
        /* the incoming road meets the junction at its end (its successor) or its start */
        bool at_end = in->succ.kind == SIM_LINK_JUNCTION && in->succ.index == junction;
        int sec = at_end ? in->n_sections - 1 : 0;
        for (int k = 0; k < cn->n_lanes; k++)
            if (cn->lanes[k].to == from->lane && sim_road_lane(in, sec, cn->lanes[k].from))
                put(out, max, n, cn->incoming, sec, cn->lanes[k].from, at_end ? -1 : 1);
    }
}

/* The linked lane id, or when the file gives none the same id (or its mirror when the
 * next road runs the other way), if that lane exists. */
static int follow(const sim_road *to, int section, int link, int lane, bool flip)
{
    int id = link ? link : (flip ? -lane : lane);
    return id != 0 && sim_road_lane(to, section, id) ? id : 0;
}

static int lane_next(const sim_roadnet *net, const sim_lane_ref *from, sim_lane_ref *out, int max)
{
    int n = 0;
    if (from->road < 0 || from->road >= net->n_roads) return 0;
    const sim_road *r = &net->roads[from->road];
    const sim_lane *l = sim_road_lane(r, from->section, from->lane);
    if (!l || from->lane == 0) return 0;
    int link = from->dir > 0 ? l->succ : l->pred;
    int next_sec = from->section + (from->dir > 0 ? 1 : -1);
    if (next_sec >= 0 && next_sec < r->n_sections) {
        int id = follow(r, next_sec, link, from->lane, false);
        if (id) put(out, max, &n, from->road, next_sec, id, from->dir);
        return n;
    }
    const sim_road_link *rl = from->dir > 0 ? &r->succ : &r->pred;
    if (rl->kind == SIM_LINK_ROAD && rl->index >= 0 && rl->index < net->n_roads) {
        const sim_road *to = &net->roads[rl->index];
        bool at_start = rl->contact == SIM_CONTACT_START;
        int sec = at_start ? 0 : to->n_sections - 1;
        /* Entering at its start we run along its s; at its end, against. */
        int dir = at_start ? 1 : -1;
        int id = follow(to, sec, link, from->lane, dir != from->dir);
        if (id) put(out, max, &n, rl->index, sec, id, dir);
    } else if (rl->kind == SIM_LINK_JUNCTION && rl->index >= 0 && rl->index < net->n_junctions) {
        const sim_junction *j = &net->junctions[rl->index];
        for (int c = 0; c < j->n_conns; c++) {
            const sim_connection *cn = &j->conns[c];
            if (cn->incoming != from->road || cn->connecting < 0 || cn->connecting >= net->n_roads)
                continue;
            const sim_road *to = &net->roads[cn->connecting];
            bool at_start = cn->contact == SIM_CONTACT_START;
            int sec = at_start ? 0 : to->n_sections - 1;
            for (int k = 0; k < cn->n_lanes; k++)
                if (cn->lanes[k].from == from->lane && sim_road_lane(to, sec, cn->lanes[k].to))
                    put(out, max, &n, cn->connecting, sec, cn->lanes[k].to, at_start ? 1 : -1);
        }
        enter_backwards(net, rl->index, from, from->dir > 0, out, max, &n);
        direct_backwards(net, rl->index, from, out, max, &n);
    }
    /* Out of a connecting road: its own links above cover it (a connecting road links
     * to its roads like any other). */
    return n;
}

int sim_roadnet_lane_next(const sim_roadnet *net, const sim_lane_ref *from, sim_lane_ref *out, int max)
{
    return lane_next(net, from, out, max);
}

int sim_roadnet_lane_prev(const sim_roadnet *net, const sim_lane_ref *from, sim_lane_ref *out, int max)
{
    sim_lane_ref back = *from;
    back.dir = -from->dir;
    int n = lane_next(net, &back, out, max);
    for (int i = 0; i < n && i < max; i++) out[i].dir = -out[i].dir;
    return n;
}

/* ---- building ------------------------------------------------------------------- */

sim_lane_section *sim_road_single_section(sim_road *r)
{
    assert(r->n_sections == 0);
    r->sections = calloc(1, sizeof *r->sections);
    if (!r->sections) return NULL;
    r->n_sections = 1;
    return r->sections;
}

/* Cubic Hermite through the profile points with centred-difference slopes, one record
 * per interval, flat before the first point and beyond the last. */
static int elevation_from_points(sim_road *r, sim_error *err)
{
    int n = r->n_elev;
    const double *S = r->elev_s, *Z = r->elev_z;
    free(r->elevation);
    r->elevation = calloc((size_t)n + 1, sizeof *r->elevation);
    r->n_elevation = 0;
    if (!r->elevation) return sim_error_set(err, SIM_ENOMEM, "road elevation: out of memory");
    sim_poly3 *e = r->elevation;
    int k = 0;
    if (S[0] > 0) e[k++] = (sim_poly3){0.0, Z[0], 0, 0, 0};
    for (int i = 0; i + 1 < n; i++) {
        double h = S[i + 1] - S[i];
        double m0 = i > 0 ? (Z[i + 1] - Z[i - 1]) / (S[i + 1] - S[i - 1]) : (Z[1] - Z[0]) / h;
        double m1 = i + 2 < n ? (Z[i + 2] - Z[i]) / (S[i + 2] - S[i]) : (Z[i + 1] - Z[i]) / h;
        double dz = (Z[i + 1] - Z[i]) / h;
        e[k++] = (sim_poly3){S[i], Z[i], m0, (3.0 * dz - 2.0 * m0 - m1) / h, (m0 + m1 - 2.0 * dz) / (h * h)};
    }
    e[k++] = (sim_poly3){S[n - 1], Z[n - 1], 0, 0, 0};
    r->n_elevation = k;
    return SIM_OK;
}

int sim_road_finish(sim_road *r, sim_error *err)
{
    const char *id = r->id ? r->id : "?";
    for (int i = 0; i < r->n_sections; i++) {
        sim_lane_section *ls = &r->sections[i];
        if (i == 0 && ls->s0 != 0.0)
            return sim_error_set(err, SIM_EINVAL, "road \"%s\": first lane section at s = %g, expected 0",
                                 id, ls->s0);
        if (i > 0 && !(ls->s0 >= r->sections[i - 1].s0))
            return sim_error_set(err, SIM_EINVAL, "road \"%s\": lane section %d at s = %g before the one before it",
                                 id, i, ls->s0);
        ls->s1 = i + 1 < r->n_sections ? r->sections[i + 1].s0 : r->length;
    }
    if (r->elev_mode == SIM_ELEV_PROFILE && r->n_elev > 0) {
        int rc = elevation_from_points(r, err);
        if (rc) return rc;
    }
    /* Widest extent each side: lane widths are cubics, so sample each section densely
     * enough (every metre, at least 8 times) and add a small margin. */
    double lw = 0.0, rw = 0.0;
    for (int i = 0; i < r->n_sections; i++) {
        const sim_lane_section *ls = &r->sections[i];
        double len = fmax(0.0, ls->s1 - ls->s0);
        int n = (int)fmin(4096.0, fmax(8.0, ceil(len)));
        for (int k = 0; k <= n; k++) {
            double s = ls->s0 + len * k / n, l, rr, c = sim_road_lane_offset(r, s);
            sim_road_width(r, s, &l, &rr);
            lw = fmax(lw, fmax(0.0, c + l));
            rw = fmax(rw, fmax(0.0, rr - c));
        }
    }
    r->left_width = lw;
    r->right_width = rw;
    return SIM_OK;
}

void sim_lane_free(sim_lane *l)
{
    free(l->widths);
    free(l->marks);
    free(l->speeds);
    memset(l, 0, sizeof *l);
}
