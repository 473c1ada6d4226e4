/* Fuzz target: signal.state and signal.red_run as render-node, input-node and the
 * recorder receive them off the bus; a decoded message must encode again and decode to
 * the same fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_signal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg) return 0;
    sim_error err;
    sim_msg_signal_state s, s2;
    if (sim_msg_signal_state_decode(msg, &s, &err) == SIM_OK) {
        cJSON *enc = sim_msg_signal_state_encode(&s);
        if (enc && (sim_msg_signal_state_decode(enc, &s2, &err) != SIM_OK || strcmp(s.id, s2.id) ||
                    strcmp(s.state, s2.state) || strcmp(s.controller, s2.controller) || s.phase != s2.phase))
            __builtin_trap();
        cJSON_Delete(enc);
    }
    sim_msg_signal_red_run r, r2;
    if (sim_msg_signal_red_run_decode(msg, &r, &err) == SIM_OK) {
        cJSON *enc = sim_msg_signal_red_run_encode(&r);
        if (enc && (sim_msg_signal_red_run_decode(enc, &r2, &err) != SIM_OK || strcmp(r.head, r2.head) ||
                    strcmp(r.road, r2.road) || !(r.speed == r2.speed || (r.speed != r.speed && r2.speed != r2.speed))))
            __builtin_trap();
        cJSON_Delete(enc);
    }
    cJSON_Delete(msg);
    return 0;
}
