/* sim_msg_collision: vehicle.collision's one definition (see sim_msg_collision.h). */
#include "sim_msg_collision.h"

#include <math.h>
#include <string.h>

#include "sim_msg_fields.h"

#define T sim_msg_vehicle_collision
static const sim_msg_field FIELDS[] = {
    {"kind", SIM_MF_STR, SIM_MF_AT(T, kind, SIM_MF_STR, sizeof(((T *)0)->kind)), 0, 0, sizeof(((T *)0)->kind)},
    {"id", SIM_MF_STR, SIM_MF_AT(T, id, SIM_MF_STR, sizeof(((T *)0)->id)), 0, 0, sizeof(((T *)0)->id)},
    {"speed", SIM_MF_NUM, SIM_MF_AT(T, speed, SIM_MF_NUM, 0), 0, 1e4, 0},
    {"ego_speed", SIM_MF_NUM, SIM_MF_AT(T, ego_speed, SIM_MF_NUM, 0), 0, 1e4, 0},
    {"x", SIM_MF_NUM, SIM_MF_AT(T, x, SIM_MF_NUM, 0), -1e9, 1e9, 0},
    {"y", SIM_MF_NUM, SIM_MF_AT(T, y, SIM_MF_NUM, 0), -1e9, 1e9, 0},
};
#undef T
#define N (sizeof FIELDS / sizeof *FIELDS)

cJSON *sim_msg_vehicle_collision_encode(const sim_msg_vehicle_collision *m)
{
    return sim_msg_fields_object(m, FIELDS, N);
}

int sim_msg_vehicle_collision_decode(const cJSON *msg, sim_msg_vehicle_collision *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_VEHICLE_COLLISION, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, FIELDS, N);
    if (!rc && !out->kind[0])
        rc = sim_json_found(&j, "kind", NULL, "an object kind name");
    if (!rc && !out->id[0])
        rc = sim_json_found(&j, "id", NULL, "the object's id");
    if (!rc && isnan(out->speed))
        rc = sim_json_found(&j, "speed", NULL, "a number >= 0 (m/s)");
    return rc;
}
