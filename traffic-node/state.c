/* state: the traffic node's world and its messages (see state.h). */
#include "state.h"
#include "xosc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int tn_world_open(tn_world *w, const char *scenario, sim_error *err)
{
    int rc = tn_xosc_load(w, scenario, err);
    if (rc) return rc;
    rc = sim_traffic_setup_init(&w->su, w->sc, 0, err);
    if (rc) {
        sim_scenario_free(w->sc);
        w->sc = NULL;
        return rc;
    }
    w->density_scale = 1.0;
    return tn_world_restart(w, err);
}

void tn_world_close(tn_world *w)
{
    tn_xosc_stop(w);
    if (w->started) sim_traffic_free(&w->t);
    sim_traffic_setup_free(&w->su);
    sim_scenario_free(w->sc);
    w->sc = NULL;
    w->started = false;
}

int tn_world_restart(tn_world *w, sim_error *err)
{
    if (w->started) sim_traffic_free(&w->t);
    w->started = false;
    int rc = sim_traffic_setup_start(&w->su, &w->t, err);
    if (rc) return rc;
    w->started = true;
    w->t.density_scale = w->density_scale;
    w->t.frozen = w->frozen;
    return tn_xosc_start(w, err);
}

static void agent_id(const tn_world *w, int slot, char *buf, size_t n)
{
    if (slot < w->su.n_specs) snprintf(buf, n, "%s", w->sc->agents[slot].id);
    else snprintf(buf, n, "a%u", w->t.agents[slot].uid);
}

static void vehicle(tn_world *w, int slot, sim_msg_traffic_vehicle *v)
{
    const sim_traffic_agent *a = &w->t.agents[slot];
    const sim_lg_lane *l = &w->su.graph.lanes[a->lane];
    memset(v, 0, sizeof *v);
    agent_id(w, slot, v->id, sizeof v->id);
    snprintf(v->model, sizeof v->model, "%s",
             slot < w->su.n_specs ? w->sc->agents[slot].model : sim_traffic_vmodels[a->model].name);
    snprintf(v->road, sizeof v->road, "%s", w->sc->net.roads[l->road].id);
    sim_ground g;
    sim_scenario_ground(w->sc, a->x, a->y, &g);
    double speed = sim_traffic_agent_speed(&w->t, slot);
    v->pos[0] = a->x;
    v->pos[1] = a->y;
    v->pos[2] = g.z;
    v->heading = a->heading;
    v->size[0] = a->length;
    v->size[1] = a->width;
    v->size[2] = a->height;
    v->velocity[0] = speed * cos(a->heading);
    v->velocity[1] = speed * sin(a->heading);
    v->brake = a->brake_light || w->t.frozen;
    v->left = a->ind_left;
    v->right = a->ind_right;
    v->lane = l->lane_id;
    v->s = sim_lanegraph_road_s(&w->su.graph, a->lane, a->s);
}

cJSON *tn_state_payload(tn_world *w)
{
    sim_msg_traffic_state m = {.run = w->run, .total = w->t.n_active, .ambient = w->t.n_ambient, .frozen = w->t.frozen,
                               .vehicles = w->vehicles};
    double x = 0, y = 0;
    if (w->t.ego.valid) {
        x = w->t.ego.x;
        y = w->t.ego.y;
    } else if (w->sc->n_starts > 0) {
        x = w->sc->starts[0].x;
        y = w->sc->starts[0].y;
    }
    m.n_vehicles = sim_traffic_nearest(&w->t, x, y, w->radius, w->order, w->max_vehicles);
    for (int i = 0; i < m.n_vehicles; i++) vehicle(w, w->order[i], &w->vehicles[i]);
    int n_sb = tn_xosc_vehicles(w, w->vehicles + m.n_vehicles, w->max_vehicles - m.n_vehicles, &m.lead);
    m.n_vehicles += n_sb;
    m.total += n_sb;
    const sim_traffic_lead *ld = &w->t.lead;
    if (ld->valid) {
        m.lead.valid = true;
        agent_id(w, ld->agent, m.lead.id, sizeof m.lead.id);
        m.lead.gap = ld->gap;
        m.lead.speed = ld->speed;
        m.lead.thw = ld->thw;
        m.lead.ttc = ld->ttc;
    }
    return sim_msg_traffic_state_encode(&m);
}

cJSON *tn_event_payload(const tn_world *w, int k)
{
    static const char *const actions[] = {"lane_switch", "brake", "hud_text", "log_mark"};
    const sim_traffic_event *e = &w->t.events[k];
    const sim_trigger *tr = &w->sc->triggers[e->trigger];
    sim_msg_traffic_event m = {0};
    snprintf(m.trigger, sizeof m.trigger, "%s", tr->id);
    snprintf(m.action, sizeof m.action, "%s", actions[w->su.triggers[e->trigger].action]);
    if (w->su.triggers[e->trigger].agent >= 0) agent_id(w, w->su.triggers[e->trigger].agent, m.agent, sizeof m.agent);
    if (e->by < 0) snprintf(m.by, sizeof m.by, "ego");
    else agent_id(w, e->by, m.by, sizeof m.by);
    if (tr->text) snprintf(m.text, sizeof m.text, "%s", tr->text);
    return sim_msg_traffic_event_encode(&m);
}
