/* fuzz_msg: arbitrary JSON through every message decoder of common/protocol
 * (sim.tick, vehicle.state, input.controls, ffb.command, render.latency); what decodes is encoded again
 * and must decode to the same. Input: one JSON text. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_msg_ffb.h"
#include "sim_msg_input.h"
#include "sim_msg_render.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"

static void same(double a, double b)
{
    if (!(a == b || (isnan(a) && isnan(b)))) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *msg = cJSON_ParseWithLength((const char *)data, size);
    if (!msg) return 0;
    sim_error err;
    sim_msg_tick tick;
    sim_msg_tick_decode(msg, &tick, &err);
    sim_msg_vehicle_state st;
    if (sim_msg_vehicle_state_decode(msg, &st, &err) == SIM_OK) {
        cJSON *o = sim_msg_vehicle_state_encode(&st);
        sim_msg_vehicle_state back;
        if (o && sim_msg_vehicle_state_decode(o, &back, &err) != SIM_OK) abort();
        if (o) same(st.speed, back.speed);
        cJSON_Delete(o);
    }
    sim_msg_input_controls c;
    if (sim_msg_input_controls_decode(msg, &c, &err) == SIM_OK) {
        cJSON *o = sim_msg_input_controls_encode(&c);
        sim_msg_input_controls back;
        if (o && sim_msg_input_controls_decode(o, &back, &err) != SIM_OK) abort();
        if (o) same(c.throttle, back.throttle);
        cJSON_Delete(o);
    }
    sim_msg_ffb_command f;
    sim_msg_ffb_command_decode(msg, &f, &err);
    sim_msg_render_latency l;
    if (sim_msg_render_latency_decode(msg, &l, &err) == SIM_OK) {
        cJSON *o = sim_msg_render_latency_encode(&l);
        sim_msg_render_latency back;
        if (o && sim_msg_render_latency_decode(o, &back, &err) != SIM_OK) abort();
        if (o) same(l.p95_ms, back.p95_ms);
        cJSON_Delete(o);
    }
    cJSON_Delete(msg);
    return 0;
}
