/* sim_command: the operator's command list (docs/protocol.md, "Operator control
 * endpoint"), shared by the dispatcher, which validates requests, and simctl, which
 * builds them. Pure code, fuzzed by fuzz/fuzz_command.c. */
#ifndef SIM_COMMAND_H
#define SIM_COMMAND_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_error.h"

/* Parses and validates one request. On success *out is the request object (caller
 * frees) and *cmd points at its "cmd" string. Every failure names the field and what
 * was expected, e.g. "speed_limit: \"kmh\" must be a number >= 0". */
int sim_command_parse(const char *text, size_t len, cJSON **out, const char **cmd, sim_error *err);

/* Validates an already parsed request object (as above, without the JSON parse). */
int sim_command_validate(const cJSON *req, const char **cmd, sim_error *err);

/* The names of all commands, NULL-terminated, for help texts. */
extern const char *const sim_command_names[];

#endif
