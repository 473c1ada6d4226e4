/* sim_control: one request to the dispatcher's operator endpoint (nanomsg REQ/REP,
 * docs/protocol.md "Operator control endpoint"), shared by simctl and the console's
 * gateway. Blocking: it waits up to timeout_ms for the reply (the console calls it on
 * a worker thread). */
#ifndef SIM_CONTROL_H
#define SIM_CONTROL_H

#include <stddef.h>

/* Sends request (a JSON text) to url and returns the reply as a malloc'd,
 * NUL-terminated string (caller frees), or NULL with err filled: the URL and nanomsg's
 * words, or "no reply from URL within N ms". */
char *sim_control_request(const char *url, const char *request, int timeout_ms, char *err, size_t err_size);

#endif
