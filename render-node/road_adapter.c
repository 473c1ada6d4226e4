/* road_adapter: the road model's queries the render node uses (road_adapter.h), on the
 * OpenDRIVE road model of common/world/sim_road.h (lane sections, widths varying along
 * s, marks with colours and widths, superelevation). */
#include "road_adapter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MARK_WIDTH 0.15 /* m, when the road data gives none */

int ra_road_count(const sim_scenario *sc)
{
    return sc->net.n_roads;
}

double ra_road_length(const sim_scenario *sc, int road)
{
    return sc->net.roads[road].length;
}

void ra_pose(const sim_scenario *sc, int road, double s, double t, double p[3], double *heading)
{
    sim_road_pose pose;
    sim_road_pose_at(&sc->net, road, s, t, &pose);
    p[0] = pose.x;
    p[1] = pose.y;
    p[2] = pose.z;
    if (heading)
        *heading = pose.heading;
}

void ra_normal(const sim_scenario *sc, int road, double s, double t, double n[3])
{
    sim_road_surface(&sc->net, road, s, t, n);
}

static ra_mark mark_of(sim_mark_type m)
{
    switch (m) {
    case SIM_MARK_SOLID: return RA_MARK_SOLID;
    case SIM_MARK_DASHED:
    case SIM_MARK_BOTTS_DOTS: return RA_MARK_BROKEN;
    case SIM_MARK_SOLID_SOLID: return RA_MARK_SOLID_SOLID;
    case SIM_MARK_SOLID_DASHED: return RA_MARK_SOLID_BROKEN;
    case SIM_MARK_DASHED_SOLID: return RA_MARK_BROKEN_SOLID;
    case SIM_MARK_DASHED_DASHED: return RA_MARK_BROKEN_BROKEN;
    default: return RA_MARK_NONE; /* grass, curb, custom: no paint */
    }
}

static ra_lane_type type_of(sim_lane_type t)
{
    if (sim_lane_type_drivable(t))
        return RA_LANE_DRIVING;
    switch (t) {
    case SIM_LANE_SHOULDER:
    case SIM_LANE_STOP:
    case SIM_LANE_RESTRICTED: return RA_LANE_SHOULDER;
    case SIM_LANE_MEDIAN: return RA_LANE_MEDIAN;
    case SIM_LANE_SIDEWALK:
    case SIM_LANE_CURB: return RA_LANE_SIDEWALK;
    case SIM_LANE_PARKING: return RA_LANE_PARKING;
    default: return RA_LANE_OTHER;
    }
}

static void set_mark(ra_section *out, int k, const sim_lane *l, double ds)
{
    const sim_road_mark *m = sim_lane_mark_at(l, ds);
    out->mark[k] = mark_of(m ? m->type : l->mark);
    out->mark_width[k] = m && m->width > 0 ? m->width : DEFAULT_MARK_WIDTH;
    out->yellow[k] = m && m->color == SIM_COLOR_YELLOW;
}

void ra_section_at(const sim_scenario *sc, int road, double s, ra_section *out)
{
    const sim_road *r = &sc->net.roads[road];
    memset(out, 0, sizeof *out);
    if (r->n_sections <= 0)
        return;
    const sim_lane_section *sec = &r->sections[sim_road_section_at(r, s)];
    double ds = s - sec->s0, centre = sim_road_lane_offset(r, s);
    int nr = sec->n_right < RA_MAX_BORDERS / 2 ? sec->n_right : RA_MAX_BORDERS / 2 - 1;
    int nl = sec->n_left < RA_MAX_BORDERS / 2 ? sec->n_left : RA_MAX_BORDERS / 2 - 1;
    /* right lanes from the outermost inwards, then the centre line, then left lanes */
    double t = centre;
    for (int k = 0; k < nr; k++)
        t -= sim_lane_width(&sec->right[k], ds);
    int n = 0;
    for (int k = nr - 1; k >= 0; k--) {
        out->t[n] = t;
        set_mark(out, n, &sec->right[k], ds);
        out->lane[n] = type_of(sec->right[k].type);
        t += sim_lane_width(&sec->right[k], ds);
        n++;
    }
    out->t[n] = centre;
    set_mark(out, n, &sec->center, ds);
    n++;
    t = centre;
    for (int k = 0; k < nl; k++) {
        out->lane[n - 1] = type_of(sec->left[k].type);
        t += sim_lane_width(&sec->left[k], ds);
        out->t[n] = t;
        set_mark(out, n, &sec->left[k], ds);
        n++;
    }
    out->n = n;
}

void ra_section_range(const sim_scenario *sc, int road, double s, double *s0, double *s1)
{
    const sim_road *r = &sc->net.roads[road];
    *s0 = 0;
    *s1 = r->length;
    if (r->n_sections > 0) {
        const sim_lane_section *sec = &r->sections[sim_road_section_at(r, s)];
        *s0 = sec->s0;
        *s1 = sec->s1;
    }
}

int ra_sign_count(const sim_scenario *sc, int road)
{
    return sc->net.roads[road].n_signs;
}

int ra_signs(const sim_scenario *sc, int road, ra_sign *out, int max)
{
    const sim_road *r = &sc->net.roads[road];
    int n = 0;
    for (int i = 0; i < r->n_signs && n < max; i++) {
        const sim_sign *g = &r->signs[i];
        ra_sign *o = &out[n++];
        memset(o, 0, sizeof *o);
        static const ra_sign_type types[] = {
            [SIM_SIGN_SPEED_LIMIT] = RA_SIGN_SPEED_LIMIT, [SIM_SIGN_LANE_CHANGE] = RA_SIGN_LANE_CHANGE,
            [SIM_SIGN_STOP] = RA_SIGN_STOP, [SIM_SIGN_YIELD] = RA_SIGN_YIELD,
            [SIM_SIGN_PRIORITY] = RA_SIGN_PRIORITY, [SIM_SIGN_TEXT] = RA_SIGN_TEXT};
        o->type = types[g->type];
        o->s = g->s;
        o->t = g->d;
        o->kmh = g->value * 3.6;
        o->lane = g->lane;
        o->text = g->text;
        o->legible_m = g->legible_m;
        /* a sign faces the traffic of the side it stands on */
        double h, p[3];
        ra_pose(sc, road, g->s, 0, p, &h);
        bool along = sim_road_lane_forward(r, g->d > 0 ? 1 : -1);
        o->heading = along ? h + M_PI : h;
        if (g->type == SIM_SIGN_LANE_CHANGE && r->n_sections > 0) {
            /* drivable lanes on the target's side, counted from the centre outwards:
             * the first is the driver's leftmost in right-hand traffic */
            const sim_lane_section *sec = &r->sections[sim_road_section_at(r, g->s)];
            const sim_lane *ls = g->lane < 0 ? sec->right : sec->left;
            int nl = g->lane < 0 ? sec->n_right : sec->n_left, lanes = 0, index = 0;
            for (int k = 0; k < nl; k++)
                if (sim_lane_type_drivable(ls[k].type)) {
                    lanes++;
                    if (k + 1 == abs(g->lane))
                        index = lanes;
                }
            o->lanes = lanes;
            o->lane_index = index;
        }
    }
    return n;
}

bool ra_lane_center(const sim_scenario *sc, int road, double s, int lane, double *t)
{
    return sim_road_lane_center(&sc->net.roads[road], s, lane, t);
}

bool ra_lane_forward(const sim_scenario *sc, int road, int lane)
{
    return sim_road_lane_forward(&sc->net.roads[road], lane);
}

bool ra_speed_limit_on(const sim_scenario *sc, const char *road_id, double s, int lane, double *kmh, int *road)
{
    int r = road_id && road_id[0] ? sim_roadnet_find_road(&sc->net, road_id) : -1;
    if (r < 0 || lane == 0 || !isfinite(s))
        return false;
    *kmh = sim_road_lane_speed_limit(&sc->net.roads[r], s, lane) * 3.6;
    *road = r;
    return true;
}

bool ra_speed_limit_at(const sim_scenario *sc, double x, double y, double *kmh, int *road, double *s)
{
    sim_road_loc loc;
    if (sim_roadnet_locate_on_road(&sc->net, x, y, &loc) != SIM_OK)
        return false;
    *kmh = sim_road_lane_speed_limit(&sc->net.roads[loc.road], loc.s, loc.lane.lane) * 3.6;
    if (road) *road = loc.road;
    if (s) *s = loc.s;
    return true;
}
