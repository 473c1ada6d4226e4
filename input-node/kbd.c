/* kbd: keyboard driving window (see kbd.h). */
#include "kbd.h"

#include "sim_input_map.h"

int in_kbd_open(in_kbd *kb, sim_error *err)
{
    sim_keyboard_init(&kb->k, NULL);
    kb->win = SDL_CreateWindow("input-node: keyboard driving", SDL_WINDOWPOS_UNDEFINED,
                               SDL_WINDOWPOS_UNDEFINED, 360, 90, SDL_WINDOW_SHOWN);
    if (!kb->win) return sim_error_set(err, SIM_EIO, "keyboard window: %s", SDL_GetError());
    return SIM_OK;
}

void in_kbd_close(in_kbd *kb)
{
    if (kb->win) SDL_DestroyWindow(kb->win);
    kb->win = NULL;
}

void in_kbd_step(in_kbd *kb, double dt)
{
    const Uint8 *ks = SDL_GetKeyboardState(NULL);
    sim_keyboard_keys keys = {
        .left = ks[SDL_SCANCODE_LEFT] || ks[SDL_SCANCODE_A],
        .right = ks[SDL_SCANCODE_RIGHT] || ks[SDL_SCANCODE_D],
        .throttle = ks[SDL_SCANCODE_UP] || ks[SDL_SCANCODE_W],
        .brake = ks[SDL_SCANCODE_DOWN] || ks[SDL_SCANCODE_S],
        .clutch = ks[SDL_SCANCODE_C],
    };
    sim_keyboard_step(&kb->k, &keys, dt);
}

static void bar(SDL_Surface *s, int x, int y, int w, int h, Uint8 r, Uint8 g, Uint8 b)
{
    SDL_Rect rc = {x, y, w, h};
    SDL_FillRect(s, &rc, SDL_MapRGB(s->format, r, g, b));
}

void in_kbd_draw(in_kbd *kb)
{
    SDL_Surface *s = kb->win ? SDL_GetWindowSurface(kb->win) : NULL;
    if (!s) return;
    bar(s, 0, 0, s->w, s->h, 40, 40, 40);
    int mid = s->w / 2, half = s->w / 2 - 10;
    /* Steering: left positive is drawn to the left of the centre line. */
    int sx = (int)(-kb->k.steer * half);
    bar(s, sx < 0 ? mid + sx : mid, 10, sx < 0 ? -sx : sx, 20, 220, 200, 60);
    bar(s, mid - 1, 5, 2, 30, 255, 255, 255);
    bar(s, 10, 45, (int)(kb->k.throttle * (s->w - 20)), 12, 60, 200, 60);
    bar(s, 10, 62, (int)(kb->k.brake * (s->w - 20)), 12, 220, 60, 60);
    bar(s, 10, 79, (int)(kb->k.clutch * (s->w - 20)), 6, 90, 120, 220);
    SDL_UpdateWindowSurface(kb->win);
}

int in_kbd_role_for_key(SDL_Keycode key)
{
    switch (key) {
    case SDLK_q: return SIM_BUTTON_INDICATOR_LEFT;
    case SDLK_e: return SIM_BUTTON_INDICATOR_RIGHT;
    case SDLK_h: return SIM_BUTTON_HORN;
    case SDLK_i: return SIM_BUTTON_MENU_UP;
    case SDLK_k: return SIM_BUTTON_MENU_DOWN;
    case SDLK_l:
    case SDLK_RETURN: return SIM_BUTTON_MENU_SELECT;
    case SDLK_j:
    case SDLK_BACKSPACE: return SIM_BUTTON_MENU_BACK;
    case SDLK_x:
    case SDLK_PAGEUP: return SIM_BUTTON_GEAR_UP;
    case SDLK_z:
    case SDLK_PAGEDOWN: return SIM_BUTTON_GEAR_DOWN;
    case SDLK_p: return SIM_BUTTON_PAUSE;
    case SDLK_SPACE: return SIM_BUTTON_DRT;
    default: return -1;
    }
}
