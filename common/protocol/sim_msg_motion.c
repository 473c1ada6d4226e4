/* sim_msg_motion: motion.state (see sim_msg_motion.h). */
#include "sim_msg_motion.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim_msg_fields.h"

#define ANY -INFINITY, INFINITY
#define F(name, kind, ...) {#name, kind, SIM_MF_AT(sim_msg_motion_state, name, kind, 0), __VA_ARGS__, 0}
static const sim_msg_field STATE[] = {
    {"platform", SIM_MF_STR, SIM_MF_AT(sim_msg_motion_state, platform, SIM_MF_STR, 48), 0, 0, 48},
    {"state", SIM_MF_STR, SIM_MF_AT(sim_msg_motion_state, state, SIM_MF_STR, 16), 0, 0, 16},
    F(pos, SIM_MF_VEC3, ANY), F(ang, SIM_MF_VEC3, ANY), F(limits, SIM_MF_INT, 0, 255),
    F(gain, SIM_MF_NUM, 0, 1), F(f, SIM_MF_VEC3, ANY), F(w, SIM_MF_VEC3, ANY),
    F(car_f, SIM_MF_VEC3, ANY), F(car_w, SIM_MF_VEC3, ANY), F(step, SIM_MF_U64, 0, 0),
};
#undef F
#define N (sizeof STATE / sizeof *STATE)

cJSON *sim_msg_motion_state_encode(const sim_msg_motion_state *m)
{
    cJSON *o = sim_msg_fields_object(m, STATE, N);
    if (!o) return NULL;
    cJSON *len = cJSON_AddArrayToObject(o, "len");
    for (int i = 0; len && i < m->n_len && i < SIM_MSG_MOTION_LEGS; i++)
        if (!cJSON_AddItemToArray(len, cJSON_CreateNumber(m->len[i]))) len = NULL;
    if (!len) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_motion_state_decode(const cJSON *msg, sim_msg_motion_state *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_MOTION_STATE, .err = err};
    memset(out, 0, sizeof *out);
    sim_msg_fields_clear(out, STATE, N);
    int rc = sim_msg_fields_decode(&j, msg, out, STATE, N);
    if (rc) return rc;
    if (isnan(out->pos[0])) return sim_json_found(&j, "pos", NULL, "[x, y, z] in m");
    if (isnan(out->ang[0])) return sim_json_found(&j, "ang", NULL, "[roll, pitch, yaw] in rad");
    const cJSON *len = cJSON_GetObjectItemCaseSensitive(msg, "len"), *v;
    if (!cJSON_IsArray(len) || cJSON_GetArraySize(len) < 1 || cJSON_GetArraySize(len) > SIM_MSG_MOTION_LEGS)
        return sim_json_found(&j, "len", len, "an array of 1 to 6 actuator lengths");
    cJSON_ArrayForEach(v, len)
    {
        char p[SIM_JSON_PATH_MAX];
        rc = sim_json_number(&j, v, sim_json_index_path(p, "len", out->n_len), 0, 100, &out->len[out->n_len]);
        if (rc) return rc;
        out->n_len++;
    }
    return SIM_OK;
}
