/* sim_msg_traffic_engine: traffic.engine, encoded and decoded (see the header). */
#include "sim_msg_traffic_engine.h"

#include <string.h>

#include "sim_json.h"

cJSON *sim_msg_traffic_engine_encode(const sim_msg_traffic_engine *m)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "engine", m->engine) && cJSON_AddStringToObject(o, "version", m->version) &&
              cJSON_AddNumberToObject(o, "api", m->api) && cJSON_AddStringToObject(o, "options", m->options) &&
              cJSON_AddNumberToObject(o, "step_s", m->step_s) && cJSON_AddNumberToObject(o, "seed", m->seed);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_traffic_engine_decode(const cJSON *msg, sim_msg_traffic_engine *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_TRAFFIC_ENGINE, .err = err};
    memset(out, 0, sizeof *out);
    int ret = sim_json_strcpy(&j, msg, "", "engine", true, out->engine, sizeof out->engine);
    if (!ret) ret = sim_json_strcpy(&j, msg, "", "version", true, out->version, sizeof out->version);
    if (!ret) ret = sim_json_int(&j, msg, "", "api", false, 0, 0, 1000000, &out->api);
    if (!ret) ret = sim_json_strcpy(&j, msg, "", "options", false, out->options, sizeof out->options);
    if (!ret) ret = sim_json_num(&j, msg, "", "step_s", false, 0, SIM_JSON_RANGE, 0, 3600, &out->step_s);
    if (!ret) ret = sim_json_num(&j, msg, "", "seed", false, 0, SIM_JSON_RANGE, 0, 4294967295.0, &out->seed);
    return ret;
}
