/* sim_node: the skeleton every bus module's main() is built on (docs/protocol.md,
 * "How to write a module").
 *
 * A module describes itself in a sim_node_desc (its name, its options, what it
 * subscribes to and the callbacks below) and main() is one call, sim_node_run. The
 * skeleton adds --bus HOST:PORT and --token TOKEN to the module's options, parses the
 * command line (--help, unknown flags, no positional arguments), parses the endpoint,
 * calls setup, opens the bus on the default libuv loop, catches SIGINT and SIGTERM,
 * reads every message's envelope {topic, src, seq, t} once, runs the loop and tears
 * down in order. What is left to the module is what makes it that module.
 *
 * Lifecycle and exit status:
 *   parse options  (--help: 0; a bad option or argument: 2)
 *   setup          (returns 0 to go on, else the exit status; err is printed as
 *                   "<prog>: <message>")
 *   open the bus   (fails: teardown, then 1)
 *   start          (as setup: 0 to go on)
 *   run the loop   (on_message, on_bus, on_signal ...; sim_node_stop ends it)
 *   teardown       (its return value is the exit status; the bus is still open when
 *                   the loop was ended with uv_stop, as the recorder does to drain)
 *
 * Ownership: sim_node_run owns the sim_node, the bus and the signal handles; the module
 * owns what it builds in setup and frees it in teardown. Strings in the envelope point
 * into the message and are valid only during on_message. */
#ifndef SIM_NODE_H
#define SIM_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_error.h"

/* What every message carries besides its payload (docs/protocol.md, "Envelope"). */
typedef struct sim_envelope {
    const char *topic;  /* never NULL */
    const char *src;    /* the sender's module name; NULL when absent */
    int64_t seq;        /* the sender's sequence number; -1 when absent */
    double t;           /* simulation time, s: a finite number, or NAN when absent or
                           not finite (the one check of t every module relies on) */
    const char *line;   /* the raw message without its newline */
    size_t len;
} sim_envelope;

/* Reads the envelope of msg (a parsed bus message) into env; line/len are kept as
 * given. Returns SIM_OK, or SIM_EINVAL when msg has no string topic (env->topic is
 * then ""). */
int sim_envelope_read(const cJSON *msg, const char *line, size_t len, sim_envelope *env);

typedef struct sim_node sim_node;

/* setup's answer when the module did all its work there (an interactive set-up that
 * needs no bus): exit 0 without joining the bus. */
enum { SIM_NODE_DONE = -1 };

typedef struct sim_node_desc {
    const char *prog;            /* "traffic-node": the prefix of every message on stderr */
    const char *usage;           /* the usage line of --help */
    const char *about;           /* one sentence under it */
    const sim_opt *opts;         /* the module's own options (--bus, --token are added) */
    size_t n_opts;
    /* The bus hello: name, subscribe, acts_on, lockstep, durable, subscribe_none. The
     * skeleton fills host, port, token and the callbacks. setup may change it through
     * sim_node_bus_options. */
    sim_bus_options bus;
    /* Checks the option values and builds the module (files, world, devices); no bus
     * yet. Returns 0 to go on, else the exit status (2: usage, 1: anything else) with
     * err's message printed when it has one. Cleans up after itself when it fails. */
    int (*setup)(sim_node *node, void *user, sim_error *err);
    /* The bus is open (not yet connected): start timers, say what runs. Same return
     * as setup; teardown runs after a failure. NULL: nothing. */
    int (*start)(sim_node *node, void *user, sim_error *err);
    /* Every message, with its envelope, until sim_node_stop. */
    void (*on_message)(sim_node *node, const sim_envelope *env, const cJSON *msg, void *user);
    /* Connected and welcomed (welcome: dispatcher.welcome), or lost (NULL). NULL: nothing. */
    void (*on_bus)(sim_node *node, const cJSON *welcome, void *user);
    /* SIGINT/SIGTERM. NULL: sim_node_stop(node, "SIGINT" or "SIGTERM"). A module that
     * must finish something first (fade a motor out, drain the bus) does so and calls
     * sim_node_stop, or uv_stop, itself. */
    void (*on_signal)(sim_node *node, int signum, void *user);
    /* sim_node_stop began (after start ran): close the module's own handles; the skeleton closes
     * the bus and the signal handles right after. NULL: nothing. */
    void (*on_stop)(sim_node *node, const char *why, void *user);
    /* After the loop: free what setup built. Returns the exit status. NULL: 0. */
    int (*teardown)(sim_node *node, void *user);
    void *user;
} sim_node_desc;

/* Runs the module described by desc with the command line argc/argv; returns the
 * process's exit status (main returns it). Uses the default libuv loop. */
int sim_node_run(const sim_node_desc *desc, int argc, char **argv);

/* Ends the module: on_stop, then the bus (what was published is still sent) and the
 * signal handles close, and the loop ends once the module's own handles are closed
 * too. Idempotent; messages arriving after it are not handed on. */
void sim_node_stop(sim_node *node, const char *why);

/* NULL before the bus is open (in setup) and after the node is stopped. */
sim_bus *sim_node_bus(const sim_node *node);
uv_loop_t *sim_node_loop(const sim_node *node);
/* The hello to be sent, with host, port and token from the command line; setup may
 * change subscribe, acts_on, lockstep... */
sim_bus_options *sim_node_bus_options(sim_node *node);
/* --bus as given, e.g. "127.0.0.1:7700". */
const char *sim_node_endpoint(const sim_node *node);

#endif
