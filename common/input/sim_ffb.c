/* sim_ffb: force-feedback effect parameters and the safety fade (see sim_ffb.h). */
#include "sim_ffb.h"

#include <assert.h>

#include <math.h>
#include <string.h>

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void sim_ffb_init(sim_ffb *f, double gain, double torque_limit, bool invert)
{
    memset(f, 0, sizeof *f);
    f->gain = clamp(gain, 0, 1);
    f->torque_limit = clamp(torque_limit, 0, 1);
    f->invert = invert;
}

void sim_ffb_effects_for(double gain, double torque_limit, bool invert,
                         const sim_ffb_command *cmd, double scale, sim_ffb_effects *out)
{
    double limit = clamp(torque_limit, 0, 1);
    gain = clamp(gain, 0, 1);
    scale = clamp(scale, 0, 1);
    double torque = clamp(cmd->torque * gain, -limit, limit);
    /* The device adds the effects up; the periodic one gets what the constant force
     * leaves of the limit, so their sum never exceeds it. */
    double rumble = fmin(clamp(cmd->rumble * gain, 0, 1), limit - fabs(torque));
    double hz = cmd->rumble_hz > 0 ? cmd->rumble_hz : SIM_FFB_DEFAULT_RUMBLE_HZ;
    out->dir_x = invert ? -1 : 1;
    out->constant_level = (int16_t)lround(torque * scale * 32767.0);
    out->spring_coeff = (int16_t)lround(clamp(cmd->spring * gain, 0, 1) * scale * 32767.0);
    out->damper_coeff = (int16_t)lround(clamp(cmd->damper * gain, 0, 1) * scale * 32767.0);
    out->saturation = (uint16_t)lround(limit * scale * 65535.0);
    out->periodic_magnitude = (int16_t)lround(rumble * scale * 32767.0);
    out->periodic_period_ms = (uint16_t)clamp(lround(1000.0 / hz), 1, 1000);
    out->scale = scale;
}

/* Moves the safety scale from scale_t to now. Rising (at 1/FADE_S) while commands
 * keep coming, falling at the same rate from WATCHDOG_S after the last command, or at
 * once after an event. Split at the watchdog instant so the result does not depend on
 * how often the caller updates. */
static void advance(sim_ffb *f, double now)
{
    double t = f->scale_t;
    if (!(now > t)) return;
    const double rate = 1.0 / SIM_FFB_FADE_S;
    bool may_rise = f->have_cmd && !f->paused && !f->latched && !f->forced_fade;
    if (may_rise) {
        double quiet_at = f->last_cmd_t + SIM_FFB_WATCHDOG_S;
        if (t < quiet_at) {
            double t1 = fmin(now, quiet_at);
            f->scale = fmin(1.0, f->scale + (t1 - t) * rate);
            t = t1;
        }
    }
    if (now > t) f->scale = fmax(0.0, f->scale - (now - t) * rate);
    f->scale_t = now;
    /* the fade's invariants: a scale in [0, 1]; a latched (stopped) wheel never rises */
    assert(f->scale >= 0.0 && f->scale <= 1.0);
    assert(!f->latched || !may_rise);
}

void sim_ffb_command_in(sim_ffb *f, double now, const sim_ffb_command *cmd)
{
    advance(f, now);
    if (f->latched || f->paused) return;
    f->cmd = *cmd;
    f->have_cmd = true;
    f->last_cmd_t = now;
    f->forced_fade = false;
}

void sim_ffb_event_in(sim_ffb *f, double now, sim_ffb_event ev)
{
    advance(f, now);
    switch (ev) {
    case SIM_FFB_BUS_LOST: f->forced_fade = true; break;
    case SIM_FFB_PAUSED: f->paused = true; break;
    case SIM_FFB_RESUMED: f->paused = false; break;
    case SIM_FFB_STOPPED:
    case SIM_FFB_EXIT: f->latched = true; break;
    default: assert(!"an ffb event out of its enum"); break;
    }
}

void sim_ffb_update(sim_ffb *f, double now, sim_ffb_effects *out)
{
    advance(f, now);
    static const sim_ffb_command none = {.rumble_hz = SIM_FFB_DEFAULT_RUMBLE_HZ};
    sim_ffb_effects_for(f->gain, f->torque_limit, f->invert, f->have_cmd ? &f->cmd : &none,
                        f->scale, out);
}
