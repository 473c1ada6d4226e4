/* sim_drt: the Detection Response Task in a session (ISO 17488:2016), pure.
 *
 * The schedule: stimulus k starts interval_k after stimulus k-1 (the first interval_1
 * after start_s), interval_k uniform in [interval_min, interval_max] (3..5 s) drawn from
 * (seed, k) alone, so every test person of a study gets the same sequence whatever they
 * do; it lasts duration (1 s) or until the response, whichever comes first. The scripted
 * driver's response to stimulus k comes latency_k after its onset, latency_k normal
 * (mean, sd) clipped to [0.15, 2.4] s, or never (a share miss_share of stimuli), again
 * from (seed, k) alone.
 *
 * The configuration is a scenario's "drt" object (docs/tasks.md):
 *   {"modality": "visual" | "tactile" | "auditory" | [names, used in turn],
 *    "interval_s": [3, 5], "duration_s": 1, "angle_deg": 20, "start_s": 5, "end_s": 0,
 *    "seed": 1, "script": {"latency_ms": 450, "sd_ms": 50, "miss_share": 0}}
 *
 * Ownership: plain structs, no allocation. */
#ifndef SIM_DRT_H
#define SIM_DRT_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_json.h"

#define SIM_DRT_MAX_MODALITIES 6

typedef struct sim_drt_config {
    bool enabled;              /* the scenario has a "drt" object */
    int modality[SIM_DRT_MAX_MODALITIES]; /* SIM_DRT_VISUAL ... (sim_measures.h), in turn */
    int n_modalities;
    double interval_min, interval_max; /* s, onset to onset */
    double duration;           /* s */
    double angle_deg;          /* visual: the dot's direction, left of straight ahead + */
    double start_s, end_s;     /* no stimulus before start_s or after end_s (0: none) */
    uint64_t seed;
    double latency_mean, latency_sd, miss_share; /* the scripted driver (s, s, 0..1) */
} sim_drt_config;

/* The defaults above (enabled false, visual). */
void sim_drt_config_init(sim_drt_config *c);
/* Reads the "drt" object v at path; errors name the field ("PATH.interval_s: found ...,
 * expected ..."). Sets enabled. */
int sim_drt_config_parse(sim_json *j, const cJSON *v, const char *path, sim_drt_config *out);

/* A change of the stimulus to publish. */
typedef struct sim_drt_change {
    int id;            /* 1, 2, ... */
    bool on;
    int modality;
    double t;          /* when it happened (the step's or the response's time), s */
} sim_drt_change;

typedef struct sim_drt_schedule {
    sim_drt_config cfg;
    int id;            /* the latest stimulus, 0 before the first */
    bool on;
    double on_t;       /* its onset */
    double next_on;    /* the next onset */
} sim_drt_schedule;

void sim_drt_schedule_init(sim_drt_schedule *s, const sim_drt_config *cfg);
/* Advances to simulation time t (non-decreasing): the current stimulus ends after its
 * duration, a new one starts at its onset (at most one each per call, the end first).
 * Writes the changes to out and returns how many (0..2). */
int sim_drt_schedule_step(sim_drt_schedule *s, double t, sim_drt_change out[2]);
/* A response at t: ends the current stimulus (returns 1 and fills *out) or does nothing
 * (returns 0) when none is on. */
int sim_drt_schedule_respond(sim_drt_schedule *s, double t, sim_drt_change *out);

/* Interval before stimulus k (k >= 1), s. */
double sim_drt_interval(const sim_drt_config *c, int k);
/* The modality of stimulus k. */
int sim_drt_modality_of(const sim_drt_config *c, int k);
/* The scripted driver's latency for stimulus k in s; false: it misses this one. */
bool sim_drt_script_latency(const sim_drt_config *c, int k, double *latency);

#endif
