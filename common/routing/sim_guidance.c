/* sim_guidance: following a car along a route's polyline (sim_route.h). */
#include "sim_route.h"

#include <math.h>

#define WINDOW_BACK 5       /* segments searched behind the last one */
#define WINDOW_AHEAD 400    /* and ahead (the polyline has a point every few metres) */

static const double bands[] = {500, 200, 100, 30}; /* announcement distances, m */

void sim_guidance_start(sim_guidance *gd, const sim_route *r)
{
    *gd = (sim_guidance){.route = r, .next = r->n_mans > 1 ? 1 : 0, .band = -1};
}

/* Nearest point of segments [a, b) to (x, y): its s, lateral distance and segment. */
static double project(const sim_route *r, int a, int b, double x, double y, double *s, int *seg)
{
    double best = INFINITY;
    for (int i = a; i < b; i++) {
        double dx = r->px[i + 1] - r->px[i], dy = r->py[i + 1] - r->py[i];
        double l2 = dx * dx + dy * dy;
        double u = l2 > 0 ? ((x - r->px[i]) * dx + (y - r->py[i]) * dy) / l2 : 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        double d = hypot(x - (r->px[i] + u * dx), y - (r->py[i] + u * dy));
        if (d < best) {
            best = d;
            *s = r->ps[i] + u * (r->ps[i + 1] - r->ps[i]);
            *seg = i;
        }
    }
    return best;
}

static int band_of(double dist)
{
    int b = -1;
    for (int i = 0; i < (int)(sizeof bands / sizeof bands[0]); i++)
        if (dist <= bands[i]) b = i;
    return b;
}

double sim_guidance_distance(const sim_guidance *gd)
{
    const sim_route *r = gd->route;
    if (gd->next >= r->n_mans) return 0;
    double d = r->mans[gd->next].at - gd->s;
    return d > 0 ? d : 0;
}

void sim_guidance_update(sim_guidance *gd, double x, double y, double heading,
                         sim_guidance_change *ch)
{
    *ch = (sim_guidance_change){0};
    const sim_route *r = gd->route;
    if (r->n_pts < 2 || gd->arrived) return;
    int last = r->n_pts - 1;
    int a = gd->seg - WINDOW_BACK, b = gd->seg + WINDOW_AHEAD;
    a = a < 0 ? 0 : a;
    b = b > last ? last : b;
    double s = gd->s;
    int seg = gd->seg;
    double lat = project(r, a, b, x, y, &s, &seg);
    if (lat > SIM_GUIDE_OFF_M && (a > 0 || b < last)) lat = project(r, 0, last, x, y, &s, &seg);
    gd->lateral = lat;

    bool off = lat > SIM_GUIDE_OFF_M;
    if (!off && isfinite(heading)) {
        double dir = atan2(r->py[seg + 1] - r->py[seg], r->px[seg + 1] - r->px[seg]);
        double diff = fabs(remainder(heading - dir, 2 * M_PI));
        off = diff > SIM_GUIDE_OFF_HEADING;
    }
    gd->off_count = off ? gd->off_count + 1 : 0;
    bool was_off = gd->off_route;
    gd->off_route = gd->off_count >= SIM_GUIDE_OFF_COUNT;
    ch->went_off = gd->off_route && !was_off;
    if (off) return; /* progress is only taken from positions on the route */

    gd->seg = seg;
    gd->s = s;
    int next = gd->next;
    while (next < r->n_mans - 1 && r->mans[next].done <= s) next++;
    if (next != gd->next) {
        gd->next = next;
        gd->band = -1;
        ch->next_changed = true;
    }
    int band = band_of(sim_guidance_distance(gd));
    if (band > gd->band) {
        gd->band = band;
        ch->announce = true;
    }
    if (r->length - s <= SIM_GUIDE_ARRIVE_M) {
        gd->arrived = true;
        gd->next = r->n_mans - 1;
        ch->arrived = true;
    }
}
