/* sim_vehicle_file: a vehicle parameter file read from disk (see sim_vehicle_file.h). */
#include "sim_vehicle_file.h"

#include <stdlib.h>

#include "sim_file.h"
#include "sim_json.h"

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

int sim_vehicle_gaze_load(const char *path, sim_gaze_area *areas, size_t max, size_t *n, double eye[3],
                          char **json, sim_error *err)
{
    *n = 0;
    if (json) *json = NULL;
    sim_vehicle_params p;
    int rc = sim_vehicle_params_load(path, &p, err); /* the whole file checked, and the eye */
    if (rc) return rc;
    eye[0] = p.driver_eye.x, eye[1] = p.driver_eye.y, eye[2] = p.driver_eye.z;
    char *buf;
    size_t len;
    if ((rc = sim_file_read_max(path, 1u << 20, &buf, &len, err))) return rc;
    sim_json j = {.file = path, .err = err};
    cJSON *root;
    rc = sim_json_parse(&j, buf, len, &root);
    free(buf);
    if (rc) return rc;
    const cJSON *ga = cJSON_GetObjectItemCaseSensitive(root, "gaze_areas");
    if (ga) rc = sim_gaze_areas_parse(ga, path, areas, max, n, err);
    if (!rc && ga && json && !(*json = cJSON_PrintUnformatted(ga)))
        rc = sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
    cJSON_Delete(root);
    return rc;
}
