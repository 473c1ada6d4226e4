/* fuzz_traci: SUMO's answers are another process's bytes: any bytes, taken as a TraCI
 * message (its length field set to match), through every reader the co-simulation uses
 * (statuses, getVersion, a get, the leader, a step's subscription results, a light's
 * controlled links, a lane's shape, a list of ids); none may read outside the message. Input: a message's body. Seeds: fuzz/corpus/fuzz_traci. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_traci.h"

static int count(const sim_traci_object *o, void *user)
{
    (*(int *)user) += o->n_vars;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    unsigned char *msg = malloc(size + 4);
    if (!msg) return 0;
    size_t n = size + 4;
    msg[0] = (unsigned char)(n >> 24), msg[1] = (unsigned char)(n >> 16), msg[2] = (unsigned char)(n >> 8),
    msg[3] = (unsigned char)n;
    memcpy(msg + 4, data, size);
    sim_error err;
    sim_traci_reader r;
    int vars = 0;
    for (int how = 0; how < 8; how++) {
        if (sim_traci_reader_init(&r, msg, n, &err)) abort(); /* the length matches */
        int32_t api;
        char id[64];
        double d;
        sim_traci_value v;
        switch (how) {
        case 0:
            if (!sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, &err)) sim_traci_read_step(&r, count, &vars, &err);
            break;
        case 1:
            if (!sim_traci_read_status(&r, SIM_TRACI_CMD_GETVERSION, &err))
                sim_traci_read_version(&r, &api, id, sizeof id, &err);
            break;
        case 2:
            sim_traci_read_leader(&r, id, sizeof id, &d, &err);
            break;
        case 3:
            sim_traci_read_get(&r, SIM_TRACI_RESPONSE_GET_VEHICLE_VARIABLE, SIM_TRACI_ID_COUNT, &v, &err);
            break;
        case 4:
            sim_traci_read_tl_links(&r, NULL, NULL, &err);
            break;
        case 5: {
            double xy[64][2];
            int k;
            sim_traci_read_shape(&r, SIM_TRACI_RESPONSE_GET_LANE_VARIABLE, SIM_TRACI_VAR_SHAPE, xy, 64, &k, &err);
            break;
        }
        case 6:
            sim_traci_read_get_strings(&r, SIM_TRACI_RESPONSE_GET_TL_VARIABLE, SIM_TRACI_ID_LIST, NULL, NULL, &err);
            break;
        default:
            while (!sim_traci_read_subscription(&r, count, &vars, &err) && r.pos < r.len) {}
        }
        if (r.pos > r.len) abort();
    }
    free(msg);
    return 0;
}
