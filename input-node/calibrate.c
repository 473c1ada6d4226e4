/* calibrate: interactive wheel set-up that writes a mapping file (see calibrate.h). */
#include "calibrate.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h>

#include "sim_cli.h"
#include "sim_input_map.h"

#define MAX_AXES 16
#define MOVED 8000 /* raw change that counts as "this axis moved" (a quarter of travel) */

typedef struct calib {
    SDL_Joystick *js;
    int n_axes;
    in_calibrate_hook hook;
    void *user;
    int prompts;      /* prompts shown so far */
    char in[256];     /* stdin bytes not yet consumed (read(2), not stdio, so that
                         poll(2) tells the truth about what is left) */
    size_t in_len;
    bool eof;
} calib;

/* What ended a wait: a line typed, a button or hat pressed, or end of input. */
typedef enum { GOT_EOF, GOT_LINE, GOT_BUTTON } got_kind;

typedef struct got {
    got_kind kind;
    char line[64];
    sim_button_ref ref;
} got;

/* Shows a prompt, forgets joystick events from before it, and lets the hook act. */
static void prompt(calib *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void prompt(calib *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    /* Everything before the prompt is forgotten, SDL's poll sentinel included: left
     * in the queue it would end the next SDL_PollEvent before new events are read. */
    SDL_PumpEvents();
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    c->prompts++;
    if (c->hook) c->hook(c->prompts, c->user);
}

/* A complete line from the input buffer into out, if there is one. */
static bool take_line(calib *c, char *out, size_t size)
{
    char *nl = memchr(c->in, '\n', c->in_len);
    if (!nl && !(c->eof && c->in_len > 0)) return false;
    size_t n = nl ? (size_t)(nl - c->in) : c->in_len, used = nl ? n + 1 : n;
    snprintf(out, size, "%.*s", (int)n, c->in);
    memmove(c->in, c->in + used, c->in_len - used);
    c->in_len -= used;
    return true;
}

/* A button press or hat push among the pending SDL events, if any. */
static bool take_button(sim_button_ref *ref)
{
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        if (e.type == SDL_JOYBUTTONDOWN) {
            *ref = (sim_button_ref){.used = true, .button = e.jbutton.button, .hat = -1};
            return true;
        }
        if (e.type == SDL_JOYHATMOTION && e.jhat.value != SDL_HAT_CENTERED) {
            int v = e.jhat.value;
            int mask = v & SDL_HAT_UP     ? SDL_HAT_UP
                       : v & SDL_HAT_DOWN ? SDL_HAT_DOWN
                       : v & SDL_HAT_LEFT ? SDL_HAT_LEFT
                                          : SDL_HAT_RIGHT;
            *ref = (sim_button_ref){.used = true, .button = -1, .hat = e.jhat.hat, .hat_mask = mask};
            return true;
        }
    }
    return false;
}

/* Waits for a line on stdin, pumping SDL meanwhile; with want_buttons also returns on
 * a button press or hat push (which come first when both are there). */
static got wait_input(calib *c, bool want_buttons)
{
    got g = {.kind = GOT_EOF};
    for (;;) {
        if (want_buttons && take_button(&g.ref)) {
            g.kind = GOT_BUTTON;
            return g;
        }
        if (!want_buttons) SDL_PumpEvents();
        if (take_line(c, g.line, sizeof g.line)) {
            g.kind = GOT_LINE;
            return g;
        }
        if (c->eof) return g;
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        if (poll(&p, 1, 10) <= 0) continue;
        if (c->in_len == sizeof c->in) c->in_len = 0; /* an overlong line: drop it */
        ssize_t r = read(STDIN_FILENO, c->in + c->in_len, sizeof c->in - c->in_len);
        if (r > 0)
            c->in_len += (size_t)r;
        else if (r == 0 || errno != EINTR)
            c->eof = true;
    }
}

/* Prompts, waits for Enter, and samples the axes; false at end of input or "s". */
static bool sample(calib *c, const char *what, int *out)
{
    prompt(c, "%s,\n  then press Enter (s + Enter to skip): ", what);
    got g = wait_input(c, false);
    if (g.kind != GOT_LINE || g.line[0] == 's') return false;
    SDL_JoystickUpdate();
    for (int i = 0; i < c->n_axes; i++) out[i] = SDL_JoystickGetAxis(c->js, i);
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

static sim_axis_map axis_between(int index, int rest, int pressed, double dead_zone)
{
    return (sim_axis_map){.used = true, .index = index, .invert = pressed < rest,
                          .dead_zone = dead_zone, .raw_min = lo(rest, pressed),
                          .raw_max = hi(rest, pressed)};
}

/* Steering: the axis that moved between full left and full right. */
static void steering(calib *c, sim_input_map *m, bool *used)
{
    int left[MAX_AXES], right[MAX_AXES];
    if (!sample(c, "Turn the wheel fully LEFT and hold it", left) ||
        !sample(c, "Turn the wheel fully RIGHT and hold it", right))
        return;
    int a = moved_axis(left, right, c->n_axes, used);
    if (a < 0) {
        printf("  no axis moved between left and right; steering not mapped\n");
        return;
    }
    used[a] = true;
    /* Left at the low end is the convention; inverted when left read higher. */
    m->axes[SIM_AXIS_STEER] = axis_between(a, right[a], left[a], 0.0);
    m->axes[SIM_AXIS_STEER].invert = left[a] > right[a];
    printf("  steering: axis %d\n", a);
}

/* Pedals: the axis each one moved from rest. Throttle and brake on one axis become a
 * combined pedal axis, throttle on the side the throttle moved it to. */
static void pedals(calib *c, sim_input_map *m, const int *rest, bool *used)
{
    static const struct {
        sim_axis_role role;
        const char *what;
    } list[] = {{SIM_AXIS_THROTTLE, "Press the THROTTLE fully and hold it"},
                {SIM_AXIS_BRAKE, "Press the BRAKE fully and hold it"},
                {SIM_AXIS_CLUTCH, "Press the CLUTCH fully and hold it (s if there is none)"}};
    int throttle_raw = 0;
    for (size_t i = 0; i < sizeof list / sizeof *list; i++) {
        int pressed[MAX_AXES];
        if (!sample(c, list[i].what, pressed)) continue;
        bool none[MAX_AXES] = {false};
        bool brake = list[i].role == SIM_AXIS_BRAKE;
        int a = moved_axis(rest, pressed, c->n_axes, brake ? none : used);
        if (a < 0) {
            printf("  no axis moved; not mapped\n");
            continue;
        }
        sim_axis_map *t = &m->axes[SIM_AXIS_THROTTLE];
        if (brake && t->used && t->index == a) {
            m->axes[SIM_AXIS_PEDALS] = axis_between(a, throttle_raw, pressed[a], 0.02);
            m->axes[SIM_AXIS_PEDALS].invert = throttle_raw > pressed[a];
            *t = (sim_axis_map){0};
            printf("  throttle and brake share axis %d: combined pedals\n", a);
            continue;
        }
        if (used[a]) {
            printf("  axis %d is already mapped; not mapped\n", a);
            continue;
        }
        used[a] = true;
        if (list[i].role == SIM_AXIS_THROTTLE) throttle_raw = pressed[a];
        m->axes[list[i].role] = axis_between(a, rest[a], pressed[a], 0.02);
        printf("  %s: axis %d\n", sim_axis_role_name(list[i].role), a);
    }
}

static bool buttons(calib *c, sim_input_map *m)
{
    for (int r = 0; r < SIM_BUTTON_ROLE_COUNT; r++) {
        prompt(c, "Press the button for %s (Enter to skip): ", sim_button_role_name((sim_button_role)r));
        got g = wait_input(c, true);
        if (g.kind == GOT_EOF) return false;
        if (g.kind != GOT_BUTTON) {
            printf("\n");
            continue;
        }
        m->buttons[r] = g.ref;
        if (g.ref.button >= 0)
            printf("button %d\n", g.ref.button);
        else
            printf("hat %d\n", g.ref.hat);
    }
    return true;
}

static int write_mapping(const sim_input_map *m, const char *path)
{
    cJSON *doc = sim_input_map_to_json(m);
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    FILE *f = text ? fopen(path, "w") : NULL;
    int rc = 1, saved = text ? errno : ENOMEM;
    if (f) {
        bool ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
        saved = errno;
        if (fclose(f) == 0 && ok) rc = 0;
        else if (ok) saved = errno;
    }
    free(text);
    if (rc)
        fprintf(stderr, "input-node: cannot write the mapping %s: %s\n", path, strerror(saved));
    else
        printf("Wrote %s\n", path);
    return rc;
}

int in_calibrate_run(const char *out_path, int device_index, in_calibrate_hook hook, void *user)
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
    calib c = {.js = SDL_JoystickOpen(device_index), .hook = hook, .user = user};
    if (!c.js) {
        fprintf(stderr, "input-node: no wheel at device %d: %s\n", device_index, SDL_GetError());
        return 1;
    }
    sim_input_map m;
    sim_input_map_default(&m);
    memset(m.axes, 0, sizeof m.axes);
    memset(m.buttons, 0, sizeof m.buttons);
    const char *name = SDL_JoystickName(c.js);
    snprintf(m.name, sizeof m.name, "%s", name ? name : "wheel");
    snprintf(m.match_name, sizeof m.match_name, "%s", m.name);
    SDL_JoystickGetGUIDString(SDL_JoystickGetGUID(c.js), m.match_guid, sizeof m.match_guid);
    c.n_axes = SDL_JoystickNumAxes(c.js) < MAX_AXES ? SDL_JoystickNumAxes(c.js) : MAX_AXES;
    printf("Calibrating %s (%d axes, %d buttons, %d hats).\n", m.name, c.n_axes,
           SDL_JoystickNumButtons(c.js), SDL_JoystickNumHats(c.js));

    int rest[MAX_AXES];
    bool used[MAX_AXES] = {false};
    int rc = 1;
    if (sample(&c, "Centre the wheel and take your feet off the pedals", rest)) {
        steering(&c, &m, used);
        pedals(&c, &m, rest, used);
        if (buttons(&c, &m)) {
            prompt(&c, "Steering range lock to lock in degrees [900]: ");
            got g = wait_input(&c, false);
            /* Enter keeps the default; anything else must be a number of degrees. */
            double range = 0;
            bool typed = g.kind == GOT_LINE && g.line[strspn(g.line, " \t\r\n")] != '\0';
            if (typed && (!sim_cli_number(g.line, &range) || range < 90 || range > 3600))
                fprintf(stderr, "input-node: '%s' is not a steering range of 90..3600 degrees; keeping %g\n",
                        g.line, m.steering_range_deg);
            else if (typed)
                m.steering_range_deg = range;
            rc = write_mapping(&m, out_path);
        }
    }
    if (rc) fprintf(stderr, "input-node: calibration ended before it was complete\n");
    SDL_JoystickClose(c.js);
    return rc;
}
