/* context-server: shared state of the module's files (docs/context.md).
 *
 * main.c sets up (scenario, database, route graph, bus) and runs the loop;
 * requests.c answers context.request; drive.c follows vehicle.state for the
 * proactive context.nearby and context.guidance events. Single-threaded on the libuv
 * loop: every request is answered before the next message is read. */
#ifndef CS_SERVER_H
#define CS_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_bus.h"
#include "sim_context.h"
#include "sim_route.h"
#include "sim_route_roads.h"
#include "sim_scenario.h"
#include "sim_throttle.h"

#define CS_REPLY_MAX 60000      /* bytes of a reply line; the bus carries 64 KiB */
#define CS_POLYLINE_MAX 400     /* points of a route's polyline in a reply */
#define CS_NEARBY_HYSTERESIS 5.0 /* m beyond the radius before "leave" */
#define CS_GUIDANCE_PERIOD 1.0  /* s of simulation time between guidance events */
#define CS_REROUTE_RETRY 2.0    /* s between re-routing attempts that found nothing */

typedef struct cs_server {
    sim_scenario *sc;
    sim_context *db;
    sim_route_map map;
    sim_bus *bus;
    double nearby_m;            /* default radius of a POI for context.nearby */

    /* the ego, from vehicle.state */
    bool have_ego;
    double t, x, y, heading, speed;

    /* context.nearby: every POI and whether the ego is inside its radius */
    int64_t *poi_rowid;
    double *poi_xyr;            /* x, y, radius per POI */
    bool *inside;
    int n_pois;
    double max_radius;          /* the largest POI radius: the R*Tree box around the ego */
    int *inside_list;           /* the indices with inside[i], n_inside of them */
    int n_inside;
    unsigned *seen;             /* seen[i] == pass: visited in this state's pass */
    unsigned pass;

    /* guidance along the active route */
    bool guiding;
    sim_route route;
    sim_guidance gd;
    int route_no;
    double dest_x, dest_y;
    double last_event_t;        /* sim time of the last context.guidance */
    double retry_t;             /* after a failed re-route, not before this */
    bool rerouted;              /* say so in the next guidance event */
    bool resume_checked;        /* the saved guidance of a killed predecessor was looked at */
    bool saved;                 /* the database holds this destination (saved_x, saved_y) */
    double saved_x, saved_y;
    sim_throttle bad_output; /* stderr lines per cause, at most one a second (sim_throttle.h) */
} cs_server;

/* requests.c */
void cs_handle_request(cs_server *s, const cJSON *msg);
/* The route as reply JSON (polyline decimated to CS_POLYLINE_MAX points). */
cJSON *cs_route_json(const cs_server *s, const sim_route *r);

/* drive.c */
/* t: the envelope's time (NAN when the message had none: the previous one stays). */
void cs_on_vehicle_state(cs_server *s, const cJSON *msg, double t);
/* Makes r the active route (taken over: r is zeroed) towards (dx, dy) and announces it. */
void cs_guidance_begin(cs_server *s, sim_route *r, double dx, double dy);
/* Ends guidance and forgets it (the database's saved guidance becomes null): a clean
 * stop forgets it too, so only a killed process's guidance is resumed by its successor
 * (at its first vehicle.state, drive.c). */
void cs_guidance_end(cs_server *s);

#endif
