/* sim_ffb: ffb.command -> force-feedback effect parameters, with the safety fade.
 *
 * The physics node asks for a steering torque and optional centring spring, damper
 * and road-surface rumble (docs/protocol.md, ffb.command). This turns them into the
 * numbers SDL_Haptic takes (constant force level, condition coefficients, periodic
 * magnitude and period), scaled by the mapping's gain and clamped to its torque
 * limit, and multiplied by a safety scale that falls linearly to zero:
 *
 *   - when commands stop arriving (none for SIM_FFB_WATCHDOG_S),
 *   - at once when told the bus went away, the physics node paused or stopped, or
 *     the node is exiting;
 *
 * reaching zero SIM_FFB_FADE_S after the fade starts, so at most 100 ms after the last
 * command in the worst case. The scale rises again at the same rate when commands
 * come back (never a jolt), except after a stop or exit, which latch.
 *
 * Pure state machine fed with a monotonic time in seconds: no device, no clock, no
 * globals. The caller owns the sim_ffb struct. */
#ifndef SIM_FFB_H
#define SIM_FFB_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_error.h"
#include "sim_msg_ffb.h"

#define SIM_FFB_WATCHDOG_S 0.040 /* silence after which the fade starts */
#define SIM_FFB_FADE_S 0.050     /* full scale to zero */
#define SIM_FFB_DEFAULT_RUMBLE_HZ SIM_MSG_FFB_RUMBLE_HZ

/* What physics asks the wheel to play: the ffb.command message (sim_msg_ffb.h, which
 * also decodes it). */
typedef sim_msg_ffb_command sim_ffb_command;

/* What the device should play. Values follow SDL_Haptic's ranges:
 * SDL_HapticConstant.level, SDL_HapticCondition.right_coeff/left_coeff and
 * right_sat/left_sat (one axis), SDL_HapticPeriodic.magnitude and .period. The
 * constant force is given with direction SDL_HAPTIC_CARTESIAN {dir_x, 0, 0}; SDL's
 * directions name where a force comes from, so dir_x = +1 (from the east/right) with
 * a positive level pushes the rim to the left. */
typedef struct sim_ffb_effects {
    int dir_x;               /* +1, or -1 when the mapping says the device is inverted */
    int16_t constant_level;  /* -32767..32767 */
    int16_t spring_coeff;    /* 0..32767 */
    int16_t damper_coeff;    /* 0..32767 */
    uint16_t saturation;     /* condition saturation, 0..65535: the torque limit */
    int16_t periodic_magnitude; /* 0..32767 */
    uint16_t periodic_period_ms; /* 1.. */
    double scale;            /* the safety scale applied, 0..1 (for logs and tests) */
} sim_ffb_effects;

typedef enum sim_ffb_event {
    SIM_FFB_BUS_LOST,  /* the dispatcher connection went away: fade, resume on commands */
    SIM_FFB_PAUSED,    /* physics paused: fade, ignore commands until resumed */
    SIM_FFB_RESUMED,   /* physics resumed: accept commands again */
    SIM_FFB_STOPPED,   /* session stopped: fade and stay at zero */
    SIM_FFB_EXIT,      /* the node is exiting: fade and stay at zero */
} sim_ffb_event;

typedef struct sim_ffb {
    double gain;         /* from the mapping, 0..1 */
    double torque_limit; /* from the mapping, 0..1 */
    bool invert;         /* from the mapping */
    sim_ffb_command cmd; /* the latest command */
    bool have_cmd;
    double last_cmd_t;   /* time of the latest command */
    double scale;        /* safety scale at scale_t */
    double scale_t;
    bool paused;
    bool latched;        /* stopped or exiting: never rises again */
    bool forced_fade;    /* fading because of an event rather than silence */
} sim_ffb;

void sim_ffb_init(sim_ffb *f, double gain, double torque_limit, bool invert);

/* A command arrived at time now. */
void sim_ffb_command_in(sim_ffb *f, double now, const sim_ffb_command *cmd);

/* One of the events above happened at time now. */
void sim_ffb_event_in(sim_ffb *f, double now, sim_ffb_event ev);

/* The effects to play at time now (now never earlier than the previous call). */
void sim_ffb_update(sim_ffb *f, double now, sim_ffb_effects *out);

/* Effects for cmd at a given safety scale, without state: gain, limit, sign and
 * SDL ranges. Used by sim_ffb_update; exposed for tests. */
void sim_ffb_effects_for(double gain, double torque_limit, bool invert,
                         const sim_ffb_command *cmd, double scale, sim_ffb_effects *out);

#endif
