/* dispatcher: the hub of the bus. Every module connects here; each line is checked
 * and forwarded unchanged to the modules subscribed to its topic (docs/protocol.md).
 * Also hosts the operator's control endpoint. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "control.h"
#include "hub.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_net.h"

typedef struct {
    uv_loop_t *loop;
    hub *h;
    control *ctl;
    uv_signal_t sigint, sigterm;
    uv_timer_t stop_timer;
} dispatcher;

static void stop(dispatcher *d)
{
    if (!d->h) return;
    control_close(d->ctl);
    d->ctl = NULL;
    hub_close(d->h);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->stop_timer, NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
    stop(s->data);
}

static void on_stop_timer(uv_timer_t *t)
{
    stop(t->data);
}

/* After "stop" the command is on its way to the modules; give the sockets a moment to
 * deliver it before closing them. */
static void on_stop_command(void *user)
{
    dispatcher *d = user;
    uv_timer_start(&d->stop_timer, on_stop_timer, 200, 0);
}

int main(int argc, char **argv)
{
    const char *listen = "127.0.0.1:7700";
    const char *control_url = "tcp://127.0.0.1:7701";
    const char *token = NULL;
    const char *state_topics = "*.state,sim.tick";
    int queue_kib = 4096, backlog_mib = 256;
    double stats_interval = 1.0;
    int ack_wait_ms = 500;
    int hello_timeout_ms = 5000;
    sim_opt opts[] = {
        {"listen", SIM_OPT_STRING, &listen, "HOST:PORT", "bus address (default 127.0.0.1:7700)"},
        {"control", SIM_OPT_STRING, &control_url, "URL",
         "operator endpoint, nanomsg REP (default tcp://127.0.0.1:7701; 'none' for none)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN",
         "required in every hello and request; mandatory off loopback (or $SIM_BUS_TOKEN, kept off the command line)"},
        {"state-topics", SIM_OPT_STRING, &state_topics, "PATTERNS",
         "latest-value topics, comma-separated (default *.state,sim.tick)"},
        {"queue-kib", SIM_OPT_INT, &queue_kib, "KIB", "send queue bound per connection, 16..1048576 (default 4096)"},
        {"backlog-mib", SIM_OPT_INT, &backlog_mib, "MIB",
         "backlogs kept for absent durable modules, all together, 1..65536 (default 256)"},
        {"hello-timeout-ms", SIM_OPT_INT, &hello_timeout_ms, "MS",
         "a connection that has not said hello by then is closed, 10..600000 (default 5000)"},
        {"ack-wait-ms", SIM_OPT_INT, &ack_wait_ms, "MS",
         "longest wait for the modules' control.ack before a command's reply, 1..60000 (default 500)"},
        {"stats-interval", SIM_OPT_DOUBLE, &stats_interval, "S", "seconds between dispatcher.stats, 0.01..3600 (default 1)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("dispatcher [options]", "The bus hub: routes NDJSON messages between modules.",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos) {
        fprintf(stderr, "dispatcher: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    /* Upper bounds keep the byte counts (size_t shifts below) far from overflow. */
    if (queue_kib < 16 || queue_kib > (1 << 20)) {
        fprintf(stderr, "dispatcher: --queue-kib %d: expected 16..1048576 (KiB)\n", queue_kib);
        return 2;
    }
    if (backlog_mib < 1 || backlog_mib > (1 << 16)) {
        fprintf(stderr, "dispatcher: --backlog-mib %d: expected 1..65536 (MiB)\n", backlog_mib);
        return 2;
    }
    if (hello_timeout_ms < 10 || hello_timeout_ms > 600000) {
        fprintf(stderr, "dispatcher: --hello-timeout-ms %d: expected 10..600000 (ms)\n", hello_timeout_ms);
        return 2;
    }
    if (ack_wait_ms < 1 || ack_wait_ms > 60000) {
        fprintf(stderr, "dispatcher: --ack-wait-ms %d: expected 1..60000 (ms)\n", ack_wait_ms);
        return 2;
    }
    if (stats_interval < 0.01 || stats_interval > 3600) {
        fprintf(stderr, "dispatcher: --stats-interval %g: expected 0.01..3600 (s)\n", stats_interval);
        return 2;
    }
    /* From simctl run, through the environment: never on a command line, where `ps`
     * shows it to every user. */
    const char *secret = getenv("SIM_BUS_SECRET");
    if (secret && !secret[0]) secret = NULL;
    if (!token && getenv("SIM_BUS_TOKEN") && getenv("SIM_BUS_TOKEN")[0]) token = getenv("SIM_BUS_TOKEN");
    char host[256];
    int port;
    sim_error err;
    if (sim_bus_parse_endpoint(listen, host, sizeof host, &port, &err) != SIM_OK) {
        fprintf(stderr, "dispatcher: --listen %s\n", err.msg);
        return 2;
    }
    bool use_control = strcmp(control_url, "none") != 0;
    if (use_control && !strstr(control_url, "://")) {
        fprintf(stderr, "dispatcher: --control '%s': expected a nanomsg URL (tcp://HOST:PORT, ipc://PATH) or 'none'\n",
                control_url);
        return 2;
    }
    if (!token && (!sim_net_is_loopback(host) || (use_control && !sim_net_url_is_loopback(control_url)))) {
        fprintf(stderr, "dispatcher: listening beyond loopback requires --token\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);

    dispatcher d = {.loop = uv_default_loop()};
    hub_config cfg = {.host = host, .port = port, .token = token,
                      .queue_limit = (size_t)queue_kib << 10, .backlog_limit = (size_t)backlog_mib << 20,
                      .state_topics = state_topics, .stats_interval = stats_interval,
                      .hello_timeout_ms = hello_timeout_ms, .secret = secret};
    if (hub_open(d.loop, &cfg, &d.h, &err) != SIM_OK) {
        fprintf(stderr, "dispatcher: %s\n", err.msg);
        return 1;
    }
    if (use_control && control_open(d.loop, d.h, control_url, token, ack_wait_ms, on_stop_command, &d, &d.ctl, &err) != SIM_OK) {
        fprintf(stderr, "dispatcher: %s\n", err.msg);
        hub_close(d.h);
        uv_run(d.loop, UV_RUN_DEFAULT);
        hub_free(d.h);
        return 1;
    }
    uv_signal_init(d.loop, &d.sigint);
    uv_signal_init(d.loop, &d.sigterm);
    uv_timer_init(d.loop, &d.stop_timer);
    d.sigint.data = d.sigterm.data = d.stop_timer.data = &d;
    uv_signal_start(&d.sigint, on_signal, SIGINT);
    uv_signal_start(&d.sigterm, on_signal, SIGTERM);
    fprintf(stderr, "dispatcher: bus on %s:%d, control %s%s\n", host, hub_port(d.h),
            use_control ? control_url : "none", secret ? ", session secret set (topic ownership enforced)" : "");
    uv_run(d.loop, UV_RUN_DEFAULT);
    hub_free(d.h);
    uv_loop_close(d.loop);
    return 0;
}
