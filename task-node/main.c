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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_drt.h"
#include "sim_measures.h"
#include "sim_msg_sim.h"
#include "sim_msg_task.h"
#include "sim_node.h"
#include "sim_scenario.h"
#include "sim_throttle.h"

static const char *const ACTS_ON[] = {"stop"};

typedef struct task_node {
    sim_node *sn;
    sim_bus *bus;
    const char *scenario;
    bool lockstep;
    sim_drt_config cfg;
    sim_drt_schedule drt;
    int run;             /* of the latest tick; INT32_MIN before the first */
    double sim_t;
    unsigned long published;
    sim_throttle bad_output; /* stderr lines per cause, at most one a second (sim_throttle.h) */
} task_node;

static void publish(task_node *n, const sim_drt_change *c)
{
    sim_msg_drt_stimulus m = {.id = c->id, .on = c->on, .angle_deg = NAN};
    snprintf(m.modality, sizeof m.modality, "%s", sim_drt_modality_name(c->modality));
    if (c->modality == SIM_DRT_VISUAL) m.angle_deg = n->cfg.angle_deg;
    cJSON *o = sim_msg_drt_stimulus_encode(&m);
    if (o && n->bus) sim_bus_publish(n->bus, SIM_TOPIC_DRT_STIMULUS, c->t, o), n->published++;
    cJSON_Delete(o);
}

static void on_tick(task_node *n, const cJSON *msg, double t)
{
    sim_msg_tick tick;
    sim_error err = {0};
    if (sim_msg_tick_decode(msg, &tick, &err) || isnan(t)) {
        sim_throttle_say(&n->bad_output, stderr, "task-node", SIM_TOPIC_SIM_TICK, sim_throttle_clock(), "%s",
                         err.code ? err.msg : "sim.tick without t");
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
    if (!n->lockstep) return;
    /* The answer for tick n after what the tick started: a stimulus is on the bus
     * before the next tick. */
    sim_msg_ack a = {.n = tick.n};
    cJSON *ack = sim_msg_ack_encode(&a);
    if (ack) sim_bus_publish(n->bus, SIM_TOPIC_SIM_ACK, t, ack);
    cJSON_Delete(ack);
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    task_node *n = user;
    if (!strcmp(env->topic, SIM_TOPIC_SIM_TICK)) {
        on_tick(n, msg, env->t);
    } else if (!strcmp(env->topic, SIM_TOPIC_DRT_RESPONSE)) {
        sim_msg_drt_response r;
        sim_error err = {0};
        if (sim_msg_drt_response_decode(msg, &r, &err)) {
            sim_throttle_say(&n->bad_output, stderr, "task-node", env->topic, sim_throttle_clock(), "%s", err.msg);
            return;
        }
        sim_drt_change ch;
        if (sim_drt_schedule_respond(&n->drt, isnan(env->t) ? n->sim_t : env->t, &ch)) publish(n, &ch);
    } else if (!strncmp(env->topic, "control.", 8)) {
        const char *cmd = sim_command_receive(n->bus, n->sim_t, "task-node", ACTS_ON, 1, msg);
        if (!cmd) return;
        sim_command_answer(n->bus, n->sim_t, "task-node", msg, true, NULL);
        sim_node_stop(sn, "control.stop");
    }
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    task_node *n = user;
    n->sn = sn;
    n->run = INT32_MIN;
    if (!n->scenario) {
        sim_error_set(err, SIM_EINVAL, "expected --scenario FILE");
        return 2;
    }
    sim_scenario *sc;
    if (sim_scenario_load_err(n->scenario, &sc, err)) return 1;
    if (!sc->drt) {
        sim_error_set(err, SIM_EINVAL, "%s has no \"drt\" object: no task to run (docs/tasks.md)", n->scenario);
        sim_scenario_free(sc);
        return 1;
    }
    n->cfg = *sc->drt;
    sim_scenario_free(sc);
    sim_drt_schedule_init(&n->drt, &n->cfg);
    sim_node_bus_options(sn)->lockstep = n->lockstep;
    return 0;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    task_node *n = user;
    n->bus = sim_node_bus(sn);
    fprintf(stderr, "task-node: DRT, %d modalit%s, every %.1f-%.1f s for %.1f s, seed %llu\n", n->cfg.n_modalities,
            n->cfg.n_modalities == 1 ? "y" : "ies", n->cfg.interval_min, n->cfg.interval_max, n->cfg.duration,
            (unsigned long long)n->cfg.seed);
    return 0;
}

static void on_stop(sim_node *sn, const char *why, void *user)
{
    task_node *n = user;
    n->bus = NULL;
}

static int teardown(sim_node *sn, void *user)
{
    task_node *n = user;
    sim_throttle_flush(&n->bad_output, stderr, "task-node");
    fprintf(stderr, "task-node: %lu stimulus changes published\n", n->published);
    return 0;
}

int main(int argc, char **argv)
{
    static task_node n;
    const sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &n.scenario, "FILE", "scenario whose \"drt\" object configures the task"},
        {"lockstep", SIM_OPT_FLAG, &n.lockstep, NULL, "answer every sim.tick (reproducible runs)"},
    };
    static const char *const subs[] = {SIM_TOPIC_SIM_TICK, SIM_TOPIC_DRT_RESPONSE, "control."};
    const sim_node_desc desc = {
        .prog = "task-node", .usage = "task-node --scenario FILE [options]",
        .about = "The Detection Response Task's stimuli (drt.stimulus) from the scenario's seeded schedule, "
                 "ended by drt.response.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "task", .subscribe = subs, .n_subscribe = sizeof subs / sizeof *subs, .acts_on = ACTS_ON,
                .n_acts_on = 1},
        .setup = setup, .start = start, .on_message = on_message, .on_stop = on_stop, .teardown = teardown,
        .user = &n};
    return sim_node_run(&desc, argc, argv);
}
