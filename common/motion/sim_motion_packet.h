/* sim_motion_packet: the UDP datagram motion-node sends the motion base every step
 * (docs/motion.md, "UDP"), little-endian whatever the machine:
 *
 *   offset  size  field
 *        0     4  magic "SIMM"
 *        4     2  version (1)
 *        6     2  actuators n (2, 3 or 6)
 *        8     4  seq: step count, +1 every datagram (uint32, wraps)
 *       12     4  flags: bits 0-3 the limits hit (SIM_MOTION_HIT_*), bits 8-9 the state
 *                 (0 neutral, 1 fading in, 2 running, 3 fading out)
 *       16     8  t: seconds since the node started (float64)
 *       24    48  pose: x y z (m), roll pitch yaw (rad) (6 x float64)
 *       72    48  lengths of actuators 0..5 (m; those past n are 0) (6 x float64)
 *      120        (size)
 *
 * Pure: encodes into and decodes from the caller's buffer. */
#ifndef SIM_MOTION_PACKET_H
#define SIM_MOTION_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

#define SIM_MOTION_PACKET_SIZE 120
#define SIM_MOTION_PACKET_VERSION 1

typedef enum { SIM_MOTION_NEUTRAL, SIM_MOTION_FADING_IN, SIM_MOTION_RUNNING, SIM_MOTION_FADING_OUT } sim_motion_state;

typedef struct sim_motion_packet {
    int legs;
    uint32_t seq;
    unsigned limits;
    sim_motion_state state;
    double t;
    double pose[6];
    double len[6];
} sim_motion_packet;

/* Writes SIM_MOTION_PACKET_SIZE bytes. */
void sim_motion_packet_encode(const sim_motion_packet *p, uint8_t buf[SIM_MOTION_PACKET_SIZE]);
/* SIM_EINVAL when n is not the size, or the magic or version is wrong. */
int sim_motion_packet_decode(const uint8_t *buf, size_t n, sim_motion_packet *p, sim_error *err);
/* "neutral", "fading_in", "running", "fading_out" (motion.state's state). */
const char *sim_motion_state_name(sim_motion_state s);

#endif
