/* send_check: `simctl send` checks a message of a documented topic with that topic's
 * one definition (common/protocol's decoder) before publishing it, so that a message
 * every module would refuse is refused at the operator's prompt with the reason,
 * instead of sent with exit status 0. Topics the protocol does not define (a study's
 * own) go out unchecked. */
#ifndef SIMCTL_SEND_CHECK_H
#define SIMCTL_SEND_CHECK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"

/* SIM_OK, or the decoder's error naming the topic and the field; *known tells
 * whether the topic has a definition it was checked against. */
int simctl_send_check(const char *topic, const cJSON *payload, bool *known, sim_error *err);

#endif
