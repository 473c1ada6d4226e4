/* sim_xosc_params: a module's scenario with the session's OpenSCENARIO parameter
 * overrides (--params), so that physics starts the ego where the storyboard does and
 * every module sees the same file (docs/openscenario.md, "Parameters"). */
#include <string.h>
#include <strings.h>

#include "sim_scenario.h"
#include "sim_xosc.h"

#define MAX_OVERRIDES 32

static bool is_xosc(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcasecmp(path + n - 5, ".xosc") == 0;
}

int sim_scenario_load_params(const char *path, const char *params, sim_scenario **out, sim_error *err)
{
    if (!params || !*params) return sim_scenario_load_err(path, out, err);
    if (!is_xosc(path))
        return sim_error_set(err, SIM_EINVAL, "--params %s: %s is no OpenSCENARIO file (.xosc); only they have parameters",
                             params, path);
    sim_xosc_override ov[MAX_OVERRIDES];
    int n = sim_xosc_parse_overrides(params, ov, MAX_OVERRIDES, err);
    if (n < 0) return n;
    sim_diag d = {0};
    int rc = sim_scenario_load_xosc(path, ov, n, NULL, out, &d);
    if (rc) sim_error_set(err, rc, "%s", d.n ? d.msgs[0] : "cannot load the scenario");
    sim_diag_free(&d);
    return rc;
}
