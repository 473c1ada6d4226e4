/* sim_net: small address helpers shared by executables that listen or connect:
 * the loopback rule (anything listening beyond loopback requires a token) and the
 * constant-time token comparison. */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stdbool.h>

/* True for 127.0.0.0/8, ::1 and "localhost". */
bool sim_net_is_loopback(const char *host);
/* The same for a nanomsg URL such as tcp://127.0.0.1:7701 (ipc:// and inproc:// are
 * local by nature). */
bool sim_net_url_is_loopback(const char *url);
/* Compares a presented token with the expected one in time independent of where they
 * differ. presented may be NULL (never equal). */
bool sim_net_token_equal(const char *expected, const char *presented);

#endif
