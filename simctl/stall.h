/* stall: noticing, in a headless session, that the ego car has stopped for good (the
 * scripted driver at a dead end, a car stuck behind a vehicle that never moves on), so
 * that the session ends with that reason instead of running forever. */
#ifndef SIMCTL_STALL_H
#define SIMCTL_STALL_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define RUN_STALL_DEFAULT_S 60.0 /* s of simulated time without moving (docs/running-a-study.md) */
#define RUN_STALL_MOVE_M 1.0     /* moving less than this from where it stood is standing */
#define RUN_STALL_STATUS 3       /* simctl's exit status for a stalled session */

typedef struct run_stall {
    double limit_s;      /* 0: never */
    bool have;
    int64_t run;         /* a new run starts the watch afresh */
    double x, y, since_t;
    double t;            /* the newest time seen */
} run_stall;

/* Feeds one vehicle.state message (its envelope's t and run, its pos); true once the car
 * has stayed within RUN_STALL_MOVE_M of one place for limit_s of simulated time. */
bool run_stall_update(run_stall *st, const cJSON *msg);

#endif
