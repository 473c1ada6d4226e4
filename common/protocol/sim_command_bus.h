/* sim_command_bus: the module side of operator commands on the bus. A module that acts
 * on control.<cmd> messages passes each one through sim_command_receive (the shared
 * validation, so a command published straight onto the bus meets the endpoint's
 * rules) and answers what it did with sim_command_answer (control.ack). The commands a
 * module acts on are the ones it declares in its hello (sim_bus_options.acts_on). */
#ifndef SIM_COMMAND_BUS_H
#define SIM_COMMAND_BUS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_bus.h"

/* The command named by msg's topic when it is one of acts_on (n names) and valid;
 * NULL otherwise. An invalid message for a command in acts_on is refused on the bus
 * (control.ack with the validation error) and reported on stderr as "module: ...";
 * messages for other commands are left alone (NULL, nothing said). The result points
 * into msg. */
const char *sim_command_receive(sim_bus *bus, double t, const char *module, const char *const *acts_on,
                                size_t n, const cJSON *msg);

/* Publishes the control.ack answering the control.<cmd> message msg: ok, or refused
 * with error (also written to stderr as "module: cmd refused: error"). Returns what
 * sim_bus_publish returns. */
int sim_command_answer(sim_bus *bus, double t, const char *module, const cJSON *msg, bool ok, const char *error);

#endif
