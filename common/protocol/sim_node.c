/* sim_node: the one main() of the bus modules (see sim_node.h for the lifecycle).
 * Written once so that options, the endpoint, the signals, the envelope and the order
 * of teardown cannot drift apart between modules again. */
#include "sim_node.h"

#include "sim_msg_log.h"

#include <assert.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_node {
    const sim_node_desc *desc;
    uv_loop_t *loop;
    sim_bus *bus;
    sim_bus_options bo;
    uv_signal_t sigint, sigterm;
    bool signals_open;
    bool stopping;
    bool started;   /* start ran: on_stop has handles to close */
    double last_t;  /* the newest envelope time seen, for the node's own messages */
    uint64_t dropped_reported; /* sim_bus_dropped when bus.error last said it */
    bool welcomed;  /* the first welcome came (drops before it are the start's, not news) */
    const char *endpoint;
    char host[256];
    int port;
};

int sim_envelope_read(const cJSON *msg, const char *line, size_t len, sim_envelope *env)
{
    const cJSON *topic = cJSON_GetObjectItemCaseSensitive(msg, "topic");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(msg, "seq");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    env->topic = cJSON_IsString(topic) ? topic->valuestring : "";
    env->src = cJSON_IsString(src) ? src->valuestring : NULL;
    /* a sequence number is a whole number that a double holds exactly */
    env->seq = cJSON_IsNumber(seq) && seq->valuedouble >= 0 && seq->valuedouble <= 9007199254740992.0
                   ? (int64_t)seq->valuedouble : -1;
    env->t = cJSON_IsNumber(t) && isfinite(t->valuedouble) ? t->valuedouble : NAN;
    env->line = line;
    env->len = len;
    return cJSON_IsString(topic) ? SIM_OK : SIM_EINVAL;
}

static void on_bus_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len,
                           void *user)
{
    sim_node *n = user;
    (void)bus;
    if (n->stopping || !n->desc->on_message) return;
    sim_envelope env;
    sim_envelope_read(msg, line, len, &env);
    env.topic = topic; /* the bus hands on only messages with a string topic */
    if (!isnan(env.t)) n->last_t = env.t;
    n->desc->on_message(n, &env, msg, n->desc->user);
}

/* Back on the bus after dropping messages (published while the dispatcher was away):
 * said once as bus.error, which the dispatcher keeps for `simctl status`, so the
 * "dropped and counted" of sim_bus.h reaches the operator. What a module published
 * before the dispatcher first welcomed it is the start, not news. */
static void report_dropped(sim_node *n, sim_bus *bus)
{
    uint64_t dropped = sim_bus_dropped(bus);
    assert(dropped >= n->dropped_reported); /* a counter only grows */
    if (!n->welcomed) {
        n->welcomed = true;
        n->dropped_reported = dropped;
        return;
    }
    if (dropped == n->dropped_reported) return;
    sim_msg_bus_error m = {.dropped = dropped};
    snprintf(m.error, sizeof m.error, "%llu messages published while the dispatcher was away were dropped (%llu since "
             "the last report)", (unsigned long long)dropped, (unsigned long long)(dropped - n->dropped_reported));
    cJSON *p = sim_msg_bus_error_encode(&m);
    if (p && sim_bus_publish(bus, SIM_TOPIC_BUS_ERROR, n->last_t, p) == SIM_OK) n->dropped_reported = dropped;
    cJSON_Delete(p);
}

static void on_bus_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    sim_node *n = user;
    if (welcome && !n->stopping) report_dropped(n, bus);
    if (n->desc->on_bus) n->desc->on_bus(n, welcome, n->desc->user);
}

static void on_signal(uv_signal_t *s, int signum)
{
    sim_node *n = s->data;
    if (n->desc->on_signal) n->desc->on_signal(n, signum, n->desc->user);
    else sim_node_stop(n, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static void close_signals(sim_node *n)
{
    if (!n->signals_open) return;
    n->signals_open = false;
    uv_close((uv_handle_t *)&n->sigint, NULL);
    uv_close((uv_handle_t *)&n->sigterm, NULL);
}

void sim_node_stop(sim_node *n, const char *why)
{
    if (n->stopping) return;
    n->stopping = true;
    if (n->started && n->desc->on_stop) n->desc->on_stop(n, why, n->desc->user);
    close_signals(n);
    sim_bus_close(n->bus);
    n->bus = NULL;
}

sim_bus *sim_node_bus(const sim_node *n) { return n->bus; }
uv_loop_t *sim_node_loop(const sim_node *n) { return n->loop; }
sim_bus_options *sim_node_bus_options(sim_node *n) { return &n->bo; }
const char *sim_node_endpoint(const sim_node *n) { return n->endpoint; }

/* The module's options plus --bus and --token; returns the exit status, or -1 to go on. */
static int parse_command_line(sim_node *n, int argc, char **argv, const char **token)
{
    const sim_node_desc *d = n->desc;
    size_t n_opts = d->n_opts + 2;
    sim_opt *opts = malloc(n_opts * sizeof *opts);
    if (!opts) {
        fprintf(stderr, "%s: out of memory\n", d->prog);
        return 1;
    }
    if (d->n_opts) memcpy(opts, d->opts, d->n_opts * sizeof *opts);
    opts[d->n_opts] = (sim_opt){"bus", SIM_OPT_STRING, &n->endpoint, "HOST:PORT", "dispatcher address (default 127.0.0.1:7700)"};
    opts[d->n_opts + 1] = (sim_opt){"token", SIM_OPT_STRING, token, "TOKEN", "dispatcher token"};
    int npos = 0, status = -1;
    int rc = sim_cli_parse(d->usage, d->about, opts, n_opts, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) {
        status = 0;
    } else if (rc != SIM_CLI_OK) {
        status = 2;
    } else if (npos) {
        fprintf(stderr, "%s: unexpected argument '%s' (options only)\n", d->prog, argv[1]);
        sim_cli_print_usage(d->usage, d->about, opts, n_opts, stderr);
        status = 2;
    } else {
        sim_error err = {0};
        if (sim_bus_parse_endpoint(n->endpoint, n->host, sizeof n->host, &n->port, &err)) {
            fprintf(stderr, "%s: --bus %s\n", d->prog, err.msg);
            status = 2;
        }
    }
    free(opts);
    return status;
}

static int report(const sim_node *n, int status, const sim_error *err)
{
    if (status && err->msg[0]) fprintf(stderr, "%s: %s\n", n->desc->prog, err->msg);
    return status;
}

int sim_node_run(const sim_node_desc *desc, int argc, char **argv)
{
    assert(desc && desc->prog && desc->bus.name && desc->on_message);
    static sim_node node; /* one per process: the signals and the default loop are too */
    sim_node *n = &node;
    memset(n, 0, sizeof *n);
    n->desc = desc;
    n->endpoint = "127.0.0.1:7700";
    n->bo = desc->bus;
    const char *token = NULL;
    int status = parse_command_line(n, argc, argv, &token);
    if (status >= 0) return status;

    n->loop = uv_default_loop();
    n->bo.host = n->host;
    n->bo.port = n->port;
    n->bo.token = token;
    sim_error err = {0};
    if (desc->setup && (status = desc->setup(n, desc->user, &err)))
        return status == SIM_NODE_DONE ? 0 : report(n, status, &err);
    n->bo.on_message = on_bus_message;
    n->bo.on_state = on_bus_state;
    n->bo.user = n;
    if (sim_bus_open(n->loop, &n->bo, &n->bus, &err)) {
        status = report(n, 1, &err);
    } else {
        uv_signal_init(n->loop, &n->sigint);
        uv_signal_init(n->loop, &n->sigterm);
        n->sigint.data = n->sigterm.data = n;
        uv_signal_start(&n->sigint, on_signal, SIGINT);
        uv_signal_start(&n->sigterm, on_signal, SIGTERM);
        n->signals_open = true;
        n->started = true;
        if (desc->start && (status = desc->start(n, desc->user, &err))) {
            report(n, status, &err);
            sim_node_stop(n, "start failed");
        }
        uv_run(n->loop, UV_RUN_DEFAULT);
    }
    /* The loop ended: every handle closed after sim_node_stop, or uv_stop (a module
     * finishing with the bus still open). */
    int end = desc->teardown ? desc->teardown(n, desc->user) : 0;
    if (!status) status = end;
    sim_node_stop(n, "end");
    uv_run(n->loop, UV_RUN_DEFAULT);
    uv_loop_close(n->loop);
    return status;
}
