/* simctl study answer: answers the questionnaire a running `simctl study run` waits
 * for, from the terminal, through the same topics as the console (study.state,
 * study.answer, study.answered): it waits for the participant's pending questionnaire,
 * sends ITEM=VALUE pairs (numbers or a scale's named level for scale items, text for
 * text items, ITEM=skip for "prefer not to answer") and prints the runner's verdict,
 * which comes only once the answers are on disk. Like the questionnaire page, it
 * refuses to send while a scale item is neither answered nor skipped. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_msg_study.h"
#include "simctl.h"
#include "study.h"

typedef struct answerer {
    const study_ctx *c;
    const char *participant, *questionnaire;
    int drive;
    char **pairs;
    int n_pairs;
    sim_bus *bus;
    uv_timer_t timer;
    bool sent;
    uint64_t sent_ms;           /* when the answers last went out */
    sim_msg_study_answer a;
    sim_msg_study_state state;  /* the newest study.state (too big for the stack) */
    int status;
    /* what it waits on, said while it waits (issue 35: 600 s in silence with no runner) */
    const char *bus_addr;
    uv_timer_t report;
    bool connected, said_no_bus, said_no_runner, seen_runner;
    char said_phase[16];
    int said_drive;
} answerer;

#define REPORT_MS 3000 /* the runner says study.state once a second: 3 s without one is no runner */
/* Answers without a verdict while the runner still shows the same questionnaire pending
 * are sent again after this long: once, in a day at the terminal, the answers to a
 * questionnaire got no verdict although the runner kept asking for them (the runner's
 * log showed neither "answered" nor "refused"). A copy that reaches the runner after
 * an earlier one was taken is refused (it is no longer pending), but that verdict comes
 * after the ok, which has ended this command. */
#define RESEND_MS 3000

static void on_bus_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    (void)bus;
    answerer *w = user;
    w->connected = welcome != NULL;
}

/* Every REPORT_MS: a dispatcher that is not there, a runner that is not there, or where
 * the participant's day stands, each said once (and again when it changes). */
static void on_report(uv_timer_t *t)
{
    answerer *w = t->data;
    if (w->sent) return;
    if (!w->connected) {
        if (!w->said_no_bus)
            fprintf(stderr, "simctl study answer: no dispatcher answers on %s: is `simctl study run %s --participant %s` "
                            "running (with this --bus)? still waiting\n", w->bus_addr, w->c->file, w->participant);
        w->said_no_bus = true;
        return;
    }
    w->said_no_bus = false;
    if (!w->seen_runner) {
        if (!w->said_no_runner)
            fprintf(stderr, "simctl study answer: the bus is there, but no study runner of %s for %s publishes "
                            "study.state on it; still waiting\n", w->c->s->name, w->participant);
        w->said_no_runner = true;
    }
}

/* Where the participant's day stands, when it is not their questionnaire yet. */
static void say_phase(answerer *w, const sim_msg_study_state *s)
{
    if (!strcmp(w->said_phase, s->phase) && w->said_drive == s->drive) return;
    snprintf(w->said_phase, sizeof w->said_phase, "%s", s->phase);
    w->said_drive = s->drive;
    fprintf(stderr, "simctl study answer: %s is at drive %d of %d, phase %s: waiting for the questionnaire\n",
            s->participant, s->drive, s->drives, s->phase);
}

static void finish(answerer *w, int status)
{
    w->status = status;
    sim_bus_close(w->bus);
    w->bus = NULL;
    if (!uv_is_closing((uv_handle_t *)&w->timer)) uv_close((uv_handle_t *)&w->timer, NULL);
    if (!uv_is_closing((uv_handle_t *)&w->report)) uv_close((uv_handle_t *)&w->report, NULL);
}

/* The answer from ITEM=VALUE pairs, typed by the items study.state lists. */
static int build(answerer *w, const sim_msg_study_state *s)
{
    sim_msg_study_answer *a = &w->a;
    memset(a, 0, sizeof *a);
    snprintf(a->study, sizeof a->study, "%s", s->study);
    snprintf(a->participant, sizeof a->participant, "%s", s->participant);
    snprintf(a->questionnaire, sizeof a->questionnaire, "%s", s->questionnaire);
    snprintf(a->source, sizeof a->source, "simctl");
    a->drive = s->drive;
    for (int i = 0; i < w->n_pairs && a->n < SIM_STUDY_MSG_ITEMS_MAX; i++) {
        char *eq = strchr(w->pairs[i], '=');
        if (!eq || eq == w->pairs[i]) {
            fprintf(stderr, "simctl study answer: '%s': expected ITEM=VALUE\n", w->pairs[i]);
            return -1;
        }
        size_t klen = (size_t)(eq - w->pairs[i]);
        const sim_msg_study_item *it = NULL;
        for (int k = 0; k < s->n_items; k++)
            if (strlen(s->items[k].id) == klen && !strncmp(s->items[k].id, w->pairs[i], klen)) it = &s->items[k];
        if (!it) {
            fprintf(stderr, "simctl study answer: '%.*s' is not an item of '%s' (items:", (int)klen, w->pairs[i],
                    s->questionnaire);
            for (int k = 0; k < s->n_items; k++) fprintf(stderr, " %s", s->items[k].id);
            fprintf(stderr, ")\n");
            return -1;
        }
        int n = a->n++;
        snprintf(a->item[n], sizeof a->item[n], "%s", it->id);
        if (it->is_text) {
            a->is_text[n] = true;
            snprintf(a->text[n], sizeof a->text[n], "%s", eq + 1);
        } else if (!strcmp(eq + 1, "skip")) {
            a->value[n] = NAN; /* prefer not to answer: stored as missing */
        } else if (!sim_cli_number(eq + 1, &a->value[n])) {
            /* A named level ("slight") stands for its number. */
            int k = 0;
            while (k < it->n_labels && (!it->labels[k][0] || strcmp(it->labels[k], eq + 1))) k++;
            if (k == it->n_labels) {
                fprintf(stderr, "simctl study answer: %s: found '%s', expected a number %g..%g%s or skip\n", it->id,
                        eq + 1, it->min, it->max, it->n_labels ? ", a named level" : "");
                return -1;
            }
            a->value[n] = it->min + k * (it->step > 0 ? it->step : 1);
        }
    }
    /* Every scale item answered or skipped, as the page asks: named all at once. */
    int missing = 0;
    for (int k = 0; k < s->n_items; k++) {
        if (s->items[k].is_text) continue;
        bool given = false;
        for (int i = 0; i < a->n && !given; i++) given = !strcmp(a->item[i], s->items[k].id);
        if (!given) fprintf(stderr, "%s %s", missing++ ? "," : "simctl study answer: not answered:", s->items[k].id);
    }
    if (missing) {
        fprintf(stderr, " (give ITEM=VALUE, or ITEM=skip for \"prefer not to answer\")\n");
        return -1;
    }
    return 0;
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    answerer *w = user;
    sim_error err;
    if (!w->sent && !strcmp(topic, SIM_TOPIC_STUDY_STATE)) {
        sim_msg_study_state *s = &w->state;
        if (sim_msg_study_state_decode(msg, s, &err) != SIM_OK) return;
        if (strcmp(s->participant, w->participant) || strcmp(s->study, w->c->s->name)) return;
        w->seen_runner = true;
        if (strcmp(s->phase, "questionnaire") || (w->drive && s->drive != w->drive) ||
            (w->questionnaire && strcmp(s->questionnaire, w->questionnaire))) {
            say_phase(w, s);
            return;
        }
        if (build(w, s)) {
            finish(w, 2);
            return;
        }
        cJSON *o = sim_msg_study_answer_encode(&w->a);
        if (o && sim_bus_publish(bus, SIM_TOPIC_STUDY_ANSWER, 0, o) == SIM_OK) {
            w->sent = true;
            w->sent_ms = uv_now(uv_default_loop());
        }
        cJSON_Delete(o);
    } else if (w->sent && !strcmp(topic, SIM_TOPIC_STUDY_STATE)) {
        /* No verdict yet, and the runner still asks for these very answers: again. */
        sim_msg_study_state *s = &w->state;
        uint64_t now = uv_now(uv_default_loop());
        if (now - w->sent_ms < RESEND_MS || sim_msg_study_state_decode(msg, s, &err) != SIM_OK ||
            strcmp(s->phase, "questionnaire") || strcmp(s->participant, w->a.participant) ||
            s->drive != w->a.drive || strcmp(s->questionnaire, w->a.questionnaire))
            return;
        cJSON *o = sim_msg_study_answer_encode(&w->a);
        if (o && sim_bus_publish(bus, SIM_TOPIC_STUDY_ANSWER, 0, o) == SIM_OK) {
            w->sent_ms = now;
            fprintf(stderr, "simctl study answer: no verdict on the answers in %d s while %s drive %d '%s' is still "
                            "pending: sent again\n", RESEND_MS / 1000, s->participant, s->drive, s->questionnaire);
        }
        cJSON_Delete(o);
    } else if (w->sent && !strcmp(topic, SIM_TOPIC_STUDY_ANSWERED)) {
        sim_msg_study_answered r;
        if (sim_msg_study_answered_decode(msg, &r, &err) != SIM_OK) return;
        if (strcmp(r.participant, w->a.participant) || r.drive != w->a.drive ||
            strcmp(r.questionnaire, w->a.questionnaire))
            return;
        if (r.ok) printf("%s drive %d '%s': answered and stored\n", r.participant, r.drive, r.questionnaire);
        else fprintf(stderr, "simctl study answer: refused: %s\n", r.error);
        finish(w, r.ok ? 0 : 1);
    }
}

static void on_timeout(uv_timer_t *t)
{
    answerer *w = t->data;
    fprintf(stderr, "simctl study answer: no questionnaire of %s%s was pending in time (is `simctl study run` "
                    "waiting for one on this bus?)\n", w->participant, w->sent ? " answered" : "");
    finish(w, 1);
}

int study_cmd_answer(int argc, char **argv)
{
    answerer w = {0};
    const char *bus_addr = SIMCTL_DEFAULT_BUS, *token = NULL;
    double timeout_s = 600;
    sim_opt opts[] = {
        {"participant", SIM_OPT_STRING, &w.participant, "ID", "whose questionnaire (required)"},
        {"drive", SIM_OPT_INT, &w.drive, "K", "only the questionnaire after the drive at position K"},
        {"questionnaire", SIM_OPT_STRING, &w.questionnaire, "ID", "only that questionnaire"},
        {"timeout", SIM_OPT_DOUBLE, &timeout_s, "S", "give up after S seconds (default 600)"},
        {"bus", SIM_OPT_STRING, &bus_addr, "HOST:PORT", "bus address (default 127.0.0.1:7700)"},
        {"token", SIM_OPT_STRING, &token, "TOKEN", "token for the bus"},
    };
    int npos = 0;
    int rc = sim_cli_parse("simctl study answer FILE --participant ID [--drive K] [--questionnaire Q] ITEM=VALUE...",
                           "Answers the questionnaire the study runner waits for; every scale item needs a "
                           "number (or its named level, e.g. nausea=slight) or skip (prefer not to answer), "
                           "text items take any text.",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos < 1 || !w.participant) {
        fprintf(stderr, "simctl study answer: expected FILE, --participant ID and ITEM=VALUE pairs\n");
        return 2;
    }
    study_ctx c;
    if (study_load(argv[1], NULL, &c)) return 1;
    w.c = &c;
    if (study_participant(&c, w.participant) < 0) {
        study_close(&c);
        return 1;
    }
    w.pairs = argv + 2;
    w.n_pairs = npos - 1;
    char host[256];
    int port;
    sim_error err;
    if (sim_bus_parse_endpoint(bus_addr, host, sizeof host, &port, &err) != SIM_OK) {
        fprintf(stderr, "simctl study answer: --bus %s\n", err.msg);
        study_close(&c);
        return 2;
    }
    uv_loop_t *loop = uv_default_loop();
    static const char *const subs[] = {SIM_TOPIC_STUDY_STATE, SIM_TOPIC_STUDY_ANSWERED};
    sim_bus_options bo = {.name = "simctl-answer", .host = host, .port = port, .token = token, .subscribe = subs,
                          .n_subscribe = 2, .on_message = on_message, .on_state = on_bus_state, .user = &w};
    w.bus_addr = bus_addr;
    w.status = 1;
    if (sim_bus_open(loop, &bo, &w.bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl study answer: %s\n", err.msg);
        study_close(&c);
        return 1;
    }
    uv_timer_init(loop, &w.timer);
    w.timer.data = &w;
    uv_timer_start(&w.timer, on_timeout, (uint64_t)(timeout_s * 1000), 0);
    uv_timer_init(loop, &w.report);
    w.report.data = &w;
    uv_timer_start(&w.report, on_report, REPORT_MS, REPORT_MS);
    fprintf(stderr, "simctl study answer: waiting up to %g s for %s's questionnaire on %s\n", timeout_s, w.participant,
            bus_addr);
    uv_run(loop, UV_RUN_DEFAULT);
    study_close(&c);
    return w.status;
}
