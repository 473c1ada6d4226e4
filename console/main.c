/* console: the operator's console and in-car HMIs in the browser (section 3.6 of the
 * platform paper; docs/console.md). HTTP and WebSocket with libwebsockets on the
 * process's libuv loop: static pages from --www, and at /bus a WebSocket per page
 * that the gateway joins to the bus with a connection of its own (page.c), plus
 * operator commands (control.c) and the scenario's map (roads.c). Loopback by
 * default; listening anywhere else requires --token, which the browser passes as
 * ?token= on the WebSocket's URL. */
#include <libgen.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_net.h"
#include "sim_scenario.h"

typedef struct app {
    console_gateway gw;
    uv_signal_t sigint, sigterm;
} app;

static int on_lws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    console_gateway *gw = ctx ? lws_context_user(ctx) : NULL;
    console_page **pss = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        if (gw && gw->token) {
            char buf[320];
            const char *v = lws_get_urlarg_by_name(wsi, "token=", buf, sizeof buf);
            if (!sim_net_token_equal(gw->token, v)) {
                fprintf(stderr, "console: WebSocket refused: %s token\n", v ? "wrong" : "no");
                return -1;
            }
        }
        return 0;
    case LWS_CALLBACK_ESTABLISHED:
        *pss = gw && !gw->closing ? page_open(gw, wsi) : NULL;
        return *pss ? 0 : -1;
    case LWS_CALLBACK_RECEIVE:
        if (*pss)
            page_on_frame(*pss, in, len, lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return *pss ? page_on_writeable(*pss) : 0;
    case LWS_CALLBACK_CLOSED:
        if (*pss) page_on_ws_closed(*pss);
        *pss = NULL;
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    {"simbus", on_lws, sizeof(console_page *), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static const struct lws_protocol_vhost_options mime_js = {NULL, NULL, ".mjs", "text/javascript"};

static void on_signal(uv_signal_t *h, int signum)
{
    app *a = h->data;
    if (a->gw.closing) return;
    a->gw.closing = true;
    fprintf(stderr, "console: stopping (%s)\n", signum == SIGINT ? "SIGINT" : "SIGTERM");
    uv_close((uv_handle_t *)&a->sigint, NULL);
    uv_close((uv_handle_t *)&a->sigterm, NULL);
    /* closes every WebSocket (and so every page's bus connection) and lws's handles */
    lws_context_destroy(a->gw.lws);
}

/* --www's default: console/www beside the bin/ directory the executable is in, or
 * else in the current directory (a build elsewhere, such as make asan's, run from the
 * repository). */
static void default_www(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(out, size, "console/www");
    if (n <= 0) return;
    exe[n] = '\0';
    char *bin_dir = dirname(exe);          /* .../bin */
    char beside[PATH_MAX + 32];
    snprintf(beside, sizeof beside, "%s/../console/www", bin_dir);
    if (access(beside, R_OK) == 0) snprintf(out, size, "%s", beside);
}

static int resolve_bus(const char *text, struct sockaddr_storage *out)
{
    char host[256], port_s[16];
    int port;
    sim_error err = {0};
    if (sim_bus_parse_endpoint(text, host, sizeof host, &port, &err)) {
        fprintf(stderr, "console: --bus %s\n", err.msg);
        return -1;
    }
    snprintf(port_s, sizeof port_s, "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, port_s, &hints, &res) != 0 || !res) {
        fprintf(stderr, "console: --bus %s: cannot resolve %s\n", text, host);
        return -1;
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

int main(int argc, char **argv)
{
    const char *bus_addr = "127.0.0.1:7700", *listen_addr = "127.0.0.1:7780", *token = NULL, *www = NULL;
    const char *control_url = "tcp://127.0.0.1:7701", *bus_token = NULL, *scenario = NULL;
    sim_opt opts[] = {
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "dispatcher address (default 127.0.0.1:7700)"},
        {"listen", SIM_OPT_STRING, &listen_addr, "HOST:PORT", "HTTP and WebSocket address (default 127.0.0.1:7780)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "required from every WebSocket (?token=); mandatory off loopback (default $SIM_BUS_TOKEN)"},
        {"www", SIM_OPT_STRING, &www, "DIR", "the pages served (default console/www beside bin/, else in the current directory)"},
        {"control", SIM_OPT_STRING, &control_url, "URL", "the dispatcher's operator endpoint (default tcp://127.0.0.1:7701)"},
        {"bus-token", SIM_OPT_STRING, &bus_token, "TOKEN", "the dispatcher's token, put in each page's hello and command (default $SIM_BUS_TOKEN)"},
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "scenario whose roads, POIs and triggers the map shows"},
    };
    const char *usage = "console [--bus HOST:PORT] [--listen HOST:PORT] [--token T] [--www DIR] [--scenario FILE]";
    const char *about = "The operator's console and in-car HMI pages: a web gateway onto the bus.";
    int npos = 0;
    int rc = sim_cli_parse(usage, about, opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos) {
        fprintf(stderr, "console: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    /* simctl run hands the session's token over in the environment, never on the
     * command line (which ps shows): it is then both the bus's and the browsers' */
    const char *env_token = getenv("SIM_BUS_TOKEN");
    if (env_token && !env_token[0]) env_token = NULL;
    if (!bus_token) bus_token = env_token;
    if (!token) token = env_token;
    char host[256];
    int port;
    sim_error err = {0};
    if (sim_bus_parse_endpoint(listen_addr, host, sizeof host, &port, &err)) {
        fprintf(stderr, "console: --listen %s\n", err.msg);
        return 2;
    }
    if (!sim_net_is_loopback(host) && !(token && token[0])) {
        fprintf(stderr, "console: --listen %s is not loopback: --token is required to listen there\n", listen_addr);
        return 2;
    }
    static app a;
    if (resolve_bus(bus_addr, &a.gw.bus_addr)) return 2;
    char www_buf[PATH_MAX + 32], www_real[PATH_MAX];
    if (!www) {
        default_www(www_buf, sizeof www_buf);
        www = www_buf;
    }
    if (!realpath(www, www_real)) {
        fprintf(stderr, "console: --www %s: no such directory\n", www);
        return 2;
    }
    if (scenario) {
        sim_scenario *sc = NULL;
        if (sim_scenario_load_err(scenario, &sc, &err) || console_roads_json(sc, &a.gw.roads_json)) {
            fprintf(stderr, "console: %s\n", err.msg[0] ? err.msg : "out of memory");
            sim_scenario_free(sc);
            return 1;
        }
        sim_scenario_free(sc);
    }
    a.gw.token = token;
    a.gw.bus_token = bus_token;
    a.gw.control_url = control_url;
    a.gw.loop = uv_default_loop();

    lws_set_log_level(LLL_ERR, NULL);
    struct lws_http_mount mount = {0};
    mount.mountpoint = "/";
    mount.mountpoint_len = 1;
    mount.origin = www_real;
    mount.def = "index.html";
    mount.origin_protocol = LWSMPRO_FILE;
    mount.extra_mimetypes = &mime_js;
    void *loops[1] = {a.gw.loop};
    struct lws_context_creation_info info = {0};
    info.port = port;
    info.iface = host;
    info.protocols = protocols;
    info.mounts = &mount;
    info.user = &a.gw;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (!strchr(host, ':')) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.foreign_loops = loops;
    info.pcontext = &a.gw.lws;
    a.gw.lws = lws_create_context(&info);
    if (!a.gw.lws) {
        fprintf(stderr, "console: cannot listen on %s (in use, or libwebsockets' libuv support missing)\n", listen_addr);
        free(a.gw.roads_json);
        return 1;
    }
    uv_signal_init(a.gw.loop, &a.sigint);
    uv_signal_init(a.gw.loop, &a.sigterm);
    a.sigint.data = a.sigterm.data = &a;
    uv_signal_start(&a.sigint, on_signal, SIGINT);
    uv_signal_start(&a.sigterm, on_signal, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "console: http://%s/ (pages from %s), bus %s%s\n", listen_addr, www_real, bus_addr,
            token ? ", token required" : "");
    uv_run(a.gw.loop, UV_RUN_DEFAULT);
    if (a.gw.lws) lws_context_destroy(a.gw.lws);
    uv_run(a.gw.loop, UV_RUN_DEFAULT);
    uv_loop_close(a.gw.loop);
    free(a.gw.roads_json);
    return 0;
}
