/* sim_msg_input: the driver's controls on the bus (docs/protocol.md).
 *
 *   input.controls {steer, steer_deg, throttle, brake, clutch, gear, stamp, sent}   input-node
 *   input.button {role, pressed}    input-node, when a button changes
 *
 * One decode rule for every reader (physics, the recorder, replays): every field is
 * optional (absent: NAN, has_gear false) and a present field must be a finite number
 * in its range, else the whole message is refused with the field named; nothing is
 * clamped or rounded (a reader keeps its previous controls for a refused message, and
 * for the fields a message leaves out).
 *
 * stamp and sent carry the wheel-to-picture delay through the chain (docs/latency.md):
 * seconds on the machine's monotonic clock (CLOCK_MONOTONIC, as uv_hrtime), stamp when
 * the newest input sample happened at the device, sent when input-node published it.
 * They mean something only between processes on one machine; 0 or NAN: not given
 * (left out, so a zero-initialised struct encodes as before). */
#ifndef SIM_MSG_INPUT_H
#define SIM_MSG_INPUT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_msg.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_GEAR_MIN (-1) /* reverse */
#define SIM_MSG_GEAR_MAX 12

typedef struct sim_msg_input_controls {
    double steer;     /* -1..1, left positive */
    double steer_deg; /* steering wheel angle, -3600..3600 degrees, left positive */
    double throttle;  /* 0..1 */
    double brake;     /* 0..1 */
    double clutch;    /* 0..1, 1 = pedal fully pressed (disengaged) */
    int gear;         /* requested gear (-1 reverse, 0 neutral, 1..12), valid when has_gear */
    bool has_gear;    /* false: no gear in the message (automatic / unchanged) */
    double stamp;     /* s, monotonic: the newest input sample at the device; 0/NAN none */
    double sent;      /* s, monotonic: when input-node published this; 0/NAN none */
} sim_msg_input_controls;

/* The payload object (caller owns; NULL when out of memory); NAN fields and a gear
 * without has_gear are left out. */
cJSON *sim_msg_input_controls_encode(const sim_msg_input_controls *m);
int sim_msg_input_controls_decode(const cJSON *msg, sim_msg_input_controls *out, sim_error *err);

typedef struct sim_msg_input_button {
    char role[32];    /* the button's role (sim_button_role_name), "" when not given */
    bool pressed;
} sim_msg_input_button;

cJSON *sim_msg_input_button_encode(const sim_msg_input_button *m);
int sim_msg_input_button_decode(const cJSON *msg, sim_msg_input_button *out, sim_error *err);

#endif
