/* sim_powertrain: engine curve, automatic clutch, gear choice, differential locking and
 * friction brakes (see sim_powertrain.h). Pure functions; the vehicle model owns the
 * states (engine speed, gear, shift timer). */
#include "sim_powertrain.h"

#include <math.h>

#define RPM_PER_RAD_S (60.0 / (2.0 * M_PI))

double sim_engine_curve(const sim_engine_params *p, double rpm)
{
    int n = p->n_points;
    if (n <= 0)
        return 0.0;
    if (rpm > p->curve_rpm[n - 1] || rpm > p->max_rpm)
        return 0.0;
    if (rpm <= p->curve_rpm[0])
        return p->curve_factor[0];
    for (int i = 1; i < n; i++) {
        if (rpm <= p->curve_rpm[i]) {
            double a = (rpm - p->curve_rpm[i - 1]) / (p->curve_rpm[i] - p->curve_rpm[i - 1]);
            return p->curve_factor[i - 1] + a * (p->curve_factor[i] - p->curve_factor[i - 1]);
        }
    }
    return 0.0;
}

double sim_engine_throttle(const sim_engine_params *p, double omega, double throttle)
{
    if (throttle < 0.0)
        throttle = 0.0;
    if (throttle > 1.0)
        throttle = 1.0;
    /* Idle governor: a proportional throttle that rises as the engine falls under idle,
     * so that a running engine never stalls by itself. */
    double idle = p->idle_rpm / RPM_PER_RAD_S;
    double gov = (idle - omega) / (0.25 * idle);
    if (gov > throttle)
        throttle = gov > 1.0 ? 1.0 : gov;
    return throttle;
}

double sim_engine_torque(const sim_engine_params *p, double omega, double throttle)
{
    double rpm = omega * RPM_PER_RAD_S;
    double th = sim_engine_throttle(p, omega, throttle);
    double drive = th * p->torque_max * sim_engine_curve(p, rpm);
    double friction = p->friction0 + p->friction1 * fabs(omega);
    /* Friction opposes rotation; near zero speed it fades in so it cannot reverse it. */
    double fade = fabs(omega) < 1.0 ? fabs(omega) : 1.0;
    /* The curve is the data sheet's full-load output, friction already taken off; the
     * friction shows as engine braking as the throttle closes. */
    return drive - (1.0 - th) * (omega >= 0 ? 1.0 : -1.0) * friction * fade;
}

double sim_clutch_engagement(const sim_clutch_params *p, double engine_omega, double pedal,
                             bool shifting, bool locked)
{
    if (shifting)
        return 0.0;
    double rpm = engine_omega * RPM_PER_RAD_S;
    double x = (rpm - p->disengage_rpm) / (p->engage_rpm - p->disengage_rpm);
    if (locked && rpm > p->disengage_rpm)
        x = 1.0;
    if (x < 0.0)
        x = 0.0;
    if (x > 1.0)
        x = 1.0;
    double e = x * x * (3.0 - 2.0 * x); /* smoothstep: no torque jump at the ends */
    if (pedal > 0.0)
        e *= pedal < 1.0 ? 1.0 - pedal : 0.0;
    return e;
}

double sim_gearbox_ratio(const sim_gearbox_params *p, int gear)
{
    if (gear == -1)
        return -p->reverse_ratio * p->final_drive;
    if (gear < 1 || gear > p->n_gears)
        return 0.0;
    return p->ratio[gear - 1] * p->final_drive;
}

/* Wheel torque at full load in a gear for a given wheel speed (0 past the limiter). */
static double wheel_torque(const sim_gearbox_params *g, const sim_engine_params *e, int gear,
                           double wheel_omega)
{
    double r = sim_gearbox_ratio(g, gear);
    double rpm = fabs(wheel_omega * r) * RPM_PER_RAD_S;
    if (rpm < e->idle_rpm)
        rpm = e->idle_rpm; /* the clutch slips below idle */
    if (rpm >= e->max_rpm)
        return 0.0;
    return sim_engine_curve(e, rpm) * fabs(r);
}

int sim_gearbox_auto_gear(const sim_gearbox_params *g, const sim_engine_params *e, int gear,
                          double wheel_omega, double throttle, double econ_rpm)
{
    if (gear < 1 || gear > g->n_gears)
        return gear;
    double now = wheel_torque(g, e, gear, wheel_omega);
    double rpm = fabs(wheel_omega * sim_gearbox_ratio(g, gear)) * RPM_PER_RAD_S;
    if (gear < g->n_gears) {
        double up = wheel_torque(g, e, gear + 1, wheel_omega);
        double rpm_up = fabs(wheel_omega * sim_gearbox_ratio(g, gear + 1)) * RPM_PER_RAD_S;
        bool advantage = up > now * 1.001;
        bool relaxed = throttle < 0.6 && rpm > econ_rpm && rpm_up > e->idle_rpm + 600.0;
        if (advantage || relaxed)
            return gear + 1;
    }
    if (gear > 1) {
        double down = wheel_torque(g, e, gear - 1, wheel_omega);
        double rpm_down = fabs(wheel_omega * sim_gearbox_ratio(g, gear - 1)) * RPM_PER_RAD_S;
        bool fits = rpm_down < 0.92 * e->max_rpm;
        bool wants = throttle >= 0.6 ? down > now * 1.05 : rpm < e->idle_rpm + 400.0;
        if (fits && wants)
            return gear - 1;
    }
    return gear;
}

double sim_brake_torque_max(const sim_brake_params *p, bool front, double pedal)
{
    if (pedal <= 0.0)
        return 0.0;
    if (pedal > 1.0)
        pedal = 1.0;
    return pedal * (front ? p->torque_max_front : p->torque_max_rear);
}

double sim_brake_torque(double inertia, double omega, double other_torque, double limit, double tau)
{
    if (limit <= 0.0)
        return 0.0;
    double need = -(inertia * omega / tau + other_torque);
    if (need > limit)
        return limit;
    if (need < -limit)
        return -limit;
    return need;
}

double sim_diff_locking_torque(const sim_diff_params *p, double omega_left, double omega_right)
{
    if (p->type != SIM_DIFF_LSD)
        return 0.0;
    double t = -p->lsd_viscous * (omega_left - omega_right);
    if (t > p->lsd_max)
        t = p->lsd_max;
    if (t < -p->lsd_max)
        t = -p->lsd_max;
    return t;
}
