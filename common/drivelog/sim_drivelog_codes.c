/* sim_drivelog_codes: the codes table of a drive log (docs/drivelog.md "codes"):
 * behaviour codes brought back from ELAN or BORIS (simctl codes import), one row per
 * coded interval on the log's time base. Created by the first import (a log without it
 * reads as one without codes); the schema version is unchanged, since no recorder
 * writes the table and older readers ignore it. An import replaces every row of its
 * source (the coding file's name), so importing the same file again leaves the table as
 * it was and an edited file replaces its earlier version. */
#include "sim_drivelog.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "sim_drivelog_db.h"

static const char CODES_SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS codes(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, tier TEXT NOT NULL,"
    " code TEXT NOT NULL, t_start REAL NOT NULL, t_end REAL NOT NULL, annotator TEXT, source TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS codes_source ON codes(source);";

int sim_drivelog_replace_codes(const char *path, const char *source, const sim_drivelog_code *rows, size_t n,
                               size_t *removed, sim_error *err)
{
    if (removed) *removed = 0;
    if (!source || !source[0]) return sim_error_set(err, SIM_EINVAL, "drive log %s: codes need a source name", path);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) {
        int ret = dl_db_error(err, db, rc, path, "cannot open for writing");
        sqlite3_close(db);
        return ret;
    }
    sqlite3_busy_timeout(db, 5000);
    bool empty = false;
    int schema = 0;
    int ret = dl_check_identity(db, path, &empty, &schema, err);
    if (!ret && empty) ret = sim_error_set(err, SIM_EINVAL, "drive log %s: empty file, not a drive log", path);
    sqlite3_stmt *del = NULL, *ins = NULL;
    if (!ret) {
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_exec(db, CODES_SCHEMA_SQL, NULL, NULL, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "DELETE FROM codes WHERE source = ?1", -1, &del, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_prepare_v2(db,
                                    "INSERT INTO codes(run, tier, code, t_start, t_end, annotator, source)"
                                    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                                    -1, &ins, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_text(del, 1, source, -1, SQLITE_STATIC);
            rc = sqlite3_step(del) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
            if (rc == SQLITE_OK && removed) *removed = (size_t)sqlite3_changes(db);
        }
        for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
            const sim_drivelog_code *c = &rows[i];
            sqlite3_bind_int64(ins, 1, c->run);
            sqlite3_bind_text(ins, 2, c->tier, -1, SQLITE_STATIC);
            sqlite3_bind_text(ins, 3, c->code, -1, SQLITE_STATIC);
            sqlite3_bind_double(ins, 4, c->t_start);
            sqlite3_bind_double(ins, 5, c->t_end);
            dl_bind_text(ins, 6, c->annotator);
            sqlite3_bind_text(ins, 7, source, -1, SQLITE_STATIC);
            rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
            sqlite3_reset(ins);
        }
        if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            char cause[256];
            ret = sim_error_set(err, SIM_EIO, "drive log %s: writing the codes: %s", path,
                                dl_write_cause(db, rc, path, cause, sizeof cause));
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
    }
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    sqlite3_close(db);
    return ret;
}

int sim_drivelog_each_code(sim_drivelog_reader *r, int64_t run, sim_drivelog_code_cb cb, void *user, sim_error *err)
{
    sqlite3 *db = dl_reader_db(r);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='codes'", -1, &st, NULL))
        return dl_db_error(err, db, sqlite3_errcode(db), dl_reader_path(r), "query");
    bool has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!has) return 0;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT run, tier, code, t_start, t_end, annotator, source FROM codes"
                                " WHERE (?1 < 0 OR run = ?1) ORDER BY run, tier, t_start, t_end, id",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) return dl_db_error(err, db, rc, dl_reader_path(r), "query");
    sqlite3_bind_int64(st, 1, run);
    sim_drivelog_code c;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        memset(&c, 0, sizeof c);
        c.run = sqlite3_column_int64(st, 0);
        const unsigned char *v;
        snprintf(c.tier, sizeof c.tier, "%s", (v = sqlite3_column_text(st, 1)) ? (const char *)v : "");
        snprintf(c.code, sizeof c.code, "%s", (v = sqlite3_column_text(st, 2)) ? (const char *)v : "");
        c.t_start = sqlite3_column_double(st, 3);
        c.t_end = sqlite3_column_double(st, 4);
        snprintf(c.annotator, sizeof c.annotator, "%s", (v = sqlite3_column_text(st, 5)) ? (const char *)v : "");
        snprintf(c.source, sizeof c.source, "%s", (v = sqlite3_column_text(st, 6)) ? (const char *)v : "");
        if (cb(&c, user)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dl_db_error(err, db, rc, dl_reader_path(r), "reading codes");
}
