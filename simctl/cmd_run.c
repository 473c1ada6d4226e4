/* simctl run: starts a session (the dispatcher and every module that is built) as
 * child processes, supervises them (a module that dies is restarted with backoff, and
 * simctl says so), ends the session on Ctrl-C, on `--until`, or on the operator's
 * stop, and in a headless run hands the drive log to the analysis at the end. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_msg_sim.h"
#include "cmd_world.h"
#include "simctl.h"

#define MAX_ARGS 32
#define RESTART_FIRST_MS 100
#define RESTART_MAX_MS 5000
#define STABLE_MS 10000

typedef struct session session;

typedef struct child {
    session *s;
    const char *exe;        /* executable name in the bin directory */
    char *argv[MAX_ARGS];
    int argc;
    uv_process_t proc;
    uv_timer_t restart_timer;
    bool running, stopping;
    unsigned backoff_ms;
    uint64_t started_ms;
    int restarts;
} child;

struct session {
    uv_loop_t *loop;
    sim_bus *bus;
    uv_signal_t sigint, sigterm;
    uv_timer_t stop_timer;
    child children[8];
    int n_children;
    bool ending;
    int stage;              /* shutdown stage: 0 modules, 1 recorder, 2 dispatcher */
    double until_t;         /* < 0: no time limit */
    bool acks_ticks;        /* lockstep with a time limit: simctl holds the clock at until_t */
    bool until_end;
    char log_file[1024];
    int status;
};

static char *xstrdup(const char *s)
{
    return strdup(s ? s : "");
}

static bool exe_exists(const char *exe)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", simctl_bin_dir(), exe);
    return access(path, X_OK) == 0;
}

static void start_child(child *c);

static void on_restart_timer(uv_timer_t *t)
{
    child *c = t->data;
    if (!c->s->ending) start_child(c);
}

/* Tries again after the current back-off, which doubles up to RESTART_MAX_MS. */
static void schedule_restart(child *c)
{
    uv_timer_start(&c->restart_timer, on_restart_timer, c->backoff_ms, 0);
    c->backoff_ms = c->backoff_ms * 2 > RESTART_MAX_MS ? RESTART_MAX_MS : c->backoff_ms * 2;
}

static void on_child_exit(uv_process_t *p, int64_t status, int term_signal)
{
    child *c = p->data;
    session *s = c->s;
    c->running = false;
    uv_close((uv_handle_t *)p, NULL);
    if (s->ending || c->stopping) return;
    uint64_t ran = uv_now(s->loop) - c->started_ms;
    if (ran >= STABLE_MS) c->backoff_ms = RESTART_FIRST_MS;
    if (term_signal)
        fprintf(stderr, "simctl: %s was killed by signal %d; restarting in %u ms\n", c->exe, term_signal, c->backoff_ms);
    else
        fprintf(stderr, "simctl: %s exited with status %lld; restarting in %u ms\n", c->exe, (long long)status,
                c->backoff_ms);
    c->restarts++;
    schedule_restart(c);
}

static void start_child(child *c)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", simctl_bin_dir(), c->exe);
    uv_stdio_container_t stdio[3] = {{.flags = UV_IGNORE},
                                     {.flags = UV_INHERIT_FD, .data.fd = 1},
                                     {.flags = UV_INHERIT_FD, .data.fd = 2}};
    uv_process_options_t o = {.file = path, .args = c->argv, .stdio = stdio, .stdio_count = 3,
                              .exit_cb = on_child_exit};
    c->proc.data = c;
    int rc = uv_spawn(c->s->loop, &c->proc, &o);
    if (rc != 0) {
        fprintf(stderr, "simctl: cannot start %s: %s; retrying in %u ms\n", path, uv_strerror(rc), c->backoff_ms);
        uv_close((uv_handle_t *)&c->proc, NULL);
        schedule_restart(c);
        return;
    }
    c->running = true;
    c->started_ms = uv_now(c->s->loop);
}

static child *add_child(session *s, const char *exe)
{
    child *c = &s->children[s->n_children++];
    memset(c, 0, sizeof *c);
    c->s = s;
    c->exe = exe;
    c->argv[c->argc++] = xstrdup(exe);
    c->backoff_ms = RESTART_FIRST_MS;
    uv_timer_init(s->loop, &c->restart_timer);
    c->restart_timer.data = c;
    return c;
}

static void arg(child *c, const char *a)
{
    if (c->argc >= MAX_ARGS - 1) {
        /* A programming error (the table of arguments grew): say so, do not drop it. */
        fprintf(stderr, "simctl: too many arguments for %s (over %d); '%s' left out\n", c->exe, MAX_ARGS - 1, a);
        return;
    }
    c->argv[c->argc++] = xstrdup(a);
}

static void arg2(child *c, const char *flag, const char *value)
{
    arg(c, flag);
    arg(c, value);
}

/* Shutdown in stages so that nothing is lost: first the modules that produce data,
 * then the recorder (which flushes everything it received), then the dispatcher. */
static void shutdown_stage(session *s);

static void on_stop_timer(uv_timer_t *t)
{
    session *s = t->data;
    for (int i = 0; i < s->n_children; i++) {
        child *c = &s->children[i];
        if (c->running && c->stopping) {
            fprintf(stderr, "simctl: %s did not stop in time; killing it\n", c->exe);
            uv_process_kill(&c->proc, SIGKILL);
        }
    }
    shutdown_stage(s);
}

static int stage_of(const child *c)
{
    if (strcmp(c->exe, "dispatcher") == 0) return 2;
    if (strcmp(c->exe, "recorder") == 0) return 1;
    return 0;
}

static void shutdown_stage(session *s)
{
    /* Wait for the current stage's processes before starting the next. */
    for (int i = 0; i < s->n_children; i++) {
        child *c = &s->children[i];
        if (c->running && stage_of(c) < s->stage) return;
    }
    while (s->stage <= 2) {
        int signalled = 0;
        for (int i = 0; i < s->n_children; i++) {
            child *c = &s->children[i];
            uv_timer_stop(&c->restart_timer);
            if (stage_of(c) == s->stage && c->running && !c->stopping) {
                c->stopping = true;
                uv_process_kill(&c->proc, SIGTERM);
                signalled++;
            }
        }
        s->stage++;
        if (signalled) {
            if (s->stage == 3 && s->bus) {
                sim_bus_close(s->bus);
                s->bus = NULL;
            }
            uv_timer_start(&s->stop_timer, on_stop_timer, 3000, 0);
            return;
        }
    }
    /* Everything has stopped. */
    if (s->bus) {
        sim_bus_close(s->bus);
        s->bus = NULL;
    }
    uv_close((uv_handle_t *)&s->stop_timer, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    for (int i = 0; i < s->n_children; i++) uv_close((uv_handle_t *)&s->children[i].restart_timer, NULL);
}

static void on_any_exit_check(uv_timer_t *t);

static void end_session(session *s, const char *why)
{
    if (s->ending) return;
    s->ending = true;
    fprintf(stderr, "simctl: ending the session (%s)\n", why);
    s->stage = 0;
    shutdown_stage(s);
}

/* Poll during shutdown: a stage completes when its processes have exited. */
static void on_any_exit_check(uv_timer_t *t)
{
    session *s = t->data;
    if (s->ending) shutdown_stage(s);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    end_session(sig->data, signum == SIGINT ? "Ctrl-C" : "SIGTERM");
}

static void on_bus_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len,
                           void *user)
{
    session *s = user;
    if (strcmp(topic, "dispatcher.joined") == 0) {
        fprintf(stderr, "simctl: %s joined\n", cJSON_GetObjectItem(msg, "name")->valuestring);
    } else if (strcmp(topic, "dispatcher.left") == 0) {
        const cJSON *r = cJSON_GetObjectItem(msg, "reason");
        fprintf(stderr, "simctl: %s left (%s)\n", cJSON_GetObjectItem(msg, "name")->valuestring,
                cJSON_IsString(r) ? r->valuestring : "?");
    } else if (strcmp(topic, "sim.tick") == 0) {
        const cJSON *t = cJSON_GetObjectItem(msg, "t");
        if (s->until_t >= 0 && cJSON_IsNumber(t) && t->valuedouble >= s->until_t - 1e-9) {
            end_session(s, "time reached");
        } else if (s->acks_ticks && !s->ending) {
            /* As a lockstep participant simctl lets the clock run up to until_t and no
             * further, so "--until 60" logs exactly 60 s. */
            sim_msg_tick tick;
            sim_msg_ack a;
            cJSON *ack = NULL;
            if (sim_msg_tick_decode(msg, &tick, NULL) == SIM_OK &&
                cJSON_GetObjectItemCaseSensitive(msg, "n")) {
                a.n = tick.n;
                ack = sim_msg_ack_encode(&a);
            }
            if (ack) sim_bus_publish(bus, "sim.ack", cJSON_IsNumber(t) ? t->valuedouble : 0, ack);
            cJSON_Delete(ack);
        }
    } else if (strcmp(topic, "sim.end") == 0) {
        if (s->until_end) end_session(s, "the scenario's end was reached");
    } else if (strcmp(topic, "control.stop") == 0) {
        end_session(s, "operator's stop");
    } else if (strcmp(topic, "log.status") == 0) {
        const cJSON *f = cJSON_GetObjectItem(msg, "file");
        if (cJSON_IsString(f)) snprintf(s->log_file, sizeof s->log_file, "%s", f->valuestring);
    } else if (strcmp(topic, "log.error") == 0) {
        const cJSON *e = cJSON_GetObjectItem(msg, "error");
        fprintf(stderr, "simctl: RECORDER ERROR: %s\n", cJSON_IsString(e) ? e->valuestring : line);
    }
}

static bool has_display(void)
{
    const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (d && *d) || (w && *w);
}

static int run_analysis(const char *log_file, const char *out_dir)
{
    if (!exe_exists("analysis")) return 0;
    char report_dir[1200];
    snprintf(report_dir, sizeof report_dir, "%s/report", out_dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/analysis", simctl_bin_dir());
    char *argv[] = {path, "report", (char *)log_file, "--out", report_dir, NULL};
    fprintf(stderr, "simctl: analysing %s\n", log_file);
    pid_t pid = fork();
    if (pid == 0) {
        execv(path, argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "simctl: the analysis failed (status %d)\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 1;
    }
    char real[4096];
    const char *shown = realpath(report_dir, real) ? real : report_dir;
    printf("\nReport: %s/report.html\nOpen it with: xdg-open %s/report.html  (or any web browser)\n", shown, shown);
    return 0;
}

int simctl_cmd_run(int argc, char **argv)
{
    const char *bus_addr = SIMCTL_DEFAULT_BUS, *control = SIMCTL_DEFAULT_CONTROL, *token = NULL;
    const char *driver = NULL, *until = NULL, *out = "out", *study = "default", *subject = "s01";
    const char *vehicle = "vehicles/bmw-318i.json", *model = NULL;
    bool headless = false, interactive = false, lockstep = false, no_analysis = false, render_offscreen = false;
    sim_opt opts[] = {
        {"headless", SIM_OPT_FLAG, &headless, NULL, "no windows (default when there is no display)"},
        {"interactive", SIM_OPT_FLAG, &interactive, NULL, "a drive at the wheel or keyboard even without $DISPLAY"},
        {"lockstep", SIM_OPT_FLAG, &lockstep, NULL, "run as fast as the slowest module allows (default when headless)"},
        {"driver", SIM_OPT_STRING, &driver, "script|wheel|keyboard", "who drives (default: script when headless, else wheel if found, else keyboard)"},
        {"until", SIM_OPT_STRING, &until, "end|SECONDS", "end the session at the scenario's end or after SECONDS of simulated time (default end when headless)"},
        {"out", SIM_OPT_STRING, &out, "DIR", "where drive logs and reports go (default out/)"},
        {"study", SIM_OPT_STRING, &study, "NAME", "study name for the drive log (default 'default')"},
        {"subject", SIM_OPT_STRING, &subject, "ID", "test person id for the drive log (default s01)"},
        {"vehicle", SIM_OPT_STRING, &vehicle, "FILE", "vehicle parameter file (default vehicles/bmw-318i.json)"},
        {"model", SIM_OPT_STRING, &model, "full|simple|wall", "vehicle model of the physics node (default full)"},
        {"no-analysis", SIM_OPT_FLAG, &no_analysis, NULL, "do not analyse the drive at the end"},
        {"render-offscreen", SIM_OPT_FLAG, &render_offscreen, NULL, "also start the driver's view when headless or without a display, drawn offscreen"},
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "bus address (default 127.0.0.1:7700)"},
        {"control", SIM_OPT_STRING, &control, "URL", "control endpoint (default tcp://127.0.0.1:7701)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token for dispatcher, modules and operators"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl run [SCENARIO] [options]",
                           "Starts a session: the dispatcher and every built module, supervised.", opts,
                           sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos > 1) {
        fprintf(stderr, "simctl run: at most one scenario file\n");
        return 2;
    }
    const char *scenario = npos ? argv[1] : "scenarios/lane-change.json";
    /* Checked here, once: a scenario every module refuses would otherwise have the
     * supervisor restart them all forever. */
    sim_diag diag = {0};
    sim_scenario *sc = NULL;
    if (sim_scenario_load(scenario, &sc, &diag) != 0) {
        simctl_print_diag(&diag);
        fprintf(stderr, "simctl run: scenario '%s' cannot be used (see simctl validate)\n", scenario);
        sim_diag_free(&diag);
        return 1;
    }
    sim_scenario_free(sc);
    sim_diag_free(&diag);
    if (!headless && !interactive && !has_display()) headless = true;
    if (headless) {
        lockstep = true;
        if (!driver) driver = "script";
        if (!until) until = "end";
    }
    if (driver && strcmp(driver, "script") && strcmp(driver, "wheel") && strcmp(driver, "keyboard")) {
        fprintf(stderr, "simctl run: --driver must be script, wheel or keyboard, not '%s'\n", driver);
        return 2;
    }
    session s = {.loop = uv_default_loop(), .until_t = -1};
    if (until) {
        if (strcmp(until, "end") == 0) {
            s.until_end = true;
        } else {
            if (!sim_cli_number(until, &s.until_t) || s.until_t <= 0) {
                fprintf(stderr, "simctl run: --until expects 'end' or a number of seconds > 0, not '%s'\n", until);
                return 2;
            }
        }
    }
    char host[256];
    int port;
    sim_error err;
    if (sim_bus_parse_endpoint(bus_addr, host, sizeof host, &port, &err) != SIM_OK) {
        fprintf(stderr, "simctl run: --bus %s\n", err.msg);
        return 2;
    }
    mkdir(out, 0777);

    child *c = add_child(&s, "dispatcher");
    arg2(c, "--listen", bus_addr);
    arg2(c, "--control", control);
    if (token) arg2(c, "--token", token);
    /* Modules in start order, with the names they join the bus under; those not built
     * yet are left out. */
    static const struct { const char *exe, *bus_name; } modules[] = {
        {"recorder", "recorder"}, {"physics-node", "physics"}, {"traffic-node", "traffic"},
        {"input-node", "input"}, {"context-server", "context"}, {"render-node", "render"}};
    s.acks_ticks = lockstep && s.until_t >= 0;
    /* One front view when there is a display to show it on; none headless unless asked. */
    bool render_window = !headless && has_display();
    bool want_render = render_window || render_offscreen;
    char wait_for[256] = "";
    if (s.acks_ticks) snprintf(wait_for, sizeof wait_for, "simctl");
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++) {
        if (!exe_exists(modules[i].exe) || !strcmp(modules[i].exe, "physics-node")) continue;
        if (!strcmp(modules[i].exe, "render-node") && !want_render) continue;
        size_t used = strlen(wait_for);
        snprintf(wait_for + used, sizeof wait_for - used, "%s%s", used ? "," : "", modules[i].bus_name);
    }
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++) {
        const char *exe = modules[i].exe;
        if (!exe_exists(exe) || (!strcmp(exe, "render-node") && !want_render)) continue;
        c = add_child(&s, exe);
        arg2(c, "--bus", bus_addr);
        if (token) arg2(c, "--token", token);
        arg2(c, "--scenario", scenario);
        if (strcmp(exe, "recorder") == 0) {
            char logs[1100];
            snprintf(logs, sizeof logs, "%s/logs", out);
            arg2(c, "--out", logs);
            arg2(c, "--study", study);
            arg2(c, "--subject", subject);
            arg2(c, "--vehicle", vehicle);
            continue;
        }
        if (strcmp(exe, "context-server") == 0) { /* its database lives with the session's output */
            char db[1100];
            snprintf(db, sizeof db, "%s/context.db", out);
            arg2(c, "--db", db);
        }
        if (lockstep && strcmp(exe, "context-server") != 0 && strcmp(exe, "render-node") != 0) arg(c, "--lockstep");
        if (strcmp(exe, "physics-node") == 0) {
            arg2(c, "--vehicle", vehicle);
            if (model) arg2(c, "--model", model);
            /* The clock starts once everyone is there: a headless run is then the same
             * every time, and the log starts at tick 0. */
            if (wait_for[0]) arg2(c, "--wait-for", wait_for);
        }
        if (strcmp(exe, "input-node") == 0) {
            if (driver) arg2(c, "--driver", driver);
            else arg2(c, "--device", "auto");
        }
        if (strcmp(exe, "render-node") == 0) {
            arg2(c, "--vehicle", vehicle);
            if (!render_window) arg(c, "--offscreen");
        }
    }

    uv_signal_init(s.loop, &s.sigint);
    uv_signal_init(s.loop, &s.sigterm);
    uv_timer_init(s.loop, &s.stop_timer);
    s.sigint.data = s.sigterm.data = s.stop_timer.data = &s;
    uv_signal_start(&s.sigint, on_signal, SIGINT);
    uv_signal_start(&s.sigterm, on_signal, SIGTERM);

    fprintf(stderr, "simctl: session with %s (%s%s)\n", scenario, headless ? "headless" : "interactive",
            lockstep ? ", lockstep" : "");
    for (int i = 0; i < s.n_children; i++) start_child(&s.children[i]);

    static const char *const watch[] = {"sim.tick", "sim.end", "control.stop", "log.status", "log.error"};
    sim_bus_options bo = {.name = "simctl", .lockstep = s.acks_ticks, .host = host, .port = port, .token = token, .subscribe = watch,
                          .n_subscribe = 5, .on_message = on_bus_message, .user = &s};
    if (sim_bus_open(s.loop, &bo, &s.bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl: %s\n", err.msg);
        end_session(&s, "no bus");
    }
    /* During shutdown, stages advance as children exit; a light poll keeps that simple. */
    uv_timer_t poll;
    uv_timer_init(s.loop, &poll);
    poll.data = &s;
    uv_timer_start(&poll, on_any_exit_check, 50, 50);
    uv_unref((uv_handle_t *)&poll);
    uv_run(s.loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&poll, NULL);
    uv_run(s.loop, UV_RUN_DEFAULT);
    for (int i = 0; i < s.n_children; i++)
        for (int k = 0; k < s.children[i].argc; k++) free(s.children[i].argv[k]);

    if (headless && !no_analysis && s.log_file[0]) return run_analysis(s.log_file, out);
    return s.status;
}
