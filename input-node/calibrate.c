/* calibrate: interactive wheel set-up that writes a mapping file (see calibrate.h). */
#include "calibrate.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h>

#include "sim_input_map.h"

#define MAX_AXES 16
#define MOVED 8000 /* raw change that counts as "this axis moved" (a quarter of travel) */

/* What ended a wait: a line typed, a button or hat pressed, or end of input. */
typedef enum { GOT_EOF, GOT_LINE, GOT_BUTTON } got_kind;

typedef struct got {
    got_kind kind;
    char line[64];
    sim_button_ref ref;
} got;

/* Waits for a line on stdin, pumping SDL meanwhile; with want_buttons also returns
 * on a button press or hat push. */
static got wait_input(bool want_buttons)
{
    got g = {.kind = GOT_EOF};
    for (;;) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            if (!want_buttons) continue;
            if (e.type == SDL_JOYBUTTONDOWN) {
                g.kind = GOT_BUTTON;
                g.ref = (sim_button_ref){.used = true, .button = e.jbutton.button, .hat = -1};
                return g;
            }
            if (e.type == SDL_JOYHATMOTION && e.jhat.value != SDL_HAT_CENTERED) {
                int v = e.jhat.value, mask = v & SDL_HAT_UP ? SDL_HAT_UP
                                             : v & SDL_HAT_DOWN ? SDL_HAT_DOWN
                                             : v & SDL_HAT_LEFT ? SDL_HAT_LEFT
                                                                : SDL_HAT_RIGHT;
                g.kind = GOT_BUTTON;
                g.ref = (sim_button_ref){.used = true, .button = -1, .hat = e.jhat.hat,
                                         .hat_mask = mask};
                return g;
            }
        }
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        if (poll(&p, 1, 10) > 0) {
            if (!fgets(g.line, sizeof g.line, stdin)) return g;
            g.kind = GOT_LINE;
            return g;
        }
    }
}

static void read_axes(SDL_Joystick *js, int n, int *out)
{
    SDL_JoystickUpdate();
    for (int i = 0; i < n; i++) out[i] = SDL_JoystickGetAxis(js, i);
}

/* Prompts, waits for Enter, and samples the axes; false at end of input or "s". */
static bool sample(const char *prompt, SDL_Joystick *js, int n, int *out)
{
    printf("%s\n  then press Enter (s + Enter to skip): ", prompt);
    fflush(stdout);
    got g = wait_input(false);
    if (g.kind != GOT_LINE || g.line[0] == 's') return false;
    read_axes(js, n, out);
    return true;
}

/* The axis (not in used) that moved most from rest, or -1 when none moved enough. */
static int moved_axis(const int *rest, const int *now, int n, const bool *used)
{
    int best = -1, best_d = MOVED;
    for (int i = 0; i < n; i++) {
        int d = abs(now[i] - rest[i]);
        if (!used[i] && d >= best_d) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

static int lo(int a, int b) { return a < b ? a : b; }
static int hi(int a, int b) { return a > b ? a : b; }

int calibrate_run(const char *out_path, int device_index)
{
    if (!out_path) {
        fprintf(stderr, "error: --calibrate needs --mapping FILE to write\n");
        return 2;
    }
    for (int i = 0; i < 500 && SDL_NumJoysticks() <= device_index; i++) {
        if (i == 0) printf("Waiting for a wheel (plug it in)...\n");
        SDL_Delay(20);
        SDL_PumpEvents();
    }
    SDL_Joystick *js = SDL_JoystickOpen(device_index);
    if (!js) {
        fprintf(stderr, "input-node: no wheel at device %d: %s\n", device_index, SDL_GetError());
        return 1;
    }
    sim_input_map m;
    sim_input_map_default(&m);
    memset(m.axes, 0, sizeof m.axes);
    memset(m.buttons, 0, sizeof m.buttons);
    snprintf(m.name, sizeof m.name, "%s", SDL_JoystickName(js) ? SDL_JoystickName(js) : "wheel");
    snprintf(m.match_name, sizeof m.match_name, "%s", m.name);
    SDL_JoystickGetGUIDString(SDL_JoystickGetGUID(js), m.match_guid, sizeof m.match_guid);
    int n = SDL_JoystickNumAxes(js);
    if (n > MAX_AXES) n = MAX_AXES;
    printf("Calibrating %s (%d axes, %d buttons, %d hats).\n", m.name, n,
           SDL_JoystickNumButtons(js), SDL_JoystickNumHats(js));

    int rest[MAX_AXES], left[MAX_AXES], right[MAX_AXES], pressed[MAX_AXES];
    bool used[MAX_AXES] = {false};
    int rc = 1;
    if (!sample("Centre the wheel and take your feet off the pedals,", js, n, rest)) goto out;
    if (sample("Turn the wheel fully LEFT and hold it,", js, n, left) &&
        sample("Turn the wheel fully RIGHT and hold it,", js, n, right)) {
        int a = moved_axis(left, right, n, used);
        if (a < 0) {
            printf("  no axis moved between left and right; steering not mapped\n");
        } else {
            used[a] = true;
            m.axes[SIM_AXIS_STEER] = (sim_axis_map){.used = true, .index = a,
                                                   .invert = left[a] > right[a],
                                                   .raw_min = lo(left[a], right[a]),
                                                   .raw_max = hi(left[a], right[a])};
            printf("  steering: axis %d\n", a);
        }
    }
    static const struct {
        sim_axis_role role;
        const char *prompt;
    } pedals[] = {{SIM_AXIS_THROTTLE, "Press the THROTTLE fully and hold it,"},
                  {SIM_AXIS_BRAKE, "Press the BRAKE fully and hold it,"},
                  {SIM_AXIS_CLUTCH, "Press the CLUTCH fully and hold it (s if there is none),"}};
    int throttle_raw = 0;
    for (size_t i = 0; i < sizeof pedals / sizeof *pedals; i++) {
        if (!sample(pedals[i].prompt, js, n, pressed)) continue;
        bool none[MAX_AXES] = {false};
        int a = moved_axis(rest, pressed, n, pedals[i].role == SIM_AXIS_BRAKE ? none : used);
        if (a < 0) {
            printf("  no axis moved; not mapped\n");
            continue;
        }
        sim_axis_map *t = &m.axes[SIM_AXIS_THROTTLE];
        if (pedals[i].role == SIM_AXIS_BRAKE && t->used && t->index == a) {
            /* Throttle and brake on one axis: a combined pedal axis, throttle on the
             * side the throttle moved it to. */
            m.axes[SIM_AXIS_PEDALS] = (sim_axis_map){.used = true, .index = a,
                                                    .invert = throttle_raw > pressed[a],
                                                    .dead_zone = 0.02,
                                                    .raw_min = lo(throttle_raw, pressed[a]),
                                                    .raw_max = hi(throttle_raw, pressed[a])};
            *t = (sim_axis_map){0};
            printf("  throttle and brake share axis %d: combined pedals\n", a);
            continue;
        }
        if (used[a]) {
            printf("  axis %d is already mapped; not mapped\n", a);
            continue;
        }
        used[a] = true;
        if (pedals[i].role == SIM_AXIS_THROTTLE) throttle_raw = pressed[a];
        m.axes[pedals[i].role] = (sim_axis_map){.used = true, .index = a,
                                                .invert = pressed[a] < rest[a], .dead_zone = 0.02,
                                                .raw_min = lo(rest[a], pressed[a]),
                                                .raw_max = hi(rest[a], pressed[a])};
        printf("  %s: axis %d\n", sim_axis_role_name(pedals[i].role), a);
    }
    for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++) {
        printf("Press the button for %s (Enter to skip): ", sim_button_role_name((sim_button_role)r));
        fflush(stdout);
        SDL_FlushEvents(SDL_JOYAXISMOTION, SDL_JOYBUTTONUP);
        got g = wait_input(true);
        if (g.kind == GOT_EOF) break;
        if (g.kind == GOT_BUTTON) {
            m.buttons[r] = g.ref;
            if (g.ref.button >= 0)
                printf("button %d\n", g.ref.button);
            else
                printf("hat %d\n", g.ref.hat);
        }
    }
    printf("Steering range lock to lock in degrees [900]: ");
    fflush(stdout);
    got g = wait_input(false);
    double range = g.kind == GOT_LINE ? atof(g.line) : 0;
    if (range >= 90 && range <= 3600) m.steering_range_deg = range;

    cJSON *doc = sim_input_map_to_json(&m);
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    FILE *f = text ? fopen(out_path, "w") : NULL;
    if (f && fputs(text, f) >= 0 && fputc('\n', f) != EOF && fclose(f) == 0) {
        printf("Wrote %s\n", out_path);
        rc = 0;
    } else {
        if (f) fclose(f);
        fprintf(stderr, "input-node: cannot write %s\n", out_path);
    }
    free(text);
out:
    SDL_JoystickClose(js);
    return rc;
}
