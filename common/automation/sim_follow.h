/* sim_follow: the path follower shared by the scripted driver and the automation.
 *
 * Follows a path (points in the world frame, e.g. a task's ideal lane) with pure
 * pursuit steering: aim at the point one look-ahead distance further along the path
 * from the rear axle and steer the road wheels by delta = atan(2 L sin(alpha) / l_d)
 * (Coulter, "Implementation of the Pure Pursuit Path Tracking Algorithm", CMU 1992).
 * Holds a target speed with a PI controller on throttle/brake, slowing so as to stop at
 * the path's end, and shifts a manual gearbox by engine speed.
 *
 * Pure code fed with the vehicle's state: no I/O, no globals. The names keep the
 * scripted driver's prefix (sim_driver_*), whose controllers these are; sim_driver.h
 * (common/input) adds the bus's control struct and input replay. */
#ifndef SIM_FOLLOW_H
#define SIM_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"

/* A polyline with its cumulative arc length. Owns its arrays (sim_driver_path_free). */
typedef struct sim_driver_path {
    double *x, *y, *s;
    size_t n;
} sim_driver_path;

/* Copies n points (xy[2i], xy[2i+1]); repeated consecutive points are dropped. At
 * least two distinct points are required. */
int sim_driver_path_set(sim_driver_path *p, const double *xy, size_t n, sim_error *err);
void sim_driver_path_free(sim_driver_path *p);
double sim_driver_path_length(const sim_driver_path *p);

/* The segment [i, i+1] holding arc length s, as i; the first segment (0) before the
 * start and the last (n - 2) past the end. */
size_t sim_driver_path_segment(const sim_driver_path *p, double s);

/* Point at arc length s; before the start and past the end the first/last segment is
 * extended along its direction. */
void sim_driver_path_at(const sim_driver_path *p, double s, double *x, double *y);

/* Closest point of the path to (x, y): returns its s and writes the signed lateral
 * offset (left of the path's direction positive) to *d if non-NULL. *hint (may be
 * NULL) is the segment found last time; the search looks near it first and falls back
 * to the whole path when nothing near is within 10 m. */
double sim_driver_path_project(const sim_driver_path *p, double x, double y, size_t *hint,
                               double *d);

typedef struct sim_driver_params {
    double wheelbase;          /* m */
    double rear_axle_offset;   /* m from the vehicle reference point back to the rear axle */
    double steering_ratio;     /* steering wheel angle / road wheel angle */
    double steering_range_deg; /* steering wheel, lock to lock */
    double lookahead_min;      /* m */
    double lookahead_time;     /* s: look-ahead = max(lookahead_min, lookahead_time * v) */
    double kp;                 /* speed PI: pedal per m/s of error */
    double ki;                 /* pedal per m of integrated error */
    double stop_decel;         /* m/s^2 planned for stopping at the path's end; 0: no stop */
    bool manage_gears;         /* send gear requests (manual gearbox) */
    double upshift_rpm, downshift_rpm;
    int max_gear;
    double shift_hold;         /* s: no new shift sooner after the last */
} sim_driver_params;

/* The vehicle as the driver sees it (from vehicle.state). */
typedef struct sim_driver_obs {
    double t;       /* s */
    double x, y;    /* m, world frame */
    double heading; /* rad, CCW from +x */
    double speed;   /* m/s */
    double rpm;     /* engine speed, 1/min (used with manage_gears) */
    int gear;       /* current gear */
} sim_driver_obs;

/* The scripted driver. Borrows path (it must outlive the driver). */
typedef struct sim_driver {
    sim_driver_params p;
    const sim_driver_path *path;
    double target_speed; /* m/s */
    size_t hint;
    double integ;        /* integrated speed error, m */
    double last_t;
    bool started;
    int gear;            /* requested gear */
    double last_shift_t;
    double s;            /* last projected arc length of the rear axle */
} sim_driver;

/* Defaults for a mid-size car: wheelbase 2.7 m, rear axle 1.35 m behind the reference
 * point, steering ratio 15, 900 degree wheel, look-ahead max(6 m, 0.9 s * v),
 * kp 0.5, ki 0.1, stop at the end at 2 m/s^2 (the rear axle within 2 m of the end),
 * gears managed 1..6, up above 3000 rpm, down below 1300 rpm (a calm driver), 0.8 s
 * between shifts. */
void sim_driver_params_default(sim_driver_params *p);

void sim_driver_init(sim_driver *d, const sim_driver_params *p, const sim_driver_path *path,
                     double target_speed);

/* What the follower asks of the car. */
typedef struct sim_follow_out {
    double steer_deg; /* steering wheel, left positive */
    double steer;     /* -1..1 of the half range */
    double throttle, brake; /* 0..1 */
    int gear;         /* requested gear, valid when has_gear */
    bool has_gear;
} sim_follow_out;

/* Controls for the observed state. A state with a non-finite field gets the wheel
 * straight and full brake. */
void sim_follow_step(sim_driver *d, const sim_driver_obs *obs, sim_follow_out *out);

/* Pure pursuit alone: the road-wheel angle (rad, left positive) towards the path
 * point one look-ahead ahead of the rear axle's projection; updates d->s and d->hint. */
double sim_follow_pursuit(sim_driver *d, const sim_driver_obs *obs);

/* The PI speed controller alone: pedal in -1..1 (positive throttle, negative brake)
 * towards target (m/s) after dt seconds; the integrator runs only while the output is
 * not saturated in the error's direction (anti-windup). */
double sim_follow_speed(sim_driver *d, double speed, double dt, double target);

/* The speed at which a car at speed v keeps a gap of standstill + thw * v metres behind
 * a vehicle at gap (m, bumper to bumper) driving at v_lead, closing a larger (or
 * opening a smaller) gap over tau seconds: v_lead + (gap - standstill - thw v) / tau,
 * not below 0. The scripted driver follows with it, and so does the ACC. */
double sim_follow_gap_speed(double gap, double v_lead, double v, double standstill, double thw,
                            double tau);

#endif
