/* sim_motion_platform: a motion base as data (config/motion/NAME.json, docs/motion.md), the
 * inverse kinematics from a pose to actuator lengths, and the limiter that keeps every
 * actuator within its length, velocity and acceleration.
 *
 * The pose is that of the moving frame whose origin is the driver's head point, relative
 * to its neutral place: x y z (m) and roll pitch yaw (rad, R = Rz(yaw) Ry(pitch)
 * Rx(roll)), ISO 8855 axes. Joint coordinates are given in that frame: the moving
 * joints in the moving frame, the base joints in the frame at neutral. The rotation is
 * about the pivot c (the head point, 0, for a hexapod; a seat's universal joint for a
 * reduced base): actuator i's length is |t + c + R (top_i - c) - base_i|. A hexapod
 * has six actuators and all six degrees of freedom; a 2-DOF seat (roll, pitch) and a
 * 3-DOF base (heave, roll, pitch) have 2 or 3 actuators: the same pose with the other
 * degrees of freedom set to 0.
 * Plain storage owned by the caller; no allocation. */
#ifndef SIM_MOTION_PLATFORM_H
#define SIM_MOTION_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"
#include "sim_motion_washout.h"

#define SIM_MOTION_LEGS 6
#define SIM_MOTION_NAME_MAX 48

enum { SIM_MOTION_X, SIM_MOTION_Y, SIM_MOTION_Z, SIM_MOTION_ROLL, SIM_MOTION_PITCH, SIM_MOTION_YAW };

typedef enum {
    SIM_MOTION_HEXAPOD, /* 6 actuators, every degree of freedom */
    SIM_MOTION_SEAT2,   /* 2 actuators: roll, pitch */
    SIM_MOTION_SEAT3,   /* 3 actuators: heave, roll, pitch */
} sim_motion_kind;

/* Limits hit in a step (sim_motion_limit's return, motion.state's "limits"). */
enum {
    SIM_MOTION_HIT_WORKSPACE = 1, /* the wanted pose was outside the workspace box */
    SIM_MOTION_HIT_LENGTH = 2,    /* ... would have taken an actuator past its stroke */
    SIM_MOTION_HIT_VELOCITY = 4,
    SIM_MOTION_HIT_ACCEL = 8,
};

typedef struct sim_motion_platform {
    char name[SIM_MOTION_NAME_MAX];
    sim_motion_kind kind;
    int legs;                            /* 6, 2 or 3 */
    bool dof[6];                         /* which pose entries the base moves */
    double base[SIM_MOTION_LEGS][3];     /* m */
    double top[SIM_MOTION_LEGS][3];      /* m */
    double pivot[3];                     /* m, the centre of rotation ("pivot", default 0) */
    double len_min, len_max;             /* m */
    double vel_max, acc_max;             /* m/s, m/s^2 */
    double ws_lo[6], ws_hi[6];           /* workspace box of the pose: m and rad */
    double fade_s;                       /* s, fade in and out */
    sim_motion_washout_params washout;
    /* derived by sim_motion_platform_parse, for the inverse kinematics: actuator i's
     * moving joint from the pivot (top - pivot) and the pivot from its base joint
     * (pivot - base), so a step computes no constant geometry */
    double arm[SIM_MOTION_LEGS][3], reach[SIM_MOTION_LEGS][3];
} sim_motion_platform;

/* Reads a platform file's text (file names it in messages). */
int sim_motion_platform_parse(const char *text, size_t len, const char *file, sim_motion_platform *pf,
                              sim_error *err);
/* Kind names: "hexapod", "seat2", "seat3". */
const char *sim_motion_kind_name(sim_motion_kind k);

/* Where the head point is at pose (a seat turning about its pivot moves it). */
void sim_motion_head(const sim_motion_platform *pf, const double pose[6], double head[3]);
/* Actuator lengths (pf->legs of them) at pose. */
void sim_motion_ik(const sim_motion_platform *pf, const double pose[6], double len[SIM_MOTION_LEGS]);

/* The limiter's memory: the last two commanded poses and the actuators' state. */
typedef struct sim_motion_limiter {
    double pose[6], prev[6];
    double len[SIM_MOTION_LEGS], vel[SIM_MOTION_LEGS];
    double sin_roll, cos_roll, sin_pitch, cos_pitch; /* of pose, from its kinematics (sim_motion_limit) */
} sim_motion_limiter;

/* At neutral, at rest. */
void sim_motion_limiter_reset(const sim_motion_platform *pf, sim_motion_limiter *l);
/* The pose to command this step (dt s) for the wanted one: the wanted pose with the
 * degrees of freedom the base lacks set to 0, clamped to the workspace, then moved back
 * towards constant velocity as far as the actuators' length, velocity and acceleration
 * limits need (with room to brake before a stroke end). Fills pose and len; returns the
 * SIM_MOTION_HIT_* bits of what limited it. */
unsigned sim_motion_limit(const sim_motion_platform *pf, sim_motion_limiter *l, const double want[6],
                          double dt, double pose[6], double len[SIM_MOTION_LEGS]);
/* Whether lengths len (this step) after the limiter's state keep every limit (with
 * slack); for tests and the node's checks. */
unsigned sim_motion_check(const sim_motion_platform *pf, const sim_motion_limiter *l,
                          const double len[SIM_MOTION_LEGS], double dt);

#endif
