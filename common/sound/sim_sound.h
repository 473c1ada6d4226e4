/* sim_sound: the driving sound synthesizer (docs/sound.md). Engine sound from rpm and
 * load: a tone at the firing frequency of a four-stroke engine (rpm / 60 * cylinders
 * / 2) with its second and third harmonics, louder with load and with rpm; tyre noise
 * from slip: low-passed white noise, louder with slip, silent when the car stands.
 * Pure code: no I/O, no globals; the caller owns the struct and hands the samples to
 * an audio device (sound-node) or checks them (tests). Parameter changes ramp over
 * SIM_SOUND_RAMP_S so that a new vehicle.state never clicks. */
#ifndef SIM_SOUND_H
#define SIM_SOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_error.h"

#define SIM_SOUND_RAMP_S 0.02
#define SIM_SOUND_CHIME_S 0.7
#define SIM_SOUND_CHIME_HZ1 1046.5 /* C6 */
#define SIM_SOUND_CHIME_HZ2 784.0  /* G5 */

typedef struct sim_sound_params {
    int sample_rate;   /* Hz, 8000..192000 */
    int cylinders;     /* 1..16 */
    double volume;     /* master, 0..1 (the scenario's environment.sound.volume) */
    bool engine;       /* engine sound at all (environment.sound.engine) */
} sim_sound_params;

/* What the car is doing (from vehicle.state). */
typedef struct sim_sound_input {
    double rpm;        /* engine speed, 1/min */
    double load;       /* throttle, 0..1 */
    double slip;       /* largest tyre slip (|slip ratio| or |slip angle| in rad) */
    double speed;      /* m/s */
} sim_sound_input;

typedef struct sim_sound {
    sim_sound_params p;
    double engine_amp, engine_hz, tyre_amp;    /* current (ramped) */
    double engine_amp_to, engine_hz_to, tyre_amp_to;
    double phase;      /* engine tone phase, cycles in [0, 1) */
    uint32_t noise;    /* generator state */
    double lp;         /* tyre noise low-pass state */
    double chime_t;    /* s into the TOR chime; < 0: none playing */
    bool on;           /* control.sound; paused or off: silence */
    bool paused;
} sim_sound;

/* Checks p (errors name the parameter and the range) and starts silent, on. */
int sim_sound_init(sim_sound *s, const sim_sound_params *p, sim_error *err);
/* New targets for engine and tyres. */
void sim_sound_set(sim_sound *s, const sim_sound_input *in);
/* control.sound on/off, and the simulation's pause: either one silences. */
void sim_sound_enable(sim_sound *s, bool on);
void sim_sound_pause(sim_sound *s, bool paused);
/* The take-over request's chime (automation.event "cue" with "chime",
 * docs/automation.md): a falling two-tone, SIM_SOUND_CHIME_HZ1 for 0.25 s then
 * SIM_SOUND_CHIME_HZ2, each decaying, SIM_SOUND_CHIME_S in all, over the engine and
 * tyres (ducked meanwhile); again from the start when called while playing. */
void sim_sound_chime(sim_sound *s);
/* Writes frames mono samples. */
void sim_sound_render(sim_sound *s, int16_t *out, size_t frames);
/* The engine tone's fundamental for rpm (Hz). */
double sim_sound_engine_hz(double rpm, int cylinders);

#endif
