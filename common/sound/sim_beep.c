/* sim_beep: the DRT tone (see sim_beep.h). */
#include "sim_beep.h"

#include <math.h>

void sim_beep_init(sim_beep *b, double rate)
{
    *b = (sim_beep){.rate = rate, .freq = 1000, .amp = 0.3};
}

void sim_beep_mix(sim_beep *b, int16_t *s, size_t n)
{
    double step = 1.0 / (0.005 * b->rate), dphi = 2 * M_PI * b->freq / b->rate;
    for (size_t i = 0; i < n; i++) {
        if (b->on && b->gain < 1) b->gain = fmin(1, b->gain + step);
        else if (!b->on && b->gain > 0) b->gain = fmax(0, b->gain - step);
        if (b->gain <= 0) {
            b->phase = 0;
            continue;
        }
        double v = s[i] + 32767 * b->amp * b->gain * sin(b->phase);
        s[i] = (int16_t)fmax(-32768, fmin(32767, lrint(v)));
        b->phase = fmod(b->phase + dphi, 2 * M_PI);
    }
}
