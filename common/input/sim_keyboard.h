/* sim_keyboard: driving by keyboard, keys -> smooth steering and pedal ramps.
 *
 * A key is on or off; a steering wheel and pedals are not. Holding a steering key
 * turns the wheel at a steady rate towards full lock, releasing it lets the wheel
 * return to the centre (faster, as a self-centring wheel does); pedals ramp up while
 * held and down when released. Rates are in full travel per second. Pure code fed
 * with key states and time steps; the caller owns the struct. */
#ifndef SIM_KEYBOARD_H
#define SIM_KEYBOARD_H

#include <stdbool.h>

#include "sim_controls.h"

typedef struct sim_keyboard_keys {
    bool left, right, throttle, brake, clutch;
} sim_keyboard_keys;

typedef struct sim_keyboard_params {
    double steer_rate;     /* 1/s away from the centre while a steering key is held */
    double steer_return;   /* 1/s towards the centre (released, or the other key) */
    double steer_max;      /* largest |steer| reachable by keyboard, 0..1 */
    double throttle_rise, throttle_fall;
    double brake_rise, brake_fall;
    double clutch_rise, clutch_fall;
} sim_keyboard_params;

typedef struct sim_keyboard {
    sim_keyboard_params p;
    double steer;    /* -1..1, left positive */
    double throttle; /* 0..1 */
    double brake;
    double clutch;
} sim_keyboard;

/* Defaults: steering 0.6/s out, 1.5/s back, full lock; throttle 2/s up, 4/s down;
 * brake 3/s up, 6/s down; clutch 5/s down (pressed), 2/s up (released). */
void sim_keyboard_params_default(sim_keyboard_params *p);

/* Everything at rest; p NULL means the defaults. */
void sim_keyboard_init(sim_keyboard *k, const sim_keyboard_params *p);

/* Advances by dt seconds with keys held throughout. Left and right together count as
 * neither. */
void sim_keyboard_step(sim_keyboard *k, const sim_keyboard_keys *keys, double dt);

/* The current state as controls, steer_deg from the steering range (lock to lock). */
void sim_keyboard_controls(const sim_keyboard *k, double steering_range_deg, sim_controls *out);

#endif
