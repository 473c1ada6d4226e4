/* task-node: the secondary tasks of a session (docs/tasks.md). Runs the scenario's
 * Detection Response Task: publishes drt.stimulus on and off against simulation time
 * from the seeded schedule (common/tasks/sim_drt.h), ends a stimulus at the first
 * drt.response, starts the schedule afresh with every new run. The stimuli are shown
 * by render-node (visual), the wheel (tactile, input-node) and sound-node (auditory);
 * responses come from input-node. In lockstep it answers every sim.tick after
 * publishing what the tick started, so a stimulus is on the bus before the next tick.
 *
 * Why a module of its own: the schedule must run whichever driver (wheel, keyboard,
 * script) and whichever outputs are present, and it keeps the task's timing out of
 * the input, render and sound loops. Exit status: 0 after stop or a signal, 1 when the
 * scenario cannot be read or has no "drt" object, 2 for usage errors. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_drt.h"
#include "sim_measures.h"
#include "sim_msg_sim.h"
#include "sim_msg_task.h"
#include "sim_scenario.h"

static const char *const ACTS_ON[] = {"stop"};

typedef struct task_node {
    sim_bus *bus;
    uv_signal_t sigint, sigterm;
    sim_drt_config cfg;
    sim_drt_schedule drt;
    int run;             /* of the latest tick; INT32_MIN before the first */
    double sim_t;
    bool closed;
    unsigned long published;
} task_node;

static void close_node(task_node *n)
{
    if (n->closed) return;
    n->closed = true;
    sim_bus_close(n->bus);
    uv_close((uv_handle_t *)&n->sigint, NULL);
    uv_close((uv_handle_t *)&n->sigterm, NULL);
}

static void publish(task_node *n, const sim_drt_change *c)
{
    sim_msg_drt_stimulus m = {.id = c->id, .on = c->on, .angle_deg = NAN};
    snprintf(m.modality, sizeof m.modality, "%s", sim_drt_modality_name(c->modality));
    if (c->modality == SIM_DRT_VISUAL) m.angle_deg = n->cfg.angle_deg;
    cJSON *o = sim_msg_drt_stimulus_encode(&m);
    if (o) sim_bus_publish(n->bus, SIM_TOPIC_DRT_STIMULUS, c->t, o), n->published++;
    cJSON_Delete(o);
}

static void on_tick(task_node *n, const cJSON *msg, double t, bool lockstep)
{
    sim_msg_tick tick;
    sim_error err = {0};
    if (sim_msg_tick_decode(msg, &tick, &err) || isnan(t)) {
        fprintf(stderr, "task-node: %s\n", err.code ? err.msg : "sim.tick without t");
        return;
    }
    if (tick.run != n->run) { /* a restart: the same sequence again from its start */
        n->run = tick.run;
        sim_drt_schedule_init(&n->drt, &n->cfg);
    }
    n->sim_t = t;
    if (!tick.paused) {
        sim_drt_change c[2];
        int k = sim_drt_schedule_step(&n->drt, t, c);
        for (int i = 0; i < k; i++) publish(n, &c[i]);
    }
    if (!lockstep) return;
    sim_msg_ack a = {.n = tick.n};
    cJSON *ack = sim_msg_ack_encode(&a);
    if (ack) sim_bus_publish(n->bus, "sim.ack", t, ack);
    cJSON_Delete(ack);
}

typedef struct ctx {
    task_node *n;
    bool lockstep;
} ctx;

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len,
                       void *user)
{
    (void)bus, (void)line, (void)len;
    ctx *c = user;
    task_node *n = c->n;
    if (n->closed) return;
    const cJSON *tj = cJSON_GetObjectItemCaseSensitive(msg, "t");
    double t = cJSON_IsNumber(tj) ? tj->valuedouble : NAN;
    if (!strcmp(topic, "sim.tick")) {
        on_tick(n, msg, t, c->lockstep);
    } else if (!strcmp(topic, SIM_TOPIC_DRT_RESPONSE)) {
        sim_msg_drt_response r;
        sim_error err = {0};
        if (sim_msg_drt_response_decode(msg, &r, &err)) {
            fprintf(stderr, "task-node: %s\n", err.msg);
            return;
        }
        sim_drt_change ch;
        if (sim_drt_schedule_respond(&n->drt, isnan(t) ? n->sim_t : t, &ch)) publish(n, &ch);
    } else if (!strncmp(topic, "control.", 8)) {
        const char *cmd = sim_command_receive(n->bus, n->sim_t, "task-node", ACTS_ON, 1, msg);
        if (!cmd) return;
        sim_command_answer(n->bus, n->sim_t, "task-node", msg, true, NULL);
        close_node(n);
    }
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)signum;
    close_node(s->data);
}

int main(int argc, char **argv)
{
    const char *scenario = NULL, *bus_addr = "127.0.0.1:7700", *token = NULL;
    bool lockstep = false;
    sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "scenario whose \"drt\" object configures the task"},
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "dispatcher address (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "dispatcher token"},
        {"lockstep", SIM_OPT_FLAG, &lockstep, NULL, "answer every sim.tick (reproducible runs)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("task-node --scenario FILE [options]",
                           "The Detection Response Task's stimuli (drt.stimulus) from the scenario's seeded "
                           "schedule, ended by drt.response.",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos || !scenario) {
        fprintf(stderr, "task-node: expected --scenario FILE and no other argument\n");
        return 2;
    }
    sim_error err = {0};
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(bus_addr, host, sizeof host, &port, &err)) {
        fprintf(stderr, "task-node: --bus %s\n", err.msg);
        return 2;
    }
    static task_node n;
    n.run = INT32_MIN;
    sim_scenario *sc;
    if (sim_scenario_load_err(scenario, &sc, &err)) {
        fprintf(stderr, "task-node: %s\n", err.msg);
        return 1;
    }
    if (!sc->drt) {
        fprintf(stderr, "task-node: %s has no \"drt\" object: no task to run (docs/tasks.md)\n", scenario);
        sim_scenario_free(sc);
        return 1;
    }
    n.cfg = *sc->drt;
    sim_scenario_free(sc);
    sim_drt_schedule_init(&n.drt, &n.cfg);
    uv_loop_t *loop = uv_default_loop();
    static const char *const subs[] = {"sim.tick", SIM_TOPIC_DRT_RESPONSE, "control."};
    ctx c = {&n, lockstep};
    sim_bus_options bo = {.name = "task", .host = host, .port = port, .token = token, .subscribe = subs,
                          .n_subscribe = 3, .lockstep = lockstep, .acts_on = ACTS_ON, .n_acts_on = 1,
                          .on_message = on_message, .user = &c};
    if (sim_bus_open(loop, &bo, &n.bus, &err)) {
        fprintf(stderr, "task-node: %s\n", err.msg);
        return 1;
    }
    uv_signal_init(loop, &n.sigint);
    uv_signal_init(loop, &n.sigterm);
    n.sigint.data = n.sigterm.data = &n;
    uv_signal_start(&n.sigint, on_signal, SIGINT);
    uv_signal_start(&n.sigterm, on_signal, SIGTERM);
    fprintf(stderr, "task-node: DRT, %d modalit%s, every %.1f-%.1f s for %.1f s, seed %llu\n", n.cfg.n_modalities,
            n.cfg.n_modalities == 1 ? "y" : "ies", n.cfg.interval_min, n.cfg.interval_max, n.cfg.duration,
            (unsigned long long)n.cfg.seed);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    fprintf(stderr, "task-node: %lu stimulus changes published\n", n.published);
    return 0;
}
