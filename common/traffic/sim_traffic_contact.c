/* sim_traffic_contact: the ego touching an agent (see sim_traffic_contact.h). */
#include "sim_traffic_contact.h"

#include <math.h>

/* Half the extent of box b projected on the unit axis (ax, ay). */
static double half_extent(const sim_obb2 *b, double margin, double ax, double ay)
{
    double c = cos(b->heading), s = sin(b->heading);
    double hl = 0.5 * b->length + margin, hw = 0.5 * b->width + margin;
    return hl * fabs(c * ax + s * ay) + hw * fabs(-s * ax + c * ay);
}

bool sim_obb2_touch(const sim_obb2 *a, const sim_obb2 *b, double margin)
{
    double dx = b->x - a->x, dy = b->y - a->y;
    const sim_obb2 *box[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        double c = cos(box[k]->heading), s = sin(box[k]->heading);
        double axes[2][2] = {{c, s}, {-s, c}};
        for (int i = 0; i < 2; i++) {
            double ax = axes[i][0], ay = axes[i][1];
            double dist = fabs(dx * ax + dy * ay);
            if (dist > half_extent(a, margin, ax, ay) + half_extent(b, margin, ax, ay)) return false;
        }
    }
    return true;
}

int sim_traffic_contacts(const sim_traffic *t, double margin, int *out, int max)
{
    const sim_traffic_ego *e = &t->ego;
    if (!e->valid) return 0;
    sim_obb2 ego = {e->x, e->y, e->heading, e->length, e->width};
    int n = 0;
    for (int i = 0; i < t->n_slots && n < max; i++) {
        const sim_traffic_agent *a = &t->agents[i];
        if (!a->active) continue;
        /* Cheap reject first: farther apart than the two half diagonals. */
        double reach = 0.5 * (hypot(a->length, a->width) + hypot(e->length, e->width)) + 2 * margin;
        if (fabs(a->x - e->x) > reach || fabs(a->y - e->y) > reach) continue;
        sim_obb2 b = {a->x, a->y, a->heading, a->length, a->width};
        if (sim_obb2_touch(&ego, &b, margin)) out[n++] = i;
    }
    return n;
}

double sim_traffic_contact_speed(const sim_traffic *t, int slot)
{
    const sim_traffic_agent *a = &t->agents[slot];
    double v = sim_traffic_agent_speed(t, slot);
    double dvx = t->ego.speed * cos(t->ego.heading) - v * cos(a->heading);
    double dvy = t->ego.speed * sin(t->ego.heading) - v * sin(a->heading);
    return hypot(dvx, dvy);
}
