/* sim_modules: the module table and its lookups (see sim_modules.h). */
#include "sim_modules.h"

#include <stdio.h>
#include <string.h>

#include "sim_cab.h"

#define LOCKSTEP SIM_MODULE_LOCKSTEP
#define VEHICLE SIM_MODULE_VEHICLE
#define START SIM_MODULE_START
#define EGO SIM_MODULE_EGO
#define PARAMS SIM_MODULE_PARAMS
#define PER_CAB SIM_MODULE_PER_CAB
#define SIM_MODULE(id_, exe_, name_, when_, waits_, takes_, acts_)                                  \
    [SIM_MODULE_ID_##id_] = {.id = SIM_MODULE_ID_##id_, .exe = exe_, .bus_name = name_,              \
                             .when = SIM_MODULE_##when_, .clock_waits = waits_, .takes = takes_, \
                             .acts_on = acts_},
const sim_module sim_modules[SIM_MODULE_COUNT] = {
#include "sim_modules.def"
};
#undef SIM_MODULE

bool sim_module_session_name(const char *name)
{
    /* a cab's module, NAME@CAB (docs/cabs.md) */
    const char *at = strchr(name, '@');
    if (at && sim_cab_name_ok(at + 1)) {
        char base[65];
        if ((size_t)(at - name) >= sizeof base) return false;
        snprintf(base, sizeof base, "%.*s", (int)(at - name), name);
        return sim_module_session_name(base);
    }
    for (size_t i = 0; i < SIM_MODULE_COUNT; i++)
        if (strcmp(name, sim_modules[i].bus_name) == 0) return true;
    return strcmp(name, "simctl") == 0 || strncmp(name, "render-", 7) == 0;
}
