/* sim_metrics_tor: the take-over measures of one take-over request (docs/metrics.md,
 * "Take-over requests"; docs/automation.md).
 *
 * Pure computation over a drive's samples and the automation's events around one TOR:
 * take-over time (TOR to the first conscious action: steering beyond 2 degrees or
 * braking beyond 10 %, Gold, Damböck, Lorenz & Bengler 2013, "Take over!", HFES; the
 * automation detects it on the driver's own inputs and logs it as the hand-over's
 * takeover_s), hands-on time (a mapped touch sensor), time to the first lane change and
 * to the first brake manoeuvre after the hand-over, the largest lateral and
 * longitudinal accelerations, minimum TTC and THW after the TOR, and whether the
 * minimal-risk manoeuvre was reached.
 *
 * The caller owns every array; nothing is allocated. */
#ifndef SIM_METRICS_TOR_H
#define SIM_METRICS_TOR_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"
#include "sim_metrics.h"

/* The samples of one run (all arrays n long; NULL: the column is missing and its
 * measures are NAN). headway, lane: NAN where none. */
typedef struct sim_tor_samples {
    size_t n;
    const double *t;        /* s, non-decreasing (required) */
    const double *speed;    /* m/s */
    const double *accel;    /* longitudinal, m/s^2 */
    const double *yaw_rate; /* rad/s */
    const double *headway;  /* m to the vehicle ahead */
    const double *lane;     /* lane id */
    const double *brake;    /* 0..1, what reached the car (the driver's after the hand-over) */
} sim_tor_samples;

/* What the events say about one TOR. Times in s of simulation time; NAN: did not
 * happen (within the TOR's window). */
typedef struct sim_tor_events {
    double t_tor;           /* the automation's "tor" event */
    double t_handover;      /* its "handover" */
    double takeover_s;      /* the hand-over's takeover_s (NAN: t_handover - t_tor) */
    double t_mrm;           /* "mrm" */
    double t_mrm_stopped;   /* "mrm_stopped" */
    bool hands_on_mapped;   /* the drive has hands_on button events at all */
    bool hands_on_at_tor;   /* the latest hands_on event before the TOR was a press */
    double t_hands_on;      /* the first hands_on press after the TOR */
    double t_end;           /* end of the TOR's window: the next TOR, the end of the run,
                               or t_tor + the caller's longest window */
} sim_tor_events;

typedef struct sim_tor_result {
    double takeover_time;    /* s */
    double hands_on_time;    /* s; 0 when the hands were on at the TOR; NAN: not mapped */
    double lane_change_time; /* s from the TOR to the first sample in another lane */
    double brake_time;       /* s from the TOR to the first sample from the hand-over on
                                with brake > 10 % */
    double manoeuvre_time;   /* the smaller of the two */
    double max_lat_accel;    /* max |yaw_rate * speed| in [t_tor, t_end], m/s^2 */
    double max_long_accel;   /* max |accel| in [t_tor, t_end], m/s^2 */
    double min_long_accel;   /* min accel (the strongest deceleration, negative) */
    double min_ttc;          /* s, as the task measure (sim_metrics_closing) */
    double min_thw;          /* s */
    bool mrm;                /* the minimal-risk manoeuvre started */
    bool mrm_stopped;        /* and reached standstill */
    size_t i0, i1;           /* the samples used, [i0, i1) */
} sim_tor_result;

#define SIM_TOR_BRAKE 0.10   /* the brake manoeuvre's threshold (as the take-over action's) */

/* SIM_EINVAL when t_tor or t_end is not finite or t is missing. */
int sim_metrics_tor(const sim_tor_samples *smp, const sim_tor_events *ev, sim_tor_result *out, sim_error *err);

#endif
