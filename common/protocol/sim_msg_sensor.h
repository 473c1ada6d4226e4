/* sim_msg_sensor: lab instruments on the bus (docs/instruments.md, docs/protocol.md).
 *
 * `sensor.<name>` {values, units?, t_src?, wall?, sim_t?}: one sample of a sensor named
 *   by the topic after "sensor." (letters, digits, '_', '-'): values an object of
 *   numeric channels ({"ecg": 0.41, "eda": 3.2}), units an object naming each
 *   channel's unit ({"ecg": "mV"}); when it was taken as for gaze.sample (t_src on the
 *   sender's own clock, wall on the session's wall clock in Unix seconds, sim_t in
 *   simulation time). Any bus client may publish it; the recorder logs it in the
 *   sensor table.
 * `bridge.status` {name, kind, connected, rate_hz, dropped, calibration_age_s?, publishes}:
 *   a bridge between an instrument and the bus (clients/python/pupil_bridge.py,
 *   sensor_bridge.py), once a second: whether its device is connected, the samples
 *   per second it forwarded over the last second, the samples it lost in all, the age
 *   of the device's calibration (s; absent: none known), the topic it publishes ("topic" is the envelope's).
 *   `simctl status` and the console show it.
 * `gaze.target` {source, target, distance_m?}: what a gaze.sample of source (its
 *   sender) hit (sim_gaze: an area name, "vehicle:ID", "sign:ROAD:N"), published by the
 *   recorder as it logs the sample (the envelope's t is the sample's simulation time);
 *   distance_m to a vehicle or sign. */
#ifndef SIM_MSG_SENSOR_H
#define SIM_MSG_SENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_SENSOR_CHANNELS_MAX 32
#define SIM_SENSOR_NAME_MAX 32
#define SIM_SENSOR_UNIT_MAX 16

typedef struct sim_msg_sensor_channel {
    char name[SIM_SENSOR_NAME_MAX];
    char unit[SIM_SENSOR_UNIT_MAX]; /* "" when not given */
    double value;                   /* finite */
} sim_msg_sensor_channel;

typedef struct sim_msg_sensor {
    char sensor[SIM_SENSOR_NAME_MAX]; /* from the topic */
    double t_src, wall, sim_t;        /* NAN when not given */
    int n;
    sim_msg_sensor_channel ch[SIM_SENSOR_CHANNELS_MAX];
} sim_msg_sensor;

typedef struct sim_msg_bridge_status {
    char name[SIM_SENSOR_NAME_MAX];  /* the bridge's bus name */
    char kind[SIM_SENSOR_NAME_MAX];  /* "pupil", "udp", "tcp" */
    char publishes[64];              /* the topic it publishes */
    bool connected;
    double rate_hz;
    uint64_t dropped;
    double calibration_age_s;        /* NAN: none known */
} sim_msg_bridge_status;

/* True for "sensor.<name>" with a valid name. */
bool sim_msg_sensor_topic(const char *topic);
/* The payload (caller owns; NULL when out of memory). */
cJSON *sim_msg_sensor_encode(const sim_msg_sensor *m);
/* Decodes the payload of topic (a sensor.<name> topic). SIM_EINVAL naming the field: a
 * values object missing or empty, a channel that is not a finite number, more than
 * SIM_SENSOR_CHANNELS_MAX channels, names or units too long. */
int sim_msg_sensor_decode(const char *topic, const cJSON *msg, sim_msg_sensor *out, sim_error *err);
typedef struct sim_msg_gaze_target {
    char source[48];
    char target[64];
    double distance_m; /* NAN: an area, not an object */
} sim_msg_gaze_target;

cJSON *sim_msg_gaze_target_encode(const sim_msg_gaze_target *m);
int sim_msg_gaze_target_decode(const cJSON *msg, sim_msg_gaze_target *out, sim_error *err);
cJSON *sim_msg_bridge_status_encode(const sim_msg_bridge_status *m);
int sim_msg_bridge_status_decode(const cJSON *msg, sim_msg_bridge_status *out, sim_error *err);

#endif
