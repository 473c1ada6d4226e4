/* sim_keyboard: key states -> steering and pedal ramps (see sim_keyboard.h). */
#include "sim_keyboard.h"

#include <math.h>
#include <string.h>

void sim_keyboard_params_default(sim_keyboard_params *p)
{
    *p = (sim_keyboard_params){
        .steer_rate = 0.6, .steer_return = 1.5, .steer_max = 1.0,
        .throttle_rise = 2.0, .throttle_fall = 4.0,
        .brake_rise = 3.0, .brake_fall = 6.0,
        .clutch_rise = 5.0, .clutch_fall = 2.0,
    };
}

void sim_keyboard_init(sim_keyboard *k, const sim_keyboard_params *p)
{
    memset(k, 0, sizeof *k);
    if (p)
        k->p = *p;
    else
        sim_keyboard_params_default(&k->p);
}

/* Moves v towards target by at most rate * dt. */
static double approach(double v, double target, double rate, double dt)
{
    double step = rate * dt;
    if (v < target) return fmin(target, v + step);
    return fmax(target, v - step);
}

/* The steering wheel after dt with dir = +1 (left key), -1 (right) or 0 (none). */
static double steer_step(double steer, int dir, const sim_keyboard_params *p, double dt)
{
    if (dir == 0) return approach(steer, 0.0, p->steer_return, dt);
    /* While the wheel is on the other side it comes back at the (faster) return rate;
     * from the centre on it turns at the steering rate. The step is split at the
     * centre so that the result does not depend on dt. */
    if (steer * dir < 0) {
        double t0 = fabs(steer) / p->steer_return;
        if (t0 >= dt) return approach(steer, 0.0, p->steer_return, dt);
        steer = 0.0;
        dt -= t0;
    }
    return approach(steer, dir * p->steer_max, p->steer_rate, dt);
}

void sim_keyboard_step(sim_keyboard *k, const sim_keyboard_keys *keys, double dt)
{
    if (!(dt > 0)) return;
    const sim_keyboard_params *p = &k->p;
    k->steer = steer_step(k->steer, (keys->left ? 1 : 0) - (keys->right ? 1 : 0), p, dt);
    k->throttle = keys->throttle ? approach(k->throttle, 1, p->throttle_rise, dt)
                                 : approach(k->throttle, 0, p->throttle_fall, dt);
    k->brake = keys->brake ? approach(k->brake, 1, p->brake_rise, dt)
                           : approach(k->brake, 0, p->brake_fall, dt);
    k->clutch = keys->clutch ? approach(k->clutch, 1, p->clutch_rise, dt)
                             : approach(k->clutch, 0, p->clutch_fall, dt);
}

void sim_keyboard_controls(const sim_keyboard *k, double steering_range_deg, sim_controls *out)
{
    memset(out, 0, sizeof *out);
    out->steer = k->steer;
    out->steer_deg = k->steer * 0.5 * steering_range_deg;
    out->throttle = k->throttle;
    out->brake = k->brake;
    out->clutch = k->clutch;
}
