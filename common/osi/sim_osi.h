/* sim_osi: the platform's world as ASAM OSI 3.x messages (docs/osi.md), encoded with
 * protobuf-c from the project's subset of the OSI .proto files (common/osi/proto, the
 * C made from them at build time into build/gen/osi).
 *
 * osi3.GroundTruth with its version, timestamp, host vehicle id, moving objects (the
 * host vehicle and every traffic participant: box, pose, velocity, acceleration,
 * orientation rate, type, indicator and brake lights where known), traffic lights (a
 * bulb each) and environmental conditions. Frames
 * as OSI defines them: the world's right-handed x, y, z (z up) as OSI's global frame,
 * each object's reference point the centre of its bounding box, orientation Tait-Bryan
 * yaw, pitch, roll as in ISO 8855.
 *
 * Pure: no I/O, no globals. The conversions from the bus's messages (vehicle.state,
 * traffic.state) are here too (sim_osi_object_from_*), so that a trace export and a
 * live node fill the same fields the same way. */
#ifndef SIM_OSI_H
#define SIM_OSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"
#include "sim_lights.h"
#include "sim_road.h"
#include "sim_sky.h"
#include "sim_msg_signal.h"
#include "sim_msg_traffic.h"
#include "sim_msg_vehicle.h"
#include "sim_vehicle.h"

/* The OSI version the .proto files were written from (InterfaceVersion of each message). */
#define SIM_OSI_VERSION_MAJOR 3
#define SIM_OSI_VERSION_MINOR 8
#define SIM_OSI_VERSION_PATCH 0

/* osi3.MovingObject.Type */
enum { SIM_OSI_MO_UNKNOWN = 0, SIM_OSI_MO_OTHER = 1, SIM_OSI_MO_VEHICLE = 2, SIM_OSI_MO_PEDESTRIAN = 3 };
/* osi3.MovingObject.VehicleClassification.Type (the values the platform uses) */
enum {
    SIM_OSI_VC_UNKNOWN = 0, SIM_OSI_VC_OTHER = 1, SIM_OSI_VC_CAR = 4, SIM_OSI_VC_DELIVERY_VAN = 6,
    SIM_OSI_VC_HEAVY_TRUCK = 7, SIM_OSI_VC_MOTORBIKE = 10, SIM_OSI_VC_BICYCLE = 11, SIM_OSI_VC_BUS = 12
};
/* ...LightState.IndicatorState and BrakeLightState (0: unknown, left out) */
enum { SIM_OSI_IND_UNKNOWN = 0, SIM_OSI_IND_OFF = 2, SIM_OSI_IND_LEFT = 3, SIM_OSI_IND_RIGHT = 4, SIM_OSI_IND_WARNING = 5 };
enum { SIM_OSI_BRAKE_UNKNOWN = 0, SIM_OSI_BRAKE_OFF = 2, SIM_OSI_BRAKE_NORMAL = 3 };

/* The id of the host vehicle (the ego) in every message. */
#define SIM_OSI_HOST_ID 1u
/* The type written in an object's source_reference, whose identifier[0] is the
 * platform's own id of the entity (traffic.state's "id"; "ego" for the host). */
#define SIM_OSI_SOURCE_TYPE "net.driving-simulator.entity"

/* One osi3.MovingObject. A NAN first component (or NAN scalar) leaves that field out. */
typedef struct sim_osi_object {
    uint64_t id;
    char name[64];               /* source_reference identifier[0]; "" leaves it out */
    int type;                    /* SIM_OSI_MO_* */
    int vehicle_type;            /* SIM_OSI_VC_*; < 0: no vehicle_classification (not a vehicle) */
    int indicator;               /* SIM_OSI_IND_* */
    int brake_light;             /* SIM_OSI_BRAKE_* */
    double dimension[3];         /* m: length, width, height of the bounding box */
    double position[3];          /* m, world: the bounding box's centre */
    double orientation[3];       /* rad: roll, pitch, yaw (ISO 8855, z-y'-x'') */
    double velocity[3];          /* m/s, world, of the box's centre */
    double acceleration[3];      /* m/s^2, world */
    double orientation_rate[3];  /* rad/s: d/dt of roll, pitch, yaw */
    double bbcenter_to_rear[3];  /* m, object frame: box centre to the rear axle's middle */
    double bbcenter_to_front[3]; /* m, object frame: box centre to the front axle's middle */
    double radius_wheel;         /* m */
    int number_wheels;           /* <= 0: left out */
    uint64_t assigned_lane;      /* moving_object_classification.assigned_lane_id (sim_osi_lane_id); 0: none */
} sim_osi_object;

/* osi3.EnvironmentalConditions (0 in an enum: unknown, left out). */
typedef struct sim_osi_environment {
    int ambient_illumination;    /* AmbientIllumination: 2..10 LEVEL1..LEVEL9 */
    long seconds_since_midnight; /* < 0: left out */
    int precipitation;           /* Precipitation: 1 other, 2 none, ... */
    int fog;                     /* Fog: 2 excellent visibility ... 9 dense */
} sim_osi_environment;

/* One osi3.TrafficLight: one bulb of a head. */
typedef struct sim_osi_light {
    uint64_t id;
    char name[80];               /* source_reference identifier[0]: the head's id */
    int color;                   /* Classification.Color: 2 red, 3 yellow, 4 green */
    int icon;                    /* Classification.Icon: 2 none, 15 pedestrian */
    int mode;                    /* Classification.Mode: 2 off, 3 constant, 4 flashing */
    double dimension[3];         /* m: depth (along the view normal), width, height */
    double position[3];          /* m, world: the bulb's box centre */
    double yaw;                  /* rad: the view normal (the way the head's face looks) */
} sim_osi_light;

/* osi3.Lane.Classification.Type and osi3.LaneBoundary.Classification Type and Color
 * (the values the platform uses). */
enum { SIM_OSI_LANE_DRIVING = 2, SIM_OSI_LANE_NONDRIVING = 3, SIM_OSI_LANE_INTERSECTION = 4 };
enum {
    SIM_OSI_LB_UNKNOWN = 0, SIM_OSI_LB_OTHER = 1, SIM_OSI_LB_NO_LINE = 2, SIM_OSI_LB_SOLID = 3, SIM_OSI_LB_DASHED = 4,
    SIM_OSI_LB_BOTTS_DOTS = 5, SIM_OSI_LB_GRASS_EDGE = 8, SIM_OSI_LB_CURB = 12
};

/* One osi3.Lane: a lane of one lane section of one road. Left and right as OSI: seen
 * along the centre line's points (which run along the road's s). 0: no such id. */
typedef struct sim_osi_lane {
    uint64_t id;                 /* sim_osi_lane_id */
    int type;                    /* SIM_OSI_LANE_* */
    bool forward;                /* centerline_is_driving_direction */
    double (*centerline)[3];     /* m, world; owned by the sim_osi_road_lanes */
    size_t n_centerline;
    uint64_t left_adjacent, right_adjacent;
    uint64_t left_boundary, right_boundary;
} sim_osi_lane;

/* One osi3.LaneBoundary.BoundaryPoint: a point of the line and its mark's width. */
typedef struct sim_osi_boundary_point {
    double position[3];          /* m, world */
    double width;                /* m; 0 where no line is painted */
} sim_osi_boundary_point;

/* One osi3.LaneBoundary: a lane border of one lane section (the centre line, or a
 * lane's outer border) with its mark's type and colour at the section's start. */
typedef struct sim_osi_boundary {
    uint64_t id;                 /* sim_osi_boundary_id */
    int type;                    /* SIM_OSI_LB_* */
    int color;                   /* Classification.Color (0: left out) */
    sim_osi_boundary_point *points; /* owned by the sim_osi_road_lanes */
    size_t n_points;
} sim_osi_boundary;

/* The width of a painted line whose road data gives none (as render-node draws it). */
#define SIM_OSI_MARK_WIDTH 0.15

/* Every lane and boundary of a road network, sampled once (they do not move). */
typedef struct sim_osi_road_lanes {
    sim_osi_lane *lanes;
    size_t n_lanes;
    sim_osi_boundary *boundaries;
    size_t n_boundaries;
    void *mem;                   /* the points */
} sim_osi_road_lanes;

/* Ids: sim_osi_id of "lane:<road id>/<section index>/<lane id>" and of
 * "boundary:<road id>/<section index>/<lane id>" (lane 0: the centre line, lane k:
 * lane k's outer border). */
uint64_t sim_osi_lane_id(const char *road, int section, int lane);
uint64_t sim_osi_boundary_id(const char *road, int section, int lane);

/* The lanes and boundaries of every road of net (docs/osi.md, "Lanes"): each lane
 * section's lanes, their centre lines and borders sampled every `step` m of s from
 * the section's start, and at its end, on the road surface (sim_road_pose_at).
 * SIM_EINVAL for step <= 0, SIM_ENOMEM. Free with sim_osi_road_lanes_free. */
int sim_osi_lanes_from_net(const sim_roadnet *net, double step, sim_osi_road_lanes *out, sim_error *err);
void sim_osi_road_lanes_free(sim_osi_road_lanes *l);

/* The OSI id of the lane an object is in, from the bus's road id, s and lane id: the
 * Lane of the lane section holding s; 0 when the road is not in net, lane is
 * SIM_MSG_NO_INT or 0, or the section has no such lane. */
uint64_t sim_osi_assigned_lane(const sim_roadnet *net, const char *road, double s, int lane);

/* One osi3.GroundTruth. */
typedef struct sim_osi_ground_truth {
    double t;                    /* s of simulation time (>= 0) -> timestamp */
    uint64_t host_id;            /* host_vehicle_id */
    const sim_osi_object *objects;
    size_t n_objects;
    const sim_osi_light *lights; /* traffic_light */
    size_t n_lights;
    const sim_osi_environment *env; /* NULL: no environmental_conditions */
    const sim_osi_road_lanes *lanes; /* NULL: no lane or lane_boundary */
} sim_osi_ground_truth;

/* An object with nothing set: every number NAN, type unknown, no classification. */
void sim_osi_object_clear(sim_osi_object *o);

/* Encodes gt as the protobuf wire bytes of osi3.GroundTruth into *buf (grown with
 * realloc as needed; *cap its size; the caller frees *buf), *len the bytes written.
 * SIM_EINVAL for a negative or non-finite t. */
int sim_osi_groundtruth_encode(const sim_osi_ground_truth *gt, uint8_t **buf, size_t *cap, size_t *len,
                               sim_error *err);

/* The environment of a scenario (docs/osi.md, "Environment") at simulation time t:
 * time of day (hours) advanced by t; fog from the visibility (m) by OSI's classes;
 * precipitation none, or "other" for rain and snow (the platform has no intensity);
 * ambient illumination from the light and the weather. */
void sim_osi_environment_from(sim_light light, double time_of_day, sim_weather weather, double visibility, double t,
                              sim_osi_environment *out);

/* The bulbs of a traffic light head in state s (docs/osi.md, "Traffic lights"): a
 * vehicle head's red, yellow and green, a pedestrian head's red and green, each the
 * third (half) of the housing render-node draws, lit as render-node lights them. Ids:
 * sim_osi_id of "<head id>/red" (yellow, green). Returns the number written (3 or 2). */
int sim_osi_lights_from_head(const sim_light_head *h, sim_light_state s, sim_osi_light out[3]);

/* The traffic-light heads of a stream (a trace, osi-node): the scenario's heads (L, may
 * be NULL) in the state of their newest signal.state, and heads the scenario does not
 * have that a signal.state places itself (SUMO's, built as render-node builds them: a
 * vehicle head of the default size), so that the export and the live node light the
 * same bulbs. */
typedef struct sim_osi_heads {
    const sim_lights *L;
    int *state;                  /* per head of L: its sim_light_state, -1 before its first signal.state */
    sim_light_head *extra;
    char (*extra_id)[64];
    int *extra_state;
    int n_extra, cap_extra;
    sim_osi_light *lights;       /* sim_osi_heads_lights' */
    size_t cap_lights;
} sim_osi_heads;
int sim_osi_heads_init(sim_osi_heads *h, const sim_lights *L, sim_error *err);
void sim_osi_heads_free(sim_osi_heads *h);
/* A head's new state; a head neither in L nor placed by w (NAN) is left out; a state
 * name that is not one is ignored. SIM_ENOMEM. */
int sim_osi_heads_signal(sim_osi_heads *h, const sim_msg_signal_state *m, const sim_msg_signal_where *w,
                         sim_error *err);
/* Every bulb of the heads with a state into h->lights (placed heads first), *n of them. */
int sim_osi_heads_lights(sim_osi_heads *h, size_t *n, sim_error *err);

/* The version of the protobuf library that encodes ("1.4.1": protobuf-c's), for the
 * trace file name (docs/osi.md, "Trace files"). */
const char *sim_osi_protobuf_version(void);

/* An entity's OSI id from the platform's id: FNV-1a (64 bit) of the name, kept to 53
 * bits (exact in a double, so JSON and JavaScript readers keep it), never 0, 1 (the
 * host) or 2^64-1 (OSI's invalid id). The same name gives the same id in every trace
 * and stream. */
uint64_t sim_osi_id(const char *name);

/* The host vehicle's geometry from its vehicle file: the collision box (box_half,
 * box_offset from the centre of gravity), the axles and the wheels. */
typedef struct sim_osi_ego_geometry {
    double box_half[3];          /* m */
    double box_offset[3];        /* m, body frame (forward, left, up): box centre from the COG */
    double rear_axle[3];         /* m, body frame: the rear axle's middle from the COG */
    double front_axle[3];        /* m, body frame: the front axle's middle from the COG */
    double wheel_radius;         /* m */
} sim_osi_ego_geometry;
void sim_osi_ego_geometry_from_params(const sim_vehicle_params *p, sim_osi_ego_geometry *g);

/* The host vehicle from physics' vehicle.state (COG position, heading, pitch, roll,
 * world velocity, body rates and acceleration) and its geometry: the box centre is the
 * COG plus the rotated box_offset, its velocity the COG's plus omega x offset. */
void sim_osi_object_from_vehicle(const sim_msg_vehicle_state *s, const sim_osi_ego_geometry *g, sim_osi_object *o);

/* A traffic participant from traffic.state: pos is the box's centre on the road
 * surface, so the box's centre is pos + height / 2 up (traffic has no pitch or roll);
 * the model names the type (docs/osi.md). */
void sim_osi_object_from_traffic(const sim_msg_traffic_vehicle *v, sim_osi_object *o);

#endif
