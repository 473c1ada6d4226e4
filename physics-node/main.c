/* physics-node: owns the simulation clock and the ego car. Steps the vehicle model
 * (sim_vehicle: full, simple or wall) at a fixed internal rate, publishes sim.tick,
 * vehicle.state and ffb.command at the publish rate, listens to input.controls,
 * control.* and traffic.state (docs/protocol.md, docs/vehicle.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "node.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_msg_sim.h"
#include "sim_msg_traffic.h"
#include "sim_node.h"
#include "sim_vehicle_file.h"
#include "world.h"

typedef struct app {
    pn_node node;
    const char *scenario, *start, *vehicle, *model, *integrator, *wait_for, *params;
    int rate_hz, publish_hz, first_run;
    bool lockstep, scenario_ego, no_early, follow_clock;
    pn_world *world;
} app;

static int setup(sim_node *sn, void *user, sim_error *err)
{
    app *a = user;
    if (a->first_run < 0 || a->first_run > 1000000)
        return sim_error_set(err, SIM_EINVAL, "--run %d: expected 0..1000000", a->first_run), 2;
    pn_config cfg = {.first_run = a->first_run, .start = a->start, .rate_hz = a->rate_hz,
                     .publish_hz = a->publish_hz, .lockstep = a->lockstep, .wait_for = a->wait_for,
                     .wait_for_session = getenv("SIM_BUS_SECRET") && getenv("SIM_BUS_SECRET")[0], .scenario_ego = a->scenario_ego,
                     .early_states = !a->no_early, .follow_clock = a->follow_clock,
                     .cab = getenv("SIM_CAB") && getenv("SIM_CAB")[0] ? getenv("SIM_CAB") : NULL};
    if (sim_vehicle_model_parse(a->model, &cfg.model, err) || sim_integrator_parse(a->integrator, &cfg.integrator, err))
        return 2;
    if (a->rate_hz < 1 || a->rate_hz > 100000 || a->publish_hz < 1 || a->publish_hz > a->rate_hz ||
        a->rate_hz % a->publish_hz)
        return sim_error_set(err, SIM_EINVAL, "--rate-hz %d / --publish-hz %d: expected 1 <= publish <= rate "
                             "<= 100000 with publish dividing rate", a->rate_hz, a->publish_hz), 2;
    if (a->follow_clock && (a->scenario_ego || a->wait_for))
        return sim_error_set(err, SIM_EINVAL, "--follow-clock: not with --scenario-ego or --wait-for (the clock's "
                             "owner waits)"), 2;
    if (a->follow_clock) {
        /* Another cab's physics (docs/cabs.md): it answers the session clock's ticks. */
        static const char *const subscribe[] = {"input.",           "control.",        SIM_TOPIC_TRAFFIC_STATE,
                                                SIM_TOPIC_SIM_TICK, SIM_TOPIC_SIM_ACK, "dispatcher."};
        sim_bus_options *bo = sim_node_bus_options(sn);
        bo->subscribe = subscribe;
        bo->n_subscribe = sizeof subscribe / sizeof *subscribe;
        bo->lockstep = a->lockstep;
        bo->acts_on = pn_follower_acts_on;
        bo->n_acts_on = pn_n_follower_acts_on;
    }
    sim_vehicle_params params;
    if (sim_vehicle_params_load(a->vehicle, &params, err) || pn_world_open(a->scenario, a->params, &a->world, err))
        return 1;
    if (pn_node_init(&a->node, &cfg, a->world, &params, err)) {
        pn_world_free(a->world);
        return 1;
    }
    return 0;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    app *a = user;
    pn_node_start(&a->node, sn);
    fprintf(stderr, "physics-node: %s model, %s, %d Hz steps, %d Hz ticks%s\n", a->model,
            a->node.cfg.model == SIM_VEHICLE_FULL ? a->integrator : "own integration", a->rate_hz, a->publish_hz,
            a->lockstep ? ", lockstep" : ", real time");
    return 0;
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    pn_node_on_message(&((app *)user)->node, env, msg);
}
static void on_bus(sim_node *sn, const cJSON *welcome, void *user) { pn_node_on_bus(&((app *)user)->node, welcome); }
static void on_stop(sim_node *sn, const char *why, void *user) { pn_node_close(&((app *)user)->node); }

static int teardown(sim_node *sn, void *user)
{
    app *a = user;
    sim_throttle_flush(&a->node.bad_output, stderr, "physics-node");
    pn_world_free(a->world);
    return a->node.exit_code;
}

int main(int argc, char **argv)
{
    static app a = {.vehicle = "vehicles/bmw-318i.json", .model = "full", .integrator = "midpoint",
                    .rate_hz = 1000, .publish_hz = 100}; /* the vehicle state is large: off the stack */
    const sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &a.scenario, "FILE", "scenario (terrain, roads, start points); none: a flat plane"},
        {"start", SIM_OPT_STRING, &a.start, "NAME", "start point (default: the scenario's first)"},
        {"params", SIM_OPT_STRING, &a.params, "NAME=V,...", "OpenSCENARIO: parameter values over the file's declarations (the ego's Init pose and speed follow them)"},
        {"scenario-ego", SIM_OPT_FLAG, &a.scenario_ego, NULL, "OpenSCENARIO: put the car where traffic.ego says the storyboard's ego is, every tick, instead of driving it (simctl run --driver scenario)"},
        {"vehicle", SIM_OPT_STRING, &a.vehicle, "FILE", "vehicle parameter file (default vehicles/bmw-318i.json)"},
        {"model", SIM_OPT_STRING, &a.model, "full|simple|wall", "vehicle model (default full)"},
        {"integrator", SIM_OPT_STRING, &a.integrator, "euler|midpoint|rk4", "integrator of the full model (default midpoint)"},
        {"rate-hz", SIM_OPT_INT, &a.rate_hz, "HZ", "internal step rate (default 1000)"},
        {"publish-hz", SIM_OPT_INT, &a.publish_hz, "HZ", "sim.tick and vehicle.state rate (default 100); divides rate-hz"},
        {"no-early-states", SIM_OPT_FLAG, &a.no_early, NULL, "real time: no vehicle.early.state between the ticks when an input arrives (docs/latency.md)"},
        {"lockstep", SIM_OPT_FLAG, &a.lockstep, NULL, "step tick n+1 only when every lockstep module has acknowledged tick n"},
        {"follow-clock", SIM_OPT_FLAG, &a.follow_clock, NULL, "another cab's car (docs/cabs.md): step on the session clock's sim.tick instead of owning the clock; with --lockstep, answer each tick"},
        {"wait-for", SIM_OPT_STRING, &a.wait_for, "NAMES", "start the clock only once these modules (comma-separated) have joined"},
        {"run", SIM_OPT_INT, &a.first_run, "N",
         "number of the first run, 0..1000000 (default 0); simctl run gives a restarted node the next one"},
    };
    static const char *const subscribe[] = {"input.", "control.", SIM_TOPIC_TRAFFIC_STATE, SIM_TOPIC_TRAFFIC_EGO, SIM_TOPIC_SIM_ACK,
                                            "dispatcher."};
    const sim_node_desc desc = {
        .prog = "physics-node", .usage = "physics-node [options]",
        .about = "Owns the simulation clock and the ego vehicle's dynamics.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        /* the clock's owner does not answer ticks: no lockstep in its hello */
        .bus = {.name = "physics", .subscribe = subscribe, .n_subscribe = sizeof subscribe / sizeof *subscribe,
                .acts_on = pn_acts_on, .n_acts_on = pn_n_acts_on},
        .setup = setup, .start = start, .on_message = on_message, .on_bus = on_bus, .on_stop = on_stop,
        .teardown = teardown, .user = &a};
    return sim_node_run(&desc, argc, argv);
}
