/* collide: static objects against the car, and their events (see collide.h). */
#include "collide.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_scenario_objects.h"

void pn_collide_reset(pn_collide *c, double dt)
{
    memset(c, 0, sizeof *c);
    c->apart_steps = dt > 0 ? (int)lround(PN_COLLIDE_APART_S / dt) : 5000;
}

static bool is_rail(const sim_object_list *objects, int tag)
{
    if (tag < 0 || tag >= objects->n)
        return false;
    sim_object_kind k = objects->items[tag].kind;
    return k == SIM_OBJ_GUARD_RAIL || k == SIM_OBJ_BARRIER;
}

/* Marks tag touched in this step; true when it was already in contact. */
static bool touch(pn_collide *c, int tag)
{
    for (int i = 0; i < c->n_touching; i++)
        if (c->touching[i] == tag) {
            c->apart[i] = 0;
            return true;
        }
    int k = c->n_touching;
    if (k == PN_COLLIDE_TOUCH) { /* full: the longest apart makes room */
        for (int i = k = 0; i < c->n_touching; i++)
            if (c->apart[i] > c->apart[k])
                k = i;
    } else {
        c->n_touching++;
    }
    c->touching[k] = tag;
    c->apart[k] = 0;
    return false;
}

void pn_collide_step(pn_collide *c, sim_vehicle *car, const pn_world *w)
{
    /* contacts age; those apart long enough end */
    int kept = 0;
    for (int i = 0; i < c->n_touching; i++)
        if (++c->apart[i] <= c->apart_steps) {
            c->touching[kept] = c->touching[i];
            c->apart[kept++] = c->apart[i];
        }
    c->n_touching = kept;
    const sim_obstacles *obs = pn_world_obstacles(w);
    if (obs->n == 0)
        return;
    double speed = hypot(car->y[7], car->y[8]);
    sim_obstacle_hit hits[PN_COLLIDE_TOUCH];
    int n = sim_vehicle_hit_obstacles(car, obs, hits, PN_COLLIDE_TOUCH);
    if (n > PN_COLLIDE_TOUCH)
        n = PN_COLLIDE_TOUCH;
    const sim_object_list *objects = pn_world_objects(w);
    for (int i = 0; i < n; i++) {
        int tag = hits[i].tag;
        if (tag < 0 || tag >= objects->n)
            continue;
        bool rail = is_rail(objects, tag), rail_before = false;
        for (int k = 0; rail && k < c->n_touching; k++)
            rail_before |= c->touching[k] != tag && is_rail(objects, c->touching[k]);
        /* an object of two shapes (a gantry's posts) is one contact */
        if (touch(c, tag) || rail_before || c->n_pending >= PN_COLLIDE_PENDING)
            continue;
        sim_msg_vehicle_collision *m = &c->pending[c->n_pending++];
        const char *kind = sim_object_kind_name(objects->items[tag].kind);
        snprintf(m->kind, sizeof m->kind, "%s", kind ? kind : "object");
        sim_object_event_id(objects, tag, m->id, sizeof m->id);
        m->speed = hits[i].speed;
        m->ego_speed = speed;
        m->x = hits[i].x;
        m->y = hits[i].y;
    }
}
