/* cmd_log: simctl's drive-log commands, `simctl export` and `simctl replay`
 * (docs/drivelog.md). argv[0] is the subcommand's name; the return value is the
 * process exit code (0 ok, 1 failure, 2 usage error). */
#ifndef SIMCTL_CMD_LOG_H
#define SIMCTL_CMD_LOG_H

int simctl_cmd_export(int argc, char **argv);
int simctl_cmd_replay(int argc, char **argv);

#include <stddef.h>

/* The newest drive log (.sqlite) in OUT/logs/STUDY into path ("" when none): by
 * modification time to the nanosecond, then by name. */
void simctl_newest_log(const char *out, const char *study, char *path, size_t size);

#endif
