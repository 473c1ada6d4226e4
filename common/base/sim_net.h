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

/* A web server's door checks (the console's; docs/console.md, "Threats and defences").
 * Whether an HTTP Host header names this server listening on port: "localhost" or an IP
 * address literal (IPv6 in brackets), or one of the comma-separated names in allow
 * (may be NULL), with the port given and equal to port, or absent when port is 80.
 * A name out of DNS that is not listed (what a DNS-rebinding page sends) is refused. */
bool sim_net_host_ok(const char *host_hdr, int port, const char *allow);
/* Whether an Origin header is this server's own page: exactly "http://" followed by the
 * request's (already accepted) Host header, or one of the comma-separated origins in
 * allow (may be NULL). "null" (file:// pages, sandboxes) is never accepted. */
bool sim_net_origin_ok(const char *origin, const char *host_hdr, const char *allow);

#endif
