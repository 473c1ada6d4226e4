/* supervise: a session's child processes (see supervise.h). */
#include "supervise.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "sim_msg_log.h"
#include "simctl.h"

/* How messages and session.module name a child: its name, or its executable's. */
static const char *who(const child *c)
{
    return c->name ? c->name : c->exe;
}

static char *xstrdup(const char *s)
{
    return strdup(s ? s : "");
}

bool run_exe_exists(const char *exe)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", simctl_bin_dir(), exe);
    return access(path, X_OK) == 0;
}


static bool is_recorder(const child *c)
{
    return strcmp(c->exe, "recorder") == 0;
}

static void on_restart_timer(uv_timer_t *t)
{
    child *c = t->data;
    c->restart_pending = false;
    /* The recorder comes back even while the session ends (before its own stage): the
     * shutdown waits for it to take the dispatcher's backlog and close the log. */
    if (!c->s->ending || (is_recorder(c) && c->s->stage <= 1)) run_start_child(c);
}

/* Tries again after the current back-off, which doubles up to RESTART_MAX_MS. */
static void schedule_restart(child *c)
{
    c->restart_pending = true;
    uv_timer_start(&c->restart_timer, on_restart_timer, c->backoff_ms, 0);
    c->backoff_ms = c->backoff_ms * 2 > RESTART_MAX_MS ? RESTART_MAX_MS : c->backoff_ms * 2;
}


/* session.module {module, what, status, signal, run}: a crash or restart for the
 * drive log (the recorder logs it as a "session" event). */
static void publish_module_event(session *s, const child *c, const char *what, int64_t status, int term_signal)
{
    sim_msg_session_module m = {.status = (double)status, .signal = term_signal, .run = (double)s->last_run};
    snprintf(m.module, sizeof m.module, "%s", who(c));
    snprintf(m.what, sizeof m.what, "%s", what);
    cJSON *p = sim_msg_session_module_encode(&m);
    if (!p) return;
    if (s->bus && sim_bus_publish(s->bus, SIM_TOPIC_SESSION_MODULE, s->last_t, p) == SIM_OK) {
        cJSON_Delete(p);
    } else if (s->n_unsent < (int)(sizeof s->unsent / sizeof s->unsent[0])) {
        /* kept for the next welcome: a crash of the dispatcher is news too */
        s->unsent_t[s->n_unsent] = s->last_t;
        s->unsent[s->n_unsent++] = p;
    } else {
        fprintf(stderr, "simctl: could not publish that %s %s (no bus)\n", who(c), what);
        cJSON_Delete(p);
    }
}

void run_note_peer(session *s, const cJSON *peer)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(peer, "name");
    /* "recorder", or a cab's "recorder@CAB" (docs/cabs.md) */
    if (cJSON_IsString(name) && strncmp(name->valuestring, "recorder", 8) == 0 &&
        (name->valuestring[8] == '\0' || name->valuestring[8] == '@') &&
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(peer, "session")))
        s->recorder_joined = true;
}

void run_on_bus_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    session *s = user;
    if (!welcome) return;
    const cJSON *peer;
    cJSON_ArrayForEach(peer, cJSON_GetObjectItemCaseSensitive(welcome, "peers")) run_note_peer(s, peer);
    for (int i = 0; i < s->n_unsent; i++) {
        sim_bus_publish(bus, SIM_TOPIC_SESSION_MODULE, s->unsent_t[i], s->unsent[i]);
        cJSON_Delete(s->unsent[i]);
    }
    s->n_unsent = 0;
}

static void on_child_exit(uv_process_t *p, int64_t status, int term_signal)
{
    child *c = p->data;
    session *s = c->s;
    c->running = false;
    uv_close((uv_handle_t *)p, NULL);
    if (c->host) {
        uv_close((uv_handle_t *)&c->stdin_pipe, NULL);
        /* simctl __remote's 128 + signal is the module's signal; ssh's own 255 is the
         * link (or the host) gone, a crash to restart from as any other */
        if (!term_signal && status > 128 && status < 128 + 65) {
            term_signal = (int)status - 128;
            status = 0;
        } else if (!term_signal && status == 255) {
            fprintf(stderr, "simctl: lost %s on host %s (%s): ssh ended with status 255\n", who(c), c->host->name,
                    c->host->address);
        }
    }
    if (!term_signal && status == SIMCTL_EXIT_DATA_LOST && strcmp(c->exe, "recorder") == 0) {
        /* The recorder ended (stopping) but could not commit every row: the session's
         * status says so whatever else happens (docs/drivelog.md, "Every loss said"). */
        fprintf(stderr, "simctl: the recorder lost rows of the drive log at close (see its last line); "
                        "simctl exits with status %d\n", SIMCTL_EXIT_DATA_LOST);
        s->status = SIMCTL_EXIT_DATA_LOST;
        status = 0;
    }
    /* (exit status 1 or 2 is the recorder's configuration error: its own message says it) */
    /* (a recorder that never joined as "recorder" has no drive log to close: one that
     * failed its configuration and was stopped with the session is not restarted) */
    if (is_recorder(c) && s->recorder_joined && (term_signal || (status != 0 && status != 1 && status != 2)) &&
        (s->ending || c->stopping || s->stopped_by_operator)) {
        /* Killed near the end of a drive (issue 45): restarted while its stage is still
         * to come, so that it resumes its file and drains the backlog; killed while
         * closing the log (after its SIGTERM, the dispatcher still up), its stage is
         * gone back to and it is restarted the same way, so that it closes the file
         * after all. Killed by simctl itself (it did not stop in time) or too often,
         * the loss is said and the status says it. */
        bool closing = c->stopping && s->ending && s->stage == 2 && !c->killed_by_simctl;
        if ((closing || (!c->stopping && s->stage <= 1)) && c->ending_restarts < RECORDER_ENDING_RESTARTS) {
            if (closing) {
                c->stopping = false;
                s->stage = 1;
            }
            c->ending_restarts++;
            fprintf(stderr, "simctl: the recorder %s %lld while the session was ending; restarting it, the "
                            "shutdown waits for it to close the drive log\n",
                    term_signal ? "was killed by signal" : "exited with status",
                    (long long)(term_signal ? term_signal : status));
            publish_module_event(s, c, "crashed", status, term_signal);
            c->restarts++;
            c->backoff_ms = RESTART_FIRST_MS;
            schedule_restart(c);
            return;
        }
        fprintf(stderr, "simctl: the recorder %s %lld while closing the drive log: its last rows may be lost and "
                        "the log has no end_utc; simctl exits with status %d\n",
                term_signal ? "was killed by signal" : "exited with status",
                (long long)(term_signal ? term_signal : status), SIMCTL_EXIT_DATA_LOST);
        publish_module_event(s, c, "lost", status, term_signal);
        if (s->status == 0) s->status = SIMCTL_EXIT_DATA_LOST;
        return;
    }
    if (s->ending || c->stopping || s->stopped_by_operator) return;
    if (!term_signal && status == 0) {
        /* A module ends by itself only when told to (control.stop, which may reach it
         * before simctl hears of it): the session is ending, nothing is restarted. */
        fprintf(stderr, "simctl: %s ended (status 0); ending the session\n", who(c));
        s->stopped_by_operator = true;
        uv_timer_start(&s->operator_stop, run_on_operator_stop, OPERATOR_STOP_GRACE_MS, 0);
        return;
    }
    if (!term_signal && (status == 1 || status == 2)) {
        /* its own message (above, on stderr) says what is wrong */
        char why[160];
        snprintf(why, sizeof why, "%s stopped with a %s error (exit status %lld); see its message above", who(c),
                 status == 1 ? "configuration" : "usage", (long long)status);
        publish_module_event(s, c, "config_error", status, 0);
        s->status = 1;
        run_end_session(s, why);
        return;
    }
    uint64_t ran = uv_now(s->loop) - c->started_ms;
    if (ran >= STABLE_MS) c->backoff_ms = RESTART_FIRST_MS;
    if (term_signal)
        fprintf(stderr, "simctl: %s was killed by signal %d; restarting in %u ms\n", who(c), term_signal, c->backoff_ms);
    else
        fprintf(stderr, "simctl: %s exited with status %lld; restarting in %u ms\n", who(c), (long long)status,
                c->backoff_ms);
    publish_module_event(s, c, "crashed", status, term_signal);
    c->restarts++;
    if (c->run_arg && s->last_run >= 0) {
        /* a new run, never a second run 0 spliced into the log */
        char run[24];
        snprintf(run, sizeof run, "%lld", (long long)s->last_run + 1);
        free(c->argv[c->run_arg]);
        c->argv[c->run_arg] = xstrdup(run);
    }
    schedule_restart(c);
}

/* Sends sig to c: a remote module's is a line on the ssh channel for simctl __remote
 * ("term"); SIGKILL ends the ssh client itself (__remote then ends the module). */
void run_signal_child(child *c, int sig)
{
    if (c->host && sig == SIGTERM) {
        uv_buf_t b = uv_buf_init("term\n", 5);
        if (uv_try_write((uv_stream_t *)&c->stdin_pipe, &b, 1) == 5) return;
    }
    uv_process_kill(&c->proc, sig);
}

/* The token and the secret as two lines on the ssh channel's stdin (never on a command
 * line: `ps` on either host shows those). */
static void send_secrets(child *c)
{
    const char *token = getenv("SIM_BUS_TOKEN"), *secret = getenv("SIM_BUS_SECRET");
    char lines[1100];
    int n = snprintf(lines, sizeof lines, "%s\n%s\n", token ? token : "", secret ? secret : "");
    uv_buf_t b = uv_buf_init(lines, (unsigned)n);
    if (n <= 0 || (size_t)n >= sizeof lines || uv_try_write((uv_stream_t *)&c->stdin_pipe, &b, 1) != n)
        fprintf(stderr, "simctl: could not hand %s on %s its token and secret\n", who(c), c->host->name);
}

void run_start_child(child *c)
{
    /* Every module starts as simctl-child (simctl-child/main.c), which makes it end when
     * simctl ends (PR_SET_PDEATHSIG) and then becomes the module. */
    char path[1024], self[1024], ppid[24], cmd[8192];
    snprintf(path, sizeof path, "%s/%s", simctl_bin_dir(), c->exe);
    snprintf(self, sizeof self, "%s/simctl-child", simctl_bin_dir());
    snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
    char *args[sizeof c->argv / sizeof c->argv[0] + 40] = {self, ppid, path};
    for (int i = 0; i < c->argc; i++) args[3 + i] = c->argv[i];
    uv_stdio_container_t stdio[3] = {{.flags = UV_IGNORE},
                                     {.flags = UV_INHERIT_FD, .data.fd = 1},
                                     {.flags = UV_INHERIT_FD, .data.fd = 2}};
    if (c->host) {
        /* ssh ... simctl __remote HOST EXE ARGS, still under simctl-child (dies with simctl) */
        const char *ssh = getenv("SIMCTL_SSH") ? getenv("SIMCTL_SSH") : "/usr/bin/ssh";
        snprintf(path, sizeof path, "%s", ssh);
        if (lab_ssh_args(c->host, c->s->ssh_config, c->exe, c->argv, c->argc, args + 3,
                         (int)(sizeof args / sizeof *args) - 3, cmd, sizeof cmd) != 0) {
            fprintf(stderr, "simctl: the command line of %s on %s is too long\n", who(c), c->host->name);
            return;
        }
        uv_pipe_init(c->s->loop, &c->stdin_pipe, 0);
        stdio[0] = (uv_stdio_container_t){.flags = UV_CREATE_PIPE | UV_READABLE_PIPE,
                                          .data.stream = (uv_stream_t *)&c->stdin_pipe};
    }
    /* a missing module is spawned as it is, so that the failure shows at once; without
     * simctl-child (an install that lacks it) the module would outlive a killed simctl */
    bool wrap = access(path, X_OK) == 0 && access(self, X_OK) == 0;
    static bool warned;
    if (access(self, X_OK) != 0 && !warned) {
        warned = true;
        fprintf(stderr, "simctl: %s is missing: the modules will not end if simctl is killed\n", self);
    }
    uv_process_options_t o = {.file = wrap ? self : path, .args = wrap ? args : c->argv, .stdio = stdio,
                              .stdio_count = 3, .exit_cb = on_child_exit};
    c->proc.data = c;
    /* A cab's module learns its cab from its environment (docs/cabs.md); uv_spawn
     * copies the environment as it is now, and simctl is single-threaded. */
    if (c->cab[0]) setenv("SIM_CAB", c->cab, 1);
    int rc = uv_spawn(c->s->loop, &c->proc, &o);
    if (c->cab[0]) unsetenv("SIM_CAB");
    if (rc != 0) {
        fprintf(stderr, "simctl: cannot start %s: %s; retrying in %u ms\n", path, uv_strerror(rc), c->backoff_ms);
        uv_close((uv_handle_t *)&c->proc, NULL);
        if (c->host) uv_close((uv_handle_t *)&c->stdin_pipe, NULL);
        schedule_restart(c);
        return;
    }
    if (c->host) send_secrets(c);
    c->running = true;
    c->started_ms = uv_now(c->s->loop);
    if (c->restarts) publish_module_event(c->s, c, "restarted", 0, 0);
}

child *run_add_child(session *s, const char *exe)
{
    assert(s->n_children < (int)(sizeof s->children / sizeof s->children[0]));
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

void run_arg(child *c, const char *a)
{
    if (c->argc >= MAX_ARGS - 1) {
        /* A programming error (the table of arguments grew): say so, do not drop it. */
        fprintf(stderr, "simctl: too many arguments for %s (over %d); '%s' left out\n", who(c), MAX_ARGS - 1, a);
        return;
    }
    c->argv[c->argc++] = xstrdup(a);
}

void run_arg2(child *c, const char *flag, const char *value)
{
    run_arg(c, flag);
    run_arg(c, value);
}

/* Shutdown in stages so that nothing is lost: first the modules that produce data,
 * then the recorder (which flushes everything it received), then the dispatcher. */
static void shutdown_stage(session *s);

void run_on_stop_timer(uv_timer_t *t)
{
    session *s = t->data;
    for (int i = 0; i < s->n_children; i++) {
        child *c = &s->children[i];
        if (c->running && c->stopping) {
            c->killed_by_simctl = true;
            fprintf(stderr, "simctl: %s did not stop in time; killing it\n", who(c));
            run_signal_child(c, SIGKILL);
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
        /* a recorder on its way back: its stage waits for it to be up and joined, also
         * one that crashed just before the end (a lockstep drive's last 0.1 s is a few
         * ms of wall time: its restart was pending or it had not joined yet, and the
         * SIGTERM of its stage found it starting, so the log lost its tail) */
        uint64_t now = uv_now(s->loop);
        if (is_recorder(c) && s->stage <= 1 && (c->ending_restarts || c->restarts) &&
            now - s->ending_ms < RECORDER_ENDING_WAIT_MS) {
            if (c->restart_pending) return;
            if (c->running && !c->stopping && s->log_status_ms < c->started_ms &&
                now - c->started_ms < RECORDER_REJOIN_MS)
                return;
        }
    }
    while (s->stage <= 2) {
        int signalled = 0;
        for (int i = 0; i < s->n_children; i++) {
            child *c = &s->children[i];
            if (!(is_recorder(c) && c->restart_pending && s->stage <= 1 &&
                  uv_now(s->loop) - s->ending_ms < RECORDER_ENDING_WAIT_MS)) {
                uv_timer_stop(&c->restart_timer);
                c->restart_pending = false;
            }
            if (stage_of(c) == s->stage && c->running && !c->stopping) {
                c->stopping = true;
                run_signal_child(c, SIGTERM);
                signalled++;
            }
        }
        s->stage++;
        if (signalled) {
            if (s->stage == 3 && s->bus) {
                sim_bus_close(s->bus);
                s->bus = NULL;
            }
            /* the recorder's stage (now 2) gets longer: it waits up to 2.5 s for the
             * dispatcher's flush and then closes the log (a full disk's loss event and
             * end_utc included); 3 s left it half a second, and under load it was
             * killed before end_utc (test_session_faults, rows_lost_at_close) */
            uv_timer_start(&s->stop_timer, run_on_stop_timer, s->stage == 2 ? RECORDER_STOP_MS : STOP_MS, 0);
            return;
        }
    }
    /* Everything has stopped. A child's exit and the stop timer can both get here
     * (under load the two callbacks land in one loop turn): close once. */
    if (s->handles_closed) return;
    s->handles_closed = true;
    if (s->bus) {
        sim_bus_close(s->bus);
        s->bus = NULL;
    }
    uv_close((uv_handle_t *)&s->stop_timer, NULL);
    uv_close((uv_handle_t *)&s->operator_stop, NULL);
    uv_close((uv_handle_t *)&s->join_timer, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    for (int i = 0; i < s->n_children; i++) uv_close((uv_handle_t *)&s->children[i].restart_timer, NULL);
}


void run_end_session(session *s, const char *why)
{
    if (s->ending) return;
    s->ending = true;
    s->ending_ms = uv_now(s->loop);
    fprintf(stderr, "simctl: ending the session (%s)\n", why);
    s->stage = 0;
    shutdown_stage(s);
}

/* Poll during shutdown: a stage completes when its processes have exited. */
void run_on_exit_check(uv_timer_t *t)
{
    session *s = t->data;
    if (s->ending) shutdown_stage(s);
}

void run_on_signal(uv_signal_t *sig, int signum)
{
    run_end_session(sig->data, signum == SIGINT ? "Ctrl-C" : "SIGTERM");
}

void run_on_operator_stop(uv_timer_t *t)
{
    run_end_session(t->data, "operator's stop");
}

void run_on_join_timer(uv_timer_t *t)
{
    session *s = t->data;
    if (s->recorder_joined || s->ending) return;
    /* (issue 45) physics' clock waits for the session's recorder: without it the drive
     * never starts, or, were it not waited for, would go unrecorded */
    fprintf(stderr, "simctl: the recorder has not joined the bus within %g s (--join-s): the drive cannot be "
                    "recorded; simctl exits with status %d\n", s->join_s, SIMCTL_EXIT_DATA_LOST);
    s->status = SIMCTL_EXIT_DATA_LOST;
    run_end_session(s, "the recorder never joined");
}

