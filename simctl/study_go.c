/* simctl study go: the operator's go between drives, from the terminal (the console's
 * Go button does the same): waits until the runner of that participant shows a gate
 * (study.state phase "waiting" before the first drive, "ready" before the next), sends
 * study.go and returns once the runner says the next drive is starting (phase
 * "instructions"). The topics are the runner's (common/protocol/sim_msg_study.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_msg_study.h"
#include "simctl.h"
#include "study.h"

typedef struct goer {
    const study_ctx *c;
    const char *participant;
    sim_bus *bus;
    uv_timer_t timer;
    int sent_drive;             /* 0: not sent yet */
    char said[160];             /* the waiting_on last said, so each is said once */
    sim_msg_study_state state;  /* the newest study.state (too big for the stack) */
    int status;
} goer;

static void finish(goer *g, int status)
{
    g->status = status;
    sim_bus_close(g->bus);
    g->bus = NULL;
    if (!uv_is_closing((uv_handle_t *)&g->timer)) uv_close((uv_handle_t *)&g->timer, NULL);
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    goer *g = user;
    sim_error err;
    if (strcmp(topic, SIM_TOPIC_STUDY_STATE)) return;
    sim_msg_study_state *s = &g->state;
    if (sim_msg_study_state_decode(msg, s, &err) != SIM_OK) return;
    if (strcmp(s->participant, g->participant) || strcmp(s->study, g->c->s->name)) return;
    bool gate = !strcmp(s->phase, "waiting") || !strcmp(s->phase, "ready");
    if (g->sent_drive && !gate && s->drive == g->sent_drive) {
        /* The runner took the go: the drive it leads to is starting. */
        printf("%s: go given, drive %d of %d (%s) starting\n", s->participant, s->drive, s->drives, s->condition);
        finish(g, 0);
        return;
    }
    /* What the day waits on, said as it changes: a go given early waits for that. */
    char on[sizeof s->waiting_on];
    if (s->waiting_on[0]) snprintf(on, sizeof on, "%s", s->waiting_on);
    else study_waiting_on(s, on, sizeof on); /* a runner from before waiting_on */
    if (strcmp(on, g->said)) {
        snprintf(g->said, sizeof g->said, "%s", on);
        fprintf(stderr, "simctl study go: %s is at drive %d of %d, phase %s: %s\n", s->participant, s->drive,
                s->drives, s->phase, on);
    }
    if (!strcmp(s->phase, "done")) {
        fprintf(stderr, "simctl study go: %s's study day is over: there is no drive left to start\n", s->participant);
        finish(g, 1);
        return;
    }
    if (g->sent_drive || !gate) return;
    sim_msg_study_go m = {.drive = s->drive};
    snprintf(m.study, sizeof m.study, "%s", s->study);
    snprintf(m.participant, sizeof m.participant, "%s", s->participant);
    snprintf(m.source, sizeof m.source, "simctl");
    cJSON *o = sim_msg_study_go_encode(&m);
    if (o && sim_bus_publish(bus, SIM_TOPIC_STUDY_GO, 0, o) == SIM_OK) g->sent_drive = s->drive;
    cJSON_Delete(o);
}

static void on_timeout(uv_timer_t *t)
{
    goer *g = t->data;
    if (g->said[0])
        fprintf(stderr, "simctl study go: %s in time: %s was still %s\n",
                g->sent_drive ? "the runner did not take the go" : "no go was wanted", g->participant, g->said);
    else
        fprintf(stderr, "simctl study go: no study.state of %s in time (is `simctl study run` for %s running on "
                        "this bus?)\n", g->participant, g->participant);
    finish(g, 1);
}

int study_cmd_go(int argc, char **argv)
{
    goer g = {0};
    const char *bus_addr = SIMCTL_DEFAULT_BUS, *token = NULL;
    double timeout_s = 600;
    sim_opt opts[] = {
        {"participant", SIM_OPT_STRING, &g.participant, "ID", "whose next drive (required)"},
        {"timeout", SIM_OPT_DOUBLE, &timeout_s, "S", "give up after S seconds (default 600)"},
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "bus address (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token for the bus"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl study go FILE --participant ID [--timeout S] [--bus HOST:PORT]",
                           "The operator's go: the participant's next drive starts (once the runner waits for it).",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos != 1 || !g.participant) {
        fprintf(stderr, "simctl study go: expected FILE and --participant ID\n");
        return 2;
    }
    study_ctx c;
    if (study_load(argv[1], NULL, &c)) return 1;
    g.c = &c;
    if (study_participant(&c, g.participant) < 0) {
        study_close(&c);
        return 1;
    }
    char host[256];
    int port;
    sim_error err;
    if (sim_bus_parse_endpoint(bus_addr, host, sizeof host, &port, &err) != SIM_OK) {
        fprintf(stderr, "simctl study go: --bus %s\n", err.msg);
        study_close(&c);
        return 2;
    }
    uv_loop_t *loop = uv_default_loop();
    static const char *const subs[] = {SIM_TOPIC_STUDY_STATE};
    sim_bus_options bo = {.name = "simctl-go", .host = host, .port = port, .token = token, .subscribe = subs,
                          .n_subscribe = 1, .on_message = on_message, .user = &g};
    g.status = 1;
    if (sim_bus_open(loop, &bo, &g.bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl study go: %s\n", err.msg);
        study_close(&c);
        return 1;
    }
    uv_timer_init(loop, &g.timer);
    g.timer.data = &g;
    uv_timer_start(&g.timer, on_timeout, (uint64_t)(timeout_s * 1000), 0);
    fprintf(stderr, "simctl study go: waiting up to %g s for %s's runner to wait for a go on %s\n", timeout_s,
            g.participant, bus_addr);
    uv_run(loop, UV_RUN_DEFAULT);
    study_close(&c);
    return g.status;
}
