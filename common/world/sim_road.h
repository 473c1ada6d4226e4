/* sim_road: roads as ASAM OpenDRIVE has them, and the network they form.
 *
 * A road's reference line is a chain of geometries (line, arc, spiral, poly3,
 * paramPoly3) along the arc length s. A point on a road is (s, t): t is the lateral
 * offset, positive to the left of the direction of s, measured in the road plane
 * (tilted by the superelevation: horizontal offset t cos(roll), height t sin(roll)).
 * Fields and functions named "d" below are this t.
 *
 * Lanes: the road is cut into lane sections along s, each with its own lanes. The
 * centre lane 0 has no width and lies on the reference line moved sideways by the
 * road's lane offset (a piecewise cubic in s); left lanes 1, 2, ... outwards, right
 * lanes -1, -2, ... outwards. A lane's width is a piecewise cubic in the distance
 * from its section's start (`<width sOffset a b c d>`), or a constant when it has no
 * width records (the project's scenario JSON). In right-hand traffic the right lanes
 * run in the direction of s. Lanes link across sections and roads (pred/succ lane
 * ids) and through junctions (connections with lane links): the lane graph that
 * routing and traffic walk (sim_roadnet_lane_next).
 *
 * Heights: a road follows the terrain (SIM_ELEV_TERRAIN) or its own elevation
 * (piecewise cubic records, SIM_ELEV_PROFILE); superelevation (piecewise cubic, rad)
 * rolls the cross section about the reference line.
 *
 * Boundaries: a record (lane section, width, elevation...) applies from its start s
 * inclusive, so a section's first s belongs to the new section and an elevation step
 * takes the new value at its s. s outside [0, length] is clamped and the query
 * returns SIM_ERANGE (its output still written for the clamped s).
 *
 * Exactness: lines and arcs in closed form; spirals by Gauss-Legendre integration from
 * a table every SIM_CLOTHOID_STEP m; poly3 by a table of arc length against u refined
 * by Newton; paramPoly3 at the parameter p whose arc length, scaled to the length
 * attribute, is ds (esmini's reading of both pRange values; for a consistent file p is
 * ds, or ds / length when normalized, to 1e-4 m). Positions are exact to 1e-9 m for
 * lines and arcs and better than 1e-6 m for the others; projection (x, y) -> (s, t)
 * converges to 1e-9 m.
 *
 * Building: a loader fills roads and junctions, then calls sim_roadnet_build_index,
 * which first finishes every road (sim_road_finish: section ends, widths per side,
 * elevation points to records) and then indexes the lane areas.
 *
 * Ownership: a sim_roadnet owns its roads, junctions and everything they point to;
 * sim_roadnet_free releases all of it. The terrain pointer is borrowed. */
#ifndef SIM_ROAD_H
#define SIM_ROAD_H

#include <stdbool.h>

#include "sim_error.h"
#include "sim_terrain.h"

#include "sim_lights.h"
#include "sim_objects.h"

#define SIM_CLOTHOID_STEP 2.0     /* m between spiral and poly3 table points */
#define SIM_GEOM_MAX_LENGTH 1e6   /* m, longest single geometry accepted */

/* ---- polynomial records ------------------------------------------------------- */

/* a + b ds + c ds^2 + d ds^3 with ds = s - s0: OpenDRIVE's laneOffset, elevation,
 * superelevation and (with s0 = sOffset) lane width records. */
typedef struct sim_poly3 {
    double s0, a, b, c, d;
} sim_poly3;

/* Value of a record list (s0 ascending) at s: the last record with s0 <= s, the first
 * one (extrapolated) before it; 0 for an empty list. *deriv (may be NULL): d/ds. */
double sim_poly3_eval(const sim_poly3 *recs, int n, double s, double *deriv);

/* ---- reference line ----------------------------------------------------------- */

typedef enum {
    SIM_GEOM_LINE,
    SIM_GEOM_ARC,
    SIM_GEOM_CLOTHOID,   /* OpenDRIVE <spiral>: curvature linear in s */
    SIM_GEOM_POLY3,      /* v(u) = a + b u + c u^2 + d u^3 in the start frame */
    SIM_GEOM_PARAMPOLY3  /* u(p), v(p) cubics in the start frame */
} sim_geom_type;

/* One piece of a reference line. k0/k1: curvature (1/m, positive turning left) at the
 * start and the end for lines, arcs and spirals. */
typedef struct sim_geom {
    sim_geom_type type;
    double s0;            /* s at the start of this piece along its road, m */
    double length;        /* m, > 0 */
    double x0, y0, hdg0;  /* start pose: m, m, rad */
    double k0, k1;        /* 1/m */
    double poly[8];       /* poly3: a b c d; paramPoly3: aU bU cU dU aV bV cV dV */
    bool normalized;      /* paramPoly3 pRange="normalized" (p in [0, 1]) */
    double u_max;         /* poly3: u at the end (set by sim_geom_prepare when 0) */
    double pc[4];         /* derived by sim_geom_prepare for projection: line cos, sin of
                             hdg0; arc centre x, y, start angle */
    int n_tab;            /* table (spiral: x, y; poly3: u) every SIM_CLOTHOID_STEP m; owned */
    double *tab;
} sim_geom;

/* Prepares a geometry whose type, length, shape and start pose are set (builds the
 * tables). Returns SIM_ERANGE for a non-finite or non-positive length or a non-finite
 * parameter, SIM_ENOMEM. */
int sim_geom_prepare(sim_geom *g, sim_error *err);
/* Pose at local arc length ds: position and heading. Lines, arcs and spirals
 * extrapolate their curve outside [0, length]; poly3 and paramPoly3 clamp. */
void sim_geom_eval(const sim_geom *g, double ds, double *x, double *y, double *hdg);
/* Curvature (1/m, positive left) at local arc length ds (spirals extrapolate). */
double sim_geom_curvature(const sim_geom *g, double ds);
void sim_geom_free(sim_geom *g);
/* Memory and time a geometry will take, in units (table points, 16 each for the
 * polynomial types whose points each need an integration, plus spatial-index pieces;
 * about 60 bytes each), computed from type, length and curvatures before
 * sim_geom_prepare: loaders use it to bound what a file can make them allocate. */
double sim_geom_cost(const sim_geom *g);

/* ---- lanes -------------------------------------------------------------------- */

typedef enum {
    SIM_MARK_NONE,
    SIM_MARK_SOLID,
    SIM_MARK_DASHED,        /* OpenDRIVE "broken" */
    SIM_MARK_SOLID_SOLID,
    SIM_MARK_SOLID_DASHED,  /* inner solid, outer broken, seen along s */
    SIM_MARK_DASHED_SOLID,
    SIM_MARK_DASHED_DASHED,
    SIM_MARK_BOTTS_DOTS,
    SIM_MARK_GRASS,
    SIM_MARK_CURB,
    SIM_MARK_OTHER          /* custom, edge: drawn as nothing */
} sim_mark_type;

typedef enum {
    SIM_COLOR_WHITE, /* OpenDRIVE "standard" */
    SIM_COLOR_YELLOW,
    SIM_COLOR_BLUE,
    SIM_COLOR_GREEN,
    SIM_COLOR_RED,
    SIM_COLOR_ORANGE
} sim_mark_color;

/* The first five keep the scenario JSON's names and order. */
typedef enum {
    SIM_LANE_DRIVING,
    SIM_LANE_SHOULDER,
    SIM_LANE_MEDIAN,
    SIM_LANE_SIDEWALK,
    SIM_LANE_PARKING,
    SIM_LANE_NONE,
    SIM_LANE_BORDER,
    SIM_LANE_STOP,
    SIM_LANE_RESTRICTED,
    SIM_LANE_BIKING,
    SIM_LANE_ENTRY,
    SIM_LANE_EXIT,
    SIM_LANE_ON_RAMP,
    SIM_LANE_OFF_RAMP,
    SIM_LANE_CONNECTING_RAMP,
    SIM_LANE_BIDIRECTIONAL,
    SIM_LANE_CURB,
    SIM_LANE_RAIL,
    SIM_LANE_TRAM,
    SIM_LANE_SPECIAL,
    SIM_LANE_TYPE_COUNT
} sim_lane_type;

/* Vehicles may drive in lanes of this type (driving, entry, exit, ramps,
 * bidirectional). */
bool sim_lane_type_drivable(sim_lane_type t);

/* A road mark on a lane's outer border from s_offset (from the section start) on. */
typedef struct sim_road_mark {
    double s_offset;
    sim_mark_type type;
    sim_mark_color color;
    double width;        /* m */
} sim_road_mark;

typedef struct sim_lane_speed {
    double s_offset;     /* from the section start */
    double speed;        /* m/s */
} sim_lane_speed;

typedef struct sim_lane {
    int id;               /* 1, 2, ... left; -1, -2, ... right; 0 centre */
    sim_lane_type type;
    double width;         /* m: the constant width when n_widths == 0 */
    sim_poly3 *widths;    /* s0 = sOffset from the section start, ascending; owned */
    int n_widths;
    sim_mark_type mark;   /* outer border's mark when n_marks == 0 */
    sim_road_mark *marks; /* owned, s_offset ascending */
    int n_marks;
    sim_lane_speed *speeds; /* owned, s_offset ascending */
    int n_speeds;
    int pred, succ;       /* linked lane id in the previous / next section or road, 0: none */
    bool level;           /* excluded from superelevation (kept for completeness) */
} sim_lane;

typedef struct sim_lane_section {
    double s0, s1;        /* road s range; s1 is the next section's s0 or the road's length */
    sim_lane *left, *right; /* left[k] is lane k+1, right[k] is lane -(k+1); owned */
    int n_left, n_right;
    sim_lane center;      /* lane 0: only its mark and marks matter */
} sim_lane_section;

/* Width of a lane at ds from its section's start (m, never negative). */
double sim_lane_width(const sim_lane *l, double ds);
/* Mark on the lane's outer border at ds (type, colour, width); NULL: l->mark, white. */
const sim_road_mark *sim_lane_mark_at(const sim_lane *l, double ds);
sim_mark_type sim_lane_mark_type(const sim_lane *l, double ds);

/* ---- roads and network ---------------------------------------------------------- */

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
    double legible_m;   /* lane_change: the board stays blank until the driver is this close
                           (the Lane Change Test's 40 m, sim_lct_board_at); 0: always shown */
    int facing;         /* +1: faces the traffic along s, -1: against s, 0: the traffic of
                           the side it stands on (OpenDRIVE's orientation +, -, none) */
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
    sim_lane_section *sections;    /* s0 ascending, sections[0].s0 == 0; owned */
    int n_sections;
    sim_poly3 *lane_offset;        /* t of the centre lane; owned */
    int n_lane_offset;
    double left_width, right_width; /* widest extent of the lanes each side of the
                                       reference line over the road, m (sim_road_finish) */
    sim_speed_limit *limits;       /* road speed records (type/speed), s ascending */
    int n_limits;
    sim_sign *signs;
    int n_signs;
    sim_surface_zone *zones;
    int n_zones;
    sim_elev_mode elev_mode;
    sim_poly3 *elevation;          /* z of the reference line (SIM_ELEV_PROFILE) */
    int n_elevation;
    double *elev_s, *elev_z;       /* scenario JSON profile points, s ascending: made into
                                      elevation records (cubic Hermite, flat beyond the
                                      ends) by sim_road_finish */
    int n_elev;
    sim_poly3 *superelevation;     /* roll of the cross section, rad */
    int n_superelevation;
    bool left_hand;                /* left-hand traffic: left lanes run along s */
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
    char *geo_reference;           /* OpenDRIVE <geoReference> text (a PROJ string); owned */
    sim_object_list objects;       /* roadside objects of the road data (OpenDRIVE
                                      <object>s, expanded repeats); owned */
    sim_lights lights;             /* traffic-light heads (OpenDRIVE <signal>s, the scenario's
                                      traffic_lights) and their controllers; owned */
    struct sim_roadnet_index *index;
} sim_roadnet;

/* One lane section with no lanes yet spanning the road (the scenario JSON's single
 * layout): sets r->sections; NULL when out of memory. */
sim_lane_section *sim_road_single_section(sim_road *r);
/* Completes a road once its geometry, sections and records are set: section ends,
 * left_width/right_width, profile points to elevation records. SIM_EINVAL (naming
 * what) for sections out of order or not starting at 0, SIM_ENOMEM. */
int sim_road_finish(sim_road *r, sim_error *err);
/* Finishes every road and builds the spatial index for sim_roadnet_locate. Call again
 * after changing roads. */
int sim_roadnet_build_index(sim_roadnet *net, sim_error *err);
/* Frees everything the network owns and zeroes it. */
void sim_roadnet_free(sim_roadnet *net);
void sim_road_free(sim_road *r);
void sim_lane_free(sim_lane *l);
/* Whether a vehicle can drive from road a onto road b: an end-to-end link either way,
 * or b is a connecting road of a junction that a enters (or the reverse). */
bool sim_roadnet_connected(const sim_roadnet *net, int a, int b);
/* How far a junction connection's connecting road (at its contact end) lies from its
 * incoming road's end at junction ji: the largest distance between the lane centres
 * its lane links join (the reference lines when it has none), m. INFINITY when the
 * incoming road does not link to junction ji. Loaders refuse large gaps. */
double sim_roadnet_connection_gap(const sim_roadnet *net, int ji, const sim_connection *c);
/* Index of the road or junction with this id, or -1. */
int sim_roadnet_find_road(const sim_roadnet *net, const char *id);
int sim_roadnet_find_junction(const sim_roadnet *net, const char *id);

/* ---- lane layout at s --------------------------------------------------------- */

/* Index of the lane section holding s (clamped to the road). */
int sim_road_section_at(const sim_road *r, double s);
/* Lane `id` of section `section`, or NULL (id 0: the centre lane). */
const sim_lane *sim_road_lane(const sim_road *r, int section, int id);
/* Whether lane id (not 0) exists in some section of the road. */
bool sim_road_has_lane(const sim_road *r, int id);
/* t of the centre lane (the lane offset) at s. */
double sim_road_lane_offset(const sim_road *r, double s);
/* t of lane id's inner and outer borders at s (inner nearer the centre lane); false
 * when the section at s has no such lane. For lane 0 both are the centre lane's t. */
bool sim_road_lane_borders(const sim_road *r, double s, int lane, double *inner, double *outer);
/* t of lane id's centre line at s, or false when the road has no such lane there
 * (lane 0 included: it is a line, not a lane; sim_road_lane_borders gives its t). */
bool sim_road_lane_center(const sim_road *r, double s, int lane, double *t);
/* Total width of the left and right lanes at s (m). */
void sim_road_width(const sim_road *r, double s, double *left, double *right);
/* Whether traffic in this lane runs in the direction of s (right lanes in
 * right-hand traffic). */
bool sim_road_lane_forward(const sim_road *r, int lane);

/* Where a lateral offset falls in a road's lane layout at s. */
typedef struct sim_lane_info {
    int lane;                 /* lane id, 0 when t is outside every lane */
    int section;              /* lane section index */
    double center_d, width;   /* the lane's centre t and width */
    double left_d, right_d;   /* its borders, left and right seen in the direction of s */
    sim_mark_type left_mark, right_mark;
    sim_lane_type type;
} sim_lane_info;

/* The surface of a lane of type t: the unpaved lanes beside a road (median, border,
 * none: the verge) are grass, every other lane asphalt. */
int sim_lane_surface(sim_lane_type t);

/* Lane holding t at s. A point on a border belongs to the lane nearer the centre
 * lane; a point on the centre lane to lane -1 when there is one, else 1. Zero-width
 * lanes hold nothing. Returns false (info->lane 0, section set) outside every lane. */
bool sim_road_lane_at(const sim_road *r, double s, double t, sim_lane_info *info);
/* Speed limit at s (m/s) from the road's records, 0 when none applies. */
double sim_road_speed_limit(const sim_road *r, double s);
/* The lane's own speed record at s, else the road's (m/s, 0: none). */
double sim_road_lane_speed_limit(const sim_road *r, double s, int lane);
/* Road surface zone covering s, or NULL. */
const sim_surface_zone *sim_road_zone_at(const sim_road *r, double s);

/* ---- lane graph ----------------------------------------------------------------- */

/* A lane of one section, travelled in a direction. */
typedef struct sim_lane_ref {
    int road, section, lane;
    int dir;                  /* +1 travelling along s, -1 against it */
} sim_lane_ref;

/* Lanes a vehicle in `from` reaches past the end of its section in its direction of
 * travel (the next section of the same road, the linked road, or every connecting
 * road a junction's lane links allow), each with its own direction of travel. Writes
 * at most max and returns how many there are (more than max means some were left
 * out); 0 at a dead end. */
int sim_roadnet_lane_next(const sim_roadnet *net, const sim_lane_ref *from, sim_lane_ref *out, int max);
/* The same backwards: lanes from which a vehicle reaches `from`'s section start in its
 * direction of travel. */
int sim_roadnet_lane_prev(const sim_roadnet *net, const sim_lane_ref *from, sim_lane_ref *out, int max);

/* ---- poses ---------------------------------------------------------------------- */

/* A point on a road in world terms. heading: the direction of s of the surface curve
 * through the point (for t != 0 on a rolling road it differs slightly from the
 * reference line's); pitch: -atan of the height's change per metre of s at the point
 * (positive nose down, as esmini); roll: the superelevation (positive right side
 * down, ISO 8855 / OpenDRIVE); rad. */
typedef struct sim_road_pose {
    double x, y, z, heading, pitch, roll;
} sim_road_pose;

/* (s, t) on road -> world pose. s outside [0, length] is SIM_ERANGE (pose of the
 * clamped s still written); a road without geometry is SIM_EINVAL (pose at the
 * origin); an unknown road SIM_ENOTFOUND. */
int sim_road_pose_at(const sim_roadnet *net, int road, double s, double d, sim_road_pose *out);
/* Pose on lane `lane`'s centre line (lane 0: the centre lane's line) at s, moved
 * `offset` (m, left positive) from it. SIM_ENOTFOUND when the section at s has no
 * such lane; SIM_ERANGE as above. */
int sim_road_lane_pose(const sim_roadnet *net, int road, double s, int lane, double offset,
                       sim_road_pose *out);

/* Road surface height at (s, t): the terrain below the point, or the road's own
 * elevation and superelevation. */
double sim_road_height(const sim_roadnet *net, int road, double s, double d);
/* The same height, and the surface's unit normal there: the terrain's normal, or for
 * a profile the normal of its grade along the road tilted by the superelevation. */
double sim_road_surface(const sim_roadnet *net, int road, double s, double d, double n[3]);

/* ---- location ------------------------------------------------------------------ */

/* Projection of one point onto one road's reference line: the nearest foot point.
 * *s in [0, length]; *d signed (left positive, horizontal); *inside says the foot
 * point is a true perpendicular one (not clamped to an end). *dist is the distance to
 * the foot point. */
void sim_road_project(const sim_road *r, double x, double y, double *s, double *d, double *dist,
                      bool *inside);

/* A world point located in the network. */
typedef struct sim_road_loc {
    int road;                 /* road index; -1 only for an empty network */
    double s, d;              /* d: t in the road plane */
    bool on_road;             /* inside one of the road's lanes */
    double distance;          /* m from the road's outer lane border (0 when on_road) */
    double heading;           /* reference-line heading at s */
    double z;                 /* road surface height at (s, t) */
    double lane_offset;       /* t - the lane's centre t (0 when in no lane) */
    sim_lane_info lane;
} sim_road_loc;

/* A location query: the point, and optionally its height and the heading of whoever
 * asks, which pick among overlapping roads (junctions, bridges). */
typedef struct sim_locate_query {
    double x, y;
    double z;                 /* NAN: no height preference */
    double heading;           /* NAN: no heading preference */
    bool drivable_only;       /* only lanes of drivable types count as on the road */
} sim_locate_query;

/* (x, y) -> road, s, t, lane and its marks. Among roads whose lanes contain the point
 * the one with the smallest |t| wins; when none does, the nearest road (distance from
 * its outer border) is reported with on_road false. Returns SIM_ENOTFOUND when the
 * network has no roads. */
int sim_roadnet_locate(const sim_roadnet *net, double x, double y, sim_road_loc *out);
/* The same with preferences: among roads whose lanes contain the point, those within
 * 3 m of q->z (when given) first, then the one whose direction of travel in the lane
 * (or the reference direction for lanes without one) is nearest q->heading (when
 * given), then the smallest |t|. */
int sim_roadnet_locate_query(const sim_roadnet *net, const sim_locate_query *q, sim_road_loc *out);
/* Only roads whose lanes contain the point: SIM_ENOTFOUND (out then meaningless) when
 * the point is on no road. For hot paths (ground contact, traffic). */
int sim_roadnet_locate_on_road(const sim_roadnet *net, double x, double y, sim_road_loc *out);
/* Every road whose lanes contain the point (overlapping junction roads): writes at most
 * max, returns how many there are. */
int sim_roadnet_locate_all(const sim_roadnet *net, double x, double y, sim_road_loc *out, int max);
/* Same as sim_roadnet_locate, by testing every geometry of every road (no index): the
 * reference for tests and the benchmark baseline. */
int sim_roadnet_locate_brute(const sim_roadnet *net, double x, double y, sim_road_loc *out);

/* ---- names ---------------------------------------------------------------------- */

/* Names used in files (OpenDRIVE's for lane types and marks beyond the scenario
 * JSON's none/solid/dashed), and parsing them back (-1 when unknown). */
int sim_mark_parse(const char *name);
const char *sim_lane_type_name(sim_lane_type t);
const char *sim_sign_type_name(sim_sign_type t);

#endif
