/* Fuzz target: the vehicle parameter file parser, and a vehicle built from whatever it
 * accepts. Every rejection must explain itself; an accepted file must give a vehicle
 * that steps without crashing and whose state stays finite (a step that would leave it
 * non-finite is refused with SIM_ERANGE and changes nothing). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim_vehicle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_vehicle_params p;
    sim_error err = {0};
    if (sim_vehicle_params_parse((const char *)data, size, "fuzz.json", &p, &err) != SIM_OK) {
        if (err.msg[0] == '\0')
            __builtin_trap();
        return 0;
    }
    static sim_vehicle v;
    sim_ground_plane plane = {0, 0.05, 0, 1.0, 0.2};
    sim_vehicle_ground g = sim_ground_from_plane(&plane);
    for (int m = 0; m < 3; m++) {
        sim_vehicle_start st = {0, 0, 0.5, 10.0, 1};
        if (sim_vehicle_init(&v, &p, (sim_vehicle_model)m, SIM_INTEGRATOR_MIDPOINT, &g, &st, &err))
            continue;
        sim_vehicle_controls c = {.throttle = 1.0, .steer = 0.5, .brake = 0.0, .automatic = true, .gear = 1};
        for (int i = 0; i < 200; i++) {
            c.brake = i > 100 ? 1.0 : 0.0;
            int rc = sim_vehicle_step(&v, &c, &g, NULL, 0, 1e-3);
            if (rc != SIM_OK && rc != SIM_ERANGE)
                __builtin_trap();
        }
        for (int i = 0; i < SIM_VEHICLE_STATE_LEN; i++)
            if (!isfinite(v.y[i]))
                __builtin_trap();
        sim_vehicle_state s;
        sim_vehicle_get_state(&v, &g, &s);
    }
    return 0;
}
