/* Fuzz target: operator control requests as the dispatcher receives them. */
#include <stddef.h>
#include <stdint.h>

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
    return 0;
}
