/* world: the physics node's view of the world (see world.h). */
#include "world.h"

#include <stdlib.h>
#include <string.h>

struct pn_world {
    sim_ground_plane plane;
    sim_ground ground;
};

int pn_world_open(const char *scenario, pn_world **out, sim_error *err)
{
    if (scenario)
        return sim_error_set(err, SIM_EINVAL,
                             "%s: scenarios need the world model, which this build does not have yet; "
                             "run without --scenario for a flat plane",
                             scenario);
    pn_world *w = calloc(1, sizeof(*w));
    if (!w)
        return sim_error_set(err, SIM_ENOMEM, "world: out of memory");
    w->plane = (sim_ground_plane){0.0, 0.0, 0.0, 1.0, 0.0};
    w->ground = sim_ground_from_plane(&w->plane);
    *out = w;
    return 0;
}

void pn_world_free(pn_world *w) { free(w); }

const sim_ground *pn_world_ground(const pn_world *w) { return &w->ground; }

int pn_world_start(const pn_world *w, const char *name, sim_vehicle_start *out, sim_error *err)
{
    if (name && strcmp(name, "origin") != 0)
        return sim_error_set(err, SIM_ENOTFOUND, "start point \"%s\": not found, expected one of: origin",
                             name);
    *out = (sim_vehicle_start){0.0, 0.0, 0.0, 0.0, 1};
    return 0;
}

void pn_world_road(const pn_world *w, double x, double y, pn_road_pos *out)
{
    memset(out, 0, sizeof(*out));
}
