/* vtest: a virtual joystick played from a script, for end-to-end tests of the node.
 *
 * SDL's virtual joysticks exist only inside the process that attaches them, so the
 * node itself attaches one (hidden option --virtual-test-script FILE) and sets its
 * axes, buttons and hats at the script's times; the node then sees it exactly as a
 * hot-plugged wheel. Script, one step a line ('#' starts a comment):
 *
 *     wheel axes 4 buttons 12 hats 1     first line: the device, or "gamepad" for
 *                                        an SDL game controller (its standard
 *                                        6 axes and 21 buttons, SDL's order)
 *     0.20 axis 0 -32768                 at 0.2 s: axis 0 to -32768
 *     0.50 button 5 1                    button 5 down (0: up)
 *     0.70 hat 0 1                       hat 0 to SDL_HAT_UP
 *     1.00 detach                        unplug
 *     1.50 attach                        plug in again (values back at 0)
 *
 * Times are seconds from in_vtest_start (or in_vtest_set_clock), non-decreasing. The
 * node starts the clock when it has joined the bus (what it publishes before is
 * dropped) and applies one time's steps per poll (in_vtest_run_next), so that every
 * state the script passes through is read and published even when the node runs late
 * on a loaded machine. With --calibrate times count prompts instead: the steps with
 * time <= k are applied when prompt k is shown. */
#ifndef INPUT_NODE_VTEST_H
#define INPUT_NODE_VTEST_H

#include <stdbool.h>
#include <stddef.h>

#include <SDL.h>

#include "sim_error.h"

typedef enum { VT_AXIS, VT_BUTTON, VT_HAT, VT_DETACH, VT_ATTACH } in_vtest_kind;

typedef struct in_vtest_step {
    double at;
    in_vtest_kind kind;
    int index;
    int value;
} in_vtest_step;

typedef struct in_vtest {
    in_vtest_step *steps; /* owned */
    size_t n, next;
    int naxes, nbuttons, nhats;
    bool gamepad;      /* attach as an SDL game controller */
    SDL_Joystick *js;  /* our handle on the attached device, NULL while detached */
    double t0;
} in_vtest;

int in_vtest_load(in_vtest *v, const char *path, sim_error *err);
/* Attaches the device (SDL then reports SDL_JOYDEVICEADDED) and starts the clock. */
int in_vtest_start(in_vtest *v, double now, sim_error *err);
/* Times count from now from here on. */
void in_vtest_set_clock(in_vtest *v, double now);
/* Applies the steps due by now. */
void in_vtest_run(in_vtest *v, double now);
/* Applies the steps of the earliest due time only (none if none is due), so that a
 * caller polling late still sees each of the script's states in turn. */
void in_vtest_run_next(in_vtest *v, double now);
void in_vtest_free(in_vtest *v);

#endif
