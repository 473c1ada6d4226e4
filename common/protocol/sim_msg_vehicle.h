/* sim_msg_vehicle: the simulated car's state on the bus (docs/protocol.md).
 *
 *   vehicle.state   physics each tick; simctl replay (fewer fields, run and replay)
 *
 * Fields (units in docs/protocol.md): speed, pos, heading, pitch, roll, yaw_rate, vel,
 * vel_body, ang_vel_body, accel_body, gear, rpm, steer_angle, steer, throttle, brake,
 * clutch, model, s, d, lane, lane_offset (null off the road or outside every lane),
 * wheels[] {pos, omega, travel, steer, load, fx, fy, slip_ratio, slip_angle, contact},
 * and the optional accel, headway_dist, headway_time, lat_dev, sector, task, run,
 * road, tick, replay, the delay stamps in_stamp, in_sent, in_recv, stepped, and the
 * motion at the driver's head head_f, head_w. Physics gives road, s, d, lane from its own locate (the one
 * place that decides where the car is: the recorder and render-node take them from
 * here), tick and run (the sim.tick this state belongs to) and accel (accel_body's
 * x). Decoding fills what is there (everything optional, absent as in sim_msg.h)
 * and reports the first field of a wrong type. */
#ifndef SIM_MSG_VEHICLE_H
#define SIM_MSG_VEHICLE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_msg.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_WHEELS 4
#define SIM_MSG_ID_MAX 48 /* sector and task ids, NUL included */

typedef struct sim_msg_wheel {
    double pos[3];      /* m, wheel centre, world */
    double omega;       /* rad/s */
    double travel;      /* m suspension compression */
    double steer;       /* rad road-wheel angle */
    double load;        /* N */
    double fx, fy;      /* N, tyre frame */
    double slip_ratio;
    double slip_angle;  /* rad */
    bool contact;
} sim_msg_wheel;

typedef struct sim_msg_vehicle_state {
    double speed;           /* m/s along the heading */
    double pos[3];          /* m, COG, world */
    double heading, pitch, roll; /* rad */
    double yaw_rate;        /* rad/s */
    double vel[3], vel_body[3], ang_vel_body[3], accel_body[3];
    int gear;
    double rpm;
    double steer_angle;     /* rad, mean front road-wheel angle */
    double steer, throttle, brake; /* the controls applied, as received */
    double clutch;          /* engagement 0..1 */
    char model[16];         /* "full", "simple", "wall" */
    double s, d;            /* m on the road (written as null when NAN) */
    int lane;               /* lane id (null when SIM_MSG_NO_INT) */
    double lane_offset;     /* m from the lane's centre (null when NAN) */
    int n_wheels;           /* 0: no wheels array */
    sim_msg_wheel wheel[SIM_MSG_WHEELS];
    /* optional extras (left out when absent) */
    double accel;           /* m/s^2 along the heading */
    double headway_dist;    /* m to the lead vehicle */
    double headway_time;    /* s */
    double lat_dev;         /* m from the task's ideal line */
    char sector[SIM_MSG_ID_MAX], task[SIM_MSG_ID_MAX];
    int run;                /* the run (physics: the current one; replay: the logged one) */
    char road[SIM_MSG_ID_MAX]; /* id of the road s, d and lane are on; "" off every road */
    double tick;            /* n of the sim.tick this state belongs to (NAN: not given) */
    bool replay;            /* published by simctl replay */
    /* The wheel-to-picture chain (docs/latency.md), seconds on the monotonic clock
     * (NAN: not given): the newest input.controls integrated into this state, its
     * stamp (at the device) and sent (published by input-node), when physics received
     * it, and when physics finished stepping this state. */
    double in_stamp, in_sent, in_recv, stepped;
    /* The motion at the driver's head (motion cueing, docs/motion.md), body axes
     * (x forward, y left, z up): specific force, m/s^2 (0, 0, +g at rest), and angular
     * rate, rad/s ([0] NAN: not given). */
    double head_f[3], head_w[3];
} sim_msg_vehicle_state;

/* Every field absent (NAN, SIM_MSG_NO_INT, "", no wheels, not a replay). */
void sim_msg_vehicle_state_clear(sim_msg_vehicle_state *m);
cJSON *sim_msg_vehicle_state_encode(const sim_msg_vehicle_state *m);
int sim_msg_vehicle_state_decode(const cJSON *msg, sim_msg_vehicle_state *out, sim_error *err);

#endif
