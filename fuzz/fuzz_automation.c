/* Fuzz target: what the automation reads from outside: automation.state and
 * automation.event messages as the recorder and sound-node receive them (a decoded
 * message must encode again and decode to the same fields), and a scenario's
 * "automation" section (sim_auto_config_parse: an error or a configuration within its
 * documented ranges, never a crash). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_automation_config.h"
#include "sim_msg_automation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg) return 0;
    sim_error err;
    sim_msg_automation_state st, st2;
    if (sim_msg_automation_state_decode(msg, &st, &err) == SIM_OK) {
        cJSON *enc = sim_msg_automation_state_encode(&st);
        if (enc && (sim_msg_automation_state_decode(enc, &st2, &err) != SIM_OK || strcmp(st.mode, st2.mode) ||
                    st.set_speed != st2.set_speed || st.hands_on != st2.hands_on))
            __builtin_trap();
        cJSON_Delete(enc);
    }
    sim_msg_automation_event ev, ev2;
    if (sim_msg_automation_event_decode(msg, &ev, &err) == SIM_OK) {
        cJSON *enc = sim_msg_automation_event_encode(&ev);
        if (enc && (sim_msg_automation_event_decode(enc, &ev2, &err) != SIM_OK || strcmp(ev.event, ev2.event) ||
                    strcmp(ev.reason, ev2.reason) || strcmp(ev.cues, ev2.cues)))
            __builtin_trap();
        cJSON_Delete(enc);
    }
    sim_auto_config c;
    if (sim_auto_config_parse(msg, "fuzz", &c, &err) == SIM_OK) {
        if (c.n_events < 0 || c.n_events > SIM_AUTO_MAX_TRIGGERS || !(c.params.time_gap >= 0.8 && c.params.time_gap <= 3) ||
            !(c.params.tor_budget >= 1) || c.reaction.max < c.reaction.min)
            __builtin_trap();
        double r = sim_reaction_draw(&c.reaction);
        if (!(r >= c.reaction.min && r <= c.reaction.max) && !isinf(r)) __builtin_trap();
    }
    cJSON_Delete(msg);
    return 0;
}
