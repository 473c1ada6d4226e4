/* input-node: the driver's devices on the bus (docs/input.md).
 *
 * Reads a steering wheel with pedals and buttons (SDL joystick, hot-plug), the
 * keyboard (a small SDL window) or the scripted driver, and publishes input.controls
 * at a fixed rate (or once per sim.tick in lockstep) and input.button on change.
 * Plays ffb.command on the wheel's force-feedback motor, fading it to zero when
 * commands stop, the bus goes away, physics pauses or stops, and on exit.
 *
 * One libuv loop: a timer at the publish rate pumps SDL's events and reads the
 * devices; the bus client delivers messages on the same loop, so there is no
 * locking anywhere. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <uv.h>

#include "automation.h"
#include "calibrate.h"
#include "ffb_out.h"
#include "kbd.h"
#include "script.h"
#include "drt.h"
#include "sim_msg_task.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_controls.h"
#include "sim_ffb.h"
#include "sim_msg_input.h"
#include "sim_msg_traffic.h"
#include "sim_msg_signal.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "sim_node.h"
#include "vtest.h"
#include "wheel.h"
#include "sim_throttle.h"

typedef enum { MODE_AUTO, MODE_WHEEL, MODE_KEYBOARD, MODE_SCRIPT } in_mode;

typedef struct in_options in_options;

typedef struct node {
    sim_node *sn;
    const in_options *o;
    uv_loop_t *loop;
    sim_bus *bus;
    uv_timer_t timer;
    /* set-up */
    in_mode mode;
    bool auto_keyboard;    /* --device auto fell back to the keyboard: a wheel plugged
                              in later takes over */
    int device_index;      /* wheel to open at start; -1: the first */
    bool lockstep;
    uint64_t period_ns;
    in_wheel_mapping_source maps;
    /* devices and drivers */
    in_wheel wheel;
    bool have_wheel;
    in_kbd kbd;
    bool have_kbd;
    in_vtest vtest;
    bool have_vtest;
    FILE *vtest_log;       /* --virtual-test-log, owned */
    bool vtest_running;    /* its clock started: the node has joined the bus */
    in_script script;
    in_drt drt;            /* the Detection Response Task: scripted answers (drt.c) */
    bool have_script;
    in_auto autom;         /* the automation (automation.h), with --scenario */
    bool have_auto;
    /* state */
    double sim_t;          /* latest simulation time seen */
    bool sim_paused;
    double sim_run;        /* run of the latest sim.tick; -1: none yet */
    in_ffb_out fo;         /* the fade, and --ffb-log (fo.log, owned here) */
    sim_controls controls;
    double input_stamp;    /* monotonic s of the newest input sample (docs/latency.md) */
    double event_stamp;    /* the newest device event's, in this refresh; 0: none */
    int gear_req;          /* sequential gear request from paddles/keys */
    bool gear_req_used;
    bool have_obs;
    sim_driver_obs obs;
    uint64_t t0_ns, ticks; /* timer schedule */
    double last_poll;      /* s, for the keyboard ramps */
    unsigned draw_count;
    bool exiting;
    double exit_t;
    bool closed;
    char map_dir[1024];    /* the default --mapping-dir */
    sim_throttle bad_output; /* stderr lines per cause, at most one a second (sim_throttle.h) */
} node;

static double now_s(void)
{
    return (double)uv_hrtime() * 1e-9;
}

static void log_msg(const char *what)
{
    fprintf(stderr, "input-node: %s\n", what);
}

/* ---- force feedback ------------------------------------------------------------- */

/* The fade and its log are ffb_out's (a clock passed in, unit-tested); the node
 * gives them its clock and plays the effects on the wheel. */
static void ffb_event(node *n, double now, sim_ffb_event ev) { in_ffb_out_event(&n->fo, now, ev); }
static void ffb_command(node *n, double now, const sim_ffb_command *c) { in_ffb_out_command(&n->fo, now, c); }

static double ffb_play(node *n, double now)
{
    sim_ffb_effects fx;
    in_ffb_out_update(&n->fo, now, &fx);
    in_drt_tactile(&n->drt, &fx);
    if (n->have_wheel) in_wheel_play(&n->wheel, &fx);
    in_ffb_out_played(&n->fo, now, &fx); /* the log shows what was played, the DRT's vibration too */
    return fx.scale;
}

/* ---- publishing ----------------------------------------------------------------- */

static void publish_controls(node *n, double t)
{
    sim_controls c = n->controls;
    if (n->gear_req_used && !c.has_gear) {
        c.gear = n->gear_req;
        c.has_gear = true;
    }
    if (!n->lockstep) { /* lockstep: reproducible byte for byte, no wall clock in it */
        c.stamp = n->input_stamp;
        c.sent = now_s();
    }
    cJSON *o = sim_msg_input_controls_encode(&c);
    if (o) sim_bus_publish(n->bus, SIM_TOPIC_INPUT_CONTROLS, t, o);
    cJSON_Delete(o);
}

static void publish_drt_response(node *n, double t, const char *source)
{
    cJSON *o = in_drt_response(source);
    if (o) sim_bus_publish(n->bus, SIM_TOPIC_DRT_RESPONSE, t, o);
    cJSON_Delete(o);
}

static void publish_button(node *n, sim_button_role role, bool pressed)
{
    sim_msg_input_button b = {.pressed = pressed};
    snprintf(b.role, sizeof b.role, "%s", sim_button_role_name(role));
    cJSON *o = sim_msg_input_button_encode(&b);
    if (o) sim_bus_publish(n->bus, SIM_TOPIC_INPUT_BUTTON, n->sim_t, o);
    cJSON_Delete(o);
}

/* A button changed: published, and the gear paddles move the sequential request
 * (from the gear the car reports, when it reports one). */
static void button_changed(node *n, sim_button_role role, bool pressed)
{
    publish_button(n, role, pressed);
    if (pressed && role == SIM_BUTTON_DRT) publish_drt_response(n, n->sim_t, "button");
    if (n->have_auto) in_auto_button(&n->autom, n->bus, n->sim_t, n->obs.speed, role, pressed);
    if (!pressed || (role != SIM_BUTTON_GEAR_UP && role != SIM_BUTTON_GEAR_DOWN)) return;
    int base = n->gear_req_used ? n->gear_req : n->have_obs ? n->obs.gear : 1;
    if (role == SIM_BUTTON_GEAR_UP && base < SIM_INPUT_MAX_GEARS) base++;
    if (role == SIM_BUTTON_GEAR_DOWN && base > -1) base--;
    n->gear_req = base;
    n->gear_req_used = true;
}

/* ---- devices -------------------------------------------------------------------- */

static bool wants_wheel(const node *n)
{
    return n->mode == MODE_WHEEL || n->mode == MODE_AUTO || n->auto_keyboard;
}

static void open_wheel(node *n, int index)
{
    sim_error err = {0};
    if (in_wheel_open(&n->wheel, index, &n->maps, &err)) {
        fprintf(stderr, "input-node: %s\n", err.msg);
        return;
    }
    n->have_wheel = true;
    n->gear_req_used = false;
    sim_ffb_init(&n->fo.ffb, n->wheel.map.ffb_gain, n->wheel.map.ffb_torque_limit,
                 n->wheel.map.ffb_invert);
    if (n->sim_paused) ffb_event(n, now_s(), SIM_FFB_PAUSED);
}

static void close_wheel(node *n, const char *why)
{
    if (!n->have_wheel) return;
    fprintf(stderr, "input-node: %s %s\n", n->wheel.name, why);
    in_wheel_close(&n->wheel);
    n->have_wheel = false;
    /* Released, as if the driver let go: a pulled wheel must not leave the car
     * accelerating. */
    memset(&n->controls, 0, sizeof n->controls);
    for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++)
        if (n->wheel.pressed[r]) button_changed(n, (sim_button_role)r, false);
    memset(n->wheel.pressed, 0, sizeof n->wheel.pressed);
}

static void begin_exit(node *n, const char *why);

/* When a device event happened on the monotonic clock: SDL stamps it in its own ms
 * ticks as it reads it from the device. */
static double event_time(const SDL_Event *e, double now)
{
    Uint32 age_ms = SDL_GetTicks() - e->common.timestamp;
    return age_ms < 60000 ? now - age_ms * 1e-3 : now;
}

static void handle_sdl_event(node *n, const SDL_Event *e)
{
    switch (e->type) {
    case SDL_JOYAXISMOTION:
    case SDL_JOYBUTTONDOWN:
    case SDL_JOYBUTTONUP:
    case SDL_JOYHATMOTION:
    case SDL_CONTROLLERAXISMOTION:
    case SDL_CONTROLLERBUTTONDOWN:
    case SDL_CONTROLLERBUTTONUP: {
        double at = event_time(e, now_s());
        if (at > n->event_stamp) n->event_stamp = at;
        break;
    }
    default: break;
    }
    switch (e->type) {
    case SDL_JOYDEVICEADDED:
        if (!n->have_wheel && wants_wheel(n)) {
            open_wheel(n, e->jdevice.which);
        } else {
            const char *name = SDL_JoystickNameForIndex(e->jdevice.which);
            fprintf(stderr, "input-node: %s plugged in (not used: %s)\n", name ? name : "a joystick",
                    n->have_wheel ? "a wheel is in use" : "not in wheel mode");
        }
        break;
    case SDL_JOYDEVICEREMOVED:
        if (n->have_wheel && e->jdevice.which == n->wheel.id) {
            close_wheel(n, "unplugged; waiting for a wheel");
            /* Another one may still be there. */
            if (SDL_NumJoysticks() > 0) open_wheel(n, 0);
        }
        break;
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        if (!e->key.repeat) {
            double at = event_time(e, now_s());
            if (at > n->event_stamp) n->event_stamp = at;
        }
        if (n->have_kbd && !e->key.repeat) {
            int role = in_kbd_role_for_key(e->key.keysym.sym);
            if (role >= 0) button_changed(n, (sim_button_role)role, e->type == SDL_KEYDOWN);
        }
        break;
    case SDL_QUIT: /* the keyboard window closed: the drive goes on; stop is the operator's */
        fprintf(stderr, "input-node: the keyboard window cannot end the session (simctl stop, or Ctrl-C where simctl runs)\n");
        break;
    default: break;
    }
}

/* Pumps SDL and brings n->controls up to date from whoever drives. */
static void refresh(node *n, double now)
{
    if (n->have_vtest && n->vtest_running) {
        size_t before = n->vtest.next;
        in_vtest_run_next(&n->vtest, now);
        if (n->vtest_log) /* the moment the virtual wheel moved: simctl latency's reference */
            for (size_t i = before; i < n->vtest.next; i++)
                fprintf(n->vtest_log, "%.6f,%.6f,%d,%d,%d\n", now_s(), n->vtest.steps[i].at, (int)n->vtest.steps[i].kind,
                        n->vtest.steps[i].index, n->vtest.steps[i].value);
        if (n->vtest_log) fflush(n->vtest_log);
    }
    SDL_Event e;
    n->event_stamp = 0;
    while (SDL_PollEvent(&e)) handle_sdl_event(n, &e);
    /* The sample read now is the devices' state as of now, except for what changed in
     * this poll: that happened when its events did (the newest of them). */
    n->input_stamp = n->event_stamp > 0 && n->event_stamp <= now ? n->event_stamp : now;
    double dt = n->last_poll > 0 ? now - n->last_poll : 0;
    n->last_poll = now;
    if (n->have_wheel) {
        sim_input_raw raw = in_wheel_read(&n->wheel);
        sim_input_map_apply(&n->wheel.map, &raw, &n->controls);
        for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++) {
            bool p = sim_input_map_pressed(&n->wheel.map, &raw, (sim_button_role)r);
            if (p != n->wheel.pressed[r]) {
                n->wheel.pressed[r] = p;
                button_changed(n, (sim_button_role)r, p);
            }
        }
    } else if (n->have_kbd) {
        in_kbd_step(&n->kbd, dt);
        sim_keyboard_controls(&n->kbd.k, 900, &n->controls);
        if (++n->draw_count % 8 == 0) in_kbd_draw(&n->kbd);
    } else if (n->have_script) {
        in_script_controls(&n->script, n->sim_t, &n->controls);
    }
    if (n->have_auto && (n->have_wheel || n->have_kbd || n->have_script))
        in_auto_drive(&n->autom, n->bus, n->have_obs ? &n->obs : NULL, n->have_wheel, &n->controls);
}

/* ---- the loop ------------------------------------------------------------------- */

/* The skeleton's on_stop: the bus and the signals close right after. */
static void close_all(sim_node *sn, const char *why, void *user)
{
    node *n = user;
    n->closed = true;
    uv_timer_stop(&n->timer);
    uv_close((uv_handle_t *)&n->timer, NULL);
    if (n->have_wheel) in_wheel_close(&n->wheel);
    n->have_wheel = false;
    n->bus = NULL;
}

static void begin_exit(node *n, const char *why)
{
    if (n->exiting) return;
    fprintf(stderr, "input-node: exiting (%s), fading force feedback out\n", why);
    n->exiting = true;
    n->exit_t = now_s();
    ffb_event(n, n->exit_t, SIM_FFB_EXIT);
}

static void on_timer(uv_timer_t *t);

static void arm(node *n)
{
    n->ticks++;
    uint64_t due = n->t0_ns + n->ticks * n->period_ns, now = uv_hrtime();
    /* Catch up without bursts when the loop was held up. */
    if (due + 10 * n->period_ns < now) {
        n->t0_ns = now;
        n->ticks = 0;
        due = now;
    }
    uint64_t ms = due > now ? (due - now) / 1000000 : 0;
    uv_timer_start(&n->timer, on_timer, ms, 0);
}

static void on_timer(uv_timer_t *t)
{
    node *n = t->data;
    double now = now_s();
    refresh(n, now);
    if (!n->lockstep && !n->exiting) publish_controls(n, n->sim_t);
    double scale = ffb_play(n, now);
    if (n->exiting && in_ffb_exit_done(scale, now - n->exit_t)) {
        sim_node_stop(n->sn, "faded out");
        return;
    }
    arm(n);
}

/* ---- bus -------------------------------------------------------------------------- */

static void on_vehicle_state(node *n, const cJSON *msg, double t)
{
    sim_msg_vehicle_state st;
    sim_error err = {0};
    /* A state without a position is of no use to the scripted driver; one with a
     * malformed field is not trusted at all. */
    if (sim_msg_vehicle_state_decode(msg, &st, &err) || isnan(st.pos[0]) || isnan(st.pos[1])) return;
    n->obs = (sim_driver_obs){
        .t = isnan(t) ? n->sim_t : t,
        .x = st.pos[0],
        .y = st.pos[1],
        .heading = isnan(st.heading) ? 0 : st.heading,
        .speed = isnan(st.speed) ? 0 : st.speed,
        .rpm = isnan(st.rpm) ? 0 : st.rpm,
        .gear = st.gear == SIM_MSG_NO_INT ? 0 : (int)fmax(-1, fmin(12, st.gear)), /* garbage never overflows */
    };
    n->have_obs = true;
    if (n->obs.t > n->sim_t) n->sim_t = n->obs.t;
    if (n->have_script) in_script_on_state(&n->script, &n->obs);
}

static void set_paused(node *n, bool paused)
{
    if (paused == n->sim_paused) return;
    n->sim_paused = paused;
    ffb_event(n, now_s(), paused ? SIM_FFB_PAUSED : SIM_FFB_RESUMED);
}

static void on_tick(node *n, const cJSON *msg, double t_msg)
{
    double t = isnan(t_msg) ? n->sim_t : t_msg;
    sim_msg_tick tick;
    sim_error err = {0};
    bool ok = sim_msg_tick_decode(msg, &tick, &err) == SIM_OK;
    n->sim_t = t;
    double run = ok && tick.run != SIM_MSG_NO_INT ? tick.run : n->sim_run;
    if (run != n->sim_run && n->sim_run >= 0 && n->have_script && !n->script.replaying) {
        /* A new run without a restart command (physics restarted after a crash): the
         * driver starts afresh, from the state of the run's first tick. */
        sim_error rerr = {0};
        if (in_script_restart(&n->script, NULL, &rerr) == SIM_OK && n->have_obs) in_script_on_state(&n->script, &n->obs);
        n->gear_req_used = false;
    }
    if (run != n->sim_run) in_drt_reset(&n->drt);
    n->sim_run = run;
    set_paused(n, ok && tick.paused);
    if (in_drt_due(&n->drt, t)) publish_drt_response(n, t, "script");
    if (!n->lockstep || !ok || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(msg, "n"))) return;
    /* Our answer for tick n: the controls first, then the ack; the dispatcher keeps
     * the order, so physics has them before it steps. */
    refresh(n, now_s());
    publish_controls(n, t);
    sim_msg_ack a = {.n = tick.n};
    cJSON *ack = sim_msg_ack_encode(&a);
    if (ack) sim_bus_publish(n->bus, SIM_TOPIC_SIM_ACK, t, ack);
    cJSON_Delete(ack);
}

/* What the node acts on: the force feedback's pause and stop always; the scripted
 * path follower also restarts with the run and obeys the operator's speed limit; the
 * automation (with a scenario) its command, and restarts too. */
static const char *const ACTS_ON[] = {"pause", "resume", "stop", "restart", "speed_limit"};
static const char *const ACTS_ON_AUTO[] = {"pause", "resume", "stop", "restart", "automation", "speed_limit"};

static size_t n_acts_on(const node *n)
{
    if (n->have_auto) return n->have_script && !n->script.replaying ? 6 : 5;
    return n->have_script && !n->script.replaying ? 5 : 3;
}

static const char *const *acts_on(const node *n)
{
    return n->have_auto ? ACTS_ON_AUTO : ACTS_ON;
}

static void on_command(node *n, double now, const cJSON *msg)
{
    const char *cmd = sim_command_receive(n->bus, n->sim_t, "input-node", acts_on(n), n_acts_on(n), msg);
    if (!cmd) return;
    sim_error err = {0};
    bool ok = true;
    if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0) {
        set_paused(n, strcmp(cmd, "pause") == 0);
    } else if (strcmp(cmd, "restart") == 0) {
        /* physics, which knows the scenario too, refuses an unknown start point */
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(msg, "at");
        ok = (!n->have_script || in_script_restart(&n->script, at->valuestring, &err) == SIM_OK) &&
             (!n->have_auto || in_auto_restart(&n->autom, at->valuestring, &err) == SIM_OK);
        n->gear_req_used = false;
    } else if (strcmp(cmd, "speed_limit") == 0) {
        in_script_speed_limit(&n->script, cJSON_GetObjectItemCaseSensitive(msg, "kmh")->valuedouble);
    } else if (strcmp(cmd, "automation") == 0) {
        ok = in_auto_command(&n->autom, n->bus, n->sim_t, n->obs.speed, msg, &err);
    } else if (strcmp(cmd, "stop") == 0) {
        ffb_event(n, now, SIM_FFB_STOPPED);
        begin_exit(n, "control.stop");
    }
    sim_command_answer(n->bus, n->sim_t, "input-node", msg, ok, err.msg);
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    node *n = user;
    const char *topic = env->topic;
    double now = now_s();
    if (strcmp(topic, SIM_TOPIC_FFB_COMMAND) == 0) {
        sim_ffb_command c;
        sim_error err = {0};
        if (sim_msg_ffb_command_decode(msg, &c, &err) == SIM_OK) {
            if (n->have_auto) in_auto_ffb(&n->autom, n->sim_t, &c);
            ffb_command(n, now, &c);
        } else
            sim_throttle_say(&n->bad_output, stderr, "input-node", topic, now, "ignoring %s", err.msg);
    } else if (strcmp(topic, SIM_TOPIC_SIM_TICK) == 0) {
        on_tick(n, msg, env->t);
    } else if (strcmp(topic, SIM_TOPIC_VEHICLE_STATE) == 0) {
        on_vehicle_state(n, msg, env->t);
    } else if (strcmp(topic, SIM_TOPIC_DRT_STIMULUS) == 0) {
        in_drt_on_stimulus(&n->drt, msg, env->t);
    } else if (strcmp(topic, SIM_TOPIC_TRAFFIC_STATE) == 0) {
        /* The vehicle ahead and those around, for the scripted driver and the automation. */
        static sim_msg_traffic_vehicle around[IN_SCRIPT_MAX_TRAFFIC];
        sim_msg_traffic_state st = {.vehicles = around};
        if (n->have_script || n->have_auto) {
            int rc = sim_msg_traffic_state_decode(msg, &st, IN_SCRIPT_MAX_TRAFFIC, NULL);
            /* With cabs (docs/cabs.md) the lead is the traffic ego's: another cab's lead is
             * not this car's, and this car is among the vehicles as "cab.NAME" */
            const char *cab = getenv("SIM_CAB");
            if (cab && *cab && st.cab[0] && strcmp(st.cab, cab) != 0) st.lead.valid = false;
            char mine[64];
            snprintf(mine, sizeof mine, "cab.%s", cab ? cab : "");
            for (int k = 0; cab && *cab && k < st.n_vehicles; k++)
                if (strcmp(around[k].id, mine) == 0) around[k--] = around[--st.n_vehicles];
            if (rc == SIM_OK && n->have_script) in_script_set_lead(&n->script, st.lead.valid, st.lead.gap, st.lead.speed);
            if (rc == SIM_OK && n->have_auto) in_auto_set_lead(&n->autom, st.lead.valid, st.lead.gap, st.lead.speed);
            if (n->have_script && (rc == SIM_OK || st.n_vehicles > 0)) in_script_set_traffic(&n->script, around, st.n_vehicles);
        }
    } else if (strcmp(topic, SIM_TOPIC_SIGNAL_STATE) == 0) {
        sim_msg_signal_state ss;
        if (n->have_script && sim_msg_signal_state_decode(msg, &ss, NULL) == SIM_OK)
            in_script_set_light(&n->script, ss.id, ss.state);
    } else if (strcmp(topic, SIM_TOPIC_TRAFFIC_EVENT) == 0) {
        sim_msg_traffic_event ev;
        if (n->have_auto && sim_msg_traffic_event_decode(msg, &ev, NULL) == SIM_OK)
            in_auto_trigger(&n->autom, n->bus, n->sim_t, n->obs.speed, ev.trigger);
    } else if (strncmp(topic, "control.", 8) == 0) {
        on_command(n, now, msg);
    } else if (strcmp(topic, SIM_TOPIC_DISPATCHER_LEFT) == 0) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
        /* Physics gone: no more commands will come, fade now rather than after the
         * watchdog; commands from a restarted physics bring the force back. */
        if (cJSON_IsString(name) && strcmp(name->valuestring, "physics") == 0)
            ffb_event(n, now, SIM_FFB_BUS_LOST);
    }
}

static void on_bus(sim_node *sn, const cJSON *welcome, void *user)
{
    node *n = user;
    if (welcome) {
        log_msg("connected to the dispatcher");
        /* The test script plays from now: before, what it made the node publish
         * would have been dropped. */
        if (n->have_vtest && !n->vtest_running) {
            in_vtest_set_clock(&n->vtest, now_s());
            n->vtest_running = true;
        }
    } else {
        ffb_event(n, now_s(), SIM_FFB_BUS_LOST);
        if (!n->closed) log_msg("lost the dispatcher; reconnecting");
    }
}

static void on_signal(sim_node *sn, int signum, void *user)
{
    begin_exit(user, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

/* ---- set-up ----------------------------------------------------------------------- */

static bool have_display(void)
{
    return getenv("DISPLAY") || getenv("WAYLAND_DISPLAY");
}

/* Resolves --device and --driver into a mode; false (with a message) when they
 * disagree or are unknown. */
static bool resolve_mode(const char *device, const char *driver, node *n)
{
    n->device_index = -1;
    in_mode dev_mode = MODE_AUTO;
    if (strcmp(device, "auto") == 0) {
        dev_mode = MODE_AUTO;
    } else if (strcmp(device, "keyboard") == 0) {
        dev_mode = MODE_KEYBOARD;
    } else if (strcmp(device, "script") == 0) {
        dev_mode = MODE_SCRIPT;
    } else {
        char *end;
        long idx = strtol(device, &end, 10);
        if (*device == '\0' || *end || idx < 0 || idx > 255) {
            fprintf(stderr, "error: --device expects auto, a device number, keyboard or script, got '%s'\n",
                    device);
            return false;
        }
        dev_mode = MODE_WHEEL;
        n->device_index = (int)idx;
    }
    n->mode = dev_mode;
    if (!driver) return true;
    in_mode drv_mode;
    if (strcmp(driver, "script") == 0)
        drv_mode = MODE_SCRIPT;
    else if (strcmp(driver, "keyboard") == 0)
        drv_mode = MODE_KEYBOARD;
    else if (strcmp(driver, "wheel") == 0)
        drv_mode = MODE_WHEEL;
    else {
        fprintf(stderr, "error: --driver expects script, wheel or keyboard, got '%s'\n", driver);
        return false;
    }
    if (dev_mode != MODE_AUTO && dev_mode != drv_mode) {
        fprintf(stderr, "error: --device %s and --driver %s disagree\n", device, driver);
        return false;
    }
    n->mode = drv_mode;
    return true;
}

/* --calibrate with a test script: the steps for prompt k are due at "time" k. */
static void on_calibrate_prompt(int k, void *user)
{
    in_vtest_run(user, (double)k);
}

/* Default mapping directory: config/input next to bin/ (the repository layout). */
static const char *default_map_dir(char *buf, size_t size)
{
    const char *root = getenv("SIM_ROOT");
    if (root) {
        snprintf(buf, size, "%s/config/input", root);
        return buf;
    }
    size_t len = size;
    if (uv_exepath(buf, &len) != 0) return NULL;
    char *slash = strrchr(buf, '/');
    if (!slash) return NULL;
    *slash = '\0'; /* .../bin */
    slash = strrchr(buf, '/');
    if (!slash) return NULL;
    snprintf(slash, size - (size_t)(slash - buf), "/config/input");
    return buf;
}

/* Everything the command line sets; strings point into argv. */
struct in_options {
    const char *device, *driver, *mapping, *mapping_dir, *scenario, *start;
    const char *replay, *vtest, *ffb_log, *vtest_log;
    int rate_hz;
    double target_kmh;
    bool lockstep, calibrate;
};

/* The checks the option table cannot make; 0 to go on, else the exit status. */
static int check_options(const in_options *o, node *n, sim_error *err)
{
    if (!resolve_mode(o->device, o->driver, n)) return 2;
    if (o->rate_hz < 1 || o->rate_hz > 1000)
        return sim_error_set(err, SIM_EINVAL, "--rate-hz expects 1..1000, got %d", o->rate_hz), 2;
    if (o->target_kmh < 0 || o->target_kmh > 400)
        return sim_error_set(err, SIM_EINVAL, "--target-kmh expects 0..400 (0: the speed limits), got %g",
                             o->target_kmh), 2;
    if (o->mapping && !o->calibrate) {
        /* A broken mapping is a mistake to fix now, not at the next plug-in. */
        sim_input_map check;
        if (sim_input_map_load(o->mapping, &check, err)) return 1;
    }
    return 0;
}

/* Opens what drives: the test wheel, a wheel present now (later ones arrive as
 * SDL_JOYDEVICEADDED), else by mode the keyboard window or the script. */
static int start_driver(node *n, const in_options *o, sim_error *err)
{
    n->fo.start_s = now_s();
    if (o->ffb_log && !(n->fo.log = fopen(o->ffb_log, "w")))
        return sim_error_set(err, SIM_EIO, "--ffb-log %s: cannot open: %s", o->ffb_log, strerror(errno));
    /* Whole lines as they happen, so that a test (or a person) can follow the log. */
    if (n->fo.log) setvbuf(n->fo.log, NULL, _IOLBF, 0);
    int rc;
    if (o->vtest_log && !(n->vtest_log = fopen(o->vtest_log, "w")))
        return sim_error_set(err, SIM_EIO, "--virtual-test-log %s: cannot create: %s", o->vtest_log, strerror(errno));
    if (o->vtest) {
        if ((rc = in_vtest_load(&n->vtest, o->vtest, err))) return rc;
        n->have_vtest = true; /* before starting: free_driver frees it if the start fails */
        if ((rc = in_vtest_start(&n->vtest, now_s(), err))) return rc;
    }
    SDL_JoystickUpdate();
    if (wants_wheel(n) && SDL_NumJoysticks() > 0) {
        int idx = n->device_index >= 0 ? n->device_index : 0;
        if (idx < SDL_NumJoysticks()) open_wheel(n, idx);
        /* The add events for devices present at start would open them again. */
        SDL_FlushEvent(SDL_JOYDEVICEADDED);
    }
    if (n->mode == MODE_WHEEL && !n->have_wheel) /* never a silent standing car */
        return in_wheel_missing(n->device_index, SDL_NumJoysticks(), err);
    if (n->mode == MODE_AUTO && !n->have_wheel) {
        if (have_display()) {
            n->mode = MODE_KEYBOARD;
            n->auto_keyboard = true;
            log_msg("no wheel found: keyboard driving in a small window (arrows or WASD); a wheel plugged in is taken over");
        } else if (o->replay || o->scenario) {
            n->mode = MODE_SCRIPT;
            log_msg("no wheel and no display: the scripted driver follows the scenario's ideal path");
        } else {
            log_msg("no wheel, no display and no scenario: waiting for a wheel");
        }
    }
    if (n->mode == MODE_KEYBOARD) {
        if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
            return sim_error_set(err, SIM_EIO, "keyboard: %s", SDL_GetError());
        if ((rc = in_kbd_open(&n->kbd, err))) return rc;
        n->have_kbd = true;
    }
    if (n->mode == MODE_SCRIPT) {
        in_script_options so = {.scenario = o->scenario, .start = o->start, .replay = o->replay,
                             .target_kmh = o->target_kmh};
        if ((rc = in_script_open(&n->script, &so, err))) return rc;
        n->have_script = true;
        if (!o->replay && (rc = in_drt_open(&n->drt, o->scenario, true, err))) return rc;
    }
    if (!n->have_wheel) sim_ffb_init(&n->fo.ffb, 0, 0, false);
    if (o->scenario && !o->replay) {
        /* Without a route the automation cannot steer: a scenario that asks for it
         * stops the node; otherwise it is only unavailable. */
        bool scripted = n->mode == MODE_SCRIPT;
        sim_error aerr = {0};
        if (in_auto_open(&n->autom, o->scenario, o->start, scripted, &aerr) == SIM_OK)
            n->have_auto = true;
        else
            fprintf(stderr, "input-node: automation unavailable: %s\n", aerr.msg);
    }
    return SIM_OK;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    node *n = user;
    n->loop = sim_node_loop(sn);
    n->bus = sim_node_bus(sn);
    uv_timer_init(n->loop, &n->timer);
    n->timer.data = n;
    n->t0_ns = uv_hrtime();
    uv_timer_start(&n->timer, on_timer, 0, 0);
    return SIM_OK;
}

/* Frees what start_driver opened (the wheel and the bus go in close_all). */
static void free_driver(node *n)
{
    if (n->have_kbd) in_kbd_close(&n->kbd);
    if (n->have_vtest) in_vtest_free(&n->vtest);
    if (n->vtest_log) fclose(n->vtest_log);
    n->vtest_log = NULL;
    if (n->have_script) in_script_close(&n->script);
    if (n->have_auto) in_auto_close(&n->autom);
    if (n->have_wheel) in_wheel_close(&n->wheel);
    if (n->fo.log) fclose(n->fo.log);
    n->have_kbd = n->have_vtest = n->have_script = n->have_wheel = n->have_auto = false;
    n->fo.log = NULL;
}

/* --calibrate: the interactive set-up, no bus. */
static int run_calibration(node *n, const in_options *o)
{
    sim_error err = {0};
    /* A test script counts prompts instead of seconds here (see vtest.h). */
    if (o->vtest && (in_vtest_load(&n->vtest, o->vtest, &err) || in_vtest_start(&n->vtest, 0, &err))) {
        fprintf(stderr, "input-node: %s\n", err.msg);
        return 1;
    }
    int rc = in_calibrate_run(o->mapping, n->device_index < 0 ? 0 : n->device_index,
                           o->vtest ? on_calibrate_prompt : NULL, &n->vtest);
    if (o->vtest) in_vtest_free(&n->vtest);
    return rc;
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    node *n = user;
    const in_options *o = n->o;
    n->sn = sn;
    int rc = check_options(o, n, err);
    if (rc) return rc;
    n->maps.file = o->mapping;
    n->maps.dir = o->mapping_dir ? o->mapping_dir : default_map_dir(n->map_dir, sizeof n->map_dir);
    n->lockstep = o->lockstep;
    n->period_ns = 1000000000ull / (uint64_t)o->rate_hz;

    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (n->mode == MODE_KEYBOARD && !have_display()) {
        log_msg("no display: the keyboard window is offscreen (keys cannot reach it)");
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    }
    if (SDL_Init(SDL_INIT_JOYSTICK | SDL_INIT_HAPTIC | SDL_INIT_GAMECONTROLLER | SDL_INIT_EVENTS))
        return sim_error_set(err, SIM_EIO, "SDL: %s", SDL_GetError()), 1;
    if (o->calibrate) { /* the interactive set-up, no bus */
        rc = run_calibration(n, o);
        free_driver(n);
        SDL_Quit();
        return rc ? rc : SIM_NODE_DONE;
    }
    if (start_driver(n, o, err)) {
        free_driver(n);
        SDL_Quit();
        return 1;
    }
    /* what the node acts on depends on who drives (set by start_driver) */
    sim_node_bus_options(sn)->acts_on = acts_on(n);
    sim_node_bus_options(sn)->n_acts_on = n_acts_on(n);
    sim_node_bus_options(sn)->lockstep = o->lockstep;
    return 0;
}

static int teardown(sim_node *sn, void *user)
{
    node *n = user;
    sim_throttle_flush(&n->bad_output, stderr, "input-node");
    sim_throttle_flush(&n->drt.bad_output, stderr, "input-node");
    log_msg("stopped");
    free_driver(n);
    SDL_Quit();
    return 0;
}

int main(int argc, char **argv)
{
    static node n = {.sim_run = -1};
    static in_options o = {.device = "auto", .rate_hz = 250};
    n.o = &o;
    const sim_opt opts[] = {
        {"device", SIM_OPT_STRING, &o.device, "auto|N|keyboard|script",
         "input device (default auto: a wheel, else the keyboard, else the script)"},
        {"driver", SIM_OPT_STRING, &o.driver, "script|wheel|keyboard", "who drives (overrides auto)"},
        {"mapping", SIM_OPT_STRING, &o.mapping, "FILE", "device mapping (written by --calibrate)"},
        {"mapping-dir", SIM_OPT_STRING, &o.mapping_dir, "DIR",
         "mappings matched by GUID/name (default config/input)"},
        {"rate-hz", SIM_OPT_INT, &o.rate_hz, "HZ", "input.controls rate (default 250)"},
        {"scenario", SIM_OPT_STRING, &o.scenario, "FILE", "scenario whose ideal path the script follows"},
        {"start", SIM_OPT_STRING, &o.start, "NAME", "start point for the script (default the first)"},
        {"target-kmh", SIM_OPT_DOUBLE, &o.target_kmh, "KMH", "script speed (default the speed limits)"},
        {"replay", SIM_OPT_STRING, &o.replay, "FILE", "script: replay input.controls from NDJSON"},
        {"lockstep", SIM_OPT_FLAG, &o.lockstep, NULL, "answer every sim.tick (reproducible runs)"},
        {"calibrate", SIM_OPT_FLAG, &o.calibrate, NULL, "walk through the wheel set-up, write --mapping"},
        {"ffb-log", SIM_OPT_STRING, &o.ffb_log, "FILE",
         "write force-feedback effects and events as NDJSON (debugging, tests)"},
        {"virtual-test-script", SIM_OPT_STRING, &o.vtest, "FILE",
         "(tests) attach a virtual wheel and play FILE on it"},
        {"virtual-test-log", SIM_OPT_STRING, &o.vtest_log, "FILE",
         "(tests) write when each step of the script was applied (monotonic s, script time): simctl latency"},
    };
    static const char *const subs[] = {SIM_TOPIC_FFB_COMMAND, "control.", SIM_TOPIC_SIM_TICK, SIM_TOPIC_VEHICLE_STATE,
                                       SIM_TOPIC_TRAFFIC_STATE, SIM_TOPIC_SIGNAL_STATE, SIM_TOPIC_DISPATCHER_LEFT,
                                       SIM_TOPIC_DRT_STIMULUS,
                                       SIM_TOPIC_TRAFFIC_EVENT};
    const sim_node_desc desc = {
        .prog = "input-node", .usage = "input-node [options]",
        .about = "Publishes the driver's controls (wheel, keyboard or scripted driver) on the "
                 "bus and plays force feedback.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "input", .subscribe = subs, .n_subscribe = sizeof subs / sizeof *subs, .acts_on = ACTS_ON},
        .setup = setup, .start = start, .on_message = on_message, .on_bus = on_bus, .on_signal = on_signal,
        .on_stop = close_all, .teardown = teardown, .user = &n};
    return sim_node_run(&desc, argc, argv);
}
