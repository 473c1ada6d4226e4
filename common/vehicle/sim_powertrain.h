/* sim_powertrain: engine, clutch, gearbox, differential and brakes of the full car
 * model (sections 5.2-5.5 of the car-model paper) as pure functions over plain
 * parameter structs. The vehicle model calls them from its derivative function; the
 * light model of the platform paper uses the engine curve and the shift rule too. */
#ifndef SIM_POWERTRAIN_H
#define SIM_POWERTRAIN_H

#include <stdbool.h>

#define SIM_ENGINE_MAX_POINTS 16
#define SIM_GEARBOX_MAX_GEARS 8

typedef struct sim_engine_params {
    /* Normalised full-load torque curve: linear segments through (rpm, factor) points,
     * rpm ascending, factor 0..1; outside the points the end values hold, except that
     * above the last point the torque is 0 (the rev limiter). */
    int n_points;
    double curve_rpm[SIM_ENGINE_MAX_POINTS];
    double curve_factor[SIM_ENGINE_MAX_POINTS];
    double torque_max;   /* N m, the multiplier of the curve */
    double inertia;      /* kg m^2, crankshaft and flywheel */
    double friction0;    /* N m, friction torque at zero speed */
    double friction1;    /* N m s/rad, friction growing linearly with speed */
    double idle_rpm;     /* the idle governor opens the throttle below this */
    double max_rpm;      /* rev limiter */
} sim_engine_params;

typedef struct sim_clutch_params {
    double torque_max;     /* N m, capacity when fully engaged */
    double engage_rpm;     /* automatic clutch: engine speed of full engagement at launch */
    double disengage_rpm;  /* below this engine speed the clutch is open (no stall) */
} sim_clutch_params;

typedef struct sim_gearbox_params {
    int n_gears;                          /* forward gears */
    double ratio[SIM_GEARBOX_MAX_GEARS];  /* ratio[0] is first gear */
    double reverse_ratio;                 /* positive number; reverse turns the other way */
    double final_drive;
    double efficiency;                    /* gearbox and final drive, 0..1 */
    double auto_efficiency;               /* extra factor in automatic mode (paper 5.4) */
    double shift_time;                    /* s the clutch stays open for a shift */
} sim_gearbox_params;

typedef enum sim_diff_type { SIM_DIFF_OPEN = 0, SIM_DIFF_LSD = 1 } sim_diff_type;

typedef struct sim_diff_params {
    sim_diff_type type;
    double lsd_viscous;   /* N m s/rad, locking torque per speed difference (LSD) */
    double lsd_max;       /* N m, cap on the locking torque */
} sim_diff_params;

typedef struct sim_brake_params {
    double torque_max_front; /* N m per front wheel at full pedal */
    double torque_max_rear;  /* N m per rear wheel at full pedal */
    bool abs_enabled;        /* hold the wheel slip at the tyre's peak */
} sim_brake_params;

/* Full-load curve factor at rpm (0..1; 0 above the last point). */
double sim_engine_curve(const sim_engine_params *p, double rpm);
/* Net engine torque (N m) at speed omega (rad/s) and throttle 0..1 (raised by the idle
 * governor): throttle * multiplier * curve - (1 - throttle) * friction. The curve is
 * the measured full-load output (friction included), so at full throttle the data
 * sheet's torque comes out; closing the throttle turns friction into engine braking. */
double sim_engine_torque(const sim_engine_params *p, double omega, double throttle);
/* The effective throttle after the idle governor. */
double sim_engine_throttle(const sim_engine_params *p, double omega, double throttle);

/* Engagement 0..1 of the automatic clutch at engine speed omega with the driver's
 * clutch pedal (1 = pressed), whether a shift is in progress and whether the clutch has
 * locked up (then it stays fully engaged until the engine falls to disengage_rpm,
 * paper 5.3; before that it engages with engine speed, which makes the launch). */
double sim_clutch_engagement(const sim_clutch_params *p, double engine_omega, double pedal,
                             bool shifting, bool locked);

/* Overall ratio engine/wheel for gear (1..n forward, -1 reverse, 0 neutral: 0). */
double sim_gearbox_ratio(const sim_gearbox_params *p, int gear);

/* Automatic shifting on torque advantage (paper 5.4): returns the neighbouring gear
 * that gives more wheel torque at the speed the wheels impose, or gear itself. wheel_omega
 * is the driven wheels' mean speed; the rule uses the full-load curve, so it is the
 * ideal (fastest) strategy at full throttle; at part throttle it moves up once the
 * engine passes econ_rpm and down below idle + 400 rpm. */
int sim_gearbox_auto_gear(const sim_gearbox_params *g, const sim_engine_params *e, int gear,
                          double wheel_omega, double throttle, double econ_rpm);

/* Brake torque magnitude limit (N m) of one wheel at pedal 0..1 (front or rear). */
double sim_brake_torque_max(const sim_brake_params *p, bool front, double pedal);

/* Torque (N m) that brings a wheel of inertia I turning at omega to rest within tau
 * given the other torques on it, limited to +-limit: a friction brake that holds a
 * standing wheel without chattering (static friction resolved per step). */
double sim_brake_torque(double inertia, double omega, double other_torque, double limit, double tau);

/* Locking torque of the differential between left and right wheel speeds; add it to
 * the left wheel's torque and subtract it from the right's. */
double sim_diff_locking_torque(const sim_diff_params *p, double omega_left, double omega_right);

#endif
