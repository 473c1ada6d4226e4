/* sim_msg_storyboard: storyboard.event, an OpenSCENARIO storyboard element changing
 * state (traffic-node, docs/protocol.md, docs/openscenario.md): which element, of
 * which kind, and the transition, at the envelope's time. The recorder writes each
 * into the drive log's events (kind "storyboard"), so analysis can cut tasks at them. */
#ifndef SIM_MSG_STORYBOARD_H
#define SIM_MSG_STORYBOARD_H

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

typedef struct sim_msg_storyboard_event {
    char element[64];          /* the element's name */
    char kind[16];             /* story, act, maneuverGroup, maneuver, event, action */
    char transition[16];       /* startTransition, endTransition, stopTransition, skipTransition */
} sim_msg_storyboard_event;

cJSON *sim_msg_storyboard_event_encode(const sim_msg_storyboard_event *m);
int sim_msg_storyboard_event_decode(const cJSON *msg, sim_msg_storyboard_event *out, sim_error *err);

#endif
