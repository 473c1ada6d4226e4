/* sim_xosc: ASAM OpenSCENARIO 1.x (.xosc) files read with libxml2 into the storyboard
 * model (common/storyboard/sim_sb_model.h), for the storyboard engine to run.
 *
 * Read: FileHeader, ParameterDeclarations (with `$name` references, `${...}`
 * expressions and overrides given by the caller), CatalogLocations and
 * CatalogReferences to vehicles, pedestrians and misc objects (with
 * ParameterAssignments), RoadNetwork's LogicFile (relative to the .xosc), Entities,
 * Init (private actions, EnvironmentAction) and the Storyboard (Story, Act,
 * ManeuverGroup, Maneuver, Event, Action, triggers and conditions). docs/openscenario.md
 * lists every element of 1.2 and what becomes of it; what is not taken is counted per
 * element name with the line of its first occurrence in the report, never silently
 * dropped.
 *
 * Errors name the file, the line and the element, e.g.
 * `cut-in.xosc: 57: <EntityRef> names entity "Egg", expected one of: Ego, OverTaker`;
 * the first one stops the load and nothing is kept.
 *
 * Ownership: on success *x owns everything (sim_xosc_free); on error *x is left empty. */
#ifndef SIM_XOSC_H
#define SIM_XOSC_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_road.h"
#include "sim_sb_model.h"

#define SIM_XOSC_MAX_UNSUPPORTED 48

typedef struct sim_xosc_count {
    char name[48];
    int count;
    int line;                     /* first occurrence */
} sim_xosc_count;

typedef struct sim_xosc_report {
    int rev_major, rev_minor;
    sim_xosc_count unsupported[SIM_XOSC_MAX_UNSUPPORTED];
    int n_unsupported, n_unsupported_more;
} sim_xosc_report;

/* A parameter value given from outside (command line, study condition). */
typedef struct sim_xosc_override {
    char name[SIM_SB_NAME];
    char value[SIM_SB_NAME];
} sim_xosc_override;

typedef struct sim_xosc_env {
    bool given;
    double time_of_day;           /* hours */
    double visibility;            /* m (Fog visualRange), 0: not given */
    bool rain, snow;
} sim_xosc_env;

/* RoadNetwork <TrafficSignals>: fixed-time controllers over the OpenDRIVE file's
 * signal heads (sim_xosc_signal.c), added to the lights model by sim_xosc_lights. */
typedef struct sim_xosc_light_set {   /* one TrafficSignalState of a phase */
    char signal[SIM_SB_NAME];     /* trafficSignalId: an OpenDRIVE signal id */
    int light;                    /* a sim_light_state */
    int line;
} sim_xosc_light_set;

typedef struct sim_xosc_light_phase {
    char name[SIM_SB_NAME];
    double duration;              /* s */
    int set0, n_sets;             /* its states: sets[set0 ..] */
    int line;
} sim_xosc_light_phase;

typedef struct sim_xosc_light_ctl {  /* a TrafficSignalController */
    char name[SIM_SB_NAME];
    char ref[SIM_SB_NAME];        /* reference: the controller its delay counts from ("": none) */
    double delay;                 /* s */
    int phase0, n_phases;         /* phases[phase0 ..] */
    int line;
} sim_xosc_light_ctl;

typedef struct sim_xosc {
    char *path;                   /* the file */
    char *xodr;                   /* its LogicFile joined to its folder, NULL when none */
    char description[128];
    sim_sb_model model;
    sim_xosc_env env;
    sim_xosc_light_ctl *ctls;     /* owned, like the two below */
    int n_ctls;
    sim_xosc_light_phase *phases;
    int n_phases;
    sim_xosc_light_set *sets;
    int n_sets;
} sim_xosc;

int sim_xosc_load(const char *path, const sim_xosc_override *ov, int n_ov, sim_xosc *x,
                  sim_xosc_report *rep, sim_error *err);
/* From memory; name in messages, base_dir resolves the road and catalog files. */
int sim_xosc_parse(const char *buf, size_t len, const char *name, const char *base_dir,
                   const sim_xosc_override *ov, int n_ov, sim_xosc *x, sim_xosc_report *rep,
                   sim_error *err);
void sim_xosc_free(sim_xosc *x);
/* Resolves the road ids of every position against net: an unknown road is an error
 * naming the file, line and position element. */
int sim_xosc_resolve_roads(sim_xosc *x, const sim_roadnet *net, sim_error *err);
/* "SpeedProfileAction (2, line 88), Nurbs (1, line 120)" into buf; "" when none. */
void sim_xosc_unsupported_text(const sim_xosc_report *rep, char *buf, size_t size);
/* "Name=value,Other=value" into ov (at most max); returns how many, or SIM_EINVAL with
 * err naming the item that has no '=' or a name or value too long. */
int sim_xosc_parse_overrides(const char *text, sim_xosc_override *ov, int max, sim_error *err);

/* A traffic signal's state as OpenSCENARIO writes it (sim_xosc_signal.c): lamps from the
 * top, each on, off or flashing ("off;off;on": red, amber, green; "on;off": a pedestrian
 * head's red, green) or a sim_lights state name ("red"). A sim_light_state; -1: not one. */
int sim_xosc_light_state(const char *text);
/* The RoadNetwork's controllers into the lights model (after the OpenDRIVE file's heads
 * are in it): each controller gets the heads its phases name, in the order first named,
 * a head a phase does not name is off in it; phase 0 begins at its delay after the
 * start of its reference's phase 0 (at t = delay without one). SIM_ENOTFOUND for a
 * signal no head has or an unknown reference, SIM_EINVAL for a reference loop, a head
 * owned twice or a phase of no duration; err names the file, line and what. */
struct sim_lights;
int sim_xosc_lights(const sim_xosc *x, struct sim_lights *L, sim_error *err);

#endif
