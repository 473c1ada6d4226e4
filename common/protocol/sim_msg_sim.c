/* sim_msg_sim: sim.tick (see sim_msg_sim.h). */
#include "sim_msg_sim.h"

#include <math.h>
#include <stddef.h>

#include "sim_msg_fields.h"

#define F(name, kind, lo, hi) {#name, kind, SIM_MF_AT(sim_msg_tick, name, kind, 0), lo, hi, 0}
static const sim_msg_field TICK[] = {
    F(n, SIM_MF_U64, 0, 0),
    F(dt, SIM_MF_NUM, 0, INFINITY),
    F(run, SIM_MF_INT, 0, 1e9),
    F(paused, SIM_MF_BOOL, 0, 0),
};
static const sim_msg_field ACK[] = {
    {"n", SIM_MF_U64, SIM_MF_AT(sim_msg_ack, n, SIM_MF_U64, 0), 0, 0, 0},
};
static const sim_msg_field END[] = {
    {"reason", SIM_MF_STR, SIM_MF_AT(sim_msg_end, reason, SIM_MF_STR, sizeof(((sim_msg_end *)0)->reason)), 0, 0, sizeof(((sim_msg_end *)0)->reason)},
};
#undef F

cJSON *sim_msg_tick_encode(const sim_msg_tick *m)
{
    cJSON *o = sim_msg_fields_object(m, TICK, sizeof TICK / sizeof *TICK);
    /* not in the table: a struct initialised without it (0) must not say "wall":0 */
    if (o && m->wall > 0 && isfinite(m->wall) && !cJSON_AddNumberToObject(o, "wall", m->wall)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_tick_decode(const cJSON *msg, sim_msg_tick *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SIM_TICK, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, TICK, sizeof TICK / sizeof *TICK);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(msg, "wall");
    out->wall = NAN;
    if (rc || !w || cJSON_IsNull(w)) return rc;
    if (!cJSON_IsNumber(w) || !isfinite(w->valuedouble) || w->valuedouble <= 0)
        return sim_json_found(&j, "wall", w, "the wall clock in Unix seconds (> 0)");
    out->wall = w->valuedouble;
    return rc;
}

cJSON *sim_msg_ack_encode(const sim_msg_ack *m)
{
    return sim_msg_fields_object(m, ACK, 1);
}

int sim_msg_ack_decode(const cJSON *msg, sim_msg_ack *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SIM_ACK, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, ACK, 1);
    if (!rc && !cJSON_GetObjectItemCaseSensitive(msg, "n"))
        rc = sim_json_found(&j, "n", NULL, "the number of the tick answered");
    return rc;
}

cJSON *sim_msg_end_encode(const sim_msg_end *m)
{
    return sim_msg_fields_object(m, END, 1);
}

int sim_msg_end_decode(const cJSON *msg, sim_msg_end *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SIM_END, .err = err};
    return sim_msg_fields_decode(&j, msg, out, END, 1);
}
