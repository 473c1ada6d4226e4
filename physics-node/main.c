/* physics-node: owns the simulation clock and the ego car. Steps the vehicle model
 * (sim_vehicle: full, simple or wall) at a fixed internal rate, publishes sim.tick,
 * vehicle.state and ffb.command at the publish rate, listens to input.controls,
 * control.* and traffic.state (docs/protocol.md, docs/vehicle.md). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <uv.h>

#include "node.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_vehicle_file.h"
#include "world.h"

typedef struct app {
    pn_node node;
    uv_signal_t sigint, sigterm;
} app;

static void on_signal(uv_signal_t *s, int signum)
{
    app *a = s->data;
    pn_node_close(&a->node);
    uv_close((uv_handle_t *)&a->sigint, NULL);
    uv_close((uv_handle_t *)&a->sigterm, NULL);
}

/* A control.stop closes the node from inside; the signal handles go with it. */
static void on_check(uv_check_t *c)
{
    app *a = c->data;
    if (a->node.stopping) {
        if (!uv_is_closing((uv_handle_t *)&a->sigint)) {
            uv_close((uv_handle_t *)&a->sigint, NULL);
            uv_close((uv_handle_t *)&a->sigterm, NULL);
        }
        uv_close((uv_handle_t *)c, NULL);
    }
}

int main(int argc, char **argv)
{
    const char *scenario = NULL, *start = NULL, *vehicle = "vehicles/bmw-318i.json";
    const char *model = "full", *integrator = "midpoint", *bus_addr = "127.0.0.1:7700";
    const char *token = NULL;
    int rate_hz = 1000, publish_hz = 100;
    bool lockstep = false;
    const char *wait_for = NULL;
    int first_run = 0;
    sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "scenario (terrain, roads, start points); none: a flat plane"},
        {"start", SIM_OPT_STRING, &start, "NAME", "start point (default: the scenario's first)"},
        {"vehicle", SIM_OPT_STRING, &vehicle, "FILE", "vehicle parameter file (default vehicles/bmw-318i.json)"},
        {"model", SIM_OPT_STRING, &model, "full|simple|wall", "vehicle model (default full)"},
        {"integrator", SIM_OPT_STRING, &integrator, "euler|midpoint|rk4", "integrator of the full model (default midpoint)"},
        {"rate-hz", SIM_OPT_INT, &rate_hz, "HZ", "internal step rate (default 1000)"},
        {"publish-hz", SIM_OPT_INT, &publish_hz, "HZ", "sim.tick and vehicle.state rate (default 100); divides rate-hz"},
        {"lockstep", SIM_OPT_FLAG, &lockstep, NULL, "step tick n+1 only when every lockstep module has acknowledged tick n"},
        {"wait-for", SIM_OPT_STRING, &wait_for, "NAMES", "start the clock only once these modules (comma-separated) have joined"},
        {"run", SIM_OPT_INT, &first_run, "N",
         "number of the first run, 0..1000000 (default 0); simctl run gives a restarted node the next one"},
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "dispatcher address (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "dispatcher token"},
    };
    const char *usage = "physics-node [options]";
    const char *about = "Owns the simulation clock and the ego vehicle's dynamics.";
    int npos = 0;
    int rc = sim_cli_parse(usage, about, opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP)
        return 0;
    if (rc != SIM_CLI_OK)
        return 2;
    if (npos) {
        fprintf(stderr, "physics-node: unexpected argument '%s'\n", argv[1]);
        sim_cli_print_usage(usage, about, opts, sizeof opts / sizeof opts[0], stderr);
        return 2;
    }
    if (first_run < 0 || first_run > 1000000) {
        fprintf(stderr, "physics-node: --run %d: expected 0..1000000\n", first_run);
        return 2;
    }
    sim_error err = {0};
    pn_config cfg = {.first_run = first_run, .start = start, .rate_hz = rate_hz, .publish_hz = publish_hz, .lockstep = lockstep,
                     .wait_for = wait_for};
    if (sim_vehicle_model_parse(model, &cfg.model, &err) || sim_integrator_parse(integrator, &cfg.integrator, &err)) {
        fprintf(stderr, "physics-node: %s\n", err.msg);
        return 2;
    }
    if (rate_hz < 1 || rate_hz > 100000 || publish_hz < 1 || publish_hz > rate_hz || rate_hz % publish_hz) {
        fprintf(stderr, "physics-node: --rate-hz %d / --publish-hz %d: expected 1 <= publish <= rate "
                        "<= 100000 with publish dividing rate\n", rate_hz, publish_hz);
        return 2;
    }
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(bus_addr, host, sizeof host, &port, &err)) {
        fprintf(stderr, "physics-node: --bus %s\n", err.msg);
        return 2;
    }
    sim_vehicle_params params;
    if (sim_vehicle_params_load(vehicle, &params, &err)) {
        fprintf(stderr, "physics-node: %s\n", err.msg);
        return 1;
    }
    pn_world *world = NULL;
    if (pn_world_open(scenario, &world, &err)) {
        fprintf(stderr, "physics-node: %s\n", err.msg);
        return 1;
    }

    static app a; /* the vehicle state is large; keep it off the stack */
    uv_loop_t *loop = uv_default_loop();
    static const char *const subscribe[] = {"input.", "control.", "traffic.state", "sim.ack", "dispatcher."};
    sim_bus_options bo = {.name = "physics", .host = host, .port = port, .token = token,
                          .subscribe = subscribe, .n_subscribe = sizeof subscribe / sizeof subscribe[0],
                          .acts_on = pn_acts_on, .n_acts_on = pn_n_acts_on};
    if (pn_node_open(&a.node, loop, &cfg, world, &params, &bo, &err)) {
        fprintf(stderr, "physics-node: %s\n", err.msg);
        pn_world_free(world);
        return 1;
    }
    uv_signal_init(loop, &a.sigint);
    uv_signal_init(loop, &a.sigterm);
    a.sigint.data = a.sigterm.data = &a;
    uv_signal_start(&a.sigint, on_signal, SIGINT);
    uv_signal_start(&a.sigterm, on_signal, SIGTERM);
    uv_check_t check;
    uv_check_init(loop, &check);
    check.data = &a;
    uv_check_start(&check, on_check);
    uv_unref((uv_handle_t *)&check);
    fprintf(stderr, "physics-node: %s model, %s, %d Hz steps, %d Hz ticks%s\n", model,
            cfg.model == SIM_VEHICLE_FULL ? integrator : "own integration", rate_hz, publish_hz,
            lockstep ? ", lockstep" : ", real time");
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    pn_world_free(world);
    return a.node.exit_code;
}
