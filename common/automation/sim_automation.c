/* sim_automation: modes, ACC, lane centring, override, TORs and the minimal-risk
 * manoeuvre (see sim_automation.h, docs/automation.md). */
#include "sim_automation.h"

#include <math.h>
#include <string.h>

#define ACC_COMFORT_DECEL 2.5 /* m/s^2: the ACC starts braking for a slower lead early
                                 enough to need no more than this */
#define STOPPED_HOLD_SPEED 0.3 /* m/s: the MRM counts as stopped below this */
#define MOVING_SPEED 5.0       /* m/s: a stopped car ahead is a limit only while we move */

static const char *const MODE_NAMES[] = {"manual", "acc", "lc", "l2", "l3"};
static const char *const EVENT_NAMES[] = {"engaged", "disengaged", "override", "refused",
                                          "tor", "handover", "mrm", "mrm_stopped"};
static const char *const TOR_NAMES[] = {"none", "pending", "mrm", "stopped"};

const char *sim_auto_mode_name(sim_auto_mode m)
{
    return m >= 0 && m < SIM_AUTO_MODE_COUNT ? MODE_NAMES[m] : "?";
}

int sim_auto_mode_parse(const char *name)
{
    for (int i = 0; i < SIM_AUTO_MODE_COUNT; i++)
        if (name && strcmp(name, MODE_NAMES[i]) == 0) return i;
    return -1;
}

bool sim_auto_mode_lateral(sim_auto_mode m)
{
    return m == SIM_AUTO_LC || m == SIM_AUTO_L2 || m == SIM_AUTO_L3;
}

bool sim_auto_mode_longitudinal(sim_auto_mode m)
{
    return m == SIM_AUTO_ACC || m == SIM_AUTO_L2 || m == SIM_AUTO_L3;
}

const char *sim_auto_event_name(sim_auto_event_kind k)
{
    return k >= 0 && k < SIM_AUTO_EV_COUNT ? EVENT_NAMES[k] : "?";
}

const char *sim_tor_state_name(sim_tor_state s)
{
    return s >= SIM_TOR_NONE && s <= SIM_TOR_STOPPED ? TOR_NAMES[s] : "?";
}

void sim_auto_params_default(sim_auto_params *p)
{
    sim_driver_params_default(&p->follow);
    p->follow.stop_decel = 2.0;
    p->follow.lookahead_time = 0.45; /* tighter than the scripted driver's 0.9 s: lane centring, not a human's corner cutting (docs/automation.md) */
    p->set_speed = 120 / 3.6;
    p->time_gap = 1.8;
    p->standstill_gap = 5.0;
    p->gap_tau = 3.0;
    p->override_steer_deg = 10.0;
    p->override_brake = 0.10;
    p->takeover_steer_deg = 2.0;
    p->takeover_brake = 0.10;
    p->tor_budget = 8.0;
    p->mrm_decel = 3.0;
    p->tor_ttc = 4.0;
    p->stopped_speed = 1.0;
    p->limit_time = 10.0;
    p->limit_min_m = 60.0;
    p->lateral_damping = 0.3;
    p->steer_hold = 0.2;
}

void sim_automation_init(sim_automation *a, const sim_auto_params *p, const sim_driver_path *path)
{
    memset(a, 0, sizeof *a);
    a->p = *p;
    a->have_path = path != NULL;
    sim_driver_init(&a->ctl, &p->follow, path, p->set_speed);
    a->set_speed = p->set_speed;
    a->time_gap = p->time_gap;
    a->steer_since = NAN;
}

/* A C string into dst (n bytes), cut to fit. */
static void copy_text(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    for (; src && src[k] && k + 1 < n; k++) dst[k] = src[k];
    dst[k] = '\0';
}

static void emit(sim_automation *a, sim_auto_event_kind k, double t, const char *reason, double value)
{
    if (a->n_events == SIM_AUTO_MAX_EVENTS) return; /* the caller reads them every step */
    sim_auto_event *e = &a->events[a->n_events++];
    *e = (sim_auto_event){.kind = k, .t = t, .mode = a->mode, .value = value};
    copy_text(e->reason, sizeof e->reason, reason);
}

static void clear_tor(sim_automation *a)
{
    a->tor = SIM_TOR_NONE;
    a->tor_reason[0] = '\0';
}

int sim_automation_engage(sim_automation *a, sim_auto_mode mode, double t, double speed,
                          const char *reason, sim_error *err)
{
    if (mode < SIM_AUTO_MANUAL || mode >= SIM_AUTO_MODE_COUNT)
        return sim_error_set(err, SIM_EINVAL, "automation: unknown mode %d", (int)mode);
    if (mode == SIM_AUTO_MANUAL) {
        bool was = a->mode != SIM_AUTO_MANUAL;
        a->mode = SIM_AUTO_MANUAL;
        clear_tor(a);
        if (was) emit(a, SIM_AUTO_EV_DISENGAGED, t, reason, 0);
        return SIM_OK;
    }
    if (!a->have_path) {
        emit(a, SIM_AUTO_EV_REFUSED, t, "no route", 0);
        return sim_error_set(err, SIM_EINVAL,
                             "automation: %s needs the scenario's route (input-node --scenario)",
                             sim_auto_mode_name(mode));
    }
    if (a->mode == SIM_AUTO_MANUAL) {
        /* Bumpless start: the PI controller's memory is the driver's, not ours. */
        a->ctl.integ = 0;
        a->ctl.started = false;
        if (speed > 1.0 && a->p.set_speed <= 0) a->set_speed = speed;
    }
    a->mode = mode;
    clear_tor(a);
    a->steer_since = NAN;
    a->limit_latched = a->ttc_latched = false;
    emit(a, SIM_AUTO_EV_ENGAGED, t, reason, 0);
    return SIM_OK;
}

bool sim_automation_request_tor(sim_automation *a, double t, const char *reason)
{
    if (a->mode == SIM_AUTO_MANUAL || a->tor != SIM_TOR_NONE) return false;
    a->tor = SIM_TOR_PENDING;
    a->tor_t = t;
    copy_text(a->tor_reason, sizeof a->tor_reason, reason);
    emit(a, SIM_AUTO_EV_TOR, t, a->tor_reason, 0);
    return true;
}

int sim_automation_set(sim_automation *a, double set_speed, double time_gap, sim_error *err)
{
    if (!(set_speed > 0 && set_speed < 70))
        return sim_error_set(err, SIM_EINVAL, "automation: set speed %g m/s, expected 0 < v < 70", set_speed);
    if (!(time_gap >= 0.8 && time_gap <= 3.0))
        return sim_error_set(err, SIM_EINVAL, "automation: time gap %g s, expected 0.8..3.0", time_gap);
    a->set_speed = set_speed;
    a->time_gap = time_gap;
    return SIM_OK;
}

double sim_automation_acc_target(const sim_automation *a, bool lead, double gap, double v_lead,
                                 double v)
{
    double target = a->set_speed;
    if (!lead) return target;
    double follow = sim_follow_gap_speed(gap, v_lead, v, a->p.standstill_gap, a->time_gap, a->p.gap_tau);
    /* A much slower lead far ahead: the gap law alone would brake late and hard; the
     * speed from which ACC_COMFORT_DECEL just reaches v_lead at the standstill gap
     * starts earlier. */
    double room = fmax(0.0, gap - a->p.standstill_gap - v_lead * a->time_gap);
    double envelope = sqrt(v_lead * v_lead + 2.0 * ACC_COMFORT_DECEL * room);
    return fmax(0.0, fmin(target, fmin(follow, envelope)));
}

/* The driver acting against an engaged automation: a conscious take-over action while
 * a TOR is out, an override otherwise. True when control went back. */
static bool driver_takes_over(sim_automation *a, const sim_auto_input *in)
{
    double steer = fabs(in->driver_steer_deg), brake = in->driver_brake;
    double t = in->obs.t;
    if (!isfinite(steer)) steer = 0;
    if (!isfinite(brake)) brake = 0;
    bool tor = a->tor != SIM_TOR_NONE;
    /* Steering counts once it has stayed beyond the threshold for steer_hold (a wheel
     * that the force feedback turns after the automation lags it for a moment), from
     * when it went beyond; the brake at once. */
    double limit = tor ? a->p.takeover_steer_deg : sim_auto_mode_lateral(a->mode) ? a->p.override_steer_deg : INFINITY;
    if (steer > limit) {
        if (isnan(a->steer_since)) a->steer_since = t;
    } else {
        a->steer_since = NAN;
    }
    bool s = !isnan(a->steer_since) && t - a->steer_since >= a->p.steer_hold - 1e-9;
    bool b = brake > (tor ? a->p.takeover_brake : a->p.override_brake);
    if (!s && !b) return false;
    double at = b || isnan(a->steer_since) ? t : a->steer_since;
    double tt = at - a->tor_t;
    a->mode = SIM_AUTO_MANUAL;
    a->steer_since = NAN;
    if (tor) {
        clear_tor(a);
        emit(a, SIM_AUTO_EV_HANDOVER, at, b ? "brake" : "steer", tt);
    } else {
        emit(a, SIM_AUTO_EV_OVERRIDE, at, b ? "brake" : "steer", 0);
    }
    return true;
}

/* System limits and TTC: a TOR when one comes closer than the look-ahead. Each issues
 * one TOR until it is gone (latched). */
static void check_limits(sim_automation *a, const sim_auto_input *in)
{
    double v = fmax(0.0, in->obs.speed), t = in->obs.t;
    double range = fmax(a->p.limit_min_m, v * a->p.limit_time);
    bool markings = sim_auto_mode_lateral(a->mode) && in->markings_ahead_m < range;
    bool stopped = in->lead_valid && in->lead_speed < a->p.stopped_speed && in->lead_gap < range &&
                   v > MOVING_SPEED;
    double closing = v - (in->lead_valid ? in->lead_speed : v);
    bool ttc = a->p.tor_ttc > 0 && in->lead_valid && closing > 0 && in->lead_gap / closing < a->p.tor_ttc;
    if (!markings && !stopped) a->limit_latched = false;
    if (!ttc) a->ttc_latched = false;
    if (a->tor != SIM_TOR_NONE) return;
    if ((markings || stopped) && !a->limit_latched) {
        a->limit_latched = true;
        sim_automation_request_tor(a, t, markings ? "end_of_markings" : "stopped_vehicle");
    } else if (ttc && !a->ttc_latched) {
        a->ttc_latched = true;
        sim_automation_request_tor(a, t, "ttc");
    }
}

/* Pure pursuit alone steers a car whose yaw lags into a weakly damped weave (about 50 %
 * overshoot after a 0.5 m offset on the vehicle model); a term against the rate at
 * which the car moves across its lane, -k de/dt / v (Stanley-like heading damping),
 * settles it. */
static void damp_steering(sim_automation *a, const sim_driver_obs *o, sim_follow_out *f)
{
    double e;
    sim_driver_path_project(a->ctl.path, o->x, o->y, &a->damp_hint, &e);
    double dt = o->t - a->damp_t, v = fmax(fabs(o->speed), 5.0);
    if (a->damp_valid && dt > 0 && dt < 0.5) {
        double rate = (e - a->damp_e) / dt;
        double delta = -a->p.lateral_damping * rate / v; /* road-wheel angle, rad */
        double half = 0.5 * a->ctl.p.steering_range_deg;
        f->steer_deg = fmax(-half, fmin(half, f->steer_deg + delta * 180.0 / M_PI * a->ctl.p.steering_ratio));
        f->steer = f->steer_deg / half;
    }
    a->damp_e = e, a->damp_t = o->t, a->damp_valid = true;
}

void sim_automation_step(sim_automation *a, const sim_auto_input *in, sim_auto_output *out)
{
    memset(out, 0, sizeof *out);
    const sim_driver_obs *o = &in->obs;
    a->t = o->t;
    if (!a->have_path) return;
    if (a->mode == SIM_AUTO_MANUAL) {
        a->damp_valid = false;
        /* Keep track of where the car is on the route (ctl.s), so that a system limit
         * at engagement is judged from where the car is, not where it was. */
        if (isfinite(o->x) && isfinite(o->y) && isfinite(o->heading)) sim_follow_pursuit(&a->ctl, o);
        a->last_steer_deg = 0;
        return;
    }
    if (driver_takes_over(a, in)) return;
    check_limits(a, in);
    if (a->tor == SIM_TOR_PENDING && o->t - a->tor_t >= a->p.tor_budget) {
        a->tor = SIM_TOR_MRM;
        a->mrm_speed = fmax(0.0, o->speed);
        emit(a, SIM_AUTO_EV_MRM, o->t, a->tor_reason, 0);
    }
    bool mrm = a->tor == SIM_TOR_MRM || a->tor == SIM_TOR_STOPPED;
    double target = sim_automation_acc_target(a, in->lead_valid, in->lead_gap, in->lead_speed, o->speed);
    /* Steering along the route, it also keeps to the route's limits and slows for its
     * curves (ACC alone holds the driver's set speed). */
    if (sim_auto_mode_lateral(a->mode) && in->route_limit > 0) target = fmin(target, in->route_limit);
    if (mrm) {
        /* The MRM's speed falls at mrm_decel from the speed the car had; never faster
         * than the ACC would drive (a stopped car ahead ends the manoeuvre early). */
        double dt = a->ctl.started ? o->t - a->ctl.last_t : 0.0;
        a->mrm_speed = fmax(0.0, a->mrm_speed - a->p.mrm_decel * fmax(0.0, dt));
        target = fmin(target, a->mrm_speed);
    }
    a->ctl.target_speed = target;
    sim_follow_out f;
    sim_follow_step(&a->ctl, o, &f);
    damp_steering(a, o, &f);
    if (mrm && target <= 0.0 && fabs(o->speed) < STOPPED_HOLD_SPEED) {
        f.throttle = 0;
        f.brake = 1;
        if (a->tor == SIM_TOR_MRM) {
            a->tor = SIM_TOR_STOPPED;
            emit(a, SIM_AUTO_EV_MRM_STOPPED, o->t, a->tor_reason, 0);
        }
    }
    bool lat = sim_auto_mode_lateral(a->mode) || mrm;
    bool lon = sim_auto_mode_longitudinal(a->mode) || mrm;
    out->lateral = lat;
    out->longitudinal = lon;
    out->steer_deg = f.steer_deg;
    out->steer = f.steer;
    out->throttle = f.throttle;
    out->brake = f.brake;
    out->gear = f.gear;
    out->has_gear = f.has_gear && lon;
    a->last_steer_deg = lat ? f.steer_deg : 0;
}
