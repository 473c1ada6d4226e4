/* road_adapter: the road model's queries the render node uses (road_adapter.h). */
#include "road_adapter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    p[2] = sim_road_height(&sc->net, road, s, t);
    if (heading)
        *heading = pose.heading;
}

void ra_normal(const sim_scenario *sc, int road, double s, double t, double n[3])
{
    sim_road_surface(&sc->net, road, s, t, n);
}

static ra_mark mark_of(sim_mark_type m)
{
    return m == SIM_MARK_SOLID ? RA_MARK_SOLID : m == SIM_MARK_DASHED ? RA_MARK_BROKEN : RA_MARK_NONE;
}

static ra_lane_type type_of(sim_lane_type t)
{
    switch (t) {
    case SIM_LANE_DRIVING: return RA_LANE_DRIVING;
    case SIM_LANE_SHOULDER: return RA_LANE_SHOULDER;
    case SIM_LANE_MEDIAN: return RA_LANE_MEDIAN;
    case SIM_LANE_SIDEWALK: return RA_LANE_SIDEWALK;
    case SIM_LANE_PARKING: return RA_LANE_PARKING;
    }
    return RA_LANE_OTHER;
}

void ra_section_at(const sim_scenario *sc, int road, double s, ra_section *out)
{
    (void)s; /* one lane layout per road in this road model */
    const sim_road *r = &sc->net.roads[road];
    memset(out, 0, sizeof *out);
    int n = 0;
    double t = -r->right_width;
    /* right lanes from the outermost inwards, then the centre line, then left lanes */
    for (int k = r->n_right - 1; k >= 0 && n < RA_MAX_BORDERS - 1; k--) {
        out->t[n] = t;
        out->mark[n] = mark_of(r->right[k].mark);
        out->lane[n] = type_of(r->right[k].type);
        t += r->right[k].width;
        n++;
    }
    out->t[n] = 0;
    out->mark[n] = mark_of(r->center_mark);
    n++;
    for (int k = 0; k < r->n_left && n < RA_MAX_BORDERS; k++) {
        out->lane[n - 1] = type_of(r->left[k].type);
        t = (k == 0 ? 0 : out->t[n - 1]) + r->left[k].width;
        out->t[n] = t;
        out->mark[n] = mark_of(r->left[k].mark);
        n++;
    }
    out->n = n;
    for (int k = 0; k < n; k++)
        out->mark_width[k] = 0.15;
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
        /* signs for left lanes face the other way */
        bool left = g->d > 0;
        double h;
        double p[3];
        ra_pose(sc, road, g->s, 0, p, &h);
        o->heading = left ? h : h + M_PI;
        if (g->type == SIM_SIGN_LANE_CHANGE) {
            /* count driving lanes on the target's side, from the left as the driver sees them */
            const sim_lane *ls = g->lane < 0 ? r->right : r->left;
            int nl = g->lane < 0 ? r->n_right : r->n_left, lanes = 0, index = 0;
            for (int k = 0; k < nl; k++)
                if (ls[k].type == SIM_LANE_DRIVING) {
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

bool ra_speed_limit_at(const sim_scenario *sc, double x, double y, double *kmh, int *road, double *s)
{
    sim_road_loc loc;
    if (sim_roadnet_locate_on_road(&sc->net, x, y, &loc) != SIM_OK)
        return false;
    *kmh = sim_road_speed_limit(&sc->net.roads[loc.road], loc.s) * 3.6;
    if (road) *road = loc.road;
    if (s) *s = loc.s;
    return true;
}

int ra_sign_count(const sim_scenario *sc, int road)
{
    return sc->net.roads[road].n_signs;
}

bool ra_lane_center(const sim_scenario *sc, int road, double s, int lane, double *t)
{
    (void)s;
    return sim_road_lane_center(&sc->net.roads[road], lane, t);
}
