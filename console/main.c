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
#include <sys/random.h>
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

static bool has_cookie(struct lws *wsi, const console_gateway *gw, const char *what, const char *value);

/* The role a WebSocket asks for with ?role= (docs/console.md, "Page roles") and may
 * have: the operator's only with the operator's cookie, or for a program (no Origin:
 * it showed the token). One that names no role is a plain page when it comes from a
 * browser, whatever cookies the browser holds (a page of the origin that asks for
 * nothing gets nothing: the operator's page asks for its role), and the operator when
 * it is a program. NULL with *out set, or why it is refused (in why_buf). */
static const char *ws_role(struct lws *wsi, const console_gateway *gw, sim_page_role *out, char *why_buf,
                           size_t why_size)
{
    char buf[128];
    bool program = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0;
    bool may_operate = program || has_cookie(wsi, gw, "operator", gw->operator_secret);
    const char *v = lws_get_urlarg_by_name(wsi, "role=", buf, sizeof buf);
    if (!v) {
        *out = program ? SIM_PAGE_ROLE_OPERATOR : SIM_PAGE_ROLE_PAGE;
        return NULL;
    }
    sim_error err = {0};
    if (sim_page_role_parse(v, out, &err) != SIM_OK) {
        snprintf(why_buf, why_size, "%s", err.msg);
        return why_buf;
    }
    if (*out == SIM_PAGE_ROLE_OPERATOR && !may_operate)
        return "the operator's role needs the operator's cookie, set with the console's page (/)";
    return NULL;
}

/* The door of every request (docs/console.md, "Threats and defences"): the Host must
 * name this console (else a DNS-rebinding page could reach it under its own name); a
 * WebSocket must come from the console's own pages (Origin: its own origin or an
 * --allow-origin one), or, with no Origin (a client that is no browser), present the
 * token; a console with a token wants it from every WebSocket. A refusal answers 403
 * before any upgrade and is logged. Returns 0 to go on, 1 when refused. */
static int refuse_request(struct lws *wsi, console_gateway *gw, bool upgrade)
{
    char host[256] = "", origin[512] = "", tok[4096], role_why[SIM_ERROR_MSG_MAX];
    const char *why = NULL;
    sim_page_role role;
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0) host[0] = 0;
    bool has_origin = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0;
    if (has_origin && lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0) origin[0] = 0;
    /* a token up to 4095 characters fits (a 320-byte buffer cut longer ones short) */
    const char *v = upgrade ? lws_get_urlarg_by_name(wsi, "token=", tok, sizeof tok) : NULL;
    /* the token cookie stands for the token (set with a page asked for with it) */
    if (upgrade && gw->token && !sim_net_token_equal(gw->token, v) && has_cookie(wsi, gw, "token", gw->token_secret))
        v = gw->token;
    if (!sim_net_host_ok(host, gw->port, gw->allow_hosts))
        why = "Host header names no address of this console (give others with --allow-host)";
    else if (upgrade && has_origin && !sim_net_origin_ok(origin, host, gw->allow_origins))
        why = "WebSocket from a page of another origin (give others with --allow-origin)";
    else if (upgrade && !has_origin && !(gw->token && sim_net_token_equal(gw->token, v)))
        why = gw->token && v ? "WebSocket without an Origin and with a wrong token"
                             : "WebSocket without an Origin needs the console's token";
    else if (upgrade && gw->token && !sim_net_token_equal(gw->token, v))
        why = v ? "WebSocket with a wrong token" : "WebSocket with no token";
    else if (upgrade)
        why = ws_role(wsi, gw, &role, role_why, sizeof role_why);
    if (!why) return 0;
    fprintf(stderr, "console: %s refused (403): %s (Host \"%.64s\", Origin \"%.96s\")\n",
            upgrade ? "WebSocket" : "request", why, host, has_origin ? origin : "none");
    lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, why);
    return 1;
}

/* A cookie's name: one per port, as browsers keep cookies per host, not per port. */
static void cookie_name(const console_gateway *gw, const char *what, char *out, size_t size)
{
    snprintf(out, size, "sim_%s_%d", what, gw->port);
}

static int add_cookie(struct lws *wsi, const console_gateway *gw, const char *what, const char *value,
                      struct lws_process_html_args *args)
{
    char name[40], v[160];
    cookie_name(gw, what, name, sizeof name);
    int n = snprintf(v, sizeof v, "%s=%s; HttpOnly; SameSite=Strict; Path=/", name, value);
    unsigned char *p = (unsigned char *)args->p, *end = p + args->max_len;
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"set-cookie:", (const unsigned char *)v, n, &p, end))
        return 1;
    args->p = (char *)p;
    return 0;
}

/* Whether the request's Cookie header holds this console's cookie `what` with value. */
static bool has_cookie(struct lws *wsi, const console_gateway *gw, const char *what, const char *value)
{
    char cookies[2048], name[40], want[80];
    if (lws_hdr_copy(wsi, cookies, sizeof cookies, WSI_TOKEN_HTTP_COOKIE) <= 0) return false;
    cookie_name(gw, what, name, sizeof name);
    snprintf(want, sizeof want, "%s=", name);
    for (char *c = cookies; (c = strstr(c, want)); c += strlen(want)) {
        if (c != cookies && c[-1] != ' ' && c[-1] != ';') continue;
        char val[40];
        size_t n = strcspn(c + strlen(want), "; ");
        if (n >= sizeof val) continue;
        memcpy(val, c + strlen(want), n);
        val[n] = 0;
        if (sim_net_token_equal(value, val)) return true;
    }
    return false;
}

/* The operator's page ("/" or "/index.html") comes with the operator cookie, and any
 * page asked for with the right ?token= with the token cookie: HttpOnly (no script
 * reads them), SameSite=Strict (no other site's request carries them), so that the
 * token leaves the WebSocket's URL (simbus.js drops it from the address bar too). */
static int add_cookies(struct lws *wsi, console_gateway *gw, void *in)
{
    char uri[64] = "", tok[4096];
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0) return 0;
    if ((strcmp(uri, "/") == 0 || strcmp(uri, "/index.html") == 0) &&
        add_cookie(wsi, gw, "operator", gw->operator_secret, in))
        return 1;
    const char *v = gw->token ? lws_get_urlarg_by_name(wsi, "token=", tok, sizeof tok) : NULL;
    if (v && sim_net_token_equal(gw->token, v) && add_cookie(wsi, gw, "token", gw->token_secret, in)) return 1;
    return 0;
}

static int on_lws(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    console_gateway *gw = ctx ? lws_context_user(ctx) : NULL;
    console_page **pss = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
        /* Every page and file: only for a Host that names this console (DNS rebinding) */
        return gw ? refuse_request(wsi, gw, false) : -1;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        /* Before the upgrade, so that a refusal is a plain 403 the browser reports. */
        return gw ? refuse_request(wsi, gw, true) : -1;
    case LWS_CALLBACK_ADD_HEADERS:
        return gw ? add_cookies(wsi, gw, in) : 0;
    case LWS_CALLBACK_ESTABLISHED:
        *pss = gw && !gw->closing ? page_open(gw, wsi) : NULL;
        if (*pss) {
            /* (refused in the handshake otherwise: see refuse_request) */
            char why[SIM_ERROR_MSG_MAX];
            if (ws_role(wsi, gw, &(*pss)->role, why, sizeof why)) (*pss)->role = SIM_PAGE_ROLE_PAGE;
        }
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

/* Headers on every HTTP answer: no Referer carrying a URL's ?token= to another site,
 * no MIME sniffing, and pages that load and connect to the console's own origin only
 * (the WebSocket's ws:// URL is the page's own host, which 'self' covers). */
/* (style-src allows the pages' inline <style> blocks: styles run no code.) */
static const struct lws_protocol_vhost_options sec_headers[] = {
    {&sec_headers[1], NULL, "Referrer-Policy:", "no-referrer"},
    {&sec_headers[2], NULL, "X-Content-Type-Options:", "nosniff"},
    {&sec_headers[3], NULL, "X-Frame-Options:", "DENY"},
    {NULL, NULL, "Content-Security-Policy:",
     "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
     "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
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
    const char *allow_hosts = NULL, *allow_origins = NULL;
    sim_opt opts[] = {
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "dispatcher address (default 127.0.0.1:7700)"},
        {"listen", SIM_OPT_STRING, &listen_addr, "HOST:PORT", "HTTP and WebSocket address (default 127.0.0.1:7780)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "required from every WebSocket (?token=); mandatory off loopback (default $SIM_BUS_TOKEN)"},
        {"www", SIM_OPT_STRING, &www, "DIR", "the pages served (default console/www beside bin/, else in the current directory)"},
        {"control", SIM_OPT_STRING, &control_url, "URL", "the dispatcher's operator endpoint (default tcp://127.0.0.1:7701)"},
        {"bus-token", SIM_OPT_STRING, &bus_token, "TOKEN", "the dispatcher's token, put in each page's hello and command (default $SIM_BUS_TOKEN)"},
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "scenario whose roads, POIs and triggers the map shows"},
        {"allow-host", SIM_OPT_STRING, &allow_hosts, "NAMES",
         "host names (comma-separated) a browser may reach the console by, besides localhost and IP addresses"},
        {"allow-origin", SIM_OPT_STRING, &allow_origins, "ORIGINS",
         "origins (comma-separated, e.g. http://lab-pc:7780) whose pages may open WebSockets, besides the console's own"},
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
    a.gw.port = port;
    a.gw.allow_hosts = allow_hosts;
    a.gw.allow_origins = allow_origins;
    /* the operator's cookie: new for every console process */
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        fprintf(stderr, "console: cannot read random bytes for the operator's cookie\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(a.gw.operator_secret + 2 * i, 3, "%02x", raw[i]);
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        fprintf(stderr, "console: cannot read random bytes for the token's cookie\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof raw; i++) snprintf(a.gw.token_secret + 2 * i, 3, "%02x", raw[i]);
    a.gw.bus_token = bus_token;
    a.gw.control_url = control_url;
    a.gw.loop = uv_default_loop();

    lws_set_log_level(LLL_ERR, NULL);
    struct lws_http_mount mount = {0};
    mount.mountpoint = "/";
    mount.mountpoint_len = 1;
    mount.origin = www_real;
    mount.def = "index.html";
    mount.protocol = "simbus"; /* its callback adds the operator cookie (LWS_CALLBACK_ADD_HEADERS) */
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
    info.headers = &sec_headers[0];
    a.gw.lws = lws_create_context(&info);
    /* libwebsockets makes the context even when the port cannot be bound (it only logs
     * "Failed to create default vhost"): without the vhost nothing listens, and a
     * console that went on would send the operator's browser, token and all, to
     * whatever holds the port. */
    if (!a.gw.lws || !lws_get_vhost_by_name(a.gw.lws, "default")) {
        fprintf(stderr, "console: cannot listen on %s: the address is in use or not this machine's "
                "(or libwebsockets' libuv support is missing)\n", listen_addr);
        /* (not destroyed: lws_context_destroy of a context without its vhost crashes on
         * the foreign loop; the process ends here and a.gw keeps it reachable) */
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
