/* automation: the ego car's driving automation inside input-node (docs/automation.md).
 *
 * Runs the pure sim_automation on the scenario's route (the scripted driver's path,
 * route.c) with traffic.state's lead vehicle and the lane markings along the route,
 * blends its controls with the driver's, and says so on the bus: automation.state with
 * every step, automation.event on every change, hud.text for the mode and the TOR cue,
 * a rumble on the wheel for the cue and a position spring that makes the wheel follow
 * the automation's steering while it steers. Engaged by buttons (auto_* roles, keys
 * 1/2/3/0), control.automation, and the scenario's automation events (time or traffic
 * trigger). With the scripted driver, the driver is hands off while the automation
 * drives and reacts to a TOR after a reaction time drawn from the scenario's seeded
 * distribution (sim_automation_config.h). Why inside input-node: the automation's
 * controls replace the driver's in input.controls and the wheel must follow them; a
 * module of its own would need a second controls topic and the lockstep answer of two
 * modules for one tick. The node owns the struct. */
#ifndef INPUT_NODE_AUTOMATION_H
#define INPUT_NODE_AUTOMATION_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_automation_config.h"
#include "sim_bus.h"
#include "sim_controls.h"
#include "sim_ffb.h"
#include "sim_input_map.h"

typedef struct in_auto {
    const char *scenario;   /* borrowed (argv) */
    sim_auto_config cfg;
    sim_driver_path path;
    double *limit;          /* per path point: the route's speed (m/s, 0: none); owned */
    double *unmarked_s;     /* per path point: arc length of the first point at or after
                               it without lane markings (INFINITY: none); owned */
    sim_automation a;
    sim_auto_output out;    /* the automation's controls of the latest step */
    bool started;           /* the scenario's start mode was engaged (first step) */
    double last_t;          /* time of the latest step; NAN: none yet */
    bool lead_valid;
    double lead_gap, lead_speed;
    bool hands_on;          /* touch sensor (hands_on role) */
    bool hands_on_mapped;
    double wheel_deg;       /* the driver's steering wheel before blending */
    /* the scripted driver's take-over */
    bool scripted;
    double react_at;        /* s of simulation time it acts; INFINITY: it does not */
    double brake_until;
    /* cues */
    double vibrate_until;
    char shown_mode[64];    /* the mode line on the HUD, to publish changes only */
} in_auto;

/* Loads the scenario's route from start point `start` (NULL: the first), its lane
 * markings and its automation section; scripted: the scripted driver drives. */
int in_auto_open(in_auto *x, const char *scenario, const char *start, bool scripted, sim_error *err);
void in_auto_close(in_auto *x);
/* The run restarted at `at` (NULL: where it started): manual, route rebuilt. */
int in_auto_restart(in_auto *x, const char *at, sim_error *err);

void in_auto_set_lead(in_auto *x, bool valid, double gap, double speed);
/* A role's button changed (the automation's roles; others are ignored). */
void in_auto_button(in_auto *x, sim_bus *bus, double t, double speed, sim_button_role role, bool pressed);
/* control.automation: acted on (true) or refused (false, err says why). */
bool in_auto_command(in_auto *x, sim_bus *bus, double t, double speed, const cJSON *msg, sim_error *err);
/* traffic.event: the scenario's automation events waiting for this trigger fire. */
void in_auto_trigger(in_auto *x, sim_bus *bus, double t, double speed, const char *trigger);

/* The controls that go out: the driver's c (from the wheel, keyboard or script) with
 * the automation's on the channels it holds. Steps the automation when obs is newer
 * than its latest step (then publishes automation.state and the step's events); else
 * blends with the latest step's controls. wheel_follows: the driver's steering is a
 * wheel that the force feedback turns with the automation. */
void in_auto_drive(in_auto *x, sim_bus *bus, const sim_driver_obs *obs, bool wheel_follows, sim_controls *c);

/* Adds the automation's part to a force-feedback command: while it steers, a
 * position spring from the driver's wheel angle towards its steering angle replaces
 * the car's torque; while a cue is on, a rumble. now_t: simulation time. */
void in_auto_ffb(const in_auto *x, double now_t, sim_ffb_command *cmd);

#endif
