/* node: the physics node's clock, lockstep bookkeeping and message handling (see
 * node.h). Ticks are numbered from 0 at each start or restart; tick n is the state at
 * t = n / publish_hz, so time is a product, never a running sum, and a rerun with the
 * same inputs gives the same numbers. For each tick the node publishes vehicle.state
 * and ffb.command first and sim.tick last, so that a lockstep driver that reacts to
 * sim.tick already has the state it should react to. */
#include "node.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_command_bus.h"
#include "sim_msg_ffb.h"
#include "sim_msg_input.h"
#include "sim_msg_sim.h"
#include "sim_msg_traffic.h"
#include "sim_msg_vehicle.h"

static double tick_time(const pn_node *n) { return (double)n->tick / n->cfg.publish_hz; }

static void publish(pn_node *n, const char *topic, cJSON *payload)
{
    if (!payload)
        return;
    sim_bus_publish(n->bus, topic, tick_time(n), payload);
    cJSON_Delete(payload);
}

static void publish_tick(pn_node *n)
{
    sim_vehicle_state s;
    const sim_vehicle_ground *g = pn_world_ground(n->world);
    sim_vehicle_get_state(&n->car, g, &s);
    pn_road_pos road;
    pn_world_road(n->world, s.pos[0], s.pos[1], s.pos[2], s.heading, &road);
    /* In lockstep the clock waits for its participants: a wall-clock delay means
     * nothing there, and the states stay byte for byte the same from run to run. */
    /* the angular acceleration from the last tick's rate (0 at a run's first tick) */
    double alpha[3] = {0}, head[6];
    for (int k = 0; k < 3 && n->have_w; k++) alpha[k] = (s.ang_vel_body[k] - n->last_w[k]) * n->cfg.publish_hz;
    memcpy(n->last_w, s.ang_vel_body, sizeof n->last_w);
    n->have_w = !n->paused;
    pn_head_motion(&s, &n->params, alpha, head);
    publish(n, SIM_TOPIC_VEHICLE_STATE,
            pn_vehicle_state_json(&s, &n->in, &road, n->cfg.model, n->tick, n->run,
                                  n->cfg.lockstep ? NULL : &n->stamps, head));
    if (!n->ended && pn_world_at_end(n->world, &road, &n->in_last_sector)) {
        n->ended = true; /* once per run: simctl ends a session "until end" on it */
        sim_msg_end e = {.reason = "the end of the last test sector"};
        publish(n, SIM_TOPIC_SIM_END, sim_msg_end_encode(&e));
    }
    sim_ffb_output f = sim_vehicle_ffb(&n->ffb, &s, n->in.steer);
    publish(n, SIM_TOPIC_FFB_COMMAND, pn_ffb_json(&f));
    if (n->cfg.follow_clock) return; /* the session's clock is another cab's */
    publish(n, SIM_TOPIC_SIM_TICK, pn_tick_json(n->tick, 1.0 / n->cfg.publish_hz, n->run,
                                        n->paused));
    for (int i = 0; i < n->n_peers; i++)
        n->peers[i].acked = false;
}

/* Steps the car one publish period and publishes the new tick. */
/* --scenario-ego: the car where the storyboard's ego is one tick on (traffic.ego gives
 * the tick before this one), moving as it does; re-placed on the ground as at a start. */
static void place_on_followed(pn_node *n)
{
    sim_vehicle_start at = n->follow_at;
    double dt = 1.0 / n->cfg.publish_hz;
    at.x += at.speed * cos(at.heading) * dt;
    at.y += at.speed * sin(at.heading) * dt;
    at.gear = sim_vehicle_start_gear(&n->params, at.speed);
    sim_error err = {0};
    if (sim_vehicle_init(&n->car, &n->params, n->cfg.model, n->cfg.integrator, pn_world_ground(n->world), &at, &err))
        sim_throttle_say(&n->bad_output, stderr, "physics-node", "follow", sim_throttle_clock(),
                         "cannot put the car on the storyboard's ego (%s); it holds its state", err.msg);
}

/* count internal steps with the current controls. */
static void step_car(pn_node *n, int count)
{
    const sim_vehicle_ground *g = pn_world_ground(n->world);
    for (int k = 0; k < count; k++) {
        int rc = sim_vehicle_step(&n->car, &n->in, g, n->boxes, n->n_boxes, n->dt);
        if (rc != 0) {
            sim_throttle_say(&n->bad_output, stderr, "physics-node", "step", sim_throttle_clock(),
                             "step at t=%.3f refused (%s); the car holds its state", tick_time(n), sim_error_name(rc));
            break;
        }
        pn_collide_step(&n->collide, &n->car, n->world);
    }
}

/* A new input.controls in real time (docs/latency.md): the car is stepped up to the
 * wall clock with the controls it had, then one step with the new ones, and that
 * state is published at once on vehicle.early.state; the tick steps only what is left
 * of its period, so the ticks' states stay on their 100 Hz grid. */
static void early_state(pn_node *n, const sim_vehicle_controls *old)
{
    uint64_t period_ns = 1000000000ull / (uint64_t)n->cfg.publish_hz;
    uint64_t due_ns = n->t0_ns + (n->tick - n->tick0) * period_ns, now = uv_hrtime();
    int k = now > due_ns ? (int)((now - due_ns) / (uint64_t)(n->dt * 1e9)) : 0;
    if (k > n->steps_per_tick - 2) k = n->steps_per_tick - 2; /* leave the tick its own last step */
    if (n->steps_done >= n->steps_per_tick - 1)
        return; /* the tick is due within a step: it carries the new controls */
    if (k > n->steps_done) {
        sim_vehicle_controls now_in = n->in;
        n->in = *old;
        step_car(n, k - n->steps_done);
        n->in = now_in;
        n->steps_done = k;
    }
    step_car(n, 1);
    n->steps_done++;
    n->stamps = n->in_stamps;
    n->stamps.stepped = (double)uv_hrtime() * 1e-9;
    sim_vehicle_state s;
    const sim_vehicle_ground *g = pn_world_ground(n->world);
    sim_vehicle_get_state(&n->car, g, &s);
    pn_road_pos road;
    pn_world_road(n->world, s.pos[0], s.pos[1], s.pos[2], s.heading, &road);
    cJSON *o = pn_vehicle_state_json(&s, &n->in, &road, n->cfg.model, n->tick, n->run, &n->stamps, NULL);
    if (!o)
        return;
    cJSON_DeleteItemFromObject(o, "tick"); /* between the ticks: it belongs to none */
    double t = ((double)n->tick + (double)n->steps_done / n->steps_per_tick) / n->cfg.publish_hz;
    sim_bus_publish(n->bus, SIM_TOPIC_VEHICLE_EARLY_STATE, t, o);
    cJSON_Delete(o);
}

static void advance(pn_node *n)
{
    if (n->cfg.scenario_ego) {
        if (n->have_follow) place_on_followed(n);
        n->tick++;
        publish_tick(n);
        return;
    }
    n->stamps = n->in_stamps; /* the newest controls: those the rest of the period integrates */
    step_car(n, n->steps_per_tick - n->steps_done);
    n->steps_done = 0;
    n->stamps.stepped = (double)uv_hrtime() * 1e-9;
    n->tick++;
    for (int i = 0; i < n->collide.n_pending; i++)
        publish(n, SIM_TOPIC_VEHICLE_COLLISION, sim_msg_vehicle_collision_encode(&n->collide.pending[i]));
    n->collide.n_pending = 0;
    publish_tick(n);
}

static int start_car(pn_node *n, const char *start_name, sim_error *err)
{
    sim_vehicle_start st;
    int rc = pn_world_start(n->world, start_name, &st, err);
    if (rc)
        return rc;
    st.gear = sim_vehicle_start_gear(&n->params, st.speed);
    rc = sim_vehicle_init(&n->car, &n->params, n->cfg.model, n->cfg.integrator,
                          pn_world_ground(n->world), &st, err);
    if (rc)
        return rc;
    n->in = (sim_vehicle_controls){.automatic = true, .gear = st.gear > 0 ? st.gear : 1};
    n->in_stamps = n->stamps = (pn_stamps){NAN, NAN, NAN, NAN};
    n->steps_done = 0;
    n->n_boxes = 0;
    pn_collide_reset(&n->collide, n->dt);
    n->have_follow = false;
    n->tick = 0;
    n->ended = false;
    n->in_last_sector = false;
    return 0;
}

/* ---- lockstep ---- */

static bool all_acked(const pn_node *n)
{
    for (int i = 0; i < n->n_peers; i++)
        if (!n->peers[i].acked)
            return false;
    return true;
}

static void on_idle(uv_idle_t *h);

static void follow_step(pn_node *n);

static void schedule(pn_node *n)
{
    if (n->cfg.follow_clock) { /* another cab's car: the clock is not ours */
        if (n->follow_pending && !n->stopping && all_acked(n))
            follow_step(n);
        return;
    }
    if (n->cfg.lockstep && n->started && !n->paused && !n->stopping && all_acked(n))
        uv_idle_start(&n->idle, on_idle);
}

static void on_idle(uv_idle_t *h)
{
    pn_node *n = h->data;
    uv_idle_stop(h);
    if (!n->started || n->paused || n->stopping || !all_acked(n))
        return;
    advance(n);
    schedule(n); /* with no participants: as fast as the loop turns */
}

static void add_peer(pn_node *n, const cJSON *p)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(p, "lockstep");
    if (!cJSON_IsTrue(ls) || !cJSON_IsNumber(id) || !cJSON_IsString(name))
        return;
    if (n->cfg.follow_clock) { /* another cab's car waits for its own cab's modules only */
        size_t nl = strlen(name->valuestring), cl = n->cfg.cab ? strlen(n->cfg.cab) : 0;
        if (!cl || nl < cl + 2 || name->valuestring[nl - cl - 1] != '@' ||
            strcmp(name->valuestring + nl - cl, n->cfg.cab) != 0)
            return;
    }
    for (int i = 0; i < n->n_peers; i++)
        if (n->peers[i].id == id->valueint)
            return;
    if (n->n_peers == PN_MAX_PEERS) {
        fprintf(stderr, "physics-node: over %d lockstep participants, not waiting for '%s'\n",
                PN_MAX_PEERS, name->valuestring);
        return;
    }
    n->peers[n->n_peers].id = id->valueint;
    snprintf(n->peers[n->n_peers].name, sizeof(n->peers[0].name), "%s", name->valuestring);
    /* A newcomer has not seen the current tick: it is waited for from the next one. */
    n->peers[n->n_peers].acked = true;
    n->n_peers++;
}

static void note_present(pn_node *n, const cJSON *p)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    if (!cJSON_IsNumber(id) || !cJSON_IsString(name) || n->n_present == PN_MAX_PEERS)
        return;
    n->present[n->n_present].id = id->valueint;
    snprintf(n->present[n->n_present].name, sizeof(n->present[0].name), "%s", name->valuestring);
    n->present[n->n_present].session = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "session"));
    n->n_present++;
}

static void forget_present(pn_node *n, int id)
{
    for (int i = 0; i < n->n_present; i++)
        if (n->present[i].id == id)
            n->present[i--] = n->present[--n->n_present];
}

/* Whether every module named in --wait-for has joined. */
static bool awaited_present(const pn_node *n)
{
    /* In a session (this node holds its secret) only modules that showed the secret
     * count: a client that squatted a name must not start an unrecorded drive. */
    bool session_only = n->cfg.wait_for_session;
    const char *w = n->cfg.wait_for;
    while (w && *w) {
        size_t len = strcspn(w, ",");
        bool found = len == 0;
        for (int i = 0; i < n->n_present && !found; i++)
            found = strlen(n->present[i].name) == len && strncmp(n->present[i].name, w, len) == 0 &&
                    (n->present[i].session || !session_only);
        if (!found)
            return false;
        w += len + (w[len] == ',');
    }
    return true;
}

static void anchor_clock(pn_node *n);

static void start_clock_if_ready(pn_node *n)
{
    if (n->cfg.follow_clock || n->started || !awaited_present(n))
        return;
    n->started = true;
    anchor_clock(n);
    publish_tick(n); /* tick 0 */
    schedule(n);
}

static void remove_peer(pn_node *n, int id)
{
    for (int i = 0; i < n->n_peers; i++) {
        if (n->peers[i].id == id) {
            n->peers[i] = n->peers[--n->n_peers];
            return;
        }
    }
}

static void on_ack(pn_node *n, const cJSON *msg)
{
    sim_msg_ack ack;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
    /* The decoder refuses 0.5, -0.9 or a huge n (they were once taken for acks of tick
     * 0, or made the conversion undefined). */
    if (sim_msg_ack_decode(msg, &ack, NULL) != SIM_OK || !cJSON_IsString(src) || ack.n != n->tick)
        return; /* late, foreign or malformed acknowledgements do not count */
    for (int i = 0; i < n->n_peers; i++)
        if (strcmp(n->peers[i].name, src->valuestring) == 0)
            n->peers[i].acked = true;
    schedule(n);
}

/* ---- another cab's clock (docs/cabs.md) ---- */

/* The clock's tick follow_n has been answered by this cab's own lockstep modules (its
 * input-node has sent its controls for it): the car steps to the next tick with them
 * and publishes that state, then answers the tick. The clock's next tick comes after
 * that answer, so every module has this cab's state of a tick before the tick, as it
 * has the clock's own car's: the same order, and the same logs, at every run. */
static void follow_step(pn_node *n)
{
    n->follow_pending = false;
    if (n->tick != n->follow_n || n->stopping)
        return; /* a repeat of a tick stepped past (after a reconnection): answered below */
    if (n->follow_first) {
        /* the state of the first tick, after its controls as every later one */
        n->follow_first = false;
        publish_tick(n);
    }
    advance(n);
    if (n->cfg.lockstep) {
        sim_msg_ack a = {.n = n->follow_n};
        publish(n, SIM_TOPIC_SIM_ACK, sim_msg_ack_encode(&a));
    }
}

/* sim.tick of the session's clock. Once this cab's own modules have answered tick n
 * (follow_step), the car is stepped to tick n + 1 (at the first tick, its state of
 * that tick goes out first).
 * A paused tick steps nothing. The clock's restarts are not followed (docs/cabs.md). */
static void follow_tick(pn_node *n, const cJSON *msg)
{
    sim_msg_tick tick;
    if (sim_msg_tick_decode(msg, &tick, NULL) != SIM_OK || tick.paused)
        return;
    if (!n->started) {
        if (tick.n != 0)
            fprintf(stderr, "physics-node: joined the clock at its tick %llu: this cab counts from there as its "
                            "tick 0\n", (unsigned long long)tick.n);
        n->started = true;
        n->tick = tick.n;
        n->follow_n = tick.n;
        /* its own modules were there before the clock's first tick (simctl's
         * --wait-for): each answers it, and only then does this cab's state of the
         * first tick go out (later ones go out before the clock's tick): a recorder
         * then always has the driver's first controls with it */
        for (int i = 0; i < n->n_peers; i++)
            n->peers[i].acked = false;
        n->follow_first = true;
    }
    if (tick.n < n->tick) {
        if (n->cfg.lockstep) { /* a repeat: answered again */
            sim_msg_ack a = {.n = tick.n};
            publish(n, SIM_TOPIC_SIM_ACK, sim_msg_ack_encode(&a));
        }
        return;
    }
    n->follow_n = tick.n;
    n->follow_pending = true;
    schedule(n);
}

/* ---- real time ---- */

static void anchor_clock(pn_node *n)
{
    n->t0_ns = uv_hrtime();
    n->tick0 = n->tick;
}

static void on_timer(uv_timer_t *t)
{
    pn_node *n = t->data;
    if (!n->started || n->paused || n->stopping)
        return;
    uint64_t period_ns = 1000000000ull / (uint64_t)n->cfg.publish_hz;
    uint64_t due = n->tick0 + (uv_hrtime() - n->t0_ns) / period_ns;
    int budget = 5;
    while (n->tick < due && budget-- > 0)
        advance(n);
    if (n->tick < due)
        anchor_clock(n); /* too far behind: drop the lost time rather than spiral */
}

/* ---- messages ---- */

static void stop_node(pn_node *n)
{
    if (n->stopping)
        return;
    sim_node_stop(n->sn, "control.stop"); /* closes the node through pn_node_close */
}

const char *const pn_acts_on[] = {"pause", "resume", "restart", "seek", "stop"};
const size_t pn_n_acts_on = sizeof pn_acts_on / sizeof pn_acts_on[0];
/* Another cab's physics: the clock pauses, resumes and restarts the session; it stops. */
const char *const pn_follower_acts_on[] = {"stop"};
const size_t pn_n_follower_acts_on = sizeof pn_follower_acts_on / sizeof pn_follower_acts_on[0];

static void answer(pn_node *n, const cJSON *msg, bool ok, const char *error)
{
    sim_command_answer(n->bus, tick_time(n), "physics-node", msg, ok, error);
}

/* Acts on a validated command and answers it; pause and resume are idempotent (the
 * clock is in the asked state either way). */
static void on_control(pn_node *n, const cJSON *msg)
{
    bool f = n->cfg.follow_clock;
    const char *cmd = sim_command_receive(n->bus, tick_time(n), "physics-node", f ? pn_follower_acts_on : pn_acts_on,
                                          f ? pn_n_follower_acts_on : pn_n_acts_on, msg);
    if (!cmd)
        return;
    if (strcmp(cmd, "pause") == 0) {
        if (!n->paused) {
            n->paused = true;
            publish(n, SIM_TOPIC_SIM_TICK, pn_tick_json(n->tick, 1.0 / n->cfg.publish_hz, n->run, true));
        }
        answer(n, msg, true, NULL);
    } else if (strcmp(cmd, "resume") == 0) {
        if (!n->paused) {
            answer(n, msg, true, NULL);
            return;
        }
        n->paused = false;
        anchor_clock(n);
        publish(n, SIM_TOPIC_SIM_TICK, pn_tick_json(n->tick, 1.0 / n->cfg.publish_hz, n->run, false));
        for (int i = 0; i < n->n_peers; i++)
            n->peers[i].acked = true; /* the resume tick is not a new one to answer */
        answer(n, msg, true, NULL);
        schedule(n);
    } else if (strcmp(cmd, "restart") == 0) {
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(msg, "at");
        sim_error err = {0};
        if (start_car(n, at->valuestring, &err) != 0) {
            answer(n, msg, false, err.msg);
            return;
        }
        n->run++;
        n->paused = false;
        answer(n, msg, true, NULL);
        anchor_clock(n);
        publish_tick(n);
        schedule(n);
    } else if (strcmp(cmd, "seek") == 0) {
        /* Only a recording can be sought in; a live car's past is not kept. */
        answer(n, msg, false, "a live session cannot jump in time (seek works in simctl replay); "
                              "use restart with a start point");
    } else if (strcmp(cmd, "stop") == 0) {
        answer(n, msg, true, NULL);
        stop_node(n);
    }
}

void pn_node_on_message(pn_node *n, const sim_envelope *env, const cJSON *msg)
{
    const char *topic = env->topic;
    if (n->stopping)
        return;
    if (strcmp(topic, SIM_TOPIC_INPUT_CONTROLS) == 0) {
        sim_error err = {0};
        /* A sender that gets it wrong usually does so at every tick: one line a second. */
        double stamp, sent;
        sim_vehicle_controls old = n->in;
        if (pn_controls_stamped(msg, &n->in, &stamp, &sent, &err)) {
            sim_throttle_say(&n->bad_output, stderr, "physics-node", topic, sim_throttle_clock(), "ignoring %s", err.msg);
        } else {
            n->in_stamps = (pn_stamps){.in_stamp = stamp, .in_sent = sent, .in_recv = (double)uv_hrtime() * 1e-9,
                                       .stepped = NAN};
            if (n->cfg.early_states && !n->cfg.lockstep && !n->cfg.scenario_ego && n->started && !n->paused)
                early_state(n, &old);
        }
    } else if (strcmp(topic, SIM_TOPIC_SIM_TICK) == 0 && n->cfg.follow_clock) {
        follow_tick(n, msg);
    } else if (strcmp(topic, SIM_TOPIC_SIM_ACK) == 0) {
        on_ack(n, msg);
    } else if (strncmp(topic, "control.", 8) == 0) {
        on_control(n, msg);
    } else if (strcmp(topic, SIM_TOPIC_TRAFFIC_STATE) == 0) {
        n->n_boxes = pn_boxes_from_json(msg, n->cfg.cab, n->boxes, PN_MAX_BOXES);
    } else if (strcmp(topic, SIM_TOPIC_TRAFFIC_EGO) == 0 && n->cfg.scenario_ego) {
        sim_msg_traffic_ego e;
        sim_error err = {0};
        if (sim_msg_traffic_ego_decode(msg, &e, &err) == SIM_OK) {
            n->follow_at = (sim_vehicle_start){.x = e.x, .y = e.y, .heading = e.heading, .speed = e.speed, .gear = 1};
            n->have_follow = true;
        } else {
            sim_throttle_say(&n->bad_output, stderr, "physics-node", topic, sim_throttle_clock(), "ignoring %s", err.msg);
        }
    } else if (strcmp(topic, SIM_TOPIC_DISPATCHER_JOINED) == 0) {
        add_peer(n, msg);
        note_present(n, msg);
        start_clock_if_ready(n);
    } else if (strcmp(topic, SIM_TOPIC_DISPATCHER_LEFT) == 0) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
        if (cJSON_IsNumber(id)) {
            remove_peer(n, id->valueint);
            forget_present(n, id->valueint);
        }
        schedule(n);
    }
}

void pn_node_on_bus(pn_node *n, const cJSON *welcome)
{
    if (!welcome || n->stopping)
        return;
    /* (Re)connected: the participants are those the dispatcher lists now. */
    n->n_peers = 0;
    n->n_present = 0;
    const cJSON *peers = cJSON_GetObjectItemCaseSensitive(welcome, "peers");
    const cJSON *p;
    cJSON_ArrayForEach(p, peers) {
        add_peer(n, p);
        note_present(n, p);
    }
    if (!n->started) {
        start_clock_if_ready(n);
        return;
    }
    /* After a reconnection: the current tick again for whoever missed it. */
    publish_tick(n);
    schedule(n);
}

int pn_node_init(pn_node *n, const pn_config *cfg, pn_world *world, const sim_vehicle_params *params,
                 sim_error *err)
{
    memset(n, 0, sizeof(*n));
    n->cfg = *cfg;
    n->world = world;
    n->params = *params;
    n->dt = 1.0 / cfg->rate_hz;
    n->run = cfg->first_run;
    n->steps_per_tick = cfg->rate_hz / cfg->publish_hz;
    sim_ffb_params_default(&n->ffb);
    return start_car(n, cfg->start, err);
}

void pn_node_start(pn_node *n, sim_node *sn)
{
    n->sn = sn;
    n->loop = sim_node_loop(sn);
    n->bus = sim_node_bus(sn);
    uv_timer_init(n->loop, &n->timer);
    uv_idle_init(n->loop, &n->idle);
    n->timer.data = n->idle.data = n;
    if (!n->cfg.lockstep && !n->cfg.follow_clock) {
        uint64_t ms = 1000 / (uint64_t)n->cfg.publish_hz;
        uv_timer_start(&n->timer, on_timer, ms ? ms : 1, ms ? ms : 1);
    }
}

void pn_node_close(pn_node *n)
{
    n->stopping = true;
    if (n->bus) {
        n->bus = NULL; /* the skeleton closes it */
        uv_timer_stop(&n->timer);
        uv_idle_stop(&n->idle);
        uv_close((uv_handle_t *)&n->timer, NULL);
        uv_close((uv_handle_t *)&n->idle, NULL);
    }
}
