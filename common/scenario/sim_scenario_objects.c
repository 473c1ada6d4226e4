/* sim_scenario_objects: a scenario's objects for drawing and for collisions (see
 * sim_scenario_objects.h). */
#include "sim_scenario_objects.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_scenery.h"

int sim_scenario_objects(const sim_scenario *sc, sim_object_list *out)
{
    sim_scenery_config def;
    sim_scenery_config_init(&def);
    const sim_scenery_config *cfg = sc->scenery ? sc->scenery : &def;
    int rc = sim_scenery_place(&sc->net, cfg, out);
    int added = rc;
    for (int i = 0; rc >= 0 && i < sc->net.objects.n; i++) {
        if (!sim_object_list_add(out, &sc->net.objects.items[i]))
            rc = SIM_ENOMEM;
        else
            added++;
    }
    sim_scenery_config_free(&def);
    return rc < 0 ? rc : added;
}

int sim_scenario_light_posts(const sim_scenario *sc, sim_object_list *out)
{
    int added = 0;
    for (int i = 0; i < sc->net.lights.n_heads; i++) {
        const sim_light_head *h = &sc->net.lights.heads[i];
        sim_road_loc loc;
        if (sim_roadnet_locate_on_road(&sc->net, h->x, h->y, &loc) == SIM_OK && loc.on_road &&
            sim_lane_type_drivable(loc.lane.type))
            continue;
        /* as render-node/lights.c draws it: the head from z_offset (2.5 m) for height (0.8 m) */
        double top = (h->z_offset > 0 ? h->z_offset : 2.5) + (h->height > 0.2 ? h->height : 0.8);
        char id[128];
        snprintf(id, sizeof id, "traffic_light:%s", h->id ? h->id : "");
        sim_world_object o = {.kind = SIM_OBJ_POLE, .id = id, .x = h->x, .y = h->y, .z = h->z,
                              .heading = h->heading, .length = 0.14, .width = 0.14, .height = top};
        if (!sim_object_list_add(out, &o))
            return SIM_ENOMEM;
        added++;
    }
    return added;
}

int sim_scenario_sign_posts(const sim_scenario *sc, sim_object_list *out)
{
    int added = 0;
    for (int r = 0; r < sc->net.n_roads; r++) {
        const sim_road *road = &sc->net.roads[r];
        for (int k = 0; k < road->n_signs; k++) {
            const sim_sign *g = &road->signs[k];
            sim_road_pose p;
            if (sim_road_pose_at(&sc->net, r, g->s, g->d, &p) != SIM_OK)
                continue;
            sim_lane_info info;
            if (sim_road_lane_at(road, g->s, g->d, &info) && sim_lane_type_drivable(info.type))
                continue; /* a sign placed on a lane (a test's) would stand in the traffic */
            char id[128];
            snprintf(id, sizeof id, "sign:%s:%d", road->id ? road->id : "", k);
            /* render-node/roads.c draws an 0.08 m post up to the board's middle (1.4 m
             * plus half the board); 0.1 m here, the thinnest shape the tunnelling bound
             * of sim_obstacles.h holds for */
            sim_world_object o = {.kind = SIM_OBJ_POLE, .id = id, .x = p.x, .y = p.y, .z = p.z,
                                  .heading = p.heading, .length = 0.1, .width = 0.1, .height = 2.0};
            if (!sim_object_list_add(out, &o))
                return SIM_ENOMEM;
            added++;
        }
    }
    return added;
}

#define MIN_HEIGHT 0.3 /* m: lower things pass under the body */

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

int sim_object_shapes(const sim_world_object *o, int tag, sim_obstacle out[2])
{
    if (!(o->height >= MIN_HEIGHT))
        return 0;
    double c = cos(o->heading), s = sin(o->heading);
    sim_obstacle base = {.x = o->x, .y = o->y, .heading = o->heading, .z0 = o->z, .z1 = o->z + o->height,
                         .tag = tag};
    switch (o->kind) {
    case SIM_OBJ_BUSH:
    case SIM_OBJ_DELINEATOR:
    case SIM_OBJ_KERB:
        return 0;
    case SIM_OBJ_TREE:
        /* the trunk as drawn: a tenth of the crown's width (render-node/scenery.c) */
        base.shape = SIM_SHAPE_CYLINDER;
        base.half_w = clamp(0.05 * fmax(o->length, o->width), 0.1, 0.6);
        out[0] = base;
        return 1;
    case SIM_OBJ_POLE:
        base.shape = SIM_SHAPE_CYLINDER;
        base.half_w = clamp(0.5 * fmin(o->length, o->width), 0.05, 0.5);
        out[0] = base;
        return 1;
    case SIM_OBJ_STREET_LIGHT:
        base.shape = SIM_SHAPE_CYLINDER; /* its post, at the base; the arm is overhead */
        base.half_w = 0.1;
        out[0] = base;
        return 1;
    case SIM_OBJ_GUARD_RAIL:
    case SIM_OBJ_BARRIER:
        /* a segment from its pose along its heading (sim_objects.h) */
        if (!(o->length > 0.0))
            return 0;
        base.shape = SIM_SHAPE_RAIL;
        base.x = o->x + 0.5 * o->length * c;
        base.y = o->y + 0.5 * o->length * s;
        base.half_l = 0.5 * o->length;
        base.half_w = fmax(0.5 * o->width, 0.1);
        out[0] = base;
        return 1;
    case SIM_OBJ_GANTRY:
        /* the two posts, 0.5 m square, at the ends of the span (across the heading) */
        for (int k = 0; k < 2; k++) {
            double side = k ? 0.5 * o->width : -0.5 * o->width;
            out[k] = base;
            out[k].shape = SIM_SHAPE_BOX;
            out[k].x = o->x - side * s;
            out[k].y = o->y + side * c;
            out[k].half_l = out[k].half_w = 0.25;
        }
        return 2;
    default: /* buildings, boxes, piers, models */
        if (!(o->length >= 0.05 && o->width >= 0.05))
            return 0;
        base.shape = SIM_SHAPE_BOX;
        base.half_l = 0.5 * o->length;
        base.half_w = 0.5 * o->width;
        out[0] = base;
        return 1;
    }
}

int sim_scenario_obstacles(const sim_object_list *list, sim_obstacles *out, sim_error *err)
{
    sim_obstacle *shapes = malloc(((size_t)list->n * 2 + 1) * sizeof *shapes);
    if (!shapes)
        return sim_error_set(err, SIM_ENOMEM, "obstacles: out of memory for %d objects", list->n);
    int n = 0;
    for (int i = 0; i < list->n; i++)
        n += sim_object_shapes(&list->items[i], i, shapes + n);
    int rc = sim_obstacles_build(out, shapes, n, err);
    free(shapes);
    return rc;
}

void sim_object_event_id(const sim_object_list *list, int index, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    if (index < 0 || index >= list->n)
        return;
    const sim_world_object *o = &list->items[index];
    if (o->id && o->id[0]) {
        sim_format(buf, size, "%s", o->id);
        return;
    }
    const char *kind = sim_object_kind_name(o->kind);
    sim_format(buf, size, "%s-%d", kind ? kind : "object", index);
}
