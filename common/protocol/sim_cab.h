/* sim_cab: several cabs (drivers) in one session (docs/cabs.md). A topic whose row in
 * sim_topics.def has SCOPE CAB (vehicle.state, input.controls, ...) exists once per
 * cab: cab NAME's copy travels as "cab.NAME.<topic>". A module of a cab (SIM_CAB=NAME
 * in its environment) never spells the prefix: its sim_bus adds it on publish, asks
 * for it in the hello's subscriptions and takes it off on receipt; other cabs' copies
 * reach it with their prefix. Pure string work, no I/O. */
#ifndef SIM_CAB_H
#define SIM_CAB_H

#include <stdbool.h>
#include <stddef.h>

#define SIM_CAB_NAME_MAX 32 /* bytes of a cab's name */
#define SIM_CAB_PREFIX "cab."
#define SIM_CAB_ENV "SIM_CAB" /* the environment variable naming a module's cab */

/* A cab's name: 1 to SIM_CAB_NAME_MAX of [A-Za-z0-9_-]. */
bool sim_cab_name_ok(const char *name);

/* Whether topic exists once per cab (its sim_topics.def row's SCOPE is CAB). */
bool sim_cab_topic_per_cab(const char *topic);

/* Whether topic is "cab.NAME.REST" with a valid NAME and a per-cab REST: then cab
 * (cap >= SIM_CAB_NAME_MAX + 1) holds NAME and *rest points at REST in topic. */
bool sim_cab_split(const char *topic, char *cab, size_t cap, const char **rest);

/* What cab's module publishes topic as: "cab.<cab>.<topic>" for a per-cab topic,
 * topic itself otherwise, into out. Returns the length, or -1 when it does not fit. */
int sim_cab_wire(const char *cab, const char *topic, char *out, size_t cap);

/* Whether a subscription prefix (as in a hello) covers some per-cab topic, so that a
 * cab's module asks for "cab.<cab>.<prefix>" as well. */
bool sim_cab_prefix_covers(const char *prefix);

/* What a module of cab `cab` does with a received topic. */
typedef enum sim_cab_seen {
    SIM_CAB_SEEN_KEEP, /* a session topic, or another cab's copy: handed on as it is */
    SIM_CAB_SEEN_OWN,  /* its own cab's copy: handed on as *as (the prefix taken off) */
    SIM_CAB_SEEN_DROP, /* a per-cab topic without a cab: nobody's car, dropped */
} sim_cab_seen;
sim_cab_seen sim_cab_receive(const char *cab, const char *topic, const char **as);

#endif
