/* sim_msg_ffb: force feedback for the wheel (docs/protocol.md).
 *
 *   ffb.command {torque, spring, damper, rumble, rumble_hz}   physics, each tick
 *
 * Decoding: torque is required; the others are optional (spring, damper, rumble 0,
 * rumble_hz SIM_MSG_FFB_RUMBLE_HZ). A present field must be a finite number; values
 * beyond their range are clamped into it, since the physics node may overshoot the
 * nominal range, which means "as much as allowed"; anything not a number is refused,
 * so that garbage never reaches the motor. */
#ifndef SIM_MSG_FFB_H
#define SIM_MSG_FFB_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_msg.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_FFB_RUMBLE_HZ 30.0

typedef struct sim_msg_ffb_command {
    double torque;    /* -1..1 of the wheel's limit, positive turns the wheel left */
    double spring;    /* 0..1 centring stiffness */
    double damper;    /* 0..1 */
    double rumble;    /* 0..1 road-surface amplitude */
    double rumble_hz; /* rumble frequency, 1..1000 Hz */
} sim_msg_ffb_command;

cJSON *sim_msg_ffb_command_encode(const sim_msg_ffb_command *m);
int sim_msg_ffb_command_decode(const cJSON *msg, sim_msg_ffb_command *out, sim_error *err);

#endif
