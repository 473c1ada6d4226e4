/* osi_out: osi-node's outputs (docs/osi.md, "Live: osi-node"): a TCP server whose
 * consumers get every GroundTruth framed as in an OSI trace file (its length as a
 * 4-byte little-endian unsigned integer, then the message), and a UDP destination
 * that gets one message per datagram.
 *
 * A TCP consumer is "fresh" until it has had its first message, which carries the
 * static content (lanes); the node asks osi_out_fresh and hands that message to
 * osi_out_greet. Listening beyond loopback needs a token, which every consumer sends
 * first as one line ("TOKEN\n"); a wrong one is closed at once. A consumer that falls
 * OSI_OUT_BEHIND_MAX bytes behind is closed with a note on stderr (it would otherwise
 * grow the node's memory without bound). */
#ifndef OSI_OUT_H
#define OSI_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "sim_error.h"

#define OSI_OUT_BEHIND_MAX (256u << 20)
/* The most an IPv4 UDP datagram carries (65535 - 8 UDP - 20 IP header bytes). */
#define OSI_OUT_UDP_MAX 65507u

typedef struct osi_out osi_out;

/* listen: "HOST:PORT" for the TCP server, or NULL; udp: "HOST:PORT" (IPv4) where
 * datagrams go, or NULL; token: what consumers must send first when HOST is not
 * loopback (required then: SIM_EINVAL without one); udp_max: the largest datagram
 * sent (1..OSI_OUT_UDP_MAX). on_fresh(user) is called when a consumer joins. */
int osi_out_open(uv_loop_t *loop, const char *listen, const char *udp, const char *token, size_t udp_max,
                 void (*on_fresh)(void *user), void *user, osi_out **out, sim_error *err);
/* TCP consumers connected and admitted (token checked). */
size_t osi_out_consumers(const osi_out *o);
/* Whether some consumer has not had its first message yet. */
bool osi_out_fresh(const osi_out *o);
/* Sends msg (len bytes) to every fresh consumer, which is then fresh no more. */
void osi_out_greet(osi_out *o, const uint8_t *msg, size_t len);
/* Sends msg to every consumer that is not fresh, and as one datagram to the UDP
 * destination. t: the message's time, for the note when it is too large for a
 * datagram (then not sent there; counted in osi_out_oversize). */
void osi_out_send(osi_out *o, const uint8_t *msg, size_t len, double t);
size_t osi_out_oversize(const osi_out *o);
/* Closes the server, every consumer (after what is queued for it is written) and the
 * UDP socket; o is freed from the close callbacks (keep running the loop). */
void osi_out_close(osi_out *o);

#endif
