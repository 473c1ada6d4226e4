/* sim_vehicle_file: reading a vehicle parameter file from disk. The vehicle component is
 * a pure core that parses text (sim_vehicle_params_parse); the file itself is read here,
 * beside the other files that describe a session. */
#ifndef SIM_VEHICLE_FILE_H
#define SIM_VEHICLE_FILE_H

#include "sim_error.h"
#include "sim_vehicle.h"

/* Reads path (at most 1 MiB: a vehicle file is a few KiB) and parses it; errors name
 * the file. */
int sim_vehicle_params_load(const char *path, sim_vehicle_params *out, sim_error *err);

#endif
