/* xosc: the storyboard in the traffic node (see xosc.h). */
#include "xosc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lights.h"
#include "sim_msg_storyboard.h"

static const char *model_of(const sim_sb_entity *e);

/* The head or controller the storyboard's signal slot k names, -1: none. */
static int slot_target(const tn_world *w, int k)
{
    const sim_lights *L = &w->sc->net.lights;
    return w->sb.sig_ctl[k] ? sim_lights_find_controller(L, w->sb.sig_name[k]) : sim_lights_find_head(L, w->sb.sig_name[k]);
}

/* The storyboard's TrafficSignal(Controller)Actions of its last step (or Init) become
 * holds on heads and phase moves of controllers at t, as `simctl signal` makes them;
 * returns how many. */
static int apply_signals(tn_world *w, double t)
{
    int n = 0;
    for (int k = 0; k < w->sb.n_sig; k++) {
        int i = slot_target(w, k), req = w->sb.sig_req[k];
        if (req < 0 || i < 0) continue;
        int rc = w->sb.sig_ctl[k] ? sim_lights_set_phase(&w->sc->net.lights, &w->lights, i, req, t)
                                  : sim_lights_set_head(&w->lights, i, req);
        n += rc == SIM_OK;
    }
    return n;
}

static bool is_xosc(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcasecmp(path + n - 5, ".xosc") == 0;
}

int tn_xosc_load(tn_world *w, const char *path, sim_error *err)
{
    if (!is_xosc(path)) return sim_scenario_load_err(path, &w->sc, err);
    sim_diag d = {0};
    int rc = sim_scenario_load_xosc(path, w->ov, w->n_ov, w->ego_name, &w->sc, &d);
    if (rc) sim_error_set(err, rc, "%s", d.n ? d.msgs[0] : "cannot load the scenario");
    sim_diag_free(&d);
    if (!rc && w->sc->xosc_warning) fprintf(stderr, "traffic-node: %s: not taken: %s\n", path, w->sc->xosc_warning);
    return rc;
}

void tn_xosc_stop(tn_world *w)
{
    free(w->sb_touching);
    w->sb_touching = NULL;
    if (w->have_sb) sim_storyboard_free(&w->sb);
    w->have_sb = false;
}

int tn_xosc_start(tn_world *w, sim_error *err)
{
    tn_xosc_stop(w);
    w->sb_ended = false;
    if (!w->sc || !w->sc->xosc) return SIM_OK;
    int rc = sim_storyboard_init(&w->sb, &w->sc->xosc->model, &w->su.graph, err);
    if (rc) return rc;
    w->have_sb = true;
    w->sb_touching = calloc((size_t)w->sc->xosc->model.n_entities + 1, sizeof *w->sb_touching);
    if (!w->sb_touching) {
        tn_xosc_stop(w);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    if (!w->sb_drives_ego) sim_storyboard_set_external_mode(&w->sb, w->sc->ego_entity, true);
    for (int k = 0; k < w->sb.n_sig; k++)
        if (slot_target(w, k) < 0)
            fprintf(stderr, "traffic-node: the storyboard names signal%s \"%s\", which the roads do not have (its "
                    "actions do nothing, its conditions see it off)\n", w->sb.sig_ctl[k] ? " controller" : "",
                    w->sb.sig_name[k]);
    apply_signals(w, 0); /* Init's signal states: the first lights update shows them */
    return SIM_OK;
}

void tn_xosc_set_ego(tn_world *w, double x, double y, double heading, double speed)
{
    if (!w->have_sb || w->sb_drives_ego) return;
    /* vehicle.state gives the car's centre; OpenSCENARIO's pose is the reference point */
    const sim_sb_entity *e = &w->sc->xosc->model.entities[w->sc->ego_entity];
    double c = cos(heading), s = sin(heading);
    sim_storyboard_set_external(&w->sb, w->sc->ego_entity, x - e->center[0] * c + e->center[1] * s,
                                y - e->center[0] * s - e->center[1] * c, heading, speed);
}

void tn_xosc_step(tn_world *w, double dt, double t)
{
    if (!w->have_sb) return;
    /* TrafficSignalConditions read the lights as of this tick's update */
    for (int k = 0; k < w->sb.n_sig; k++) {
        int i = slot_target(w, k);
        if (i >= 0)
            sim_storyboard_set_signal(&w->sb, k, w->sb.sig_ctl[k] ? sim_lights_phase_at(&w->sc->net.lights, &w->lights, i, t)
                                                                  : (int)w->lights.state[i]);
    }
    sim_storyboard_step(&w->sb, dt);
    if (apply_signals(w, t)) tn_lights_reupdate(w, t); /* published with this tick's changes */
}

int tn_xosc_collisions(tn_world *w, cJSON **out, int max)
{
    if (!w->have_sb) return 0;
    const sim_sb_model *m = &w->sc->xosc->model;
    int ego = w->sc->ego_entity, n = 0;
    if (ego < 0 || !w->sb.ent[ego].placed) return 0;
    for (int e = 0; e < m->n_entities; e++) {
        if (e == ego) continue;
        bool now = w->sb.ent[e].placed && sim_storyboard_overlap(&w->sb, ego, e);
        if (now && !w->sb_touching[e] && n < max) {
            const sim_sb_state_ent *a = &w->sb.ent[ego], *b = &w->sb.ent[e];
            sim_msg_traffic_collision c = {
                .rel_speed = hypot(a->v * cos(a->heading) - b->v * cos(b->heading), a->v * sin(a->heading) - b->v * sin(b->heading)),
                .ego_speed = a->v, .other_speed = b->v};
            snprintf(c.other, sizeof c.other, "%s", m->entities[e].name);
            snprintf(c.model, sizeof c.model, "%s", model_of(&m->entities[e]));
            out[n++] = sim_msg_traffic_collision_encode(&c);
        }
        w->sb_touching[e] = now;
    }
    return n;
}

cJSON *tn_xosc_ego_payload(const tn_world *w)
{
    if (!w->have_sb || !w->sb_drives_ego || w->sc->ego_entity < 0 || !w->sb.ent[w->sc->ego_entity].placed) return NULL;
    int ego = w->sc->ego_entity;
    const sim_sb_state_ent *s = &w->sb.ent[ego];
    sim_msg_traffic_ego m = {.heading = s->heading, .speed = fabs(s->v)};
    snprintf(m.id, sizeof m.id, "%s", w->sc->xosc->model.entities[ego].name);
    sim_storyboard_center(&w->sb, ego, &m.x, &m.y);
    m.x_ref = s->x; /* the storyboard's pose is the reference point */
    m.y_ref = s->y;
    return sim_msg_traffic_ego_encode(&m);
}

bool tn_xosc_ended_now(tn_world *w)
{
    if (!w->have_sb || !w->sb.done || w->sb_ended) return false;
    w->sb_ended = true;
    return true;
}

int tn_xosc_n_events(const tn_world *w) { return w->have_sb ? w->sb.n_events : 0; }

cJSON *tn_xosc_event_payload(const tn_world *w, int k)
{
    const sim_sb_event *ev = &w->sb.events[k];
    const sim_sb_element *el = &w->sc->xosc->model.elements[ev->element];
    sim_msg_storyboard_event m = {0};
    snprintf(m.element, sizeof m.element, "%s", el->name);
    snprintf(m.kind, sizeof m.kind, "%s", sim_sb_elem_type_name(el->type));
    snprintf(m.transition, sizeof m.transition, "%s", sim_sb_state_name(ev->transition));
    return sim_msg_storyboard_event_encode(&m);
}

static const char *model_of(const sim_sb_entity *e)
{
    if (e->category == SIM_SB_PEDESTRIAN) return "pedestrian";
    if (e->category == SIM_SB_MISC) return "obstacle";
    return strcmp(e->type, "truck") == 0 || strcmp(e->type, "semitrailer") == 0 ? "truck"
           : strcmp(e->type, "bus") == 0                                        ? "bus"
           : strcmp(e->type, "van") == 0                                        ? "van"
           : strcmp(e->type, "motorbike") == 0 || strcmp(e->type, "bicycle") == 0 ? "motorbike"
                                                                                   : "car";
}

int tn_xosc_vehicles(tn_world *w, sim_msg_traffic_vehicle *out, int max, sim_msg_traffic_lead *lead)
{
    if (!w->have_sb) return 0;
    const sim_sb_model *m = &w->sc->xosc->model;
    const sim_storyboard *sb = &w->sb;
    int ego = w->sc->ego_entity, n = 0;
    double ex = 0, ey = 0;
    bool have_ego = sb->ent[ego].placed;
    if (have_ego) sim_storyboard_center(sb, ego, &ex, &ey);
    double best = INFINITY;
    for (int e = 0; e < m->n_entities && n < max; e++) {
        const sim_sb_state_ent *s = &sb->ent[e];
        if (!s->placed || e == ego) continue; /* the ego: the person's car, or traffic.ego */
        double cx, cy;
        sim_storyboard_center(sb, e, &cx, &cy);
        if (have_ego && e != ego && hypot(cx - ex, cy - ey) > w->radius) continue;
        sim_msg_traffic_vehicle *v = &out[n++];
        memset(v, 0, sizeof *v);
        snprintf(v->id, sizeof v->id, "%s", m->entities[e].name);
        snprintf(v->model, sizeof v->model, "%s", model_of(&m->entities[e]));
        sim_ground g;
        sim_scenario_ground(w->sc, cx, cy, &g);
        v->pos[0] = cx;
        v->pos[1] = cy;
        v->pos[2] = g.z;
        v->heading = s->heading;
        /* the storyboard's pose is OpenSCENARIO's reference point (the rear axle) */
        v->has_ref = true;
        sim_scenario_ground(w->sc, s->x, s->y, &g);
        v->pos_ref[0] = s->x;
        v->pos_ref[1] = s->y;
        v->pos_ref[2] = g.z;
        v->size[0] = m->entities[e].length;
        v->size[1] = m->entities[e].width;
        v->size[2] = m->entities[e].height;
        v->velocity[0] = s->v * cos(s->heading);
        v->velocity[1] = s->v * sin(s->heading);
        v->brake = s->a < -0.5;
        v->lane = 0;
        if (s->on_lane) {
            const sim_lg_lane *l = &w->su.graph.lanes[s->lane];
            snprintf(v->road, sizeof v->road, "%s", w->sc->net.roads[l->road].id);
            v->lane = l->lane_id;
            v->s = sim_lanegraph_road_s(&w->su.graph, s->lane, s->s);
        }
        /* the ego's lead: ahead within the two half widths across its heading */
        if (!have_ego || e == ego) continue;
        double gap = sim_storyboard_long_dist(sb, ego, e, true);
        double hd = sb->ent[ego].heading, lat = -(cx - ex) * sin(hd) + (cy - ey) * cos(hd);
        if (gap > 0 && fabs(lat) < (m->entities[ego].width + m->entities[e].width) / 2 && gap < best) {
            best = gap;
            double ev = sb->ent[ego].v, lv = s->v * cos(s->heading - hd);
            lead->valid = true;
            snprintf(lead->id, sizeof lead->id, "%s", m->entities[e].name);
            lead->gap = gap;
            lead->speed = s->v;
            lead->thw = ev > 0.1 ? gap / ev : INFINITY;
            lead->ttc = ev - lv > 1e-6 ? gap / (ev - lv) : INFINITY;
        }
    }
    return n;
}
