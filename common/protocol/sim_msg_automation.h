/* sim_msg_automation: the automation's topics (docs/protocol.md, "automation.state",
 * "automation.event"; docs/automation.md).
 *
 * `automation.state` {mode, tor, set_speed, time_gap, lateral, longitudinal, steer_deg,
 * driver_steer_deg, driver_brake, hands_on}: input-node's automation with every
 * input.controls (once per tick in lockstep). `automation.event` {event, mode, reason,
 * takeover_s?, cues?}: one per change: engaged, disengaged, override, refused, tor,
 * cue, handover, mrm, mrm_stopped. Strings are the names of sim_automation.h; this
 * file only carries them. */
#ifndef SIM_MSG_AUTOMATION_H
#define SIM_MSG_AUTOMATION_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

typedef struct sim_msg_automation_state {
    char mode[8];            /* manual, acc, lc, l2, l3 */
    char tor[12];            /* none, pending, mrm, stopped */
    double set_speed;        /* m/s */
    double time_gap;         /* s */
    bool lateral, longitudinal; /* which controls the automation holds now */
    double steer_deg;        /* the automation's steering wheel angle (0 when not lateral) */
    double driver_steer_deg; /* the driver's steering against the automation */
    double driver_brake;     /* 0..1 */
    int hands_on;            /* 1 / 0 from a mapped touch sensor; -1: none mapped (null) */
} sim_msg_automation_state;

cJSON *sim_msg_automation_state_encode(const sim_msg_automation_state *m);
/* Errors name "automation.state: \"field\"" and what was expected. */
int sim_msg_automation_state_decode(const cJSON *msg, sim_msg_automation_state *out, sim_error *err);

typedef struct sim_msg_automation_event {
    char event[16];          /* engaged, disengaged, override, refused, tor, cue, handover, mrm, mrm_stopped */
    char mode[8];            /* the mode after it */
    char reason[48];         /* who or why ("" encoded null) */
    double takeover_s;       /* handover: s from the TOR; NAN otherwise (absent) */
    char cues[40];           /* cue: "hud,chime,vibration" as given ("" absent) */
} sim_msg_automation_event;

cJSON *sim_msg_automation_event_encode(const sim_msg_automation_event *m);
int sim_msg_automation_event_decode(const cJSON *msg, sim_msg_automation_event *out, sim_error *err);

#endif
