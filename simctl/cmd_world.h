/* cmd_world: the `simctl validate` and `simctl where` subcommands (scenario files).
 * argv[0] is the subcommand's name; the return value is the exit status
 * (0 valid / found, 1 invalid, 2 usage). */
#ifndef SIMCTL_CMD_WORLD_H
#define SIMCTL_CMD_WORLD_H

int simctl_cmd_validate(int argc, char **argv);
int simctl_cmd_where(int argc, char **argv);

#endif
