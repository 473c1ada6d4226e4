/* simctl study: a study file's plan, check and status, and the operator's flags and
 * notes (docs/study.md); `run`, `answer` and `rebuild` live in study_*.c. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_world.h"
#include "sim_cli.h"
#include "sim_file.h"
#include "sim_vehicle_file.h"
#include "simctl.h"
#include "session_opts.h"
#include "study.h"
#include "sim_csv.h"

/* The name of the start point a condition's drive begins at ("" when unreadable). */
static void start_name(const study_ctx *c, int k, char *out, size_t size)
{
    out[0] = '\0';
    if (c->s->conditions[k].start[0]) {
        snprintf(out, size, "%s", c->s->conditions[k].start);
        return;
    }
    sim_error err;
    char *text = study_condition_scenario(c, k, &err);
    cJSON *sc = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sc, "start_points"), 0);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(first, "name");
    if (cJSON_IsString(name)) snprintf(out, size, "%s", name->valuestring);
    cJSON_Delete(sc);
}

/* CSV cell (sim_csv: quoted when it holds a comma, quote or line break). */
static void cell(const char *s, bool last)
{
    sim_csv_field(stdout, s);
    putchar(last ? '\n' : ',');
}

static int cmd_plan(study_ctx *c)
{
    char starts[SIM_STUDY_CONDITIONS_MAX][SIM_STUDY_NAME_MAX];
    for (int k = 0; k < c->s->n_conditions; k++) start_name(c, k, starts[k], sizeof starts[k]);
    printf("participant,position,condition,scenario,start,kind,group\n");
    for (int p = 0; p < c->s->n_participants; p++) {
        sim_plan plan;
        sim_study_plan(c->s, p, &plan);
        for (int i = 0; i < plan.n; i++) {
            const sim_study_condition *cond = &c->s->conditions[plan.drives[i].condition];
            char pos[16];
            snprintf(pos, sizeof pos, "%d", plan.drives[i].position);
            cell(c->s->participants[p], false);
            cell(pos, false);
            cell(cond->name, false);
            cell(cond->scenario, false);
            cell(starts[plan.drives[i].condition], false);
            cell(sim_drive_kind_name(plan.drives[i].kind), false);
            cell(study_group(c, p), true);
        }
    }
    return 0;
}

static int cmd_check(study_ctx *c)
{
    int bad = 0;
    session_opts so; /* the "session" section: its screens file is read too */
    session_opts_init(&so);
    if (study_session_opts(c, &so)) bad++;
    for (int k = 0; k < c->s->n_conditions; k++) {
        const sim_study_condition *cond = &c->s->conditions[k];
        char path[PATH_MAX * 2], vehicle[PATH_MAX * 2], label[PATH_MAX * 2 + 200];
        study_condition_paths(c, k, path, sizeof path, vehicle, sizeof vehicle);
        snprintf(label, sizeof label, "%s (conditions[%d] %s)", path, k, cond->name);
        sim_error err = {0};
        char *text = study_condition_scenario(c, k, &err);
        if (!text) {
            fprintf(stderr, "%s: %s\n", c->file, err.msg);
            bad++;
            continue;
        }
        /* Loaded as the drive loads its copy: from a folder under the study's output,
         * so a file name the rewrite left relative is found missing here. */
        sim_diag d = {0};
        sim_scenario *sc = NULL;
        char dir[PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s/drives", c->out);
        int rc = sim_scenario_parse(text, strlen(text), label, dir, &sc, &d);
        free(text);
        if (rc == 0 && sc->n_starts == 0) {
            sim_diag_add(&d, "%s: start_points: none, expected at least one (a session starts the car there)", label);
            rc = SIM_EINVAL;
        }
        /* SUMO reads its files only when the drive starts: here they must exist already. */
        for (int i = -1; rc == 0 && i < sc->sumo.n_routes; i++) {
            const char *f = i < 0 ? sc->sumo.net : sc->sumo.routes[i];
            if (f && access(f, R_OK) != 0) {
                sim_diag_add(&d, "%s: traffic.sumo.%s: found \"%s\", expected a readable file (%s)", label,
                             i < 0 ? "net" : "routes", f, strerror(errno));
                rc = SIM_ENOTFOUND;
            }
        }
        if (rc) {
            simctl_print_diag(&d);
            bad++;
        }
        sim_diag_free(&d);
        sim_scenario_free(sc);
        sim_vehicle_params vp;
        if (sim_vehicle_params_load(vehicle, &vp, &err) != SIM_OK) {
            fprintf(stderr, "%s: conditions[%d].vehicle: %s\n", c->file, k, err.msg);
            bad++;
        }
        if (cond->params.custom_json[0])
            printf("%s: conditions[%d].params.custom: given to clients outside the platform on study.state; "
                   "no module of the platform acts on it\n", c->file, k);
    }
    if (bad) {
        printf("%s: %d error(s)\n", c->file, bad);
        return 1;
    }
    /* Balance holds over whole sets of the design's orders. */
    int n = c->s->n_within, rows = c->s->design == SIM_DESIGN_EXPLICIT ? c->s->n_orders
                                   : c->s->design == SIM_DESIGN_WILLIAMS && n % 2 && n > 1 ? 2 * n
                                   : c->s->design == SIM_DESIGN_RANDOM ? 0 : n;
    if (rows > 1 && c->s->n_participants % rows)
        printf("%s: note: %d participants take the design's %d orders unequally often; balance needs a multiple of %d\n",
               c->file, c->s->n_participants, rows, rows);
    sim_plan plan;
    sim_study_plan(c->s, 0, &plan);
    printf("%s: ok (%d conditions, %d participants, %s, %d drives each)\n", c->file, c->s->n_conditions,
           c->s->n_participants, sim_design_names[c->s->design], plan.n);
    return 0;
}

static int64_t count(sqlite3 *db, const char *sql, const char *p)
{
    sqlite3_stmt *st;
    int64_t v = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, p, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Whether the participant's drive at position has a complete attempt whose log is
 * closed (a log without end_utc may lack its tail: docs/drivelog.md). Each complete
 * attempt whose log is not closed or is gone is listed in *notes (appended; NUL-
 * terminated), so that the operator reruns or flags the drive. */
static bool complete_and_closed(sqlite3 *db, const char *id, int position, char *notes, size_t size)
{
    sqlite3_stmt *st;
    bool ok = false;
    if (sqlite3_prepare_v2(db, "SELECT attempt, log_path FROM attempts WHERE participant = ? AND position = ? "
                               "AND status = 'complete' ORDER BY attempt", -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, position);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *log = (const char *)sqlite3_column_text(st, 1);
        study_log_state ls = log ? study_log_closed(log) : STUDY_LOG_MISSING;
        /* (a CSV folder has no end_utc to look for: taken as it is) */
        if (ls == STUDY_LOG_CLOSED || ls == STUDY_LOG_UNREAD) {
            ok = true;
            continue;
        }
        size_t used = strlen(notes);
        snprintf(notes + used, size - used, "  %s drive %d attempt %d: %s: %s; not counted as done\n", id, position,
                 sqlite3_column_int(st, 0),
                 ls == STUDY_LOG_NOT_CLOSED ? "log not closed (no end_utc: its end may be lost)" : "log missing",
                 log ? log : "(none)");
    }
    sqlite3_finalize(st);
    return ok;
}

static int cmd_status(study_ctx *c)
{
    char notes[8192] = "";
    if (study_open_db(c)) return 1;
    sqlite3 *db = sim_studydb_sqlite(c->db);
    printf("study %s (%s)\n%-12s %-10s %-6s %-8s %-8s %-10s %s\n", c->s->name, c->out, "participant", "group", "done",
           "aborted", "flagged", "answered", "next");
    for (int p = 0; p < c->s->n_participants; p++) {
        const char *id = c->s->participants[p];
        sim_plan plan;
        sim_study_plan(c->s, p, &plan);
        int done = 0;
        char next[128] = "-";
        for (int i = 0; i < plan.n; i++) {
            int n2 = 0;
            bool n1 = complete_and_closed(db, id, plan.drives[i].position, notes, sizeof notes);
            sim_studydb_count(c->db, id, plan.drives[i].position, SIM_ATTEMPT_FLAGGED, &n2, NULL);
            if (n1 || n2) done++;
            else if (!strcmp(next, "-"))
                snprintf(next, sizeof next, "drive %d (%s)", plan.drives[i].position,
                         c->s->conditions[plan.drives[i].condition].name);
        }
        char d[32], a[24];
        snprintf(d, sizeof d, "%d/%d", done, plan.n);
        snprintf(a, sizeof a, "%lld",
                 (long long)count(db, "SELECT COUNT(DISTINCT position || '/' || questionnaire) FROM answers WHERE participant = ? AND status = 'answered'", id));
        printf("%-12s %-10s %-6s %-8lld %-8lld %-10s %s\n", id, study_group(c, p)[0] ? study_group(c, p) : "-", d,
               (long long)count(db, "SELECT COUNT(*) FROM attempts WHERE participant = ? AND status = 'aborted'", id),
               (long long)count(db, "SELECT COUNT(*) FROM attempts WHERE participant = ? AND status = 'flagged'", id), a,
               next);
    }
    if (notes[0]) printf("attempts marked complete whose log is not:\n%s", notes);
    return 0;
}

static int cmd_flag_or_note(study_ctx *c, bool flag, const char *participant, int position, const char *text)
{
    if (study_participant(c, participant) < 0) return 1;
    if (!text || !text[0]) {
        fprintf(stderr, "simctl study: %s needs a text (--reason or the note)\n", flag ? "flag" : "note");
        return 2;
    }
    if (study_open_db(c)) return 1;
    char utc[40];
    study_utc_now(utc, sizeof utc);
    sim_error err = {0};
    int rc = flag ? sim_studydb_flag(c->db, participant, position, text, &err)
                  : sim_studydb_note(c->db, participant, position, utc, text, &err);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", flag ? "flag" : "note");
    cJSON_AddStringToObject(e, "participant", participant);
    cJSON_AddNumberToObject(e, "position", position);
    cJSON_AddStringToObject(e, "text", text);
    cJSON_AddStringToObject(e, "utc", utc);
    if (!rc) rc = study_journal(c, e, &err);
    cJSON_Delete(e);
    if (rc) {
        fprintf(stderr, "simctl study: %s\n", err.msg);
        return 1;
    }
    printf("%s: %s %s at position %d\n", c->s->name, flag ? "flagged" : "noted", participant, position);
    return 0;
}

int simctl_cmd_study(int argc, char **argv)
{
    static const char usage[] =
        "simctl study plan|check|status|run|answer|go|flag|note|rebuild FILE [options]\n"
        "  plan FILE                         every participant's drives as CSV\n"
        "  check FILE                        the study file and every scenario and vehicle it names\n"
        "  status FILE [--out DIR]           who has done what\n"
        "  run FILE --participant ID [--headless] [--out DIR]   run a participant's drives (resumable)\n"
        "  answer FILE --participant ID ITEM=VALUE...           answer the pending questionnaire\n"
        "  go FILE --participant ID          the operator's go: the next drive starts\n"
        "  flag FILE --participant ID --position K --reason TEXT  flag a completed drive\n"
        "  note FILE --participant ID [--position K] TEXT        an operator's note\n"
        "  rebuild FILE [--out DIR]          the study database anew from the drive logs and the journal\n";
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "run")) return study_cmd_run(argc - 1, argv + 1);
    if (!strcmp(sub, "answer")) return study_cmd_answer(argc - 1, argv + 1);
    if (!strcmp(sub, "go")) return study_cmd_go(argc - 1, argv + 1);
    if (!strcmp(sub, "rebuild")) return study_cmd_rebuild(argc - 1, argv + 1);
    if (strcmp(sub, "plan") && strcmp(sub, "check") && strcmp(sub, "status") && strcmp(sub, "flag") &&
        strcmp(sub, "note")) {
        fprintf(stderr, "simctl study: unknown subcommand '%s'\n\n%s", sub, usage);
        return 2;
    }
    const char *out = NULL, *participant = NULL, *reason = NULL;
    int position = 0;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "DIR", "the study's output folder (default out/studies/<study>/)"},
        {"participant", SIM_OPT_STRING, &participant, "ID", "flag, note: the participant"},
        {"position", SIM_OPT_INT, &position, "K", "flag, note: the drive's position in their plan"},
        {"reason", SIM_OPT_STRING, &reason, "TEXT", "flag: why"},
    };
    int npos = 0;
    int rc = sim_cli_parse(usage, NULL, opts, sizeof opts / sizeof opts[0], argc - 1, argv + 1, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    bool note = !strcmp(sub, "note");
    if (npos != (note ? 2 : 1)) {
        fprintf(stderr, "simctl study %s: expected FILE%s\n", sub, note ? " and the note's TEXT" : "");
        return 2;
    }
    study_ctx c;
    if (study_load(argv[2], out, &c)) return 1;
    int status;
    if (!strcmp(sub, "plan")) status = cmd_plan(&c);
    else if (!strcmp(sub, "check")) status = cmd_check(&c);
    else if (!strcmp(sub, "status")) status = cmd_status(&c);
    else if (!strcmp(sub, "flag")) status = cmd_flag_or_note(&c, true, participant, position, reason);
    else status = cmd_flag_or_note(&c, false, participant, position, argv[3]);
    study_close(&c);
    return status;
}
