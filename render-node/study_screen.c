/* study_screen: `render-node --study-screen`, the driver's screen between a study's
 * drives (docs/study.md, "The driver's screen"). The study runner starts it once for
 * the day, fullscreen where the driver's view goes; each drive's own render node opens
 * on top of it, and when a drive ends this page is what the test person sees: no scene,
 * a calm page with what study.state says (the welcome, the next drive's instructions,
 * "please answer the questionnaire", "please wait", the thank-you). It only listens;
 * its bus client follows the runner's dispatcher and each drive's across their swaps. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "sim_msg_study.h"

#define PAGE_FRAME_MS 100 /* the page changes only with study.state: 10 frames a second is plenty */

static sim_msg_study_state state; /* large (the questionnaire's items): not on the stack */
static bool have_state;

/* The page for a phase: a title, and the runner's message or a plain default. */
static void page_for(rn_hud *h)
{
    const sim_msg_study_state *s = &state;
    const char *title = "", *text = s->message;
    char t[128];
    const char *deflt = "Please wait.";
    if (!have_state) {
        text = "";
    } else if (!strcmp(s->phase, "waiting")) {
        title = "Welcome";
        deflt = "Please take a seat. The study starts soon.";
    } else if (!strcmp(s->phase, "instructions") || !strcmp(s->phase, "driving")) {
        snprintf(t, sizeof t, "Drive %d of %d", s->drive, s->drives);
        title = t;
        deflt = "The drive starts in a moment.";
    } else if (!strcmp(s->phase, "questionnaire")) {
        snprintf(t, sizeof t, "Drive %d of %d is over", s->drive, s->drives);
        title = t;
        deflt = "Please answer the questionnaire on the tablet.";
    } else if (!strcmp(s->phase, "ready")) {
        snprintf(t, sizeof t, "Next: drive %d of %d", s->drive, s->drives);
        title = t;
        deflt = "Please wait: the next drive starts soon.";
    } else if (!strcmp(s->phase, "done")) {
        title = "Thank you";
        deflt = "The study is complete.";
    }
    h->page = true;
    snprintf(h->page_title, sizeof h->page_title, "%s", title);
    snprintf(h->page_text, sizeof h->page_text, "%.*s", (int)sizeof h->page_text - 1, text[0] ? text : deflt);
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    (void)bus, (void)line, (void)len;
    rn_node *n = user;
    sim_error err = {0};
    if (strcmp(topic, SIM_TOPIC_STUDY_STATE) != 0) return;
    if (sim_msg_study_state_decode(msg, &state, &err) != SIM_OK) {
        fprintf(stderr, "render-node: study.state ignored: %s\n", err.msg);
        return;
    }
    (void)n;
    have_state = true;
}

static void on_signal(uv_signal_t *s, int sig)
{
    rn_node *n = s->data;
    if (sig == SIGUSR1) n->shot_now = true; /* kill -USR1: the next page goes to --screenshot */
    else n->stop = true;
}

int rn_run_study_screen(rn_node *n, sim_error *err)
{
    n->loop = uv_default_loop();
    char host[256];
    int port;
    int rc = sim_bus_parse_endpoint(n->o.bus, host, sizeof host, &port, err);
    if (rc) return rc;
    static const char *const subs[] = {SIM_TOPIC_STUDY_STATE};
    sim_bus_options bo = {.name = n->o.name ? n->o.name : "study-screen", .host = host, .port = port,
                          .token = n->o.token, .subscribe = subs, .n_subscribe = 1, .on_message = on_message,
                          .user = n};
    if ((rc = sim_bus_open(n->loop, &bo, &n->bus, err))) return rc;
    uv_signal_init(n->loop, &n->sigint);
    uv_signal_init(n->loop, &n->sigterm);
    uv_signal_init(n->loop, &n->sigusr1);
    n->sigint.data = n->sigterm.data = n->sigusr1.data = n;
    uv_signal_start(&n->sigint, on_signal, SIGINT);
    uv_signal_start(&n->sigterm, on_signal, SIGTERM);
    if (n->o.screenshot) uv_signal_start(&n->sigusr1, on_signal, SIGUSR1);
    char last_phase[16] = "";
    bool shown = false;
    signal(SIGPIPE, SIG_IGN); /* stdout: a pipe the runner closes once it has read "shown" */
    while (!n->stop && !rc) {
        uv_run(n->loop, UV_RUN_NOWAIT);
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT) n->stop = true;
            else if (ev.type == SDL_WINDOWEVENT && ev.window.event == SDL_WINDOWEVENT_SIZE_CHANGED)
                SDL_GL_GetDrawableSize(n->g.win, &n->g.width, &n->g.height);
        }
        if (have_state && strcmp(last_phase, state.phase)) {
            snprintf(last_phase, sizeof last_phase, "%s", state.phase);
            fprintf(stderr, "render-node: study screen: %s\n", state.phase);
        }
        page_for(&n->scene.hud);
        rn_scene_draw_page(&n->scene, n->g.width, n->g.height, rn_now());
        if (n->shot_now) {
            n->shot_now = false;
            if ((rc = gfx_screenshot(&n->g, n->o.screenshot, err))) break;
            fprintf(stderr, "render-node: study screen: %s written\n", n->o.screenshot);
        }
        SDL_GL_SwapWindow(n->g.win);
        if (!shown) { /* the study runner starts the first drive after this line */
            shown = true;
            printf("shown\n");
            fflush(stdout);
        }
        SDL_Delay(PAGE_FRAME_MS);
    }
    sim_bus_close(n->bus);
    n->bus = NULL;
    uv_close((uv_handle_t *)&n->sigint, NULL);
    uv_close((uv_handle_t *)&n->sigterm, NULL);
    uv_close((uv_handle_t *)&n->sigusr1, NULL);
    uv_run(n->loop, UV_RUN_DEFAULT);
    return rc;
}
