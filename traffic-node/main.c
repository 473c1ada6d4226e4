/* traffic-node: surrounding traffic on the bus (docs/traffic.md).
 *
 * Loads the scenario (its validation is the node's first check: a route that is not
 * connected or a trigger naming an unknown agent stops it before the session), then
 * steps the traffic core (common/traffic) on every sim.tick by the tick's time step,
 * with the ego taken from vehicle.state, and publishes traffic.state (the vehicles
 * near the ego and its lead vehicle), traffic.event and hud.text for triggers. With
 * --lockstep it acknowledges each tick after publishing what it has for it, so the
 * same scenario, seed and ego input give the same bytes. It acts on control.traffic
 * (density, freeze), control.restart (a fresh start), control.pause/resume, and
 * answers control.ack for traffic, restart and pause. With "traffic": {"engine":
 * "sumo"} the traffic is SUMO's instead of the core's (sumo.h): the same topics, the
 * same commands, SUMO stepped in lockstep with the ticks. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command.h"
#include "sim_msg_hud.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "sim_node.h"
#include "sim_msg_storyboard.h"
#include "lights.h"
#include "sim_msg_signal.h"
#include "state.h"
#include "sumo.h"
#include "xosc.h"
#include "sim_throttle.h"

typedef struct node {
    sim_node *sn;
    sim_bus *bus;
    tn_world w;
    const char *scenario;
    double radius;
    int max_vehicles;
    const char *params;            /* OpenSCENARIO: --params */
    bool lockstep, paused, closed, have_tick;
    bool have_ego;                 /* the latest usable vehicle.state, kept across restarts */
    double ego_x, ego_y, ego_heading, ego_speed;
    double last_t;
    int run;
    const char *state_path;        /* --state: the snapshot kept for a restart; NULL: none */
    tn_snapshot snap;              /* open when state_path */
    bool restored;                 /* the world came from the snapshot: catch up once */
    sim_throttle bad_output; /* stderr lines per cause, at most one a second (sim_throttle.h) */
    /* "engine": "sumo": SUMO's traffic instead of the own core's (sumo.h) */
    bool sumo_on;
    tn_sumo sumo;
    const char *sumo_dir;          /* --sumo-dir */
    double sumo_step;              /* --sumo-step */
    bool engine_said;              /* traffic.engine published for this run */
    bool sumo_restart;             /* control.restart: a fresh SUMO with the next tick */
    int exit_status;
} node;

static void log_msg(const char *msg) { fprintf(stderr, "traffic-node: %s\n", msg); }

static void on_stop(sim_node *sn, const char *why, void *user)
{
    node *n = user;
    n->closed = true;
    n->bus = NULL;
    fprintf(stderr, "traffic-node: exiting (%s)\n", why);
}

static void publish(node *n, const char *topic, double t, cJSON *payload)
{
    if (payload) sim_bus_publish(n->bus, topic, t, payload);
    else log_msg("out of memory: a message is lost");
    cJSON_Delete(payload);
}

static void ack(node *n, const cJSON *msg, bool ok, const char *error)
{
    sim_command_ack a;
    sim_command_ack_for(msg, ok, error, &a);
    publish(n, SIM_TOPIC_CONTROL_ACK, n->last_t, sim_command_ack_encode(&a));
}

static void set_ego(node *n)
{
    if (n->have_ego)
        sim_traffic_set_ego(&n->w.t, n->ego_x, n->ego_y, n->ego_heading, n->ego_speed, n->w.ego_len, n->w.ego_width);
}

/* The ego from vehicle.state: centre position, heading, speed. */
static void on_vehicle_state(node *n, const cJSON *msg)
{
    sim_msg_vehicle_state st;
    if (sim_msg_vehicle_state_decode(msg, &st, NULL) || isnan(st.pos[0]) || isnan(st.pos[1]) ||
        isnan(st.heading))
        return; /* not usable: the ego stays where it was */
    n->have_ego = true;
    n->ego_x = st.pos[0];
    n->ego_y = st.pos[1];
    n->ego_heading = st.heading;
    n->ego_speed = isnan(st.speed) ? 0 : st.speed;
    if (n->sumo_on) return; /* moved into SUMO with the tick (sumo_tick) */
    set_ego(n);
    tn_xosc_set_ego(&n->w, n->ego_x, n->ego_y, n->ego_heading, n->ego_speed);
}

/* signal.state for the heads the last tn_lights_update changed */
static void publish_light_changes(node *n, double t)
{
    for (int h = 0; h < n->w.lights.n_heads; h++)
        if (n->w.lights.changed[h]) publish(n, SIM_TOPIC_SIGNAL_STATE, t, tn_lights_state_payload(&n->w, h, t));
}

static void publish_step(node *n, double t)
{
    for (int k = 0; k < n->w.t.n_events; k++) {
        publish(n, SIM_TOPIC_TRAFFIC_EVENT, t, tn_event_payload(&n->w, k));
        const sim_traffic_trigger *tr = &n->w.su.triggers[n->w.t.events[k].trigger];
        const sim_trigger *st = &n->w.sc->triggers[n->w.t.events[k].trigger];
        if (tr->action == SIM_TA_HUD_TEXT && st->text) {
            sim_msg_hud_text h = {.area = SIM_HUD_TOP, .ttl_s = tr->duration > 0 ? tr->duration : 3.0};
            snprintf(h.text, sizeof h.text, "%s", st->text);
            publish(n, SIM_TOPIC_HUD_TEXT, t, sim_msg_hud_text_encode(&h));
        }
    }
    cJSON *hits[TN_MAX_CONTACTS];
    int n_hits = tn_collisions(&n->w, hits, TN_MAX_CONTACTS);
    for (int k = 0; k < n_hits; k++) publish(n, SIM_TOPIC_TRAFFIC_COLLISION, t, hits[k]);
    n_hits = tn_xosc_collisions(&n->w, hits, TN_MAX_CONTACTS);
    for (int k = 0; k < n_hits; k++) publish(n, SIM_TOPIC_TRAFFIC_COLLISION, t, hits[k]);
    for (int k = 0; k < tn_xosc_n_events(&n->w); k++)
        publish(n, SIM_TOPIC_STORYBOARD_EVENT, t, tn_xosc_event_payload(&n->w, k));
    if (tn_xosc_ended_now(&n->w)) { /* the storyboard's stop trigger: simctl run --until end stops */
        sim_msg_end e = {0};
        snprintf(e.reason, sizeof e.reason, "the storyboard's stop trigger");
        publish(n, SIM_TOPIC_SIM_END, t, sim_msg_end_encode(&e));
    }
    publish_light_changes(n, t);
    cJSON *red = tn_lights_red_run_payload(&n->w);
    if (red) publish(n, SIM_TOPIC_SIGNAL_RED_RUN, t, red);
    cJSON *ego = tn_xosc_ego_payload(&n->w);
    if (ego) publish(n, SIM_TOPIC_TRAFFIC_EGO, t, ego);
    publish(n, SIM_TOPIC_TRAFFIC_STATE, t, tn_state_payload(&n->w));
}

/* SUMO is gone or failed: said on stderr and in the drive log (a traffic.event), and
 * the node ends with status 1, which ends the session (docs/traffic.md, "SUMO"). */
static void sumo_failed(node *n, double t, const sim_error *err)
{
    fprintf(stderr, "traffic-node: %s; the session cannot go on without its traffic\n", err->msg);
    sim_msg_traffic_event e = {0};
    snprintf(e.trigger, sizeof e.trigger, "sumo");
    snprintf(e.action, sizeof e.action, "log_mark");
    snprintf(e.by, sizeof e.by, "sumo");
    snprintf(e.text, sizeof e.text, "%.255s", err->msg);
    publish(n, SIM_TOPIC_TRAFFIC_EVENT, t, sim_msg_traffic_event_encode(&e));
    n->exit_status = 1;
    sim_node_stop(n->sn, "SUMO failed");
}

/* SUMO's traffic for this tick (sumo.h); a SUMO that is gone ends the session. */
static void sumo_tick(node *n, const sim_msg_tick *tk, double t)
{
    sim_error err = {0};
    int run = tk->run == SIM_MSG_NO_INT ? n->run : tk->run;
    if (run != n->run || n->sumo_restart) { /* physics restarted the run, or the operator: a fresh SUMO */
        n->run = run;
        n->sumo_restart = false;
        n->engine_said = false;
        if (tn_sumo_restart(&n->sumo, &err)) return sumo_failed(n, t, &err);
    }
    if (!n->engine_said) {
        cJSON *meta = tn_sumo_meta(&n->sumo);
        publish(n, SIM_TOPIC_TRAFFIC_ENGINE, t, meta);
        n->engine_said = true;
    }
    tn_sumo_ego ego = {.valid = n->have_ego, .x = n->ego_x, .y = n->ego_y, .heading = n->ego_heading,
                       .speed = n->ego_speed, .length = n->w.ego_len, .width = n->w.ego_width};
    if (!(tk->paused || n->paused) && tn_sumo_step(&n->sumo, t, &ego, &err)) return sumo_failed(n, t, &err);
    n->last_t = t;
    for (int h = 0; h < n->sumo.lights.n_heads; h++) /* SUMO's lights that changed (sumo_lights.h) */
        if (n->sumo.lights.heads[h].changed)
            publish(n, SIM_TOPIC_SIGNAL_STATE, t, tn_sumo_light_payload(&n->sumo, h));
    cJSON *red = tn_sumo_red_run_payload(&n->sumo);
    if (red) publish(n, SIM_TOPIC_SIGNAL_RED_RUN, t, red);
    publish(n, SIM_TOPIC_TRAFFIC_STATE, t, tn_sumo_state_payload(&n->sumo, n->run));
    if (!n->lockstep) return;
    sim_msg_ack a = {.n = tk->n};
    publish(n, SIM_TOPIC_SIM_ACK, t, sim_msg_ack_encode(&a));
}

static void on_tick(node *n, const cJSON *msg, double t)
{
    sim_msg_tick tk;
    if (sim_msg_tick_decode(msg, &tk, NULL) || !(t >= 0)) return;
    if (n->sumo_on) return sumo_tick(n, &tk, t);
    int run = tk.run == SIM_MSG_NO_INT ? n->run : tk.run;
    bool paused = tk.paused || n->paused;
    if (run != n->run) { /* physics restarted the run: traffic starts afresh with it */
        sim_error err = {0};
        if (tn_world_restart(&n->w, &err)) fprintf(stderr, "traffic-node: restart: %s\n", err.msg);
        n->run = n->w.run = run;
        n->have_tick = false;
        set_ego(n); /* this tick's vehicle.state came before the tick */
    }
    if (n->restored && n->have_tick && !paused) {
        /* Back from a crash: the ticks missed while away are stepped at the tick's dt,
         * with the ego where it is now, and their events said (docs/traffic.md). */
        double dt = isfinite(tk.dt) && tk.dt > 0 ? tk.dt : 0.01;
        while (t - n->last_t > 1.5 * dt) {
            if (tn_lights_update(&n->w, n->last_t)) publish_light_changes(n, n->last_t);
            sim_traffic_step(&n->w.t, dt);
            tn_xosc_step(&n->w, dt, n->last_t + dt);
            n->last_t += dt;
            for (int k = 0; k < n->w.t.n_events; k++)
                publish(n, SIM_TOPIC_TRAFFIC_EVENT, n->last_t, tn_event_payload(&n->w, k));
            for (int k = 0; k < tn_xosc_n_events(&n->w); k++)
                publish(n, SIM_TOPIC_STORYBOARD_EVENT, n->last_t, tn_xosc_event_payload(&n->w, k));
        }
    }
    n->restored = false;
    tn_lights_update(&n->w, t); /* the agents see the lights of this tick */
    if (n->have_tick && !paused && t > n->last_t) {
        sim_traffic_step(&n->w.t, t - n->last_t);
        tn_xosc_step(&n->w, t - n->last_t, t);
    } else {
        n->w.t.n_events = 0;
        n->w.sb.n_events = 0;
    }
    n->have_tick = true;
    n->last_t = t;
    publish_step(n, t);
    sim_error serr = {0};
    if (n->state_path && tn_snapshot_save(&n->snap, &n->w, t, &serr))
        sim_throttle_say(&n->bad_output, stderr, "traffic-node", "snapshot", sim_throttle_clock(), "%s", serr.msg);
    if (!n->lockstep) return;
    sim_msg_ack a = {.n = tk.n};
    publish(n, SIM_TOPIC_SIM_ACK, t, sim_msg_ack_encode(&a));
}

/* Operator commands with SUMO: density scales SUMO's demand (simulation.setScale),
 * freeze holds SUMO's clock, restart starts a fresh SUMO. */
static void sumo_control(node *n, const char *cmd, const cJSON *msg)
{
    sim_error err = {0};
    if (strcmp(cmd, "traffic") == 0) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(msg, "density");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(msg, "freeze");
        if (cJSON_IsNumber(d) && d->valuedouble < TN_SUMO_MIN_SCALE) {
            ack(n, msg, false, "traffic: with SUMO, density is SUMO's demand scale and must be at least 0.05 "
                               "(SUMO 1.15 inserts no vehicle ever again after a scale that left it none to "
                               "read); freeze stops the traffic");
            return;
        }
        if (cJSON_IsNumber(d)) tn_sumo_set_scale(&n->sumo, d->valuedouble);
        if (cJSON_IsBool(f)) n->sumo.frozen = cJSON_IsTrue(f);
        ack(n, msg, true, NULL);
        return;
    }
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(msg, "at");
    int idx;
    if (cJSON_IsString(at) && sim_scenario_start_index(n->w.sc, at->valuestring, &idx, &err)) {
        ack(n, msg, false, err.msg);
        return;
    }
    /* A fresh SUMO takes longer than the operator waits for an answer (it reads the
     * network and runs the warm-up): it starts with the next tick, which is the new
     * run's first when physics restarts too. A SUMO that cannot start then ends the
     * session, as at setup. */
    n->sumo_restart = true;
    ack(n, msg, true, NULL);
}

static void on_control(node *n, const char *topic, const cJSON *msg)
{
    const char *cmd;
    sim_error err = {0};
    bool ours = strcmp(topic, "control.traffic") == 0 || strcmp(topic, "control.restart") == 0 ||
                strcmp(topic, "control.pause") == 0 || strcmp(topic, "control.signal") == 0;
    if (sim_command_validate_message(msg, &cmd, &err)) {
        if (ours) ack(n, msg, false, err.msg);
        return;
    }
    if (n->sumo_on && (strcmp(cmd, "traffic") == 0 || strcmp(cmd, "restart") == 0)) {
        sumo_control(n, cmd, msg);
        return;
    }
    if (strcmp(cmd, "traffic") == 0) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(msg, "density");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(msg, "freeze");
        if (cJSON_IsNumber(d) && n->w.su.params.density <= 0) {
            ack(n, msg, false, "traffic: the scenario has no ambient traffic (traffic.density 0) to scale");
            return;
        }
        if (cJSON_IsBool(f) && n->w.su.n_specs == 0 && n->w.su.params.density <= 0) {
            ack(n, msg, false, "traffic: the scenario has no vehicles to freeze or let go (no agents, traffic.density 0)");
            return;
        }
        if (cJSON_IsNumber(d)) n->w.density_scale = n->w.t.density_scale = d->valuedouble;
        if (cJSON_IsBool(f)) n->w.frozen = n->w.t.frozen = cJSON_IsTrue(f);
        ack(n, msg, true, NULL);
    } else if (strcmp(cmd, "restart") == 0) {
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(msg, "at");
        int idx;
        if (cJSON_IsString(at) && sim_scenario_start_index(n->w.sc, at->valuestring, &idx, &err)) {
            ack(n, msg, false, err.msg);
            return;
        }
        if (tn_world_restart(&n->w, &err)) {
            ack(n, msg, false, err.msg);
            return;
        }
        n->have_tick = false;
        ack(n, msg, true, NULL);
    } else if (strcmp(cmd, "signal") == 0) {
        if (tn_lights_command(&n->w, msg, n->last_t, &err)) {
            ack(n, msg, false, err.msg);
            return;
        }
        /* the new state goes out as signal.state with the next tick, when the world
         * sees it (in lockstep, before that tick is answered) */
        ack(n, msg, true, NULL);
    } else if (strcmp(cmd, "pause") == 0) {
        n->paused = true;
        ack(n, msg, true, NULL);
    } else if (strcmp(cmd, "resume") == 0) {
        n->paused = false; /* physics answers resume */
    } else if (strcmp(cmd, "stop") == 0) {
        sim_node_stop(n->sn, "control.stop");
    }
}

/* Another cab's car (docs/cabs.md): among the agents from its state of each tick on,
 * which comes before the tick. */
static void on_cab_state(node *n, const char *cab, const cJSON *msg)
{
    sim_msg_vehicle_state st;
    if (n->sumo_on || sim_msg_vehicle_state_decode(msg, &st, NULL) || isnan(st.pos[0]) || isnan(st.pos[1]) ||
        isnan(st.heading))
        return; /* (with SUMO's traffic the other cabs are not handed to SUMO yet) */
    tn_world_place_cab(&n->w, cab, st.pos[0], st.pos[1], st.heading, isnan(st.speed) ? 0 : st.speed);
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    node *n = user;
    const char *topic = env->topic;
    char cab[SIM_CAB_NAME_MAX + 1];
    const char *rest;
    if (sim_cab_split(topic, cab, sizeof cab, &rest)) {
        if (strcmp(rest, SIM_TOPIC_VEHICLE_STATE) == 0) on_cab_state(n, cab, msg);
        return;
    }
    if (strcmp(topic, SIM_TOPIC_SIM_TICK) == 0) on_tick(n, msg, env->t);
    else if (strcmp(topic, SIM_TOPIC_VEHICLE_STATE) == 0) on_vehicle_state(n, msg);
    else if (strncmp(topic, "control.", 8) == 0 && strcmp(topic, SIM_TOPIC_CONTROL_ACK) != 0) on_control(n, topic, msg);
}

static void on_bus(sim_node *sn, const cJSON *welcome, void *user)
{
    node *n = user;
    if (welcome) log_msg("connected to the dispatcher");
    else if (!n->closed) log_msg("lost the dispatcher; reconnecting");
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    node *n = user;
    if (!n->scenario) return sim_error_set(err, SIM_EINVAL, "--scenario FILE is required"), 2;
    /* traffic.state says whose car its ego is (docs/cabs.md) */
    n->w.ego_cab = getenv("SIM_CAB") && getenv("SIM_CAB")[0] ? getenv("SIM_CAB") : NULL;
    if (!(n->radius > 0 && n->radius <= 10000))
        return sim_error_set(err, SIM_EINVAL, "--radius expects metres in (0, 10000], got %g", n->radius), 2;
    if (n->max_vehicles < 0 || n->max_vehicles > SIM_MSG_TRAFFIC_MAX_VEHICLES)
        return sim_error_set(err, SIM_EINVAL, "--max-vehicles expects 0..%d, got %d", SIM_MSG_TRAFFIC_MAX_VEHICLES,
                             n->max_vehicles), 2;
    n->sn = sn;
    n->w.radius = n->radius;
    n->w.max_vehicles = n->max_vehicles;
    n->w.ego_len = 4.5;
    n->w.ego_width = 1.8;
    sim_node_bus_options(sn)->lockstep = n->lockstep;
    if (n->params && (n->w.n_ov = sim_xosc_parse_overrides(n->params, n->w.ov, 32, err)) < 0) return 2;
    if (tn_world_open(&n->w, n->scenario, err)) return 1;
    if (n->w.sc->traffic_engine == SIM_TRAFFIC_ENGINE_SUMO) {
        static char dir[1100];
        if (n->sumo_dir) snprintf(dir, sizeof dir, "%s", n->sumo_dir);
        else snprintf(dir, sizeof dir, "%s/traffic-node-sumo-%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                      (long)getpid());
        if (!(n->sumo_step > 0 && n->sumo_step <= 1))
            return sim_error_set(err, SIM_EINVAL, "--sumo-step expects seconds in (0, 1], got %g", n->sumo_step), 2;
        n->sumo_on = true;
        n->sumo.sc = n->w.sc;
        n->sumo.dir = dir;
        n->sumo.step_s = n->sumo_step;
        n->sumo.radius = n->radius;
        n->sumo.max_vehicles = n->max_vehicles;
        if (tn_sumo_open(&n->sumo, err)) return 1;
        fprintf(stderr, "traffic-node: %s on 127.0.0.1:%d (pid %d, step %g s, seed %u; files in %s)\n",
                n->sumo.version, n->sumo.port, (int)n->sumo.pid, n->sumo_step, (unsigned)n->w.sc->traffic_seed, dir);
        return 0; /* no snapshot: SUMO's state is SUMO's */
    }
    sim_error serr = {0};
    if (n->state_path && tn_snapshot_open(&n->snap, n->state_path, err)) return 1;
    int rc = n->state_path ? tn_snapshot_load(&n->snap, &n->w, &n->last_t, &serr) : SIM_ENOTFOUND;
    if (rc == SIM_OK) {
        n->run = n->w.run;
        n->have_tick = n->restored = true;
        fprintf(stderr, "traffic-node: continuing run %d from its snapshot at t = %.2f s (%s)\n", n->run, n->last_t,
                n->state_path);
    } else if (n->state_path && rc != SIM_ENOTFOUND) {
        fprintf(stderr, "traffic-node: %s; starting afresh\n", serr.msg);
    }
    return 0;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    node *n = user;
    n->bus = sim_node_bus(sn);
    if (n->sumo_on) return 0;
    fprintf(stderr, "traffic-node: %s: %d agents, %d lanes, density %g/km/lane, %s model\n", n->scenario,
            n->w.su.n_specs, n->w.su.graph.n_lanes, n->w.su.params.density,
            n->w.su.params.model == SIM_TRAFFIC_IDM ? "IDM+MOBIL" : "zone");
    return 0;
}

static int teardown(sim_node *sn, void *user)
{
    node *n = user;
    sim_throttle_flush(&n->bad_output, stderr, "traffic-node");
    if (n->sumo_on) tn_sumo_close(&n->sumo);
    tn_world_close(&n->w);
    if (n->state_path && !n->sumo_on) tn_snapshot_close(&n->snap, true); /* a clean stop: nothing to continue */
    log_msg("stopped");
    return n->exit_status;
}

int main(int argc, char **argv)
{
    static node n = {.radius = 300, .max_vehicles = 64, .sumo_step = 0.01};
    const sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &n.scenario, "FILE", "scenario whose traffic to drive (required)"},
        {"radius", SIM_OPT_DOUBLE, &n.radius, "M", "vehicles in traffic.state within this of the ego (default 300)"},
        {"max-vehicles", SIM_OPT_INT, &n.max_vehicles, "N", "most vehicles per traffic.state (default 64, at most 128)"},
        {"lockstep", SIM_OPT_FLAG, &n.lockstep, NULL, "answer every sim.tick (reproducible runs)"},
        {"params", SIM_OPT_STRING, &n.params, "NAME=V,...", "OpenSCENARIO: parameter values over the file's declarations"},
        {"ego", SIM_OPT_STRING, &n.w.ego_name, "NAME", "OpenSCENARIO: the entity that is the person's car (default Ego, hero, else the first)"},
        {"scenario-ego", SIM_OPT_FLAG, &n.w.sb_drives_ego, NULL, "OpenSCENARIO: the storyboard drives the ego entity too (headless checks)"},
        {"state", SIM_OPT_STRING, &n.state_path, "FILE",
         "keep a snapshot of the world here after every tick, and continue from it when restarted (simctl run sets it)"},
        {"sumo-dir", SIM_OPT_STRING, &n.sumo_dir, "DIR",
         "\"engine\": \"sumo\": SUMO's network, demand and log go here (simctl run: OUT/sumo; default a folder in $TMPDIR)"},
        {"sumo-step", SIM_OPT_DOUBLE, &n.sumo_step, "S", "\"engine\": \"sumo\": SUMO's step length (default 0.01, the physics' tick)"},
    };
    /* cab.: the other cabs' cars (docs/cabs.md) */
    static const char *const subs[] = {SIM_TOPIC_SIM_TICK, SIM_TOPIC_VEHICLE_STATE, "control.", SIM_CAB_PREFIX};
    /* declared, so that the operator's reply waits for exactly these answers */
    static const char *const acts_on[] = {"traffic", "restart", "pause", "signal"};
    const sim_node_desc desc = {
        .prog = "traffic-node", .usage = "traffic-node --scenario FILE [options]",
        .about = "Drives the scenario's surrounding traffic and publishes it on the bus.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "traffic", .subscribe = subs, .n_subscribe = sizeof subs / sizeof *subs,
                .acts_on = acts_on, .n_acts_on = sizeof acts_on / sizeof *acts_on},
        .setup = setup, .start = start, .on_message = on_message, .on_bus = on_bus, .on_stop = on_stop,
        .teardown = teardown, .user = &n};
    return sim_node_run(&desc, argc, argv);
}
