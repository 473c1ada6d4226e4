/* vtest: scripted SDL virtual joystick for tests (see vtest.h). */
#include "vtest.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"

static int parse_step(const char *line, in_vtest_step *s, sim_error *err)
{
    static const struct {
        const char *name;
        in_vtest_kind kind;
        int fields; /* how many sscanf fields the step has */
    } kinds[] = {{"axis", VT_AXIS, 4},     {"button", VT_BUTTON, 4}, {"hat", VT_HAT, 4},
                 {"detach", VT_DETACH, 2}, {"attach", VT_ATTACH, 2}};
    char kind[16];
    s->index = s->value = 0;
    int got = sscanf(line, "%lf %15s %d %d", &s->at, kind, &s->index, &s->value);
    if (got < 2)
        return sim_error_set(err, SIM_EINVAL, "expected 'TIME KIND [INDEX VALUE]', found '%s'", line);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (strcmp(kind, kinds[i].name) != 0) continue;
        if (got != kinds[i].fields)
            return sim_error_set(err, SIM_EINVAL, "%s: expected %s, found '%s'", kind,
                                 kinds[i].fields == 4 ? "TIME KIND INDEX VALUE" : "TIME KIND", line);
        s->kind = kinds[i].kind;
        return SIM_OK;
    }
    return sim_error_set(err, SIM_EINVAL, "expected axis, button, hat, detach or attach, found '%s'",
                         kind);
}

int in_vtest_load(in_vtest *v, const char *path, sim_error *err)
{
    memset(v, 0, sizeof *v);
    char *text;
    size_t len;
    int rc = sim_file_read(path, &text, &len, err);
    if (rc) return rc;
    size_t cap = 0, lineno = 0;
    bool header = false;
    /* Line by line, blank ones included, so that lineno in messages is the file's. */
    for (char *line = text, *next; line && rc == SIM_OK; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        if (strspn(line, " \t\r") == strlen(line)) continue;
        if (!header) {
            char word[16] = "";
            if (sscanf(line, " %15s", word) == 1 && strcmp(word, "gamepad") == 0) {
                v->gamepad = true;
                v->naxes = SDL_CONTROLLER_AXIS_MAX;
                v->nbuttons = SDL_CONTROLLER_BUTTON_MAX;
            } else if (sscanf(line, " wheel axes %d buttons %d hats %d", &v->naxes, &v->nbuttons,
                              &v->nhats) != 3 || v->naxes < 0 || v->nbuttons < 0 || v->nhats < 0 ||
                       v->naxes > 255 || v->nbuttons > 255 || v->nhats > 255) {
                rc = sim_error_set(err, SIM_EINVAL,
                                   "expected 'wheel axes N buttons N hats N' (N 0..255) or 'gamepad' first, found '%s'",
                                   line);
            }
            header = true;
            continue;
        }
        if (v->n == cap) {
            cap = cap ? 2 * cap : 32;
            in_vtest_step *ns = realloc(v->steps, cap * sizeof *ns);
            if (!ns) {
                rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
                break;
            }
            v->steps = ns;
        }
        in_vtest_step *s = &v->steps[v->n];
        if ((rc = parse_step(line, s, err))) break;
        if (!(s->at >= 0) || s->at > 1e6)
            rc = sim_error_set(err, SIM_EINVAL, "time %g: expected seconds 0..1e6", s->at);
        else if (v->n > 0 && s->at < v->steps[v->n - 1].at)
            rc = sim_error_set(err, SIM_EINVAL, "time %g: expected >= %g (the step before)", s->at,
                               v->steps[v->n - 1].at);
        v->n++;
    }
    if (rc == SIM_OK && !header) rc = sim_error_set(err, SIM_EINVAL, "expected a 'wheel ...' line");
    free(text);
    if (rc) {
        sim_error_prefix(err, "%s: line %zu", path, lineno);
        in_vtest_free(v);
    }
    return rc;
}

static int attach(in_vtest *v, sim_error *err)
{
    SDL_VirtualJoystickDesc d;
    SDL_zero(d);
    d.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    d.type = v->gamepad ? SDL_JOYSTICK_TYPE_GAMECONTROLLER : SDL_JOYSTICK_TYPE_WHEEL;
    d.naxes = (Uint16)v->naxes;
    d.nbuttons = (Uint16)v->nbuttons;
    d.nhats = (Uint16)v->nhats;
    if (v->gamepad) {
        /* With the masks SDL builds a game-controller mapping in its own order. */
        d.axis_mask = (1u << SDL_CONTROLLER_AXIS_MAX) - 1;
        d.button_mask = (1u << SDL_CONTROLLER_BUTTON_MAX) - 1;
    }
    d.name = v->gamepad ? "sim virtual test gamepad" : "sim virtual test wheel";
    int index = SDL_JoystickAttachVirtualEx(&d);
    if (index < 0) return sim_error_set(err, SIM_EIO, "virtual joystick: %s", SDL_GetError());
    v->js = SDL_JoystickOpen(index);
    if (!v->js) return sim_error_set(err, SIM_EIO, "virtual joystick: %s", SDL_GetError());
    return SIM_OK;
}

static void detach(in_vtest *v)
{
    if (!v->js) return;
    SDL_JoystickID id = SDL_JoystickInstanceID(v->js);
    SDL_JoystickClose(v->js);
    v->js = NULL;
    for (int i = 0; i < SDL_NumJoysticks(); i++)
        if (SDL_JoystickGetDeviceInstanceID(i) == id) SDL_JoystickDetachVirtual(i);
}

int in_vtest_start(in_vtest *v, double now, sim_error *err)
{
    v->t0 = now;
    v->next = 0;
    return attach(v, err);
}

static void apply(in_vtest *v, const in_vtest_step *s)
{
    int rc = 0;
    switch (s->kind) {
    case VT_AXIS: rc = v->js ? SDL_JoystickSetVirtualAxis(v->js, s->index, (Sint16)s->value) : -1; break;
    case VT_BUTTON: rc = v->js ? SDL_JoystickSetVirtualButton(v->js, s->index, (Uint8)s->value) : -1; break;
    case VT_HAT: rc = v->js ? SDL_JoystickSetVirtualHat(v->js, s->index, (Uint8)s->value) : -1; break;
    case VT_DETACH: detach(v); break;
    case VT_ATTACH: {
        sim_error err = {0};
        if (!v->js && attach(v, &err)) fprintf(stderr, "input-node: test script: %s\n", err.msg);
        break;
    }
    }
    if (rc < 0)
        fprintf(stderr, "input-node: test script step at %g s failed: %s\n", s->at,
                v->js ? SDL_GetError() : "device detached");
}

void in_vtest_set_clock(in_vtest *v, double now)
{
    v->t0 = now;
}

void in_vtest_run(in_vtest *v, double now)
{
    while (v->next < v->n && v->steps[v->next].at <= now - v->t0) apply(v, &v->steps[v->next++]);
}

void in_vtest_run_next(in_vtest *v, double now)
{
    if (v->next >= v->n || v->steps[v->next].at > now - v->t0) return;
    double at = v->steps[v->next].at;
    while (v->next < v->n && v->steps[v->next].at == at) apply(v, &v->steps[v->next++]);
}


void in_vtest_free(in_vtest *v)
{
    detach(v);
    free(v->steps);
    memset(v, 0, sizeof *v);
}
