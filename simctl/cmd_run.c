/* simctl run: starts a session (the dispatcher and every module that is built) as
 * child processes, supervises them (a module that dies is restarted with backoff, and
 * simctl says so), ends the session on Ctrl-C, on `--until`, or on the operator's
 * stop, and in a headless run hands the drive log to the analysis at the end.
 *
 * The child processes are supervise.c's. Exit statuses of modules
 * (docs/running-a-study.md): 0 is a normal end (a module
 * told to stop: the session ends with it); 1 is a configuration error (a file that cannot be used, a device that is not there) and 2
 * a usage error: neither gets better by trying again, so the session ends with the
 * module's reason instead of restarting it. Anything else (a crash, a signal) is
 * restarted; a restarted physics-node begins a new run (--run), and each crash and
 * restart is published as session.module for the drive log. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include "cmd_log.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_file.h"
#include "sim_vehicle_file.h"
#include "sim_command.h"
#include "sim_msg_log.h"
#include "sim_msg_sim.h"
#include "sim_modules.h"
#include "sim_msg_vehicle.h"
#include "cmd_world.h"
#include "lab.h"
#include "labclock.h"
#include "screens.h"
#include "session_opts.h"
#include "supervise.h"
#include "simctl.h"

/* The car has stood still for --stall-s: the drive log says so (a log.mark), and the
 * session ends with exit status RUN_STALL_STATUS. */
static void run_on_stall(session *s)
{
    char why[160];
    snprintf(why, sizeof why, "the car has not moved for %g s of simulated time (since t = %.2f s; --stall-s)",
             s->stall.limit_s, s->stall.since_t);
    cJSON *m = cJSON_CreateObject();
    if (m && cJSON_AddStringToObject(m, "name", "ego_stalled") && cJSON_AddStringToObject(m, "text", why))
        sim_bus_publish(s->bus, SIM_TOPIC_LOG_MARK, s->stall.t, m);
    cJSON_Delete(m);
    s->status = RUN_STALL_STATUS;
    run_end_session(s, why);
}

static void on_bus_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len,
                           void *user)
{
    session *s = user;
    if (s->lab_clock) lab_clock_on_message(s->lab_clock, topic, msg);
    if (strcmp(topic, SIM_TOPIC_CLOCK_PONG) == 0) return;
    if (strcmp(topic, SIM_TOPIC_DISPATCHER_JOINED) == 0) {
        fprintf(stderr, "simctl: %s joined\n", cJSON_GetObjectItem(msg, "name")->valuestring);
        run_note_peer(s, msg);
    } else if (strcmp(topic, SIM_TOPIC_DISPATCHER_LEFT) == 0) {
        const cJSON *r = cJSON_GetObjectItem(msg, "reason");
        fprintf(stderr, "simctl: %s left (%s)\n", cJSON_GetObjectItem(msg, "name")->valuestring,
                cJSON_IsString(r) ? r->valuestring : "?");
    } else if (strcmp(topic, SIM_TOPIC_SIM_TICK) == 0) {
        const cJSON *t = cJSON_GetObjectItem(msg, "t");
        const cJSON *run = cJSON_GetObjectItem(msg, "run");
        if (cJSON_IsNumber(run) && run->valuedouble >= s->last_run) s->last_run = (int64_t)run->valuedouble;
        if (cJSON_IsNumber(t)) s->last_t = t->valuedouble;
        if (s->until_t >= 0 && cJSON_IsNumber(t) && t->valuedouble >= s->until_t - 1e-9) {
            run_end_session(s, "time reached");
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
            if (ack) sim_bus_publish(bus, SIM_TOPIC_SIM_ACK, cJSON_IsNumber(t) ? t->valuedouble : 0, ack);
            cJSON_Delete(ack);
        }
    } else if (strcmp(topic, SIM_TOPIC_VEHICLE_STATE) == 0) {
        if (!s->ending && run_stall_update(&s->stall, msg)) run_on_stall(s);
    } else if (strcmp(topic, SIM_TOPIC_SIM_END) == 0) {
        if (s->until_end) { /* the reason says whose end: the storyboard's stop trigger, the last sector */
            sim_msg_end e;
            char why[160] = "the scenario's end was reached";
            if (sim_msg_end_decode(msg, &e, NULL) == SIM_OK && e.reason[0])
                snprintf(why, sizeof why, "the scenario's end was reached: %s", e.reason);
            run_end_session(s, why);
        }
    } else if (strcmp(topic, SIM_TOPIC_CONTROL_STOP) == 0) {
        /* Every module acts on stop by itself and the dispatcher still has to answer
         * the operator (it waits up to --ack-wait-ms for the acks): give them a moment
         * before closing whatever is left. */
        if (!s->stopped_by_operator) {
            s->stopped_by_operator = true;
            uv_timer_start(&s->operator_stop, run_on_operator_stop, OPERATOR_STOP_GRACE_MS, 0);
        }
    } else if (strcmp(topic, SIM_TOPIC_LOG_STATUS) == 0) {
        static sim_msg_log_status st;
        s->log_status_ms = uv_now(s->loop);
        if (sim_msg_log_status_decode(msg, &st, NULL) == SIM_OK && st.file[0])
            snprintf(s->log_file, sizeof s->log_file, "%.*s", (int)sizeof s->log_file - 1, st.file);
    } else if (strcmp(topic, SIM_TOPIC_LOG_ERROR) == 0) {
        static sim_msg_log_error e;
        bool ok = sim_msg_log_error_decode(msg, &e, NULL) == SIM_OK && e.error[0];
        fprintf(stderr, "simctl: RECORDER ERROR: %s\n", ok ? e.error : line);
    }
}

static const char *int_text(int v)
{
    static char buf[8][24];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%d", v);
    return b;
}

/* A screens file's entry as render-node options (run_arg copies them). */
static void screen_args(child *c, const run_screen *sc)
{
    char name[64], num[32];
    run_arg2(c, "--view", sc->view);
    run_arg2(c, "--name", run_screen_bus_name(sc, name, sizeof name));
    if (sc->display >= 0) run_arg2(c, "--display", int_text(sc->display));
    if (sc->fullscreen) run_arg(c, "--fullscreen");
    if (sc->size[0]) run_arg2(c, "--size", sc->size);
    if (sc->pos[0]) run_arg2(c, "--pos", sc->pos);
    if (!isnan(sc->yaw_offset_deg)) {
        snprintf(num, sizeof num, "%g", sc->yaw_offset_deg);
        run_arg2(c, "--yaw-offset-deg", num);
    }
    if (!isnan(sc->fov_deg)) {
        snprintf(num, sizeof num, "%g", sc->fov_deg);
        run_arg2(c, "--fov-deg", num);
    }
}

static bool has_display(void)
{
    const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (d && *d) || (w && *w);
}

/* OUT/report: a link to the newest drive's report, so that the place printed before
 * per-drive reports still shows the last one (a real folder there, from before, is
 * left alone). */
static void link_newest(const char *out_dir, const char *rel)
{
    char link[1200], tmp[1300];
    struct stat st;
    snprintf(link, sizeof link, "%s/report", out_dir);
    if (lstat(link, &st) == 0 && !S_ISLNK(st.st_mode)) return;
    snprintf(tmp, sizeof tmp, "%s.%d", link, (int)getpid());
    unlink(tmp);
    if (symlink(rel, tmp) == 0 && rename(tmp, link) != 0) unlink(tmp);
}

/* Every drive keeps its report: OUT/reports/STUDY/<the log's name>/, so a second
 * subject's (or a second drive's) report never replaces the first. */
static int run_analysis(const char *log_file, const char *out_dir, const char *study)
{
    if (!run_exe_exists("analysis")) return 0;
    const char *base = strrchr(log_file, '/');
    base = base ? base + 1 : log_file;
    char stem[512], rel[1100], report_dir[1200];
    snprintf(stem, sizeof stem, "%.*s", (int)sizeof stem - 1, base);
    size_t sl = strlen(stem);
    if (sl > 7 && strcmp(stem + sl - 7, ".sqlite") == 0) stem[sl - 7] = '\0';
    snprintf(rel, sizeof rel, "reports/%s/%s", study, stem);
    snprintf(report_dir, sizeof report_dir, "%s/%s", out_dir, rel);
    sim_error merr;
    if (sim_file_mkdirs(report_dir, &merr)) {
        fprintf(stderr, "simctl: the report: %s\n", merr.msg);
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/analysis", simctl_bin_dir());
    char *argv[] = {path, "report", (char *)log_file, "--out", report_dir, NULL};
    fprintf(stderr, "simctl: analysing %s\n", log_file);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* ends with simctl, as the modules do */
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
    link_newest(out_dir, rel);
    char real[4096];
    const char *shown = realpath(report_dir, real) ? real : report_dir;
    printf("\nReport: %s/report.html\nOpen it with: xdg-open %s/report.html  (or any web browser)\n", shown, shown);
    return 0;
}

/* 128 random bits as 32 hex digits (out: 33 bytes at least); 0 or -1. */
static int run_new_secret(char *out, size_t size)
{
    unsigned char raw[16];
    if (size < 2 * sizeof raw + 1 || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) return -1;
    for (size_t i = 0; i < sizeof raw; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* simctl run's options and what was made of them, for the steps below. */
typedef struct run_config {
    const char *bus_addr, *control, *token;
    const char *until, *out, *study, *subject, *params, *meta_file, *vehicle, *model, *motion, *motion_udp;
    const char *osi, *osi_udp; /* osi-node (docs/osi.md, "Live: osi-node") */
    int osi_wait;
    const char *start, *scenario;
    session_opts so; /* driver, fullscreen, display, screens, quality, console */
    double stall_s, join_s;
    bool headless, interactive, lockstep, no_analysis, render_offscreen, record_all;
    bool has_ego, scenario_ego, want_task, render_window, want_render;
    run_screens *screens;
    const char *lab_file, *ssh_config; /* --lab, --ssh-config (docs/lab.md) */
    sim_lab *lab;                      /* NULL: everything here */
    bool lab_here[SIM_LAB_HOSTS_MAX];  /* which of its hosts is this machine */
    char lab_bus[96];                  /* the dispatcher's address in the lab */
    char wait_for[1024]; /* physics' --wait-for: the modules and views the clock waits for */
    /* the scenario's cabs (docs/cabs.md): none, or each one's name, start and vehicle */
    int n_cabs;
    struct run_cab {
        char name[33], start[128], vehicle[512];
    } cabs[SIM_SCENARIO_MAX_CABS];
    char host[256];
    int port;
} run_config;

/* The command line into rc; -1 to go on, else simctl's exit status. */
static int run_parse(int argc, char **argv, run_config *rc)
{
    *rc = (run_config){.bus_addr = SIMCTL_DEFAULT_BUS, .control = SIMCTL_DEFAULT_CONTROL, .out = "out",
                       .study = "default", .subject = "s01", .vehicle = "vehicles/bmw-318i.json",
                       .stall_s = -1, .join_s = 30};
    session_opts_init(&rc->so);
    sim_opt opts[SESSION_OPTS_N + 29] = {
        {"headless", SIM_OPT_FLAG, &rc->headless, NULL, "no windows (default when there is no display)"},
        {"interactive", SIM_OPT_FLAG, &rc->interactive, NULL, "a drive at the wheel or keyboard even without $DISPLAY"},
        {"lockstep", SIM_OPT_FLAG, &rc->lockstep, NULL, "run as fast as the slowest module allows (default when headless)"},
        {"params", SIM_OPT_STRING, &rc->params, "NAME=V,...", "OpenSCENARIO parameter values for this drive (docs/openscenario.md)"},
        {"until", SIM_OPT_STRING, &rc->until, "end|SECONDS", "end the session at the scenario's end or after SECONDS of simulated time (default end when headless)"},
        {"out", SIM_OPT_STRING, &rc->out, "DIR", "where drive logs and reports go (default out/)"},
        {"study", SIM_OPT_STRING, &rc->study, "NAME", "study name for the drive log (default 'default')"},
        {"subject", SIM_OPT_STRING, &rc->subject, "ID", "test person id for the drive log (default s01)"},
        {"meta-file", SIM_OPT_STRING, &rc->meta_file, "FILE", "JSON object of more drive-log meta (simctl study run writes it)"},
        {"record-all", SIM_OPT_FLAG, &rc->record_all, NULL, "the recorder also keeps every bus message (recorder --all; simctl export --mcap gives each topic a channel, --xosc-csv reads the trajectories)"},
        {"motion", SIM_OPT_STRING, &rc->motion, "PLATFORM", "drive a motion base: motion-node with config/motion/PLATFORM.json or a file (docs/motion.md)"},
        {"motion-udp", SIM_OPT_STRING, &rc->motion_udp, "HOST:PORT", "where motion-node sends the poses (default 127.0.0.1:7710)"},
        {"osi", SIM_OPT_STRING, &rc->osi, "[HOST:]PORT", "osi-node: ASAM OSI GroundTruth live to TCP consumers there (loopback when HOST is left out; docs/osi.md)"},
        {"osi-udp", SIM_OPT_STRING, &rc->osi_udp, "HOST:PORT", "osi-node: each GroundTruth also as one UDP datagram there"},
        {"osi-wait", SIM_OPT_INT, &rc->osi_wait, "N", "the drive starts once N OSI consumers are connected (default 0)"},
        {"vehicle", SIM_OPT_STRING, &rc->vehicle, "FILE", "vehicle parameter file (default vehicles/bmw-318i.json)"},
        {"model", SIM_OPT_STRING, &rc->model, "full|simple|wall", "vehicle model of the physics node (default full)"},
        {"start", SIM_OPT_STRING, &rc->start, "NAME", "start point of the drive (default the scenario's first)"},
        {"stall-s", SIM_OPT_DOUBLE, &rc->stall_s, "SECONDS", "end a headless session whose car has not moved for so much simulated time, exit status 3 (default 60; 0: never)"},
        {"join-s", SIM_OPT_DOUBLE, &rc->join_s, "SECONDS", "end the session, exit status 3, when the recorder has not joined the bus within SECONDS (default 30; 0: wait for ever)"},
        {"no-analysis", SIM_OPT_FLAG, &rc->no_analysis, NULL, "do not analyse the drive at the end"},
        {"render-offscreen", SIM_OPT_FLAG, &rc->render_offscreen, NULL, "also start the driver's view when headless or without a display, drawn offscreen"},
        {"bus", SIM_OPT_STRING, &rc->bus_addr, "HOST:PORT", "bus address (default 127.0.0.1:7700)"},
        {"control", SIM_OPT_STRING, &rc->control, "URL", "control endpoint (default tcp://127.0.0.1:7701)"},
        {"token", SIM_OPT_STRING, &rc->token, "TOKEN", "token for dispatcher, modules and operators"},
        {"lab", SIM_OPT_STRING, &rc->lab_file, "FILE", "start the modules on the lab's hosts through ssh (config/labs/*.json, docs/lab.md)"},
        {"ssh-config", SIM_OPT_STRING, &rc->ssh_config, "FILE", "--lab: ssh's configuration file (ssh -F FILE)"},
    };
    size_t n_opts = 0;
    while (opts[n_opts].name) n_opts++;
    session_opts_rows(&rc->so, opts + n_opts);
    n_opts += SESSION_OPTS_N;
    session_opts_console_default(argc, argv);
    int npos = 0;
    int rc_cli = sim_cli_parse("simctl run [SCENARIO] [options]",
                               "Starts a session: the dispatcher and every built module, supervised.", opts,
                               n_opts, argc, argv, 1, &npos);
    if (rc_cli == SIM_CLI_HELP) return 0;
    if (rc_cli != SIM_CLI_OK) return 2;
    if (npos > 1) {
        fprintf(stderr, "simctl run: at most one scenario file\n");
        return 2;
    }
    static run_screens screens = {.front = -1};
    rc->screens = &screens;
    sim_error err = {0};
    if (session_opts_check(&rc->so, NULL, NULL, &err)) {
        fprintf(stderr, "simctl run: %s\n", err.msg);
        return 2;
    }
    if (rc->osi_wait < 0 || (rc->osi_wait > 0 && !rc->osi)) {
        fprintf(stderr, "simctl run: --osi-wait N needs N >= 0 and --osi [HOST:]PORT\n");
        return 2;
    }
    if (rc->join_s < 0) {
        fprintf(stderr, "simctl run: --join-s must be 0 (wait for ever) or more\n");
        return 2;
    }
    rc->scenario = npos ? argv[1] : "scenarios/lane-change.json";
    return -1;
}

/* The scenario (with --start and --params), the screens and vehicle files, checked here
 * once: a file every module refuses would otherwise have the supervisor restart them
 * all forever. -1 to go on, else simctl's exit status. */
static int run_check_files(run_config *rc)
{
    sim_diag diag = {0};
    sim_scenario *sc = NULL;
    if (simctl_session_scenario(rc->scenario, &sc, &diag) != 0) {
        simctl_print_diag(&diag);
        fprintf(stderr, "simctl run: scenario '%s' cannot be used (see simctl validate)\n", rc->scenario);
        sim_diag_free(&diag);
        return 1;
    }
    sim_diag_free(&diag);
    int start_idx;
    sim_error serr = {0};
    int ret = rc->start ? sim_scenario_start_index(sc, rc->start, &start_idx, &serr) : SIM_OK;
    /* --driver scenario needs a storyboard with an ego */
    rc->has_ego = sc->xosc && sc->ego_entity >= 0;
    rc->n_cabs = sc->n_cabs;
    for (int k = 0; k < sc->n_cabs; k++) {
        struct run_cab *cab = &rc->cabs[k];
        snprintf(cab->name, sizeof cab->name, "%s", sc->cabs[k].name);
        snprintf(cab->start, sizeof cab->start, "%s", sc->starts[sc->cabs[k].start].name);
        snprintf(cab->vehicle, sizeof cab->vehicle, "%s", sc->cabs[k].vehicle ? sc->cabs[k].vehicle : rc->vehicle);
    }
    sim_scenario_free(sc);
    if (rc->n_cabs && rc->start) {
        fprintf(stderr, "simctl run: --start: the scenario's cabs name their start points (docs/cabs.md)\n");
        return 2;
    }
    if (!ret && rc->params) { /* refused here once, not by every module restarted forever */
        ret = sim_scenario_load_params(rc->scenario, rc->params, &sc, &serr);
        sim_scenario_free(sc);
        if (ret) {
            fprintf(stderr, "simctl run: %s\n", serr.msg);
            return 1;
        }
    }
    if (ret) {
        fprintf(stderr, "simctl run: --start: %s\n", serr.msg);
        return 1;
    }
    /* the screens file: a file that cannot be used (exit 1), the rest checked before */
    if (session_opts_check(&rc->so, NULL, rc->screens, &serr)) {
        fprintf(stderr, "simctl run: %s\n", serr.msg);
        return 1;
    }
    /* The vehicle file likewise: physics-node would refuse it at start. */
    sim_vehicle_params vp;
    sim_error verr;
    if (sim_vehicle_params_load(rc->vehicle, &vp, &verr) != SIM_OK) {
        fprintf(stderr, "simctl run: %s\n", verr.msg);
        return 1;
    }
    for (int k = 0; k < rc->n_cabs; k++) {
        if (sim_vehicle_params_load(rc->cabs[k].vehicle, &vp, &verr) != SIM_OK) {
            fprintf(stderr, "simctl run: cab %s: %s\n", rc->cabs[k].name, verr.msg);
            return 1;
        }
    }
    return -1;
}

/* --lab: the lab file, the bus at the dispatcher's lab address (a token needed: the
 * dispatcher listens off loopback only with one), which hosts are this machine. */
static int run_lab(run_config *rc)
{
    static sim_lab lab;
    if (lab_load(rc->lab_file, &lab) != 0) return -1;
    if (!rc->token && !(getenv("SIM_BUS_TOKEN") && getenv("SIM_BUS_TOKEN")[0])) {
        fprintf(stderr, "simctl run: --lab: the bus crosses the network: give --token TOKEN (or SIM_BUS_TOKEN)\n");
        return -1;
    }
    rc->lab = &lab;
    for (int i = 0; i < lab.n_hosts; i++) rc->lab_here[i] = lab_host_is_here(&lab.hosts[i]);
    snprintf(rc->lab_bus, sizeof rc->lab_bus, "%s:%d", lab.hosts[lab.dispatcher_host].address, lab.bus_port);
    rc->bus_addr = rc->lab_bus;
    return 0;
}

/* The lab host a child runs on: NULL when that is here (or there is no lab). */
static const sim_lab_host *run_host(const run_config *rc, int host)
{
    return rc->lab && !rc->lab_here[host] ? &rc->lab->hosts[host] : NULL;
}

/* Headless defaults, the driver, --until and --bus; -1 to go on, else the exit status. */
static int run_settle(run_config *rc, session *s)
{
    if (!rc->headless && !rc->interactive && !has_display()) rc->headless = true;
    if (rc->headless) {
        rc->lockstep = true;
        if (!rc->so.driver) rc->so.driver = "script";
        if (!rc->until) rc->until = "end";
    }
    /* --driver scenario (OpenSCENARIO): the storyboard drives its ego entity as well
     * and physics puts the car where that entity is at every tick (both nodes
     * --scenario-ego; traffic.ego), so the car, the log and the storyboard's conditions
     * agree; the input node's controls are not used */
    rc->scenario_ego = rc->so.driver && strcmp(rc->so.driver, "scenario") == 0;
    if (rc->scenario_ego && !rc->has_ego) {
        fprintf(stderr, "simctl run: --driver scenario needs an OpenSCENARIO file (.xosc), not '%s'\n", rc->scenario);
        return 2;
    }
    if (rc->scenario_ego) rc->so.driver = "script";
    if (rc->stall_s < 0) rc->stall_s = rc->headless ? RUN_STALL_DEFAULT_S : 0;
    s->stall.limit_s = rc->stall_s;
    if (rc->until) {
        if (strcmp(rc->until, "end") == 0) {
            s->until_end = true;
        } else if (!sim_cli_number(rc->until, &s->until_t) || s->until_t <= 0) {
            fprintf(stderr, "simctl run: --until expects 'end' or a number of seconds > 0, not '%s'\n", rc->until);
            return 2;
        }
    }
    if (rc->lab_file && rc->n_cabs) {
        fprintf(stderr, "simctl run: --lab: a scenario with cabs runs on one PC for now (docs/cabs.md)\n");
        return 2;
    }
    if (rc->lab_file && run_lab(rc) != 0) return 2;
    sim_error err;
    if (sim_bus_parse_endpoint(rc->bus_addr, rc->host, sizeof rc->host, &rc->port, &err) != SIM_OK) {
        fprintf(stderr, "simctl run: --bus %s\n", err.msg);
        return 2;
    }
    return -1;
}

/* Whether the session starts module m (it is built, and its row's WHEN holds). */
static bool module_wanted(const sim_module *m, const run_config *rc)
{
    if (!run_exe_exists(m->exe)) return false;
    switch (m->when) {
    case SIM_MODULE_VIEW: return rc->want_render;
    case SIM_MODULE_SOUND: return !rc->headless;
    case SIM_MODULE_TASK: return rc->want_task;
    case SIM_MODULE_MOTION: return rc->motion != NULL;
    case SIM_MODULE_OSI: return rc->osi != NULL || rc->osi_udp != NULL;
    default: return true;
    }
}

/* render-node's view options: the front view's, and a render node of its own for each
 * of the screens file's other views (not for the other cabs: their front view only). */
static void render_args(session *s, child *c, const run_config *rc, int cab)
{
    const run_screens *screens = rc->screens;
    if (!rc->render_window) run_arg(c, "--offscreen");
    if (rc->so.quality) run_arg2(c, "--quality", rc->so.quality);
    if (screens->front >= 0 && cab <= 0) screen_args(c, &screens->s[screens->front]);
    if (rc->so.display >= 0) run_arg2(c, "--display", int_text(rc->so.display));
    if (rc->so.fullscreen) run_arg(c, "--fullscreen");
    for (int k = 0; k < screens->n && cab <= 0; k++) {
        if (k == screens->front) continue;
        child *v = run_add_child(s, c->exe);
        snprintf(v->cab, sizeof v->cab, "%s", c->cab);
        run_arg2(v, "--bus", rc->bus_addr); /* the token: in the environment, never in argv (ps) */
        run_arg2(v, "--scenario", rc->scenario);
        run_arg2(v, "--vehicle", cab < 0 ? rc->vehicle : rc->cabs[cab].vehicle);
        if (!rc->render_window) run_arg(v, "--offscreen");
        if (rc->so.quality) run_arg2(v, "--quality", rc->so.quality);
        screen_args(v, &screens->s[k]);
    }
}

/* A module's options of its own (those not in its row's TAKES); cab: its index in the
 * scenario's cabs, -1 without cabs. */
static void module_args(session *s, child *c, const sim_module *m, const run_config *rc, int cab)
{
    char path[1100];
    switch (m->id) {
    case SIM_MODULE_ID_RECORDER:
        snprintf(path, sizeof path, "%s/logs", rc->out);
        run_arg2(c, "--out", path);
        run_arg2(c, "--study", rc->study);
        if (cab >= 0) { /* one log per cab, each its own test person's (docs/cabs.md) */
            snprintf(path, sizeof path, "%s-%s", rc->subject, rc->cabs[cab].name);
            run_arg2(c, "--subject", path);
        } else {
            run_arg2(c, "--subject", rc->subject);
        }
        if (rc->meta_file) run_arg2(c, "--meta-file", rc->meta_file);
        if (rc->record_all) run_arg(c, "--all");
        break;
    case SIM_MODULE_ID_TRAFFIC: /* a restarted node continues from its snapshot */
        snprintf(path, sizeof path, "%s/traffic.snapshot", rc->out);
        run_arg2(c, "--state", path);
        snprintf(path, sizeof path, "%s/sumo", rc->out); /* SUMO's files, when the scenario hands traffic to it */
        run_arg2(c, "--sumo-dir", path);
        break;
    case SIM_MODULE_ID_CONTEXT: /* its database lives with the session's output */
        snprintf(path, sizeof path, "%s/context.db", rc->out);
        run_arg2(c, "--db", path);
        break;
    case SIM_MODULE_ID_PHYSICS:
        if (rc->model) run_arg2(c, "--model", rc->model);
        /* The clock starts once everyone is there: a headless run is then the same
         * every time, and the log starts at tick 0. The other cabs' cars step on
         * the first cab's clock (docs/cabs.md). */
        if (cab > 0) run_arg(c, "--follow-clock");
        else if (rc->wait_for[0]) run_arg2(c, "--wait-for", rc->wait_for);
        run_arg2(c, "--run", "0");
        c->run_arg = c->argc - 1;
        break;
    case SIM_MODULE_ID_INPUT:
        if (rc->so.driver) run_arg2(c, "--driver", rc->so.driver);
        else run_arg2(c, "--device", "auto");
        break;
    case SIM_MODULE_ID_RENDER:
        render_args(s, c, rc, cab);
        break;
    case SIM_MODULE_ID_MOTION:
        run_arg2(c, "--platform", rc->motion);
        if (rc->motion_udp) run_arg2(c, "--udp", rc->motion_udp);
        break;
    case SIM_MODULE_ID_OSI:
        if (rc->osi) {
            /* a bare PORT listens on loopback */
            snprintf(path, sizeof path, "%s%s", strchr(rc->osi, ':') ? "" : "127.0.0.1:", rc->osi);
            run_arg2(c, "--listen", path);
        }
        if (rc->osi_udp) run_arg2(c, "--udp", rc->osi_udp);
        if (rc->osi_wait > 0) run_arg2(c, "--wait-consumers", int_text(rc->osi_wait));
        break;
    default:
        break;
    }
}

/* A lab's render channels: a render node each on its host, with its view, name,
 * display and viewport. */
static void lab_channels(session *s, const run_config *rc)
{
    for (int k = 0; k < rc->lab->n_channels; k++) {
        const sim_lab_channel *ch = &rc->lab->channels[k];
        child *v = run_add_child(s, "render-node");
        v->host = run_host(rc, ch->host);
        run_arg2(v, "--bus", rc->bus_addr);
        run_arg2(v, "--scenario", rc->scenario);
        run_arg2(v, "--vehicle", rc->vehicle);
        if (!rc->render_window) run_arg(v, "--offscreen");
        if (rc->so.quality) run_arg2(v, "--quality", rc->so.quality);
        run_arg2(v, "--view", ch->view);
        run_arg2(v, "--name", ch->name);
        if (ch->display >= 0) run_arg2(v, "--display", int_text(ch->display));
        if (ch->viewport[2] > 0) {
            char num[48];
            snprintf(num, sizeof num, "%dx%d", ch->viewport[2], ch->viewport[3]);
            run_arg2(v, "--size", num);
            snprintf(num, sizeof num, "%d,%d", ch->viewport[0], ch->viewport[1]);
            run_arg2(v, "--pos", num);
        }
    }
}

/* Appends a name to physics' --wait-for, as NAME@CAB for a cab's module. */
static void wait_for_add(run_config *rc, const char *name, int cab)
{
    size_t used = strlen(rc->wait_for);
    snprintf(rc->wait_for + used, sizeof rc->wait_for - used, "%s%s%s%s", used ? "," : "", name,
             cab >= 0 ? "@" : "", cab >= 0 ? rc->cabs[cab].name : "");
}

/* Module m's child, with the options its row says it takes and its own; cab: its
 * index in the scenario's cabs (its start point, vehicle and SIM_CAB), -1: none. */
static void plan_module(session *s, run_config *rc, const sim_module *m, int cab)
{
    const char *vehicle = cab >= 0 ? rc->cabs[cab].vehicle : rc->vehicle;
    const char *start = cab >= 0 ? rc->cabs[cab].start : rc->start;
    child *c = run_add_child(s, m->exe);
    if (cab >= 0) snprintf(c->cab, sizeof c->cab, "%s", rc->cabs[cab].name);
    if (rc->lab) c->host = run_host(rc, rc->lab->module_host[m->id]);
    run_arg2(c, "--bus", rc->bus_addr);
    run_arg2(c, "--scenario", rc->scenario);
    if (rc->lockstep && (m->takes & SIM_MODULE_LOCKSTEP)) run_arg(c, "--lockstep");
    if (m->takes & SIM_MODULE_VEHICLE) run_arg2(c, "--vehicle", vehicle);
    if (start && (m->takes & SIM_MODULE_START)) run_arg2(c, "--start", start);
    if (rc->scenario_ego && (m->takes & SIM_MODULE_EGO)) run_arg(c, "--scenario-ego");
    /* the recorder keeps them as meta (xosc_params): the analysis loads with them */
    if (rc->params && (m->takes & SIM_MODULE_PARAMS)) run_arg2(c, "--params", rc->params);
    module_args(s, c, m, rc, cab);
}

/* A lab's clock agents: one on each other host that runs a module (labclock.h). */
static void run_lab_clocks(session *s, const run_config *rc)
{
    static lab_clock clock;
    for (int i = 0; i < rc->lab->n_hosts; i++) {
        const sim_lab_host *h = run_host(rc, i);
        bool used = false;
        for (int k = 0; h && k < s->n_children && !used; k++) used = s->children[k].host == h;
        if (!used) continue;
        child *c = run_add_child(s, "simctl");
        static char names[SIM_LAB_HOSTS_MAX][80];
        snprintf(names[i], sizeof names[i], "clock-%s", h->name);
        c->name = names[i];
        c->host = h;
        run_arg(c, "__clock");
        run_arg(c, h->name);
        run_arg2(c, "--bus", rc->bus_addr);
        lab_clock_add(&clock, h->name);
    }
    s->lab_clock = &clock;
}

/* The session's children: the dispatcher, then every module sim_modules.def lists that
 * is built and wanted, with the options its row says it takes and its own. With cabs
 * (docs/cabs.md) every module runs in the first cab, and each other cab has its own of
 * the PER_CAB modules (its car following the first cab's clock). */
static void run_plan(session *s, run_config *rc)
{
    child *c = run_add_child(s, "dispatcher");
    if (rc->lab) c->host = run_host(rc, rc->lab->dispatcher_host);
    run_arg2(c, "--listen", rc->bus_addr);
    run_arg2(c, "--control", rc->control);
    rc->want_task = run_wants_task_node(rc->scenario);
    s->acks_ticks = rc->lockstep && s->until_t >= 0;
    /* One front view when there is a display to show it on; none headless unless asked. */
    rc->render_window = !rc->headless && has_display();
    rc->want_render = rc->render_window || rc->render_offscreen;
    int first = rc->n_cabs ? 0 : -1;
    if (s->acks_ticks) snprintf(rc->wait_for, sizeof rc->wait_for, "simctl");
    for (size_t i = 0; i < SIM_MODULE_COUNT; i++) {
        const sim_module *m = &sim_modules[i];
        if (!m->clock_waits || !module_wanted(m, rc)) continue;
        if (m->id == SIM_MODULE_ID_RENDER && rc->lab && rc->lab->n_channels) {
            for (int k = 0; k < rc->lab->n_channels; k++) wait_for_add(rc, rc->lab->channels[k].name, -1);
            continue;
        }
        wait_for_add(rc, m->bus_name, first);
    }
    /* Every extra view of a screens file too: under load a side screen joined after a
     * short drive had ended, and a view that misses the start misses frames of the log. */
    for (int k = 0; rc->want_render && k < rc->screens->n; k++) {
        if (k == rc->screens->front) continue;
        char name[64];
        wait_for_add(rc, run_screen_bus_name(&rc->screens->s[k], name, sizeof name), first);
    }
    /* the other cabs' modules, their cars too: a car that joins late misses ticks */
    for (int k = 1; k < rc->n_cabs; k++)
        for (size_t i = 0; i < SIM_MODULE_COUNT; i++)
            if ((sim_modules[i].takes & SIM_MODULE_PER_CAB) && module_wanted(&sim_modules[i], rc))
                wait_for_add(rc, sim_modules[i].bus_name, k);
    for (size_t i = 0; i < SIM_MODULE_COUNT; i++) {
        const sim_module *m = &sim_modules[i];
        if (!module_wanted(m, rc)) continue;
        if (m->id == SIM_MODULE_ID_RENDER && rc->lab && rc->lab->n_channels) {
            lab_channels(s, rc);
            continue;
        }
        plan_module(s, rc, m, first);
    }
    for (int k = 1; k < rc->n_cabs; k++)
        for (size_t i = 0; i < SIM_MODULE_COUNT; i++)
            if ((sim_modules[i].takes & SIM_MODULE_PER_CAB) && module_wanted(&sim_modules[i], rc))
                plan_module(s, rc, &sim_modules[i], k);
    if (rc->lab) run_lab_clocks(s, rc);
}

/* The operator's console: pages join the bus through it (docs/console.md). 0 or 1. */
static int run_console(session *s, const run_config *rc)
{
    if (!rc->so.console_addr) return 0;
    if (!run_exe_exists("console")) {
        fprintf(stderr, "simctl run: --console: bin/console is not built\n");
        return 1;
    }
    child *c = run_add_child(s, "console");
    run_arg2(c, "--bus", rc->bus_addr);
    run_arg2(c, "--control", rc->control);
    run_arg2(c, "--listen", rc->so.console_addr);
    run_arg2(c, "--scenario", rc->scenario);
    /* the token reaches it through the environment (SIM_BUS_TOKEN), as the modules' */
    fprintf(stderr, "simctl: console at http://%s/%s\n", rc->so.console_addr, rc->token ? "?token=..." : "");
    return 0;
}

/* Starts the children and simctl's own bus client and runs the loop until the session
 * has ended. */
static void run_loop(session *s, const run_config *rc)
{
    uv_signal_init(s->loop, &s->sigint);
    uv_signal_init(s->loop, &s->sigterm);
    uv_timer_init(s->loop, &s->stop_timer);
    uv_timer_init(s->loop, &s->operator_stop);
    uv_timer_init(s->loop, &s->join_timer);
    s->sigint.data = s->sigterm.data = s->stop_timer.data = s->operator_stop.data = s->join_timer.data = s;
    uv_signal_start(&s->sigint, run_on_signal, SIGINT);
    uv_signal_start(&s->sigterm, run_on_signal, SIGTERM);

    fprintf(stderr, "simctl: session with %s (%s%s)\n", rc->scenario, rc->headless ? "headless" : "interactive",
            rc->lockstep ? ", lockstep" : "");
    for (int i = 0; i < s->n_children; i++) run_start_child(&s->children[i]);
    s->join_s = rc->join_s;
    for (int i = 0; i < s->n_children && rc->join_s > 0; i++)
        if (strcmp(s->children[i].exe, "recorder") == 0)
            uv_timer_start(&s->join_timer, run_on_join_timer, (uint64_t)(rc->join_s * 1000), 0);

    const char *watch[8] = {SIM_TOPIC_SIM_TICK, SIM_TOPIC_SIM_END, SIM_TOPIC_CONTROL_STOP, SIM_TOPIC_LOG_STATUS,
                            SIM_TOPIC_LOG_ERROR};
    size_t n_watch = 5;
    if (s->stall.limit_s > 0) watch[n_watch++] = SIM_TOPIC_VEHICLE_STATE;
    if (s->lab_clock) watch[n_watch++] = SIM_TOPIC_CLOCK_PONG;
    sim_bus_options bo = {.name = "simctl", .lockstep = s->acks_ticks, .host = rc->host, .port = rc->port,
                          .token = rc->token, .subscribe = watch, .n_subscribe = n_watch,
                          .on_message = on_bus_message, .on_state = run_on_bus_state, .user = s};
    sim_error err;
    if (sim_bus_open(s->loop, &bo, &s->bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl: %s\n", err.msg);
        run_end_session(s, "no bus");
    }
    if (s->lab_clock) lab_clock_start(s->lab_clock, s);
    /* During shutdown, stages advance as children exit; a light poll keeps that simple. */
    uv_timer_t poll;
    uv_timer_init(s->loop, &poll);
    poll.data = s;
    uv_timer_start(&poll, run_on_exit_check, 50, 50);
    uv_unref((uv_handle_t *)&poll);
    uv_run(s->loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&poll, NULL);
    if (s->lab_clock) lab_clock_close(s->lab_clock);
    uv_run(s->loop, UV_RUN_DEFAULT);
    for (int i = 0; i < s->n_children; i++)
        for (int k = 0; k < s->children[i].argc; k++) free(s->children[i].argv[k]);
    for (int i = 0; i < s->n_unsent; i++) cJSON_Delete(s->unsent[i]);
}

int simctl_cmd_run(int argc, char **argv)
{
    run_config rc;
    int ret = run_parse(argc, argv, &rc);
    if (ret < 0) ret = run_check_files(&rc);
    if (ret >= 0) return ret;
    session s = {.loop = uv_default_loop(), .until_t = -1, .last_run = -1, .ssh_config = rc.ssh_config};
    if ((ret = run_settle(&rc, &s)) >= 0) return ret;
    /* The whole path: the modules' files (context.db, the drive log) go below it, and a
     * nested --out whose parent was missing left context-server unable to open its
     * database. */
    sim_error out_err = {0};
    if (sim_file_mkdirs(rc.out, &out_err)) {
        fprintf(stderr, "simctl: --out %s: %s\n", rc.out, out_err.msg);
        return 1;
    }
    /* The session's secret: modules started here show it in their hello, so that only
     * they may publish the session's topics and take its names (docs/protocol.md, "Who
     * may publish what"). It and the token reach the children through the environment,
     * never their command lines, which `ps` shows to every user. */
    if (!rc.token && getenv("SIM_BUS_TOKEN") && getenv("SIM_BUS_TOKEN")[0]) rc.token = getenv("SIM_BUS_TOKEN");
    if (rc.token) setenv("SIM_BUS_TOKEN", rc.token, 1);
    /* A secret already in the environment is the session's (a lab gives it to its own
     * lockstep clients, which need it: docs/protocol.md, "Who may publish what"); kept
     * from 805b7f0, lost in the module-table split. */
    char secret[129];
    const char *env_secret = getenv("SIM_BUS_SECRET");
    if (env_secret && strlen(env_secret) >= 16 && strlen(env_secret) < sizeof secret) {
        snprintf(secret, sizeof secret, "%s", env_secret);
    } else if (run_new_secret(secret, 33) != 0) {
        fprintf(stderr, "simctl run: cannot read random bytes for the session's secret\n");
        return 1;
    }
    setenv("SIM_BUS_SECRET", secret, 1);
    run_plan(&s, &rc);
    if (run_console(&s, &rc)) return 1;
    run_loop(&s, &rc);

    /* Issue 45: a drive whose recorder never joined (a squatter held its name, or it
     * could not start) is not recorded; that is no success. */
    bool had_recorder = false;
    for (int i = 0; i < s.n_children; i++) had_recorder |= strcmp(s.children[i].exe, "recorder") == 0;
    if (had_recorder && !s.recorder_joined && s.status == 0) {
        fprintf(stderr, "simctl: the recorder never joined the bus: this drive was not recorded; simctl exits with "
                        "status %d\n", SIMCTL_EXIT_DATA_LOST);
        s.status = SIMCTL_EXIT_DATA_LOST;
    }
    /* A short session may end before simctl heard the recorder's log.status: the
     * drive's log is then the newest in the study's folder. */
    if (rc.n_cabs) { /* one log per cab: the analysis is asked for by hand (docs/cabs.md) */
        fprintf(stderr, "simctl: %d cabs: their drive logs are %s/logs/%s/%s-CAB-*.sqlite\n", rc.n_cabs, rc.out,
                rc.study, rc.subject);
        return s.status;
    }
    if (!s.log_file[0]) simctl_newest_log(rc.out, rc.study, s.log_file, sizeof s.log_file);
    /* Interactive sessions too: a test person's drive is analysed when it stops. */
    if (!rc.no_analysis && s.log_file[0] && access(s.log_file, R_OK) == 0 &&
        (s.status == 0 || s.status == RUN_STALL_STATUS)) {
        int a = run_analysis(s.log_file, rc.out, rc.study); /* a stalled drive is analysed too: what it did counts */
        return s.status ? s.status : a;
    }
    return s.status;
}
