/* sim_msg_sim: the simulation clock's messages (docs/protocol.md).
 *
 *   sim.tick {n, dt, run, paused}   physics, once per published step
 *   sim.ack {n}                     lockstep participants: tick n answered
 *   sim.end {reason}                physics, once per run at the scenario's end
 *
 * The tick's simulation time is the envelope's "t" (sim_bus_publish's t): the payload
 * does not carry it again (no message carries a key twice). */
#ifndef SIM_MSG_SIM_H
#define SIM_MSG_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_msg.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

typedef struct sim_msg_tick {
    uint64_t n;     /* tick number, from 0 at the start of a run */
    double dt;      /* s between published ticks; NAN: not given */
    int run;        /* run number (a restart starts the next); SIM_MSG_NO_INT: not given */
    bool paused;
    double wall;    /* physics' wall clock (Unix s, CLOCK_REALTIME) as it published the tick:
                       the time base of instruments (docs/instruments.md); encoded only
                       when > 0, decoded as NAN when absent */
} sim_msg_tick;

/* The payload object (caller owns; NULL when out of memory). */
cJSON *sim_msg_tick_encode(const sim_msg_tick *m);
/* Every field optional (n 0, dt NAN, run SIM_MSG_NO_INT, paused false when missing);
 * a field present with the wrong type is an error naming it. */
int sim_msg_tick_decode(const cJSON *msg, sim_msg_tick *out, sim_error *err);

typedef struct sim_msg_ack {
    uint64_t n;     /* the tick answered */
} sim_msg_ack;

cJSON *sim_msg_ack_encode(const sim_msg_ack *m);
/* n is required: an ack of no tick is refused. */
int sim_msg_ack_decode(const cJSON *msg, sim_msg_ack *out, sim_error *err);

typedef struct sim_msg_end {
    char reason[128]; /* words for the operator; "" when not given */
} sim_msg_end;

cJSON *sim_msg_end_encode(const sim_msg_end *m);
int sim_msg_end_decode(const cJSON *msg, sim_msg_end *out, sim_error *err);

#endif
