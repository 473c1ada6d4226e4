/* sim_automation: the ego car's driving automation and its take-over requests.
 *
 * Modes: manual; ACC (set speed, and a time gap to the lead vehicle); lane centring
 * (LC: the path follower's steering along the route); L2 (both); L3 (both, and the
 * driver need not supervise: the system asks for the wheel back with a take-over
 * request, TOR). Built on the scripted driver's controllers (sim_follow.h: pure pursuit
 * and PI speed control, shifting) fed with traffic.state's lead vehicle.
 *
 * Each step takes the car's state, what the system perceives (lead vehicle, lane
 * markings ahead) and the driver's inputs, and gives the automation's controls with the
 * channels it holds, plus the events of the step (engaged, override, TOR, hand-over,
 * minimal-risk manoeuvre...). Driver override: while engaged, steering against the
 * automation beyond override_steer_deg (for steer_hold), or braking beyond
 * override_brake, hands control
 * back (the driver's throttle above the automation's wins while pressed, without
 * disengaging, as production ACC does). A TOR (scenario, operator, system limit or TTC)
 * starts a time budget: the first conscious action (steering beyond takeover_steer_deg
 * or braking beyond takeover_brake: Gold et al. 2013) hands over; when the budget runs
 * out the automation brakes to a stop in its lane (the minimal-risk manoeuvre, MRM) and
 * holds the car until the driver acts.
 *
 * Pure: no I/O, no globals. The caller owns the struct; the path is borrowed and must
 * outlive it. docs/automation.md. */
#ifndef SIM_AUTOMATION_H
#define SIM_AUTOMATION_H

#include <stdbool.h>

#include "sim_error.h"
#include "sim_follow.h"

typedef enum {
    SIM_AUTO_MANUAL,
    SIM_AUTO_ACC,
    SIM_AUTO_LC,
    SIM_AUTO_L2,
    SIM_AUTO_L3,
    SIM_AUTO_MODE_COUNT
} sim_auto_mode;

/* "manual", "acc", "lc", "l2", "l3"; parse returns -1 for an unknown name. */
const char *sim_auto_mode_name(sim_auto_mode m);
int sim_auto_mode_parse(const char *name);
/* The mode steers (LC, L2, L3) / holds speed and gap (ACC, L2, L3). */
bool sim_auto_mode_lateral(sim_auto_mode m);
bool sim_auto_mode_longitudinal(sim_auto_mode m);

typedef enum {
    SIM_TOR_NONE,     /* no request */
    SIM_TOR_PENDING,  /* issued, within its budget, the automation still drives */
    SIM_TOR_MRM,      /* budget spent: braking to a stop in lane */
    SIM_TOR_STOPPED,  /* the MRM reached standstill; holding the car */
} sim_tor_state;

const char *sim_tor_state_name(sim_tor_state s);

typedef struct sim_auto_params {
    sim_driver_params follow;  /* the path follower's (sim_driver_params_default) */
    double set_speed;          /* m/s, the ACC's speed at engagement (default 120 km/h) */
    double time_gap;           /* s, ACC's time gap to the lead (default 1.8) */
    double standstill_gap;     /* m kept to a stopped lead (default 5) */
    double gap_tau;            /* s over which a gap error is closed (default 3) */
    double override_steer_deg; /* steering against the automation that disengages it (10) */
    double override_brake;     /* brake pedal that disengages it (0.10) */
    double takeover_steer_deg; /* conscious take-over action after a TOR: steering (2) */
    double takeover_brake;     /* ... or braking (0.10) */
    double steer_hold;         /* s the steering must stay beyond its threshold (0.2);
                                  the event's time is when it went beyond */
    double tor_budget;         /* s from a TOR to the MRM (default 8) */
    double mrm_decel;          /* m/s^2 of the MRM (default 3) */
    double tor_ttc;            /* s: TTC to the lead below this issues a TOR (4; 0: off) */
    double stopped_speed;      /* m/s: a lead slower than this is a stopped car (1) */
    double limit_time;         /* s: a system limit closer than speed * this (at least
                                  limit_min_m) issues a TOR (default 10) */
    double limit_min_m;        /* m (default 60) */
    double lateral_damping;    /* steering against the lateral error's rate (0.3; 0: pure
                                  pursuit alone) */
} sim_auto_params;

void sim_auto_params_default(sim_auto_params *p);

/* What one step sees. */
typedef struct sim_auto_input {
    sim_driver_obs obs;        /* the car (vehicle.state) */
    bool lead_valid;           /* traffic.state's lead vehicle */
    double lead_gap;           /* m, bumper to bumper */
    double lead_speed;         /* m/s */
    double route_limit;        /* m/s the route allows here (speed limit, lowered for
                                  curves); the lateral modes keep to it; 0: none */
    double markings_ahead_m;   /* m along the route to where lane markings end;
                                  INFINITY: marked as far as known */
    double driver_steer_deg;   /* the driver's steering against the automation: with a
                                  wheel that follows it, the wheel's angle minus the
                                  automation's; otherwise the driver's own angle */
    double driver_brake;       /* 0..1 */
    double driver_throttle;    /* 0..1 */
} sim_auto_input;

/* The automation's controls; lateral/longitudinal say which it holds (the driver's
 * own inputs go through on the others). */
typedef struct sim_auto_output {
    bool lateral, longitudinal;
    double steer_deg, steer;   /* as sim_follow_out */
    double throttle, brake;
    int gear;
    bool has_gear;
} sim_auto_output;

typedef enum {
    SIM_AUTO_EV_ENGAGED,       /* mode: the new mode; reason: who */
    SIM_AUTO_EV_DISENGAGED,    /* reason: who or why */
    SIM_AUTO_EV_OVERRIDE,      /* the driver took over without a TOR; reason steer/brake */
    SIM_AUTO_EV_REFUSED,       /* an engagement the system could not make; reason */
    SIM_AUTO_EV_TOR,           /* a TOR issued; reason */
    SIM_AUTO_EV_HANDOVER,      /* the driver took over after a TOR; value: take-over time */
    SIM_AUTO_EV_MRM,           /* the budget ran out: the MRM starts */
    SIM_AUTO_EV_MRM_STOPPED,   /* the MRM reached standstill */
    SIM_AUTO_EV_COUNT
} sim_auto_event_kind;

/* "engaged", "disengaged", "override", "refused", "tor", "handover", "mrm", "mrm_stopped". */
const char *sim_auto_event_name(sim_auto_event_kind k);

typedef struct sim_auto_event {
    sim_auto_event_kind kind;
    double t;
    sim_auto_mode mode;        /* the mode after the event */
    char reason[48];
    double value;              /* handover: s since the TOR; otherwise 0 */
} sim_auto_event;

#define SIM_AUTO_MAX_EVENTS 8

typedef struct sim_automation {
    sim_auto_params p;
    sim_driver ctl;            /* the path follower (its path may be NULL: no LC) */
    bool have_path;
    sim_auto_mode mode;
    double set_speed, time_gap;
    double t;                  /* latest step's time */
    sim_tor_state tor;
    double tor_t;              /* when the pending TOR was issued */
    char tor_reason[48];
    double mrm_speed;          /* m/s the MRM's speed profile has reached */
    double steer_since;        /* since when the driver steers beyond the threshold; NAN */
    bool limit_latched;        /* a system limit's TOR was issued; cleared once it is gone */
    bool ttc_latched;
    double last_steer_deg;     /* the automation's latest steering (for the wheel) */
    size_t damp_hint;          /* the lateral damping's error and its time */
    double damp_e, damp_t;
    bool damp_valid;
    sim_auto_event events[SIM_AUTO_MAX_EVENTS]; /* this step's and calls' since */
    int n_events;
} sim_automation;

/* path may be NULL: lane centring (and the modes with it) is then refused. */
void sim_automation_init(sim_automation *a, const sim_auto_params *p, const sim_driver_path *path);

/* Engages mode (MANUAL disengages) at time t; reason names who ("button",
 * "operator", "scenario"). A lateral mode without a path is refused (SIM_EINVAL, an
 * event "refused" and err says why); engaging clears a TOR. The ACC's set speed starts
 * at the current speed when set_speed is 0 (as with a production ACC's SET), else
 * stays. */
int sim_automation_engage(sim_automation *a, sim_auto_mode mode, double t, double speed,
                          const char *reason, sim_error *err);
/* Issues a TOR (scenario, operator); ignored (false) when manual or one is pending. */
bool sim_automation_request_tor(sim_automation *a, double t, const char *reason);
/* Set speed (m/s, > 0) and time gap (s, 0.8..3.0, ISO 15622's range widened);
 * SIM_EINVAL otherwise. */
int sim_automation_set(sim_automation *a, double set_speed, double time_gap, sim_error *err);

/* One step: the automation's controls for in. Events go to a->events (the caller
 * clears n_events after reading them). */
void sim_automation_step(sim_automation *a, const sim_auto_input *in, sim_auto_output *out);

/* The ACC's target speed for a lead at gap (m) with speed v_lead behind which the car
 * drives at v: v_lead + (gap - standstill - time_gap v) / gap_tau, capped by set_speed,
 * not below 0; set_speed when there is no lead. */
double sim_automation_acc_target(const sim_automation *a, bool lead, double gap, double v_lead,
                                 double v);

#endif
