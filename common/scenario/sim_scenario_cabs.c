/* sim_scenario_cabs: the scenario's "cabs" section: the drivers of a session with
 * several cabs, each with its name, start point and vehicle file (docs/cabs.md). */
#include "sim_scenario_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cab's name goes into topic names (cab.NAME.vehicle.state) and module names
 * (physics@NAME): the rule of sim_cab_name_ok (common/protocol/sim_cab.h). */
static bool cab_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > SIM_SCENARIO_CAB_NAME_MAX) return false;
    for (size_t i = 0; i < n; i++)
        if (!(name[i] == '_' || name[i] == '-' || (name[i] >= '0' && name[i] <= '9') ||
              (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z')))
            return false;
    return true;
}

void scn_load_cabs(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"name", "start", "vehicle", NULL};
    const cJSON *arr = scn_get_arr(L, root, "", "cabs", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (n > SIM_SCENARIO_MAX_CABS) {
        scn_err_at(L, "cabs", "%d cabs, expected at most %d", n, SIM_SCENARIO_MAX_CABS);
        return;
    }
    if (!(sc->cabs = scn_alloc_n(L, (size_t)n, sizeof *sc->cabs))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "cabs", i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        sim_cab_spec *cab = &sc->cabs[sc->n_cabs++];
        cab->start = -1;
        cab->name = scn_dup_str(L, o, p, "name", true, NULL);
        if (cab->name && !cab_name_ok(cab->name))
            scn_err_at(L, scn_kpath(q, p, "name"), "\"%s\": expected 1 to %d of A-Z a-z 0-9 _ -", cab->name,
                       SIM_SCENARIO_CAB_NAME_MAX);
        CHECK_UNIQUE(L, scn_kpath(q, p, "name"), "cab name", sc->cabs, sc->n_cabs - 1, name);
        char *start = scn_dup_str(L, o, p, "start", true, NULL);
        if (start && (cab->start = sim_scenario_find_start(sc, start)) < 0)
            scn_err_at(L, scn_kpath(q, p, "start"), "no start point named \"%s\"", start);
        free(start);
        cab->vehicle = scn_dup_str(L, o, p, "vehicle", false, NULL);
    }
}
