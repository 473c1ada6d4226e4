/* wheel: SDL joystick + haptic device for the input node (see wheel.h). */
#include "wheel.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

enum { EFF_CONSTANT, EFF_SPRING, EFF_DAMPER, EFF_SINE, EFF_COUNT };

/* A game controller's own layout (SDL's controller database knows where its sticks
 * and triggers are): left stick steers, right trigger accelerates, left trigger
 * brakes, shoulders are the indicators, A the horn, the d-pad the menu. */
static bool map_from_controller(int device_index, sim_input_map *m)
{
    if (!SDL_IsGameController(device_index)) return false;
    SDL_GameController *gc = SDL_GameControllerOpen(device_index);
    if (!gc) return false;
    sim_input_map_default(m);
    snprintf(m->name, sizeof m->name, "game controller layout");
    memset(m->axes, 0, sizeof m->axes);
    memset(m->buttons, 0, sizeof m->buttons);
    m->steering_range_deg = 360; /* a thumb stick is no 900 degree wheel */
    static const struct {
        SDL_GameControllerAxis axis;
        sim_axis_role role;
        double dead_zone;
    } axes[] = {{SDL_CONTROLLER_AXIS_LEFTX, SIM_AXIS_STEER, 0.08},
                {SDL_CONTROLLER_AXIS_TRIGGERRIGHT, SIM_AXIS_THROTTLE, 0.02},
                {SDL_CONTROLLER_AXIS_TRIGGERLEFT, SIM_AXIS_BRAKE, 0.02}};
    for (size_t i = 0; i < sizeof axes / sizeof *axes; i++) {
        SDL_GameControllerButtonBind b = SDL_GameControllerGetBindForAxis(gc, axes[i].axis);
        if (b.bindType != SDL_CONTROLLER_BINDTYPE_AXIS) continue;
        m->axes[axes[i].role] = (sim_axis_map){.used = true, .index = b.value.axis,
                                               .dead_zone = axes[i].dead_zone,
                                               .raw_min = -32768, .raw_max = 32767};
    }
    static const struct {
        SDL_GameControllerButton button;
        sim_button_role role;
    } buttons[] = {{SDL_CONTROLLER_BUTTON_LEFTSHOULDER, SIM_BUTTON_INDICATOR_LEFT},
                   {SDL_CONTROLLER_BUTTON_RIGHTSHOULDER, SIM_BUTTON_INDICATOR_RIGHT},
                   {SDL_CONTROLLER_BUTTON_A, SIM_BUTTON_HORN},
                   {SDL_CONTROLLER_BUTTON_DPAD_UP, SIM_BUTTON_MENU_UP},
                   {SDL_CONTROLLER_BUTTON_DPAD_DOWN, SIM_BUTTON_MENU_DOWN},
                   {SDL_CONTROLLER_BUTTON_DPAD_RIGHT, SIM_BUTTON_MENU_SELECT},
                   {SDL_CONTROLLER_BUTTON_DPAD_LEFT, SIM_BUTTON_MENU_BACK},
                   {SDL_CONTROLLER_BUTTON_Y, SIM_BUTTON_GEAR_UP},
                   {SDL_CONTROLLER_BUTTON_X, SIM_BUTTON_GEAR_DOWN},
                   {SDL_CONTROLLER_BUTTON_START, SIM_BUTTON_PAUSE}};
    for (size_t i = 0; i < sizeof buttons / sizeof *buttons; i++) {
        SDL_GameControllerButtonBind b = SDL_GameControllerGetBindForButton(gc, buttons[i].button);
        sim_button_ref *r = &m->buttons[buttons[i].role];
        if (b.bindType == SDL_CONTROLLER_BINDTYPE_BUTTON)
            *r = (sim_button_ref){.used = true, .button = b.value.button, .hat = -1};
        else if (b.bindType == SDL_CONTROLLER_BINDTYPE_HAT)
            *r = (sim_button_ref){.used = true, .button = -1, .hat = b.value.hat.hat,
                                  .hat_mask = b.value.hat.hat_mask};
    }
    SDL_GameControllerClose(gc);
    return true;
}

/* The best-matching *.json mapping in dir (GUID before name); false when none. */
static bool map_from_dir(const char *dir, const char *guid, const char *name, sim_input_map *m,
                         char *source, size_t source_size)
{
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) return false;
    int best = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        sim_input_map cand;
        sim_error err = {0};
        if (sim_input_map_load(path, &cand, &err)) {
            fprintf(stderr, "input-node: skipping mapping %s\n", err.msg);
            continue;
        }
        int score = sim_input_map_match(&cand, guid, name);
        if (score > best) {
            best = score;
            *m = cand;
            snprintf(source, source_size, "%s", path);
        }
    }
    closedir(d);
    return best > 0;
}

static void open_haptic(in_wheel *w)
{
    for (int i = 0; i < EFF_COUNT; i++) w->eff[i] = -1;
    if (SDL_JoystickIsHaptic(w->js) != SDL_TRUE) return;
    w->haptic = SDL_HapticOpenFromJoystick(w->js);
    if (!w->haptic) {
        fprintf(stderr, "input-node: %s has force feedback but it does not open: %s\n", w->name,
                SDL_GetError());
        return;
    }
    unsigned caps = SDL_HapticQuery(w->haptic);
    /* We scale every effect ourselves (mapping gain, safety fade), so the device's own
     * gain stays at full and its built-in autocentre off when we have a spring. */
    if (caps & SDL_HAPTIC_GAIN) SDL_HapticSetGain(w->haptic, 100);
    if ((caps & SDL_HAPTIC_AUTOCENTER) && (caps & SDL_HAPTIC_SPRING))
        SDL_HapticSetAutocenter(w->haptic, 0);
    static const unsigned types[EFF_COUNT] = {SDL_HAPTIC_CONSTANT, SDL_HAPTIC_SPRING,
                                              SDL_HAPTIC_DAMPER, SDL_HAPTIC_SINE};
    for (int i = 0; i < EFF_COUNT; i++) {
        if (!(caps & types[i])) continue;
        SDL_HapticEffect *e = &w->played[i];
        memset(e, 0, sizeof *e);
        e->type = (Uint16)types[i];
        if (i == EFF_CONSTANT) {
            e->constant.direction.type = SDL_HAPTIC_CARTESIAN;
            e->constant.direction.dir[0] = 1;
            e->constant.length = SDL_HAPTIC_INFINITY;
        } else if (i == EFF_SINE) {
            e->periodic.direction.type = SDL_HAPTIC_CARTESIAN;
            e->periodic.direction.dir[0] = 1;
            e->periodic.length = SDL_HAPTIC_INFINITY;
            e->periodic.period = 33;
        } else {
            e->condition.length = SDL_HAPTIC_INFINITY;
        }
        int id = SDL_HapticNewEffect(w->haptic, e);
        if (id < 0) continue;
        if (SDL_HapticRunEffect(w->haptic, id, 1) < 0) {
            SDL_HapticDestroyEffect(w->haptic, id);
            continue;
        }
        w->eff[i] = id;
    }
    fprintf(stderr, "input-node: force feedback on %s: constant %s, spring %s, damper %s, sine %s\n",
            w->name, w->eff[0] >= 0 ? "yes" : "no", w->eff[1] >= 0 ? "yes" : "no",
            w->eff[2] >= 0 ? "yes" : "no", w->eff[3] >= 0 ? "yes" : "no");
}

int in_wheel_open(in_wheel *w, int device_index, const in_wheel_mapping_source *src, sim_error *err)
{
    memset(w, 0, sizeof *w);
    w->js = SDL_JoystickOpen(device_index);
    if (!w->js)
        return sim_error_set(err, SIM_EIO, "joystick %d: cannot open: %s", device_index,
                             SDL_GetError());
    w->id = SDL_JoystickInstanceID(w->js);
    const char *name = SDL_JoystickName(w->js);
    snprintf(w->name, sizeof w->name, "%s", name ? name : "unnamed joystick");
    SDL_JoystickGetGUIDString(SDL_JoystickGetGUID(w->js), w->guid, sizeof w->guid);
    if (src->file) {
        int rc = sim_input_map_load(src->file, &w->map, err);
        if (rc) {
            SDL_JoystickClose(w->js);
            w->js = NULL;
            return rc;
        }
        snprintf(w->map_source, sizeof w->map_source, "%s", src->file);
    } else if (!map_from_dir(src->dir, w->guid, w->name, &w->map, w->map_source,
                             sizeof w->map_source)) {
        if (map_from_controller(device_index, &w->map)) {
            snprintf(w->map_source, sizeof w->map_source, "SDL game controller layout");
        } else {
            sim_input_map_default(&w->map);
            snprintf(w->map_source, sizeof w->map_source, "default wheel mapping");
        }
    }
    w->n_axes = SDL_JoystickNumAxes(w->js);
    w->n_buttons = SDL_JoystickNumButtons(w->js);
    w->n_hats = SDL_JoystickNumHats(w->js);
    if (w->n_axes > WHEEL_MAX_AXES) w->n_axes = WHEEL_MAX_AXES;
    if (w->n_buttons > WHEEL_MAX_BUTTONS) w->n_buttons = WHEEL_MAX_BUTTONS;
    if (w->n_hats > WHEEL_MAX_HATS) w->n_hats = WHEEL_MAX_HATS;
    if (w->n_axes < 0) w->n_axes = 0;
    if (w->n_buttons < 0) w->n_buttons = 0;
    if (w->n_hats < 0) w->n_hats = 0;
    open_haptic(w);
    fprintf(stderr, "input-node: using %s (guid %s, %d axes, %d buttons, %d hats), mapping: %s\n",
            w->name, w->guid, w->n_axes, w->n_buttons, w->n_hats, w->map_source);
    return SIM_OK;
}

void in_wheel_close(in_wheel *w)
{
    if (w->haptic) {
        SDL_HapticStopAll(w->haptic);
        SDL_HapticClose(w->haptic);
        w->haptic = NULL;
    }
    if (w->js) SDL_JoystickClose(w->js);
    w->js = NULL;
}

sim_input_raw in_wheel_read(in_wheel *w)
{
    for (int i = 0; i < w->n_axes; i++) w->axes[i] = SDL_JoystickGetAxis(w->js, i);
    for (int i = 0; i < w->n_buttons; i++) w->buttons[i] = SDL_JoystickGetButton(w->js, i);
    for (int i = 0; i < w->n_hats; i++) w->hats[i] = SDL_JoystickGetHat(w->js, i);
    return (sim_input_raw){w->axes, w->n_axes, w->buttons, w->n_buttons, w->hats, w->n_hats};
}

/* Uploads effect i when its parameters changed (updating an unchanged effect costs a
 * USB transfer per call on most wheels). */
static void update(in_wheel *w, int i, const SDL_HapticEffect *e)
{
    if (w->eff[i] < 0 || memcmp(&w->played[i], e, sizeof *e) == 0) return;
    if (SDL_HapticUpdateEffect(w->haptic, w->eff[i], (SDL_HapticEffect *)e) == 0) w->played[i] = *e;
}

void in_wheel_play(in_wheel *w, const sim_ffb_effects *fx)
{
    if (!w->haptic) return;
    SDL_HapticEffect e = w->played[EFF_CONSTANT];
    e.constant.direction.dir[0] = fx->dir_x;
    e.constant.level = fx->constant_level;
    update(w, EFF_CONSTANT, &e);
    for (int i = EFF_SPRING; i <= EFF_DAMPER; i++) {
        e = w->played[i];
        Sint16 coeff = i == EFF_SPRING ? fx->spring_coeff : fx->damper_coeff;
        e.condition.right_coeff[0] = e.condition.left_coeff[0] = coeff;
        e.condition.right_sat[0] = e.condition.left_sat[0] = fx->saturation;
        update(w, i, &e);
    }
    e = w->played[EFF_SINE];
    e.periodic.direction.dir[0] = fx->dir_x;
    e.periodic.magnitude = fx->periodic_magnitude;
    e.periodic.period = fx->periodic_period_ms;
    update(w, EFF_SINE, &e);
}

int in_wheel_missing(int device_index, int n_joysticks, sim_error *err)
{
    if (device_index >= 0 && n_joysticks > 0)
        return sim_error_set(err, SIM_ENOTFOUND,
                             "--device %d: no such joystick (SDL sees %d, numbered from 0); "
                             "check the wheel's cable and `input-node --calibrate`",
                             device_index, n_joysticks);
    return sim_error_set(err, SIM_ENOTFOUND,
                         "--driver wheel: no steering wheel or game controller is plugged in (SDL sees no "
                         "joystick); plug the wheel in and start again, or drive with --driver keyboard");
}
