/* sim_beep: the auditory DRT stimulus (docs/tasks.md): a sine tone mixed over the
 * driving sounds while on, with 5 ms ramps so that it starts and stops without a
 * click. Pure; the caller owns the struct. */
#ifndef SIM_BEEP_H
#define SIM_BEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sim_beep {
    double rate, freq, amp;   /* Hz, Hz, 0..1 of full scale */
    bool on;                  /* wanted: the gain ramps towards it */
    double gain, phase;
} sim_beep;

/* 1 kHz at 0.3 of full scale. */
void sim_beep_init(sim_beep *b, double rate);
/* Adds the tone to n samples (saturating). */
void sim_beep_mix(sim_beep *b, int16_t *s, size_t n);

#endif
