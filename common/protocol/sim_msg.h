/* sim_msg: every bus message defined once (docs/protocol.md lists the topics). One
 * family per file, sim_msg_<family>.{c,h}: a plain struct per message,
 * sim_msg_<name>_encode (the payload object; the caller owns it and publishes it with
 * sim_bus_publish, which adds topic, src, seq and t) and sim_msg_<name>_decode
 * (SIM_OK or a negative SIM_E* code, err naming "topic: field: found X, expected Y").
 * No payload carries a key of the envelope (topic, src, seq, t).
 *
 * Absent values in the structs: NAN for numbers, SIM_MSG_NO_INT for integers, "" for
 * strings. */
#ifndef SIM_MSG_H
#define SIM_MSG_H

#include <stdint.h>
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_MSG_NO_INT INT32_MIN

#endif
