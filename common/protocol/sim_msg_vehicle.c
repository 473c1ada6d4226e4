/* sim_msg_vehicle: vehicle.state (see sim_msg_vehicle.h). */
#include "sim_msg_vehicle.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sim_msg_fields.h"

#define ANY -INFINITY, INFINITY
#define F(name, kind, ...) {#name, kind, SIM_MF_AT(sim_msg_vehicle_state, name, kind, 0), __VA_ARGS__, 0}
#define S(name) {#name, SIM_MF_STR, SIM_MF_AT(sim_msg_vehicle_state, name, SIM_MF_STR, SIM_MSG_ID_MAX), 0, 0, SIM_MSG_ID_MAX}
/* In the order physics has always written them; wheels follow lane_offset. */
static const sim_msg_field STATE[] = {
    F(speed, SIM_MF_NUM, ANY), F(pos, SIM_MF_VEC3, ANY), F(heading, SIM_MF_NUM, ANY),
    F(pitch, SIM_MF_NUM, ANY), F(roll, SIM_MF_NUM, ANY), F(yaw_rate, SIM_MF_NUM, ANY),
    F(vel, SIM_MF_VEC3, ANY), F(vel_body, SIM_MF_VEC3, ANY), F(ang_vel_body, SIM_MF_VEC3, ANY),
    F(accel_body, SIM_MF_VEC3, ANY), F(gear, SIM_MF_INT, -1e9, 1e9), F(rpm, SIM_MF_NUM, ANY),
    F(steer_angle, SIM_MF_NUM, ANY), F(steer, SIM_MF_NUM, ANY), F(throttle, SIM_MF_NUM, ANY),
    F(brake, SIM_MF_NUM, ANY), F(clutch, SIM_MF_NUM, ANY),
    {"model", SIM_MF_STR, SIM_MF_AT(sim_msg_vehicle_state, model, SIM_MF_STR, 16), 0, 0, 16},
    F(s, SIM_MF_NUM_NULL, ANY), F(d, SIM_MF_NUM_NULL, ANY), F(lane, SIM_MF_INT_NULL, -1e9, 1e9),
    F(lane_offset, SIM_MF_NUM_NULL, ANY),
};
static const sim_msg_field EXTRAS[] = {
    F(accel, SIM_MF_NUM, ANY), F(headway_dist, SIM_MF_NUM, ANY), F(headway_time, SIM_MF_NUM, ANY),
    F(lat_dev, SIM_MF_NUM, ANY), S(sector), S(task), F(run, SIM_MF_INT, -1e9, 1e9),
    S(road), F(tick, SIM_MF_NUM, 0, 9007199254740992.0),
    F(in_stamp, SIM_MF_NUM, ANY), F(in_sent, SIM_MF_NUM, ANY), F(in_recv, SIM_MF_NUM, ANY),
    F(stepped, SIM_MF_NUM, ANY), F(head_f, SIM_MF_VEC3, ANY), F(head_w, SIM_MF_VEC3, ANY),
};
#undef F
#undef S
#define W(name, kind) {#name, kind, SIM_MF_AT(sim_msg_wheel, name, kind, 0), ANY, 0}
static const sim_msg_field WHEEL[] = {
    W(pos, SIM_MF_VEC3), W(omega, SIM_MF_NUM), W(travel, SIM_MF_NUM), W(steer, SIM_MF_NUM),
    W(load, SIM_MF_NUM), W(fx, SIM_MF_NUM), W(fy, SIM_MF_NUM), W(slip_ratio, SIM_MF_NUM),
    W(slip_angle, SIM_MF_NUM), W(contact, SIM_MF_BOOL),
};
#undef W
#define COUNT(a) (sizeof a / sizeof *a)

void sim_msg_vehicle_state_clear(sim_msg_vehicle_state *m)
{
    memset(m, 0, sizeof *m);
    sim_msg_fields_clear(m, STATE, COUNT(STATE));
    sim_msg_fields_clear(m, EXTRAS, COUNT(EXTRAS));
}

cJSON *sim_msg_vehicle_state_encode(const sim_msg_vehicle_state *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    int rc = sim_msg_fields_encode(o, m, STATE, COUNT(STATE));
    if (!rc && m->n_wheels > 0) {
        cJSON *wheels = cJSON_AddArrayToObject(o, "wheels");
        rc = wheels ? SIM_OK : SIM_ENOMEM;
        for (int i = 0; !rc && i < m->n_wheels && i < SIM_MSG_WHEELS; i++) {
            cJSON *w = cJSON_CreateObject();
            if (!w || !cJSON_AddItemToArray(wheels, w)) {
                cJSON_Delete(w);
                rc = SIM_ENOMEM;
            } else {
                rc = sim_msg_fields_encode(w, &m->wheel[i], WHEEL, COUNT(WHEEL));
            }
        }
    }
    if (!rc) rc = sim_msg_fields_encode(o, m, EXTRAS, COUNT(EXTRAS));
    if (!rc && m->replay && !cJSON_AddBoolToObject(o, "replay", true)) rc = SIM_ENOMEM;
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_vehicle_state_decode(const cJSON *msg, sim_msg_vehicle_state *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_VEHICLE_STATE, .err = err};
    sim_msg_vehicle_state_clear(out);
    int rc = sim_msg_fields_decode(&j, msg, out, STATE, COUNT(STATE));
    if (!cJSON_IsObject(msg)) return rc;
    int e = sim_msg_fields_decode(&j, msg, out, EXTRAS, COUNT(EXTRAS));
    if (!rc) rc = e;
    const cJSON *replay = cJSON_GetObjectItemCaseSensitive(msg, "replay");
    out->replay = cJSON_IsTrue(replay);
    const cJSON *wheels = cJSON_GetObjectItemCaseSensitive(msg, "wheels");
    if (wheels && !cJSON_IsNull(wheels)) {
        if (!cJSON_IsArray(wheels)) {
            e = sim_json_found(&j, "wheels", wheels, "an array of wheel objects");
            if (!rc) rc = e;
        } else {
            const cJSON *w;
            cJSON_ArrayForEach(w, wheels)
            {
                if (out->n_wheels == SIM_MSG_WHEELS) break;
                e = sim_msg_fields_decode(&j, w, &out->wheel[out->n_wheels], WHEEL, COUNT(WHEEL));
                if (e && !rc) rc = e;
                out->n_wheels++;
            }
        }
    }
    return rc;
}
