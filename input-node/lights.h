/* lights: the scripted driver stops at red traffic lights. The stop lines of the
 * scenario's vehicle heads that lie on the driver's path (within a lane's half width
 * of it) are found once per path as path distances; signal.state keeps each head's
 * state; approaching a line whose head shows red, red and amber, or amber, the driver
 * slows to stop its front IN_LIGHT_MARGIN_M before it, unless it is already too close
 * to stop at IN_LIGHT_DECEL_MAX when the line first asks it to (amber as it arrives:
 * it drives on); once it has decided to stop it keeps to it. Pure apart from loading
 * the scenario in in_lights_open. */
#ifndef INPUT_NODE_LIGHTS_H
#define INPUT_NODE_LIGHTS_H

#include <stdbool.h>

#include "sim_error.h"
#include "sim_follow.h"

#define IN_LIGHT_DECEL 2.5        /* m/s^2 the driver plans to stop with */
#define IN_LIGHT_DECEL_MAX 4.0    /* m/s^2: needing more, it goes on (amber) */
#define IN_LIGHT_MARGIN_M 1.0     /* m between its front and the line when it stops */
#define IN_LIGHT_ON_PATH_M 2.0    /* m: a line's lane centre this near the path is on it */

typedef struct in_light_stop {
    double s;                     /* path distance of the line, m */
    int head;
} in_light_stop;

typedef struct in_lights {
    char (*ids)[64];              /* head ids, owned */
    bool *stop;                   /* per head: its state asks to stop (from signal.state) */
    int n_heads;
    in_light_stop *stops;         /* owned, s ascending */
    signed char *decided;         /* per stop: 1 stopping for it, -1 going through (too
                                     close when it turned), 0 not asked; cleared when
                                     its head lets traffic go */
    int n_stops;
} in_lights;

/* Reads the scenario's heads and places their lines on path. A scenario without
 * heads gives an empty set. */
int in_lights_open(in_lights *L, const char *scenario, const sim_driver_path *path, sim_error *err);
void in_lights_close(in_lights *L);
/* signal.state: head id now shows state (a sim_lights state name). */
void in_lights_set(in_lights *L, const char *id, const char *state);
/* The speed (m/s) the driver may have with its front at path distance front_s so as
 * to stop at the next line it must; INFINITY when none asks it to. */
double in_lights_speed_cap(in_lights *L, double front_s, double speed);

#endif
