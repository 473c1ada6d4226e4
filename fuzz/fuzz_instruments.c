/* Fuzz target: what instruments send from outside the platform: sensor.<name> (the
 * topic from the input's first line), gaze.target, bridge.status, and a vehicle file's
 * gaze_areas with the hit test over them. A decoded sensor message must encode and
 * decode to the same channels; a parsed area list must hit-test without fault. The
 * first byte picks which. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_gaze.h"
#include "sim_msg_sensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    const char *nl = memchr(text, '\n', len);
    char topic[80] = "sensor.x";
    if ((data[0] % 4) == 0 && nl && (size_t)(nl - text) < sizeof topic) {
        memcpy(topic, text, (size_t)(nl - text));
        topic[nl - text] = '\0';
        len -= (size_t)(nl - text) + 1;
        text = nl + 1;
    }
    cJSON *msg = cJSON_ParseWithLength(text, len);
    if (!msg) return 0;
    sim_error err;
    switch (data[0] % 4) {
    case 0: {
        static sim_msg_sensor m, again;
        if (sim_msg_sensor_decode(topic, msg, &m, &err) == SIM_OK) {
            cJSON *enc = sim_msg_sensor_encode(&m);
            if (enc && (sim_msg_sensor_decode(topic, enc, &again, &err) != SIM_OK || again.n != m.n))
                __builtin_trap();
            for (int i = 0; enc && i < m.n; i++)
                if (strcmp(m.ch[i].name, again.ch[i].name) || strcmp(m.ch[i].unit, again.ch[i].unit) ||
                    m.ch[i].value != again.ch[i].value)
                    __builtin_trap();
            cJSON_Delete(enc);
        }
        break;
    }
    case 1: {
        sim_msg_gaze_target m;
        (void)sim_msg_gaze_target_decode(msg, &m, &err);
        break;
    }
    case 2: {
        sim_msg_bridge_status m;
        (void)sim_msg_bridge_status_decode(msg, &m, &err);
        break;
    }
    default: {
        sim_gaze_area a[SIM_GAZE_AREAS_MAX];
        size_t n;
        if (sim_gaze_areas_parse(msg, "fuzz", a, SIM_GAZE_AREAS_MAX, &n, &err) == SIM_OK) {
            sim_gaze_object car = {SIM_GAZE_VEHICLE, "c", 20, 0, 0, 0, 4.5, 1.8, 1.5};
            sim_gaze_scene sc = {.areas = a, .n_areas = n, .objects = &car, .n_objects = 1, .eye = {0, 0, 1.2}};
            sim_gaze_hit h;
            for (int yaw = -180; yaw <= 180; yaw += 15)
                for (int pitch = -90; pitch <= 90; pitch += 15)
                    if (sim_gaze_hit_test(&sc, yaw, pitch, &h, &err) != SIM_OK) __builtin_trap();
        }
        break;
    }
    }
    cJSON_Delete(msg);
    return 0;
}
