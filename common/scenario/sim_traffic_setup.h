/* sim_traffic_setup: a scenario's traffic (agents, triggers, ambient density, model)
 * turned into the traffic core's terms (common/traffic), and a world started from it.
 *
 * Ownership: the setup owns its lane graph and arrays (sim_traffic_setup_free) and
 * borrows the scenario (routes, trigger lanes), which must outlive it; a world
 * started from the setup borrows the setup. */
#ifndef SIM_TRAFFIC_SETUP_H
#define SIM_TRAFFIC_SETUP_H

#include "sim_scenario.h"
#include "sim_traffic.h"

typedef struct sim_traffic_setup {
    const sim_scenario *sc;
    sim_lanegraph graph;
    sim_traffic_params params;
    sim_traffic_spec *specs;       /* one per scenario agent, in the scenario's order */
    int n_specs;
    sim_traffic_trigger *triggers; /* one per scenario trigger */
    int n_triggers;
    sim_traffic_stop *stops;       /* the stop line of every vehicle traffic-light head on
                                      each graph lane it controls; head: sc->net.lights index */
    int n_stops;
} sim_traffic_setup;

/* Builds the lane graph and the specs. max_agents: capacity of worlds started from it
 * (0: the scenario's agents plus room for the ambient density). Fails naming the agent
 * whose start is not on a driving lane. */
int sim_traffic_setup_init(sim_traffic_setup *su, const sim_scenario *sc, int max_agents,
                           sim_error *err);
void sim_traffic_setup_free(sim_traffic_setup *su);
/* A fresh world: every scenario agent at its start (slot i is agent i), the triggers,
 * the stop lines (their head states all off until sim_traffic_set_lights gives the
 * node's). */
int sim_traffic_setup_start(const sim_traffic_setup *su, sim_traffic *t, sim_error *err);

#endif
