/* sim_command: the operator's commands (docs/protocol.md, "Operator control endpoint"):
 * one validation shared by the dispatcher (requests at the endpoint), simctl (which
 * builds them) and every module that acts on a `control.<cmd>` bus message, and the
 * one definition of `control.ack`, the module's answer. Pure code, fuzzed by
 * fuzz/fuzz_command.c. */
#ifndef SIM_COMMAND_H
#define SIM_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

/* Parses and validates one request. On success *out is the request object (caller
 * frees) and *cmd points at its "cmd" string. Every failure names the field and what
 * was expected, e.g. "speed_limit: \"kmh\" must be a number >= 0". */
int sim_command_parse(const char *text, size_t len, cJSON **out, const char **cmd, sim_error *err);

/* Validates an already parsed request object (as above, without the JSON parse). */
int sim_command_validate(const cJSON *req, const char **cmd, sim_error *err);

/* Validates a `control.<cmd>` message as it arrives off the bus: the command is named
 * by the topic (the dispatcher drops "cmd"), its fields sit beside the header. A module
 * acting on control messages calls this first and refuses (with an ack saying err.msg)
 * what fails, so that a command published straight onto the bus is held to the same
 * rules as one through the endpoint. *cmd points into msg's topic string. */
int sim_command_validate_message(const cJSON *msg, const char **cmd, sim_error *err);

/* control.ack {cmd, id, ok, error}: published by each module that acts on (ok) or
 * refuses (ok false, error says why) a control.<cmd> message. `id` is the command's
 * own "id" field, copied as text ("" when the command had none: encoded as null). */
typedef struct sim_command_ack {
    char cmd[32];
    char id[64];
    bool ok;
    char error[256];
} sim_command_ack;

/* The ack answering the control.<cmd> message command_msg (cmd from its topic, id
 * copied); error is used only when !ok ("refused" when NULL or empty). */
void sim_command_ack_for(const cJSON *command_msg, bool ok, const char *error, sim_command_ack *out);
/* The payload object (caller frees; NULL when out of memory). Publish it with
 * sim_bus_publish(bus, SIM_TOPIC_CONTROL_ACK, t, payload). */
cJSON *sim_command_ack_encode(const sim_command_ack *a);
/* Reads a control.ack message; errors name the field and what was expected. */
int sim_command_ack_decode(const cJSON *msg, sim_command_ack *out, sim_error *err);

/* The names of all commands, NULL-terminated, for help texts. */
extern const char *const sim_command_names[];

#endif
