/* sim_traffic_setup: scenario traffic to the traffic core (see sim_traffic_setup.h). */
#include "sim_traffic_setup.h"

#include <stdlib.h>
#include <string.h>

#include "sim_lanegraph_road.h"

void sim_traffic_setup_free(sim_traffic_setup *su)
{
    sim_lanegraph_free(&su->graph);
    free(su->specs);
    free(su->triggers);
    memset(su, 0, sizeof *su);
}

static const sim_traffic_action actions[] = {
    [SIM_ACTION_LANE_SWITCH] = SIM_TA_LANE_SWITCH,
    [SIM_ACTION_BRAKE] = SIM_TA_BRAKE,
    [SIM_ACTION_HUD_TEXT] = SIM_TA_HUD_TEXT,
    [SIM_ACTION_LOG_MARK] = SIM_TA_LOG_MARK,
};

int sim_traffic_setup_init(sim_traffic_setup *su, const sim_scenario *sc, int max_agents,
                           sim_error *err)
{
    memset(su, 0, sizeof *su);
    su->sc = sc;
    /* an OpenSCENARIO storyboard drives on merge lanes (sim_lanegraph_road.h) */
    int ret = sim_lanegraph_from_roads_merge(&su->graph, &sc->net, sc->xosc != NULL, err);
    if (ret < 0) return ret;
    sim_traffic_params *p = &su->params;
    sim_traffic_params_default(p);
    p->seed = sc->traffic_seed;
    p->model = sc->traffic_model == SIM_TRAFFIC_MODEL_IDM ? SIM_TRAFFIC_IDM : SIM_TRAFFIC_ZONES;
    p->density = sc->traffic_density;
    p->ambient_radius = sc->traffic_radius > 0 ? sc->traffic_radius : p->ambient_radius;
    if (max_agents <= 0) {
        /* Lanes within the radius: a disc holds at most about 2r of each road's lanes
         * either way; ten times the density bound leaves room. */
        double lane_km = 0;
        for (int i = 0; i < su->graph.n_lanes; i++) lane_km += su->graph.lanes[i].length / 1000.0;
        double disc = 2 * p->ambient_radius * 1.25 / 1000.0 * 16;
        max_agents = sc->n_agents + (int)(p->density * (lane_km < disc ? lane_km : disc)) + 64;
    }
    p->max_agents = max_agents;
    su->specs = calloc((size_t)sc->n_agents + 1, sizeof *su->specs);
    su->triggers = calloc((size_t)sc->n_triggers + 1, sizeof *su->triggers);
    if (!su->specs || !su->triggers) {
        sim_traffic_setup_free(su);
        return sim_error_set(err, SIM_ENOMEM, "traffic: out of memory");
    }
    for (int i = 0; i < sc->n_agents; i++) {
        const sim_agent *a = &sc->agents[i];
        sim_traffic_spec *sp = &su->specs[su->n_specs++];
        sp->model = sim_traffic_vmodel_find(a->model);
        sp->lane = sim_lanegraph_find(&su->graph, a->road, a->lane, a->s);
        if (sp->lane < 0) {
            sim_traffic_setup_free(su);
            return sim_error_set(err, SIM_EINVAL, "%s: traffic.agents[%d] (\"%s\"): start lane %d is not a driving lane",
                                 sc->path ? sc->path : "scenario", i, a->id, a->lane);
        }
        sp->s = sim_lanegraph_lane_s(&su->graph, sp->lane, a->s);
        sp->speed = -1;
        sp->b = (sim_traffic_behaviour){.desired_speed = a->desired_speed, .headway = a->behaviour.headway,
                                        .max_accel = a->behaviour.max_accel, .max_decel = a->behaviour.max_decel,
                                        .min_gap = a->behaviour.min_gap, .politeness = a->behaviour.politeness,
                                        .lane_changes = a->behaviour.lane_changes};
        sp->route = a->route;
        sp->n_route = a->n_route;
    }
    for (int i = 0; i < sc->n_triggers; i++) {
        const sim_trigger *tr = &sc->triggers[i];
        su->triggers[su->n_triggers++] = (sim_traffic_trigger){
            .road = tr->road, .s_start = tr->s_start, .s_end = tr->s_end, .lanes = tr->lanes,
            .n_lanes = tr->n_lanes,
            .by = tr->by == SIM_BY_EGO ? SIM_TT_EGO : tr->by == SIM_BY_ANY ? SIM_TT_ANY : SIM_TT_AGENT,
            .by_agent = tr->by_agent, .once = tr->once, .action = actions[tr->action],
            .agent = (tr->action == SIM_ACTION_LANE_SWITCH || tr->action == SIM_ACTION_BRAKE) ? tr->agent : -1,
            .lane = tr->lane, .decel = tr->decel, .duration = tr->duration};
    }
    return SIM_OK;
}

int sim_traffic_setup_start(const sim_traffic_setup *su, sim_traffic *t, sim_error *err)
{
    int ret = sim_traffic_init(t, &su->graph, &su->params, err);
    for (int i = 0; ret >= 0 && i < su->n_specs; i++) ret = sim_traffic_add_agent(t, &su->specs[i], false, err);
    if (ret < 0) {
        sim_traffic_free(t);
        return ret;
    }
    sim_traffic_set_triggers(t, su->triggers, su->n_triggers);
    return SIM_OK;
}
