/* automation: the automation in input-node, its bus messages, cues and the scripted
 * driver's take-over (see automation.h). */
#include "automation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"
#include "sim_msg_automation.h"
#include "sim_msg_hud.h"
#include "sim_road.h"
#include "sim_scenario.h"

#define VIBRATE_S 1.5      /* s of wheel rumble for a TOR's cue */
#define VIBRATE_AMP 0.6    /* its amplitude (ffb.command rumble) */
#define VIBRATE_HZ 30.0
#define FOLLOW_GAIN 4.0    /* wheel torque (of the limit) per rad the wheel is off the automation's angle */
#define FOLLOW_DAMPER 0.3  /* damper while the wheel follows */
#define SET_STEP_KMH 10.0  /* acc_faster / acc_slower */

static const double GAPS[] = {1.0, 1.4, 1.8, 2.2}; /* acc_gap cycles through these (s) */

/* ---- route and markings ----------------------------------------------------------- */

/* For each path point, the arc length of the first point from it on where the lane
 * the route drives in has no marking on either border (or the route is off the road):
 * where lane centring can no longer see its lane. */
static int find_markings(in_auto *x, const sim_scenario *sc, sim_error *err)
{
    const sim_driver_path *p = &x->path;
    x->unmarked_s = malloc(p->n * sizeof *x->unmarked_s);
    if (!x->unmarked_s) return sim_error_set(err, SIM_ENOMEM, "automation: out of memory");
    double next = INFINITY;
    for (size_t k = p->n; k-- > 0;) {
        size_t j = k + 1 < p->n ? k + 1 : k, i = j - 1;
        sim_locate_query q = {.x = p->x[k], .y = p->y[k], .z = NAN, .drivable_only = true,
                              .heading = atan2(p->y[j] - p->y[i], p->x[j] - p->x[i])};
        sim_road_loc loc;
        bool marked = sim_roadnet_locate_query(&sc->net, &q, &loc) == SIM_OK && loc.on_road &&
                      (loc.lane.left_mark != SIM_MARK_NONE || loc.lane.right_mark != SIM_MARK_NONE);
        if (!marked) next = p->s[k];
        x->unmarked_s[k] = next;
    }
    return SIM_OK;
}

static int load_route(in_auto *x, const char *scenario, const char *start, sim_error *err)
{
    sim_scenario *sc = NULL;
    double *limits = NULL;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    if ((rc = in_route_build(scenario, start, &x->path, &limits, err)) == SIM_OK) {
        x->limit = limits;
        rc = find_markings(x, sc, err);
    }
    if (sc->automation) x->cfg = *sc->automation;
    else sim_auto_config_default(&x->cfg);
    sim_scenario_free(sc);
    return rc;
}

int in_auto_open(in_auto *x, const char *scenario, const char *start, bool scripted, sim_error *err)
{
    memset(x, 0, sizeof *x);
    x->scripted = scripted;
    x->scenario = scenario;
    int rc = load_route(x, scenario, start, err);
    if (rc) {
        in_auto_close(x);
        return rc;
    }
    sim_automation_init(&x->a, &x->cfg.params, &x->path);
    x->last_t = NAN;
    x->react_at = INFINITY;
    x->brake_until = -INFINITY;
    x->vibrate_until = -INFINITY;
    return SIM_OK;
}

void in_auto_close(in_auto *x)
{
    if (x->path.n) sim_driver_path_free(&x->path);
    free(x->unmarked_s);
    free(x->limit);
    x->unmarked_s = NULL;
    x->limit = NULL;
}

int in_auto_restart(in_auto *x, const char *at, sim_error *err)
{
    in_auto keep = *x;
    memset(&x->path, 0, sizeof x->path);
    x->unmarked_s = NULL;
    x->limit = NULL;
    int rc = load_route(x, x->scenario, at, err);
    if (rc) {
        in_auto_close(x);
        *x = keep;
        return rc;
    }
    in_auto_close(&keep);
    bool scripted = x->scripted, mapped = x->hands_on_mapped;
    const char *scenario = x->scenario;
    sim_auto_config cfg = x->cfg;
    sim_driver_path path = x->path;
    double *unmarked = x->unmarked_s, *limit = x->limit;
    memset(x, 0, sizeof *x);
    x->cfg = cfg, x->path = path, x->unmarked_s = unmarked, x->limit = limit;
    x->scripted = scripted, x->hands_on_mapped = mapped, x->scenario = scenario;
    sim_automation_init(&x->a, &x->cfg.params, &x->path);
    x->last_t = NAN;
    x->react_at = INFINITY;
    x->brake_until = x->vibrate_until = -INFINITY;
    return SIM_OK;
}

/* ---- messages --------------------------------------------------------------------- */

static void hud(sim_bus *bus, double t, sim_hud_area area, const char *text, const double *rgb, double ttl)
{
    sim_msg_hud_text m = {.area = area, .ttl_s = ttl, .has_color = rgb != NULL};
    snprintf(m.text, sizeof m.text, "%s", text);
    if (rgb) memcpy(m.color, rgb, sizeof m.color);
    cJSON *o = sim_msg_hud_text_encode(&m);
    if (o) sim_bus_publish(bus, SIM_TOPIC_HUD_TEXT, t, o);
    cJSON_Delete(o);
}

static void publish_event(sim_bus *bus, double t, const char *event, const char *mode, const char *reason,
                          double takeover_s, const char *cues)
{
    sim_msg_automation_event m = {.takeover_s = takeover_s};
    snprintf(m.event, sizeof m.event, "%s", event);
    snprintf(m.mode, sizeof m.mode, "%s", mode);
    snprintf(m.reason, sizeof m.reason, "%s", reason ? reason : "");
    snprintf(m.cues, sizeof m.cues, "%s", cues ? cues : "");
    cJSON *o = sim_msg_automation_event_encode(&m);
    if (o) sim_bus_publish(bus, SIM_TOPIC_AUTOMATION_EVENT, t, o);
    cJSON_Delete(o);
}

/* The HUD's mode line (area "left"), published when it changes. */
static void show_mode(in_auto *x, sim_bus *bus, double t)
{
    char line[64] = "";
    const sim_automation *a = &x->a;
    if (a->mode != SIM_AUTO_MANUAL) {
        char mode[8];
        snprintf(mode, sizeof mode, "%s", sim_auto_mode_name(a->mode));
        for (char *p = mode; *p; p++) *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        if (sim_auto_mode_longitudinal(a->mode))
            snprintf(line, sizeof line, "[%s] %.0f km/h  %.1f s", mode, a->set_speed * 3.6, a->time_gap);
        else
            snprintf(line, sizeof line, "[%s]", mode);
    }
    if (strcmp(line, x->shown_mode) == 0) return;
    snprintf(x->shown_mode, sizeof x->shown_mode, "%s", line);
    static const double green[3] = {0.3, 0.9, 0.4};
    hud(bus, t, SIM_HUD_LEFT, line, green, 0);
}

static void cue_names(unsigned cues, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s%s", cues & SIM_AUTO_CUE_HUD ? "hud" : "",
             (cues & SIM_AUTO_CUE_HUD) && (cues & 6) ? "," : "", cues & SIM_AUTO_CUE_CHIME ? "chime" : "",
             (cues & SIM_AUTO_CUE_CHIME) && (cues & 4) ? "," : "", cues & SIM_AUTO_CUE_VIBRATION ? "vibration" : "");
}

/* Publishes the automation's events since the last call, with their cues, and draws
 * the scripted driver's reaction time for a TOR. */
static void flush_events(in_auto *x, sim_bus *bus)
{
    static const double red[3] = {1.0, 0.25, 0.2}, amber[3] = {1.0, 0.7, 0.1};
    sim_automation *a = &x->a;
    for (int i = 0; i < a->n_events; i++) {
        const sim_auto_event *e = &a->events[i];
        const char *mode = sim_auto_mode_name(e->mode);
        publish_event(bus, e->t, sim_auto_event_name(e->kind), mode, e->reason,
                      e->kind == SIM_AUTO_EV_HANDOVER ? e->value : NAN, NULL);
        switch (e->kind) {
        case SIM_AUTO_EV_TOR: {
            char cues[40];
            cue_names(x->cfg.cues, cues, sizeof cues);
            publish_event(bus, e->t, "cue", mode, e->reason, NAN, cues);
            if (x->cfg.cues & SIM_AUTO_CUE_HUD) hud(bus, e->t, SIM_HUD_CENTER, "TAKE OVER", red, 0);
            if (x->cfg.cues & SIM_AUTO_CUE_VIBRATION) x->vibrate_until = e->t + VIBRATE_S;
            if (x->scripted) x->react_at = e->t + sim_reaction_draw(&x->cfg.reaction);
            break;
        }
        case SIM_AUTO_EV_MRM: hud(bus, e->t, SIM_HUD_CENTER, "STOPPING - TAKE OVER", red, 0); break;
        case SIM_AUTO_EV_MRM_STOPPED: hud(bus, e->t, SIM_HUD_CENTER, "STOPPED - TAKE OVER", amber, 0); break;
        case SIM_AUTO_EV_HANDOVER:
        case SIM_AUTO_EV_ENGAGED:
        case SIM_AUTO_EV_DISENGAGED:
        case SIM_AUTO_EV_OVERRIDE:
            hud(bus, e->t, SIM_HUD_CENTER, "", NULL, 0);
            x->vibrate_until = -INFINITY;
            break;
        default: break;
        }
    }
    a->n_events = 0;
    show_mode(x, bus, a->t);
}

static void publish_state(in_auto *x, sim_bus *bus, double t, const sim_auto_input *in)
{
    const sim_automation *a = &x->a;
    sim_msg_automation_state m = {
        .set_speed = a->set_speed, .time_gap = a->time_gap, .lateral = x->out.lateral,
        .longitudinal = x->out.longitudinal, .steer_deg = x->out.lateral ? x->out.steer_deg : 0,
        .driver_steer_deg = in->driver_steer_deg, .driver_brake = in->driver_brake,
        .hands_on = x->hands_on_mapped ? x->hands_on : -1,
    };
    snprintf(m.mode, sizeof m.mode, "%s", sim_auto_mode_name(a->mode));
    snprintf(m.tor, sizeof m.tor, "%s", sim_tor_state_name(a->tor));
    cJSON *o = sim_msg_automation_state_encode(&m);
    if (o) sim_bus_publish(bus, SIM_TOPIC_AUTOMATION_STATE, t, o);
    cJSON_Delete(o);
}

/* ---- engaging ----------------------------------------------------------------------- */

static bool engage(in_auto *x, sim_bus *bus, double t, double speed, sim_auto_mode mode, const char *who,
                   sim_error *err)
{
    int rc = sim_automation_engage(&x->a, mode, t, speed, who, err);
    x->react_at = INFINITY;
    flush_events(x, bus);
    return rc == SIM_OK;
}

void in_auto_set_lead(in_auto *x, bool valid, double gap, double speed)
{
    x->lead_valid = valid && isfinite(gap) && isfinite(speed);
    x->lead_gap = gap;
    x->lead_speed = speed;
}

void in_auto_button(in_auto *x, sim_bus *bus, double t, double speed, sim_button_role role, bool pressed)
{
    if (role == SIM_BUTTON_HANDS_ON) {
        x->hands_on_mapped = true;
        x->hands_on = pressed;
        return;
    }
    if (!pressed) return;
    sim_automation *a = &x->a;
    sim_error err = {0};
    sim_auto_mode want;
    switch (role) {
    case SIM_BUTTON_AUTO_ACC: want = SIM_AUTO_ACC; break;
    case SIM_BUTTON_AUTO_L2: want = SIM_AUTO_L2; break;
    case SIM_BUTTON_AUTO_L3: want = SIM_AUTO_L3; break;
    case SIM_BUTTON_AUTO_OFF: want = SIM_AUTO_MANUAL; break;
    case SIM_BUTTON_ACC_FASTER:
    case SIM_BUTTON_ACC_SLOWER: {
        double v = a->set_speed + (role == SIM_BUTTON_ACC_FASTER ? 1 : -1) * SET_STEP_KMH / 3.6;
        if (sim_automation_set(a, v, a->time_gap, &err) == SIM_OK) show_mode(x, bus, t);
        return;
    }
    case SIM_BUTTON_ACC_GAP: {
        size_t k = 0;
        while (k < sizeof GAPS / sizeof *GAPS && GAPS[k] <= a->time_gap + 1e-9) k++;
        sim_automation_set(a, a->set_speed, GAPS[k % (sizeof GAPS / sizeof *GAPS)], &err);
        show_mode(x, bus, t);
        return;
    }
    default: return;
    }
    /* The mode's own button again leaves it, as a production system's switch does. */
    if (want == a->mode) want = SIM_AUTO_MANUAL;
    engage(x, bus, t, speed, want, "button", &err);
}

bool in_auto_command(in_auto *x, sim_bus *bus, double t, double speed, const cJSON *msg, sim_error *err)
{
    sim_automation *a = &x->a;
    const cJSON *kmh = cJSON_GetObjectItemCaseSensitive(msg, "set_kmh");
    const cJSON *gap = cJSON_GetObjectItemCaseSensitive(msg, "gap_s");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(msg, "mode");
    const cJSON *tor = cJSON_GetObjectItemCaseSensitive(msg, "tor");
    /* The command was validated (sim_command): the fields here are the right kind. */
    if ((kmh || gap) && sim_automation_set(a, kmh ? kmh->valuedouble / 3.6 : a->set_speed,
                                           gap ? gap->valuedouble : a->time_gap, err))
        return false;
    if (mode && !engage(x, bus, t, speed, (sim_auto_mode)sim_auto_mode_parse(mode->valuestring), "operator", err))
        return false;
    if (tor) {
        if (!sim_automation_request_tor(a, t, tor->valuestring)) {
            sim_error_set(err, SIM_EINVAL, "automation: no TOR in %s mode%s", sim_auto_mode_name(a->mode),
                          a->tor != SIM_TOR_NONE ? " (one is out)" : "");
            return false;
        }
        flush_events(x, bus);
    }
    show_mode(x, bus, t);
    return true;
}

static void run_event(in_auto *x, sim_bus *bus, double t, double speed, sim_auto_trigger *ev)
{
    sim_error err = {0};
    ev->fired = true;
    if (ev->action == SIM_AUTO_ACT_ENGAGE) engage(x, bus, t, speed, ev->mode, "scenario", &err);
    else if (ev->action == SIM_AUTO_ACT_DISENGAGE) engage(x, bus, t, speed, SIM_AUTO_MANUAL, "scenario", &err);
    else if (sim_automation_request_tor(&x->a, t, ev->reason)) flush_events(x, bus);
    if (err.msg[0]) fprintf(stderr, "input-node: scenario automation event: %s\n", err.msg);
}

void in_auto_trigger(in_auto *x, sim_bus *bus, double t, double speed, const char *trigger)
{
    for (int i = 0; i < x->cfg.n_events; i++) {
        sim_auto_trigger *ev = &x->cfg.events[i];
        if (!ev->fired && ev->trigger[0] && strcmp(ev->trigger, trigger) == 0) run_event(x, bus, t, speed, ev);
    }
}

/* ---- driving ------------------------------------------------------------------------ */

/* What the driver does, as the automation sees it: the scripted driver is hands and
 * feet off while the automation holds a channel, until it reacts to a TOR; then it
 * brakes for the configured time (its take-over action) and drives on its path. */
static void driver_inputs(in_auto *x, double t, bool engaged, sim_controls *c)
{
    if (!x->scripted) return;
    bool acting = !engaged || t >= x->react_at - 1e-9;
    if (engaged && acting && !(t < x->brake_until)) x->brake_until = x->react_at + x->cfg.driver_brake_s;
    if (!acting) {
        if (x->out.lateral) c->steer = c->steer_deg = 0;
        if (x->out.longitudinal) c->throttle = c->brake = 0;
        return;
    }
    if (t < x->brake_until) {
        c->throttle = 0;
        c->brake = fmax(c->brake, x->cfg.driver_brake);
    }
}

static void step(in_auto *x, sim_bus *bus, const sim_driver_obs *obs, bool wheel_follows, sim_controls *c)
{
    sim_automation *a = &x->a;
    if (!x->started) {
        sim_error err = {0};
        x->started = true;
        if (x->cfg.start_mode != SIM_AUTO_MANUAL &&
            !engage(x, bus, obs->t, obs->speed, x->cfg.start_mode, "scenario", &err))
            fprintf(stderr, "input-node: %s\n", err.msg);
    }
    bool engaged;
    for (int i = 0; i < x->cfg.n_events; i++) {
        sim_auto_trigger *ev = &x->cfg.events[i];
        if (!ev->fired && !isnan(ev->at_t) && obs->t >= ev->at_t - 1e-9) run_event(x, bus, obs->t, obs->speed, ev);
    }
    engaged = a->mode != SIM_AUTO_MANUAL;
    driver_inputs(x, obs->t, engaged, c);
    sim_auto_input in = {.obs = *obs, .lead_valid = x->lead_valid, .lead_gap = x->lead_gap,
                         .lead_speed = x->lead_speed, .driver_brake = c->brake, .driver_throttle = c->throttle};
    /* The driver's steering against the automation: a wheel the force feedback turns
     * with it (or the scripted driver, who follows the same route) counts by its
     * difference; a keyboard by its own angle. */
    bool relative = (wheel_follows || x->scripted) && x->out.lateral;
    in.driver_steer_deg = relative ? c->steer_deg - a->last_steer_deg : c->steer_deg;
    if (engaged && x->scripted && !(obs->t >= x->react_at - 1e-9)) in.driver_steer_deg = 0;
    size_t seg = sim_driver_path_segment(&x->path, a->ctl.s);
    in.markings_ahead_m = x->unmarked_s[seg] - a->ctl.s;
    in.route_limit = x->limit[seg];
    sim_automation_step(a, &in, &x->out);
    if (a->mode == SIM_AUTO_MANUAL) x->react_at = INFINITY;
    x->last_t = obs->t;
    flush_events(x, bus);
    publish_state(x, bus, obs->t, &in);
}

void in_auto_drive(in_auto *x, sim_bus *bus, const sim_driver_obs *obs, bool wheel_follows, sim_controls *c)
{
    x->wheel_deg = c->steer_deg;
    if (obs && (isnan(x->last_t) || obs->t > x->last_t)) {
        step(x, bus, obs, wheel_follows, c);
    } else {
        driver_inputs(x, x->last_t, x->a.mode != SIM_AUTO_MANUAL, c);
    }
    const sim_auto_output *o = &x->out;
    if (o->lateral) {
        c->steer = o->steer;
        c->steer_deg = o->steer_deg;
    }
    if (o->longitudinal) {
        /* The driver's throttle above the automation's wins while pressed (not
         * disengaging); its brake disengaged it already. */
        c->throttle = fmax(c->throttle, o->throttle);
        c->brake = o->brake;
        if (o->has_gear) {
            c->gear = o->gear;
            c->has_gear = true;
        }
    }
}

void in_auto_ffb(const in_auto *x, double now_t, sim_ffb_command *cmd)
{
    if (x->out.lateral && isfinite(x->wheel_deg)) {
        double err = (x->out.steer_deg - x->wheel_deg) * M_PI / 180.0;
        cmd->torque = fmax(-1.0, fmin(1.0, FOLLOW_GAIN * err));
        cmd->damper = fmax(cmd->damper, FOLLOW_DAMPER);
    }
    if (now_t < x->vibrate_until) {
        cmd->rumble = fmax(cmd->rumble, VIBRATE_AMP);
        cmd->rumble_hz = VIBRATE_HZ;
    }
}
