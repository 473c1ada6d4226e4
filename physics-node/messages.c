/* messages: JSON encoding and decoding of the physics node's topics. */
#include "messages.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_msg_ffb.h"
#include "sim_msg_input.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"

cJSON *pn_tick_json(uint64_t n, double dt, int run, bool paused)
{
    sim_msg_tick m = {.n = n, .dt = dt, .run = run, .paused = paused};
    return sim_msg_tick_encode(&m);
}

cJSON *pn_vehicle_state_json(const sim_vehicle_state *s, const sim_vehicle_controls *in,
                             const pn_road_pos *road, sim_vehicle_model model)
{
    sim_msg_vehicle_state m;
    sim_msg_vehicle_state_clear(&m);
    m.speed = s->speed;
    memcpy(m.pos, s->pos, sizeof m.pos);
    m.heading = s->heading;
    m.pitch = s->pitch;
    m.roll = s->roll;
    m.yaw_rate = s->yaw_rate;
    memcpy(m.vel, s->vel, sizeof m.vel);
    memcpy(m.vel_body, s->vel_body, sizeof m.vel_body);
    memcpy(m.ang_vel_body, s->ang_vel_body, sizeof m.ang_vel_body);
    memcpy(m.accel_body, s->accel_body, sizeof m.accel_body);
    m.gear = s->gear;
    m.rpm = s->rpm;
    m.steer_angle = s->steer_angle;
    m.steer = in->steer;
    m.throttle = in->throttle;
    m.brake = in->brake;
    m.clutch = s->clutch;
    snprintf(m.model, sizeof m.model, "%s", sim_vehicle_model_name(model));
    if (road && road->valid) {
        m.s = road->s;
        m.d = road->d;
        if (road->lane != 0) {
            m.lane = road->lane;
            m.lane_offset = road->lane_offset;
        }
    }
    m.n_wheels = SIM_WHEELS < SIM_MSG_WHEELS ? SIM_WHEELS : SIM_MSG_WHEELS;
    for (int i = 0; i < m.n_wheels; i++) {
        const sim_wheel_state *w = &s->wheel[i];
        sim_msg_wheel *o = &m.wheel[i];
        memcpy(o->pos, w->pos, sizeof o->pos);
        o->omega = w->omega;
        o->travel = w->travel;
        o->steer = w->steer;
        o->load = w->load;
        o->fx = w->fx;
        o->fy = w->fy;
        o->slip_ratio = w->slip_ratio;
        o->slip_angle = w->slip_angle;
        o->contact = w->contact;
    }
    return sim_msg_vehicle_state_encode(&m);
}

cJSON *pn_ffb_json(const sim_ffb_output *f)
{
    sim_msg_ffb_command m = {.torque = f->torque, .spring = f->spring, .damper = f->damper,
                             .rumble = f->rumble, .rumble_hz = f->rumble_hz};
    return sim_msg_ffb_command_encode(&m);
}

int pn_controls_from_json(const cJSON *msg, sim_vehicle_controls *c, sim_error *err)
{
    sim_msg_input_controls m;
    int rc = sim_msg_input_controls_decode(msg, &m, err);
    if (rc)
        return rc; /* refused whole (docs/protocol.md): the previous controls stay */
    sim_vehicle_controls n = *c;
    if (!isnan(m.steer))
        n.steer = m.steer;
    if (!isnan(m.throttle))
        n.throttle = m.throttle;
    if (!isnan(m.brake))
        n.brake = m.brake;
    if (!isnan(m.clutch))
        n.clutch = m.clutch;
    /* No gear: the automatic drives forward (the "missing = automatic"). */
    n.automatic = !m.has_gear;
    n.gear = m.has_gear ? m.gear : 1;
    *c = n;
    return SIM_OK;
}

static bool vec3(const cJSON *o, const char *name, double *v)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
        return false;
    for (int i = 0; i < 3; i++) {
        const cJSON *e = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return false;
        v[i] = e->valuedouble;
    }
    return true;
}

size_t pn_boxes_from_json(const cJSON *msg, sim_box *boxes, size_t max)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(msg, "vehicles");
    const cJSON *v;
    size_t n = 0;
    if (!cJSON_IsArray(list))
        return 0;
    cJSON_ArrayForEach(v, list)
    {
        if (n >= max)
            break;
        sim_box b = {.half = {2.25, 0.9, 0.75}};
        double size[3];
        if (!vec3(v, "pos", b.center))
            continue;
        if (vec3(v, "size", size) && size[0] > 0 && size[1] > 0 && size[2] > 0) {
            b.half[0] = 0.5 * size[0];
            b.half[1] = 0.5 * size[1];
            b.half[2] = 0.5 * size[2];
        }
        b.center[2] += b.half[2]; /* pos is on the road; the box stands on it */
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "heading");
        if (cJSON_IsNumber(h) && isfinite(h->valuedouble))
            b.heading = h->valuedouble;
        vec3(v, "velocity", b.velocity);
        boxes[n++] = b;
    }
    return n;
}
