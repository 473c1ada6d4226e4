/* sumo_persons: SUMO's pedestrians in traffic.state (docs/traffic.md, "SUMO's
 * pedestrians").
 *
 * With traffic.sumo.pedestrian_period_s the network keeps the OpenDRIVE file's sidewalks
 * (for pedestrians only) and gets crossings (netconvert --crossings.guess), and
 * randomTrips.py --pedestrians writes one walk every that many seconds with the
 * scenario's seed beside the vehicles' trips. Whatever persons SUMO has (those, or the
 * scenario's own route files') come back through a second context subscription around
 * the ego, of the person domain, and go into traffic.state with model "pedestrian" and
 * SUMO's size for them, nearest first among the vehicles. */
#ifndef TRAFFIC_NODE_SUMO_PERSONS_H
#define TRAFFIC_NODE_SUMO_PERSONS_H

#include <stdbool.h>

#include "sim_error.h"
#include "sim_traci.h"

struct tn_sumo;

/* The lane-type map netconvert gets: typemap itself, or (pedestrians) a copy in *owned
 * (caller frees) whose sidewalks allow pedestrians. NULL when out of memory. */
const char *tn_sumo_persons_typemap(const struct tn_sumo *s, const char *typemap, char **owned);
/* netconvert's options for them (NULL-ended pairs into argv at *k). */
void tn_sumo_persons_netconvert(const struct tn_sumo *s, char **argv, int *k);
/* sumo's options for them (pairs into argv at *k): a walk SUMO finds no way for
 * (netconvert's walking areas miss a few links of Town03) is dropped, not an error that
 * ends SUMO. */
void tn_sumo_persons_sumo_options(const struct tn_sumo *s, char **argv, int *k);
/* The walks (randomTrips.py --pedestrians), added to s->routes; nothing without them. */
int tn_sumo_persons_make(struct tn_sumo *s, const char *python, const char *random_trips, sim_error *err);
/* The person context subscription, beside the vehicles' (sumo.c), and its answer. */
void tn_sumo_persons_subscribe(struct tn_sumo *s, sim_traci_buf *b);
int tn_sumo_persons_read_subscribed(struct tn_sumo *s, sim_traci_reader *r, sim_error *err);
/* A step's person (a context result of the person domain); false when not one. */
bool tn_sumo_persons_on_object(struct tn_sumo *s, const sim_traci_object *o);

#endif
