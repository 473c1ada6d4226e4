/* kbd: keyboard driving window (see kbd.h). */
#include "kbd.h"

#include <cairo.h>

#include "sim_input_map.h"

#define KBD_W 460
#define KBD_H 178
#define KBD_MARGIN 10 /* px from the display's edge: below a centred 1280x720 view on 1920x1080 */
#define KBD_LEGEND_Y 66 /* the legend under the bars */

/* What the keys do, drawn in the window (the test person reads it there). */
static const char *const LEGEND[] = {
    "Arrows or WASD: steer, throttle, brake    C: clutch",
    "Q / E: indicators   H: horn   X / Z: gear up / down   Space: DRT",
    "I / K / L / J: menu up / down / select / back",
    "Automation: 1 ACC  2 L2  3 L3  0 off   + / -: set speed   G: gap",
    "Keys work while this window has the focus.",
    "Ending the drive is the operator's (Escape does nothing).",
};

/* The bottom-right corner of the display's usable area: beside a driver's view that is
 * centred on the display (render-node's default), not over its middle. */
static void corner(int *x, int *y)
{
    SDL_Rect r;
    *x = *y = (int)SDL_WINDOWPOS_UNDEFINED;
    if (SDL_GetDisplayUsableBounds(0, &r) != 0 || r.w < KBD_W || r.h < KBD_H) return;
    *x = r.x + r.w - KBD_W - KBD_MARGIN;
    *y = r.y + r.h - KBD_H - KBD_MARGIN;
}

int in_kbd_open(in_kbd *kb, sim_error *err)
{
    sim_keyboard_init(&kb->k, NULL);
    int x, y;
    corner(&x, &y);
    kb->win = SDL_CreateWindow("input-node: keyboard driving", x, y, KBD_W, KBD_H, SDL_WINDOW_SHOWN);
    if (!kb->win) return sim_error_set(err, SIM_EIO, "keyboard window: %s", SDL_GetError());
    /* The legend, drawn once with cairo, is blitted under the bars at every redraw. */
    cairo_surface_t *cs = cairo_image_surface_create(CAIRO_FORMAT_RGB24, KBD_W, KBD_H - KBD_LEGEND_Y);
    cairo_t *cr = cairo_create(cs);
    cairo_set_source_rgb(cr, 0.16, 0.16, 0.16);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 13);
    cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
    for (size_t i = 0; i < sizeof LEGEND / sizeof *LEGEND; i++) {
        cairo_move_to(cr, 10, 14 + 18 * (double)i);
        cairo_show_text(cr, LEGEND[i]);
    }
    cairo_destroy(cr);
    cairo_surface_flush(cs);
    SDL_Surface *view = SDL_CreateRGBSurfaceWithFormatFrom(cairo_image_surface_get_data(cs), KBD_W, KBD_H - KBD_LEGEND_Y, 32,
                                                          cairo_image_surface_get_stride(cs), SDL_PIXELFORMAT_RGB888);
    kb->legend = view ? SDL_ConvertSurfaceFormat(view, SDL_PIXELFORMAT_RGB888, 0) : NULL; /* a copy it owns */
    SDL_FreeSurface(view);
    cairo_surface_destroy(cs);
    return SIM_OK;
}

void in_kbd_close(in_kbd *kb)
{
    if (kb->legend) SDL_FreeSurface(kb->legend);
    kb->legend = NULL;
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
    bar(s, sx < 0 ? mid + sx : mid, 6, sx < 0 ? -sx : sx, 16, 220, 200, 60);
    bar(s, mid - 1, 2, 2, 24, 255, 255, 255);
    bar(s, 10, 29, (int)(kb->k.throttle * (s->w - 20)), 10, 60, 200, 60);
    bar(s, 10, 42, (int)(kb->k.brake * (s->w - 20)), 10, 220, 60, 60);
    bar(s, 10, 55, (int)(kb->k.clutch * (s->w - 20)), 5, 90, 120, 220);
    if (kb->legend) {
        SDL_Rect at = {0, KBD_LEGEND_Y, kb->legend->w, kb->legend->h};
        SDL_BlitSurface(kb->legend, NULL, s, &at);
    }
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
    case SDLK_SPACE: return SIM_BUTTON_DRT;
    case SDLK_1: return SIM_BUTTON_AUTO_ACC;
    case SDLK_2: return SIM_BUTTON_AUTO_L2;
    case SDLK_3: return SIM_BUTTON_AUTO_L3;
    case SDLK_0: return SIM_BUTTON_AUTO_OFF;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: return SIM_BUTTON_ACC_FASTER;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: return SIM_BUTTON_ACC_SLOWER;
    case SDLK_g: return SIM_BUTTON_ACC_GAP;
    default: return -1;
    }
}
