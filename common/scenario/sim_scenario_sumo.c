/* sim_scenario_sumo: a scenario's "traffic": {"engine": "sumo", "sumo": {...}}, the
 * surrounding traffic handed to SUMO (docs/traffic.md, "SUMO"). Files are relative to
 * the scenario's folder, as every path in a scenario. */
#include "sim_scenario_load.h"

#include <stdlib.h>
#include <string.h>

#include "sim_file.h"

void scn_free_sumo(sim_sumo_config *c)
{
    free(c->net);
    for (int i = 0; i < c->n_routes; i++) free(c->routes[i]);
    free(c->routes);
    memset(c, 0, sizeof *c);
}

void scn_load_sumo(ld *L, const cJSON *t)
{
    static const char *const engines[] = {"own", "sumo", NULL};
    static const char *const keys[] = {"net", "routes", "period_s", "end_s", "fringe_factor", "warmup_s", "tls_guess",
                                       "pedestrian_period_s", NULL};
    sim_scenario *sc = L->sc;
    sim_sumo_config *c = &sc->sumo;
    c->period_s = 2.0;
    c->end_s = 3600;
    c->fringe_factor = 1.0;
    sc->traffic_engine = scn_get_enum(L, t, "traffic", "engine", SIM_TRAFFIC_ENGINE_OWN, engines);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "sumo");
    if (o && sc->traffic_engine != SIM_TRAFFIC_ENGINE_SUMO) {
        scn_err_at(L, "traffic.sumo", "found a sumo section, expected it only with \"engine\": \"sumo\"");
        return;
    }
    if (sc->traffic_engine != SIM_TRAFFIC_ENGINE_SUMO) return;
    if (o && !scn_is_obj(L, o, "traffic.sumo")) return;
    if (o) scn_check_keys(L, o, "traffic.sumo", keys);
    const char *net = NULL;
    scn_get_str(L, o, "traffic.sumo", "net", false, NULL, &net);
    if (net) c->net = scn_file(L, SIM_SCN_FILE_SUMO_NET, net);
    scn_get_num(L, o, "traffic.sumo", "period_s", false, 2.0, NUM_RANGE, 0.01, 3600, &c->period_s);
    scn_get_num(L, o, "traffic.sumo", "end_s", false, 3600, NUM_RANGE, 1, 86400, &c->end_s);
    scn_get_num(L, o, "traffic.sumo", "fringe_factor", false, 1.0, NUM_RANGE, 0, 1000, &c->fringe_factor);
    scn_get_num(L, o, "traffic.sumo", "warmup_s", false, 60, NUM_RANGE, 0, 3600, &c->warmup_s);
    scn_get_bool(L, o, "traffic.sumo", "tls_guess", false, &c->tls_guess);
    if (c->tls_guess && c->net)
        scn_err_at(L, "traffic.sumo.tls_guess", "found true with traffic.sumo.net, expected it only when netconvert "
                   "makes the network (the net given has its lights already)");
    scn_get_num(L, o, "traffic.sumo", "pedestrian_period_s", false, 0, NUM_RANGE, 0, 3600, &c->pedestrian_period_s);
    const cJSON *arr = scn_get_arr(L, o, "traffic.sumo", "routes", false);
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(c->routes = scn_alloc_n(L, (size_t)n, sizeof *c->routes))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN];
        const cJSON *it = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "traffic.sumo.routes", i);
        if (!cJSON_IsString(it) || !it->valuestring[0]) {
            scn_err_found(L, p, it, "the name of a SUMO route file");
            continue;
        }
        if ((c->routes[c->n_routes] = scn_file(L, SIM_SCN_FILE_SUMO_ROUTES, it->valuestring))) c->n_routes++;
    }
}

/* What the own core does and SUMO does not: refused rather than silently ignored. */
void scn_check_sumo(ld *L)
{
    sim_scenario *sc = L->sc;
    if (sc->traffic_engine != SIM_TRAFFIC_ENGINE_SUMO) return;
    if (sc->n_agents)
        scn_err_at(L, "traffic.agents", "found %d agents with \"engine\": \"sumo\", expected none (SUMO's vehicles "
                   "come from its route files)", sc->n_agents);
    if (sc->traffic_density > 0)
        scn_err_at(L, "traffic.density", "found %g with \"engine\": \"sumo\", expected none (SUMO's demand is set by "
                   "traffic.sumo.routes or traffic.sumo.period_s)", sc->traffic_density);
    if (sc->n_triggers)
        scn_err_at(L, "triggers", "found %d triggers with \"engine\": \"sumo\", expected none (they act on the own "
                   "traffic core's agents)", sc->n_triggers);
    if (sc->sumo.pedestrian_period_s > 0 && (sc->sumo.net || sc->sumo.n_routes))
        scn_err_at(L, "traffic.sumo.pedestrian_period_s", "found %g with traffic.sumo.%s, expected it only when the "
                   "network and the trips are made (persons in the route files given are shown as they are)",
                   sc->sumo.pedestrian_period_s, sc->sumo.net ? "net" : "routes");
    /* JSON roads reach SUMO through their OpenDRIVE export (sim_xodr_write), which
     * carries no traffic-light heads: SUMO would run those junctions without lights. */
    if (!sc->opendrive && !sc->sumo.net && sc->net.lights.n_heads)
        scn_err_at(L, "traffic_lights", "found %d heads with \"engine\": \"sumo\" on the scenario's JSON roads, "
                   "expected none (their OpenDRIVE export for SUMO's network carries no lights; name a SUMO network "
                   "in traffic.sumo.net, or use an OpenDRIVE file)", sc->net.lights.n_heads);
}
