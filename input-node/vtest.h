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
 * Times are seconds from in_vtest_start, non-decreasing. With --calibrate they count
 * prompts instead: the steps with time <= k are applied when prompt k is shown. */
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
/* Applies the steps due by now. */
void in_vtest_run(in_vtest *v, double now);
/* True when every step has been applied. */
bool in_vtest_done(const in_vtest *v);
void in_vtest_free(in_vtest *v);

#endif
