/* sim_traci: SUMO's TraCI protocol as bytes (docs/traci.md), without any socket.
 *
 * TraCI (https://sumo.dlr.de/docs/TraCI/Protocol.html) is big-endian: a message is a
 * 4-byte total length and then commands, each `length(1) id(1) content` or, past 255
 * bytes, `0 length(4) id(1) content`. The writer builds one message of the commands the
 * co-simulation needs (one round trip per tick); the reader walks SUMO's answer: one
 * status per command, then what the command returns. Both are pure so the bytes can be
 * tested against the specification and the reader fuzzed (fuzz/fuzz_traci.c).
 *
 * Memory: a sim_traci_buf owns its bytes (sim_traci_buf_free); a sim_traci_reader
 * only points into the caller's bytes. */
#ifndef SIM_TRACI_H
#define SIM_TRACI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

/* The constants used (TraCIConstants.h of SUMO). */
enum {
    SIM_TRACI_CMD_GETVERSION = 0x00,
    SIM_TRACI_CMD_SIMSTEP = 0x02,
    SIM_TRACI_CMD_CLOSE = 0x7f,
    SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT = 0x84,
    SIM_TRACI_RESPONSE_SUBSCRIBE_VEHICLE_CONTEXT = 0x94,
    SIM_TRACI_CMD_GET_VEHICLE_VARIABLE = 0xa4,
    SIM_TRACI_RESPONSE_GET_VEHICLE_VARIABLE = 0xb4,
    SIM_TRACI_CMD_GET_SIM_VARIABLE = 0xab,
    SIM_TRACI_RESPONSE_GET_SIM_VARIABLE = 0xbb,
    SIM_TRACI_CMD_SET_VEHICLE_VARIABLE = 0xc4,
    SIM_TRACI_CMD_SET_ROUTE_VARIABLE = 0xc6,
    SIM_TRACI_CMD_SET_SIM_VARIABLE = 0xcb,

    SIM_TRACI_TYPE_POSITION_2D = 0x01,
    SIM_TRACI_TYPE_POSITION_3D = 0x03,
    SIM_TRACI_TYPE_UBYTE = 0x07,
    SIM_TRACI_TYPE_BYTE = 0x08,
    SIM_TRACI_TYPE_INTEGER = 0x09,
    SIM_TRACI_TYPE_DOUBLE = 0x0b,
    SIM_TRACI_TYPE_STRING = 0x0c,
    SIM_TRACI_TYPE_STRINGLIST = 0x0e,
    SIM_TRACI_TYPE_COMPOUND = 0x0f,

    SIM_TRACI_ID_COUNT = 0x01,
    SIM_TRACI_VAR_SPEED = 0x40,
    SIM_TRACI_VAR_POSITION3D = 0x39,
    SIM_TRACI_VAR_ANGLE = 0x43,
    SIM_TRACI_VAR_LENGTH = 0x44,
    SIM_TRACI_VAR_VEHICLECLASS = 0x49,
    SIM_TRACI_VAR_MINGAP = 0x4c,
    SIM_TRACI_VAR_WIDTH = 0x4d,
    SIM_TRACI_VAR_ROAD_ID = 0x50,
    SIM_TRACI_VAR_SIGNALS = 0x5b,
    SIM_TRACI_VAR_LEADER = 0x68,
    SIM_TRACI_VAR_SCALE = 0x8e,
    SIM_TRACI_VAR_HEIGHT = 0xbc,
    SIM_TRACI_VAR_SPEEDSETMODE = 0xb3,
    SIM_TRACI_VAR_LANECHANGE_MODE = 0xb6,
    SIM_TRACI_MOVE_TO_XY = 0xb4,
    SIM_TRACI_ADD = 0x80,
    SIM_TRACI_ADD_FULL = 0x85,

    SIM_TRACI_RTYPE_OK = 0x00,

    /* traffic lights, lanes and persons (sim_traci_tls.c) */
    SIM_TRACI_CMD_GET_TL_VARIABLE = 0xa2,
    SIM_TRACI_RESPONSE_GET_TL_VARIABLE = 0xb2,
    SIM_TRACI_CMD_SUBSCRIBE_TL_VARIABLE = 0xd2,
    SIM_TRACI_RESPONSE_SUBSCRIBE_TL_VARIABLE = 0xe2,
    SIM_TRACI_CMD_GET_LANE_VARIABLE = 0xa3,
    SIM_TRACI_RESPONSE_GET_LANE_VARIABLE = 0xb3,
    SIM_TRACI_CMD_GET_PERSON_VARIABLE = 0xae,
    SIM_TRACI_TYPE_POLYGON = 0x06,
    SIM_TRACI_ID_LIST = 0x00,
    SIM_TRACI_TL_RED_YELLOW_GREEN_STATE = 0x20,
    SIM_TRACI_TL_CONTROLLED_LINKS = 0x27,
    SIM_TRACI_VAR_SHAPE = 0x4e,
};

/* VAR_SIGNALS bits */
#define SIM_TRACI_SIGNAL_BLINKER_RIGHT 0x1
#define SIM_TRACI_SIGNAL_BLINKER_LEFT 0x2
#define SIM_TRACI_SIGNAL_EMERGENCY 0x4
#define SIM_TRACI_SIGNAL_BRAKELIGHT 0x8

/* ---- writing ---- */

typedef struct sim_traci_buf {
    unsigned char *data;
    size_t len, cap;
    bool oom;            /* an append failed: the message is incomplete, do not send it */
} sim_traci_buf;

void sim_traci_buf_free(sim_traci_buf *b);
/* Starts a message (drops what was there): 4 bytes for the length, filled by _end. */
void sim_traci_msg_begin(sim_traci_buf *b);
/* Fills in the length; SIM_ENOMEM when an append failed. */
int sim_traci_msg_end(sim_traci_buf *b, sim_error *err);

void sim_traci_cmd_get_version(sim_traci_buf *b);
/* Simulation step up to target_s (0: exactly one step). */
void sim_traci_cmd_step(sim_traci_buf *b, double target_s);
void sim_traci_cmd_close(sim_traci_buf *b);
/* route.add(id, [edge]) */
void sim_traci_cmd_add_route(sim_traci_buf *b, const char *route, const char *const *edges, int n_edges);
/* vehicle.add(id, route, type, depart "now", departLane, departPos, departSpeed "0", the
 * rest SUMO's defaults) */
void sim_traci_cmd_add_vehicle(sim_traci_buf *b, const char *veh, const char *route, const char *type,
                               const char *depart_lane, const char *depart_pos);
/* vehicle.moveToXY(veh, edge, lane, x, y, angle_deg, keep_route) with SUMO's default
 * match threshold (100 m). x, y: the front bumper's centre; angle: SUMO's (degrees,
 * clockwise from north). */
void sim_traci_cmd_move_to_xy(sim_traci_buf *b, const char *veh, const char *edge, int lane, double x, double y,
                              double angle_deg, int keep_route);
/* vehicle.set<var>(veh, v) for an integer (speed mode, lane change mode) or a double
 * (length, min gap) variable. */
void sim_traci_cmd_set_vehicle_int(sim_traci_buf *b, int var, const char *veh, int32_t v);
void sim_traci_cmd_set_vehicle_double(sim_traci_buf *b, int var, const char *veh, double v);
/* simulation.setScale(scale): the demand's multiplier. */
void sim_traci_cmd_set_scale(sim_traci_buf *b, double scale);
/* vehicle.getLeader(veh, dist) */
void sim_traci_cmd_get_leader(sim_traci_buf *b, const char *veh, double dist);
/* vehicle.subscribeContext(veh, vehicle domain, range, vars) from begin to end s. */
void sim_traci_cmd_subscribe_vehicle_context(sim_traci_buf *b, const char *veh, double begin, double end,
                                             double range, const uint8_t *vars, int n_vars);

/* ---- reading ---- */

typedef struct sim_traci_reader {
    const unsigned char *p;
    size_t len, pos;
} sim_traci_reader;

/* A typed value as SUMO sends it (strings point into the message, not terminated). */
typedef struct sim_traci_value {
    int type;
    double d;           /* DOUBLE; INTEGER, BYTE, UBYTE as numbers too */
    int32_t i;
    double pos[3];      /* POSITION_2D (z 0), POSITION_3D */
    const char *s;      /* STRING */
    int32_t s_len;
} sim_traci_value;

/* The length of the message whose first 4 bytes are head; SIM_EINVAL when below 4 or
 * above max. */
int sim_traci_msg_length(const unsigned char head[4], size_t max, size_t *len, sim_error *err);
/* A reader over a whole message (its 4-byte length included). */
int sim_traci_reader_init(sim_traci_reader *r, const unsigned char *msg, size_t len, sim_error *err);
/* The status answer to command `cmd`: SIM_EINVAL with SUMO's words when it failed or
 * the bytes are not a status of that command. */
int sim_traci_read_status(sim_traci_reader *r, int cmd, sim_error *err);
/* A response command's header: its id and where it ends (content from r->pos). */
int sim_traci_read_cmd(sim_traci_reader *r, int *id, size_t *end, sim_error *err);
int sim_traci_read_u8(sim_traci_reader *r, int *v, sim_error *err);
int sim_traci_read_i32(sim_traci_reader *r, int32_t *v, sim_error *err);
int sim_traci_read_f64(sim_traci_reader *r, double *v, sim_error *err);
int sim_traci_read_string(sim_traci_reader *r, const char **s, int32_t *len, sim_error *err);
int sim_traci_read_value(sim_traci_reader *r, sim_traci_value *v, sim_error *err);

/* getVersion's answer (after its status): API version and SUMO's words ("SUMO 1.15.0"). */
int sim_traci_read_version(sim_traci_reader *r, int32_t *api, char *id, size_t id_cap, sim_error *err);
/* The answer to a get command (after its status): checks the response id, variable and
 * object, then reads the value. */
int sim_traci_read_get(sim_traci_reader *r, int response, int var, sim_traci_value *v, sim_error *err);

/* vehicle.getLeader's answer (after its status): the leader's id ("" when none) and
 * the distance SUMO gives (from the asking vehicle's front bumper plus its min gap to
 * the leader's back). */
int sim_traci_read_leader(sim_traci_reader *r, char *id, size_t id_cap, double *dist, sim_error *err);
/* vehicle.getIDCount's answer */
void sim_traci_cmd_get_vehicle_count(sim_traci_buf *b);

/* One vehicle of a context subscription result: the variables asked for, as sent. */
#define SIM_TRACI_MAX_VARS 16
typedef struct sim_traci_object {
    int response;                  /* the result's id: 0x94 a vehicle context, 0xe2 a light's variables... */
    int domain;                    /* a context result: the domain of its objects (0xa4 vehicles, 0xae
                                      persons); 0 for a variable subscription */
    const char *id;
    int32_t id_len;
    int n_vars;
    uint8_t var[SIM_TRACI_MAX_VARS];
    bool ok[SIM_TRACI_MAX_VARS];   /* false: SUMO answered an error for that variable */
    sim_traci_value value[SIM_TRACI_MAX_VARS];
} sim_traci_object;

/* Called for each object of a subscription result (context or variable; response and
 * domain say which); non-zero stops the walk and is returned. */
typedef int (*sim_traci_object_fn)(const sim_traci_object *o, void *user);
/* A simulation step's answer (after its status): the count of subscription results,
 * then each; context and variable subscription results are handed to fn object by
 * object, other results skipped. */
int sim_traci_read_step(sim_traci_reader *r, sim_traci_object_fn fn, void *user, sim_error *err);
/* One subscription response at r (length-prefixed); used by _read_step and for the
 * answer to a subscribe command. */
int sim_traci_read_subscription(sim_traci_reader *r, sim_traci_object_fn fn, void *user, sim_error *err);

/* ---- traffic lights, lanes, persons (sim_traci_tls.c) ---- */

/* A get command without parameters: <domain>.get<var>(obj), e.g. trafficlight.getIDList()
 * (SIM_TRACI_CMD_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, ""), lane.getShape(lane). */
void sim_traci_cmd_get(sim_traci_buf *b, int cmd, int var, const char *obj);
/* A variable subscription (cmd: SIM_TRACI_CMD_SUBSCRIBE_TL_VARIABLE...) of obj's vars
 * from begin to end s; its results come with every step (sim_traci_read_step). */
void sim_traci_cmd_subscribe_variables(sim_traci_buf *b, int cmd, const char *obj, double begin, double end,
                                       const uint8_t *vars, int n_vars);
/* A context subscription (cmd: SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT...) around obj of
 * the objects of `domain` (a get command id: SIM_TRACI_CMD_GET_PERSON_VARIABLE...)
 * within range m. */
void sim_traci_cmd_subscribe_context(sim_traci_buf *b, int cmd, const char *obj, int domain, double begin,
                                     double end, double range, const uint8_t *vars, int n_vars);

/* A string of SUMO's, not terminated. */
typedef struct sim_traci_str {
    const char *s;
    int32_t len;
} sim_traci_str;

/* Called for each string of a list; non-zero stops the walk and is returned. */
typedef int (*sim_traci_string_fn)(int index, sim_traci_str s, void *user);
/* A get's answer that is a string list (after its status), e.g. getIDList. */
int sim_traci_read_get_strings(sim_traci_reader *r, int response, int var, sim_traci_string_fn fn, void *user,
                               sim_error *err);

/* trafficlight.getControlledLinks's answer (after its status): for each signal index
 * (a position of the light's state string) the links it controls, each as (incoming
 * lane, outgoing lane, the internal lane across the junction). */
typedef struct sim_traci_link {
    int signal;
    sim_traci_str from, to, via;
} sim_traci_link;
typedef int (*sim_traci_link_fn)(const sim_traci_link *l, void *user);
int sim_traci_read_tl_links(sim_traci_reader *r, sim_traci_link_fn fn, void *user, sim_error *err);

/* A shape's answer (after its status), e.g. lane.getShape: up to cap points into xy, *n
 * the count SUMO sent (more than cap: SIM_ETOOBIG). */
int sim_traci_read_shape(sim_traci_reader *r, int response, int var, double (*xy)[2], int cap, int *n,
                         sim_error *err);

#endif
