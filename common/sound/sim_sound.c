/* sim_sound: engine and tyre sound synthesis (see sim_sound.h). */
#include "sim_sound.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#define TWO_PI 6.283185307179586
/* Full scale is shared by the engine (up to ENGINE_MAX) and the tyres (TYRE_MAX) so
 * that their sum never clips. */
#define ENGINE_MAX 0.55
#define TYRE_MAX 0.4
#define TYRE_CUTOFF_HZ 1200.0
#define RPM_FULL 6000.0 /* the engine is at its loudest from here on */

double sim_sound_engine_hz(double rpm, int cylinders)
{
    return rpm > 0 ? rpm / 60.0 * cylinders / 2.0 : 0.0;
}

int sim_sound_init(sim_sound *s, const sim_sound_params *p, sim_error *err)
{
    if (p->sample_rate < 8000 || p->sample_rate > 192000)
        return sim_error_set(err, SIM_EINVAL, "sound: sample rate %d Hz: expected 8000..192000", p->sample_rate);
    if (p->cylinders < 1 || p->cylinders > 16)
        return sim_error_set(err, SIM_EINVAL, "sound: %d cylinders: expected 1..16", p->cylinders);
    if (!(p->volume >= 0 && p->volume <= 1))
        return sim_error_set(err, SIM_EINVAL, "sound: volume %g: expected 0..1", p->volume);
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->noise = 0x12345678u;
    s->on = true;
    s->chime_t = -1;
    return SIM_OK;
}

static double clamp01(double v)
{
    return v > 1 ? 1 : v > 0 ? v : 0; /* NaN becomes 0 */
}

void sim_sound_set(sim_sound *s, const sim_sound_input *in)
{
    double rpm = in->rpm > 0 && isfinite(in->rpm) ? in->rpm : 0;
    s->engine_hz_to = sim_sound_engine_hz(rpm, s->p.cylinders);
    /* Nyquist: a tone (and its third harmonic) above half the rate would alias */
    if (s->engine_hz_to * 3 > s->p.sample_rate / 2.0) s->engine_hz_to = s->p.sample_rate / 6.0;
    s->engine_amp_to = s->p.engine && rpm > 0
                           ? ENGINE_MAX * (0.3 + 0.7 * clamp01(in->load)) * (0.35 + 0.65 * clamp01(rpm / RPM_FULL))
                           : 0;
    s->tyre_amp_to = TYRE_MAX * clamp01(fabs(in->slip) / 0.3) * clamp01(fabs(in->speed) / 5.0);
}

void sim_sound_enable(sim_sound *s, bool on) { s->on = on; }
void sim_sound_pause(sim_sound *s, bool paused) { s->paused = paused; }
void sim_sound_chime(sim_sound *s) { s->chime_t = 0; }

#define CHIME_AMP 0.3  /* with the ducking below, the sum stays within full scale */
#define CHIME_DUCK 0.35

/* The chime's sample at s->chime_t and its envelope (0 when none plays). */
static double chime(sim_sound *s, double rate, bool audible, double *env)
{
    *env = 0;
    if (s->chime_t < 0) return 0;
    double t = s->chime_t, second = t >= 0.25, t0 = second ? t - 0.25 : t;
    s->chime_t += 1.0 / rate;
    if (s->chime_t >= SIM_SOUND_CHIME_S) s->chime_t = -1;
    if (!audible) return 0;
    /* 5 ms attack (no click), then an exponential decay */
    *env = fmin(1.0, t0 / 0.005) * exp(-6.0 * t0) * s->p.volume;
    return CHIME_AMP * *env * sin(TWO_PI * (second ? SIM_SOUND_CHIME_HZ2 : SIM_SOUND_CHIME_HZ1) * t0);
}

/* One step of a linear ramp from *v towards to, reaching it in SIM_SOUND_RAMP_S. */
static void ramp(double *v, double to, double step)
{
    if (fabs(to - *v) <= step) *v = to;
    else *v += to > *v ? step : -step;
}

void sim_sound_render(sim_sound *s, int16_t *out, size_t frames)
{
    double rate = s->p.sample_rate;
    bool audible = s->on && !s->paused;
    double ramp_n = SIM_SOUND_RAMP_S * rate;
    double e_step = ENGINE_MAX / ramp_n, t_step = TYRE_MAX / ramp_n, hz_step = 2000.0 / ramp_n;
    double alpha = 1.0 - exp(-TWO_PI * TYRE_CUTOFF_HZ / rate);
    for (size_t i = 0; i < frames; i++) {
        ramp(&s->engine_amp, audible ? s->engine_amp_to * s->p.volume : 0, e_step);
        ramp(&s->tyre_amp, audible ? s->tyre_amp_to * s->p.volume : 0, t_step);
        ramp(&s->engine_hz, s->engine_hz_to, hz_step);
        s->phase += s->engine_hz / rate;
        s->phase -= floor(s->phase);
        double x = TWO_PI * s->phase;
        /* fundamental strongest, so the pitch is the firing frequency */
        double engine = (sin(x) + 0.35 * sin(2 * x) + 0.15 * sin(3 * x)) / 1.5;
        s->noise = s->noise * 1664525u + 1013904223u;
        double white = (double)(s->noise >> 8) / 8388608.0 - 1.0;
        s->lp += alpha * (white - s->lp);
        double env, c = chime(s, rate, audible, &env);
        double v = (s->engine_amp * engine + s->tyre_amp * s->lp) * (1.0 - CHIME_DUCK * env) + c;
        assert(fabs(v) <= 1.0);
        out[i] = (int16_t)lrint(v * 32767.0);
    }
}
