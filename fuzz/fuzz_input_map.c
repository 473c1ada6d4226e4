/* Fuzz target: device mapping files and recorded input streams (the two files the
 * input node reads from people). A mapping that parses must map any raw state to
 * controls within their ranges. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim_driver.h"
#include "sim_input_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_input_map m;
    sim_error err;
    if (sim_input_map_parse((const char *)data, size, &m, &err) == SIM_OK) {
        static const int16_t extremes[] = {-32768, -1, 0, 1, 32767};
        int16_t axes[8];
        uint8_t buttons[32], hats[2] = {15, 0};
        memset(buttons, 1, sizeof buttons);
        for (size_t k = 0; k < sizeof extremes / sizeof *extremes; k++) {
            for (int i = 0; i < 8; i++) axes[i] = extremes[(k + (size_t)i) % 5];
            sim_input_raw raw = {axes, 8, buttons, 32, hats, 2};
            sim_controls c;
            sim_input_map_apply(&m, &raw, &c);
            if (!(fabs(c.steer) <= 1) || !(c.throttle >= 0 && c.throttle <= 1) ||
                !(c.brake >= 0 && c.brake <= 1) || !(c.clutch >= 0 && c.clutch <= 1))
                __builtin_trap();
            for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++)
                (void)sim_input_map_pressed(&m, &raw, (sim_button_role)r);
        }
        cJSON *doc = sim_input_map_to_json(&m);
        cJSON_Delete(doc);
    }
    sim_driver_replay r;
    if (sim_driver_replay_parse((const char *)data, size, &r, &err) == SIM_OK) {
        sim_controls c;
        sim_driver_replay_at(&r, r.t[r.n - 1], &c);
        sim_driver_replay_at(&r, r.t[0], &c);
        sim_driver_replay_free(&r);
    }
    return 0;
}
