/* sim_xodr: ASAM OpenDRIVE (.xodr) files read into the road model (sim_road.h), with
 * libxml2.
 *
 * Read: header (revision, geoReference), roads (link, type/speed, planView with line,
 * arc, spiral, poly3, paramPoly3, elevationProfile, lateralProfile superelevation,
 * lanes: laneOffset, laneSection with left/center/right lanes: link, width, roadMark,
 * speed), junctions (connection, laneLink, controller), objects and signals
 * (sim_xodr_objects.c: objects with repeats and outlines, speed signs as lane limits,
 * traffic-light heads), controllers (sim_xodr_controllers.c: groups of heads, each
 * given a default fixed-time program, the groups of a junction taking turns).
 * Everything else (other signals by country and type, signal references, crossfall, shape, lane border/material/access/height/rule/visibility,
 * railroads, ...) is counted per element name in the report, never silently dropped:
 * callers show it as one warning.
 *
 * Errors name the file, the line and the element, e.g. `town.xodr: 812: <geometry> has
 * length -3, expected > 0`; the first one stops the load and nothing is kept. On load
 * every junction connection is checked against the geometry: a connecting road whose
 * contact end is more than SIM_XODR_GAP_MAX from the incoming road's end is an error
 * naming both roads and the gap.
 *
 * Ownership: on success *net owns everything (sim_roadnet_free); on error *net is left
 * empty. The report is plain storage. */
#ifndef SIM_XODR_H
#define SIM_XODR_H

#include <stddef.h>

#include "sim_error.h"
#include "sim_road.h"

#define SIM_XODR_GAP_MAX 0.1       /* m between a connecting road and its incoming road */
#define SIM_XODR_MAX_UNSUPPORTED 48 /* distinct unsupported element names reported */

typedef struct sim_xodr_count {
    char name[40];                 /* element name, e.g. "objects", "signal", "crossfall" */
    int count;
} sim_xodr_count;

typedef struct sim_xodr_report {
    int rev_major, rev_minor;
    int n_roads, n_junctions, n_connections, n_sections, n_lanes;
    int n_geoms[5];                /* by sim_geom_type */
    int n_elevation, n_superelevation, n_lane_offset;
    /* <objects> and <signals> (sim_xodr_objects.c) */
    int n_object_containers, n_signal_containers; /* <objects>, <signals> elements */
    int n_objects;                 /* <object> elements read */
    int n_objects_placed;          /* sim_world_objects made (repeats expanded) */
    int n_by_kind[SIM_OBJ_KIND_COUNT]; /* of those, by kind */
    int n_signals;                 /* <signal> elements */
    int n_speed_signs;             /* speed-limit signs: lane limits and drawn signs */
    int n_rule_signs;              /* stop, yield, priority-road signs drawn */
    int n_light_heads;             /* traffic-light heads (net->lights) */
    /* <controller>s (sim_xodr_controllers.c): groups of heads in net->lights */
    int n_controllers;             /* <controller> elements read */
    int n_controlled_heads;        /* heads they group */
    int n_controls_not_heads;      /* <control>s naming a signal that is no traffic-light head */
    int n_controllers_running;     /* groups given the default fixed-time program */
    sim_xodr_count unsupported[SIM_XODR_MAX_UNSUPPORTED];
    int n_unsupported;             /* distinct names in unsupported[] */
    int n_unsupported_more;        /* further distinct names not listed */
} sim_xodr_report;

/* Reads the file at path into *net (built: index ready). rep may be NULL. */
int sim_xodr_load(const char *path, sim_roadnet *net, sim_xodr_report *rep, sim_error *err);
/* The same from memory; name is used in messages. */
int sim_xodr_parse(const char *buf, size_t len, const char *name, sim_roadnet *net,
                   sim_xodr_report *rep, sim_error *err);
/* "objects (12), signal (40), crossfall (1)" into buf; "" when nothing was skipped. */
void sim_xodr_unsupported_text(const sim_xodr_report *rep, char *buf, size_t size);

/* The starter scenario for an imported network (simctl import-xodr), as a new cJSON
 * object the caller frees (NULL when out of memory or when no road has a drivable
 * lane): {"name", "description", "roads": {"opendrive": xodr_ref}, "start_points": one
 * on the first drivable lane in the direction of travel of each of the max_starts
 * longest roads outside junctions, "sectors" and "tasks": one task keeping that lane
 * along the longest such road (its ideal line the lane's centre every 5 m, as far as
 * the lane goes)}. *task_road gets the task's road index (or -1). */
struct cJSON;
struct cJSON *sim_xodr_starter(const sim_roadnet *net, const char *name, const char *xodr_ref, int max_starts,
                               int *task_road);

#endif
