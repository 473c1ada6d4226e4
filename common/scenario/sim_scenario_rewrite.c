/* sim_scenario_rewrite: a condition's copy of a scenario, loadable from any folder
 * (sim_scenario_rewrite.h). */
#include "sim_scenario_rewrite.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"

const char *const sim_scenario_file_fields[SIM_SCN_FILE_COUNT] = {
    [SIM_SCN_FILE_HEIGHTMAP] = "terrain.heightmap",
    [SIM_SCN_FILE_FRICTION_MAP] = "terrain.friction.map",
    [SIM_SCN_FILE_OPENDRIVE] = "roads.opendrive",
    [SIM_SCN_FILE_SUMO_NET] = "traffic.sumo.net",
    [SIM_SCN_FILE_SUMO_ROUTES] = "traffic.sumo.routes[]",
};

/* item (a string member of parent, an object or an array) joined to dir when relative. */
static int absolute(cJSON *parent, cJSON *item, const char *dir)
{
    if (!cJSON_IsString(item) || !item->valuestring[0] || item->valuestring[0] == '/') return SIM_OK;
    char *full = sim_file_join(dir, item->valuestring);
    cJSON *s = full ? cJSON_CreateString(full) : NULL;
    free(full);
    if (!s) return SIM_ENOMEM;
    /* In an object the replacement takes the key (ViaPointer would leave it without). */
    if (cJSON_IsObject(parent) ? cJSON_ReplaceItemInObjectCaseSensitive(parent, item->string, s)
                               : cJSON_ReplaceItemViaPointer(parent, item, s))
        return SIM_OK;
    cJSON_Delete(s);
    return SIM_ENOMEM;
}

static int rewrite_field(cJSON *obj, const char *field, const char *dir)
{
    char key[64];
    for (;;) {
        const char *dot = strchr(field, '.');
        size_t n = dot ? (size_t)(dot - field) : strlen(field);
        int array = !dot && n > 2 && strcmp(field + n - 2, "[]") == 0;
        if (array) n -= 2;
        if (n >= sizeof key) return SIM_OK;
        memcpy(key, field, n);
        key[n] = '\0';
        cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (dot) {
            if (!cJSON_IsObject(v)) return SIM_OK;
            obj = v;
            field = dot + 1;
            continue;
        }
        if (!array) return absolute(obj, v, dir);
        if (!cJSON_IsArray(v)) return SIM_OK;
        for (cJSON *e = v->child, *next; e; e = next) {
            next = e->next; /* e may be replaced */
            if (absolute(v, e, dir)) return SIM_ENOMEM;
        }
        return SIM_OK;
    }
}

int sim_scenario_rewrite_paths(cJSON *scenario, const char *dir, sim_error *err)
{
    if (!cJSON_IsObject(scenario) || !dir || !dir[0]) return SIM_OK;
    for (int f = 0; f < SIM_SCN_FILE_COUNT; f++)
        if (rewrite_field(scenario, sim_scenario_file_fields[f], dir))
            return sim_error_set(err, SIM_ENOMEM, "out of memory");
    return SIM_OK;
}

int sim_scenario_rewrite(const char *path, const sim_study_condition *c, char **text, sim_error *err)
{
    *text = NULL;
    char *raw = NULL;
    size_t len;
    int rc = sim_file_read(path, &raw, &len, err);
    if (rc) return rc;
    cJSON *sc = cJSON_ParseWithLength(raw, len);
    free(raw);
    if (!sc) return sim_error_set(err, SIM_EINVAL, "%s: not a JSON scenario (simctl validate says where)", path);
    /* The real folder: a copy elsewhere must not depend on the symlinks or the working
     * directory the study was started from. */
    char real[PATH_MAX];
    char *dir = sim_file_dirname(realpath(path, real) ? real : path);
    rc = dir ? sim_study_scenario_overlay(sc, c, err) : sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (!rc) rc = sim_scenario_rewrite_paths(sc, dir, err);
    free(dir);
    if (!rc && !(*text = cJSON_Print(sc))) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    cJSON_Delete(sc);
    return rc;
}
