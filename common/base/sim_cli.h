/* sim_cli: command-line options shared by every executable.
 *
 * A table of options is parsed in one call; --help prints the usage built from the
 * table, and an unknown flag or a bad value prints an error naming it plus the usage.
 * Values are written into caller-owned storage; string values point into argv. */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include "sim_error.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum { SIM_OPT_FLAG, SIM_OPT_STRING, SIM_OPT_INT, SIM_OPT_DOUBLE } sim_opt_kind;

typedef struct sim_opt {
    const char *name;    /* long name without dashes, e.g. "bus" for --bus */
    sim_opt_kind kind;
    void *target;        /* bool*, const char**, int*, double* by kind */
    const char *metavar; /* shown in usage, e.g. "HOST:PORT" (NULL for flags) */
    const char *help;
} sim_opt;

/* Negative SIM_E* codes like every libsim function's (sim_error.h). */
enum { SIM_CLI_OK = SIM_OK, SIM_CLI_HELP = SIM_EDONE, SIM_CLI_ERROR = SIM_EINVAL };

/* Parses argv[first..argc). Options may come as --name value or --name=value; "--"
 * ends options. Positional arguments are moved, in order, to argv[first..first+*npos).
 * Returns SIM_CLI_OK, SIM_CLI_HELP (usage printed to stdout: exit 0) or SIM_CLI_ERROR
 * (error and usage printed to stderr: exit 2). */
int sim_cli_parse(const char *usage_line, const char *description, const sim_opt *opts,
                  size_t n_opts, int argc, char **argv, int first, int *npos);

/* Parses the whole of text as a finite number (strtod syntax, no trailing bytes, not
 * empty, not nan or inf). Returns true and sets *out, else false with *out untouched.
 * For positional arguments, which the option table does not cover. */
bool sim_cli_number(const char *text, double *out);

void sim_cli_print_usage(const char *usage_line, const char *description, const sim_opt *opts,
                         size_t n_opts, void *stream /* FILE* */);
#endif
