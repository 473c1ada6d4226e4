/* kbd: keyboard driving for the input node, in a small SDL window.
 *
 * Arrows or WASD steer and work the pedals (C is the clutch), smoothed by
 * sim_keyboard into plausible ramps; Q/E indicators, H horn, I/K/L/J (or Return and
 * Backspace) the in-car menu, X/Z or PageUp/PageDown gears. The window opens in the
 * bottom-right corner of the display (beside a centred driver's view), shows the
 * steering wheel position and the pedals as bars and, under them, what the keys do.
 * No key ends the session: that is the operator's. The node owns the struct. */
#ifndef INPUT_NODE_KBD_H
#define INPUT_NODE_KBD_H

#include <SDL.h>

#include "sim_error.h"
#include "sim_keyboard.h"

typedef struct in_kbd {
    SDL_Window *win;
    SDL_Surface *legend;       /* what the keys do, drawn once */
    sim_keyboard k;
} in_kbd;

/* Needs SDL's video subsystem initialised. */
int in_kbd_open(in_kbd *kb, sim_error *err);
void in_kbd_close(in_kbd *kb);
/* Advances the ramps by dt with the keys held now. */
void in_kbd_step(in_kbd *kb, double dt);
/* Redraws the bars. */
void in_kbd_draw(in_kbd *kb);
/* The button role bound to a key, or -1. */
int in_kbd_role_for_key(SDL_Keycode key);

#endif
