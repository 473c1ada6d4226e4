/* sim_driver: the scripted driver for headless runs, tests and demos.
 *
 * Its controllers (pure pursuit, PI speed, shifting) are the path follower of
 * common/automation (sim_follow.h), shared with the automation; this adds the bus's
 * control struct and the replay of a recorded input stream (NDJSON lines of
 * input.controls with t). Ownership is stated per type. */
#ifndef SIM_DRIVER_H
#define SIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_controls.h"
#include "sim_error.h"
#include "sim_follow.h"

/* Controls for the observed state. A state with a non-finite field gets the wheel
 * straight and full brake. */
void sim_driver_step(sim_driver *d, const sim_driver_obs *obs, sim_controls *out);

/* A recorded input stream: times (s, non-decreasing) and controls. Owns its arrays
 * (sim_driver_replay_free). */
typedef struct sim_driver_replay {
    double *t;
    sim_controls *c;
    size_t n;
    size_t cursor; /* index of the last sample returned */
} sim_driver_replay;

/* Parses NDJSON: every line with "topic":"input.controls" (or no topic) is a sample
 * with its "t"; other topics and empty lines are skipped. Errors name the line number
 * and field. */
int sim_driver_replay_parse(const char *text, size_t len, sim_driver_replay *out, sim_error *err);
int sim_driver_replay_load(const char *path, sim_driver_replay *out, sim_error *err);
void sim_driver_replay_free(sim_driver_replay *r);

/* The sample in force at t (the last one with t_i <= t). False before the first
 * sample (out is then all at rest). */
bool sim_driver_replay_at(sim_driver_replay *r, double t, sim_controls *out);

#endif
