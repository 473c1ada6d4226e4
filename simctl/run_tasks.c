/* run_tasks: which optional task modules a session starts: task-node when the scenario
 * has a "drt" object (docs/tasks.md). Only the key is looked at here; task-node itself
 * loads and validates the scenario and says what is wrong. */
#include <stdbool.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "sim_file.h"
#include "supervise.h"

bool run_wants_task_node(const char *scenario)
{
    char *text = NULL;
    size_t len = 0;
    sim_error err = {0};
    if (!scenario || sim_file_read(scenario, &text, &len, &err)) return false;
    cJSON *root = cJSON_ParseWithLength(text, len);
    bool want = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "drt"));
    cJSON_Delete(root);
    free(text);
    return want;
}
