/* sim_vehicle_file: a vehicle parameter file read from disk (see sim_vehicle_file.h). */
#include "sim_vehicle_file.h"

#include <stdlib.h>

#include "sim_file.h"

int sim_vehicle_params_load(const char *path, sim_vehicle_params *out, sim_error *err)
{
    char *buf;
    size_t len;
    int rc = sim_file_read_max(path, 1u << 20, &buf, &len, err);
    if (rc) return rc;
    rc = sim_vehicle_params_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}
