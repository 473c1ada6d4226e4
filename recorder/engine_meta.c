/* engine_meta: traffic.engine into the drive log's meta, so that a drive with SUMO's
 * traffic says which SUMO and how it was started (docs/drivelog.md). */
#include "recorder.h"

#include <stdio.h>

#include "sim_drivelog.h"
#include "sim_msg_traffic_engine.h"

int rec_traffic_engine_meta(sim_drivelog_writer *w, const cJSON *msg, sim_error *err)
{
    sim_msg_traffic_engine m;
    int ret = sim_msg_traffic_engine_decode(msg, &m, err);
    if (ret) return ret;
    char step[32], seed[32];
    snprintf(step, sizeof step, "%.17g", m.step_s);
    snprintf(seed, sizeof seed, "%.0f", m.seed);
    const char *kv[][2] = {{"traffic_engine", m.engine},         {"traffic_engine_version", m.version},
                           {"traffic_engine_options", m.options}, {"traffic_engine_step_s", step},
                           {"traffic_engine_seed", seed}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv && !ret; i++) ret = sim_drivelog_set_meta(w, kv[i][0], kv[i][1], err);
    return ret;
}
