/* test_audio: level and pitch of audio samples (see test_audio.h). */
#include "test_audio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool ta_disk_audio(char *dir, size_t dir_size, char *path, size_t path_size)
{
    snprintf(dir, dir_size, "/tmp/sim-audio-XXXXXX");
    if (!mkdtemp(dir)) return false;
    snprintf(path, path_size, "%s/out.raw", dir);
    setenv("SDL_AUDIODRIVER", "disk", 1);
    setenv("SDL_DISKAUDIOFILE", path, 1);
    return true;
}

double ta_rms(const int16_t *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)x[i] * x[i];
    return n ? sqrt(sum / (double)n) / 32768.0 : 0;
}

double ta_dominant_hz(const int16_t *x, size_t n, int rate, double lo_hz, double hi_hz, double step_hz)
{
    double best = lo_hz, best_mag = -1;
    for (double f = lo_hz; f <= hi_hz; f += step_hz) {
        /* Goertzel: one DFT bin at f */
        double w = 2 * M_PI * f / rate, c = 2 * cos(w), s1 = 0, s2 = 0;
        for (size_t i = 0; i < n; i++) {
            double s0 = x[i] + c * s1 - s2;
            s2 = s1;
            s1 = s0;
        }
        double mag = s1 * s1 + s2 * s2 - c * s1 * s2;
        if (mag > best_mag) {
            best_mag = mag;
            best = f;
        }
    }
    return best;
}
