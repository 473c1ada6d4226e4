/* sim_msg_motion: the motion base's commanded motion on the bus (docs/protocol.md,
 * docs/motion.md).
 *
 *   motion.state {platform, state, pos, ang, len[], limits, gain, f, w, car_f, car_w,
 *                 step}   motion-node, every cueing step (100 Hz)
 *
 * pos (m) and ang (rad: roll, pitch, yaw) are the commanded pose of the head point,
 * len the actuator lengths (m, one per actuator), limits the SIM_MOTION_HIT_* bits
 * of the step (1 workspace, 2 stroke, 4 velocity, 8 acceleration), gain the fade
 * (0..1), f and w the specific force and angular rate the platform gives the driver,
 * car_f and car_w the car's at the head (its input), step the node's step count.
 * state: "neutral", "fading_in", "running", "fading_out". Decoding requires pos, ang
 * and len and reads the rest when present. */
#ifndef SIM_MSG_MOTION_H
#define SIM_MSG_MOTION_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "sim_error.h"
#include "sim_msg.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_MOTION_LEGS 6

typedef struct sim_msg_motion_state {
    char platform[48];
    char state[16];
    double pos[3], ang[3];
    int n_len;
    double len[SIM_MSG_MOTION_LEGS];
    int limits;
    double gain;
    double f[3], w[3], car_f[3], car_w[3];
    uint64_t step;
} sim_msg_motion_state;

cJSON *sim_msg_motion_state_encode(const sim_msg_motion_state *m);
int sim_msg_motion_state_decode(const cJSON *msg, sim_msg_motion_state *out, sim_error *err);

#endif
