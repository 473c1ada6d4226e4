/* messages: JSON encoding and decoding of the physics node's topics. */
#include "messages.h"

#include <math.h>

#include "sim_msg_traffic.h"

#define PN_MAX_TRAFFIC 128 /* vehicles read from one traffic.state */

cJSON *pn_tick_json(uint64_t n, double t, double dt, int run, bool paused)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "n", (double)n);
    cJSON_AddNumberToObject(o, "t", t);
    cJSON_AddNumberToObject(o, "dt", dt);
    cJSON_AddNumberToObject(o, "run", run);
    cJSON_AddBoolToObject(o, "paused", paused);
    return o;
}

static void add_vec(cJSON *o, const char *name, const double *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(o, name);
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
}

cJSON *pn_vehicle_state_json(const sim_vehicle_state *s, const sim_vehicle_controls *in,
                             const pn_road_pos *road, sim_vehicle_model model)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "speed", s->speed);
    add_vec(o, "pos", s->pos, 3);
    cJSON_AddNumberToObject(o, "heading", s->heading);
    cJSON_AddNumberToObject(o, "pitch", s->pitch);
    cJSON_AddNumberToObject(o, "roll", s->roll);
    cJSON_AddNumberToObject(o, "yaw_rate", s->yaw_rate);
    add_vec(o, "vel", s->vel, 3);
    add_vec(o, "vel_body", s->vel_body, 3);
    add_vec(o, "ang_vel_body", s->ang_vel_body, 3);
    add_vec(o, "accel_body", s->accel_body, 3);
    cJSON_AddNumberToObject(o, "gear", s->gear);
    cJSON_AddNumberToObject(o, "rpm", s->rpm);
    cJSON_AddNumberToObject(o, "steer_angle", s->steer_angle);
    cJSON_AddNumberToObject(o, "steer", in->steer);
    cJSON_AddNumberToObject(o, "throttle", in->throttle);
    cJSON_AddNumberToObject(o, "brake", in->brake);
    cJSON_AddNumberToObject(o, "clutch", s->clutch);
    cJSON_AddStringToObject(o, "model", sim_vehicle_model_name(model));
    if (road && road->valid) {
        cJSON_AddNumberToObject(o, "s", road->s);
        cJSON_AddNumberToObject(o, "d", road->d);
        if (road->lane != 0) {
            cJSON_AddNumberToObject(o, "lane", road->lane);
            cJSON_AddNumberToObject(o, "lane_offset", road->lane_offset);
        } else {
            cJSON_AddNullToObject(o, "lane");
            cJSON_AddNullToObject(o, "lane_offset");
        }
    } else {
        cJSON_AddNullToObject(o, "s");
        cJSON_AddNullToObject(o, "d");
        cJSON_AddNullToObject(o, "lane");
        cJSON_AddNullToObject(o, "lane_offset");
    }
    cJSON *wheels = cJSON_AddArrayToObject(o, "wheels");
    for (int i = 0; wheels && i < SIM_WHEELS; i++) {
        const sim_wheel_state *w = &s->wheel[i];
        cJSON *j = cJSON_CreateObject();
        if (!j)
            break;
        add_vec(j, "pos", w->pos, 3);
        cJSON_AddNumberToObject(j, "omega", w->omega);
        cJSON_AddNumberToObject(j, "travel", w->travel);
        cJSON_AddNumberToObject(j, "steer", w->steer);
        cJSON_AddNumberToObject(j, "load", w->load);
        cJSON_AddNumberToObject(j, "fx", w->fx);
        cJSON_AddNumberToObject(j, "fy", w->fy);
        cJSON_AddNumberToObject(j, "slip_ratio", w->slip_ratio);
        cJSON_AddNumberToObject(j, "slip_angle", w->slip_angle);
        cJSON_AddBoolToObject(j, "contact", w->contact);
        cJSON_AddItemToArray(wheels, j);
    }
    return o;
}

cJSON *pn_ffb_json(const sim_ffb_output *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "torque", f->torque);
    cJSON_AddNumberToObject(o, "spring", f->spring);
    cJSON_AddNumberToObject(o, "damper", f->damper);
    cJSON_AddNumberToObject(o, "rumble", f->rumble);
    cJSON_AddNumberToObject(o, "rumble_hz", f->rumble_hz);
    return o;
}

static bool number(const cJSON *msg, const char *name, double lo, double hi, double *out)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(msg, name);
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
        return false;
    double x = j->valuedouble;
    *out = x < lo ? lo : x > hi ? hi : x;
    return true;
}

bool pn_controls_from_json(const cJSON *msg, sim_vehicle_controls *c)
{
    if (!cJSON_IsObject(msg))
        return false;
    sim_vehicle_controls n = *c;
    number(msg, "steer", -1.0, 1.0, &n.steer);
    number(msg, "throttle", 0.0, 1.0, &n.throttle);
    number(msg, "brake", 0.0, 1.0, &n.brake);
    number(msg, "clutch", 0.0, 1.0, &n.clutch);
    double gear;
    if (number(msg, "gear", -1.0, 16.0, &gear)) {
        n.automatic = false;
        n.gear = (int)lround(gear);
    } else {
        /* No gear: the automatic drives forward (the "missing = automatic"). */
        n.automatic = true;
        n.gear = 1;
    }
    *c = n;
    return true;
}

size_t pn_boxes_from_json(const cJSON *msg, sim_box *boxes, size_t max)
{
    /* The one definition of traffic.state (sim_msg_traffic); a bad entry is left out
     * and the others kept, as before. */
    sim_msg_traffic_vehicle v[PN_MAX_TRAFFIC];
    sim_msg_traffic_state st = {.vehicles = v};
    if (max > PN_MAX_TRAFFIC) max = PN_MAX_TRAFFIC;
    sim_msg_traffic_state_decode(msg, &st, (int)max, NULL);
    for (int i = 0; i < st.n_vehicles; i++) {
        sim_box b = {.heading = v[i].heading};
        for (int k = 0; k < 3; k++) {
            b.center[k] = v[i].pos[k];
            b.half[k] = 0.5 * v[i].size[k];
            b.velocity[k] = v[i].velocity[k];
        }
        b.center[2] += b.half[2]; /* pos is on the road; the box stands on it */
        boxes[i] = b;
    }
    return (size_t)st.n_vehicles;
}
