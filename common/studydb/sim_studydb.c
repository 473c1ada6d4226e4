/* sim_studydb: the study database (see sim_studydb.h). Every write is one
 * transaction; WAL with synchronous=FULL makes each commit durable when it returns,
 * which is what lets the runner acknowledge an answer only after this returns. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sim_studydb.h"

struct sim_studydb {
    sqlite3 *db;
    char path[1024];
};

const char *const sim_attempt_status_names[] = {"running", "complete", "aborted", "flagged", NULL};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS participants(id TEXT PRIMARY KEY, grp TEXT NOT NULL DEFAULT '');"
    "CREATE TABLE IF NOT EXISTS planned(participant TEXT NOT NULL, position INTEGER NOT NULL,"
    " condition TEXT NOT NULL, kind TEXT NOT NULL, scenario TEXT NOT NULL, start TEXT NOT NULL,"
    " PRIMARY KEY(participant, position));"
    "CREATE TABLE IF NOT EXISTS attempts(id INTEGER PRIMARY KEY, participant TEXT NOT NULL,"
    " position INTEGER NOT NULL, condition TEXT NOT NULL, attempt INTEGER NOT NULL,"
    " status TEXT NOT NULL CHECK(status IN ('running','complete','aborted','flagged')),"
    " started_utc TEXT NOT NULL, ended_utc TEXT, log_path TEXT, log_sha256 TEXT,"
    " reason TEXT NOT NULL DEFAULT '', software_version TEXT NOT NULL, study_sha256 TEXT NOT NULL,"
    " UNIQUE(participant, position, attempt));"
    "CREATE TABLE IF NOT EXISTS answers(id INTEGER PRIMARY KEY, participant TEXT NOT NULL,"
    " position INTEGER NOT NULL, questionnaire TEXT NOT NULL,"
    " status TEXT NOT NULL CHECK(status IN ('answered','not_asked')), item TEXT, value REAL, text TEXT,"
    " answered_utc TEXT NOT NULL, source TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS answers_by_drive ON answers(participant, position, questionnaire);"
    /* one runner per participant (sim_studydb_runner_lock) */
    "CREATE TABLE IF NOT EXISTS runners(participant TEXT PRIMARY KEY, pid INTEGER NOT NULL,"
    " host TEXT NOT NULL, since_utc TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, participant TEXT NOT NULL,"
    " position INTEGER NOT NULL, utc TEXT NOT NULL, text TEXT NOT NULL);"
    /* The actual order: completed drives in the order they ended. */
    "CREATE VIEW IF NOT EXISTS actual_order AS SELECT participant, ROW_NUMBER() OVER"
    " (PARTITION BY participant ORDER BY ended_utc, id) AS seq, position, condition, status"
    " FROM attempts WHERE status IN ('complete','flagged');";

static int fail(sim_studydb *db, sim_error *err, const char *what)
{
    return sim_error_set(err, SIM_EIO, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

int sim_studydb_open(const char *path, sim_studydb **out, sim_error *err)
{
    *out = NULL;
    sim_studydb *db = calloc(1, sizeof *db);
    if (!db) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    snprintf(db->path, sizeof db->path, "%s", path);
    if (sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        int rc = fail(db, err, "cannot open the study database");
        sqlite3_close(db->db);
        free(db);
        return rc;
    }
    sqlite3_busy_timeout(db->db, 5000);
    /* FULL in WAL mode syncs the log on every commit: durable, not merely consistent. */
    if (sqlite3_exec(db->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;", NULL,
                     NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
        int rc = fail(db, err, "cannot set up the study database");
        sim_studydb_close(db);
        return rc;
    }
    *out = db;
    return SIM_OK;
}

void sim_studydb_close(sim_studydb *db)
{
    if (!db) return;
    sqlite3_close(db->db);
    free(db);
}

struct sqlite3 *sim_studydb_sqlite(sim_studydb *db) { return db->db; }

/* Runs sql with text (s), integer (i), double (d) or NULL-able text (S) arguments as
 * described by types; the first row's first integer into *row_int when given. */
static int run(sim_studydb *db, sim_error *err, const char *sql, const char *types, int64_t *row_int, ...)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK) return fail(db, err, "prepare");
    va_list ap;
    va_start(ap, row_int);
    for (int i = 0; types[i]; i++) {
        switch (types[i]) {
        case 's': sqlite3_bind_text(st, i + 1, va_arg(ap, const char *), -1, SQLITE_TRANSIENT); break;
        case 'S': {
            const char *v = va_arg(ap, const char *);
            if (v) sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT);
            else sqlite3_bind_null(st, i + 1);
            break;
        }
        case 'i': sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t)); break;
        case 'd': {
            /* NAN is a missing value (a skipped item): NULL, never a number. */
            double v = va_arg(ap, double);
            if (isnan(v)) sqlite3_bind_null(st, i + 1);
            else sqlite3_bind_double(st, i + 1, v);
            break;
        }
        }
    }
    va_end(ap);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && row_int) *row_int = sqlite3_column_int64(st, 0);
    else if (row_int) *row_int = -1;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return fail(db, err, sql);
    return SIM_OK;
}
#define RUN(...) run(db, err, __VA_ARGS__)

int sim_studydb_set_meta(sim_studydb *db, const char *key, const char *value, sim_error *err)
{
    return RUN("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", "ss", NULL, key, value);
}

int sim_studydb_get_meta(sim_studydb *db, const char *key, char *value, size_t size, sim_error *err)
{
    sqlite3_stmt *st = NULL;
    value[0] = '\0';
    if (sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return fail(db, err, "read meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) snprintf(value, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return SIM_OK;
}

int sim_studydb_add_participant(sim_studydb *db, const char *id, const char *group, sim_error *err)
{
    return RUN("INSERT INTO participants(id, grp) VALUES(?, ?) ON CONFLICT(id) DO UPDATE SET grp = excluded.grp",
               "ss", NULL, id, group ? group : "");
}

int sim_studydb_plan_drive(sim_studydb *db, const char *participant, int position, const char *condition,
                           const char *kind, const char *scenario, const char *start, sim_error *err)
{
    return RUN("INSERT OR REPLACE INTO planned VALUES(?, ?, ?, ?, ?, ?)", "sissss", NULL, participant,
               (int64_t)position, condition, kind, scenario, start);
}

int sim_studydb_attempt_begin(sim_studydb *db, const char *participant, int position, const char *condition,
                              const char *started_utc, const char *software_version,
                              const char *study_sha256, int64_t *id, int *attempt, sim_error *err)
{
    int64_t n;
    int rc = RUN("SELECT COALESCE(MAX(attempt), 0) + 1 FROM attempts WHERE participant = ? AND position = ?", "si",
                 &n, participant, (int64_t)position);
    if (rc) return rc;
    *attempt = (int)n;
    rc = RUN("INSERT INTO attempts(participant, position, condition, attempt, status, started_utc,"
             " software_version, study_sha256) VALUES(?, ?, ?, ?, 'running', ?, ?, ?) RETURNING id",
             "sisisss", id, participant, (int64_t)position, condition, n, started_utc, software_version,
             study_sha256);
    return rc;
}

int sim_studydb_attempt_end(sim_studydb *db, int64_t id, sim_attempt_status status, const char *ended_utc,
                            const char *log, const char *sha256, const char *reason, sim_error *err)
{
    return RUN("UPDATE attempts SET status = ?, ended_utc = ?, log_path = COALESCE(?, log_path),"
               " log_sha256 = COALESCE(?, log_sha256), reason = ? WHERE id = ?",
               "ssSSsi", NULL, sim_attempt_status_names[status], ended_utc, log, sha256, reason ? reason : "", id);
}

int sim_studydb_abort_running(sim_studydb *db, const char *participant, const char *reason,
                              const char *utc, int *n, sim_error *err)
{
    int rc = RUN("UPDATE attempts SET status = 'aborted', ended_utc = ?, reason = ?"
                 " WHERE participant = ? AND status = 'running'",
                 "sss", NULL, utc, reason, participant);
    if (n) *n = rc ? 0 : sqlite3_changes(db->db);
    return rc;
}

int sim_studydb_flag(sim_studydb *db, const char *participant, int position, const char *reason, sim_error *err)
{
    int rc = RUN("UPDATE attempts SET status = 'flagged', reason = ? WHERE participant = ? AND position = ?"
                 " AND status = 'complete'",
                 "ssi", NULL, reason, participant, (int64_t)position);
    if (!rc && sqlite3_changes(db->db) == 0)
        return sim_error_set(err, SIM_ENOTFOUND, "%s: %s has no completed drive at position %d", db->path,
                             participant, position);
    return rc;
}

int sim_studydb_count(sim_studydb *db, const char *participant, int position, sim_attempt_status st, int *n,
                      sim_error *err)
{
    int64_t v;
    int rc = RUN("SELECT COUNT(*) FROM attempts WHERE participant = ? AND position = ? AND status = ?", "sis", &v,
                 participant, (int64_t)position, sim_attempt_status_names[st]);
    *n = rc ? 0 : (int)v;
    return rc;
}

int sim_studydb_answers(sim_studydb *db, const char *participant, int position, const char *questionnaire,
                        const char *status, int n, const char *const *items, const double *value,
                        const char *const *text, const char *utc, const char *source, sim_error *err)
{
    if (sqlite3_exec(db->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return fail(db, err, "begin");
    /* Answering again replaces the earlier answers of that questionnaire. */
    int rc = RUN("DELETE FROM answers WHERE participant = ? AND position = ? AND questionnaire = ?", "sis", NULL,
                 participant, (int64_t)position, questionnaire);
    const char *ins = "INSERT INTO answers(participant, position, questionnaire, status, item, value, text,"
                      " answered_utc, source) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)";
    if (!rc && n == 0)
        rc = RUN("INSERT INTO answers(participant, position, questionnaire, status, answered_utc, source)"
                 " VALUES(?, ?, ?, ?, ?, ?)",
                 "sisss" "s", NULL, participant, (int64_t)position, questionnaire, status, utc, source);
    for (int i = 0; !rc && i < n; i++) {
        if (text && text[i])
            rc = RUN("INSERT INTO answers(participant, position, questionnaire, status, item, text,"
                     " answered_utc, source) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                     "sissssss", NULL, participant, (int64_t)position, questionnaire, status, items[i], text[i],
                     utc, source);
        else
            rc = RUN(ins, "sissSdSss", NULL, participant, (int64_t)position, questionnaire, status, items[i],
                     value[i], (const char *)NULL, utc, source);
    }
    if (rc) {
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    if (sqlite3_exec(db->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        int e = fail(db, err, "commit");
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
        return e;
    }
    return SIM_OK;
}

int sim_studydb_has_answers(sim_studydb *db, const char *participant, int position, const char *questionnaire,
                            bool *has, sim_error *err)
{
    int64_t v;
    int rc = RUN("SELECT COUNT(*) FROM answers WHERE participant = ? AND position = ? AND questionnaire = ?", "sis",
                 &v, participant, (int64_t)position, questionnaire);
    *has = !rc && v > 0;
    return rc;
}

int sim_studydb_note(sim_studydb *db, const char *participant, int position, const char *utc, const char *text,
                     sim_error *err)
{
    return RUN("INSERT INTO notes(participant, position, utc, text) VALUES(?, ?, ?, ?)", "siss", NULL, participant,
               (int64_t)position, utc, text);
}

int sim_studydb_runner_lock(sim_studydb *db, const char *participant, int64_t pid, const char *host,
                            const char *utc, bool (*alive)(int64_t pid, const char *host), sim_error *err)
{
    /* IMMEDIATE: two runners starting at once cannot both see the row missing. */
    if (sqlite3_exec(db->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return fail(db, err, "lock");
    sqlite3_stmt *st = NULL;
    int rc = SIM_OK;
    if (sqlite3_prepare_v2(db->db, "SELECT pid, host, since_utc FROM runners WHERE participant = ?", -1, &st, NULL) !=
        SQLITE_OK) {
        rc = fail(db, err, "prepare");
    } else {
        sqlite3_bind_text(st, 1, participant, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_ROW) {
            int64_t other = sqlite3_column_int64(st, 0);
            const char *oh = (const char *)sqlite3_column_text(st, 1), *since = (const char *)sqlite3_column_text(st, 2);
            if (other != pid && (!alive || alive(other, oh ? oh : "")))
                rc = sim_error_set(err, SIM_EAGAIN,
                                   "%s: participant %s is being run by another runner (pid %lld on host %s, since %s); "
                                   "stop it first, or wait for it to end",
                                   db->path, participant, (long long)other, oh ? oh : "?", since ? since : "?");
        }
        sqlite3_finalize(st);
    }
    if (!rc)
        rc = RUN("INSERT OR REPLACE INTO runners(participant, pid, host, since_utc) VALUES(?, ?, ?, ?)", "siss", NULL,
                 participant, pid, host, utc);
    if (sqlite3_exec(db->db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL) != SQLITE_OK && !rc)
        rc = fail(db, err, "lock");
    return rc;
}

int sim_studydb_runner_unlock(sim_studydb *db, const char *participant, int64_t pid, sim_error *err)
{
    return RUN("DELETE FROM runners WHERE participant = ? AND pid = ?", "si", NULL, participant, pid);
}
