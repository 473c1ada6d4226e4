/* wheel: the input node's SDL joystick/wheel device with its mapping and haptics.
 *
 * Opens a joystick (wheel, pedals, buttons) by SDL device index, finds its mapping
 * (an explicit file, a matching file in the mapping directory, a game controller's
 * own layout, or the default wheel), reads its raw state and plays force-feedback
 * effects when it has a haptic motor. One in_wheel per open device; the node owns
 * it and closes it with in_wheel_close (which stops every effect first). */
#ifndef INPUT_NODE_WHEEL_H
#define INPUT_NODE_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "sim_error.h"
#include "sim_ffb.h"
#include "sim_input_map.h"

#define WHEEL_MAX_AXES 16
#define WHEEL_MAX_BUTTONS 64
#define WHEEL_MAX_HATS 4

typedef struct in_wheel {
    SDL_Joystick *js;
    SDL_JoystickID id;
    char name[SIM_INPUT_NAME_MAX];
    char guid[SIM_INPUT_GUID_MAX];
    sim_input_map map;
    char map_source[1024]; /* where the mapping came from, for the log */
    int16_t axes[WHEEL_MAX_AXES];
    uint8_t buttons[WHEEL_MAX_BUTTONS];
    uint8_t hats[WHEEL_MAX_HATS];
    int n_axes, n_buttons, n_hats;
    bool pressed[SIM_BUTTON_ROLE_COUNT]; /* role states last reported */
    SDL_Haptic *haptic;
    int eff[4];                          /* constant, spring, damper, sine: id or -1 */
    SDL_HapticEffect played[4];          /* what each effect was last set to */
} in_wheel;

/* Where mappings come from: an explicit file (used for any device) or a directory
 * of *.json files matched by GUID or name. Either may be NULL. */
typedef struct in_wheel_mapping_source {
    const char *file;
    const char *dir;
} in_wheel_mapping_source;

/* Opens SDL device index (as in SDL_JOYDEVICEADDED's which). An explicit mapping file
 * that does not load is an error; broken files in the directory are reported on
 * stderr and skipped. */
int in_wheel_open(in_wheel *w, int device_index, const in_wheel_mapping_source *src, sim_error *err);
void in_wheel_close(in_wheel *w);
/* The configuration error for wheel mode (--driver wheel, --device N) when no such
 * device is plugged in at start: names the device asked for and what SDL sees. */
int in_wheel_missing(int device_index, int n_joysticks, sim_error *err);

/* Copies the device's current state (after SDL has pumped events) and returns it as a
 * raw view into w. */
sim_input_raw in_wheel_read(in_wheel *w);

/* Plays the effects (the haptic device's part of sim_ffb); no-op without one. */
void in_wheel_play(in_wheel *w, const sim_ffb_effects *e);

#endif
