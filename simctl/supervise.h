/* supervise: the processes of a `simctl run` session (see cmd_run.c): starting
 * them, restarting what crashed (with back-off; a restarted physics-node gets the next
 * run number), ending the session on a configuration error or when a module ends by
 * itself, telling the drive log (session.module), and shutting down in stages so that
 * nothing is lost. Everything runs on the session's libuv loop. */
#ifndef SIMCTL_SUPERVISE_H
#define SIMCTL_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "sim_bus.h"
#include "sim_lab.h"
#include "stall.h"

#define MAX_ARGS 32
#define RESTART_FIRST_MS 100
#define RESTART_MAX_MS 5000
#define STABLE_MS 10000
/* A recorder restarted while the session ends is told to stop once it has said a
 * log.status (it has joined and is taking the dispatcher's backlog), or after this. */
#define RECORDER_REJOIN_MS 2500
/* The longest the shutdown waits for a restarted recorder to come back (its pending
 * restart, up to RESTART_MAX_MS, and its rejoining): one that cannot be started at all
 * must not hold the session open. */
#define RECORDER_ENDING_WAIT_MS (RESTART_MAX_MS + RECORDER_REJOIN_MS)
/* How long a module may take to stop after its SIGTERM before it is killed; the
 * recorder, which drains and closes the drive log, longer. */
#define STOP_MS 3000
#define RECORDER_STOP_MS 10000
/* Restarts of the recorder while the session ends before its loss is given up on. */
#define RECORDER_ENDING_RESTARTS 3
#define OPERATOR_STOP_GRACE_MS 1500 /* > the dispatcher's ack wait (500 ms) and its 200 ms linger */

typedef struct session session;

typedef struct child {
    session *s;
    const char *exe;        /* executable name in the bin directory */
    const char *name;       /* how simctl's messages name it (a lab's clock agent: "clock-HOST"); NULL: exe */
    char *argv[MAX_ARGS];
    int argc;
    uv_process_t proc;
    uv_timer_t restart_timer;
    bool running, stopping;
    unsigned backoff_ms;
    uint64_t started_ms;
    int restarts;
    int run_arg;            /* physics-node: index of the --run value in argv; 0: none */
    bool restart_pending;   /* its restart timer runs */
    int ending_restarts;    /* recorder: restarts while the session was ending */
    bool killed_by_simctl;  /* SIGKILLed for not stopping in time: no restart for that */
    /* lab (docs/lab.md): the host it runs on when that is another machine (started
     * through ssh under `simctl __remote`); NULL: here */
    const sim_lab_host *host;
    uv_pipe_t stdin_pipe;   /* remote: the ssh channel's stdin (token, secret, "term") */
    char cab[33];           /* the cab it belongs to (SIM_CAB in its environment, docs/cabs.md); "": none */
} child;

struct session {
    uv_loop_t *loop;
    sim_bus *bus;
    uv_signal_t sigint, sigterm;
    uv_timer_t stop_timer;
    uv_timer_t operator_stop;   /* the grace after control.stop */
    uv_timer_t join_timer;      /* --join-s: the recorder must have joined by then */
    double join_s;              /* 0: no limit */
    bool stopped_by_operator;   /* modules are exiting by themselves: do not restart them */
    child children[40];      /* the dispatcher, the modules, extra views of a screens file */
    int n_children;
    bool ending;
    const char *ssh_config; /* lab: ssh's -F FILE, or NULL */
    struct lab_clock *lab_clock; /* lab: the other hosts' clocks (labclock.h); NULL: none */
    uint64_t ending_ms;     /* loop time the session began to end */
    bool handles_closed; /* the session's own handles are closing: shutdown ran to its end */
    int stage;              /* shutdown stage: 0 modules, 1 recorder, 2 dispatcher */
    double until_t;         /* < 0: no time limit */
    bool acks_ticks;        /* lockstep with a time limit: simctl holds the clock at until_t */
    bool until_end;
    char log_file[1024];
    int status;     /* simctl run's exit status: 1 a module's configuration error,
                       SIMCTL_EXIT_DATA_LOST the recorder lost rows at close */
    int64_t last_run;       /* the newest run seen on sim.tick; -1: none yet */
    uint64_t log_status_ms; /* loop time of the recorder's newest log.status; 0: none */
    bool recorder_joined;   /* a "recorder" with the session's secret was seen on the bus */
    double last_t;          /* its newest time */
    run_stall stall;        /* headless: the car standing for good ends the session */
    /* session.module events not yet published (the dispatcher itself was away) */
    cJSON *unsent[16];
    double unsent_t[16];
    int n_unsent;
};


/* Whether bin/<exe> (beside simctl) exists. */
bool run_exe_exists(const char *exe);
/* Whether the scenario runs a secondary task, so the session needs task-node (run_tasks.c). */
bool run_wants_task_node(const char *scenario);
/* A new child running exe (not started); arguments follow with run_arg/run_arg2. */
child *run_add_child(session *s, const char *exe);
void run_arg(child *c, const char *a);
void run_arg2(child *c, const char *flag, const char *value);
void run_start_child(child *c);
/* Sends sig (SIGTERM, SIGKILL) to a running child, here or on its lab host. */
void run_signal_child(child *c, int sig);
/* Ends the session: modules, then the recorder, then the dispatcher. */
void run_end_session(session *s, const char *why);
/* Loop callbacks the session installs (data: the session). */
void run_on_signal(uv_signal_t *sig, int signum);
void run_on_exit_check(uv_timer_t *t);
void run_on_stop_timer(uv_timer_t *t);
void run_on_operator_stop(uv_timer_t *t);
/* --join-s has passed: a recorder that has not joined ends the session, status
 * SIMCTL_EXIT_DATA_LOST (the clock waits for it: the drive would never start). */
void run_on_join_timer(uv_timer_t *t);
/* Notes a module on the bus (a welcome's peer or dispatcher.joined): the session's
 * recorder, when it showed the secret. */
void run_note_peer(session *s, const cJSON *peer);
/* The bus's on_state: publishes the session.module events kept while it was away. */
void run_on_bus_state(sim_bus *bus, const cJSON *welcome, void *user);

/* simctl run's exit status when the recorder lost rows of the drive log at close (the
 * recorder's own exit status for it, REC_EXIT_LOST). */
#define SIMCTL_EXIT_DATA_LOST 3

#endif
