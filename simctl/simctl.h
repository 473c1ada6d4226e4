/* simctl: the operator's and experimenter's command line. Each subcommand lives in
 * its own file (cmd_*.c) as int simctl_cmd_<name>(int argc, char **argv), where
 * argv[0] is the subcommand; the return value is the exit status. */
#ifndef SIMCTL_H
#define SIMCTL_H

#include <stddef.h>

#define SIMCTL_DEFAULT_BUS "127.0.0.1:7700"
#define SIMCTL_DEFAULT_CONTROL "tcp://127.0.0.1:7701"
#define SIMCTL_DEFAULT_CONSOLE "127.0.0.1:7780"
/* A command's reply waits up to the dispatcher's --ack-wait-ms (500 ms by default)
 * for the modules: simctl waits longer than any sensible setting of it. */
#define SIMCTL_CONTROL_TIMEOUT_MS 10000
/* tap: a dispatcher that has not welcomed us by then is taken as absent. */
#define SIMCTL_JOIN_TIMEOUT_MS 3000

int simctl_cmd_run(int argc, char **argv);
int simctl_cmd_tap(int argc, char **argv);
int simctl_cmd_send(int argc, char **argv);
int simctl_cmd_control(int argc, char **argv);
int simctl_cmd_status(int argc, char **argv);
int simctl_cmd_study(int argc, char **argv);
int simctl_cmd_latency(int argc, char **argv);

/* Sends one request to the control endpoint and returns the reply (caller frees) or
 * NULL with a message in err. */
char *simctl_control_request(const char *url, const char *request, int timeout_ms, char *err, size_t err_size);

/* Directory of the running executable (for finding sibling executables): a static
 * buffer filled on the first call, never to be freed. */
const char *simctl_bin_dir(void);
/* `simctl __remote HOST EXE ARGS...`: a module on another host of a lab (remote.c). */
int simctl_exec_remote(int argc, char **argv);
/* `simctl __clock HOST --bus ADDR:PORT`: a lab host's clock agent (clock_agent.c). */
int simctl_exec_clock(int argc, char **argv);

#endif
