/* world: the physics node's view of the world model (see world.h). */
#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_scenario.h"
#include "sim_scenario_objects.h"

struct pn_world {
    sim_scenario *sc;        /* NULL: flat plane */
    sim_ground_plane plane;
    sim_vehicle_ground ground;
    sim_object_list objects;   /* trees, rails, buildings, ... */
    sim_obstacles obstacles;   /* their collision shapes */
};

static int scenario_ground(void *ctx, double x, double y, sim_ground_sample *out)
{
    const pn_world *w = ctx;
    sim_ground g;
    sim_scenario_ground(w->sc, x, y, &g);
    out->height = g.z;
    out->normal[0] = g.n[0];
    out->normal[1] = g.n[1];
    out->normal[2] = g.n[2];
    out->friction = g.friction;
    const sim_surface_props *sp = sim_surface_props_of(g.surface);
    out->roughness = sp->roughness;
    out->rolling = sp->rolling;
    return 0;
}

int pn_world_open(const char *scenario, const char *params, pn_world **out, sim_error *err)
{
    pn_world *w = calloc(1, sizeof(*w));
    if (!w)
        return sim_error_set(err, SIM_ENOMEM, "world: out of memory");
    if (scenario) {
        int rc = sim_scenario_load_params(scenario, params, &w->sc, err);
        if (rc) {
            free(w);
            return rc;
        }
        w->ground = (sim_vehicle_ground){.sample = scenario_ground, .ctx = w};
        /* the objects the render node draws, as bodies the car hits */
        rc = sim_scenario_objects(w->sc, &w->objects);
        if (rc >= 0)
            rc = sim_scenario_light_posts(w->sc, &w->objects);
        if (rc >= 0)
            rc = sim_scenario_sign_posts(w->sc, &w->objects);
        if (rc < 0) {
            rc = sim_error_set(err, rc, "%s: scenery: out of memory", scenario);
        } else {
            rc = sim_scenario_obstacles(&w->objects, &w->obstacles, err);
        }
        if (rc) {
            pn_world_free(w);
            return rc;
        }
    } else {
        w->plane = (sim_ground_plane){0.0, 0.0, 0.0, 1.0, 0.0};
        w->ground = sim_ground_from_plane(&w->plane);
    }
    *out = w;
    return 0;
}

void pn_world_free(pn_world *w)
{
    if (!w)
        return;
    sim_scenario_free(w->sc);
    sim_object_list_free(&w->objects);
    sim_obstacles_free(&w->obstacles);
    free(w);
}

const sim_vehicle_ground *pn_world_ground(const pn_world *w) { return &w->ground; }

const sim_object_list *pn_world_objects(const pn_world *w) { return &w->objects; }

const sim_obstacles *pn_world_obstacles(const pn_world *w) { return &w->obstacles; }

int pn_world_start(const pn_world *w, const char *name, sim_vehicle_start *out, sim_error *err)
{
    if (!w->sc || w->sc->n_starts == 0) {
        if (name && strcmp(name, "origin") != 0)
            return sim_error_set(err, SIM_ENOTFOUND, "start point \"%s\": not found, expected: origin",
                                 name);
        *out = (sim_vehicle_start){0.0, 0.0, 0.0, 0.0, 1};
        return 0;
    }
    int i;
    int rc = sim_scenario_start_index(w->sc, name, &i, err);
    if (rc)
        return rc;
    const sim_start_point *sp = &w->sc->starts[i];
    *out = (sim_vehicle_start){sp->x, sp->y, sp->heading, sp->speed, 1};
    return 0;
}

void pn_world_road(const pn_world *w, double x, double y, double z, double heading, pn_road_pos *out)
{
    memset(out, 0, sizeof(*out));
    sim_road_loc loc;
    /* Height and heading pick among overlapping roads (a junction's connecting roads,
     * a bridge over a road): the one the car drives along. */
    sim_locate_query q = {.x = x, .y = y, .z = z, .heading = heading};
    if (!w->sc || sim_roadnet_locate_query(&w->sc->net, &q, &loc) != 0)
        return;
    out->valid = true;
    out->road = loc.road;
    out->road_id = loc.road >= 0 && loc.road < w->sc->net.n_roads ? w->sc->net.roads[loc.road].id : NULL;
    out->s = loc.s;
    out->d = loc.d;
    out->lane = loc.on_road ? loc.lane.lane : 0;
    out->lane_offset = loc.on_road ? loc.d - loc.lane.center_d : 0.0;
}

bool pn_world_at_end(const pn_world *w, const pn_road_pos *pos, bool *was_inside)
{
    if (!w->sc || w->sc->n_sectors == 0 || !pos->valid)
        return false;
    const sim_sector *last = &w->sc->sectors[w->sc->n_sectors - 1];
    bool inside = pos->road == last->road && pos->s >= last->s_start && pos->s < last->s_end;
    /* A sector ending where its road does (town.json's main street, at a junction):
     * the car is located on the junction's road before its s reaches the end, so
     * leaving the sector after being in it is the end as well. */
    bool left = *was_inside && !inside;
    *was_inside = inside;
    return (pos->road == last->road && pos->s >= last->s_end) || left;
}
