/* sim_msg_sim: sim.tick (see sim_msg_sim.h). */
#include "sim_msg_sim.h"

#include <math.h>
#include <stddef.h>

#include "sim_msg_fields.h"

#define F(name, kind, lo, hi) {#name, kind, offsetof(sim_msg_tick, name), lo, hi, 0}
static const sim_msg_field TICK[] = {
    F(n, SIM_MF_U64, 0, 0),
    F(dt, SIM_MF_NUM, 0, INFINITY),
    F(run, SIM_MF_INT, 0, 1e9),
    F(paused, SIM_MF_BOOL, 0, 0),
};
#undef F

cJSON *sim_msg_tick_encode(const sim_msg_tick *m)
{
    cJSON *o = cJSON_CreateObject();
    if (o && sim_msg_fields_encode(o, m, TICK, sizeof TICK / sizeof *TICK)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_tick_decode(const cJSON *msg, sim_msg_tick *out, sim_error *err)
{
    sim_json j = {.file = "sim.tick", .err = err};
    return sim_msg_fields_decode(&j, msg, out, TICK, sizeof TICK / sizeof *TICK);
}
