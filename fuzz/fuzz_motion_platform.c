/* Fuzz target: the motion platform file parser (config/motion/*.json, docs/motion.md),
 * and the cueing chain on whatever it accepts. Every rejection must explain itself; an
 * accepted platform must run 400 steps of a car braking, turning and standing (fading
 * in, then out) with a finite pose, finite actuator lengths and finite felt cues. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim_motion.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sim_motion_platform pf;
    sim_error err = {0};
    if (sim_motion_platform_parse((const char *)data, size, "fuzz.json", &pf, &err) != SIM_OK) {
        if (err.msg[0] == '\0')
            __builtin_trap();
        return 0;
    }
    static sim_motion m;
    if (sim_motion_init(&m, &pf, 0.01, &err) != SIM_OK) {
        if (err.msg[0] == '\0')
            __builtin_trap();
        return 0;
    }
    sim_motion_fade(&m, true);
    for (int i = 0; i < 400; i++) {
        if (i == 300) sim_motion_fade(&m, false);
        sim_motion_input in = {.f = {i < 150 ? -8 : 0, 4 * sin(i * 0.05), SIM_MOTION_G}, .w = {0.1, 0, 0.3 * sin(i * 0.05)}};
        sim_motion_out o;
        sim_motion_step(&m, i % 50 == 7 ? NULL : &in, &o);
        for (int k = 0; k < 6; k++)
            if (!isfinite(o.pose[k])) __builtin_trap();
        for (int k = 0; k < pf.legs; k++)
            if (!isfinite(o.len[k])) __builtin_trap();
        for (int k = 0; k < 3; k++)
            if (!isfinite(o.f[k]) || !isfinite(o.w[k])) __builtin_trap();
    }
    return 0;
}
