/* sumo: the lockstep coupling with SUMO (see sumo.h): one TraCI message per tick, its
 * answer turned into traffic.state. */
#include "sumo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EGO_ID "ego"
/* What the context subscription asks for each vehicle, in this order. */
static const uint8_t vars[] = {SIM_TRACI_VAR_POSITION3D, SIM_TRACI_VAR_ANGLE,  SIM_TRACI_VAR_SPEED,
                               SIM_TRACI_VAR_LENGTH,     SIM_TRACI_VAR_WIDTH,  SIM_TRACI_VAR_HEIGHT,
                               SIM_TRACI_VAR_SIGNALS,    SIM_TRACI_VAR_VEHICLECLASS};
enum { V_POS, V_ANGLE, V_SPEED, V_LENGTH, V_WIDTH, V_HEIGHT, V_SIGNALS, V_CLASS, N_VARS };

/* SUMO's angle: degrees clockwise from north; ours: radians counter-clockwise from east. */
static double heading_of(double angle_deg) { return remainder((90.0 - angle_deg) * M_PI / 180.0, 2 * M_PI); }
static double angle_of(double heading) { return fmod(fmod(90.0 - heading * 180.0 / M_PI, 360.0) + 360.0, 360.0); }

int tn_sumo_open(tn_sumo *s, sim_error *err)
{
    s->fd = -1;
    s->pid = 0;
    s->scale = 1.0;
    int rc = tn_sumo_find_tools(s, err);
    if (rc || (rc = tn_sumo_make_inputs(s, err))) return rc;
    return tn_sumo_restart(s, err);
}

static int finish_and_exchange(tn_sumo *s, sim_traci_reader *r, sim_error *err)
{
    size_t len;
    int rc = sim_traci_msg_end(&s->out, err);
    if (rc || (rc = tn_sumo_exchange(s, &len, err))) return rc;
    return sim_traci_reader_init(r, s->in, len, err);
}

int tn_sumo_restart(tn_sumo *s, sim_error *err)
{
    tn_sumo_stop(s);
    s->ego_in = s->subscribed = false;
    s->held = 0;
    s->have_session_t = false;
    s->n_vehicles = s->total = 0;
    s->lead.valid = false;
    int rc = tn_sumo_start(s, err);
    if (rc) return rc;
    sim_traci_reader r;
    sim_traci_msg_begin(&s->out);
    sim_traci_cmd_get_version(&s->out);
    if ((rc = finish_and_exchange(s, &r, err)) || (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_GETVERSION, err)) ||
        (rc = sim_traci_read_version(&r, &s->api, s->version, sizeof s->version, err))) {
        tn_sumo_stop(s);
        return rc;
    }
    s->scale_pending = false;
    if (s->scale != 1.0) { /* a message of its own: see tn_sumo_step */
        sim_traci_msg_begin(&s->out);
        sim_traci_cmd_set_scale(&s->out, s->scale);
        if ((rc = finish_and_exchange(s, &r, err)) ||
            (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SET_SIM_VARIABLE, err))) {
            tn_sumo_stop(s);
            return rc;
        }
    }
    if ((rc = tn_sumo_lights_setup(s, err))) { /* sumo_lights.c */
        tn_sumo_stop(s);
        return rc;
    }
    /* The city busy at the session's time 0: SUMO alone up to warmup_s, in one step
     * command (SUMO steps at its step length up to the target). */
    /* One step short of it: the session's first tick (time 0) makes the last, so that
     * its traffic.state is the warmed-up traffic. */
    double before = s->sc->sumo.warmup_s - s->step_s;
    if (before > 0) {
        sim_traci_msg_begin(&s->out);
        sim_traci_cmd_step(&s->out, before);
        s->patient = true;
        rc = finish_and_exchange(s, &r, err);
        s->patient = false;
        if (rc || (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, err)) ||
            (rc = sim_traci_read_step(&r, NULL, NULL, err))) {
            tn_sumo_stop(s);
            return rc;
        }
    }
    s->t = before > 0 ? before : 0;
    return SIM_OK;
}

void tn_sumo_close(tn_sumo *s)
{
    tn_sumo_stop(s);
    tn_sumo_lights_free(&s->lights);
    sim_traci_buf_free(&s->out);
    free(s->in);
    s->in = NULL;
    s->in_cap = 0;
}

void tn_sumo_set_scale(tn_sumo *s, double scale)
{
    s->scale = scale;
    s->scale_pending = true;
}

static void copy_id(char *dst, size_t cap, const char *src, int32_t len)
{
    size_t n = (size_t)len < cap - 1 ? (size_t)len : cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static const char *model_of(const sim_traci_value *vclass)
{
    static const struct { const char *sumo, *ours; } map[] = {
        {"passenger", "car"}, {"taxi", "car"},        {"private", "car"},           {"evehicle", "car"},
        {"delivery", "van"},  {"truck", "truck"},     {"trailer", "truck"},         {"bus", "bus"},
        {"coach", "bus"},     {"bicycle", "bicycle"}, {"motorcycle", "motorcycle"}, {"moped", "motorcycle"}};
    for (size_t i = 0; vclass->type == SIM_TRACI_TYPE_STRING && i < sizeof map / sizeof *map; i++)
        if ((size_t)vclass->s_len == strlen(map[i].sumo) && memcmp(vclass->s, map[i].sumo, (size_t)vclass->s_len) == 0)
            return map[i].ours;
    return "car";
}

/* One SUMO vehicle as a traffic.state entry: SUMO's position is the front bumper's
 * centre in the net's coordinates; ours is the box's centre in the scenario's. */
static int on_object(const sim_traci_object *o, void *user)
{
    tn_sumo *s = user;
    if (tn_sumo_lights_on_object(s, o)) return 0; /* a light's state (sumo_lights.c) */
    if (tn_sumo_persons_on_object(s, o)) return 0; /* a pedestrian (sumo_persons.c) */
    if (o->response != SIM_TRACI_RESPONSE_SUBSCRIBE_VEHICLE_CONTEXT || o->domain != SIM_TRACI_CMD_GET_VEHICLE_VARIABLE)
        return 0;
    if (o->id_len == (int32_t)strlen(EGO_ID) && memcmp(o->id, EGO_ID, strlen(EGO_ID)) == 0) {
        return 0;
    }
    if (o->n_vars != N_VARS) return 0;
    for (int i = 0; i < N_VARS; i++)
        if (!o->ok[i] || o->var[i] != vars[i]) return 0;
    sim_msg_traffic_vehicle v;
    memset(&v, 0, sizeof v);
    copy_id(v.id, sizeof v.id, o->id, o->id_len);
    snprintf(v.model, sizeof v.model, "%s", model_of(&o->value[V_CLASS]));
    double h = heading_of(o->value[V_ANGLE].d), len = o->value[V_LENGTH].d;
    double speed = o->value[V_SPEED].d;
    v.heading = h;
    v.pos[0] = o->value[V_POS].pos[0] - s->off_x - 0.5 * len * cos(h);
    v.pos[1] = o->value[V_POS].pos[1] - s->off_y - 0.5 * len * sin(h);
    v.size[0] = len;
    v.size[1] = o->value[V_WIDTH].d;
    v.size[2] = o->value[V_HEIGHT].d;
    v.velocity[0] = speed * cos(h);
    v.velocity[1] = speed * sin(h);
    int sig = o->value[V_SIGNALS].i;
    v.brake = (sig & SIM_TRACI_SIGNAL_BRAKELIGHT) || s->frozen;
    v.left = (sig & (SIM_TRACI_SIGNAL_BLINKER_LEFT | SIM_TRACI_SIGNAL_EMERGENCY)) != 0;
    v.right = (sig & (SIM_TRACI_SIGNAL_BLINKER_RIGHT | SIM_TRACI_SIGNAL_EMERGENCY)) != 0;
    /* at the place as published (to 1 mm): on a road's very end the same answer as any
     * reader's */
    v.pos[0] = round(v.pos[0] * 1000) / 1000;
    v.pos[1] = round(v.pos[1] * 1000) / 1000;
    tn_sumo_list(s, &v, true);
    return 0;
}

void tn_sumo_list(tn_sumo *s, sim_msg_traffic_vehicle *v, bool drivable_only)
{
    sim_locate_query q = {.x = v->pos[0], .y = v->pos[1], .z = NAN,
                          .heading = drivable_only ? round(v->heading * 1e4) / 1e4 : NAN,
                          .drivable_only = drivable_only};
    sim_road_loc loc;
    if (sim_roadnet_locate_query(&s->sc->net, &q, &loc) == SIM_OK && loc.on_road) {
        snprintf(v->road, sizeof v->road, "%s", s->sc->net.roads[loc.road].id);
        v->lane = loc.lane.lane;
        v->s = loc.s;
    }
    sim_ground g;
    sim_scenario_ground(s->sc, v->pos[0], v->pos[1], &g);
    v->pos[2] = g.z;
    double d = s->ego.valid ? hypot(v->pos[0] - s->ego.x, v->pos[1] - s->ego.y) : 0;
    if ((s->ego.valid && d > s->radius) || s->n_vehicles >= SIM_MSG_TRAFFIC_MAX_VEHICLES) return;
    s->dist[s->n_vehicles] = d;
    s->vehicles[s->n_vehicles++] = *v;
}

/* Nearest first, equal distances by id: the same every run. */
static void sort_vehicles(tn_sumo *s)
{
    for (int i = 1; i < s->n_vehicles; i++) {
        sim_msg_traffic_vehicle v = s->vehicles[i];
        double d = s->dist[i];
        int j = i;
        while (j > 0 && (s->dist[j - 1] > d || (s->dist[j - 1] == d && strcmp(s->vehicles[j - 1].id, v.id) > 0))) {
            s->vehicles[j] = s->vehicles[j - 1];
            s->dist[j] = s->dist[j - 1];
            j--;
        }
        s->vehicles[j] = v;
        s->dist[j] = d;
    }
}

/* Commands whose failure SUMO answers without ending (the ego far off every lane):
 * their status is read and the error kept for the log. */
static int soft_status(sim_traci_reader *r, int cmd, bool *failed, sim_error *err)
{
    sim_error e = {0};
    int rc = sim_traci_read_status(r, cmd, &e);
    if (rc && strncmp(e.msg, "SUMO refused", 12) == 0) {
        *failed = true;
        return SIM_OK;
    }
    if (rc) *err = e;
    return rc;
}

int tn_sumo_step(tn_sumo *s, double t, const tn_sumo_ego *ego, sim_error *err)
{
    if (ego) s->ego = *ego;
    /* SUMO's clock: the session's, ahead by the warm-up, behind by the time frozen
     * (a freeze holds SUMO's clock; SUMO goes on from there). */
    if (s->frozen && s->have_session_t && t > s->session_t) s->held += t - s->session_t;
    s->session_t = t;
    s->have_session_t = true;
    t += s->sc->sumo.warmup_s - s->held;
    if (s->frozen || !(t > s->t + 1e-9)) return SIM_OK; /* nothing new: the last state stands */
    /* (SUMO's clock starts at 0: with no warm-up the first tick's state is SUMO's at 0) */
    sim_traci_buf *b = &s->out;
    sim_traci_reader r;
    int rc;
    /* Three messages a tick: what to change (SUMO 1.15 drops a command's status when
     * a step in the same message spans more than one of its steps), the step, and
     * what to ask about its result (answered before a step in the same message). */
    bool add = s->ego.valid && !s->ego_in, subscribe = s->ego_in && !s->subscribed, move = s->ego.valid;
    bool scale = s->scale_pending;
    bool sub_failed = false;
    if (add || subscribe || move || scale) {
        sim_traci_msg_begin(b);
        if (scale) sim_traci_cmd_set_scale(b, s->scale);
        if (add) {
            /* On a random edge first (SUMO's random stream, seeded): moveToXY places it. */
            sim_traci_cmd_add_vehicle(b, EGO_ID, "", "DEFAULT_VEHTYPE", "first", "base");
            sim_traci_cmd_set_vehicle_int(b, SIM_TRACI_VAR_SPEEDSETMODE, EGO_ID, 0);
            sim_traci_cmd_set_vehicle_int(b, SIM_TRACI_VAR_LANECHANGE_MODE, EGO_ID, 0);
            sim_traci_cmd_set_vehicle_double(b, SIM_TRACI_VAR_MINGAP, EGO_ID, 0.0);
            sim_traci_cmd_set_vehicle_double(b, SIM_TRACI_VAR_LENGTH, EGO_ID, s->ego.length);
            sim_traci_cmd_set_vehicle_double(b, SIM_TRACI_VAR_WIDTH, EGO_ID, s->ego.width);
        }
        if (subscribe) sim_traci_cmd_subscribe_vehicle_context(b, EGO_ID, 0, 1e9, s->radius, vars, N_VARS);
        if (subscribe) tn_sumo_persons_subscribe(s, b);
        double fx = s->ego.x + 0.5 * s->ego.length * cos(s->ego.heading) + s->off_x;
        double fy = s->ego.y + 0.5 * s->ego.length * sin(s->ego.heading) + s->off_y;
        /* keepRoute 0: onto the nearest lane within 100 m (SUMO 1.15 crashes on a
         * vehicle put off every lane with keepRoute 2); applied by the next step */
        if (move) sim_traci_cmd_move_to_xy(b, EGO_ID, "", 0, fx, fy, angle_of(s->ego.heading), 0);
        if ((rc = finish_and_exchange(s, &r, err))) return rc;
        bool failed = false, move_failed = false;
        if (scale && (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SET_SIM_VARIABLE, err))) return rc;
        if (add) {
            if ((rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, err))) return rc;
            for (int k = 0; k < 5; k++)
                if ((rc = soft_status(&r, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, &failed, err))) return rc;
        }
        if (subscribe) {
            if ((rc = soft_status(&r, SIM_TRACI_CMD_SUBSCRIBE_VEHICLE_CONTEXT, &sub_failed, err))) return rc;
            if (!sub_failed && (rc = sim_traci_read_subscription(&r, NULL, NULL, err))) return rc;
            if ((rc = tn_sumo_persons_read_subscribed(s, &r, err))) return rc;
        }
        if (move && (rc = soft_status(&r, SIM_TRACI_CMD_SET_VEHICLE_VARIABLE, &move_failed, err))) return rc;
        if (move_failed && !s->move_failed_said) { /* said once: the ego is 100 m from every lane */
            fprintf(stderr, "traffic-node: SUMO could not place the ego at (%.1f, %.1f), more than 100 m from "
                            "its lanes; it stays where it was in SUMO\n", s->ego.x, s->ego.y);
        }
        s->move_failed_said = move_failed;
    }
    bool leader = s->ego_in && (s->subscribed || (subscribe && !sub_failed));
    sim_traci_msg_begin(b);
    sim_traci_cmd_step(b, t);
    if ((rc = finish_and_exchange(s, &r, err)) || (rc = sim_traci_read_status(&r, SIM_TRACI_CMD_SIMSTEP, err)))
        return rc;
    s->n_vehicles = 0;
    if ((rc = sim_traci_read_step(&r, on_object, s, err))) return rc;
    tn_sumo_lights_after_step(s);
    sim_traci_msg_begin(b);
    sim_traci_cmd_get_vehicle_count(b);
    if (leader) sim_traci_cmd_get_leader(b, EGO_ID, s->radius);
    if ((rc = finish_and_exchange(s, &r, err))) return rc;
    sim_traci_value count;
    if ((rc = sim_traci_read_status(&r, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, err)) ||
        (rc = sim_traci_read_get(&r, SIM_TRACI_RESPONSE_GET_VEHICLE_VARIABLE, SIM_TRACI_ID_COUNT, &count, err)))
        return rc;
    s->lead.valid = false;
    if (leader) {
        bool lead_failed = false;
        if ((rc = soft_status(&r, SIM_TRACI_CMD_GET_VEHICLE_VARIABLE, &lead_failed, err))) return rc;
        if (!lead_failed && (rc = sim_traci_read_leader(&r, s->lead_id, sizeof s->lead_id, &s->lead_gap, err)))
            return rc;
        if (lead_failed) s->lead_id[0] = 0;
    }
    s->t = t;
    if (scale) s->scale_pending = false;
    if (add) s->ego_in = true;
    if (subscribe && !sub_failed) s->subscribed = true;
    s->total = count.i - (s->ego_in ? 1 : 0);
    if (s->total < 0) s->total = 0;
    sort_vehicles(s);
    if (s->n_vehicles > s->max_vehicles) s->n_vehicles = s->max_vehicles;
    /* The lead: SUMO's leader of the ego on its lanes; its gap from the boxes as
     * published (SUMO measures along its lanes, whose lengths netconvert takes from
     * the OpenDRIVE reference line: up to a few per cent off the lanes' shapes). */
    if (leader && s->lead_id[0] && s->lead_gap >= 0) {
        for (int i = 0; i < s->n_vehicles; i++) {
            const sim_msg_traffic_vehicle *v = &s->vehicles[i];
            if (strcmp(v->id, s->lead_id) != 0) continue;
            sim_msg_traffic_lead *ld = &s->lead;
            ld->valid = true;
            snprintf(ld->id, sizeof ld->id, "%s", s->lead_id);
            ld->gap = fmax(hypot(v->pos[0] - s->ego.x, v->pos[1] - s->ego.y) - 0.5 * (s->ego.length + v->size[0]), 0.0);
            ld->speed = hypot(v->velocity[0], v->velocity[1]);
            double e = s->ego.speed;
            ld->thw = e > 0.1 ? ld->gap / e : INFINITY;
            ld->ttc = e > ld->speed ? ld->gap / (e - ld->speed) : INFINITY;
        }
    }
    return SIM_OK;
}

cJSON *tn_sumo_state_payload(tn_sumo *s, int run)
{
    sim_msg_traffic_state m = {.run = run, .total = s->total, .ambient = s->total, .frozen = s->frozen,
                               .vehicles = s->vehicles, .n_vehicles = s->n_vehicles, .lead = s->lead};
    if (s->frozen)
        for (int i = 0; i < s->n_vehicles; i++) s->vehicles[i].brake = true;
    return sim_msg_traffic_state_encode(&m);
}

cJSON *tn_sumo_meta(const tn_sumo *s)
{
    sim_msg_traffic_engine m = {.api = s->api, .step_s = s->step_s, .seed = s->sc->traffic_seed};
    snprintf(m.engine, sizeof m.engine, "sumo");
    snprintf(m.version, sizeof m.version, "%s", s->version);
    snprintf(m.options, sizeof m.options, "%s", s->options);
    return sim_msg_traffic_engine_encode(&m);
}
