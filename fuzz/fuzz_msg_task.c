/* Fuzz target: drt.stimulus, drt.response and gaze.sample as modules and the analysis
 * receive them; a decoded message must encode again and decode to the same fields. The
 * first byte picks the message. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_msg_task.h"

static bool same_num(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    cJSON *msg = cJSON_ParseWithLength((const char *)data + 1, size - 1);
    if (!msg) return 0;
    sim_error err;
    switch (data[0] % 3) {
    case 0: {
        sim_msg_drt_stimulus m, again;
        if (sim_msg_drt_stimulus_decode(msg, &m, &err) == SIM_OK) {
            cJSON *enc = sim_msg_drt_stimulus_encode(&m);
            if (enc && (sim_msg_drt_stimulus_decode(enc, &again, &err) != SIM_OK || m.id != again.id ||
                        m.on != again.on || strcmp(m.modality, again.modality) || !same_num(m.angle_deg, again.angle_deg)))
                __builtin_trap();
            cJSON_Delete(enc);
        }
        break;
    }
    case 1: {
        sim_msg_drt_response m, again;
        if (sim_msg_drt_response_decode(msg, &m, &err) == SIM_OK) {
            cJSON *enc = sim_msg_drt_response_encode(&m);
            if (enc && (sim_msg_drt_response_decode(enc, &again, &err) != SIM_OK || strcmp(m.source, again.source)))
                __builtin_trap();
            cJSON_Delete(enc);
        }
        break;
    }
    default: {
        sim_msg_gaze_sample m, again;
        if (sim_msg_gaze_sample_decode(msg, &m, &err) == SIM_OK) {
            cJSON *enc = sim_msg_gaze_sample_encode(&m);
            if (enc && (sim_msg_gaze_sample_decode(enc, &again, &err) != SIM_OK || m.valid != again.valid ||
                        strcmp(m.area, again.area) || !same_num(m.yaw_deg, again.yaw_deg) ||
                        !same_num(m.pitch_deg, again.pitch_deg)))
                __builtin_trap();
            cJSON_Delete(enc);
        }
        break;
    }
    }
    cJSON_Delete(msg);
    return 0;
}
