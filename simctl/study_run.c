/* simctl study run: one participant's drives in the order of the study's plan, each a
 * `simctl run` session with the condition's scenario overlay and meta, and between
 * drives the questionnaires (docs/study.md, "The runner").
 *
 * Resumable by construction: the plan is recomputed from the file, a drive counts as
 * done only when the database says complete (or flagged), attempts still marked
 * running are from a runner that died and become aborted, and a questionnaire is asked
 * when the database holds no row for it. So running the same command again continues
 * with the first drive not completed.
 *
 * The bus: during a drive the runner joins the session's dispatcher (publishing
 * study.state, the instructions as hud.text); between drives it starts a dispatcher of
 * its own on the same address so that the console and `simctl study answer` reach it.
 * Sessions and that dispatcher get SIGTERM when the runner dies (PR_SET_PDEATHSIG),
 * so a killed runner leaves a closed drive log behind, not a running session. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <sqlite3.h>
#include <uv.h>

#include "cmd_log.h"
#include "sim_bus.h"
#include "sim_cli.h"
#include "sim_file.h"
#include "sim_msg.h"
#include "sim_msg_hud.h"
#include "sim_msg_study.h"
#include "sim_sha256.h"
#include "simctl.h"
#include "session_opts.h"
#include "study.h"

#ifndef SIM_VERSION
#define SIM_VERSION "0.1.0-dev"
#endif
#define STATE_PERIOD_MS 1000
/* How long "done" stays on the bus after the last drive: pages republished to once a
 * second see it, and keep showing it after the runner exits. */
#define DONE_LINGER_MS 3000

typedef struct runner {
    study_ctx *c;
    int p;
    const char *id;
    bool headless;
    const char *bus_addr, *control, *token;
    char host[256];
    int port;
    uv_loop_t *loop;
    sim_bus *bus;
    uv_timer_t tick;            /* state republishing and child polling */
    uv_signal_t sigint, sigterm;
    bool interrupted;
    pid_t child;                /* the drive's simctl run, or our dispatcher */
    int child_status;           /* waitpid status once it ended */
    bool child_done;
    sim_plan plan;
    int cur;                    /* index in plan of the drive in question */
    const sim_questionnaire *q; /* pending questionnaire, NULL none */
    const sim_questionnaire *queue[SIM_STUDY_QUESTIONNAIRES_MAX]; /* still to ask after it */
    int n_queue;
    bool answered;              /* the queue is done */
    uint64_t answered_ms;       /* when: the answers' acks get a moment to reach clients */
    uint64_t last_state_ms;
    sim_msg_study_answer answer; /* the one being handled (too big for the stack) */
    bool in_break;              /* the child is our dispatcher, not a drive */
    const char *gate;           /* after the questionnaires: "waiting", "ready" (the operator's
                                   go) or "done" (lingers); NULL: the break ends with them */
    bool at_gate;               /* the questionnaires are done; the gate is shown */
    int gate_drive;             /* index in plan of the drive the gate leads to */
    uint64_t gate_ms;           /* when the gate was reached */
    bool hud_sent;
    uint64_t hud_first_ms;      /* when the instructions were first shown */
    sim_msg_study_state state;
    session_opts so;            /* the lab's session options: command line over the study file */
    pid_t console;              /* the console for the whole day, 0 none */
    pid_t screen;               /* the driver's screen between drives, 0 none */
} runner;

static pid_t spawn(char *const argv[])
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* A runner killed outright takes its session down with it: the session
         * closes the drive log, and the next run finds the attempt unfinished. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(1);
        execv(argv[0], argv);
        fprintf(stderr, "simctl study: cannot start %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

static void params_json(const sim_study_condition *cond, char *out, size_t size)
{
    cJSON *o = cJSON_CreateObject();
    const sim_study_params *p = &cond->params;
    if (p->light[0]) cJSON_AddStringToObject(o, "light", p->light);
    if (p->has_density) cJSON_AddNumberToObject(o, "traffic_density", p->traffic_density);
    if (p->has_seed) cJSON_AddNumberToObject(o, "traffic_seed", p->traffic_seed);
    if (cond->start[0]) cJSON_AddStringToObject(o, "start", cond->start);
    if (p->custom_json[0]) cJSON_AddItemToObject(o, "custom", cJSON_Parse(p->custom_json));
    char *t = cJSON_PrintUnformatted(o);
    snprintf(out, size, "%s", t ? t : "{}");
    cJSON_free(t);
    cJSON_Delete(o);
}

/* The pending questionnaire q into study.state s: its id and items. */
static void questionnaire_items(const sim_questionnaire *q, sim_msg_study_state *s)
{
    snprintf(s->questionnaire, sizeof s->questionnaire, "%s", q->id);
    for (int a = 0; a < q->n_instruments; a++)
        for (int i = 0; i < q->instruments[a].n_items && s->n_items < SIM_STUDY_MSG_ITEMS_MAX; i++) {
            const sim_item *it = &q->instruments[a].items[i];
            sim_msg_study_item *m = &s->items[s->n_items++];
            snprintf(m->id, sizeof m->id, "%s", it->id);
            snprintf(m->instrument, sizeof m->instrument, "%s", q->instruments[a].id);
            snprintf(m->text, sizeof m->text, "%s", it->text);
            m->is_text = it->kind == SIM_ITEM_TEXT;
            m->min = it->min, m->max = it->max, m->step = it->step;
            snprintf(m->low, sizeof m->low, "%s", it->low);
            snprintf(m->high, sizeof m->high, "%s", it->high);
            for (int k = 0; it->labels && k < it->n_labels && k < SIM_STUDY_MSG_LABELS_MAX; k++)
                snprintf(m->labels[m->n_labels++], sizeof m->labels[0], "%s", it->labels[k]);
        }
}

/* study.state about the drive at index idx of the plan. */
static void set_state_at(runner *r, int idx, const char *phase, const char *message)
{
    sim_msg_study_state *s = &r->state;
    memset(s, 0, sizeof *s);
    const sim_plan_drive *d = &r->plan.drives[idx];
    const sim_study_condition *cond = &r->c->s->conditions[d->condition];
    snprintf(s->study, sizeof s->study, "%s", r->c->s->name);
    snprintf(s->participant, sizeof s->participant, "%s", r->id);
    snprintf(s->group, sizeof s->group, "%s", study_group(r->c, r->p));
    snprintf(s->phase, sizeof s->phase, "%s", phase);
    s->drive = d->position;
    s->drives = r->plan.n;
    snprintf(s->condition, sizeof s->condition, "%s", cond->name);
    snprintf(s->kind, sizeof s->kind, "%s", sim_drive_kind_name(d->kind));
    snprintf(s->message, sizeof s->message, "%s", message ? message : "");
    params_json(cond, s->params, sizeof s->params);
    if (r->q && !strcmp(phase, "questionnaire")) questionnaire_items(r->q, s);
    study_waiting_on(s, s->waiting_on, sizeof s->waiting_on);
}

static void set_state(runner *r, const char *phase, const char *message)
{
    set_state_at(r, r->cur, phase, message);
}

static void publish_state(runner *r)
{
    if (!r->bus || !sim_bus_connected(r->bus)) return;
    cJSON *o = sim_msg_study_state_encode(&r->state);
    if (o) sim_bus_publish(r->bus, SIM_TOPIC_STUDY_STATE, 0, o);
    cJSON_Delete(o);
}

static void answered(runner *r, const sim_msg_study_answer *a, const char *error)
{
    sim_msg_study_answered m = {.drive = a->drive, .ok = !error};
    snprintf(m.study, sizeof m.study, "%s", r->c->s->name);
    snprintf(m.participant, sizeof m.participant, "%s", a->participant);
    snprintf(m.questionnaire, sizeof m.questionnaire, "%s", a->questionnaire);
    snprintf(m.error, sizeof m.error, "%s", error ? error : "");
    cJSON *o = sim_msg_study_answered_encode(&m);
    if (o) sim_bus_publish(r->bus, SIM_TOPIC_STUDY_ANSWERED, 0, o);
    cJSON_Delete(o);
    if (error) fprintf(stderr, "simctl study: answer refused: %s\n", error);
}

/* Commits answers to the database and the journal (both synced) before returning. */
static int record_answers(runner *r, const sim_questionnaire *q, int position, const char *status,
                          const sim_msg_study_answer *a, sim_error *err)
{
    const char *items[SIM_STUDY_MSG_ITEMS_MAX], *texts[SIM_STUDY_MSG_ITEMS_MAX];
    double values[SIM_STUDY_MSG_ITEMS_MAX];
    int n = a ? a->n : 0;
    for (int i = 0; i < n; i++) {
        items[i] = a->item[i];
        /* A text box left empty is no answer: stored as missing (NULL), as a skip. */
        texts[i] = a->is_text[i] && a->text[i][0] ? a->text[i] : NULL;
        values[i] = a->is_text[i] ? NAN : a->value[i];
    }
    char utc[40];
    study_utc_now(utc, sizeof utc);
    const char *source = a && a->source[0] ? a->source : (a ? "bus" : "runner");
    int rc = sim_studydb_answers(r->c->db, r->id, position, q->id, status, n, items, values, texts,
                                 utc, source, err);
    if (rc) return rc;
    cJSON *e = cJSON_CreateObject(), *ans = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", "answers");
    cJSON_AddStringToObject(e, "participant", r->id);
    cJSON_AddNumberToObject(e, "position", position);
    cJSON_AddStringToObject(e, "questionnaire", q->id);
    cJSON_AddStringToObject(e, "status", status);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToObject(ans, items[i], texts[i]               ? cJSON_CreateString(texts[i])
                                             : isnan(values[i]) ? cJSON_CreateNull() /* skipped */
                                                                : cJSON_CreateNumber(values[i]));
    cJSON_AddItemToObject(e, "answers", ans);
    cJSON_AddStringToObject(e, "utc", utc);
    cJSON_AddStringToObject(e, "source", source);
    rc = study_journal(r->c, e, err);
    cJSON_Delete(e);
    return rc;
}

static void announce(runner *r);
static void send_instructions(runner *r);

/* The break's gate, once its questionnaires are answered (docs/study.md, "The day"). */
static void enter_gate(runner *r)
{
    r->at_gate = true;
    r->gate_ms = uv_now(r->loop);
    r->q = NULL;
    const sim_study *s = r->c->s;
    if (!strcmp(r->gate, "done")) {
        set_state_at(r, r->gate_drive, "done", s->end_text[0] ? s->end_text : "Thank you: the study is complete.");
    } else {
        /* The next drive's instructions, else a calm "please wait". */
        const char *ins = s->conditions[r->plan.drives[r->gate_drive].condition].instructions;
        const char *msg = !strcmp(r->gate, "waiting") && s->welcome_text[0] ? s->welcome_text
                          : ins[0]                                          ? ins
                                                                            : "Please wait: the next drive starts soon.";
        set_state_at(r, r->gate_drive, r->gate, msg);
        fprintf(stderr, "simctl study: %s: %s before drive %d: waiting for the operator's go (console, or\n"
                        "  simctl study go %s --participant %s --bus %s)\n", r->id, r->gate,
                r->plan.drives[r->gate_drive].position, r->c->file, r->id, r->bus_addr);
    }
    fprintf(stderr, "simctl study: phase %s\n", r->state.phase);
    publish_state(r);
}

static void on_go(runner *r, const cJSON *msg)
{
    sim_msg_study_go g;
    sim_error err;
    if (!r->at_gate || !r->gate || !strcmp(r->gate, "done") || r->answered) return;
    if (sim_msg_study_go_decode(msg, &g, &err) != SIM_OK) {
        fprintf(stderr, "simctl study: study.go ignored: %s\n", err.msg);
        return;
    }
    int next = r->plan.drives[r->gate_drive].position;
    if (strcmp(g.participant, r->id) || (g.drive && g.drive != next)) {
        fprintf(stderr, "simctl study: study.go for %s drive %d ignored: %s is at drive %d\n", g.participant, g.drive,
                r->id, next);
        return;
    }
    fprintf(stderr, "simctl study: %s: the operator's go (%s): drive %d\n", r->id, g.source[0] ? g.source : "bus", next);
    /* Said at once on this dispatcher, so whoever gave the go sees it taken. */
    const sim_study_condition *cond = &r->c->s->conditions[r->plan.drives[r->gate_drive].condition];
    set_state_at(r, r->gate_drive, "instructions", cond->instructions);
    publish_state(r);
    r->answered = true;
    r->answered_ms = uv_now(r->loop);
}

/* Whether a's questionnaire of this participant, after the drive at a's position, is
 * answered in the database already (the questionnaire pending now never is). */
static bool already_stored(runner *r, const sim_msg_study_answer *a)
{
    if (strcmp(a->participant, r->id) || strcmp(a->study, r->c->s->name) || a->drive < 1) return false;
    if (r->q && !r->answered && a->drive == r->plan.drives[r->cur].position && !strcmp(a->questionnaire, r->q->id))
        return false;
    const sim_questionnaire *q = NULL;
    for (int i = 0; i < r->c->s->n_questionnaires && !q; i++)
        if (!strcmp(r->c->s->questionnaires[i].id, a->questionnaire)) q = &r->c->s->questionnaires[i];
    bool has = false;
    sim_error err;
    return q && sim_studydb_has_answers(r->c->db, r->id, a->drive, q->id, &has, &err) == SIM_OK && has;
}

static void on_message(sim_bus *bus, const char *topic, const cJSON *msg, const char *line, size_t len, void *user)
{
    runner *r = user;
    if (!strcmp(topic, SIM_TOPIC_DISPATCHER_JOINED)) {
        /* The session's physics is up: the drive has begun. */
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
        if (!r->in_break && !strcmp(r->state.phase, "instructions") && cJSON_IsString(name) &&
            !strcmp(name->valuestring, "physics")) {
            set_state(r, "driving", r->state.message);
            fprintf(stderr, "simctl study: phase driving\n");
        }
        send_instructions(r);
        publish_state(r);
        return;
    }
    if (!strcmp(topic, SIM_TOPIC_STUDY_GO)) {
        on_go(r, msg);
        return;
    }
    if (strcmp(topic, SIM_TOPIC_STUDY_ANSWER) != 0) return;
    sim_msg_study_answer *ap = &r->answer;
    sim_error err = {0};
    if (sim_msg_study_answer_decode(msg, ap, &err) != SIM_OK) {
        if (r->q && !r->answered) answered(r, ap, err.msg);
        return;
    }
#define a (*ap)
    /* A copy of answers already stored (a client that did not hear the verdict and
     * sends again): acknowledged again, never stored twice. */
    if (already_stored(r, &a)) {
        fprintf(stderr, "simctl study: %s drive %d: '%s' from %s again: already stored, acknowledged again\n",
                a.participant, a.drive, a.questionnaire, a.source[0] ? a.source : "bus");
        answered(r, &a, NULL);
        return;
    }
    if (!r->q || r->answered) return;
    const sim_plan_drive *d = &r->plan.drives[r->cur];
    if (strcmp(a.participant, r->id) || a.drive != d->position || strcmp(a.questionnaire, r->q->id)) {
        char why[400];
        snprintf(why, sizeof why, "study.answer: for %s drive %d '%s', but the pending questionnaire is %s drive %d '%s'",
                 a.participant, a.drive, a.questionnaire, r->id, d->position, r->q->id);
        answered(r, &a, why);
        return;
    }
    const char *items[SIM_STUDY_MSG_ITEMS_MAX], *texts[SIM_STUDY_MSG_ITEMS_MAX];
    for (int i = 0; i < a.n; i++) {
        items[i] = a.item[i];
        texts[i] = a.is_text[i] ? a.text[i] : NULL;
    }
    if (sim_questionnaire_check(r->q, a.n, items, a.value, texts, &err) != SIM_OK) {
        answered(r, &a, err.msg);
        return;
    }
    if (record_answers(r, r->q, d->position, "answered", &a, &err) != SIM_OK) {
        /* Not acknowledged: the client sees the error and the answers stay pending. */
        answered(r, &a, err.msg);
        return;
    }
    fprintf(stderr, "simctl study: %s drive %d: '%s' answered (%s)\n", r->id, d->position, r->q->id,
            a.source[0] ? a.source : "bus");
    answered(r, &a, NULL);
#undef a
    /* The next questionnaire of this break, on the same dispatcher. */
    if (r->n_queue > 0) {
        r->q = r->queue[0];
        memmove(r->queue, r->queue + 1, sizeof r->queue[0] * (size_t)--r->n_queue);
        set_state(r, "questionnaire", r->c->s->between_text);
        publish_state(r);
        announce(r);
        return;
    }
    if (r->gate) {
        enter_gate(r);
        return;
    }
    r->answered = true;
    r->answered_ms = uv_now(r->loop);
}

/* The condition's instructions on the driver's view for the first HUD_INSTRUCTIONS_MS
 * of the drive; sent again (with what is left of that time) whenever a module joins,
 * since a render node that joins after the first message would never see it. */
#define HUD_INSTRUCTIONS_MS 10000
static void send_instructions(runner *r)
{
    const sim_study_condition *cond = &r->c->s->conditions[r->plan.drives[r->cur].condition];
    if (r->q || !cond->instructions[0] || !r->bus) return;
    uint64_t now = uv_now(r->loop);
    if (!r->hud_sent) {
        r->hud_sent = true;
        r->hud_first_ms = now;
    }
    uint64_t shown = now - r->hud_first_ms;
    if (shown >= HUD_INSTRUCTIONS_MS) return;
    sim_msg_hud_text h = {.area = SIM_HUD_CENTER, .ttl_s = (HUD_INSTRUCTIONS_MS - shown) / 1000.0};
    snprintf(h.text, sizeof h.text, "%s", cond->instructions);
    cJSON *o = sim_msg_hud_text_encode(&h);
    if (o) sim_bus_publish(r->bus, SIM_TOPIC_HUD_TEXT, 0, o);
    cJSON_Delete(o);
}

static void on_bus_state(sim_bus *bus, const cJSON *welcome, void *user)
{
    runner *r = user;
    if (!welcome) return;
    /* Joined a session whose physics was up before us. */
    const cJSON *peers = cJSON_GetObjectItemCaseSensitive(welcome, "peers"), *p;
    cJSON_ArrayForEach(p, peers)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (!r->in_break && !strcmp(r->state.phase, "instructions") && cJSON_IsString(name) &&
            !strcmp(name->valuestring, "physics")) {
            set_state(r, "driving", r->state.message);
            fprintf(stderr, "simctl study: phase driving\n");
        }
    }
    publish_state(r);
    send_instructions(r);
}

static void open_bus(runner *r)
{
    static const char *const subs[] = {SIM_TOPIC_STUDY_ANSWER, SIM_TOPIC_STUDY_GO};
    sim_bus_options bo = {.name = "study", .host = r->host, .port = r->port, .token = r->token,
                          .subscribe = subs, .n_subscribe = 2, .on_message = on_message,
                          .on_state = on_bus_state, .user = r};
    sim_error err;
    if (sim_bus_open(r->loop, &bo, &r->bus, &err) != SIM_OK) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        r->bus = NULL;
    }
}

static void stop_phase(runner *r)
{
    uv_timer_stop(&r->tick);
    sim_bus_close(r->bus);
    r->bus = NULL;
}

static void on_tick(uv_timer_t *t)
{
    runner *r = t->data;
    if (r->child > 0 && !r->child_done) {
        int st;
        pid_t w = waitpid(r->child, &st, WNOHANG);
        if (w == r->child) {
            r->child_done = true;
            r->child_status = st;
        }
    }
    bool drive_over = !r->in_break && r->child_done;
    /* 300 ms after the last answer (or the go): study.answered has reached the clients. */
    bool done_over = r->at_gate && r->gate && !strcmp(r->gate, "done") && uv_now(r->loop) - r->gate_ms >= DONE_LINGER_MS;
    bool questions_over = r->in_break && ((r->answered && uv_now(r->loop) - r->answered_ms >= 300) ||
                                          r->interrupted || r->child_done || done_over);
    if (drive_over || questions_over) {
        stop_phase(r);
        return;
    }
    /* Once a second: a console that joined late, or after a reconnect, sees where the
     * study stands without asking. */
    uint64_t now = uv_now(r->loop);
    if (now - r->last_state_ms >= STATE_PERIOD_MS) {
        r->last_state_ms = now;
        publish_state(r);
    }
}

static void on_signal(uv_signal_t *s, int signum)
{
    runner *r = s->data;
    r->interrupted = true;
    fprintf(stderr, "simctl study: %s: stopping%s\n", signum == SIGINT ? "Ctrl-C" : "SIGTERM",
            r->q ? " (the questionnaire stays pending)" : " (the current attempt is recorded as aborted)");
    if (r->child > 0 && !r->child_done) kill(r->child, SIGTERM);
}

static void run_phase(runner *r)
{
    r->hud_sent = false;
    open_bus(r);
    uv_timer_start(&r->tick, on_tick, 20, 20);
    uv_run(r->loop, UV_RUN_DEFAULT);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int ok = fputs(text, f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static int journal_attempt(runner *r, const char *type, int position, int attempt, const char *status,
                           const char *log, const char *sha, const char *reason)
{
    char utc[40];
    study_utc_now(utc, sizeof utc);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", type);
    cJSON_AddStringToObject(e, "participant", r->id);
    cJSON_AddNumberToObject(e, "position", position);
    cJSON_AddStringToObject(e, "condition", r->c->s->conditions[r->plan.drives[r->cur].condition].name);
    cJSON_AddNumberToObject(e, "attempt", attempt);
    if (status) cJSON_AddStringToObject(e, "status", status);
    if (log) cJSON_AddStringToObject(e, "log", log);
    if (sha) cJSON_AddStringToObject(e, "sha256", sha);
    if (reason) cJSON_AddStringToObject(e, "reason", reason);
    cJSON_AddStringToObject(e, "study_sha256", r->c->sha256);
    cJSON_AddStringToObject(e, "utc", utc);
    sim_error err;
    int rc = study_journal(r->c, e, &err);
    cJSON_Delete(e);
    if (rc) fprintf(stderr, "simctl study: %s\n", err.msg);
    return rc;
}

static int run_drive(runner *r)
{
    const sim_plan_drive *d = &r->plan.drives[r->cur];
    const sim_study_condition *cond = &r->c->s->conditions[d->condition];
    sim_error err = {0};
    char utc[40];
    study_utc_now(utc, sizeof utc);
    int64_t aid;
    int attempt;
    if (sim_studydb_attempt_begin(r->c->db, r->id, d->position, cond->name, utc, SIM_VERSION, r->c->sha256, &aid,
                                  &attempt, &err) != SIM_OK ||
        journal_attempt(r, "begin", d->position, attempt, NULL, NULL, NULL, NULL)) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    /* The drive's folder: its scenario as the condition makes it, its meta, its log. */
    char dir[PATH_MAX * 2], scen[PATH_MAX * 3], meta[PATH_MAX * 3], base[PATH_MAX], vehicle[PATH_MAX * 2];
    snprintf(dir, sizeof dir, "%s/drives/%s-%02d-%s-a%d", r->c->out, r->id, d->position, cond->name, attempt);
    study_condition_paths(r->c, d->condition, base, sizeof base, vehicle, sizeof vehicle);
    const char *slash = strrchr(cond->scenario, '/');
    snprintf(scen, sizeof scen, "%s/%s", dir, slash ? slash + 1 : cond->scenario);
    snprintf(meta, sizeof meta, "%s/meta.json", dir);
    char *text = study_condition_scenario(r->c, d->condition, &err);
    char pos[16], att[16], params[SIM_STUDY_TEXT_MAX + 200];
    snprintf(pos, sizeof pos, "%d", d->position);
    snprintf(att, sizeof att, "%d", attempt);
    params_json(cond, params, sizeof params);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "study", r->c->s->name);
    cJSON_AddStringToObject(m, "study_file", r->c->file);
    cJSON_AddStringToObject(m, "study_sha256", r->c->sha256);
    cJSON_AddStringToObject(m, "participant", r->id);
    cJSON_AddStringToObject(m, "group", study_group(r->c, r->p));
    cJSON_AddStringToObject(m, "condition", cond->name);
    cJSON_AddStringToObject(m, "position", pos);
    cJSON_AddStringToObject(m, "drive_kind", sim_drive_kind_name(d->kind));
    cJSON_AddStringToObject(m, "attempt", att);
    cJSON_AddStringToObject(m, "condition_params", params);
    cJSON_AddStringToObject(m, "condition_scenario", base);
    char *mt = cJSON_Print(m);
    cJSON_Delete(m);
    int bad = !text || !mt || sim_file_mkdirs(dir, &err) || write_file(scen, text) || write_file(meta, mt);
    free(text);
    cJSON_free(mt);
    if (bad) {
        fprintf(stderr, "simctl study: %s: %s\n", dir, err.msg[0] ? err.msg : strerror(errno));
        study_utc_now(utc, sizeof utc);
        sim_studydb_attempt_end(r->c->db, aid, SIM_ATTEMPT_ABORTED, utc, NULL, NULL, "could not prepare the drive", NULL);
        journal_attempt(r, "end", d->position, attempt, "aborted", NULL, NULL, "could not prepare the drive");
        return 1;
    }
    char exe[PATH_MAX], until[32], display[16];
    snprintf(exe, sizeof exe, "%s/simctl", simctl_bin_dir());
    char *argv[48];
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "run";
    argv[n++] = scen;
    argv[n++] = "--out", argv[n++] = dir;
    argv[n++] = "--study", argv[n++] = r->c->s->name;
    argv[n++] = "--subject", argv[n++] = (char *)r->id;
    argv[n++] = "--vehicle", argv[n++] = vehicle;
    argv[n++] = "--meta-file", argv[n++] = meta;
    argv[n++] = "--bus", argv[n++] = (char *)r->bus_addr;
    argv[n++] = "--control", argv[n++] = (char *)r->control;
    if (r->headless) argv[n++] = "--headless";
    session_opts_argv(&r->so, argv, &n, display);
    if (cond->until_s > 0) {
        snprintf(until, sizeof until, "%g", cond->until_s);
        argv[n++] = "--until", argv[n++] = until;
    }
    argv[n] = NULL;
    fprintf(stderr, "simctl study: %s drive %d of %d: %s (%s, attempt %d)\n", r->id, d->position, r->plan.n,
            cond->name, sim_drive_kind_name(d->kind), attempt);
    r->q = NULL;
    r->child_done = false;
    r->in_break = false;
    /* "instructions" until the session's physics joins, then "driving". */
    set_state(r, "instructions", cond->instructions);
    fprintf(stderr, "simctl study: phase instructions\n");
    r->child = spawn(argv);
    if (r->child < 0) return 1;
    run_phase(r);
    r->child = 0;
    char log[PATH_MAX * 3] = "", sha[65] = "";
    simctl_newest_log(dir, r->c->s->name, log, sizeof log);
    if (log[0] && sim_sha256_file(log, sha, &err) != SIM_OK) sha[0] = '\0';
    study_utc_now(utc, sizeof utc);
    int st = r->child_status;
    bool ok = !r->interrupted && WIFEXITED(st) && WEXITSTATUS(st) == 0 && log[0];
    /* complete only when its log is: a log never closed (no end_utc) may lack its tail */
    bool closed = !ok || study_log_closed(log) == STUDY_LOG_CLOSED;
    ok = ok && closed;
    char reason[200] = "";
    if (r->interrupted) snprintf(reason, sizeof reason, "the runner was interrupted during the drive");
    else if (!WIFEXITED(st) || WEXITSTATUS(st)) snprintf(reason, sizeof reason, "simctl run ended with status %d",
                                                         WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    else if (!log[0]) snprintf(reason, sizeof reason, "no drive log was written");
    else if (!closed) snprintf(reason, sizeof reason, "the drive log was never closed (no end_utc): its end may be lost");
    sim_attempt_status status = ok ? SIM_ATTEMPT_COMPLETE : SIM_ATTEMPT_ABORTED;
    if (sim_studydb_attempt_end(r->c->db, aid, status, utc, log[0] ? log : NULL, sha[0] ? sha : NULL, reason, &err) ||
        journal_attempt(r, "end", d->position, attempt, sim_attempt_status_names[status], log[0] ? log : NULL,
                        sha[0] ? sha : NULL, reason)) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    if (!ok) {
        fprintf(stderr, "simctl study: %s drive %d aborted: %s; run the same command again to retry it\n", r->id,
                d->position, reason);
        return 1;
    }
    return 0;
}

static void announce(runner *r)
{
    fprintf(stderr, "simctl study: %s drive %d: questionnaire '%s' waiting; answer it in the console or with\n"
                    "  simctl study answer %s --participant %s ITEM=VALUE ...   (--bus %s)\n",
            r->id, r->plan.drives[r->cur].position, r->q->id, r->c->file, r->id, r->bus_addr);
}

/* A break between drives on a dispatcher of our own: the questionnaires due after the
 * current drive, in the study file's order (recorded as not asked when headless), then
 * the gate: "waiting" or "ready" hold until the operator's go (study.go; none with the
 * study's auto_go), "done" is shown for DONE_LINGER_MS; gate_drive is the drive the
 * gate leads to. Headless runs have nobody to ask or wait for. */
static int run_break(runner *r, const sim_questionnaire *const *qs, int n, const char *gate, int gate_drive)
{
    const sim_plan_drive *d = &r->plan.drives[r->cur];
    sim_error err = {0};
    if (r->headless) {
        for (int i = 0; i < n; i++)
            if (record_answers(r, qs[i], d->position, "not_asked", NULL, &err)) {
                fprintf(stderr, "simctl study: %s\n", err.msg);
                return 1;
            }
        return 0;
    }
    if (gate && strcmp(gate, "done") && r->c->s->auto_go) gate = NULL;
    if (n == 0 && !gate) return 0;
    char exe[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/dispatcher", simctl_bin_dir());
    char *argv[] = {exe, "--listen", (char *)r->bus_addr, "--control", (char *)r->control, NULL};
    r->in_break = true;
    r->gate = gate;
    r->gate_drive = gate_drive;
    r->at_gate = false;
    r->q = n ? qs[0] : NULL;
    r->n_queue = n ? n - 1 : 0;
    if (n > 1) memcpy(r->queue, qs + 1, sizeof qs[0] * (size_t)(n - 1));
    r->answered = false;
    r->child_done = false;
    if (n) {
        set_state(r, "questionnaire", r->c->s->between_text);
        fprintf(stderr, "simctl study: phase questionnaire\n");
        announce(r);
    } else {
        enter_gate(r);
    }
    r->child = spawn(argv);
    if (r->child < 0) return 1;
    run_phase(r);
    if (!r->child_done) {
        kill(r->child, SIGTERM);
        waitpid(r->child, NULL, 0);
    } else if (!r->answered && !r->interrupted) {
        fprintf(stderr, "simctl study: the break's dispatcher ended (is %s in use?)\n", r->bus_addr);
    }
    bool done = gate && !strcmp(gate, "done") && r->at_gate;
    r->child = 0;
    r->q = NULL;
    r->in_break = false;
    r->gate = NULL;
    r->at_gate = false;
    return r->answered || (done && !r->interrupted) ? 0 : 1;
}

/* Whether the drive at index i of the plan needs no run: complete or flagged. */
static bool drive_done(runner *r, int i)
{
    int n1 = 0, n2 = 0;
    sim_studydb_count(r->c->db, r->id, r->plan.drives[i].position, SIM_ATTEMPT_COMPLETE, &n1, NULL);
    sim_studydb_count(r->c->db, r->id, r->plan.drives[i].position, SIM_ATTEMPT_FLAGGED, &n2, NULL);
    return n1 + n2 > 0;
}

/* The questionnaires after the current drive, then the operator's go when a later
 * drive is still to run (*gated: that go was given). */
static int pending_questionnaires(runner *r, bool last, bool *gated)
{
    const sim_plan_drive *d = &r->plan.drives[r->cur];
    const sim_questionnaire *due[SIM_STUDY_QUESTIONNAIRES_MAX];
    int n = 0;
    for (int i = 0; i < r->c->s->n_questionnaires; i++) {
        const sim_questionnaire *q = &r->c->s->questionnaires[i];
        /* After every drive but practice; at the end, after the last drive too. */
        bool due_now = q->when == SIM_Q_AT_END ? last : d->kind != SIM_DRIVE_PRACTICE;
        if (!due_now) continue;
        bool has = false;
        sim_error err;
        if (sim_studydb_has_answers(r->c->db, r->id, d->position, q->id, &has, &err)) {
            fprintf(stderr, "simctl study: %s\n", err.msg);
            return 1;
        }
        if (!has) due[n++] = q;
    }
    int next = r->cur + 1;
    while (next < r->plan.n && drive_done(r, next)) next++;
    *gated = next < r->plan.n;
    return run_break(r, due, n, next < r->plan.n ? "ready" : NULL, next < r->plan.n ? next : r->cur);
}

/* Attempts still "running" are from a runner that died (kill -9, a crash): each is
 * ended as aborted with the log its session left in its drive folder, if any, so an
 * aborted attempt keeps its log linked (database and journal). */
static int link_dead_attempts(runner *r, const char *reason, const char *utc)
{
    int linked = 0;
    sqlite3 *db = sim_studydb_sqlite(r->c->db);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id, position, condition, attempt FROM attempts WHERE participant = ? AND"
                               " status = 'running'", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
    struct { int64_t id; int pos, attempt; char cond[64]; } dead[16];
    int n = 0;
    while (n < 16 && sqlite3_step(st) == SQLITE_ROW) {
        dead[n].id = sqlite3_column_int64(st, 0);
        dead[n].pos = sqlite3_column_int(st, 1);
        snprintf(dead[n].cond, sizeof dead[n].cond, "%s", (const char *)sqlite3_column_text(st, 2));
        dead[n].attempt = sqlite3_column_int(st, 3);
        n++;
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        char dir[PATH_MAX * 2], log[PATH_MAX * 3] = "", sha[65] = "";
        snprintf(dir, sizeof dir, "%s/drives/%s-%02d-%s-a%d", r->c->out, r->id, dead[i].pos, dead[i].cond,
                 dead[i].attempt);
        simctl_newest_log(dir, r->c->s->name, log, sizeof log);
        if (!log[0]) continue; /* no log: abort_running ends it without one */
        sim_error err;
        if (sim_sha256_file(log, sha, &err) != SIM_OK) sha[0] = '\0';
        if (sim_studydb_attempt_end(r->c->db, dead[i].id, SIM_ATTEMPT_ABORTED, utc, log, sha[0] ? sha : NULL, reason,
                                    &err) != SIM_OK)
            continue;
        linked++;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "type", "end");
        cJSON_AddStringToObject(e, "participant", r->id);
        cJSON_AddNumberToObject(e, "position", dead[i].pos);
        cJSON_AddStringToObject(e, "condition", dead[i].cond);
        cJSON_AddNumberToObject(e, "attempt", dead[i].attempt);
        cJSON_AddStringToObject(e, "status", "aborted");
        cJSON_AddStringToObject(e, "log", log);
        if (sha[0]) cJSON_AddStringToObject(e, "sha256", sha);
        cJSON_AddStringToObject(e, "reason", reason);
        cJSON_AddStringToObject(e, "study_sha256", r->c->sha256);
        cJSON_AddStringToObject(e, "utc", utc);
        if (study_journal(r->c, e, &err)) fprintf(stderr, "simctl study: %s\n", err.msg);
        cJSON_Delete(e);
        fprintf(stderr, "simctl study: %s drive %d attempt %d: aborted, its log linked (%s)\n", r->id, dead[i].pos,
                dead[i].attempt, log);
    }
    return linked;
}

/* Whether the runner named in the lock row still runs: on this host, while its pid
 * lives; on another host it cannot be told, so it counts as running. */
static bool runner_alive(int64_t pid, const char *host)
{
    char here[256] = "";
    gethostname(here, sizeof here - 1);
    if (strcmp(host, here) != 0) return true;
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* The console for the whole day (--console, or the study file's session.console):
 * its pages reach each drive's dispatcher and the breaks' one, which share the bus
 * address, and its map shows the participant's first drive's scenario. */
static void start_console(runner *r)
{
    if (!r->so.console_addr) return;
    char exe[PATH_MAX], scen[PATH_MAX * 2], veh[PATH_MAX * 2];
    snprintf(exe, sizeof exe, "%s/console", simctl_bin_dir());
    study_condition_paths(r->c, r->plan.drives[0].condition, scen, sizeof scen, veh, sizeof veh);
    char *argv[] = {exe, "--bus", (char *)r->bus_addr, "--control", (char *)r->control, "--listen",
                    (char *)r->so.console_addr, "--scenario", scen, NULL};
    r->console = spawn(argv);
    fprintf(stderr, "simctl study: console at http://%s/%s\n", r->so.console_addr, r->token ? "?token=..." : "");
}

/* The driver's screen between drives (render-node --study-screen) for the whole day,
 * where the driver's view goes: each drive's view opens over it, and when a drive ends
 * the test person sees the study's page (study.state: the welcome, the next drive's
 * instructions, please wait, thank you), never the desktop. Only with a display. The
 * first drive waits until its page is shown (it says "shown" on its stdout), so that it
 * never opens over that drive's view. */
#define SCREEN_UP_MS 20000
static void start_screen(runner *r)
{
    const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    char exe[PATH_MAX], scen[PATH_MAX * 2], veh[PATH_MAX * 2], display[16];
    snprintf(exe, sizeof exe, "%s/render-node", simctl_bin_dir());
    if (r->headless || !((d && *d) || (w && *w)) || access(exe, X_OK) != 0) return;
    study_condition_paths(r->c, r->plan.drives[0].condition, scen, sizeof scen, veh, sizeof veh);
    char *argv[16] = {exe, "--study-screen", "--bus", (char *)r->bus_addr, "--scenario", scen, "--no-scenery"};
    int n = 7;
    if (r->so.fullscreen) argv[n++] = "--fullscreen";
    if (r->so.display >= 0) {
        snprintf(display, sizeof display, "%d", r->so.display);
        argv[n++] = "--display", argv[n++] = display;
    }
    if (r->so.quality) argv[n++] = "--quality", argv[n++] = (char *)r->so.quality;
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_t parent = getpid();
    r->screen = fork();
    if (r->screen == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(1);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    char buf[64] = "";
    ssize_t got = r->screen > 0 && poll(&p, 1, SCREEN_UP_MS) > 0 ? read(fds[0], buf, sizeof buf - 1) : 0;
    close(fds[0]);
    if (got <= 0 || !strstr(buf, "shown"))
        fprintf(stderr, "simctl study: the driver's screen between drives (render-node --study-screen) did not come "
                        "up within %d s\n", SCREEN_UP_MS / 1000);
}

/* The day's console and study screen at the end: SIGTERM, then SIGKILL after
 * STOP_CHILD_MS. (A study screen on a busy virtual desktop once hung in its exit, a
 * futex wait in the GL driver, after SIGTERM: the runner, stopped at a questionnaire,
 * waited for it without end.) */
#define STOP_CHILD_MS 5000
static void stop_child(pid_t *pid)
{
    if (*pid <= 0) return;
    kill(*pid, SIGTERM);
    for (int waited = 0; waitpid(*pid, NULL, WNOHANG) == 0; waited += 50) {
        if (waited >= STOP_CHILD_MS) {
            fprintf(stderr, "simctl study: child %d did not stop within %d s of SIGTERM: killed\n", (int)*pid,
                    STOP_CHILD_MS / 1000);
            kill(*pid, SIGKILL);
            waitpid(*pid, NULL, 0);
            break;
        }
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    *pid = 0;
}

int study_cmd_run(int argc, char **argv)
{
    runner r = {.bus_addr = SIMCTL_DEFAULT_BUS, .control = SIMCTL_DEFAULT_CONTROL};
    const char *out = NULL;
    session_opts_init(&r.so);
    sim_opt opts[6 + SESSION_OPTS_N] = {
        {"participant", SIM_OPT_STRING, &r.id, "ID", "whose drives (required)"},
        {"headless", SIM_OPT_FLAG, &r.headless, NULL, "headless sessions; questionnaires recorded as not asked"},
        {"out", SIM_OPT_STRING, &out, "DIR", "the study's folder (default out/studies/<study>/)"},
        {"bus", SIM_OPT_STRING, &r.bus_addr, "HOST:PORT", "bus address of the sessions (default 127.0.0.1:7700)"},
        {"control", SIM_OPT_STRING, &r.control, "URL", "control endpoint (default tcp://127.0.0.1:7701)"},
        {"token", SIM_OPT_STRING, &r.token, "TOKEN", "token for the bus"},
    };
    /* the lab's options, as simctl run takes them; over the study file's "session" */
    session_opts_rows(&r.so, opts + 6);
    session_opts_console_default(argc, argv);
    int npos = 0;
    int rc = sim_cli_parse("simctl study run FILE --participant ID [--headless] [--out DIR] [session options]",
                           "Runs a participant's drives in the study's order, with the questionnaires between "
                           "them; running it again continues with the first drive not completed.",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos != 1 || !r.id) {
        fprintf(stderr, "simctl study run: expected FILE and --participant ID\n");
        return 2;
    }
    /* The token reaches each drive's simctl run and dispatcher through the environment,
     * never their command lines (which ps shows to every user). */
    if (r.token && r.token[0]) setenv("SIM_BUS_TOKEN", r.token, 1);
    sim_error err = {0};
    if (sim_bus_parse_endpoint(r.bus_addr, r.host, sizeof r.host, &r.port, &err) != SIM_OK) {
        fprintf(stderr, "simctl study run: --bus %s\n", err.msg);
        return 2;
    }
    static run_screens screens; /* checked here once, not by every drive's simctl run */
    if (session_opts_check(&r.so, NULL, &screens, &err)) {
        fprintf(stderr, "simctl study run: %s\n", err.msg);
        return 2;
    }
    study_ctx c;
    if (study_load(argv[1], out, &c)) return 1;
    r.c = &c;
    if (study_session_opts(&c, &r.so)) {
        study_close(&c);
        return 1;
    }
    if ((r.p = study_participant(&c, r.id)) < 0 || study_open_db(&c)) {
        study_close(&c);
        return 1;
    }
    sim_study_plan(c.s, r.p, &r.plan);
    char utc[40];
    study_utc_now(utc, sizeof utc);
    int aborted = 0;
    /* One runner per participant (issue 45): two at once ran 6 complete attempts for 3
     * planned drives and marked a running one aborted. Before anything is written. */
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (sim_studydb_runner_lock(c.db, r.id, (int64_t)getpid(), host, utc, runner_alive, &err)) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        study_close(&c);
        return 1;
    }
    rc = sim_studydb_add_participant(c.db, r.id, study_group(&c, r.p), &err);
    for (int i = 0; !rc && i < r.plan.n; i++) {
        char scen[PATH_MAX * 2], veh[PATH_MAX * 2];
        const sim_study_condition *cond = &c.s->conditions[r.plan.drives[i].condition];
        study_condition_paths(&c, r.plan.drives[i].condition, scen, sizeof scen, veh, sizeof veh);
        rc = sim_studydb_plan_drive(c.db, r.id, r.plan.drives[i].position, cond->name,
                                    sim_drive_kind_name(r.plan.drives[i].kind), cond->scenario, cond->start, &err);
    }
    if (!rc) {
        int linked = link_dead_attempts(&r, "the runner stopped during the drive", utc);
        rc = sim_studydb_abort_running(c.db, r.id, "the runner stopped during the drive", utc, &aborted, &err);
        aborted += linked;
    }
    if (rc) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        sim_studydb_runner_unlock(c.db, r.id, (int64_t)getpid(), NULL);
        study_close(&c);
        return 1;
    }
    if (aborted) fprintf(stderr, "simctl study: %s: %d unfinished attempt(s) from an earlier run recorded as aborted\n",
                         r.id, aborted);
    r.loop = uv_default_loop();
    uv_timer_init(r.loop, &r.tick);
    r.tick.data = &r;
    uv_signal_init(r.loop, &r.sigint);
    uv_signal_init(r.loop, &r.sigterm);
    r.sigint.data = r.sigterm.data = &r;
    uv_signal_start(&r.sigint, on_signal, SIGINT);
    uv_signal_start(&r.sigterm, on_signal, SIGTERM);
    uv_unref((uv_handle_t *)&r.sigint);
    uv_unref((uv_handle_t *)&r.sigterm);
    start_console(&r);
    start_screen(&r);
    int status = 0;
    bool gated = false; /* the operator's go for the next drive was given */
    for (r.cur = 0; r.cur < r.plan.n && !status && !r.interrupted; r.cur++) {
        if (!drive_done(&r, r.cur)) {
            /* The day's first drive (of this run) waits for the participant. */
            if (!gated) status = run_break(&r, NULL, 0, "waiting", r.cur);
            if (!status && !r.interrupted) status = run_drive(&r);
        }
        if (!status && !r.interrupted) status = pending_questionnaires(&r, r.cur == r.plan.n - 1, &gated);
    }
    if (!status && !r.interrupted) {
        fprintf(stderr, "simctl study: %s: all %d drives done (%s)\n", r.id, r.plan.n, c.out);
        if (!r.headless && c.s->end_text[0]) fprintf(stderr, "%s\n", c.s->end_text);
        r.cur = r.plan.n - 1;
        run_break(&r, NULL, 0, "done", r.cur);
    }
    stop_child(&r.screen);
    stop_child(&r.console);
    uv_close((uv_handle_t *)&r.tick, NULL);
    uv_close((uv_handle_t *)&r.sigint, NULL);
    uv_close((uv_handle_t *)&r.sigterm, NULL);
    uv_run(r.loop, UV_RUN_DEFAULT);
    sim_studydb_runner_unlock(c.db, r.id, (int64_t)getpid(), NULL);
    study_close(&c);
    return r.interrupted ? 130 : status;
}
