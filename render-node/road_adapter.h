/* road_adapter: the only place the render node asks the road model anything, so that a
 * change of common/world/sim_road.h touches this file alone. The road meshes are built
 * from: the pose at (s, t), the lane borders and their marks at s, the signs, the speed
 * limit at s and locating a point. */
#ifndef RN_ROAD_ADAPTER_H
#define RN_ROAD_ADAPTER_H

#include <stdbool.h>

#include "sim_scenario.h"

typedef enum { RA_MARK_NONE, RA_MARK_SOLID, RA_MARK_BROKEN, RA_MARK_SOLID_SOLID, RA_MARK_SOLID_BROKEN,
               RA_MARK_BROKEN_SOLID, RA_MARK_BROKEN_BROKEN } ra_mark;
typedef enum { RA_LANE_DRIVING, RA_LANE_SHOULDER, RA_LANE_MEDIAN, RA_LANE_SIDEWALK, RA_LANE_PARKING,
               RA_LANE_OTHER } ra_lane_type;

#define RA_MAX_BORDERS 24

/* The cross-section at s: borders by increasing t (right to left); lane k lies between
 * border k and k+1. */
typedef struct ra_section {
    int n;                               /* borders, 0..RA_MAX_BORDERS */
    double t[RA_MAX_BORDERS];            /* lateral offset of each border, m, left positive */
    ra_mark mark[RA_MAX_BORDERS];
    double mark_width[RA_MAX_BORDERS];   /* m */
    bool yellow[RA_MAX_BORDERS];
    ra_lane_type lane[RA_MAX_BORDERS];   /* lane k, for k < n - 1 */
} ra_section;

typedef enum { RA_SIGN_SPEED_LIMIT, RA_SIGN_LANE_CHANGE, RA_SIGN_STOP, RA_SIGN_YIELD, RA_SIGN_PRIORITY,
               RA_SIGN_TEXT } ra_sign_type;

typedef struct ra_sign {
    ra_sign_type type;
    double s, t;        /* place on the road */
    double kmh;         /* speed limit */
    int lane;           /* lane change: target lane id */
    int lane_index;     /* lane change: position of the target among the driving lanes of its
                           side counted from the left (1 = leftmost), and how many there are */
    int lanes;
    const char *text;   /* borrowed from the scenario */
    double heading;     /* the direction the sign faces (towards oncoming drivers) */
    double legible_m;   /* lane change: blank until the driver is this close, 0: never blank */
} ra_sign;

int ra_road_count(const sim_scenario *sc);
double ra_road_length(const sim_scenario *sc, int road);
/* World point and the reference line's heading at (s, t) on road, on its surface. */
void ra_pose(const sim_scenario *sc, int road, double s, double t, double p[3], double *heading);
/* Surface normal at (s, t). */
void ra_normal(const sim_scenario *sc, int road, double s, double t, double n[3]);
void ra_section_at(const sim_scenario *sc, int road, double s, ra_section *out);
/* The s range over which the lane layout (number and kinds of lanes) stays the one at s. */
void ra_section_range(const sim_scenario *sc, int road, double s, double *s0, double *s1);
/* The road's signs (at most max); returns how many. */
int ra_signs(const sim_scenario *sc, int road, ra_sign *out, int max);
int ra_sign_count(const sim_scenario *sc, int road);
/* Centre offset of lane id at s; false when the road has no such lane. */
bool ra_lane_center(const sim_scenario *sc, int road, double s, int lane, double *t);
/* Whether traffic in the lane runs along s. */
bool ra_lane_forward(const sim_scenario *sc, int road, int lane);
/* Speed limit (km/h, 0: none) where (x, y) is on a road; false off every road. */
bool ra_speed_limit_at(const sim_scenario *sc, double x, double y, double *kmh, int *road, double *s);
/* The same at a place given on a road (id, s, lane id); false when the road is not in
 * sc or lane is 0 (off the lanes). *road: the road's index. */
bool ra_speed_limit_on(const sim_scenario *sc, const char *road_id, double s, int lane, double *kmh, int *road);

#endif
