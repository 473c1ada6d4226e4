/* sim_msg_automation: automation.state and automation.event (see sim_msg_automation.h). */
#include "sim_msg_automation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

cJSON *sim_msg_automation_state_encode(const sim_msg_automation_state *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "mode", m->mode) || !cJSON_AddStringToObject(o, "tor", m->tor) ||
        !cJSON_AddNumberToObject(o, "set_speed", m->set_speed) ||
        !cJSON_AddNumberToObject(o, "time_gap", m->time_gap) ||
        !cJSON_AddBoolToObject(o, "lateral", m->lateral) ||
        !cJSON_AddBoolToObject(o, "longitudinal", m->longitudinal) ||
        !cJSON_AddNumberToObject(o, "steer_deg", m->steer_deg) ||
        !cJSON_AddNumberToObject(o, "driver_steer_deg", m->driver_steer_deg) ||
        !cJSON_AddNumberToObject(o, "driver_brake", m->driver_brake) ||
        !(m->hands_on < 0 ? cJSON_AddNullToObject(o, "hands_on") : cJSON_AddBoolToObject(o, "hands_on", m->hands_on))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int get_str(const cJSON *msg, const char *topic, const char *key, bool required, char *out,
                   size_t size, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    out[0] = '\0';
    if (!v || cJSON_IsNull(v)) {
        if (required) return sim_error_set(err, SIM_EINVAL, "%s: \"%s\" must be a string (missing)", topic, key);
        return SIM_OK;
    }
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= size)
        return sim_error_set(err, SIM_EINVAL, "%s: \"%s\" must be a string of at most %zu bytes", topic, key, size - 1);
    strcpy(out, v->valuestring);
    return SIM_OK;
}

static int get_num(const cJSON *msg, const char *topic, const char *key, double *out, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return sim_error_set(err, SIM_EINVAL, "%s: \"%s\" must be a number%s", topic, key, v ? "" : " (missing)");
    *out = v->valuedouble;
    return SIM_OK;
}

static int get_bool(const cJSON *msg, const char *topic, const char *key, bool *out, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    if (!cJSON_IsBool(v)) return sim_error_set(err, SIM_EINVAL, "%s: \"%s\" must be true or false", topic, key);
    *out = cJSON_IsTrue(v);
    return SIM_OK;
}

int sim_msg_automation_state_decode(const cJSON *msg, sim_msg_automation_state *out, sim_error *err)
{
    static const char *T = SIM_TOPIC_AUTOMATION_STATE;
    memset(out, 0, sizeof *out);
    int rc;
    if ((rc = get_str(msg, T, "mode", true, out->mode, sizeof out->mode, err)) ||
        (rc = get_str(msg, T, "tor", true, out->tor, sizeof out->tor, err)) ||
        (rc = get_num(msg, T, "set_speed", &out->set_speed, err)) ||
        (rc = get_num(msg, T, "time_gap", &out->time_gap, err)) ||
        (rc = get_bool(msg, T, "lateral", &out->lateral, err)) ||
        (rc = get_bool(msg, T, "longitudinal", &out->longitudinal, err)) ||
        (rc = get_num(msg, T, "steer_deg", &out->steer_deg, err)) ||
        (rc = get_num(msg, T, "driver_steer_deg", &out->driver_steer_deg, err)) ||
        (rc = get_num(msg, T, "driver_brake", &out->driver_brake, err)))
        return rc;
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(msg, "hands_on");
    if (h && !cJSON_IsNull(h) && !cJSON_IsBool(h))
        return sim_error_set(err, SIM_EINVAL, "%s: \"hands_on\" must be true, false or null", T);
    out->hands_on = cJSON_IsBool(h) ? cJSON_IsTrue(h) : -1;
    return SIM_OK;
}

cJSON *sim_msg_automation_event_encode(const sim_msg_automation_event *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "event", m->event) || !cJSON_AddStringToObject(o, "mode", m->mode) ||
        !(m->reason[0] ? cJSON_AddStringToObject(o, "reason", m->reason) : cJSON_AddNullToObject(o, "reason")) ||
        (!isnan(m->takeover_s) && !cJSON_AddNumberToObject(o, "takeover_s", m->takeover_s)) ||
        (m->cues[0] && !cJSON_AddStringToObject(o, "cues", m->cues))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_automation_event_decode(const cJSON *msg, sim_msg_automation_event *out, sim_error *err)
{
    static const char *T = SIM_TOPIC_AUTOMATION_EVENT;
    memset(out, 0, sizeof *out);
    out->takeover_s = NAN;
    int rc;
    if ((rc = get_str(msg, T, "event", true, out->event, sizeof out->event, err)) ||
        (rc = get_str(msg, T, "mode", true, out->mode, sizeof out->mode, err)) ||
        (rc = get_str(msg, T, "reason", false, out->reason, sizeof out->reason, err)) ||
        (rc = get_str(msg, T, "cues", false, out->cues, sizeof out->cues, err)))
        return rc;
    if (cJSON_GetObjectItemCaseSensitive(msg, "takeover_s") && (rc = get_num(msg, T, "takeover_s", &out->takeover_s, err)))
        return rc;
    return SIM_OK;
}
