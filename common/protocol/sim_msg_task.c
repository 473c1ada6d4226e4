/* sim_msg_task: drt.stimulus, drt.response, gaze.sample (see sim_msg_task.h). */
#include "sim_msg_task.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim_msg_fields.h"

static const sim_msg_field STIMULUS[] = {
    {"id", SIM_MF_INT, offsetof(sim_msg_drt_stimulus, id), 0, 2147483647, 0},
    {"modality", SIM_MF_STR, offsetof(sim_msg_drt_stimulus, modality), 0, 0, SIM_MSG_NAME_MAX},
    {"on", SIM_MF_BOOL, offsetof(sim_msg_drt_stimulus, on), 0, 0, 0},
    {"angle_deg", SIM_MF_NUM, offsetof(sim_msg_drt_stimulus, angle_deg), -180, 180, 0},
};
static const sim_msg_field RESPONSE[] = {
    {"source", SIM_MF_STR, offsetof(sim_msg_drt_response, source), 0, 0, SIM_MSG_NAME_MAX},
};
static const sim_msg_field GAZE[] = {
    {"valid", SIM_MF_BOOL, offsetof(sim_msg_gaze_sample, valid), 0, 0, 0},
    {"area", SIM_MF_STR, offsetof(sim_msg_gaze_sample, area), 0, 0, SIM_MSG_NAME_MAX},
    {"yaw_deg", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, yaw_deg), -180, 180, 0},
    {"pitch_deg", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, pitch_deg), -90, 90, 0},
    {"confidence", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, confidence), 0, 1, 0},
    {"target", SIM_MF_STR, offsetof(sim_msg_gaze_sample, target), 0, 0, SIM_MSG_NAME_MAX},
    {"t_src", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, t_src), -1e12, 1e12, 0},
    {"wall", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, wall), 0, 1e11, 0},
    {"sim_t", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, sim_t), 0, 1e9, 0},
    {"surface_x", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, surface_x), 0, 1, 0},
    {"surface_y", SIM_MF_NUM, offsetof(sim_msg_gaze_sample, surface_y), 0, 1, 0},
};
#define COUNT(a) (sizeof a / sizeof *a)

cJSON *sim_msg_drt_stimulus_encode(const sim_msg_drt_stimulus *m)
{
    return sim_msg_fields_object(m, STIMULUS, COUNT(STIMULUS));
}

int sim_msg_drt_stimulus_decode(const cJSON *msg, sim_msg_drt_stimulus *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_DRT_STIMULUS, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, STIMULUS, COUNT(STIMULUS));
    if (rc) return rc;
    if (out->id == SIM_MSG_NO_INT)
        return sim_json_found(&j, "id", cJSON_GetObjectItemCaseSensitive(msg, "id"),
                              "the stimulus number, an integer >= 0");
    if (strcmp(out->modality, "visual") && strcmp(out->modality, "tactile") &&
        strcmp(out->modality, "auditory"))
        return sim_json_found(&j, "modality", cJSON_GetObjectItemCaseSensitive(msg, "modality"),
                              "\"visual\", \"tactile\" or \"auditory\"");
    return SIM_OK;
}

cJSON *sim_msg_drt_response_encode(const sim_msg_drt_response *m)
{
    return sim_msg_fields_object(m, RESPONSE, COUNT(RESPONSE));
}

int sim_msg_drt_response_decode(const cJSON *msg, sim_msg_drt_response *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_DRT_RESPONSE, .err = err};
    return sim_msg_fields_decode(&j, msg, out, RESPONSE, COUNT(RESPONSE));
}

void sim_msg_gaze_sample_clear(sim_msg_gaze_sample *m)
{
    sim_msg_fields_clear(m, GAZE, COUNT(GAZE));
}

cJSON *sim_msg_gaze_sample_encode(const sim_msg_gaze_sample *m)
{
    return sim_msg_fields_object(m, GAZE, COUNT(GAZE));
}

int sim_msg_gaze_sample_decode(const cJSON *msg, sim_msg_gaze_sample *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_GAZE_SAMPLE, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, GAZE, COUNT(GAZE));
    if (rc) return rc;
    if (out->valid && !out->area[0] && (isnan(out->yaw_deg) || isnan(out->pitch_deg)))
        return sim_json_found(&j, "area", cJSON_GetObjectItemCaseSensitive(msg, "area"),
                              "an area name, or yaw_deg and pitch_deg, in a valid sample");
    return SIM_OK;
}
