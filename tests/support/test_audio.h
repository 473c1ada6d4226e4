/* test_audio: measuring written audio in tests: level (RMS) and the dominant
 * frequency, found by a direct DFT over a range of candidate frequencies. */
#ifndef TEST_AUDIO_H
#define TEST_AUDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sends the SDL audio of processes started from now on to SDL's disk driver, writing
 * to path (a file in a fresh temporary directory, dir; a dir of 32 bytes and a path of
 * 64 suffice). False when the directory cannot be made. */
bool ta_disk_audio(char *dir, size_t dir_size, char *path, size_t path_size);

/* RMS of n samples, as a fraction of full scale (0..1). */
double ta_rms(const int16_t *x, size_t n);
/* The frequency in [lo_hz, hi_hz] (scanned in step_hz steps) with the largest DFT
 * magnitude over the n samples at rate Hz. */
double ta_dominant_hz(const int16_t *x, size_t n, int rate, double lo_hz, double hi_hz, double step_hz);

#endif
