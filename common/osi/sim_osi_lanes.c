/* sim_osi_lanes: the road network's lanes and lane borders as OSI Lanes and
 * LaneBoundaries (sim_osi.h, docs/osi.md "Lanes"). Pure: no I/O, no globals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_osi.h"

uint64_t sim_osi_lane_id(const char *road, int section, int lane)
{
    char key[320];
    snprintf(key, sizeof key, "lane:%s/%d/%d", road, section, lane);
    return sim_osi_id(key);
}

uint64_t sim_osi_boundary_id(const char *road, int section, int lane)
{
    char key[320];
    snprintf(key, sizeof key, "boundary:%s/%d/%d", road, section, lane);
    return sim_osi_id(key);
}

static int mark_type(sim_mark_type m)
{
    switch (m) {
    case SIM_MARK_NONE: return SIM_OSI_LB_NO_LINE;
    case SIM_MARK_SOLID: return SIM_OSI_LB_SOLID;
    case SIM_MARK_DASHED: return SIM_OSI_LB_DASHED;
    case SIM_MARK_BOTTS_DOTS: return SIM_OSI_LB_BOTTS_DOTS;
    case SIM_MARK_GRASS: return SIM_OSI_LB_GRASS_EDGE;
    case SIM_MARK_CURB: return SIM_OSI_LB_CURB;
    default: return SIM_OSI_LB_OTHER; /* double lines, custom */
    }
}

static int mark_color(sim_mark_color c)
{
    switch (c) {
    case SIM_COLOR_YELLOW: return 4;
    case SIM_COLOR_BLUE: return 6;
    case SIM_COLOR_GREEN: return 7;
    case SIM_COLOR_RED: return 5;
    case SIM_COLOR_ORANGE: return 9;
    default: return 3; /* white */
    }
}

static bool driving(sim_lane_type t)
{
    return t == SIM_LANE_DRIVING || t == SIM_LANE_ENTRY || t == SIM_LANE_EXIT || t == SIM_LANE_ON_RAMP ||
           t == SIM_LANE_OFF_RAMP || t == SIM_LANE_CONNECTING_RAMP || t == SIM_LANE_BIDIRECTIONAL;
}

/* Samples of a section: s0, s0 + step, ... and s1 (a last gap under 1 mm merged). */
static size_t n_samples(const sim_lane_section *sec, double step)
{
    double len = sec->s1 - sec->s0;
    if (!(len > 1e-3)) return 1;
    return (size_t)ceil(len / step - 1e-3) + 1;
}

static double sample_s(const sim_lane_section *sec, double step, size_t i, size_t n)
{
    return i + 1 == n ? sec->s1 : sec->s0 + (double)i * step;
}

/* t of the borders of section `sec` at ds: border[k] for k in -n_right..n_left
 * (border[0] the centre line) stored at b[k + n_right]. */
static void borders(const sim_road *r, const sim_lane_section *sec, double s, double *b)
{
    double ds = s - sec->s0, c = sim_road_lane_offset(r, s);
    b[sec->n_right] = c;
    for (int k = 0; k < sec->n_left; k++) b[sec->n_right + k + 1] = b[sec->n_right + k] + sim_lane_width(&sec->left[k], ds);
    for (int k = 0; k < sec->n_right; k++)
        b[sec->n_right - k - 1] = b[sec->n_right - k] - sim_lane_width(&sec->right[k], ds);
}

static const sim_lane *lane_of(const sim_lane_section *sec, int k)
{
    return k > 0 ? &sec->left[k - 1] : k < 0 ? &sec->right[-k - 1] : &sec->center;
}

int sim_osi_lanes_from_net(const sim_roadnet *net, double step, sim_osi_road_lanes *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(step > 0) || !isfinite(step))
        return sim_error_set(err, SIM_EINVAL, "osi: the lane sampling step must be > 0 m, got %g", step);
    size_t nl = 0, nb = 0, npts = 0;
    int maxb = 1;
    for (int ri = 0; ri < net->n_roads; ri++) {
        const sim_road *r = &net->roads[ri];
        if (r->n_geoms <= 0) continue;
        for (int si = 0; si < r->n_sections; si++) {
            const sim_lane_section *sec = &r->sections[si];
            size_t ns = n_samples(sec, step), lanes = (size_t)(sec->n_left + sec->n_right);
            nl += lanes, nb += lanes + 1, npts += ns * (2 * lanes + 1);
            if (sec->n_left + sec->n_right + 1 > maxb) maxb = sec->n_left + sec->n_right + 1;
        }
    }
    out->lanes = calloc(nl ? nl : 1, sizeof *out->lanes);
    out->boundaries = calloc(nb ? nb : 1, sizeof *out->boundaries);
    /* centre-line points (3 doubles) and boundary points (4) in one block */
    out->mem = malloc((npts ? npts : 1) * sizeof(sim_osi_boundary_point));
    double *b = malloc((size_t)maxb * sizeof *b);
    if (!out->lanes || !out->boundaries || !out->mem || !b) {
        free(b);
        sim_osi_road_lanes_free(out);
        return sim_error_set(err, SIM_ENOMEM, "osi: out of memory for %zu lanes", nl);
    }
    sim_osi_boundary_point *pts = out->mem;
    size_t used = 0;
    for (int ri = 0; ri < net->n_roads; ri++) {
        const sim_road *r = &net->roads[ri];
        if (r->n_geoms <= 0) continue;
        bool junction = r->junction >= 0;
        for (int si = 0; si < r->n_sections; si++) {
            const sim_lane_section *sec = &r->sections[si];
            size_t ns = n_samples(sec, step);
            int lo = -sec->n_right, hi = sec->n_left;
            for (int k = lo; k <= hi; k++) { /* boundaries: k's outer border, 0 the centre line */
                const sim_lane *l = lane_of(sec, k);
                sim_osi_boundary *B = &out->boundaries[out->n_boundaries++];
                B->id = sim_osi_boundary_id(r->id, si, k);
                const sim_road_mark *m0 = sim_lane_mark_at(l, 0);
                B->type = mark_type(m0 ? m0->type : l->mark);
                B->color = B->type == SIM_OSI_LB_NO_LINE ? 0 : mark_color(m0 ? m0->color : SIM_COLOR_WHITE);
                B->points = &pts[used], B->n_points = ns;
                used += ns;
            }
            for (int k = lo; k <= hi; k++) {
                if (!k) continue;
                const sim_lane *l = lane_of(sec, k);
                sim_osi_lane *L = &out->lanes[out->n_lanes++];
                L->id = sim_osi_lane_id(r->id, si, k);
                L->type = !driving(l->type) ? SIM_OSI_LANE_NONDRIVING
                                            : junction ? SIM_OSI_LANE_INTERSECTION : SIM_OSI_LANE_DRIVING;
                L->forward = sim_road_lane_forward(r, k);
                L->centerline = (double(*)[3])(void *)&pts[used];
                L->n_centerline = ns;
                used += ns; /* a boundary point's room holds a centre-line point */
                if (L->type != SIM_OSI_LANE_INTERSECTION) {
                    int left = k + 1 == 0 ? 1 : k + 1, right = k - 1 == 0 ? -1 : k - 1;
                    L->left_adjacent = left <= hi ? sim_osi_lane_id(r->id, si, left) : 0;
                    L->right_adjacent = right >= lo ? sim_osi_lane_id(r->id, si, right) : 0;
                    /* seen along s: a left lane's outer border is on its left */
                    L->left_boundary = sim_osi_boundary_id(r->id, si, k > 0 ? k : k + 1);
                    L->right_boundary = sim_osi_boundary_id(r->id, si, k > 0 ? k - 1 : k);
                }
            }
            /* the samples */
            size_t b0 = out->n_boundaries - (size_t)(hi - lo + 1), l0 = out->n_lanes - (size_t)(hi - lo);
            for (size_t i = 0; i < ns; i++) {
                double s = sample_s(sec, step, i, ns);
                if (s > r->length) s = r->length;
                borders(r, sec, s, b);
                double ds = s - sec->s0;
                for (int k = lo, li = 0; k <= hi; k++) {
                    const sim_lane *l = lane_of(sec, k);
                    sim_road_pose p;
                    sim_road_pose_at(net, ri, s, b[k - lo], &p);
                    sim_osi_boundary_point *q = &out->boundaries[b0 + (size_t)(k - lo)].points[i];
                    q->position[0] = p.x, q->position[1] = p.y, q->position[2] = p.z;
                    const sim_road_mark *m = sim_lane_mark_at(l, ds);
                    sim_mark_type mt = m ? m->type : l->mark;
                    q->width = mt == SIM_MARK_NONE ? 0 : m && m->width > 0 ? m->width : SIM_OSI_MARK_WIDTH;
                    if (!k) continue;
                    /* the lane's centre: halfway between its inner and outer border */
                    double tc = 0.5 * (b[k - lo] + b[k > 0 ? k - 1 - lo : k + 1 - lo]);
                    sim_road_pose_at(net, ri, s, tc, &p);
                    double *c = out->lanes[l0 + (size_t)li].centerline[i];
                    c[0] = p.x, c[1] = p.y, c[2] = p.z;
                    li++;
                }
            }
        }
    }
    free(b);
    return 0;
}

void sim_osi_road_lanes_free(sim_osi_road_lanes *l)
{
    free(l->lanes);
    free(l->boundaries);
    free(l->mem);
    memset(l, 0, sizeof *l);
}

uint64_t sim_osi_assigned_lane(const sim_roadnet *net, const char *road, double s, int lane)
{
    if (!road || !road[0] || lane == 0 || lane == SIM_MSG_NO_INT || !isfinite(s)) return 0;
    int ri = sim_roadnet_find_road(net, road);
    if (ri < 0) return 0;
    const sim_road *r = &net->roads[ri];
    if (r->n_sections <= 0) return 0;
    int si = sim_road_section_at(r, s);
    if (!sim_road_lane(r, si, lane)) return 0;
    return sim_osi_lane_id(r->id, si, lane);
}
