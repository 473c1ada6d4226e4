/* sim_scenery.h - roadside scenery placed by rules from the road data.
 *
 * A scenario's "scenery" section (docs/scenario.md) switches rules on or off and sets
 * their spacing and offsets, and lists explicit objects; sim_scenery_place turns the
 * rules and a road network into a sim_object_list, deterministically from the seed (the
 * same network, rules and seed give the same objects, road by road, so adding a road
 * elsewhere does not move the trees of the others). Pure: no I/O, no globals.
 *
 * Styles: each road (outside junctions) is rural, motorway or town. "auto" picks it from
 * the lane types: a sidewalk or curb lane makes a town street, a median lane a motorway,
 * anything else a rural road. Each style has its rules switched on by default:
 *   rural:    trees, bushes, delineator posts every 50 m (Germany, RPS/ RAL),
 *   motorway: delineator posts every 50 m, guard rails on both outer edges, a concrete
 *             central barrier on the median, distance markers every 500 m, trees far out,
 *             sign gantries every 2 km spanning the road, posts 1.5 m outside its edges,
 *   town:     kerbs along sidewalks, street lights every 30 m, buildings along streets;
 *   every style: piers under a road that runs more than 3 m above the ground (bridges,
 *             Town03's elevated roads), junction roads included.
 * A rule named in the section overrides its style's default for every road. */
#ifndef SIM_SCENERY_H
#define SIM_SCENERY_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_json.h"
#include "sim_objects.h"
#include "sim_road.h"

typedef enum {
    SIM_SCENERY_AUTO,
    SIM_SCENERY_RURAL,
    SIM_SCENERY_MOTORWAY,
    SIM_SCENERY_TOWN,
    SIM_SCENERY_NONE,      /* no rule places anything; explicit objects still stand */
    SIM_SCENERY_STYLE_COUNT
} sim_scenery_style;

typedef enum {
    SIM_RULE_TREES,
    SIM_RULE_BUSHES,
    SIM_RULE_DELINEATORS,
    SIM_RULE_GUARD_RAILS,
    SIM_RULE_BARRIER,
    SIM_RULE_MARKERS,
    SIM_RULE_KERBS,
    SIM_RULE_BUILDINGS,
    SIM_RULE_STREET_LIGHTS,
    SIM_RULE_SUPPORTS,     /* piers under a road more than 3 m above the ground (every style) */
    SIM_RULE_GANTRIES,     /* sign gantries spanning the whole road (motorway) */
    SIM_RULE_COUNT
} sim_scenery_rule_id;

/* One rule: on, the mean spacing along the road (m) and the offset from the road's
 * outer edge (m, outwards; trees, bushes and buildings spread over `depth` beyond it). */
typedef struct sim_scenery_rule {
    bool set;              /* given in the scenario: overrides the style's default */
    bool on;
    double spacing, offset, depth;
} sim_scenery_rule;

typedef struct sim_scenery_config {
    sim_scenery_style style;
    uint32_t seed;
    sim_scenery_rule rules[SIM_RULE_COUNT];
    int max_objects;       /* placement stops there (a guard against huge networks) */
    sim_object_list objects; /* explicit objects; owned */
} sim_scenery_config;

/* Defaults: style auto, seed 1, no rule overridden, no explicit objects. */
void sim_scenery_config_init(sim_scenery_config *c);
void sim_scenery_config_free(sim_scenery_config *c);
/* Reads the "scenery" object v at path; errors name the field and what was expected
 * ("PATH.rules.trees.spacing_m: found -3, expected a number from 2 to 1000"). */
int sim_scenery_config_parse(sim_json *j, const cJSON *v, const char *path, sim_scenery_config *out);

/* "rural", "trees", ... (the section's names); NULL if out of range. */
const char *sim_scenery_style_name(sim_scenery_style s);
/* The style names in enum order (for parsing). */
const char *const *sim_scenery_style_names(void);
const char *sim_scenery_rule_name(sim_scenery_rule_id r);
/* The rule as it applies on a road of the given style (override or default). */
sim_scenery_rule sim_scenery_rule_for(const sim_scenery_config *c, sim_scenery_style style, sim_scenery_rule_id r);
/* The style auto gives a road (from its first lane section's lane types). */
sim_scenery_style sim_scenery_road_style(const sim_road *r);

/* Appends the objects the rules place along every road of net (roads inside junctions
 * get none; nothing is placed where a road's lanes are) and then c's explicit objects.
 * Ground height from net->terrain (flat z = 0 without one); posts, rails, kerbs and
 * lights stand on the road's own surface height. Returns the number appended, or
 * SIM_ENOMEM (the list then holds what was placed before). */
int sim_scenery_place(const sim_roadnet *net, const sim_scenery_config *c, sim_object_list *out);

#endif
