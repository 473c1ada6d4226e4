/* Fuzz target: study.answer and study.state as the runner and the console receive them
 * off the bus; a decoded message must encode again and decode to the same fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sim_msg_study_answer a, a2;
static sim_msg_study_state s, s2;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg) return 0;
    sim_error err;
    if (sim_msg_study_answer_decode(msg, &a, &err) == SIM_OK) {
        cJSON *enc = sim_msg_study_answer_encode(&a);
        if (enc && (sim_msg_study_answer_decode(enc, &a2, &err) != SIM_OK || a.n != a2.n || a.drive != a2.drive))
            __builtin_trap();
        cJSON_Delete(enc);
    }
    if (sim_msg_study_state_decode(msg, &s, &err) == SIM_OK) {
        cJSON *enc = sim_msg_study_state_encode(&s);
        if (enc && (sim_msg_study_state_decode(enc, &s2, &err) != SIM_OK || s.n_items != s2.n_items ||
                    strcmp(s.phase, s2.phase)))
            __builtin_trap();
        cJSON_Delete(enc);
    }
    cJSON_Delete(msg);
    return 0;
}
