/* control: the operator's nanomsg REQ/REP endpoint; validated commands become
 * control.<cmd> messages on the bus (docs/protocol.md). */
#ifndef DISPATCHER_CONTROL_H
#define DISPATCHER_CONTROL_H

#include <uv.h>

#include "hub.h"
#include "sim_error.h"

typedef struct control control;

/* Binds url and serves requests on loop. A command's reply waits up to ack_wait_ms
 * for the modules' control.ack answers (docs/protocol.md). *out is owned by the caller and released
 * with control_close (asynchronously: the memory goes in the poll handle's close
 * callback). The token is copied; h is borrowed and must outlive the control.
 * on_stop is called after a "stop" command was answered (the dispatcher then exits). */
int control_open(uv_loop_t *loop, hub *h, const char *url, const char *token, int ack_wait_ms,
                 void (*on_stop)(void *), void *user, control **out, sim_error *err);
void control_close(control *c);

#endif
