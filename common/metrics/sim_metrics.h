/* sim_metrics: lane-deviation areas and the standard driving metrics of one task.
 *
 * Pure computation over arrays of logged samples (no I/O, no globals). The definitions
 * are those of docs/metrics.md (issue 7), after section 3.7 of the platform paper:
 *
 *   e(s) = d(s) - d_ideal(s), piecewise linear in s between samples (e_i is taken at
 *   the samples, d_ideal is evaluated there from the ideal path's points);
 *   a deviation event lasts while |e| > h (the tube half width), its ends linearly
 *   interpolated; its local area is the exact integral of |e| ds over it (intervals are
 *   split at zero crossings and at the crossing points); the global area is their sum.
 *   Lane-mark events (severe): the body, d +- width/2, is over a mark bounding the
 *   ideal lane, counted only where the ideal path keeps its lane.
 *
 * s is taken as its running maximum over the samples, so a car that stops, rolls back
 * or whose s jitters never counts a piece of road twice; time-based quantities still see
 * every interval.
 *
 * Ownership: every input array belongs to the caller and is only read. A
 * sim_metrics_result owns its events and reactions arrays; release them with
 * sim_metrics_result_free(). */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"

/* Columns of a drive, one entry per sample, all the same length n. Required: t, s, d.
 * Every other column may be NULL (the metrics that need it are then NAN). A NAN entry
 * in an optional column means "not available at this sample" (e.g. no car ahead). */
#define SIM_METRICS_TTC_CAP 10.0 /* s: larger TTCs are no conflict (docs/metrics.md) */

typedef struct sim_metrics_samples {
    size_t n;
    const double *t;           /* simulation time, s, non-decreasing */
    const double *s;           /* distance along the road, m */
    const double *d;           /* lateral position, m, left positive */
    const double *speed;       /* m/s */
    const double *speed_limit; /* m/s in force at the sample (NAN: none) */
    const double *headway;     /* distance to the vehicle ahead, m (NAN: none) */
    const double *closing;     /* closing speed ego - lead, m/s; NULL: derived from headway */
    const double *steer;       /* steering wheel angle, rad, left positive */
    const double *throttle;    /* 0..1 */
    const double *brake;       /* 0..1 */
    const double *mark_left;   /* d of the mark on the left of the ideal lane, m (NAN: none) */
    const double *mark_right;  /* d of the mark on the right of the ideal lane, m */
} sim_metrics_samples;

/* One point of the ideal path (s ascending); d_ideal is linear between points and held
 * constant before the first and after the last. Where two consecutive points have the
 * same d the ideal path keeps its lane; elsewhere it is changing lanes. */
typedef struct sim_metrics_point {
    double s, d;
} sim_metrics_point;

typedef struct sim_metrics_task {
    double s_start, s_end;          /* the task's s-range, m */
    const sim_metrics_point *ideal; /* ideal path, n_ideal >= 1 points */
    size_t n_ideal;
    double tube_half_width;         /* h, m, >= 0 */
    double vehicle_width;           /* m, for lane-mark events */
    double thw_limit;               /* s: time with time headway under it is reported (1) */
    double ttc_cap;                 /* s: a minimum TTC at or above it is reported as NAN
                                       ("n/a"; SIM_METRICS_TTC_CAP) */
    double speed_margin;            /* m/s over the limit tolerated by time_over_limit_margin */
    /* Reaction times: each stimulus (trigger, HUD message) to the next response. */
    const double *stimulus_t;       /* times of stimuli, s (may be NULL when none) */
    size_t n_stimuli;
    const double *button_t;         /* times of button presses, s, ascending */
    size_t n_buttons;
    double rt_window;               /* s: no response within it = none (NAN) */
    double rt_steer;                /* rad: steering onset = |steer - steer(t0)| reaches it */
    double rt_pedal;                /* brake onset = brake - brake(t0) reaches it */
} sim_metrics_task;

enum { SIM_METRICS_TUBE = 0, SIM_METRICS_MARK = 1 };

/* One deviation event (kind TUBE) or lane-mark event (kind MARK, severe). */
typedef struct sim_metrics_event {
    int kind;
    int side;          /* +1: e > 0 (left of the ideal path) at max |e|, -1: right */
    bool open_start;   /* already under way where the task (or lane-keeping part) began */
    bool open_end;     /* still under way at the task's end (or an ideal lane change) */
    double s_start, s_end; /* m */
    double t_start, t_end; /* s */
    double area;       /* integral of |e| ds over the event, m^2 */
    double area_time;  /* integral of |e| dt over the event, m*s */
    double max_abs_e;  /* m */
    double s_max;      /* s where |e| is largest, m */
} sim_metrics_event;

typedef struct sim_metrics_reaction {
    double t_stimulus;
    double rt_steer, rt_brake, rt_button; /* s after the stimulus, NAN: none in window */
    double rt;                            /* the first of the three, NAN: none */
} sim_metrics_reaction;

typedef struct sim_metrics_result {
    bool started;        /* the samples reach back to the task's start */
    bool ended;          /* the samples reach the task's end */
    double s_start, s_end, t_start, t_end; /* the part of the task the samples cover */
    double length;       /* s_end - s_start, m */
    double duration;     /* t_end - t_start, s */
    size_t n_samples;    /* samples inside the s-range */

    size_t n_tube_events, n_mark_events;
    double area_global;      /* sum of the deviation events' local areas, m^2 */
    double area_global_time; /* the same over time, m*s */
    double area_marks;       /* sum of the lane-mark events' areas, m^2 */
    double abs_e_integral;   /* integral of |e| ds over the task, m^2 */
    double mdev;             /* abs_e_integral / length, m */
    double max_abs_e;        /* m */
    double sdlp;             /* population SD of e over lane-keeping samples, m */
    size_t n_lane_keeping;   /* samples behind sdlp */

    double speed_mean, speed_sd, speed_min, speed_max; /* m/s, population, per sample */
    double time_over_limit;  /* s with speed above the limit in force, by any amount */
    double time_over_limit_margin; /* s with speed above the limit plus task.speed_margin */

    double headway_min;      /* m */
    double thw_min;          /* s: headway / speed */
    double ttc_min;          /* s: headway / closing speed, while closing */
    double time_thw_below;   /* s with headway < thw_limit * speed */

    sim_metrics_event *events; /* deviation and lane-mark events in order of s_start */
    size_t n_events;
    sim_metrics_reaction *reactions; /* one per stimulus, in the order given */
    size_t n_reactions;
} sim_metrics_result;

/* Sets the defaults: h 0.5 m (overwrite it), width 1.8 m, thw_limit 1 s, speed_margin
 * 3 km/h, rt_window 10 s, rt_steer 2 degrees, rt_pedal 0.1; everything else zero/NULL. */
void sim_metrics_task_init(sim_metrics_task *task);

/* d_ideal(s) from the ideal path; *cursor (start at 0) speeds up ascending queries. */
double sim_metrics_ideal_at(const sim_metrics_point *ideal, size_t n, double s, size_t *cursor);

/* Computes every metric of one task. res is overwritten (any arrays it held are not
 * freed); on success it owns new arrays. Returns 0, SIM_EINVAL (bad input, err names the
 * field and sample index) or SIM_ENOMEM; on error res holds nothing to free. */
int sim_metrics_compute(const sim_metrics_samples *smp, const sim_metrics_task *task,
                        sim_metrics_result *res, sim_error *err);

void sim_metrics_result_free(sim_metrics_result *res);

/* The closing speed to the vehicle ahead at sample i as num / den (m/s; num NAN when
 * unknown): smp->closing[i] when given, else the central difference of the headway
 * (one-sided where a neighbour has none). TTC = headway * den / num where num > 0. */
void sim_metrics_closing(const sim_metrics_samples *smp, size_t i, double *num, double *den);

#endif
