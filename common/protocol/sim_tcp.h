/* sim_tcp: socket options that keep small bus messages from stalling.
 *
 * A peer that writes two small messages back to back without TCP_NODELAY (a plain
 * Python socket sending its state and then its sim.ack) has the second held back by
 * Nagle's algorithm until the first is acknowledged; if our side delays that ACK
 * (Linux: up to 40 ms, when we have no reply to piggyback it on) every lockstep tick
 * waits for it. sim_tcp_quickack acknowledges what has been read at once; Linux
 * leaves quick-ack mode again by itself, so it is called after every read. */
#ifndef SIM_TCP_H
#define SIM_TCP_H

#include <uv.h>

/* Sends any pending ACK now and enters quick-ack mode, where the platform has
 * TCP_QUICKACK (Linux); does nothing elsewhere. Failures are ignored: the option is a
 * latency hint, never needed for correctness. */
void sim_tcp_quickack(uv_tcp_t *tcp);

#endif
