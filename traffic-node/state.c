/* state: the traffic node's world and its messages (see state.h). */
#include "state.h"

#include "sim_traffic_contact.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int tn_world_open(tn_world *w, const char *scenario, sim_error *err)
{
    int rc = sim_scenario_load_err(scenario, &w->sc, err);
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
    w->n_touching = 0;
    return SIM_OK;
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

int tn_collisions(tn_world *w, cJSON **out, int max)
{
    int slots[TN_MAX_CONTACTS], n_out = 0;
    int n = sim_traffic_contacts(&w->t, TN_CONTACT_MARGIN, slots, TN_MAX_CONTACTS);
    uint32_t now[TN_MAX_CONTACTS];
    for (int i = 0; i < n; i++) {
        const sim_traffic_agent *a = &w->t.agents[slots[i]];
        now[i] = a->uid;
        bool before = false;
        for (int k = 0; k < w->n_touching && !before; k++) before = w->touching[k] == a->uid;
        if (before || n_out >= max) continue;
        sim_msg_traffic_collision c = {.rel_speed = sim_traffic_contact_speed(&w->t, slots[i]),
                                       .ego_speed = w->t.ego.speed,
                                       .other_speed = sim_traffic_agent_speed(&w->t, slots[i])};
        agent_id(w, slots[i], c.other, sizeof c.other);
        snprintf(c.model, sizeof c.model, "%s",
                 slots[i] < w->su.n_specs ? w->sc->agents[slots[i]].model : sim_traffic_vmodels[a->model].name);
        out[n_out++] = sim_msg_traffic_collision_encode(&c);
    }
    memcpy(w->touching, now, (size_t)n * sizeof *now);
    w->n_touching = n;
    return n_out;
}
