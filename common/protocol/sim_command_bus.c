/* sim_command_bus: validating and acknowledging operator commands in a module (see
 * sim_command_bus.h). */
#include "sim_command_bus.h"

#include <stdio.h>
#include <string.h>

#include "sim_command.h"

const char *sim_command_receive(sim_bus *bus, double t, const char *module, const char *const *acts_on,
                                size_t n, const cJSON *msg)
{
    const cJSON *topic = cJSON_GetObjectItemCaseSensitive(msg, "topic");
    if (!cJSON_IsString(topic) || strncmp(topic->valuestring, "control.", 8) != 0) return NULL;
    const char *name = topic->valuestring + 8;
    bool mine = false;
    for (size_t i = 0; i < n && !mine; i++) mine = strcmp(acts_on[i], name) == 0;
    if (!mine) return NULL;
    const char *cmd = NULL;
    sim_error err = {0};
    if (sim_command_validate_message(msg, &cmd, &err) != SIM_OK) {
        sim_command_answer(bus, t, module, msg, false, err.msg);
        return NULL;
    }
    return cmd;
}

int sim_command_answer(sim_bus *bus, double t, const char *module, const cJSON *msg, bool ok, const char *error)
{
    sim_command_ack a;
    sim_command_ack_for(msg, ok, error, &a);
    if (!ok) fprintf(stderr, "%s: %s refused: %s\n", module, a.cmd, a.error);
    cJSON *p = sim_command_ack_encode(&a);
    if (!p) return SIM_ENOMEM;
    int rc = sim_bus_publish(bus, SIM_TOPIC_CONTROL_ACK, t, p);
    cJSON_Delete(p);
    return rc;
}
