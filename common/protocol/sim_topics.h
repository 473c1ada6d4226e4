/* sim_topics: every bus topic, from the one table in sim_topics.def: its name
 * (SIM_TOPIC_<ID>, a string; SIM_TOPIC_ID_<ID>, its row), who may publish it (the
 * dispatcher's families) and what the recorder keeps of it. Pure lookups, no I/O.
 * docs/protocol.md, "How to add a topic". */
#ifndef SIM_TOPICS_H
#define SIM_TOPICS_H

#include <stdbool.h>
#include <stddef.h>

/* Who may publish a topic (docs/protocol.md "Who may publish what"); the dispatcher's
 * route_family has the same values. */
typedef enum sim_topic_family {
    SIM_TOPIC_FAMILY_NONE = -1, /* anyone */
    SIM_TOPIC_FAMILY_CLOCK,
    SIM_TOPIC_FAMILY_TRAFFIC,
    SIM_TOPIC_FAMILY_INPUT,
    SIM_TOPIC_FAMILY_RECORDER,
    SIM_TOPIC_FAMILY_CONTEXT,
    SIM_TOPIC_FAMILY_SESSION,
    SIM_TOPIC_FAMILY_CONTROL,
    SIM_TOPIC_FAMILY_END,
    SIM_TOPIC_FAMILIES,
} sim_topic_family;

/* What the recorder keeps of a topic (sim_topics.def explains each). */
typedef enum sim_topic_keep {
    SIM_TOPIC_KEEP_SAMPLE,
    SIM_TOPIC_KEEP_EVENT,
    SIM_TOPIC_KEEP_MARK,
    SIM_TOPIC_KEEP_TABLE,
    SIM_TOPIC_KEEP_MESSAGE,
    SIM_TOPIC_KEEP_IGNORE,
} sim_topic_keep;

typedef enum sim_topic_id {
#define SIM_TOPIC(id, ...) SIM_TOPIC_ID_##id,
#include "sim_topics.def"
#undef SIM_TOPIC
    SIM_TOPIC_COUNT
} sim_topic_id;

/* The names: SIM_TOPIC_SIM_TICK is "sim.tick", a string literal (made from the table by
 * scripts/gen-topic-names.sh, which make runs when the table changes). */
#include "sim_topic_names.h"

typedef struct sim_topic {
    sim_topic_id id;
    const char *name;
    bool prefix; /* the row covers every topic beginning with name */
    sim_topic_family family;
    const char *owner;
    sim_topic_keep keep;
    const char *event_kind, *event_field, *event_default; /* KEEP EVENT and MARK */
    bool per_cab; /* SCOPE CAB: one per cab, cab.NAME.<name> on the wire (docs/cabs.md) */
} sim_topic;

/* The table, in sim_topics.def's order (sim_topics[SIM_TOPIC_ID_X] is X's row). */
extern const sim_topic sim_topics[SIM_TOPIC_COUNT];

/* The row topic falls under: its EXACT row, else the longest PREFIX row it begins
 * with (a prefix alone, "control.", falls under it too); NULL when none. */
const sim_topic *sim_topic_find(const char *topic);

/* The prefixes and topics the recorder subscribes to: every row it keeps something of
 * (KEEP but IGNORE), less those a kept PREFIX row covers. Fills out (at most cap) in
 * table order and returns how many there are. */
size_t sim_topics_recorded(const char **out, size_t cap);

/* Words naming a family's topics in the dispatcher's refusals, "sim.* (but sim.ack and
 * sim.end), vehicle.state and ffb.command", into buf; returns buf, or "no family". */
const char *sim_topic_family_words(sim_topic_family f, char *buf, size_t cap);

#endif
