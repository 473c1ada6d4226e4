/* sim_surface: what each ground surface does to a tyre (friction, rolling resistance,
 * roughness) and which surface a road's lane is, so that the physics drives grass,
 * gravel and the verge unlike asphalt (docs/world.md, "Surfaces"). */
#include "sim_road.h"
#include "sim_terrain.h"

/* Friction factors relative to dry asphalt (the tyre data's surface) and rolling
 * resistance added to the tyre's own (about 0.012 on asphalt); from the ranges in
 * Wong, Theory of Ground Vehicles (rolling resistance of car tyres: concrete 0.015,
 * medium-hard soil 0.08, sand 0.15-0.3) and the usual tyre-road friction tables
 * (grass 0.4-0.6, loose gravel 0.5-0.7, packed snow 0.2-0.4, ice 0.05-0.15). */
static const sim_surface_props table[SIM_SURFACE_COUNT] = {
    [SIM_SURFACE_ASPHALT] = {1.00, 0.000, 0.0},
    [SIM_SURFACE_GRASS] = {0.55, 0.060, 0.5},
    [SIM_SURFACE_GRAVEL] = {0.65, 0.020, 0.8},
    [SIM_SURFACE_SAND] = {0.45, 0.150, 0.4},
    [SIM_SURFACE_SNOW] = {0.30, 0.025, 0.2},
    [SIM_SURFACE_ICE] = {0.12, 0.000, 0.0},
    [SIM_SURFACE_WATER] = {0.50, 0.050, 0.1},
};

const sim_surface_props *sim_surface_props_of(int surface)
{
    if (surface < 0 || surface >= SIM_SURFACE_COUNT)
        surface = SIM_SURFACE_ASPHALT;
    return &table[surface];
}

int sim_lane_surface(sim_lane_type t)
{
    switch (t) {
    case SIM_LANE_MEDIAN:
    case SIM_LANE_BORDER:
    case SIM_LANE_NONE: return SIM_SURFACE_GRASS;
    default: return SIM_SURFACE_ASPHALT;
    }
}
