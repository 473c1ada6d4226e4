/* sim_msg_sensor: sensor.<name> and bridge.status (see sim_msg_sensor.h). */
#include "sim_msg_sensor.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sim_msg_fields.h"

static const sim_msg_field STAMP[] = {
    {"t_src", SIM_MF_NUM, offsetof(sim_msg_sensor, t_src), -1e12, 1e12, 0},
    {"wall", SIM_MF_NUM, offsetof(sim_msg_sensor, wall), 0, 1e11, 0},
    {"sim_t", SIM_MF_NUM, offsetof(sim_msg_sensor, sim_t), 0, 1e9, 0},
};
static const sim_msg_field BRIDGE[] = {
    {"name", SIM_MF_STR, offsetof(sim_msg_bridge_status, name), 0, 0, SIM_SENSOR_NAME_MAX},
    {"kind", SIM_MF_STR, offsetof(sim_msg_bridge_status, kind), 0, 0, SIM_SENSOR_NAME_MAX},
    {"publishes", SIM_MF_STR, offsetof(sim_msg_bridge_status, publishes), 0, 0, 64},
    {"connected", SIM_MF_BOOL, offsetof(sim_msg_bridge_status, connected), 0, 0, 0},
    {"rate_hz", SIM_MF_NUM, offsetof(sim_msg_bridge_status, rate_hz), 0, 1e6, 0},
    {"dropped", SIM_MF_U64, offsetof(sim_msg_bridge_status, dropped), 0, 0, 0},
    {"calibration_age_s", SIM_MF_NUM, offsetof(sim_msg_bridge_status, calibration_age_s), 0, 1e9, 0},
};
static const sim_msg_field TARGET[] = {
    {"source", SIM_MF_STR, offsetof(sim_msg_gaze_target, source), 0, 0, 48},
    {"target", SIM_MF_STR, offsetof(sim_msg_gaze_target, target), 0, 0, 64},
    {"distance_m", SIM_MF_NUM, offsetof(sim_msg_gaze_target, distance_m), 0, 1e6, 0},
};
#define COUNT(a) (sizeof a / sizeof *a)

cJSON *sim_msg_gaze_target_encode(const sim_msg_gaze_target *m)
{
    return sim_msg_fields_object(m, TARGET, COUNT(TARGET));
}

int sim_msg_gaze_target_decode(const cJSON *msg, sim_msg_gaze_target *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_GAZE_TARGET, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, TARGET, COUNT(TARGET));
    if (!rc && !out->target[0])
        return sim_json_found(&j, "target", cJSON_GetObjectItemCaseSensitive(msg, "target"), "what the gaze hit");
    return rc;
}

static bool name_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-'))
            return false;
    return true;
}

bool sim_msg_sensor_topic(const char *topic)
{
    size_t n = strlen(SIM_TOPIC_SENSOR_PREFIX);
    return strncmp(topic, SIM_TOPIC_SENSOR_PREFIX, n) == 0 && name_ok(topic + n, SIM_SENSOR_NAME_MAX);
}

cJSON *sim_msg_sensor_encode(const sim_msg_sensor *m)
{
    cJSON *o = sim_msg_fields_object(m, STAMP, COUNT(STAMP));
    cJSON *v = o ? cJSON_AddObjectToObject(o, "values") : NULL;
    bool any_unit = false;
    for (int i = 0; v && i < m->n; i++) {
        if (!cJSON_AddNumberToObject(v, m->ch[i].name, m->ch[i].value)) v = NULL;
        any_unit |= m->ch[i].unit[0] != '\0';
    }
    cJSON *u = v && any_unit ? cJSON_AddObjectToObject(o, "units") : NULL;
    for (int i = 0; u && i < m->n; i++)
        if (m->ch[i].unit[0] && !cJSON_AddStringToObject(u, m->ch[i].name, m->ch[i].unit)) u = NULL;
    if (!v || (any_unit && !u)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_sensor_decode(const char *topic, const cJSON *msg, sim_msg_sensor *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (!sim_msg_sensor_topic(topic))
        return sim_error_set(err, SIM_EINVAL, "%s: expected a topic sensor.NAME, NAME of 1..%d letters, digits, "
                             "'_' or '-'", topic, SIM_SENSOR_NAME_MAX - 1);
    snprintf(out->sensor, sizeof out->sensor, "%s", topic + strlen(SIM_TOPIC_SENSOR_PREFIX));
    sim_json j = {.file = topic, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, STAMP, COUNT(STAMP));
    if (rc) return rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "values");
    if (!cJSON_IsObject(v) || !v->child)
        return sim_json_found(&j, "values", v, "an object of numeric channels, e.g. {\"ecg\": 0.41}");
    for (const cJSON *c = v->child; c; c = c->next) {
        if (out->n == SIM_SENSOR_CHANNELS_MAX)
            return sim_error_set(err, SIM_EINVAL, "%s: values: more than %d channels", topic,
                                 SIM_SENSOR_CHANNELS_MAX);
        char field[80];
        snprintf(field, sizeof field, "values.%.60s", c->string);
        if (!name_ok(c->string, SIM_SENSOR_NAME_MAX))
            return sim_error_set(err, SIM_EINVAL, "%s: %s: expected a channel name of 1..%d letters, digits, "
                                 "'_' or '-'", topic, field, SIM_SENSOR_NAME_MAX - 1);
        if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble))
            return sim_json_found(&j, field, c, "a finite number");
        sim_msg_sensor_channel *ch = &out->ch[out->n++];
        snprintf(ch->name, sizeof ch->name, "%s", c->string);
        ch->value = c->valuedouble;
    }
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(msg, "units");
    if (u && !cJSON_IsNull(u) && !cJSON_IsObject(u))
        return sim_json_found(&j, "units", u, "an object naming each channel's unit, e.g. {\"ecg\": \"mV\"}");
    for (const cJSON *c = cJSON_IsObject(u) ? u->child : NULL; c; c = c->next) {
        char field[80];
        snprintf(field, sizeof field, "units.%.60s", c->string);
        int k = 0;
        while (k < out->n && strcmp(out->ch[k].name, c->string)) k++;
        if (k == out->n) return sim_json_found(&j, field, c, "the unit of a channel in values");
        if (!cJSON_IsString(c) || strlen(c->valuestring) >= SIM_SENSOR_UNIT_MAX)
            return sim_json_found(&j, field, c, "a unit of at most 15 bytes, e.g. \"mV\"");
        snprintf(out->ch[k].unit, sizeof out->ch[k].unit, "%s", c->valuestring);
    }
    return SIM_OK;
}

cJSON *sim_msg_bridge_status_encode(const sim_msg_bridge_status *m)
{
    return sim_msg_fields_object(m, BRIDGE, COUNT(BRIDGE));
}

int sim_msg_bridge_status_decode(const cJSON *msg, sim_msg_bridge_status *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_BRIDGE_STATUS, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, BRIDGE, COUNT(BRIDGE));
    if (rc) return rc;
    if (!out->name[0])
        return sim_json_found(&j, "name", cJSON_GetObjectItemCaseSensitive(msg, "name"), "the bridge's name");
    return SIM_OK;
}
