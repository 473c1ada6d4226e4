/* session: the render node on the bus. vehicle.state feeds the interpolation,
 * traffic.state the other cars, hud.text the HUD areas; control.light, control.hud
 * and control.speed_limit are acted on and acknowledged; control.stop ends the node.
 * When the bus goes away the node keeps drawing the last state with a "NO DATA"
 * mark, and the bus client reconnects by itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "road_adapter.h"
#include "sim_command.h"
#include "sim_msg_hud.h"
#include "sim_msg_task.h"
#include "sim_msg_traffic.h"
#include "sim_msg_signal.h"
#include "sim_msg_vehicle.h"
#include "sim_node.h"
#include "sim_sky.h"
#include "sim_throttle.h"

#define NO_DATA_AFTER 0.5 /* s without a state */

/* Bad messages are said on stderr at most once a second per topic (a client sending
 * garbage at 100 Hz printed 100 lines a second). */
static void say_bad(rn_node *n, const char *topic, const char *msg)
{
    uint64_t held;
    if (!sim_throttle_allow(&n->bad_output, topic, rn_now(), &held)) return;
    if (held)
        fprintf(stderr, "render-node: %s (and %llu more bad %s in the last second)\n", msg, (unsigned long long)held,
                topic);
    else
        fprintf(stderr, "render-node: %s\n", msg);
}

static double num(const cJSON *o, const char *name, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

void rn_session_ack(rn_node *n, const cJSON *msg, bool ok, const char *error)
{
    sim_command_ack ack;
    sim_command_ack_for(msg, ok, error, &ack);
    cJSON *p = sim_command_ack_encode(&ack);
    if (p) {
        sim_bus_publish(n->bus, SIM_TOPIC_CONTROL_ACK, n->sim_t, p);
        cJSON_Delete(p);
    }
}

const rn_shown *rn_session_shown(const rn_node *n, double t)
{
    const rn_shown *best = NULL;
    for (int i = 0; i < n->n_shown; i++) {
        const rn_shown *s = &n->shown[(n->shown_head - 1 - i + RN_SHOWN_MAX) % RN_SHOWN_MAX];
        if (!best || fabs(s->t - t) < fabs(best->t - t)) best = s; /* a tie: the newer */
    }
    return best;
}

void rn_session_vehicle_state(rn_node *n, const cJSON *msg, double t, bool early)
{
    sim_msg_vehicle_state m;
    sim_error err = {0};
    if (sim_msg_vehicle_state_decode(msg, &m, &err) != SIM_OK) {
        say_bad(n, "vehicle.state", err.msg);
        return;
    }
    if (!isfinite(m.pos[0]) || !isfinite(m.pos[1]) || !isfinite(m.pos[2]))
        return;
    sim_pose p = {.pos = {m.pos[0], m.pos[1], m.pos[2]},
                  .heading = isfinite(m.heading) ? m.heading : 0,
                  .pitch = isfinite(m.pitch) ? m.pitch : 0,
                  .roll = isfinite(m.roll) ? m.roll : 0};
    double now = rn_now();
    if (early && !isnan(t) && t <= n->sim_t)
        return; /* a tick's state overtook it */
    n->sim_t = isnan(t) ? n->sim_t : t;
    sim_interp_push(&n->ip, &p, n->sim_t, now);
    n->newest_pose = p;
    n->newest_motion = (sim_motion){.speed = m.speed, .yaw_rate = m.yaw_rate,
                                    .accel = isfinite(m.accel) ? m.accel : m.accel_body[0], .vz = m.vel[2]};
    n->newest_t = n->sim_t;
    /* when physics was at this state's time: it stepped it just then in real time */
    n->newest_ref = isfinite(m.stepped) && m.stepped <= now ? m.stepped : now;
    n->ego_speed = isfinite(m.speed) ? m.speed : 0;
    n->ego_steer = isfinite(m.steer_angle) ? m.steer_angle : 0;
    n->ego_steer_input = isfinite(m.steer) ? m.steer : 0;
    if (!early) { /* where the car is, as the ticks and the log say */
        n->ego_placed = m.road[0] || !isnan(m.tick);
        snprintf(n->ego_road, sizeof n->ego_road, "%s", m.road);
        n->ego_s = m.s;
        n->ego_lane = m.lane == SIM_MSG_NO_INT ? 0 : m.lane;
    }
    n->ego_brake = isfinite(m.brake) && m.brake > 0.05;
    n->last_state_wall = now;
    n->chain = (rn_chain){.in_stamp = m.in_stamp, .in_sent = m.in_sent, .in_recv = m.in_recv,
                          .stepped = m.stepped, .state_recv = now, .frame_start = NAN, .draw_end = NAN,
                          .swap_end = NAN};
    if (n->ip.n == 1)
        n->n_shown = 0; /* started over (restart, seek, gap) */
    n->shown[n->shown_head] = (rn_shown){.t = n->sim_t, .chain = n->chain, .steer = n->ego_steer_input};
    n->shown_head = (n->shown_head + 1) % RN_SHOWN_MAX;
    if (n->n_shown < RN_SHOWN_MAX)
        n->n_shown++;
    if (n->n_pending < (int)(sizeof n->pending_arrival / sizeof *n->pending_arrival))
        n->pending_arrival[n->n_pending++] = now;
}

/* A restart is a fresh start for the driver's screen too: the operator's HUD text
 * and speed limit, texts of hud.text and of triggers go (docs/render.md). */
void rn_session_restart(rn_node *n)
{
    for (int a = 0; a < SIM_HUD_AREA_COUNT; a++) rn_hud_set(&n->scene.hud, (sim_hud_area)a, "", NULL, 0, rn_now());
    n->limit_override_kmh = 0;
    for (int i = 0; n->trigger_fired && i < n->sc->n_triggers; i++) n->trigger_fired[i] = false;
}

static void on_control(rn_node *n, const char *topic, const cJSON *msg)
{
    const char *cmd = topic + strlen("control.");
    bool ours = !strcmp(cmd, "light") || !strcmp(cmd, "hud") || !strcmp(cmd, "speed_limit") || !strcmp(cmd, "pause");
    if (!strcmp(cmd, "stop")) {
        n->stop = true; /* physics acknowledges stop; every module ends */
        return;
    }
    if (!strcmp(cmd, "resume") || !strcmp(cmd, "restart")) {
        n->paused = false; /* physics answers these */
        if (!strcmp(cmd, "restart")) rn_session_restart(n);
        return;
    }
    if (!ours)
        return;
    sim_error err = {0};
    const char *valid;
    if (sim_command_validate_message(msg, &valid, &err)) {
        rn_session_ack(n, msg, false, err.msg);
        return;
    }
    if (!strcmp(cmd, "light")) {
        const char *mode = cJSON_GetObjectItemCaseSensitive(msg, "mode")->valuestring;
        int l = sim_light_find(mode, true); /* the command was validated: one of the operator's lights */
        n->light = l < 0 ? SIM_LIGHT_DAY : (sim_light)l;
    } else if (!strcmp(cmd, "hud")) {
        rn_hud_set(&n->scene.hud, SIM_HUD_TOP, cJSON_GetObjectItemCaseSensitive(msg, "text")->valuestring, NULL, 0,
                   rn_now());
    } else if (!strcmp(cmd, "pause")) {
        n->paused = true; /* the PAUSED panel, and no NO DATA mark while states stop */
    } else {
        n->limit_override_kmh = num(msg, "kmh", 0);
    }
    rn_session_ack(n, msg, true, NULL);
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    (void)bus;
    rn_node *n = user;
    sim_error err = {0};
    sim_envelope env;
    sim_envelope_read(msg, line, len, &env);
    if (!strcmp(topic, SIM_TOPIC_VEHICLE_STATE)) {
        rn_session_vehicle_state(n, msg, env.t, false);
    } else if (!strcmp(topic, SIM_TOPIC_VEHICLE_EARLY_STATE)) {
        rn_session_vehicle_state(n, msg, env.t, true);
    } else if (!strcmp(topic, SIM_TOPIC_TRAFFIC_STATE)) {
        static rn_agent fresh[RN_MAX_AGENTS];
        int k = rn_traffic_decode(msg, fresh, RN_MAX_AGENTS, &err);
        if (k < 0) {
            say_bad(n, "traffic.state", err.msg);
            return;
        }
        memcpy(n->prev, n->agents, (size_t)n->n_agents * sizeof *n->prev);
        n->n_prev = n->n_agents;
        memcpy(n->agents, fresh, (size_t)k * sizeof *fresh);
        n->n_agents = k;
        n->traffic_t[0] = n->traffic_t[1];
        n->traffic_t[1] = isnan(env.t) ? n->traffic_t[1] : env.t;
        n->traffic_arrival = rn_now();
    } else if (!strcmp(topic, SIM_TOPIC_SIGNAL_STATE)) {
        sim_msg_signal_state m;
        sim_msg_signal_where w;
        bool ok = sim_msg_signal_state_decode(msg, &m, &err) == SIM_OK && sim_msg_signal_where_decode(msg, &w, &err) == SIM_OK;
        /* a head that says where it stands (SUMO's lights) is built at its first state */
        if (ok) ok = isnan(w.pos[0]) ? rn_lights_set(&n->scene.lights, m.id, m.state)
                                     : rn_lights_set_placed(&n->scene.lights, m.id, m.state, &w);
        if (!ok) say_bad(n, SIM_TOPIC_SIGNAL_STATE, err.code ? err.msg : "a head or state this scenario does not have");
    } else if (!strcmp(topic, SIM_TOPIC_HUD_TEXT)) {
        sim_msg_hud_text m;
        if (sim_msg_hud_text_decode(msg, &m, &err) == SIM_OK) {
            float rgb[3] = {(float)m.color[0], (float)m.color[1], (float)m.color[2]};
            rn_hud_set(&n->scene.hud, m.area, m.text, m.has_color ? rgb : NULL, m.ttl_s, rn_now());
            const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
            if (cJSON_IsString(src)) rn_hud_set_owner(&n->scene.hud, m.area, src->valuestring);
        } else {
            say_bad(n, SIM_TOPIC_HUD_TEXT, err.msg);
        }
    } else if (!strncmp(topic, "control.", 8) && strcmp(topic, SIM_TOPIC_CONTROL_ACK)) {
        on_control(n, topic, msg);
    } else if (!strcmp(topic, SIM_TOPIC_DISPATCHER_LEFT)) {
        /* Text a module put up goes with it: nobody is left to take it down. */
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
        if (cJSON_IsString(name) && rn_hud_clear_owner(&n->scene.hud, name->valuestring))
            fprintf(stderr, "render-node: %s left the bus: its HUD text is cleared\n", name->valuestring);
    } else if (!strcmp(topic, SIM_TOPIC_DRT_STIMULUS)) {
        sim_msg_drt_stimulus m;
        if (sim_msg_drt_stimulus_decode(msg, &m, &err) != SIM_OK)
            fprintf(stderr, "render-node: %s\n", err.msg);
        else if (!strcmp(m.modality, "visual")) {
            n->scene.hud.drt_on = m.on;
            n->scene.hud.drt_angle_deg = isnan(m.angle_deg) ? 20 : m.angle_deg;
        }
    }
}

static void on_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    (void)bus;
    rn_node *n = user;
    n->connected = welcome != NULL;
    fprintf(stderr, "render-node: %s\n", welcome ? "joined the bus" : "lost the bus: drawing the last state, reconnecting");
}

int rn_session_open(rn_node *n, sim_error *err)
{
    char host[256];
    int port;
    int rc = sim_bus_parse_endpoint(n->o.bus, host, sizeof host, &port, err);
    if (rc)
        return rc;
    static const char *const subs[] = {SIM_TOPIC_VEHICLE_STATE, SIM_TOPIC_TRAFFIC_STATE, "control.", "hud.",
                                       SIM_TOPIC_DISPATCHER_LEFT, SIM_TOPIC_DRT_STIMULUS, SIM_TOPIC_SIGNAL_STATE,
                                       SIM_TOPIC_VEHICLE_EARLY_STATE};
    /* interpolating (today's renderer): the ticks' states only */
    size_t n_subs = sizeof subs / sizeof *subs - (n->motion == RN_MOTION_INTERPOLATE ? 1 : 0);
    char name[64];
    if (n->o.name)
        snprintf(name, sizeof name, "%s", n->o.name);
    else if (n->view.view == SIM_VIEW_FRONT)
        snprintf(name, sizeof name, "render"); /* the one simctl run waits for */
    else
        snprintf(name, sizeof name, "render-%s", sim_view_name(n->view.view));
    /* declared, so that the operator's reply waits for exactly these answers */
    static const char *const acts_on[] = {"light", "hud", "speed_limit", "pause"};
    sim_bus_options bo = {.name = name, .host = host, .port = port, .token = n->o.token,
                          .subscribe = subs, .n_subscribe = n_subs,
                          .acts_on = acts_on, .n_acts_on = sizeof acts_on / sizeof *acts_on,
                          .on_message = on_message, .on_state = on_state, .user = n};
    return sim_bus_open(n->loop, &bo, &n->bus, err);
}

void rn_session_close(rn_node *n)
{
    sim_bus_close(n->bus);
    n->bus = NULL;
}

/* Scenario hud_text triggers, fired by the ego car's position on the trigger's road. */
static void triggers(rn_node *n, int road, double s, double now)
{
    for (int i = 0; i < n->sc->n_triggers; i++) {
        const sim_trigger *t = &n->sc->triggers[i];
        if (t->action != SIM_ACTION_HUD_TEXT || t->by == SIM_BY_AGENT || t->road != road)
            continue;
        bool inside = s >= t->s_start && s <= t->s_end;
        if (inside && !n->trigger_fired[i])
            rn_hud_set(&n->scene.hud, SIM_HUD_TOP, t->text ? t->text : "", NULL, t->duration, now);
        if (inside)
            n->trigger_fired[i] = true;
        else if (!t->once)
            n->trigger_fired[i] = false; /* may fire again on the next entry */
    }
}

void rn_session_update_hud(rn_node *n, double now)
{
    rn_hud *h = &n->scene.hud;
    bool have = n->last_state_wall >= 0;
    /* Paused, no states come by design: that is no loss of data. */
    h->paused = n->paused && n->connected;
    h->no_data = !n->connected || !have || (!n->paused && now - n->last_state_wall > NO_DATA_AFTER);
    h->speed_kmh = have ? (int)lround(fabs(n->ego_speed) * 3.6) : -1;
    h->speed_mph = have ? (int)lround(fabs(n->ego_speed) * 3.6 / RN_KMH_PER_MPH) : -1;
    h->mph = n->sc && n->sc->env.speed_mph;
    double kmh = 0;
    int road;
    double s;
    bool on_road = false;
    if (have && n->ego_placed) { /* where physics put the car */
        on_road = ra_speed_limit_on(n->sc, n->ego_road, n->ego_s, n->ego_lane, &kmh, &road);
        s = n->ego_s;
    } else if (have) { /* a sender that does not say (an older replay) */
        on_road = ra_speed_limit_at(n->sc, n->ip.pose[1].pos[0], n->ip.pose[1].pos[1], &kmh, &road, &s);
    }
    if (on_road)
        triggers(n, road, s, now);
    h->limit_kmh = n->limit_override_kmh > 0 ? n->limit_override_kmh : kmh;
}

int rn_session_agents(rn_node *n, double now)
{
    /* Each car between its place in the previous message and the newest, as the ego
     * car: one message period behind, never extrapolated. Cars are matched by id (their
     * colour hash); a car new in the newest message is drawn where it is. */
    double period = n->traffic_t[1] - n->traffic_t[0];
    double f = period > 0 && period < SIM_INTERP_MAX_GAP ? (now - n->traffic_arrival) / period : 1;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    for (int i = 0; i < n->n_agents; i++) {
        rn_agent *d = &n->drawn[i];
        *d = n->agents[i];
        for (int j = 0; j < n->n_prev && f < 1; j++) {
            const rn_agent *p = &n->prev[j];
            if (p->colour != d->colour)
                continue;
            sim_pose a = {.pos = {p->pos[0], p->pos[1], p->pos[2]}, .heading = p->heading};
            sim_pose b = {.pos = {d->pos[0], d->pos[1], d->pos[2]}, .heading = d->heading};
            sim_pose r;
            sim_pose_lerp(&a, &b, f, &r);
            memcpy(d->pos, r.pos, sizeof d->pos);
            d->heading = r.heading;
            break;
        }
    }
    return n->n_agents;
}
