/* send_check: a message checked by its topic's definition before `simctl send`. */
#include "send_check.h"

#include <string.h>

#include "sim_msg_collision.h"
#include "sim_msg_context.h"
#include "sim_msg_ffb.h"
#include "sim_msg_hud.h"
#include "sim_msg_input.h"
#include "sim_msg_log.h"
#include "sim_msg_signal.h"
#include "sim_msg_sim.h"
#include "sim_msg_traffic.h"
#include "sim_msg_vehicle.h"

/* A string field the topic requires ("log.mark" {name}, "task.start" {id}). */
static int need_string(const cJSON *msg, const char *topic, const char *key, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, key);
    if (cJSON_IsString(v) && v->valuestring[0]) return SIM_OK;
    return sim_error_set(err, SIM_EINVAL, "%s: %s: %s, expected a non-empty string", topic, key,
                         v ? "found another kind of value" : "missing");
}

int simctl_send_check(const char *topic, const cJSON *payload, bool *known, sim_error *err)
{
    /* The message as the bus carries it: the payload's fields, with the envelope. */
    cJSON *msg = payload ? cJSON_Duplicate(payload, true) : cJSON_CreateObject();
    if (!msg) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    cJSON_DeleteItemFromObjectCaseSensitive(msg, "topic");
    cJSON_AddStringToObject(msg, "topic", topic);
    if (!cJSON_GetObjectItemCaseSensitive(msg, "t")) cJSON_AddNumberToObject(msg, "t", 0);
    int rc = SIM_OK;
    *known = true;
    if (!strcmp(topic, SIM_TOPIC_HUD_TEXT)) {
        sim_msg_hud_text m;
        rc = sim_msg_hud_text_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_INPUT_CONTROLS)) {
        sim_msg_input_controls m;
        rc = sim_msg_input_controls_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_VEHICLE_STATE)) {
        sim_msg_vehicle_state m;
        rc = sim_msg_vehicle_state_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_FFB_COMMAND)) {
        sim_msg_ffb_command m;
        rc = sim_msg_ffb_command_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_SIM_TICK)) {
        sim_msg_tick m;
        rc = sim_msg_tick_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_SIM_ACK)) {
        sim_msg_ack m;
        rc = sim_msg_ack_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_TRAFFIC_STATE)) {
        static sim_msg_traffic_vehicle v[SIM_MSG_TRAFFIC_MAX_VEHICLES];
        sim_msg_traffic_state m = {.vehicles = v};
        rc = sim_msg_traffic_state_decode(msg, &m, SIM_MSG_TRAFFIC_MAX_VEHICLES, err);
    } else if (!strcmp(topic, SIM_TOPIC_TRAFFIC_EVENT)) {
        sim_msg_traffic_event m;
        rc = sim_msg_traffic_event_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_TRAFFIC_COLLISION)) {
        sim_msg_traffic_collision m;
        rc = sim_msg_traffic_collision_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_VEHICLE_COLLISION)) {
        sim_msg_vehicle_collision m;
        rc = sim_msg_vehicle_collision_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_SIGNAL_STATE)) {
        sim_msg_signal_state m;
        rc = sim_msg_signal_state_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_SIGNAL_RED_RUN)) {
        sim_msg_signal_red_run m;
        rc = sim_msg_signal_red_run_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_CONTEXT_REQUEST)) {
        sim_msg_context_request m;
        rc = sim_msg_context_request_decode(msg, &m, err);
    } else if (!strcmp(topic, SIM_TOPIC_LOG_MARK)) {
        rc = need_string(msg, topic, "name", err);
    } else if (!strcmp(topic, "task.start") || !strcmp(topic, "task.end") || !strcmp(topic, "sector.start") ||
               !strcmp(topic, "sector.end")) {
        rc = need_string(msg, topic, "id", err);
    } else {
        *known = false;
    }
    cJSON_Delete(msg);
    return rc;
}
