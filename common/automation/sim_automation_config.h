/* sim_automation_config: a scenario's `automation` section and the scripted driver's
 * take-over model (docs/automation.md, "The scenario's automation section").
 *
 *   "automation": {
 *     "mode": "l3",                     engaged at the start (default manual)
 *     "set_speed_kmh": 120, "time_gap_s": 1.8,
 *     "tor": {"budget_s": 8, "ttc_s": 4, "mrm_decel": 3, "limit_time_s": 10,
 *             "cues": ["hud", "chime", "vibration"]},
 *     "override": {"steer_deg": 10, "brake": 0.1},
 *     "events": [{"at_t": 20, "action": "engage", "mode": "l3"},
 *                {"trigger": "obstacle", "action": "tor", "reason": "obstacle"}],
 *     "driver": {"reaction": {"dist": "lognormal", "mean_s": 2.5, "sd_s": 0.8,
 *                             "min_s": 0.5, "max_s": 10}, "seed": 7,
 *                "brake": 0.3, "brake_s": 1.0}
 *   }
 *
 * Events fire by simulation time (at_t) or by a traffic trigger's id (traffic.event);
 * their action is engage (with a mode), disengage or tor (with a reason). The driver
 * model is the scripted driver's: it reacts to a TOR after a reaction time drawn from
 * the distribution (fixed, normal, lognormal, uniform, or none: it never reacts), with
 * the seed making the draws reproducible; its take-over action is braking at `brake`
 * for `brake_s`, then driving on its path.
 *
 * Pure: parses a cJSON tree the caller owns, no I/O. */
#ifndef SIM_AUTOMATION_CONFIG_H
#define SIM_AUTOMATION_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_automation.h"
#include "sim_error.h"

typedef enum { SIM_AUTO_ACT_ENGAGE, SIM_AUTO_ACT_DISENGAGE, SIM_AUTO_ACT_TOR } sim_auto_action;

typedef struct sim_auto_trigger {
    double at_t;             /* s; NAN when the event waits for a traffic trigger */
    char trigger[64];        /* traffic trigger id ("" when at_t) */
    sim_auto_action action;
    sim_auto_mode mode;      /* engage */
    char reason[48];         /* tor */
    bool fired;
} sim_auto_trigger;

#define SIM_AUTO_MAX_TRIGGERS 32

enum { SIM_AUTO_CUE_HUD = 1, SIM_AUTO_CUE_CHIME = 2, SIM_AUTO_CUE_VIBRATION = 4 };

typedef enum {
    SIM_REACT_NONE,          /* never reacts */
    SIM_REACT_FIXED,
    SIM_REACT_NORMAL,
    SIM_REACT_LOGNORMAL,     /* with the given mean and sd of the time itself */
    SIM_REACT_UNIFORM,
} sim_reaction_dist;

/* A seeded reaction-time distribution. The struct is the generator's state. */
typedef struct sim_reaction {
    sim_reaction_dist dist;
    double mean, sd;         /* fixed: mean; uniform: [min, max] */
    double min, max;         /* draws are clamped to [min, max] */
    uint64_t state;          /* splitmix64 */
} sim_reaction;

void sim_reaction_seed(sim_reaction *r, uint64_t seed);
/* The next reaction time, s; INFINITY for SIM_REACT_NONE. */
double sim_reaction_draw(sim_reaction *r);

typedef struct sim_auto_config {
    sim_auto_params params;
    sim_auto_mode start_mode;
    unsigned cues;           /* SIM_AUTO_CUE_* */
    sim_auto_trigger events[SIM_AUTO_MAX_TRIGGERS];
    int n_events;
    sim_reaction reaction;
    double driver_brake;     /* the scripted take-over's braking, 0..1 */
    double driver_brake_s;   /* s */
} sim_auto_config;

/* Defaults (sim_auto_params_default, manual, every cue, no events, the driver reacting
 * after a fixed 2.5 s with a 0.3 brake for 1 s). */
void sim_auto_config_default(sim_auto_config *c);
/* section: the scenario's "automation" object (NULL: the defaults). file names the
 * scenario in errors, which give the JSON path, what was found and what was
 * expected. */
int sim_auto_config_parse(const cJSON *section, const char *file, sim_auto_config *out, sim_error *err);

#endif
