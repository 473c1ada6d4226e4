/* sim_scenario: a scenario file (JSON) loaded into the world model, and validated.
 *
 * A scenario names its terrain, roads and junctions, points of interest, named start
 * points, the traffic set-up, triggers, test sectors and tasks (with their ideal lane
 * and driving tube) and the environment. docs/scenario.md documents every field.
 *
 * Validation collects every error, not only the first: each names the file, the JSON
 * path (e.g. `roads[2].segments[5].length`), what was found and what was expected;
 * JSON syntax errors give line and column. A scenario is returned only when it has no
 * error at all.
 *
 * Ownership: sim_scenario_load/parse return a new scenario the caller frees with
 * sim_scenario_free; every string and array in it belongs to it. Messages in a
 * sim_diag belong to the diag (sim_diag_free). No globals; the only I/O is reading
 * the scenario and the files it names. */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"
#include "sim_road.h"
#include "sim_terrain.h"
#include "sim_sky.h"

/* ---- diagnostics -------------------------------------------------------------- */

#define SIM_DIAG_MAX 200 /* messages kept; more are only counted in `dropped` */

typedef struct sim_diag {
    char **msgs;  /* "FILE: PATH: found ..., expected ..." or "FILE:LINE:COL: ..." */
    int n, cap;
    int dropped;
} sim_diag;

void sim_diag_free(sim_diag *d);
/* Appends a printf-style message (copied). Never fails visibly: when memory runs out
 * the message is counted in `dropped`. */
void sim_diag_add(sim_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the scenario ------------------------------------------------------------- */

/* Every speed in a scenario (start points, limits, signs, traffic) is at most this:
 * 1e308 km/h used to pass validation and fail at start. */
#define SIM_SCENARIO_MAX_KMH 400.0

typedef struct sim_poi {
    char *id, *name, *category;  /* category: fuel, restaurant, parking, hotel, ... */
    double x, y, z;               /* resolved world position */
    int road;                     /* road index when given as (road, s, d), else -1 */
    double s, d;
    char *attributes_json;        /* the "attributes" object re-serialised, or NULL */
} sim_poi;

typedef struct sim_start_point {
    char *name;
    int road;                     /* road index */
    double s, d;                  /* d: the lane's centre */
    int lane;
    double speed;                 /* m/s */
    double x, y, z, heading;      /* resolved pose; heading rad (default: the lane's
                                     direction of travel, reversed for left lanes) */
} sim_start_point;

typedef struct sim_behaviour {
    double headway;               /* desired time gap, s */
    double max_accel, max_decel;  /* m/s^2 */
    double min_gap;               /* standstill gap, m */
    double politeness;            /* 0..1 (MOBIL-style lane-change politeness) */
    bool lane_changes;            /* may change lanes by itself */
} sim_behaviour;

enum { SIM_TRAFFIC_MODEL_ZONES, SIM_TRAFFIC_MODEL_IDM };
enum { SIM_TRAFFIC_ENGINE_OWN, SIM_TRAFFIC_ENGINE_SUMO };

/* "traffic": {"engine": "sumo", "sumo": {...}}: the surrounding traffic is SUMO's
 * (docs/traffic.md, "SUMO"). */
typedef struct sim_sumo_config {
    char *net;                    /* a SUMO network file (full path), or NULL: netconvert the roads */
    char **routes;                /* SUMO route files (full paths); none: random trips */
    int n_routes;
    double period_s;              /* random trips: one new trip every period_s (randomTrips.py -p) */
    double end_s;                 /* random trips: departures until this time */
    double fringe_factor;         /* random trips: weight of trips starting at the network's fringe */
    double warmup_s;              /* SUMO runs alone this long before the session's time 0 */
    bool tls_guess;               /* netconvert --tls.guess: traffic lights at the junctions it picks */
    double pedestrian_period_s;   /* > 0: sidewalks, crossings and a walk every so many s (0: none) */
} sim_sumo_config;

typedef struct sim_agent {
    char *id, *model;
    int road;                     /* start */
    double s;
    int lane;
    double desired_speed;         /* m/s */
    int *route;                   /* road indices, in order; route[0] == road */
    int n_route;
    sim_behaviour behaviour;
} sim_agent;

typedef enum { SIM_BY_EGO, SIM_BY_ANY, SIM_BY_AGENT } sim_trigger_by;
typedef enum {
    SIM_ACTION_LANE_SWITCH,       /* agent moves to lane */
    SIM_ACTION_BRAKE,             /* agent brakes at decel for duration */
    SIM_ACTION_HUD_TEXT,          /* text shown for duration */
    SIM_ACTION_LOG_MARK           /* text written to the drive log's events */
} sim_action_type;

typedef struct sim_trigger {
    char *id;
    int road;
    double s_start, s_end;        /* the zone on the road */
    int *lanes;                   /* lanes of the zone; NULL = all */
    int n_lanes;
    sim_trigger_by by;
    int by_agent;                 /* agent index when by == SIM_BY_AGENT */
    bool once;
    sim_action_type action;
    int agent;                    /* lane_switch, brake: agent index */
    int lane;                     /* lane_switch */
    double decel, duration;       /* brake (m/s^2, s); hud_text (duration) */
    char *text;                   /* hud_text, log_mark */
} sim_trigger;

typedef struct sim_sector {
    char *id, *name;
    int road;
    double s_start, s_end;
} sim_sector;

/* A task: a stretch of road with an ideal lateral position d_ideal(s), piecewise
 * linear through (ideal_s[i], ideal_d[i]) and constant beyond the first and last
 * points, and a driving tube of half width tube_half_width around it. */
typedef struct sim_task {
    char *id, *name;
    int sector;                   /* sector index, or -1 */
    int road;
    double s_start, s_end;
    double tube_half_width;       /* m */
    double *ideal_s, *ideal_d;    /* n_ideal >= 1 points, s strictly ascending */
    int n_ideal;
} sim_task;

/* sim_light, sim_weather: sim_sky.h's (one table of their names, sim_sky.def) */

typedef struct sim_environment {
    sim_light light;
    double time_of_day;           /* hours since midnight, 0..24 */
    sim_weather weather;
    double visibility;            /* m */
    bool engine_sound;
    char *ambient_sound;          /* name of an ambient loop, or NULL */
    double volume;                /* 0..1 */
    bool speed_mph;               /* the HUD shows speeds and limits in mph (speed_unit) */
} sim_environment;

/* One of several cabs (drivers) of a session (docs/cabs.md). */
#define SIM_SCENARIO_MAX_CABS 8
#define SIM_SCENARIO_CAB_NAME_MAX 32 /* as SIM_CAB_NAME_MAX */
typedef struct sim_cab_spec {
    char *name;    /* 1..32 of A-Z a-z 0-9 _ -: topics say cab.NAME., modules MODULE@NAME */
    int start;     /* index into starts */
    char *vehicle; /* the vehicle file as written (relative to the working directory, as
                    * simctl run --vehicle), or NULL: the session's */
} sim_cab_spec;

typedef struct sim_scenario {
    char *path;                   /* the file it came from (or the name given to parse) */
    char *opendrive;              /* the OpenDRIVE file its roads came from, or NULL */
    char *roads_warning;          /* OpenDRIVE elements ignored ("object (12), ..."), or NULL */
    char *name, *description, *author, *version;
    sim_terrain *terrain;         /* NULL: flat ground at z = 0 */
    sim_roadnet net;              /* roads and junctions; net.terrain == terrain */
    double road_friction;         /* friction on roads outside surface zones */
    sim_poi *pois;
    int n_pois;
    sim_start_point *starts;
    int n_starts;
    uint32_t traffic_seed;
    int traffic_model;            /* SIM_TRAFFIC_MODEL_ZONES (the paper's) or _IDM (IDM + MOBIL) */
    double traffic_density;       /* ambient vehicles per km per lane around the ego, 0: none */
    double traffic_radius;        /* m around the ego where ambient traffic lives */
    int traffic_engine;           /* SIM_TRAFFIC_ENGINE_OWN (common/traffic) or _SUMO */
    sim_sumo_config sumo;         /* with SIM_TRAFFIC_ENGINE_SUMO */
    sim_agent *agents;
    int n_agents;
    sim_trigger *triggers;
    int n_triggers;
    sim_sector *sectors;
    int n_sectors;
    sim_task *tasks;
    int n_tasks;
    sim_environment env;
    /* The "automation" section, parsed (sim_automation_config.h, docs/automation.md);
     * owned; NULL when the scenario has none. */
    struct sim_auto_config *automation;
    struct sim_xosc *xosc;        /* an OpenSCENARIO file's storyboard (sim_xosc.h), or NULL */
    char *xosc_warning;           /* its elements not taken ("Nurbs (1, line 209), ..."), or NULL */
    int ego_entity;               /* the storyboard entity that is the ego, -1: none */
    /* "drt": the Detection Response Task (sim_drt.h, docs/tasks.md); NULL when the
     * scenario runs none. Owned. */
    struct sim_drt_config *drt;
    /* "scenery": roadside rules and explicit objects (sim_scenery.h, docs/scenario.md);
     * NULL when the scenario has no section (the rules' defaults apply). Owned. */
    struct sim_scenery_config *scenery;
    /* "cabs": the session's drivers, in order (the first owns the clock); none: one
     * cab as before, with plain topics (docs/cabs.md). */
    sim_cab_spec *cabs;
    int n_cabs;
} sim_scenario;

/* Loads and validates the scenario file at path; files it names (height maps,
 * OpenDRIVE roads) are relative to its directory. A path ending in .xodr is an
 * OpenDRIVE file standing alone: the scenario of its roads and nothing else. Returns 0
 * with *out set, or SIM_EINVAL / SIM_EIO with *out NULL and every error appended to
 * diag (which may be NULL). */
int sim_scenario_load(const char *path, sim_scenario **out, sim_diag *diag);
/* The same from a memory buffer (need not be NUL-terminated); `name` stands for the
 * file in messages, `base_dir` (may be NULL: the current directory) resolves the
 * files it names. */
int sim_scenario_parse(const char *text, size_t len, const char *name, const char *base_dir,
                       sim_scenario **out, sim_diag *diag);
void sim_scenario_free(sim_scenario *sc);

/* An OpenSCENARIO file (.xosc; sim_scenario_load takes them too) with parameter
 * overrides (sim_xosc.h) and the ego entity's name (NULL: the rule of
 * sim_sb_model_pick_ego): its road network, one start point (the ego's Init
 * position and speed, named after the ego), its environment, and the storyboard in
 * sc->xosc. Every Init position is checked to lie on the network. */
struct sim_xosc_override;
int sim_scenario_load_xosc(const char *path, const struct sim_xosc_override *ov, int n_ov, const char *ego,
                           sim_scenario **out, sim_diag *diag);

/* sim_scenario_load_err with OpenSCENARIO parameter overrides ("Name=value,...", as
 * --params gives them; NULL or "": none). Overrides on a file that is no .xosc are an
 * error (sim_xosc_params.c). */
int sim_scenario_load_params(const char *path, const char *params, sim_scenario **out, sim_error *err);

/* sim_scenario_load for modules that report one message: err gets the first problem
 * (it names the file) and says when there are more (simctl validate lists them). */
int sim_scenario_load_err(const char *path, sim_scenario **out, sim_error *err);

/* Index by id/name, or -1. */
int sim_scenario_find_start(const sim_scenario *sc, const char *name);
/* The start point a module was asked for: name, or the first when name is NULL.
 * Returns 0 with *index set, or SIM_ENOTFOUND with a message naming the file, the
 * name and the start points there are (the physics and input nodes say the same). */
int sim_scenario_start_index(const sim_scenario *sc, const char *name, int *index, sim_error *err);
int sim_scenario_find_task(const sim_scenario *sc, const char *id);

/* Ideal lateral offset of a task at road arc length s (m, positive left). */
double sim_task_ideal_d(const sim_task *t, double s);

/* What a wheel touches at (x, y): the road surface where a road's lanes are,
 * otherwise the terrain. */
typedef struct sim_ground {
    double z;                     /* m */
    double n[3];                  /* unit normal, up */
    double friction;
    int surface;                  /* sim_surface */
    bool on_road;
    int road;                     /* -1 when off every road */
} sim_ground;
void sim_scenario_ground(const sim_scenario *sc, double x, double y, sim_ground *out);

/* The `simctl validate` and `simctl where` commands as library calls.
 *
 * sim_scenario_validate loads path and returns 0 when it is valid, else the load's
 * error code with every message in diag. sim_scenario_where_json writes, as one JSON
 * object, what is at (x, y): {"road": id or null, "s", "d", "lane", "on_road",
 * "distance", "z", "terrain_z"} with z the ground height (road surface where a road's
 * lanes are, else terrain) and terrain_z the terrain's (only when there is terrain). The string is
 * new (caller frees); NULL when out of memory. */
int sim_scenario_validate(const char *path, sim_diag *diag);
char *sim_scenario_where_json(const sim_scenario *sc, double x, double y);
/* A trigger action's name as in scenario files ("lane_switch", ...). */
const char *sim_action_name(sim_action_type a);


#endif
