/* sim_input_map: what a driving device's axes and buttons mean (docs/input.md).
 *
 * A mapping is read from a JSON file per device (matched by SDL GUID or by a part of
 * the device's name); sim_input_map_default gives the mapping for an unknown wheel.
 * sim_input_map_apply turns a device's raw state (SDL's int16 axes, button and hat
 * states) into normalized controls. Pure code: no device access, no globals; the
 * input node reads the device and hands the raw state in.
 *
 * Conventions: steer is -1..1 with left positive; a raw axis value below the centre
 * of its range counts as left (what wheels report) unless the axis is inverted.
 * Pedals are 0 at rest, 1 fully pressed; a pedal's rest is at raw_min unless it is
 * inverted (most wheels report a released pedal as +32767: those are inverted). */
#ifndef SIM_INPUT_MAP_H
#define SIM_INPUT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_controls.h"
#include "sim_error.h"

typedef enum sim_axis_role {
    SIM_AXIS_STEER,
    SIM_AXIS_THROTTLE,
    SIM_AXIS_BRAKE,
    SIM_AXIS_CLUTCH,
    SIM_AXIS_PEDALS, /* combined throttle/brake axis: rest at the centre, one side
                        throttle (raw below centre), the other brake; invert swaps */
    SIM_AXIS_ROLE_COUNT
} sim_axis_role;

typedef enum sim_button_role {
    SIM_BUTTON_INDICATOR_LEFT,
    SIM_BUTTON_INDICATOR_RIGHT,
    SIM_BUTTON_HORN,
    SIM_BUTTON_MENU_UP,
    SIM_BUTTON_MENU_DOWN,
    SIM_BUTTON_MENU_SELECT,
    SIM_BUTTON_MENU_BACK,
    SIM_BUTTON_GEAR_UP,
    SIM_BUTTON_GEAR_DOWN,
    SIM_BUTTON_HEADLIGHTS,
    SIM_BUTTON_WIPER,
    SIM_BUTTON_PAUSE,
    SIM_BUTTON_DRT,          /* the Detection Response Task's response (drt.response) */
    SIM_BUTTON_ROLE_COUNT
} sim_button_role;

/* SDL's hat bits, so raw hat states pass through unchanged. */
enum { SIM_HAT_UP = 1, SIM_HAT_RIGHT = 2, SIM_HAT_DOWN = 4, SIM_HAT_LEFT = 8 };

#define SIM_INPUT_MAX_GEARS 8
#define SIM_INPUT_NAME_MAX 128
#define SIM_INPUT_GUID_MAX 33 /* 32 hex digits + NUL, as SDL_JoystickGetGUIDString */

typedef struct sim_axis_map {
    bool used;
    int index;        /* joystick axis number */
    bool invert;
    double dead_zone; /* 0..0.5 of the travel, around the rest position */
    int raw_min;      /* raw value at one end of travel (calibrated) */
    int raw_max;      /* raw value at the other end; raw_min < raw_max */
} sim_axis_map;

/* A button role is bound to a button or to one direction of a hat. */
typedef struct sim_button_ref {
    bool used;
    int button;   /* joystick button number, or -1 when a hat direction */
    int hat;      /* hat number when button < 0 */
    int hat_mask; /* SIM_HAT_* bit */
} sim_button_ref;

typedef struct sim_input_map {
    char name[SIM_INPUT_NAME_MAX];             /* what the mapping is for, for people */
    char match_guid[SIM_INPUT_GUID_MAX];       /* empty: no GUID match */
    char match_name[SIM_INPUT_NAME_MAX];       /* case-insensitive part of the device
                                                  name; empty: no name match */
    double steering_range_deg;                 /* lock to lock, e.g. 900 */
    sim_axis_map axes[SIM_AXIS_ROLE_COUNT];
    sim_button_ref buttons[SIM_BUTTON_ROLE_COUNT];
    int hshifter_reverse;                      /* button for R, -1: none */
    int hshifter_gears[SIM_INPUT_MAX_GEARS];   /* buttons for gears 1..n */
    int n_hshifter_gears;                      /* 0: no H-shifter */
    double ffb_gain;                           /* 0..1, scales every effect */
    double ffb_torque_limit;                   /* 0..1 of the device's maximum */
    bool ffb_invert;                           /* device pushes the other way */
} sim_input_map;

/* A device's state as read: SDL's raw values. Arrays are borrowed. */
typedef struct sim_input_raw {
    const int16_t *axes;
    int n_axes;
    const uint8_t *buttons; /* 0 released, else pressed */
    int n_buttons;
    const uint8_t *hats;    /* SIM_HAT_* bits */
    int n_hats;
} sim_input_raw;

/* The mapping for an unknown wheel: axis 0 steering (900 degrees), pedals on axes 2
 * (throttle), 3 (brake), 1 (clutch) with released = +32767 (inverted), as Logitech,
 * Thrustmaster and Fanatec wheels report them on Linux; buttons 4/5 indicators,
 * 0 horn, hat 0 the menu; FFB gain 1, torque limit 0.8. */
void sim_input_map_default(sim_input_map *m);

/* Parses a mapping document. Fields not in the document keep the default's values,
 * except that "axes" and "buttons", when present, replace the default's whole set.
 * Errors name the JSON path, what was found and what was expected; JSON syntax errors
 * give line and column. *out is written only on success. */
int sim_input_map_parse(const char *text, size_t len, sim_input_map *out, sim_error *err);

/* Reads and parses the file at path; errors are prefixed with the path. */
int sim_input_map_load(const char *path, sim_input_map *out, sim_error *err);

/* The mapping as a document that sim_input_map_parse reads back to the same mapping.
 * Returns a new cJSON object (the caller frees it with cJSON_Delete), NULL when out of
 * memory. */
cJSON *sim_input_map_to_json(const sim_input_map *m);

/* How well m fits the device: 2 when the GUID matches, 1 when match_name is a part
 * of name (case-insensitive), 0 otherwise. guid and name may be NULL. */
int sim_input_map_match(const sim_input_map *m, const char *guid, const char *name);

/* Raw state -> normalized controls. Axes that the device does not have read as at
 * rest. gear is set (has_gear) only with an H-shifter: its pressed button's gear, or
 * 0 (neutral) when none is pressed. */
void sim_input_map_apply(const sim_input_map *m, const sim_input_raw *raw, sim_controls *out);

/* Whether the control bound to role is pressed in raw (false when unbound). */
bool sim_input_map_pressed(const sim_input_map *m, const sim_input_raw *raw, sim_button_role role);

/* One axis: raw -> -1..1 (centred axes) or 0..1 (pedals), applying range, inversion
 * and dead zone. Exposed for calibration and tests. */
double sim_axis_centered(const sim_axis_map *a, int raw);
double sim_axis_pedal(const sim_axis_map *a, int raw);

const char *sim_axis_role_name(sim_axis_role role);
const char *sim_button_role_name(sim_button_role role);
/* Role by name (as in the protocol: "indicator_left", ...); -1 when unknown. */
int sim_button_role_from_name(const char *name);

#endif
