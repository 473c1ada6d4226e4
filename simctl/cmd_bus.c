/* simctl tap / simctl send: watch the bus live, or put one message on it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command.h"
#include "send_check.h"
#include "simctl.h"

typedef struct {
    uv_loop_t *loop;
    sim_bus *bus;
    uv_signal_t sigint;
    uv_timer_t timer;
    uv_timer_t join_timer; /* tap: no welcome in time means no dispatcher */
    char where[300];       /* HOST:PORT, for messages */
    bool welcomed;
    long count, limit;
    const char *topic;  /* send: what to publish */
    cJSON *payload;
    char **prefixes;    /* tap: what was asked for (membership news arrives regardless) */
    int n_prefixes;
    int status;
} bus_tool;

static void finish(bus_tool *b, int status)
{
    b->status = status;
    sim_bus_close(b->bus);
    b->bus = NULL;
    if (!uv_is_closing((uv_handle_t *)&b->sigint)) uv_close((uv_handle_t *)&b->sigint, NULL);
    if (!uv_is_closing((uv_handle_t *)&b->timer)) uv_close((uv_handle_t *)&b->timer, NULL);
    if (!uv_is_closing((uv_handle_t *)&b->join_timer)) uv_close((uv_handle_t *)&b->join_timer, NULL);
}

/* A refusal from the dispatcher (a wrong token, a bad hello) ends the tool with 1. */
static bool dispatcher_refused(bus_tool *b, const char *topic, const cJSON *msg)
{
    if (strcmp(topic, "dispatcher.error") != 0) return false;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(msg, "error");
    fprintf(stderr, "simctl: dispatcher at %s: %s\n", b->where, cJSON_IsString(e) ? e->valuestring : "(an error without text)");
    finish(b, 1);
    return true;
}

static void on_join_timeout(uv_timer_t *t)
{
    bus_tool *b = t->data;
    if (b->welcomed) return;
    fprintf(stderr, "simctl: no dispatcher answered at %s within %.0f s (is the session running?)\n", b->where,
            SIMCTL_JOIN_TIMEOUT_MS / 1000.0);
    finish(b, 1);
}

static void on_sigint(uv_signal_t *s, int signum)
{
    finish(s->data, 0);
}

static void on_timeout(uv_timer_t *t)
{
    bus_tool *b = t->data;
    fprintf(stderr, "simctl: %s\n", b->topic ? "could not reach the dispatcher in time" : "timeout");
    finish(b, b->topic ? 1 : 0);
}

static void on_tap_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len,
                           void *user)
{
    bus_tool *b = user;
    if (!b->welcomed && dispatcher_refused(b, topic, msg)) return;
    bool wanted = b->n_prefixes == 0;
    for (int i = 0; i < b->n_prefixes && !wanted; i++)
        wanted = strncmp(topic, b->prefixes[i], strlen(b->prefixes[i])) == 0;
    if (!wanted) return;
    fwrite(line, 1, len, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    if (b->limit > 0 && ++b->count >= b->limit) finish(b, 0);
}

static int parse_bus(const char *text, char *host, size_t host_size, int *port)
{
    sim_error err;
    if (sim_bus_parse_endpoint(text, host, host_size, port, &err) != SIM_OK) {
        fprintf(stderr, "simctl: --bus %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* --timeout bounds: the milliseconds must fit the timer's uint64_t (1e300 s did not:
 * undefined behaviour). Returns 0, or 2 (usage) after saying why. */
static int check_timeout(double timeout)
{
    if (timeout < 0 || timeout > 86400 * 365) {
        fprintf(stderr, "simctl: --timeout %g: expected 0..31536000 seconds (0: none)\n", timeout);
        return 2;
    }
    return 0;
}

static int run_tool(bus_tool *b, sim_bus_options *o, double timeout)
{
    sim_error err;
    b->loop = uv_default_loop();
    o->user = b;
    if (sim_bus_open(b->loop, o, &b->bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl: %s\n", err.msg);
        return 1;
    }
    uv_signal_init(b->loop, &b->sigint);
    b->sigint.data = b;
    uv_signal_start(&b->sigint, on_sigint, SIGINT);
    uv_timer_init(b->loop, &b->timer);
    uv_timer_init(b->loop, &b->join_timer);
    b->timer.data = b->join_timer.data = b;
    snprintf(b->where, sizeof b->where, "%s:%d", o->host, o->port);
    if (!b->topic) uv_timer_start(&b->join_timer, on_join_timeout, SIMCTL_JOIN_TIMEOUT_MS, 0);
    if (timeout > 0) uv_timer_start(&b->timer, on_timeout, (uint64_t)(timeout * 1000), 0);
    uv_run(b->loop, UV_RUN_DEFAULT);
    return b->status;
}

static void on_tap_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    bus_tool *b = user;
    if (welcome) b->welcomed = true;
    else fprintf(stderr, "simctl tap: lost the dispatcher at %s; reconnecting\n", b->where);
}

int simctl_cmd_tap(int argc, char **argv)
{
    const char *bus = SIMCTL_DEFAULT_BUS, *token = NULL;
    int count = 0;
    double timeout = 0;
    sim_opt opts[] = {
        {"bus", SIM_OPT_STRING, &bus, "HOST:PORT", "dispatcher (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token, when the dispatcher requires one"},
        {"count", SIM_OPT_INT, &count, "N", "exit after N messages"},
        {"timeout", SIM_OPT_DOUBLE, &timeout, "S", "exit after S seconds"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl tap [PREFIX...] [--count N] [--timeout S]",
                           "Prints bus messages live, one JSON line each (all topics, or those starting with a PREFIX).",
                           opts, 4, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (count < 0) {
        fprintf(stderr, "simctl tap: --count %d: expected a number of messages >= 0 (0: no limit)\n", count);
        return 2;
    }
    if (check_timeout(timeout)) return 2;
    char host[256];
    int port;
    if (parse_bus(bus, host, sizeof host, &port)) return 2;
    bus_tool b = {.limit = count, .prefixes = argv + 1, .n_prefixes = npos};
    sim_bus_options o = {.name = "simctl-tap", .host = host, .port = port, .token = token,
                         .subscribe = npos ? (const char *const *)argv + 1 : NULL, .n_subscribe = (size_t)npos,
                         .on_message = on_tap_message, .on_state = on_tap_state};
    return run_tool(&b, &o, timeout);
}

static void on_send_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    bus_tool *b = user;
    if (!welcome) return;
    /* The welcome's t is the dispatcher's latest simulation time (sim.tick). */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(welcome, "t");
    int rc = sim_bus_publish(bus, b->topic, cJSON_IsNumber(t) ? t->valuedouble : 0, b->payload);
    finish(b, rc == SIM_OK ? 0 : 1);
}

static void on_send_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len,
                            void *user)
{
    dispatcher_refused(user, topic, msg);
}

/* An operator command sent as a bus message meets the same rules as at the endpoint
 * (the modules check again); control.ack is an answer, not a command. */
static int check_command(const char *topic, const cJSON *payload)
{
    if (strncmp(topic, "control.", 8) != 0 || strcmp(topic, "control.ack") == 0) return 0;
    cJSON *msg = payload ? cJSON_Duplicate(payload, 1) : cJSON_CreateObject();
    if (!msg || !cJSON_AddStringToObject(msg, "topic", topic)) {
        cJSON_Delete(msg);
        fprintf(stderr, "simctl send: out of memory\n");
        return 2;
    }
    sim_error err;
    int rc = sim_command_validate_message(msg, NULL, &err);
    cJSON_Delete(msg);
    if (rc == SIM_OK) return 0;
    fprintf(stderr, "simctl send: %s: %s\n", topic, err.msg);
    return 2;
}

int simctl_cmd_send(int argc, char **argv)
{
    const char *bus = SIMCTL_DEFAULT_BUS, *token = NULL;
    double timeout = 3;
    sim_opt opts[] = {
        {"bus", SIM_OPT_STRING, &bus, "HOST:PORT", "dispatcher (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token, when the dispatcher requires one"},
        {"timeout", SIM_OPT_DOUBLE, &timeout, "S", "give up after S seconds (default 3)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl send TOPIC [JSON]",
                           "Publishes one message: TOPIC with the fields of the JSON object (src, seq, t are added).",
                           opts, 3, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos < 1 || npos > 2) {
        fprintf(stderr, "simctl send: expected TOPIC and optionally a JSON object\n");
        return 2;
    }
    if (check_timeout(timeout)) return 2;
    if (!argv[1][0] || strncmp(argv[1], "dispatcher.", 11) == 0) {
        fprintf(stderr, "simctl send: TOPIC '%s': expected a non-empty topic not beginning with \"dispatcher.\" "
                        "(reserved)\n", argv[1]);
        return 2;
    }
    bus_tool b = {.topic = argv[1]};
    if (npos == 2) {
        b.payload = cJSON_Parse(argv[2]);
        if (!cJSON_IsObject(b.payload)) {
            fprintf(stderr, "simctl send: the payload must be a JSON object, e.g. '{\"text\":\"hi\"}'\n");
            cJSON_Delete(b.payload);
            return 2;
        }
    }
    if (check_command(argv[1], b.payload)) {
        cJSON_Delete(b.payload);
        return 2;
    }
    bool known;
    sim_error verr = {0};
    if (simctl_send_check(argv[1], b.payload, &known, &verr)) { /* what every module would refuse */
        fprintf(stderr, "simctl send: %s (docs/protocol.md); nothing was sent\n", verr.msg);
        cJSON_Delete(b.payload);
        return 1;
    }
    char host[256];
    int port;
    if (parse_bus(bus, host, sizeof host, &port)) return 2;
    static const char *const none[] = {"dispatcher.error"};
    sim_bus_options o = {.name = "simctl-send", .host = host, .port = port, .token = token, .subscribe = none,
                         .n_subscribe = 1, .on_message = on_send_message, .on_state = on_send_state};
    rc = run_tool(&b, &o, timeout);
    cJSON_Delete(b.payload);
    return rc;
}
