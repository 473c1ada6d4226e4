/* messages: JSON encoding and decoding of the physics node's topics. */
#include "messages.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim_msg_ffb.h"
#include "sim_msg_input.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "sim_motion.h"
#include "sim_rigid.h"
#include "sim_msg_traffic.h"

#define PN_MAX_TRAFFIC 128 /* vehicles read from one traffic.state */

cJSON *pn_tick_json(uint64_t n, double dt, int run, bool paused)
{
    /* the wall clock now: where simulation time t was reached, for the instruments'
     * time base (docs/instruments.md) */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    sim_msg_tick m = {.n = n, .dt = dt, .run = run, .paused = paused,
                      .wall = (double)now.tv_sec + now.tv_nsec * 1e-9};
    return sim_msg_tick_encode(&m);
}

cJSON *pn_vehicle_state_json(const sim_vehicle_state *s, const sim_vehicle_controls *in,
                             const pn_road_pos *road, sim_vehicle_model model, uint64_t tick, int run,
                             const pn_stamps *stamps, const double *head)
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
    m.accel = s->accel_body[0]; /* along the heading: the recorder's accel column */
    m.gear = s->gear;
    m.rpm = s->rpm;
    m.steer_angle = s->steer_angle;
    m.steer = in->steer;
    m.throttle = in->throttle;
    m.brake = in->brake;
    m.clutch = s->clutch;
    snprintf(m.model, sizeof m.model, "%s", sim_vehicle_model_name(model));
    m.tick = (double)tick;
    m.run = run;
    if (head) {
        memcpy(m.head_f, head, sizeof m.head_f);
        memcpy(m.head_w, head + 3, sizeof m.head_w);
    }
    if (stamps) {
        m.in_stamp = stamps->in_stamp;
        m.in_sent = stamps->in_sent;
        m.in_recv = stamps->in_recv;
        m.stepped = stamps->stepped;
    }
    if (road && road->valid) {
        if (road->road_id) snprintf(m.road, sizeof m.road, "%s", road->road_id);
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
    double stamp, sent;
    return pn_controls_stamped(msg, c, &stamp, &sent, err);
}

int pn_controls_stamped(const cJSON *msg, sim_vehicle_controls *c, double *stamp, double *sent, sim_error *err)
{
    sim_msg_input_controls m;
    int rc = sim_msg_input_controls_decode(msg, &m, err);
    if (rc)
        return rc; /* refused whole (docs/protocol.md): the previous controls stay */
    *stamp = m.stamp;
    *sent = m.sent;
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

size_t pn_boxes_from_json(const cJSON *msg, const char *cab, sim_box *boxes, size_t max)
{
    /* The one definition of traffic.state (sim_msg_traffic); a bad entry is left out
     * and the others kept, as before. */
    sim_msg_traffic_vehicle v[PN_MAX_TRAFFIC];
    sim_msg_traffic_state st = {.vehicles = v};
    if (max > PN_MAX_TRAFFIC) max = PN_MAX_TRAFFIC;
    sim_msg_traffic_state_decode(msg, &st, (int)max, NULL);
    size_t n = 0;
    for (int i = 0; i < st.n_vehicles; i++) {
        /* this cab's own car among the agents (docs/cabs.md): not an obstacle to itself */
        if (cab && strncmp(v[i].id, "cab.", 4) == 0 && strcmp(v[i].id + 4, cab) == 0) continue;
        sim_box b = {.heading = v[i].heading};
        for (int k = 0; k < 3; k++) {
            b.center[k] = v[i].pos[k];
            b.half[k] = 0.5 * v[i].size[k];
            b.velocity[k] = v[i].velocity[k];
        }
        b.center[2] += b.half[2]; /* pos is on the road; the box stands on it */
        boxes[n++] = b;
    }
    return n;
}

void pn_head_motion(const sim_vehicle_state *s, const sim_vehicle_params *p, const double alpha[3], double head[6])
{
    sim_quat q = {s->quat[0], s->quat[1], s->quat[2], s->quat[3]};
    sim_vec3 up = sim_quat_unrotate(q, (sim_vec3){0, 0, SIM_MOTION_G});
    double r[3] = {p->driver_eye.x, p->driver_eye.y, p->driver_eye.z}, u[3] = {up.x, up.y, up.z};
    sim_motion_head_force(s->accel_body, s->ang_vel_body, alpha, r, u, head);
    memcpy(head + 3, s->ang_vel_body, 3 * sizeof *head);
}
