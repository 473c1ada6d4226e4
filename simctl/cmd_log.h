/* cmd_log: simctl's drive-log commands, `simctl export` and `simctl replay`
 * (docs/drivelog.md). argv[0] is the subcommand's name; the return value is the
 * process exit code (0 ok, 1 failure, 2 usage error). */
#ifndef SIMCTL_CMD_LOG_H
#define SIMCTL_CMD_LOG_H

int simctl_cmd_export(int argc, char **argv);
int simctl_cmd_replay(int argc, char **argv);

#endif
