/* sim_road: roads as reference lines with lanes, and the network they form.
 *
 * Follows ASAM OpenDRIVE's plan view and lane model so that an importer can map onto
 * it: a road's reference line is a chain of geometries (line, arc, clothoid) along
 * the arc length s; a point is (s, d) with d the lateral offset, positive to the left
 * of the direction of s. Lanes sit on both sides of the reference line (the centre
 * lane 0 has no width): left lanes have ids 1, 2, ... outwards, right lanes -1, -2,
 * ... outwards. In right-hand traffic the right lanes run in the direction of s. Each
 * lane has a width and the mark on its outer border; the centre mark lies on d = 0.
 * One lane layout holds for a whole road (no OpenDRIVE lane sections: an importer
 * splits a road where its layout changes).
 *
 * Roads link end to end (predecessor/successor) or through junctions whose
 * connecting roads carry lane-to-lane links; together this is the graph that routing
 * and traffic walk.
 *
 * Exactness: lines and arcs are evaluated and projected in closed form; clothoids by
 * Gauss-Legendre integration of the Fresnel integrals from a table every
 * SIM_CLOTHOID_STEP metres, accurate to far better than 1 mm (tests compare with the
 * Fresnel series).
 *
 * Ownership: a sim_roadnet owns its roads, junctions and everything they point to;
 * sim_roadnet_free releases all of it. The terrain pointer is borrowed. */
#ifndef SIM_ROAD_H
#define SIM_ROAD_H

#include <stdbool.h>

#include "sim_error.h"
#include "sim_terrain.h"

#define SIM_CLOTHOID_STEP 2.0     /* m between clothoid table points */
#define SIM_GEOM_MAX_LENGTH 1e6   /* m, longest single geometry accepted */

typedef enum { SIM_GEOM_LINE, SIM_GEOM_ARC, SIM_GEOM_CLOTHOID } sim_geom_type;

/* One piece of a reference line. k0/k1: curvature (1/m, positive turning left) at the
 * start and the end; equal for an arc, zero for a line, varying linearly in s for a
 * clothoid. */
typedef struct sim_geom {
    sim_geom_type type;
    double s0;            /* s at the start of this piece along its road, m */
    double length;        /* m, > 0 */
    double x0, y0, hdg0;  /* start pose: m, m, rad */
    double k0, k1;        /* 1/m */
    int n_tab;            /* clothoid table: (x, y) every SIM_CLOTHOID_STEP m; owned */
    double *tab;
} sim_geom;

/* Prepares a geometry whose type, length, curvatures and start pose are set (builds a
 * clothoid's table). Returns SIM_ERANGE for a non-finite or non-positive length or a
 * non-finite curvature, SIM_ENOMEM. */
int sim_geom_prepare(sim_geom *g, sim_error *err);
/* Pose at local arc length t in [0, length] (clamped): position and heading. */
void sim_geom_eval(const sim_geom *g, double t, double *x, double *y, double *hdg);
void sim_geom_free(sim_geom *g);
/* Memory a geometry will take, in units (clothoid table points plus spatial-index
 * pieces; about 60 bytes each), computed from type, length and curvatures before
 * sim_geom_prepare: loaders use it to bound what a file can make them allocate. */
double sim_geom_cost(const sim_geom *g);

typedef enum { SIM_MARK_NONE, SIM_MARK_SOLID, SIM_MARK_DASHED } sim_mark_type;
typedef enum {
    SIM_LANE_DRIVING,
    SIM_LANE_SHOULDER,
    SIM_LANE_MEDIAN,
    SIM_LANE_SIDEWALK,
    SIM_LANE_PARKING
} sim_lane_type;

typedef struct sim_lane {
    int id;              /* 1, 2, ... left; -1, -2, ... right */
    double width;        /* m, > 0 */
    sim_lane_type type;
    sim_mark_type mark;  /* mark on the lane's outer border */
} sim_lane;

typedef struct sim_speed_limit {
    double s_start, s_end; /* m, s_start < s_end */
    double speed;          /* m/s */
} sim_speed_limit;

typedef enum {
    SIM_SIGN_SPEED_LIMIT, /* value: m/s */
    SIM_SIGN_LANE_CHANGE, /* lane: the lane to change to */
    SIM_SIGN_STOP,
    SIM_SIGN_YIELD,
    SIM_SIGN_PRIORITY,
    SIM_SIGN_TEXT         /* text */
} sim_sign_type;

typedef struct sim_sign {
    sim_sign_type type;
    double s, d;        /* position on the road; d defaults to just outside the right lanes */
    double value;
    int lane;
    char *text;         /* owned, may be NULL */
} sim_sign;

/* A stretch of road surface differing from the terrain's (a wet patch, gravel). */
typedef struct sim_surface_zone {
    double s_start, s_end;
    double friction;
    int surface;        /* sim_surface */
} sim_surface_zone;

typedef enum { SIM_ELEV_TERRAIN, SIM_ELEV_PROFILE } sim_elev_mode;

typedef enum { SIM_LINK_NONE, SIM_LINK_ROAD, SIM_LINK_JUNCTION } sim_link_kind;
typedef enum { SIM_CONTACT_START, SIM_CONTACT_END } sim_contact;

typedef struct sim_road_link {
    sim_link_kind kind;
    int index;           /* road or junction index in the network */
    sim_contact contact; /* for a road: which end of it touches ours */
} sim_road_link;

typedef struct sim_road {
    char *id, *name;               /* owned; id unique in the network */
    sim_geom *geoms;
    int n_geoms;
    double length;                 /* m, sum of the geometries */
    sim_lane *left, *right;        /* left[k] is lane k+1, right[k] is lane -(k+1) */
    int n_left, n_right;
    sim_mark_type center_mark;
    double left_width, right_width; /* total widths each side, m */
    sim_speed_limit *limits;
    int n_limits;
    sim_sign *signs;
    int n_signs;
    sim_surface_zone *zones;
    int n_zones;
    sim_elev_mode elev_mode;
    double *elev_s, *elev_z;       /* profile points, s ascending (SIM_ELEV_PROFILE) */
    int n_elev;
    sim_road_link pred, succ;
    int junction;                  /* junction this road connects through, or -1 */
} sim_road;

typedef struct sim_lane_link {
    int from, to;                  /* incoming road's lane id -> connecting road's lane id */
} sim_lane_link;

typedef struct sim_connection {
    int incoming, connecting;      /* road indices */
    sim_contact contact;           /* end of the connecting road joined to the incoming road */
    sim_lane_link *lanes;
    int n_lanes;
} sim_connection;

typedef struct sim_junction {
    char *id, *name;
    sim_connection *conns;
    int n_conns;
} sim_junction;

struct sim_roadnet_index; /* private spatial index */

typedef struct sim_roadnet {
    sim_road *roads;
    int n_roads;
    sim_junction *junctions;
    int n_junctions;
    const sim_terrain *terrain;    /* borrowed; NULL = flat ground at z = 0 */
    struct sim_roadnet_index *index;
} sim_roadnet;

/* Builds the spatial index for sim_roadnet_locate once roads are complete (geometries
 * prepared, lanes set). Call again after changing roads. */
int sim_roadnet_build_index(sim_roadnet *net, sim_error *err);
/* Frees everything the network owns and zeroes it. */
void sim_roadnet_free(sim_roadnet *net);
void sim_road_free(sim_road *r);
/* Whether a vehicle can drive from road a onto road b: an end-to-end link either way,
 * or b is a connecting road of a junction that a enters (or the reverse). */
bool sim_roadnet_connected(const sim_roadnet *net, int a, int b);
/* Index of the road or junction with this id, or -1. */
int sim_roadnet_find_road(const sim_roadnet *net, const char *id);
int sim_roadnet_find_junction(const sim_roadnet *net, const char *id);

/* A point on a road in world terms. heading is the reference line's direction at s
 * (the direction of travel in right lanes). */
typedef struct sim_road_pose {
    double x, y, z, heading;
} sim_road_pose;

/* (s, d) on road -> world pose. s outside [0, length] is SIM_ERANGE (pose of the
 * clamped s still written); a road without geometry is SIM_EINVAL (pose at the
 * origin). */
int sim_road_pose_at(const sim_roadnet *net, int road, double s, double d, sim_road_pose *out);

/* Where a lateral offset falls in a road's lane layout. */
typedef struct sim_lane_info {
    int lane;                 /* lane id, 0 when d is outside every lane */
    double center_d, width;   /* the lane's centre offset and width */
    double left_d, right_d;   /* its borders, left and right seen in the direction of s */
    sim_mark_type left_mark, right_mark;
    sim_lane_type type;
} sim_lane_info;

/* Lane at offset d (d > 0 left lanes, d <= 0 right lanes, the centre line itself
 * belonging to lane -1 when there is one). Returns false (info->lane 0) outside. */
bool sim_road_lane_at(const sim_road *r, double d, sim_lane_info *info);
/* Centre offset of lane id, or false when the road has no such lane. */
bool sim_road_lane_center(const sim_road *r, int lane, double *d);
/* Speed limit at s (m/s), 0 when none applies. */
double sim_road_speed_limit(const sim_road *r, double s);
/* Road surface zone covering s, or NULL. */
const sim_surface_zone *sim_road_zone_at(const sim_road *r, double s);

/* Projection of one point onto one road's reference line: the nearest foot point.
 * *s in [0, length]; *d signed (left positive); *inside says the foot point is a true
 * perpendicular one (not clamped to an end). *dist is the distance to the foot point. */
void sim_road_project(const sim_road *r, double x, double y, double *s, double *d, double *dist,
                      bool *inside);

/* A world point located in the network. */
typedef struct sim_road_loc {
    int road;                 /* road index; -1 only for an empty network */
    double s, d;
    bool on_road;             /* inside one of the road's lanes */
    double distance;          /* m from the road's outer lane border (0 when on_road) */
    double heading;           /* reference-line heading at s */
    double z;                 /* road surface height at (s, d) */
    sim_lane_info lane;
} sim_road_loc;

/* (x, y) -> road, s, d, lane and its marks. Among roads whose lanes contain the point
 * the one with the smallest |d| wins; when none does, the nearest road (distance from
 * its outer border) is reported with on_road false. Returns SIM_ENOTFOUND when the
 * network has no roads. */
int sim_roadnet_locate(const sim_roadnet *net, double x, double y, sim_road_loc *out);
/* Only roads whose lanes contain the point, through the index alone: SIM_ENOTFOUND
 * (out then meaningless) when the point is on no road. For hot paths that need not know the
 * nearest road off-road (ground contact, traffic), whose misses would otherwise pay
 * for a search of every road. */
int sim_roadnet_locate_on_road(const sim_roadnet *net, double x, double y, sim_road_loc *out);
/* Same, by testing every geometry of every road (no index): the reference for tests
 * and the benchmark baseline. */
int sim_roadnet_locate_brute(const sim_roadnet *net, double x, double y, sim_road_loc *out);

/* Road surface height at (s, d): the terrain below the point, or the road's own
 * profile (piecewise cubic Hermite through its points, flat beyond the ends). */
double sim_road_height(const sim_roadnet *net, int road, double s, double d);
/* The same height, and the surface's unit normal there: the terrain's normal, or for
 * a profile the normal of its grade along the road, level across it (analytic). */
double sim_road_surface(const sim_roadnet *net, int road, double s, double d, double n[3]);

/* Names used in files, and parsing them back (-1 when unknown). */
const char *sim_mark_name(sim_mark_type m);
int sim_mark_parse(const char *name);
const char *sim_lane_type_name(sim_lane_type t);
int sim_lane_type_parse(const char *name);
const char *sim_sign_type_name(sim_sign_type t);
int sim_sign_type_parse(const char *name);

#endif
