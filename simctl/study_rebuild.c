/* simctl study rebuild: the study database made anew from what it caches (docs/study.md,
 * "Rebuilding"): the journal (answers.jsonl: every attempt's begin and end, answers,
 * flags, notes, each synced as it happened) and the drive logs under drives/ (their
 * meta says study, participant, position and attempt). An attempt the journal began
 * but never ended is aborted; a log the journal does not know is added from its meta;
 * a log whose SHA-256 differs from the journal's is reported. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim_cli.h"
#include "sim_drivelog.h"
#include "sim_enum.h"
#include "sim_file.h"
#include "sim_sha256.h"
#include "study.h"

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
static int num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valueint : 0;
}

static int64_t attempt_row(sim_studydb *db, const char *p, int position, int attempt)
{
    sqlite3_stmt *st;
    int64_t id = -1;
    sqlite3_prepare_v2(sim_studydb_sqlite(db), "SELECT id FROM attempts WHERE participant = ? AND position = ? AND attempt = ?",
                       -1, &st, NULL);
    sqlite3_bind_text(st, 1, p, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, position);
    sqlite3_bind_int(st, 3, attempt);
    if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

static int replay(study_ctx *c, const cJSON *e, int line, sim_error *err)
{
    const char *type = str(e, "type"), *p = str(e, "participant");
    int pos = num(e, "position");
    if (!type || !p) return sim_error_set(err, SIM_EINVAL, "%s line %d: expected \"type\" and \"participant\"", STUDY_JOURNAL, line);
    const char *utc = str(e, "utc") ? str(e, "utc") : "";
    if (!strcmp(type, "begin")) {
        int64_t id;
        int attempt;
        const char *sha = str(e, "study_sha256");
        int rc = sim_studydb_attempt_begin(c->db, p, pos, str(e, "condition") ? str(e, "condition") : "", utc, "",
                                           sha ? sha : "", &id, &attempt, err);
        if (!rc && attempt != num(e, "attempt"))
            fprintf(stderr, "simctl study rebuild: %s line %d: attempt %d of %s drive %d recorded as %d\n", STUDY_JOURNAL,
                    line, num(e, "attempt"), p, pos, attempt);
        return rc;
    }
    if (!strcmp(type, "end")) {
        int64_t id = attempt_row(c->db, p, pos, num(e, "attempt"));
        int st = sim_enum_parse(str(e, "status"), sim_attempt_status_names, -1);
        if (id < 0 || st < 0) return sim_error_set(err, SIM_EINVAL, "%s line %d: an end without its begin", STUDY_JOURNAL, line);
        return sim_studydb_attempt_end(c->db, id, st, utc, str(e, "log"), str(e, "sha256"), str(e, "reason"), err);
    }
    if (!strcmp(type, "answers")) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "answers");
        const char *items[64], *texts[64];
        double values[64];
        int n = 0;
        for (const cJSON *v = a ? a->child : NULL; v && n < 64; v = v->next, n++) {
            items[n] = v->string;
            texts[n] = cJSON_IsString(v) ? v->valuestring : NULL;
            values[n] = cJSON_IsNumber(v) ? v->valuedouble : NAN; /* null: skipped */
        }
        const char *q = str(e, "questionnaire"), *status = str(e, "status");
        return sim_studydb_answers(c->db, p, pos, q ? q : "", status ? status : "answered", n, items, values, texts, utc,
                                   str(e, "source") ? str(e, "source") : "", err);
    }
    if (!strcmp(type, "flag")) return sim_studydb_flag(c->db, p, pos, str(e, "text") ? str(e, "text") : "", err);
    if (!strcmp(type, "note")) return sim_studydb_note(c->db, p, pos, utc, str(e, "text") ? str(e, "text") : "", err);
    return sim_error_set(err, SIM_EINVAL, "%s line %d: unknown type '%s'", STUDY_JOURNAL, line, type);
}

/* Every drive log under out/drives/<drive>/logs/<study>/. */
static int scan_logs(study_ctx *c, int *added, int *mismatched)
{
    char drives[PATH_MAX + 16];
    snprintf(drives, sizeof drives, "%s/drives", c->out);
    DIR *d = opendir(drives);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char logs[PATH_MAX * 2];
        snprintf(logs, sizeof logs, "%s/%s/logs/%s", drives, e->d_name, c->s->name);
        DIR *l = opendir(logs);
        struct dirent *f;
        while (l && (f = readdir(l))) {
            size_t n = strlen(f->d_name);
            if (n < 8 || strcmp(f->d_name + n - 7, ".sqlite")) continue;
            char path[PATH_MAX * 3];
            snprintf(path, sizeof path, "%s/%s", logs, f->d_name);
            sim_drivelog_reader *rd;
            sim_error err = {0};
            if (sim_drivelog_reader_open(path, &rd, &err) != SIM_OK) {
                fprintf(stderr, "simctl study rebuild: %s\n", err.msg);
                continue;
            }
            char p[64] = "", pos[16] = "", att[16] = "", cond[64] = "", end[40] = "", start[40] = "", ssha[65] = "";
            sim_drivelog_read_meta(rd, "participant", p, sizeof p, NULL);
            sim_drivelog_read_meta(rd, "position", pos, sizeof pos, NULL);
            sim_drivelog_read_meta(rd, "attempt", att, sizeof att, NULL);
            sim_drivelog_read_meta(rd, "condition", cond, sizeof cond, NULL);
            sim_drivelog_read_meta(rd, "end_utc", end, sizeof end, NULL);
            sim_drivelog_read_meta(rd, "start_utc", start, sizeof start, NULL);
            sim_drivelog_read_meta(rd, "study_sha256", ssha, sizeof ssha, NULL);
            sim_drivelog_reader_close(rd);
            char sha[65];
            if (!p[0] || !pos[0] || sim_sha256_file(path, sha, &err) != SIM_OK) continue;
            int64_t id = attempt_row(c->db, p, atoi(pos), atoi(att));
            if (id >= 0) {
                sqlite3_stmt *st;
                sqlite3_prepare_v2(sim_studydb_sqlite(c->db), "SELECT COALESCE(log_sha256, '') FROM attempts WHERE id = ?", -1, &st, NULL);
                sqlite3_bind_int64(st, 1, id);
                if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)[0] &&
                    strcmp((const char *)sqlite3_column_text(st, 0), sha)) {
                    fprintf(stderr, "simctl study rebuild: %s: SHA-256 differs from the journal's: changed after the drive\n", path);
                    (*mismatched)++;
                }
                sqlite3_finalize(st);
                continue;
            }
            /* Not in the journal: the log's own meta says what it was. */
            int attempt;
            if (sim_studydb_attempt_begin(c->db, p, atoi(pos), cond, start, "", ssha, &id, &attempt, &err) ||
                sim_studydb_attempt_end(c->db, id, end[0] ? SIM_ATTEMPT_COMPLETE : SIM_ATTEMPT_ABORTED, end, path, sha,
                                        "rebuilt from the drive log alone", &err)) {
                fprintf(stderr, "simctl study rebuild: %s\n", err.msg);
                continue;
            }
            (*added)++;
        }
        if (l) closedir(l);
    }
    if (d) closedir(d);
    return 0;
}

int study_cmd_rebuild(int argc, char **argv)
{
    const char *out = NULL;
    sim_opt opts[] = {{"out", SIM_OPT_STRING, &out, "DIR", "the study's folder (default out/studies/<study>/)"}};
    int npos = 0;
    int rc = sim_cli_parse("simctl study rebuild FILE [--out DIR]",
                           "Makes the study database anew from the journal (answers.jsonl) and the drive logs; "
                           "an existing study.db is kept as study.db.old.", opts, 1, argc, argv, 1, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc != SIM_CLI_OK) return 2;
    if (npos != 1) {
        fprintf(stderr, "simctl study rebuild: expected FILE\n");
        return 2;
    }
    study_ctx c;
    if (study_load(argv[1], out, &c)) return 1;
    char db[PATH_MAX + 16], old[PATH_MAX + 32], journal[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/%s", c.out, STUDY_DB);
    snprintf(old, sizeof old, "%s/%s.old", c.out, STUDY_DB);
    snprintf(journal, sizeof journal, "%s/%s", c.out, STUDY_JOURNAL);
    char *text = NULL;
    size_t len;
    sim_error err = {0};
    if (sim_file_read(journal, &text, &len, &err) != SIM_OK) {
        fprintf(stderr, "simctl study rebuild: %s\n", err.msg);
        study_close(&c);
        return 1;
    }
    /* The old database (and its WAL) out of the way, never deleted. */
    rename(db, old);
    char wal[PATH_MAX + 32];
    snprintf(wal, sizeof wal, "%s-wal", db);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", db);
    unlink(wal);
    if (study_open_db(&c)) {
        free(text);
        study_close(&c);
        return 1;
    }
    for (int p = 0; p < c.s->n_participants; p++) sim_studydb_add_participant(c.db, c.s->participants[p], study_group(&c, p), NULL);
    int line = 0, entries = 0, status = 0;
    for (char *s = text, *nl; s && *s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl) *nl = '\0';
        line++;
        if (!*s) continue;
        cJSON *e = cJSON_Parse(s);
        if (!e || replay(&c, e, line, &err)) {
            /* A torn last line (a crash mid-write) is the only expected damage. */
            fprintf(stderr, "simctl study rebuild: %s line %d: %s\n", journal, line, e ? err.msg : "not JSON, skipped");
            if (e) status = 1;
        } else {
            entries++;
        }
        cJSON_Delete(e);
    }
    free(text);
    char utc[40];
    study_utc_now(utc, sizeof utc);
    int aborted = 0, added = 0, mismatched = 0;
    for (int p = 0; p < c.s->n_participants; p++) {
        int n = 0;
        sim_studydb_abort_running(c.db, c.s->participants[p], "the runner stopped during the drive", utc, &n, NULL);
        aborted += n;
        sim_plan plan;
        sim_study_plan(c.s, p, &plan);
        for (int i = 0; i < plan.n; i++) {
            const sim_study_condition *cond = &c.s->conditions[plan.drives[i].condition];
            sim_studydb_plan_drive(c.db, c.s->participants[p], plan.drives[i].position, cond->name,
                                   sim_drive_kind_name(plan.drives[i].kind), cond->scenario, cond->start, NULL);
        }
    }
    scan_logs(&c, &added, &mismatched);
    printf("%s: rebuilt from %d journal entries and the drive logs (%d unfinished attempts aborted, %d logs added "
           "from their meta, %d changed logs)\n", db, entries, aborted, added, mismatched);
    study_close(&c);
    return status || mismatched ? 1 : 0;
}
