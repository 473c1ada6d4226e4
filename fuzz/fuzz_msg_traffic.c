/* Fuzz target: traffic.state and traffic.event as the physics node, the recorder and
 * the scripted driver receive them off the bus. Whatever comes, the vehicles decoded
 * stay within the caller's array; a decoded event encodes again and decodes to the
 * same fields, and so does a decoded state's vehicle count. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_traffic.h"

#define MAX 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg) return 0;
    sim_msg_traffic_vehicle v[MAX], w[MAX];
    sim_msg_traffic_state st = {.vehicles = v}, back = {.vehicles = w};
    sim_error err;
    int rc = sim_msg_traffic_state_decode(msg, &st, MAX, &err);
    if (st.n_vehicles < 0 || st.n_vehicles > MAX) __builtin_trap();
    if (rc == SIM_OK) {
        cJSON *enc = sim_msg_traffic_state_encode(&st);
        if (enc) {
            if (sim_msg_traffic_state_decode(enc, &back, MAX, &err) != SIM_OK || back.n_vehicles != st.n_vehicles ||
                back.lead.valid != st.lead.valid)
                __builtin_trap();
            cJSON_Delete(enc);
        }
    }
    sim_msg_traffic_event e, again;
    if (sim_msg_traffic_event_decode(msg, &e, &err) == SIM_OK) {
        cJSON *enc = sim_msg_traffic_event_encode(&e);
        if (enc) {
            if (sim_msg_traffic_event_decode(enc, &again, &err) != SIM_OK || strcmp(e.trigger, again.trigger) ||
                strcmp(e.action, again.action) || strcmp(e.by, again.by) || strcmp(e.text, again.text))
                __builtin_trap();
            cJSON_Delete(enc);
        }
    }
    cJSON_Delete(msg);
    return 0;
}
