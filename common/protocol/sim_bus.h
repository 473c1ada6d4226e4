/* sim_bus: the module side of the bus (docs/protocol.md).
 *
 * A sim_bus lives on the module's libuv loop. It connects to the dispatcher, says
 * hello, hands every received message to on_message, fills src/seq/t on publish, and
 * reconnects by itself with backoff (100 ms doubling to 1 s) when the dispatcher goes
 * away. Messages published while disconnected are dropped and counted (the bus is
 * live data; durable modules get a backlog from the dispatcher instead).
 *
 * sim_bus_open sets SIGPIPE to ignored for the process (write errors are handled).
 *
 * Ownership: sim_bus_open allocates the sim_bus; sim_bus_close frees it once its
 * handles are closed (the loop must run afterwards for that). Strings in the options
 * are copied. The cJSON passed to on_message belongs to the bus and is valid only
 * during the callback. */
#ifndef SIM_BUS_H
#define SIM_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "sim_error.h"

#define SIM_BUS_DEFAULT_HOST "127.0.0.1"
#define SIM_BUS_DEFAULT_PORT 7700
#define SIM_BUS_MAX_LINE 65536

typedef struct sim_bus sim_bus;

/* msg: the parsed message (an object with a string "topic"); line/len: its raw bytes
 * without the newline. */
typedef void (*sim_bus_message_cb)(sim_bus *bus, const char *topic, const cJSON *msg,
                                   const char *line, size_t len, void *user);
/* Called after each (re)connection once the dispatcher has welcomed us (welcome is the
 * dispatcher.welcome message), and after each loss of the connection (welcome NULL). */
typedef void (*sim_bus_state_cb)(sim_bus *bus, const cJSON *welcome, void *user);

typedef struct sim_bus_options {
    const char *name;            /* module name sent in hello; required */
    const char *host;            /* default 127.0.0.1 */
    int port;                    /* default 7700 */
    const char *token;           /* NULL: none */
    const char *const *subscribe;/* topic prefixes; NULL: everything */
    size_t n_subscribe;
    bool subscribe_none;         /* send "subscribe":[] (publish-only modules) */
    /* Operator commands (names as in sim_command_names) this module acts on and
     * answers with control.ack; the dispatcher's control endpoint waits for exactly
     * these modules (docs/protocol.md, "Acknowledgements"). */
    const char *const *acts_on;
    size_t n_acts_on;
    bool lockstep;
    bool durable;
    sim_bus_message_cb on_message;
    sim_bus_state_cb on_state;
    void *user;
} sim_bus_options;

int sim_bus_open(uv_loop_t *loop, const sim_bus_options *opts, sim_bus **out, sim_error *err);

/* Publishes payload (an object; may be NULL for no fields) under topic with src, seq
 * and t added in front. payload is not modified or freed. Returns SIM_ECLOSED when not
 * connected (the message is dropped and counted). */
int sim_bus_publish(sim_bus *bus, const char *topic, double t, const cJSON *payload);

/* Sends one complete line as it is (no newline in it; one is appended). For tools that
 * forward messages verbatim (simctl send, replay). */
int sim_bus_send_line(sim_bus *bus, const char *line, size_t len);

bool sim_bus_connected(const sim_bus *bus);
/* Lines read on the current connection, the welcome included (0 again after a
 * reconnect). A durable module that has processed everything it read publishes
 * "durable.ack" {"received": this}, and the dispatcher never hands those lines over
 * again (docs/protocol.md). */
uint64_t sim_bus_received(const sim_bus *bus);
uint64_t sim_bus_dropped(const sim_bus *bus);

/* Starts closing: stops reconnecting; messages already published are still sent
 * (TCP shutdown), then the socket and timers close and the memory is freed from a
 * close callback, so keep running the loop. NULL is allowed. */
void sim_bus_close(sim_bus *bus);

/* Parses "HOST:PORT" (IPv4 or name, or "[v6]:PORT"); host is written to host_out. */
int sim_bus_parse_endpoint(const char *text, char *host_out, size_t host_size, int *port_out,
                           sim_error *err);

#endif
