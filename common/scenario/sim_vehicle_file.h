/* sim_vehicle_file: reading a vehicle parameter file from disk. The vehicle component is
 * a pure core that parses text (sim_vehicle_params_parse); the file itself is read here,
 * beside the other files that describe a session. */
#ifndef SIM_VEHICLE_FILE_H
#define SIM_VEHICLE_FILE_H

#include "sim_error.h"
#include "sim_vehicle.h"
#include "sim_gaze.h"

/* Reads path (at most 1 MiB: a vehicle file is a few KiB) and parses it; errors name
 * the file. */
int sim_vehicle_params_load(const char *path, sim_vehicle_params *out, sim_error *err);

/* The file's "gaze_areas" (docs/instruments.md) into areas (at most max; *n 0 when the
 * file has none) and the driver's eye point (body.driver_eye) into eye; json (when not
 * NULL) gets the areas as compact JSON text, malloc'ed (caller frees; NULL when none),
 * for the drive log's meta. Errors name the file and the field. */
int sim_vehicle_gaze_load(const char *path, sim_gaze_area *areas, size_t max, size_t *n, double eye[3],
                          char **json, sim_error *err);

#endif
