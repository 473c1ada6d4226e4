/* sim_msg_signal: signal.state and signal.red_run (sim_msg_signal.h). */
#include "sim_msg_signal.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "sim_msg_fields.h"

#define F(T, name, kind, lo, hi) {#name, kind, SIM_MF_AT(T, name, kind, 0), lo, hi, 0}
#define S(T, name) {#name, SIM_MF_STR, SIM_MF_AT(T, name, SIM_MF_STR, sizeof(((T *)0)->name)), 0, 0, sizeof(((T *)0)->name)}
static const sim_msg_field STATE[] = {
    S(sim_msg_signal_state, id),
    S(sim_msg_signal_state, state),
    S(sim_msg_signal_state, controller),
    F(sim_msg_signal_state, phase, SIM_MF_INT, 0, 1000),
};
static const sim_msg_field WHERE[] = {
    F(sim_msg_signal_where, pos, SIM_MF_VEC3, -1e7, 1e7),
    F(sim_msg_signal_where, heading, SIM_MF_NUM, -10, 10),
    F(sim_msg_signal_where, stop_a, SIM_MF_VEC3, -1e7, 1e7),
    F(sim_msg_signal_where, stop_b, SIM_MF_VEC3, -1e7, 1e7),
};
static const sim_msg_field RED_RUN[] = {
    S(sim_msg_signal_red_run, head),
    F(sim_msg_signal_red_run, speed, SIM_MF_NUM, 0, 1000),
    S(sim_msg_signal_red_run, road),
};
#undef F
#undef S
#define N(t) (sizeof t / sizeof *t)

cJSON *sim_msg_signal_state_encode(const sim_msg_signal_state *m)
{
    return sim_msg_fields_object(m, STATE, N(STATE));
}

int sim_msg_signal_state_decode(const cJSON *msg, sim_msg_signal_state *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SIGNAL_STATE, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, STATE, N(STATE));
    if (rc) return rc;
    if (!out->id[0]) return sim_error_set(err, SIM_EINVAL, "signal.state: \"id\" must name a head");
    if (!out->state[0]) return sim_error_set(err, SIM_EINVAL, "signal.state: \"state\" must be a light state");
    return SIM_OK;
}

cJSON *sim_msg_signal_state_encode_where(const sim_msg_signal_state *m, const sim_msg_signal_where *w)
{
    cJSON *o = sim_msg_fields_object(m, STATE, N(STATE));
    if (o && sim_msg_fields_encode(o, w, WHERE, N(WHERE)) != SIM_OK) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_signal_where_decode(const cJSON *msg, sim_msg_signal_where *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SIGNAL_STATE, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, WHERE, N(WHERE));
    if (rc) return rc;
    int given = !isnan(out->pos[0]) + !isnan(out->heading) + !isnan(out->stop_a[0]) + !isnan(out->stop_b[0]);
    if (given != 0 && given != 4)
        return sim_error_set(err, SIM_EINVAL, "signal.state: a head's place needs pos, heading, stop_a and stop_b "
                             "together, found %d of them", given);
    return SIM_OK;
}

cJSON *sim_msg_signal_red_run_encode(const sim_msg_signal_red_run *m)
{
    return sim_msg_fields_object(m, RED_RUN, N(RED_RUN));
}

int sim_msg_signal_red_run_decode(const cJSON *msg, sim_msg_signal_red_run *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_SIGNAL_RED_RUN, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, RED_RUN, N(RED_RUN));
    if (rc) return rc;
    if (!out->head[0]) return sim_error_set(err, SIM_EINVAL, "signal.red_run: \"head\" must name a head");
    return SIM_OK;
}
