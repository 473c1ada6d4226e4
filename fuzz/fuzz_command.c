/* Fuzz target: operator commands from outside: control requests as the dispatcher
 * receives them, control.<cmd> messages as modules receive them off the bus, and
 * control.ack answers as the dispatcher collects them. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim_command.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *req;
    const char *cmd;
    sim_error err;
    if (sim_command_parse((const char *)data, size, &req, &cmd, &err) == SIM_OK) {
        if (!cmd || !cmd[0]) __builtin_trap();
        cJSON_Delete(req);
    }
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (msg) {
        if (sim_command_validate_message(msg, &cmd, &err) == SIM_OK && !cmd) __builtin_trap();
        sim_command_ack ack;
        sim_command_ack_for(msg, false, NULL, &ack);
        if (!ack.error[0]) __builtin_trap(); /* a refusal always says why */
        if (sim_command_ack_decode(msg, &ack, &err) == SIM_OK) {
            /* what decodes encodes and decodes to the same */
            cJSON *again = sim_command_ack_encode(&ack);
            sim_command_ack back;
            if (again) {
                cJSON_AddStringToObject(again, "topic", "control.ack");
                if (sim_command_ack_decode(again, &back, &err) != SIM_OK || back.ok != ack.ok ||
                    strcmp(back.cmd, ack.cmd) || strcmp(back.id, ack.id))
                    __builtin_trap();
                cJSON_Delete(again);
            }
        }
        cJSON_Delete(msg);
    }
    return 0;
}
