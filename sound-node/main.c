/* sound-node: the driving sounds (docs/sound.md). Plays engine sound from the rpm and
 * load of vehicle.state and tyre noise from its wheels' slip through SDL audio, with
 * the scenario's environment.sound settings (engine on/off, volume); follows
 * control.sound (on/off), pauses with the simulation and acknowledges every command
 * it acts on (control.ack). The synthesis is sim_sound (common/sound); this file only
 * does the bus, the audio device and their hand-over under SDL's audio lock.
 * Without a sound card it runs silent (SDL's dummy driver) and refuses `sound on` and `off`
 * saying so. Exit status: 0 after stop or a signal, 1 when the scenario cannot be read
 * or the audio driver named in SDL_AUDIODRIVER does not work (a configuration error,
 * not restarted by simctl run), 2 for usage errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_command_bus.h"
#include "sim_msg_sim.h"
#include "sim_msg_vehicle.h"
#include "sim_node.h"
#include "sim_scenario.h"
#include "sim_msg_automation.h"
#include "sim_sound.h"
#include "sim_beep.h"
#include "sim_msg_task.h"
#include "sim_throttle.h"

static const char *const ACTS_ON[] = {"sound", "pause", "resume", "stop"};
#define N_ACTS_ON (sizeof ACTS_ON / sizeof ACTS_ON[0])

typedef struct sound_node {
    sim_node *sn;
    sim_bus *bus;
    const char *scenario;
    int rate, cylinders;
    double volume;
    sim_sound_params sp;
    SDL_AudioDeviceID dev;
    sim_sound synth;  /* shared with the audio thread: touched under SDL_LockAudioDevice */
    sim_beep beep;    /* the auditory DRT stimulus (drt.stimulus), likewise */
    double sim_t;
    bool closed;
    char no_device[200]; /* why it plays into SDL's dummy driver; "" when it plays */
    sim_throttle bad_output; /* stderr lines per cause, at most one a second (sim_throttle.h) */
} sound_node;

static void on_audio(void *user, Uint8 *stream, int len)
{
    sound_node *n = user;
    sim_sound_render(&n->synth, (int16_t *)stream, (size_t)len / sizeof(int16_t));
    sim_beep_mix(&n->beep, (int16_t *)stream, (size_t)len / sizeof(int16_t));
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

static void on_stop(sim_node *sn, const char *why, void *user)
{
    sound_node *n = user;
    n->closed = true;
    n->bus = NULL;
}

static void on_command(sound_node *n, const cJSON *msg)
{
    const char *cmd = sim_command_receive(n->bus, n->sim_t, "sound-node", ACTS_ON, N_ACTS_ON, msg);
    if (!cmd) return;
    bool on = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "on"));
    /* Without a device neither on nor off changes what anyone hears: not "done". */
    if (strcmp(cmd, "sound") == 0 && n->no_device[0]) {
        sim_command_answer(n->bus, n->sim_t, "sound-node", msg, false, n->no_device);
        return;
    }
    SDL_LockAudioDevice(n->dev);
    if (strcmp(cmd, "sound") == 0) sim_sound_enable(&n->synth, on);
    else if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0) sim_sound_pause(&n->synth, cmd[0] == 'p');
    SDL_UnlockAudioDevice(n->dev);
    sim_command_answer(n->bus, n->sim_t, "sound-node", msg, true, NULL);
    if (strcmp(cmd, "stop") == 0) sim_node_stop(n->sn, "control.stop");
}

static void on_message(sim_node *sn, const sim_envelope *env, const cJSON *msg, void *user)
{
    sound_node *n = user;
    const char *topic = env->topic;
    n->sim_t = isnan(env->t) ? 0.0 : env->t;
    if (strcmp(topic, SIM_TOPIC_VEHICLE_STATE) == 0) {
        sim_sound_input in;
        input_from_state(msg, &in);
        SDL_LockAudioDevice(n->dev);
        sim_sound_set(&n->synth, &in);
        SDL_UnlockAudioDevice(n->dev);
    } else if (strcmp(topic, SIM_TOPIC_SIM_TICK) == 0) {
        /* a pause seen on the clock (say, sent before we joined) silences too */
        SDL_LockAudioDevice(n->dev);
        sim_sound_pause(&n->synth, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "paused")));
        SDL_UnlockAudioDevice(n->dev);
    } else if (strncmp(topic, "control.", 8) == 0) {
        on_command(n, msg);
    } else if (strcmp(topic, SIM_TOPIC_AUTOMATION_EVENT) == 0) {
        /* A take-over request's cue that asks for the chime (docs/automation.md). */
        sim_msg_automation_event ev;
        if (sim_msg_automation_event_decode(msg, &ev, NULL) == SIM_OK && strcmp(ev.event, "cue") == 0 &&
            strstr(ev.cues, "chime")) {
            SDL_LockAudioDevice(n->dev);
            sim_sound_chime(&n->synth);
            SDL_UnlockAudioDevice(n->dev);
        }
    } else if (strcmp(topic, SIM_TOPIC_DRT_STIMULUS) == 0) {
        /* the auditory DRT stimulus: a tone while it is on, whatever control.sound says
         * (the task must reach the driver) */
        sim_msg_drt_stimulus m;
        sim_error err = {0};
        if (sim_msg_drt_stimulus_decode(msg, &m, &err)) {
            sim_throttle_say(&n->bad_output, stderr, "sound-node", topic, sim_throttle_clock(), "%s", err.msg);
        } else if (strcmp(m.modality, "auditory") == 0) {
            SDL_LockAudioDevice(n->dev);
            n->beep.on = m.on;
            SDL_UnlockAudioDevice(n->dev);
        }
    }
}

static int setup(sim_node *sn, void *user, sim_error *err)
{
    sound_node *n = user;
    n->sn = sn;
    n->sp = (sim_sound_params){.sample_rate = n->rate, .cylinders = n->cylinders, .volume = 1, .engine = true};
    if (n->scenario) {
        sim_scenario *sc;
        if (sim_scenario_load_err(n->scenario, &sc, err)) return 1;
        n->sp.engine = sc->env.engine_sound;
        n->sp.volume = sc->env.volume;
        if (sc->env.ambient_sound)
            fprintf(stderr, "sound-node: %s: environment.sound.ambient \"%s\" is not played (no ambient loops yet)\n",
                    n->scenario, sc->env.ambient_sound);
        sim_scenario_free(sc);
    }
    if (n->volume >= 0) n->sp.volume = n->volume;
    if (sim_sound_init(&n->synth, &n->sp, err)) return 2;
    SDL_AudioSpec want = {.freq = n->rate, .format = AUDIO_S16SYS, .channels = 1, .samples = 1024,
                          .callback = on_audio, .userdata = n}, have;
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) == 0) n->dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    if (!n->dev && !getenv("SDL_AUDIODRIVER")) {
        /* No sound card need not stop a drive: the node stays, silent, and refuses
         * control.sound with the reason, so the operator knows. */
        snprintf(n->no_device, sizeof n->no_device, "no audio device (%s)", SDL_GetError());
        fprintf(stderr, "sound-node: %s; running silent\n", n->no_device);
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        setenv("SDL_AUDIODRIVER", "dummy", 1);
        if (SDL_InitSubSystem(SDL_INIT_AUDIO) == 0) n->dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    }
    if (!n->dev) {
        /* a driver chosen by SDL_AUDIODRIVER that does not work is a configuration error */
        sim_error_set(err, SIM_EIO, "no audio device: %s", SDL_GetError());
        SDL_Quit();
        return 1;
    }
    n->rate = have.freq;
    sim_beep_init(&n->beep, have.freq); /* the rate the device plays, which may differ from the asked one */
    return 0;
}

static int start(sim_node *sn, void *user, sim_error *err)
{
    sound_node *n = user;
    n->bus = sim_node_bus(sn);
    SDL_PauseAudioDevice(n->dev, 0);
    fprintf(stderr, "sound-node: %s, %d Hz, %d cylinders, volume %.2f%s\n", SDL_GetCurrentAudioDriver(), n->rate,
            n->cylinders, n->sp.volume, n->sp.engine ? "" : ", engine off");
    return 0;
}

static int teardown(sim_node *sn, void *user)
{
    sound_node *n = user;
    sim_throttle_flush(&n->bad_output, stderr, "sound-node");
    SDL_CloseAudioDevice(n->dev);
    SDL_Quit();
    return 0;
}

int main(int argc, char **argv)
{
    static sound_node n = {.rate = 44100, .cylinders = 4, .volume = -1}; /* the audio thread reads it */
    const sim_opt opts[] = {
        {"scenario", SIM_OPT_STRING, &n.scenario, "FILE", "scenario whose environment.sound sets engine and volume"},
        {"cylinders", SIM_OPT_INT, &n.cylinders, "N", "engine cylinders, 1..16 (default 4): the tone is rpm/60*N/2 Hz"},
        {"rate", SIM_OPT_INT, &n.rate, "HZ", "sample rate, 8000..192000 (default 44100)"},
        {"volume", SIM_OPT_DOUBLE, &n.volume, "V", "master volume 0..1 (default: the scenario's, else 1)"},
    };
    static const char *const subs[] = {SIM_TOPIC_VEHICLE_STATE, SIM_TOPIC_SIM_TICK, "control.", SIM_TOPIC_DRT_STIMULUS,
                                       SIM_TOPIC_AUTOMATION_EVENT};
    const sim_node_desc desc = {
        .prog = "sound-node", .usage = "sound-node [options]",
        .about = "Engine and tyre sounds from vehicle.state through SDL audio; follows control.sound.",
        .opts = opts, .n_opts = sizeof opts / sizeof *opts,
        .bus = {.name = "sound", .subscribe = subs, .n_subscribe = sizeof subs / sizeof *subs, .acts_on = ACTS_ON,
                .n_acts_on = N_ACTS_ON},
        .setup = setup, .start = start, .on_message = on_message, .on_stop = on_stop, .teardown = teardown,
        .user = &n};
    return sim_node_run(&desc, argc, argv);
}
