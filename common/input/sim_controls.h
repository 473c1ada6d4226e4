/* sim_controls: the driver's control state as carried by input.controls.
 *
 * One plain struct shared by the device mapping, the keyboard, the scripted driver
 * and the replay, plus its conversion to and from the bus message's fields
 * (docs/protocol.md, input.controls). */
#ifndef SIM_CONTROLS_H
#define SIM_CONTROLS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"

typedef struct sim_controls {
    double steer;     /* -1..1, left positive */
    double steer_deg; /* steering wheel angle, degrees, left positive */
    double throttle;  /* 0..1 */
    double brake;     /* 0..1 */
    double clutch;    /* 0..1, 1 = pedal fully pressed (disengaged) */
    int gear;         /* requested gear (-1 reverse, 0 neutral, 1..), valid when has_gear */
    bool has_gear;    /* false: the message carries no gear (automatic / unchanged) */
} sim_controls;

/* Adds the fields of c to obj (an object; the caller owns it). Returns SIM_ENOMEM when
 * cJSON cannot allocate. */
int sim_controls_to_json(const sim_controls *c, cJSON *obj);

/* Reads the fields of an input.controls message. steer, throttle and brake are
 * required numbers; steer_deg, clutch and gear are optional (steer_deg defaults to 0,
 * clutch to 0, gear to absent). Values outside their range are an error naming the
 * field, what was found and what was expected. */
int sim_controls_from_json(const cJSON *obj, sim_controls *out, sim_error *err);

#endif
