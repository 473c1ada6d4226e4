/* sim_gaze: gaze on the world (docs/instruments.md). For a gaze direction in the
 * vehicle frame (yaw left +, pitch up +, degrees, from the driver's eye), what the
 * driver looks at: an area of interest of the car (the road ahead through the
 * windscreen, a mirror, the cluster, the centre display, the HUD), or, through a
 * window area, a traffic vehicle or a sign by id.
 *
 * Areas are angular rectangles tried in their order (the first that holds the
 * direction is it, so the HUD is listed before the road ahead it overlaps). An area
 * marked window (the road ahead, side windows) lets the ray out: the nearest object it
 * meets within max_range names the hit, else the area does. An area that is not a
 * window (a mirror, a display) is the hit itself. A direction in no area still meets
 * objects (a glance through a side window the file does not list), else hits nothing.
 * Objects are boxes in the world frame (x east, y north, z up; heading CCW from +x);
 * the ego's pose and the eye's place in the body frame (x forward, y left, z up) turn
 * the ray into the world. Pure: no I/O, no globals.
 *
 * Ownership: the caller owns every array; nothing is allocated. */
#ifndef SIM_GAZE_H
#define SIM_GAZE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_error.h"

#define SIM_GAZE_AREAS_MAX 16
#define SIM_GAZE_NAME_MAX 32
#define SIM_GAZE_ID_MAX 48

typedef struct sim_gaze_area {
    char name[SIM_GAZE_NAME_MAX];
    double yaw_min, yaw_max, pitch_min, pitch_max; /* degrees, vehicle frame */
    bool window;                                   /* the ray goes on into the world */
} sim_gaze_area;

typedef enum { SIM_GAZE_NOTHING, SIM_GAZE_AREA, SIM_GAZE_VEHICLE, SIM_GAZE_SIGN } sim_gaze_kind;

typedef struct sim_gaze_object {
    sim_gaze_kind kind;           /* SIM_GAZE_VEHICLE or SIM_GAZE_SIGN */
    char id[SIM_GAZE_ID_MAX];
    double x, y, z;               /* m, world frame: the box's bottom centre */
    double heading;               /* rad, CCW from +x */
    double length, width, height; /* m */
} sim_gaze_object;

typedef struct sim_gaze_scene {
    const sim_gaze_area *areas;
    size_t n_areas;
    const sim_gaze_object *objects;
    size_t n_objects;
    double ego_x, ego_y, ego_z, ego_heading; /* the car's reference point (world frame, rad) */
    double eye[3];                /* the driver's eye from that point, body frame, m */
    double max_range;             /* m; objects farther are not seen (0: 300 m) */
} sim_gaze_scene;

typedef struct sim_gaze_hit {
    sim_gaze_kind kind;
    int index;                    /* into areas or objects; -1 for nothing */
    int area;                     /* the area the direction is in, -1: none */
    double distance;              /* m to the object's box; NAN for an area or nothing */
    char name[SIM_GAZE_ID_MAX + 8]; /* the area's name, "vehicle:ID", "sign:ID"; "" nothing */
} sim_gaze_hit;

/* The hit of the direction (degrees, finite). SIM_EINVAL for a direction that is not
 * finite or outside yaw [-180, 180], pitch [-90, 90]. */
int sim_gaze_hit_test(const sim_gaze_scene *sc, double yaw_deg, double pitch_deg, sim_gaze_hit *out,
                      sim_error *err);

/* The area holding a direction, first match, -1 when none. */
int sim_gaze_area_find(const sim_gaze_area *areas, size_t n, double yaw_deg, double pitch_deg);

/* Reads a vehicle file's "gaze_areas" array (v, at path for messages, file names the
 * file): [{"name": "road", "yaw_deg": [-15, 15], "pitch_deg": [-4, 12], "window": true},
 * ...], at most max. Errors name file, path and what was expected. */
int sim_gaze_areas_parse(const cJSON *v, const char *file, sim_gaze_area *out, size_t max, size_t *n,
                         sim_error *err);

#endif
