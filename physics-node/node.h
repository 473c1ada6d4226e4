/* node: the physics node's clock and its bus conversation. It owns the ego vehicle
 * and the simulation time: a fixed internal step (rate_hz), publishing sim.tick,
 * vehicle.state and ffb.command every publish period; paced to the wall clock, or in
 * lockstep, where tick n+1 is stepped only after every lockstep participant has
 * answered tick n with sim.ack. */
#ifndef PHYSICS_NODE_H
#define PHYSICS_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "messages.h"
#include "sim_bus.h"
#include "sim_node.h"
#include "sim_vehicle.h"
#include "collide.h"
#include "world.h"
#include "sim_throttle.h"

#define PN_MAX_PEERS 64
#define PN_MAX_BOXES 64

typedef struct pn_config {
    const char *start;        /* start point name; NULL: the scenario's first */
    sim_vehicle_model model;
    sim_integrator integrator;
    int rate_hz, publish_hz;
    bool lockstep;
    /* Comma-separated module names (e.g. "recorder,input"): the clock starts only when
     * all of them have joined, so that a reproducible run does not depend on who came
     * up first. NULL: start at once. */
    const char *wait_for;
    bool wait_for_session;  /* only modules that showed the session's secret count (in a session) */
    /* Another cab's physics (docs/cabs.md): no clock of its own; each sim.tick of the
     * session's clock steps the car to that tick, publishes its state (never sim.tick)
     * and, in lockstep, answers sim.ack. */
    bool follow_clock;
    const char *cab;        /* its cab (SIM_CAB): whose lockstep modules it waits for; NULL: none */
    /* The first run's number: a node restarted after a crash starts a new run rather
     * than splice a second run 0 into the log. */
    int first_run;
    /* The car is put at every tick where traffic.ego says the OpenSCENARIO storyboard's
     * ego is (kinematically: pose and speed, no dynamics) instead of being driven by
     * input.controls: `simctl run --driver scenario`, so that the car, the drive log and
     * every condition on the ego agree (docs/openscenario.md, "The ego"). */
    bool scenario_ego;
    /* Real time: a state on vehicle.early.state as soon as an input.controls has been
     * integrated, between the ticks (docs/latency.md); --no-early-states turns it off. */
    bool early_states;
} pn_config;

typedef struct pn_node {
    sim_node *sn;
    uv_loop_t *loop;
    sim_bus *bus;
    pn_config cfg;
    pn_world *world;              /* borrowed */
    sim_vehicle_params params;
    sim_vehicle car;
    sim_vehicle_controls in;
    double last_w[3];             /* the last published angular rate (head motion's alpha) */
    bool have_w;
    pn_stamps in_stamps;          /* the newest input.controls' stamps (stepped unused) */
    pn_stamps stamps;             /* those of the input the newest state integrated */
    sim_ffb_params ffb;
    sim_box boxes[PN_MAX_BOXES];
    size_t n_boxes;
    pn_collide collide;           /* static objects: contacts and their pending events */
    bool have_follow;             /* a traffic.ego came (cfg.scenario_ego) */
    sim_vehicle_start follow_at;  /* the latest: the ego's centre, heading and speed */
    int steps_per_tick;
    int steps_done;               /* internal steps already taken toward tick + 1 (early states) */
    double dt;                    /* internal step, s */
    uint64_t tick;                /* n of the latest published tick */
    int run;                      /* increments on restart */
    bool paused, stopping, started;
    bool ended;                   /* sim.end published in this run */
    bool in_last_sector;          /* the car is in the scenario's last test sector */
    sim_throttle bad_output;      /* stderr lines per cause (refused controls, steps), one a second */
    /* lockstep: participants by name and whether they acknowledged the latest tick */
    struct {
        int id;
        char name[64];
        bool acked;
    } peers[PN_MAX_PEERS];
    int n_peers;
    /* every module present (for wait_for), by connection id */
    struct {
        int id;
        char name[64];
        bool session;      /* it showed the session's secret */
    } present[PN_MAX_PEERS];
    int n_present;
    uv_timer_t timer;             /* real-time pacing */
    uv_idle_t idle;               /* lockstep: steps the next tick outside callbacks */
    uint64_t t0_ns;               /* wall clock of tick 0 of this run (real time) */
    uint64_t tick0;               /* tick that t0_ns belongs to (after resume) */
    int exit_code;
    /* cfg.follow_clock: the session clock's tick that is waiting for this cab's own
     * lockstep modules (follow_n), before the car steps past it */
    bool follow_pending;
    bool follow_first;            /* the first tick's state is still to go out */
    uint64_t follow_n;
} pn_node;

/* The operator commands the node acts on (its hello's acts_on). */
extern const char *const pn_acts_on[];
extern const char *const pn_follower_acts_on[];
extern const size_t pn_n_follower_acts_on;
extern const size_t pn_n_acts_on;

/* Sets up the car at the start point (no bus yet). */
int pn_node_init(pn_node *n, const pn_config *cfg, pn_world *world, const sim_vehicle_params *params,
                 sim_error *err);
/* The bus is open: starts the clock's timers (sn owns the bus and the loop). */
void pn_node_start(pn_node *n, sim_node *sn);
/* What the skeleton hands on (sim_node_desc's on_message and on_bus). */
void pn_node_on_message(pn_node *n, const sim_envelope *env, const cJSON *msg);
void pn_node_on_bus(pn_node *n, const cJSON *welcome);
/* Stops the clock and closes its handles (the skeleton's on_stop; the loop must run
 * afterwards). */
void pn_node_close(pn_node *n);

#endif
