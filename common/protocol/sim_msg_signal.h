/* sim_msg_signal: traffic-light topics (docs/protocol.md "signal.state").
 *
 * `signal.state` {id, state, controller?, phase?}: the traffic node, once for every
 * head at the start of a run and then whenever a head's state changes (controller
 * phase, operator, storyboard). state is one of off, red, red_amber, amber, green,
 * flashing_amber (sim_lights.h names them). A head the scenario does not have (SUMO's
 * lights, docs/traffic.md "SUMO") also says where it stands: {pos, heading, stop_a,
 * stop_b} (sim_msg_signal_where), so that a reader can draw it and see its stop line.
 * `signal.red_run` {head, speed, road}: the ego's front crossed the stop line of a
 * head showing red (or red and amber); speed in m/s. The recorder logs both. */
#ifndef SIM_MSG_SIGNAL_H
#define SIM_MSG_SIGNAL_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

typedef struct sim_msg_signal_state {
    char id[64];          /* the head */
    char state[24];
    char controller[64];  /* "": none */
    int phase;            /* SIM_MSG_NO_INT: none (no controller, or held) */
} sim_msg_signal_state;

/* Where a head stands (signal.state's optional fields); every field absent (NAN) for
 * the scenario's own heads, whose places are in the scenario. */
typedef struct sim_msg_signal_where {
    double pos[3];               /* the post's foot, m */
    double heading;              /* rad: the way its face looks (towards the traffic it controls) */
    double stop_a[3], stop_b[3]; /* its stop line's ends, across the lanes it controls, m */
} sim_msg_signal_where;

typedef struct sim_msg_signal_red_run {
    char head[64];
    double speed;         /* m/s */
    char road[64];
} sim_msg_signal_red_run;

/* Encoders: a new object (caller frees), NULL when out of memory. Decoders: SIM_EINVAL
 * naming the topic and the field. */
cJSON *sim_msg_signal_state_encode(const sim_msg_signal_state *m);
int sim_msg_signal_state_decode(const cJSON *msg, sim_msg_signal_state *out, sim_error *err);
/* signal.state with where the head stands (all of w's fields given). */
cJSON *sim_msg_signal_state_encode_where(const sim_msg_signal_state *m, const sim_msg_signal_where *w);
/* The optional place of a signal.state: SIM_OK with every field NAN when absent;
 * SIM_EINVAL naming a bad field, or when only some are given. */
int sim_msg_signal_where_decode(const cJSON *msg, sim_msg_signal_where *out, sim_error *err);
cJSON *sim_msg_signal_red_run_encode(const sim_msg_signal_red_run *m);
int sim_msg_signal_red_run_decode(const cJSON *msg, sim_msg_signal_red_run *out, sim_error *err);

#endif
