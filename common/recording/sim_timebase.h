/* sim_timebase: the session's wall clock onto simulation time (docs/instruments.md).
 *
 * The recorder notes the wall time at which each sim.tick arrived (its run, t and
 * whether the run is paused). A sample stamped with a wall time W (the sender's own
 * clock already mapped onto the session's wall clock, or its arrival) then lands at the
 * simulation time of that moment: between two noted ticks of one run it is
 * interpolated (real time: 1 s of wall is 1 s of simulation; lockstep: whatever rate
 * the clock ran at), while paused it stays at the paused t, and after the newest tick
 * it goes on at real time for at most one tick period (the next tick has not come
 * yet). Pure: no clock is read here, the caller passes wall times.
 *
 * Ownership: a plain struct of fixed size (the last SIM_TIMEBASE_POINTS ticks, 10 s at
 * 100 Hz), no allocation. */
#ifndef SIM_TIMEBASE_H
#define SIM_TIMEBASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_TIMEBASE_POINTS 1024

typedef struct sim_timebase_point {
    double wall, t;
    int64_t run;
    bool paused;
} sim_timebase_point;

typedef struct sim_timebase {
    sim_timebase_point p[SIM_TIMEBASE_POINTS]; /* ring, oldest at head */
    size_t head, n;
    double period; /* s between ticks, the longest extrapolation past the newest */
} sim_timebase;

void sim_timebase_init(sim_timebase *tb, double period);
/* A tick noted at wall time wall (non-decreasing; an earlier one is taken as equal to
 * the newest). */
void sim_timebase_add(sim_timebase *tb, double wall, int64_t run, double t, bool paused);
/* The wall time of the newest noted tick; false when none. */
bool sim_timebase_newest(const sim_timebase *tb, double *wall);
/* Simulation time and run at wall time wall. false when nothing is noted yet. A wall
 * time older than the oldest noted tick gets the oldest tick's t (and *clamped true). */
bool sim_timebase_map(const sim_timebase *tb, double wall, int64_t *run, double *t, bool *clamped);

#endif
