/* sound-node: the driving sounds (docs/sound.md). Plays engine sound from the rpm and
 * load of vehicle.state and tyre noise from its wheels' slip through SDL audio, with
 * the scenario's environment.sound settings (engine on/off, volume); follows
 * control.sound (on/off), pauses with the simulation and acknowledges every command
 * it acts on (control.ack). The synthesis is sim_sound (common/sound); this file only
 * does the bus, the audio device and their hand-over under SDL's audio lock.
 * Without a sound card it runs silent (SDL's dummy driver) and refuses `sound on`
 * saying so. Exit status: 0 after stop or a signal, 1 when the scenario cannot be read
 * or the audio driver named in SDL_AUDIODRIVER does not work (a configuration error,
 * not restarted by simctl run), 2 for usage errors. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_scenario.h"
#include "sim_msg_automation.h"
#include "sim_sound.h"

static const char *const ACTS_ON[] = {"sound", "pause", "resume", "stop"};
#define N_ACTS_ON (sizeof ACTS_ON / sizeof ACTS_ON[0])

typedef struct sound_node {
    sim_bus *bus;
    uv_signal_t sigint, sigterm;
    SDL_AudioDeviceID dev;
    sim_sound synth;  /* shared with the audio thread: touched under SDL_LockAudioDevice */
    double sim_t;
    bool closed;
    char no_device[200]; /* why it plays into SDL's dummy driver; "" when it plays */
} sound_node;

static void on_audio(void *user, Uint8 *stream, int len)
{
    sound_node *n = user;
    sim_sound_render(&n->synth, (int16_t *)stream, (size_t)len / sizeof(int16_t));
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

/* The synthesizer's inputs from a vehicle.state message: rpm, throttle, speed and the
 * largest slip (ratio, or angle in rad) of the wheels touching the ground. */
static void input_from_state(const cJSON *msg, sim_sound_input *in)
{
    in->rpm = num(msg, "rpm");
    in->load = num(msg, "throttle");
    in->speed = num(msg, "speed");
    in->slip = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(msg, "wheels")) {
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(w, "contact"))) continue;
        double s = fmax(fabs(num(w, "slip_ratio")), fabs(num(w, "slip_angle")));
        if (s > in->slip) in->slip = s;
    }
}

static void close_node(sound_node *n)
{
    if (n->closed) return;
    n->closed = true;
    sim_bus_close(n->bus);
    uv_close((uv_handle_t *)&n->sigint, NULL);
    uv_close((uv_handle_t *)&n->sigterm, NULL);
}

static void on_command(sound_node *n, const cJSON *msg)
{
    const char *cmd = sim_command_receive(n->bus, n->sim_t, "sound-node", ACTS_ON, N_ACTS_ON, msg);
    if (!cmd) return;
    bool on = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "on"));
    if (strcmp(cmd, "sound") == 0 && on && n->no_device[0]) {
        sim_command_answer(n->bus, n->sim_t, "sound-node", msg, false, n->no_device);
        return;
    }
    SDL_LockAudioDevice(n->dev);
    if (strcmp(cmd, "sound") == 0) sim_sound_enable(&n->synth, on);
    else if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0) sim_sound_pause(&n->synth, cmd[0] == 'p');
    SDL_UnlockAudioDevice(n->dev);
    sim_command_answer(n->bus, n->sim_t, "sound-node", msg, true, NULL);
    if (strcmp(cmd, "stop") == 0) close_node(n);
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    sound_node *n = user;
    if (n->closed) return;
    n->sim_t = num(msg, "t");
    if (strcmp(topic, "vehicle.state") == 0) {
        sim_sound_input in;
        input_from_state(msg, &in);
        SDL_LockAudioDevice(n->dev);
        sim_sound_set(&n->synth, &in);
        SDL_UnlockAudioDevice(n->dev);
    } else if (strcmp(topic, "sim.tick") == 0) {
        /* a pause seen on the clock (say, sent before we joined) silences too */
        SDL_LockAudioDevice(n->dev);
        sim_sound_pause(&n->synth, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "paused")));
        SDL_UnlockAudioDevice(n->dev);
    } else if (strncmp(topic, "control.", 8) == 0) {
        on_command(n, msg);
    } else if (strcmp(topic, "automation.event") == 0) {
        /* A take-over request's cue that asks for the chime (docs/automation.md). */
        sim_msg_automation_event ev;
        if (sim_msg_automation_event_decode(msg, &ev, NULL) == SIM_OK && strcmp(ev.event, "cue") == 0 &&
            strstr(ev.cues, "chime")) {
            SDL_LockAudioDevice(n->dev);
            sim_sound_chime(&n->synth);
            SDL_UnlockAudioDevice(n->dev);
        }
    }
}

static void on_signal(uv_signal_t *s, int signum)
{
    close_node(s->data);
}

int main(int argc, char **argv)
{
    const char *scenario = NULL, *bus_addr = "127.0.0.1:7700", *token = NULL;
    int rate = 44100, cylinders = 4;
    double volume = -1;
    sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &scenario, "FILE", "scenario whose environment.sound sets engine and volume"},
        {"cylinders", SIM_OPT_INT, &cylinders, "N", "engine cylinders, 1..16 (default 4): the tone is rpm/60*N/2 Hz"},
        {"rate", SIM_OPT_INT, &rate, "HZ", "sample rate, 8000..192000 (default 44100)"},
        {"volume", SIM_OPT_DOUBLE, &volume, "V", "master volume 0..1 (default: the scenario's, else 1)"},
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "dispatcher address (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "dispatcher token"},
    };
    const char *usage = "sound-node [options]";
    const char *about = "Engine and tyre sounds from vehicle.state through SDL audio; follows control.sound.";
    int npos = 0;
    int rc = sim_cli_parse(usage, about, opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos) {
        fprintf(stderr, "sound-node: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    sim_error err = {0};
    char host[256];
    int port;
    if (sim_bus_parse_endpoint(bus_addr, host, sizeof host, &port, &err)) {
        fprintf(stderr, "sound-node: --bus %s\n", err.msg);
        return 2;
    }
    sim_sound_params sp = {.sample_rate = rate, .cylinders = cylinders, .volume = 1, .engine = true};
    if (scenario) {
        sim_scenario *sc;
        if (sim_scenario_load_err(scenario, &sc, &err)) {
            fprintf(stderr, "sound-node: %s\n", err.msg);
            return 1;
        }
        sp.engine = sc->env.engine_sound;
        sp.volume = sc->env.volume;
        if (sc->env.ambient_sound)
            fprintf(stderr, "sound-node: %s: environment.sound.ambient \"%s\" is not played (no ambient loops yet)\n",
                    scenario, sc->env.ambient_sound);
        sim_scenario_free(sc);
    }
    if (volume >= 0) sp.volume = volume;
    static sound_node n; /* the audio thread reads it: it outlives main's stack frame */
    if (sim_sound_init(&n.synth, &sp, &err)) {
        fprintf(stderr, "sound-node: %s\n", err.msg);
        return 2;
    }
    SDL_AudioSpec want = {.freq = rate, .format = AUDIO_S16SYS, .channels = 1, .samples = 1024,
                          .callback = on_audio, .userdata = &n}, have;
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) == 0) n.dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    if (!n.dev && !getenv("SDL_AUDIODRIVER")) {
        /* No sound card need not stop a drive: the node stays, silent, and refuses
         * control.sound with the reason, so the operator knows. */
        snprintf(n.no_device, sizeof n.no_device, "no audio device (%s)", SDL_GetError());
        fprintf(stderr, "sound-node: %s; running silent\n", n.no_device);
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        setenv("SDL_AUDIODRIVER", "dummy", 1);
        if (SDL_InitSubSystem(SDL_INIT_AUDIO) == 0) n.dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    }
    if (!n.dev) {
        /* a driver chosen by SDL_AUDIODRIVER that does not work is a configuration error */
        fprintf(stderr, "sound-node: no audio device: %s\n", SDL_GetError());
        SDL_Quit();
        return 1;
    }
    uv_loop_t *loop = uv_default_loop();
    static const char *const subs[] = {"vehicle.state", "sim.tick", "control.", "automation.event"};
    sim_bus_options bo = {.name = "sound", .host = host, .port = port, .token = token, .subscribe = subs,
                          .n_subscribe = 4, .acts_on = ACTS_ON, .n_acts_on = N_ACTS_ON, .on_message = on_message,
                          .user = &n};
    if (sim_bus_open(loop, &bo, &n.bus, &err)) {
        fprintf(stderr, "sound-node: %s\n", err.msg);
        SDL_CloseAudioDevice(n.dev);
        SDL_Quit();
        return 1;
    }
    uv_signal_init(loop, &n.sigint);
    uv_signal_init(loop, &n.sigterm);
    n.sigint.data = n.sigterm.data = &n;
    uv_signal_start(&n.sigint, on_signal, SIGINT);
    uv_signal_start(&n.sigterm, on_signal, SIGTERM);
    SDL_PauseAudioDevice(n.dev, 0);
    fprintf(stderr, "sound-node: %s, %d Hz, %d cylinders, volume %.2f%s\n", SDL_GetCurrentAudioDriver(), have.freq,
            cylinders, sp.volume, sp.engine ? "" : ", engine off");
    uv_run(loop, UV_RUN_DEFAULT);
    SDL_CloseAudioDevice(n.dev);
    SDL_Quit();
    uv_loop_close(loop);
    return 0;
}
