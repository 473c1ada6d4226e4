/* sim_msg_render: render.latency (see sim_msg_render.h). */
#include "sim_msg_render.h"

#include "sim_msg_fields.h"

#define T sim_msg_render_latency
#define F(name, key, kind, lo, hi) {key, kind, SIM_MF_AT(T, name, kind, 0), lo, hi, 0}
static const sim_msg_field LATENCY[] = {
    F(window_s, "window_s", SIM_MF_NUM, 0, 3600),
    F(frames, "frames", SIM_MF_INT, 1, 1e9),
    F(min_ms, "min_ms", SIM_MF_NUM, -1e6, 1e6),
    F(median_ms, "median_ms", SIM_MF_NUM, -1e6, 1e6),
    F(p95_ms, "p95_ms", SIM_MF_NUM, -1e6, 1e6),
    F(max_ms, "max_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[0], "device_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[1], "input_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[2], "step_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[3], "physics_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[4], "wait_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[5], "draw_ms", SIM_MF_NUM, -1e6, 1e6),
    F(stage_ms[6], "swap_ms", SIM_MF_NUM, -1e6, 1e6),
};
#undef F
#undef T
#define N (sizeof LATENCY / sizeof *LATENCY)

const char *sim_latency_stage_name(int i)
{
    static const char *const names[SIM_LATENCY_STAGES] = {"device", "input", "step", "physics",
                                                          "wait", "draw", "swap"};
    return i >= 0 && i < SIM_LATENCY_STAGES ? names[i] : NULL;
}

cJSON *sim_msg_render_latency_encode(const sim_msg_render_latency *m)
{
    return sim_msg_fields_object(m, LATENCY, N);
}

int sim_msg_render_latency_decode(const cJSON *msg, sim_msg_render_latency *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_RENDER_LATENCY, .err = err};
    sim_msg_render_latency m;
    int rc = sim_msg_fields_decode(&j, msg, &m, LATENCY, N);
    if (rc) return rc;
    if (m.frames == SIM_MSG_NO_INT || m.frames < 1)
        return sim_error_set(err, SIM_EINVAL, SIM_TOPIC_RENDER_LATENCY ": frames: missing, expected a count >= 1");
    double req[] = {m.window_s, m.min_ms, m.median_ms, m.p95_ms, m.max_ms};
    static const char *const names[] = {"window_s", "min_ms", "median_ms", "p95_ms", "max_ms"};
    for (size_t i = 0; i < sizeof req / sizeof *req; i++)
        if (req[i] != req[i])
            return sim_error_set(err, SIM_EINVAL, SIM_TOPIC_RENDER_LATENCY ": %s: missing, expected a number", names[i]);
    for (int i = 0; i < SIM_LATENCY_STAGES; i++)
        if (m.stage_ms[i] != m.stage_ms[i])
            return sim_error_set(err, SIM_EINVAL, SIM_TOPIC_RENDER_LATENCY ": %s_ms: missing, expected a number",
                                 sim_latency_stage_name(i));
    *out = m;
    return SIM_OK;
}
