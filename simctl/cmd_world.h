/* cmd_world: the `simctl validate` and `simctl where` subcommands (scenario files).
 * argv[0] is the subcommand's name; the return value is the exit status
 * (0 valid / found, 1 invalid, 2 usage). */
#ifndef SIMCTL_CMD_WORLD_H
#define SIMCTL_CMD_WORLD_H

#include "sim_scenario.h"

int simctl_cmd_validate(int argc, char **argv);
int simctl_cmd_where(int argc, char **argv);

/* Loads a scenario for a session: the loader's checks, plus what a session needs
 * that a scenario file alone does not (a start point for the car). 0 with the
 * scenario in *out (caller frees; out may be NULL), or the messages in d (each naming
 * the file and field). */
int simctl_session_scenario(const char *path, sim_scenario **out, sim_diag *d);

/* Prints a loader's messages to stderr, one a line, and how many were left out. */
void simctl_print_diag(const sim_diag *d);

#endif
