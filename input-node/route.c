/* route: scenario -> path for the scripted driver (see route.h).
 *
 * The world model (common/sim_scenario.h, issue 3) is not on main yet; until it is,
 * a scenario cannot be followed and this says so. --replay works meanwhile. */
#include "route.h"

int route_build(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                sim_error *err)
{
    return sim_error_set(err, SIM_ENOTFOUND,
                         "%s: following a scenario needs the world model, which this build "
                         "does not have yet; use --replay FILE",
                         scenario);
}
