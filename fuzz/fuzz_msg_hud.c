/* Fuzz target: hud.text messages as a render node receives them off the bus; a decoded
 * message must encode again and decode to the same fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_hud.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg)
        return 0;
    sim_msg_hud_text m, again;
    sim_error err;
    if (sim_msg_hud_text_decode(msg, &m, &err) == SIM_OK) {
        cJSON *enc = sim_msg_hud_text_encode(&m);
        if (enc) {
            if (sim_msg_hud_text_decode(enc, &again, &err) != SIM_OK || strcmp(m.text, again.text) ||
                m.area != again.area || m.has_color != again.has_color)
                __builtin_trap();
            cJSON_Delete(enc);
        }
    }
    cJSON_Delete(msg);
    return 0;
}
