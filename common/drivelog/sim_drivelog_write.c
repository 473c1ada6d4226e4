/* sim_drivelog_write: the drive-log writer (see sim_drivelog.h).
 *
 * Why the writer buffers: an append must never wait for the disk (the recorder is on
 * the bus's event loop), and a commit that fails on a full disk must not lose rows.
 * So appends copy into memory, and a flush inserts the whole batch inside one
 * transaction; on failure the transaction is rolled back and the batch kept. */
#include "sim_drivelog.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "sim_drivelog_db.h"

static const char SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
    /* WITHOUT ROWID: the (run, tick) key is the table's order, so appending in tick
     * order writes to the end of one B-tree and a duplicate is found by the key. */
    "CREATE TABLE IF NOT EXISTS samples("
    SIM_DRIVELOG_SAMPLE_COLUMNS(SQL_COLUMN)
    " PRIMARY KEY(run, tick)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS events("
    " id INTEGER PRIMARY KEY, run INTEGER NOT NULL, t REAL NOT NULL,"
    " kind TEXT NOT NULL, name TEXT NOT NULL, json TEXT);"
    /* The same event seen twice (backlog replay) is one event. ifnull: NULLs are
     * distinct in a UNIQUE index, which would let NULL-json duplicates through. */
    "CREATE UNIQUE INDEX IF NOT EXISTS events_key ON events(run, t, kind, name, ifnull(json, ''));"
    "CREATE TABLE IF NOT EXISTS messages("
    " id INTEGER PRIMARY KEY, run INTEGER NOT NULL, t REAL NOT NULL, topic TEXT NOT NULL,"
    " src TEXT, seq INTEGER, hash INTEGER NOT NULL, line TEXT NOT NULL);"
    /* A 64-bit hash of the line stands in for the line in the key: same effect as
     * keying on the bytes without storing every message twice. */
    "CREATE UNIQUE INDEX IF NOT EXISTS messages_key ON messages(run, t, topic, hash);";

typedef struct pending_event {
    int64_t run;
    double t;
    char *kind, *name, *json;
} pending_event;

typedef struct pending_message {
    int64_t run, seq;
    double t;
    char *topic, *src, *line;
    size_t len;
} pending_message;

typedef struct pending_meta {
    char *key, *value;
} pending_meta;


struct sim_drivelog_writer {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *ins_sample, *ins_event, *ins_message, *ins_meta;
    vec samples, events, messages, meta; /* pending rows */
    size_t max_pending, batch_rows;
    double flush_s;
    double last_flush; /* monotonic s of the last commit attempt; < 0 before any */
    uint64_t committed;
    uint64_t synced;   /* rows known to be on disk: committed as of the last checkpoint */
    bool failing; /* the last tick's commit failed */
    char *reserve;     /* "<path>-reserve": room kept on the filesystem for saying a loss */
    int64_t last_run;  /* run and t of the newest row appended: where a loss is logged */
    double last_t;
    dl_instr instr;    /* gaze, sensor and clock rows (sim_drivelog_instr.c) */
};

static char *dup_mem(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}



/* ---- samples <-> statements ---- */

static void bind_sample(sqlite3_stmt *st, const sim_drivelog_sample *s)
{
    for (int i = 0; i < SIM_DRIVELOG_N_COLUMNS; i++) {
        const sim_drivelog_column *c = &sim_drivelog_columns[i];
        const char *p = (const char *)s + c->offset;
        switch (c->type) {
        case SIM_DRIVELOG_I64: sqlite3_bind_int64(st, i + 1, *(const int64_t *)p); break;
        case SIM_DRIVELOG_F64: sqlite3_bind_double(st, i + 1, *(const double *)p); break;
        case SIM_DRIVELOG_REAL: dl_bind_real(st, i + 1, *(const double *)p); break;
        case SIM_DRIVELOG_INT: dl_bind_int(st, i + 1, *(const int32_t *)p); break;
        case SIM_DRIVELOG_ID: dl_bind_text(st, i + 1, p); break;
        }
    }
}

/* FNV-1a, 64 bits: the messages table's duplicate key (not a security hash). */
static int64_t hash_line(const char *line, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)line[i];
        h *= 1099511628211ULL;
    }
    return (int64_t)h;
}


static int exec(sqlite3 *db, const char *sql, const char *path, const char *what, sim_error *err)
{
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : dl_db_error(err, db, rc, path, what);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *path,
                   sim_error *err)
{
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    return rc == SQLITE_OK ? 0 : dl_db_error(err, db, rc, path, "preparing a statement");
}

static void writer_free(sim_drivelog_writer *w);

/* A full disk at the end would leave no room to say that rows were lost: a small file
 * beside the log holds SIM_DRIVELOG_RESERVE bytes of the filesystem, given back (removed)
 * right before the loss is written. Best effort: without it the loss may still fit. */
#define SIM_DRIVELOG_RESERVE (1 << 20)
static void reserve_room(sim_drivelog_writer *w)
{
    size_t n = strlen(w->path) + sizeof "-reserve";
    if (!(w->reserve = malloc(n))) return;
    snprintf(w->reserve, n, "%s-reserve", w->path);
    int fd = open(w->reserve, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || posix_fallocate(fd, 0, SIM_DRIVELOG_RESERVE) != 0) {
        if (fd >= 0) unlink(w->reserve);
        free(w->reserve);
        w->reserve = NULL;
    }
    if (fd >= 0) close(fd);
}

static void release_room(sim_drivelog_writer *w)
{
    if (w->reserve) unlink(w->reserve);
    free(w->reserve);
    w->reserve = NULL;
}

int sim_drivelog_writer_open(const char *path, const sim_drivelog_write_options *opts,
                             sim_drivelog_writer **out, sim_error *err)
{
    *out = NULL;
    if (!path || !path[0]) return sim_error_set(err, SIM_EINVAL, "drive log: empty path");
    sim_drivelog_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = dl_dup_str(path))) {
        free(w);
        return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", path);
    }
    w->flush_s = (opts && opts->flush_ms > 0 ? opts->flush_ms : 100) / 1000.0;
    w->max_pending = opts && opts->max_pending ? opts->max_pending : 1000000;
    w->batch_rows = opts && opts->batch_rows ? opts->batch_rows : 4096;
    w->last_flush = -1;
    int rc = sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        dl_db_error(err, w->db, rc, path, "cannot create");
        writer_free(w);
        return err ? err->code : SIM_EIO;
    }
    sqlite3_extended_result_codes(w->db, 1);
    /* A reader (simctl export during the drive) may hold the WAL briefly. */
    sqlite3_busy_timeout(w->db, 2000);
    bool empty = false;
    int schema = 0;
    int ret = dl_check_identity(w->db, path, &empty, &schema, err);
    if (ret) goto fail;
    /* WAL: a commit appends to the -wal file; a killed writer leaves the last complete
     * commit as the state of the database, and readers never block the writer. */
    sqlite3_stmt *st;
    rc = sqlite3_prepare_v2(w->db, "PRAGMA journal_mode=WAL", -1, &st, NULL);
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char *mode = (const char *)sqlite3_column_text(st, 0);
        if (!mode || strcmp(mode, "wal") != 0) rc = SQLITE_ERROR;
    } else if (rc == SQLITE_OK) {
        rc = sqlite3_errcode(w->db);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        ret = dl_db_error(err, w->db, rc, path, "cannot switch to WAL mode");
        goto fail;
    }
    ret = exec(w->db, opts && opts->fsync_each ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
               path, "setting synchronous", err);
    if (ret) goto fail;
    if (empty) {
        /* meta's schema_version says what user_version says (readers of the meta table
         * alone see the file's version). */
        char sql[sizeof SCHEMA_SQL + 240];
        snprintf(sql, sizeof sql, "BEGIN;%sPRAGMA application_id=%d;PRAGMA user_version=%d;"
                 "INSERT OR REPLACE INTO meta(key, value) VALUES('schema_version', '%d');COMMIT;",
                 SCHEMA_SQL, DRIVELOG_APP_ID, SIM_DRIVELOG_SCHEMA_VERSION, SIM_DRIVELOG_SCHEMA_VERSION);
        ret = exec(w->db, sql, path, "creating the schema", err);
        if (ret) {
            sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
    } else if (schema < SIM_DRIVELOG_SCHEMA_VERSION) {
        /* An older file being resumed: a version-1 file's samples gain the road column
         * (NULL in the rows already there); the instrument tables come below; the whole
         * file reads as the current version from now on. */
        char sql[320];
        snprintf(sql, sizeof sql, "BEGIN;%sPRAGMA user_version=%d;",
                 schema < 2 ? "ALTER TABLE samples ADD COLUMN road TEXT;" : "", SIM_DRIVELOG_SCHEMA_VERSION);
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, "
                 "value TEXT) WITHOUT ROWID;INSERT OR REPLACE INTO meta(key, value) "
                 "VALUES('schema_version', '%d');COMMIT;", SIM_DRIVELOG_SCHEMA_VERSION);
        ret = exec(w->db, sql, path, "upgrading the schema", err);
        if (ret) {
            sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
    }
    if ((ret = dl_instr_open(w->db, &w->instr, path, err))) goto fail;
    char sql[1024];
    size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO samples(");
    for (int i = 0; i < SIM_DRIVELOG_N_COLUMNS; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s", i ? ", " : "", sim_drivelog_columns[i].name);
    len += (size_t)snprintf(sql + len, sizeof sql - len, ") VALUES(");
    for (int i = 0; i < SIM_DRIVELOG_N_COLUMNS; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s?", i ? "," : "");
    snprintf(sql + len, sizeof sql - len, ")");
    if ((ret = prepare(w->db, sql, &w->ins_sample, path, err)) ||
        (ret = prepare(w->db, "INSERT OR IGNORE INTO events(run, t, kind, name, json) VALUES(?,?,?,?,?)",
                       &w->ins_event, path, err)) ||
        (ret = prepare(w->db,
                       "INSERT OR IGNORE INTO messages(run, t, topic, src, seq, hash, line)"
                       " VALUES(?,?,?,?,?,?,?)",
                       &w->ins_message, path, err)) ||
        (ret = prepare(w->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)", &w->ins_meta,
                       path, err)))
        goto fail;
    reserve_room(w);
    *out = w;
    return 0;
fail:
    writer_free(w);
    return ret;
}

/* ---- appending ---- */

static size_t pending_rows(const sim_drivelog_writer *w)
{
    return w->samples.n + w->events.n + w->messages.n + w->meta.n + dl_instr_pending(&w->instr);
}

static int check_room(sim_drivelog_writer *w, sim_error *err)
{
    if (pending_rows(w) < w->max_pending) return 0;
    return sim_error_set(err, SIM_ETOOBIG,
                         "drive log %s: %zu rows pending and not committed (limit); row dropped",
                         w->path, pending_rows(w));
}

dl_instr *dl_writer_instr(sim_drivelog_writer *w, int64_t run, double t, sim_error *err)
{
    if (check_room(w, err)) return NULL;
    if (isfinite(t)) {
        w->last_run = run;
        w->last_t = t;
    }
    return &w->instr;
}

const char *dl_writer_path(const sim_drivelog_writer *w) { return w->path; }

int sim_drivelog_set_meta(sim_drivelog_writer *w, const char *key, const char *value,
                          sim_error *err)
{
    if (!key || !value) return sim_error_set(err, SIM_EINVAL, "drive log meta: key and value required");
    int ret = check_room(w, err);
    if (ret) return ret;
    pending_meta *m = dl_vec_push(&w->meta, sizeof *m);
    if (!m) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    m->key = dl_dup_str(key);
    m->value = dl_dup_str(value);
    if (!m->key || !m->value) {
        free(m->key);
        free(m->value);
        w->meta.n--;
        return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    }
    return 0;
}

int sim_drivelog_append_sample(sim_drivelog_writer *w, const sim_drivelog_sample *s,
                               sim_error *err)
{
    int ret = check_room(w, err);
    if (ret) return ret;
    sim_drivelog_sample *p = dl_vec_push(&w->samples, sizeof *p);
    if (!p) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    *p = *s;
    w->last_run = s->run;
    w->last_t = s->t;
    p->sector[SIM_DRIVELOG_ID_MAX - 1] = p->task[SIM_DRIVELOG_ID_MAX - 1] = '\0';
    p->road[SIM_DRIVELOG_ID_MAX - 1] = '\0';
    return 0;
}

int sim_drivelog_append_event(sim_drivelog_writer *w, int64_t run, double t, const char *kind,
                              const char *name, const char *json, sim_error *err)
{
    if (!kind || !name) return sim_error_set(err, SIM_EINVAL, "drive log event: kind and name required");
    int ret = check_room(w, err);
    if (ret) return ret;
    pending_event *e = dl_vec_push(&w->events, sizeof *e);
    if (!e) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    e->run = run;
    e->t = t;
    e->kind = dl_dup_str(kind);
    e->name = dl_dup_str(name);
    e->json = dl_dup_str(json);
    if (!e->kind || !e->name || (json && !e->json)) {
        free(e->kind);
        free(e->name);
        free(e->json);
        w->events.n--;
        return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    }
    return 0;
}

int sim_drivelog_append_message(sim_drivelog_writer *w, int64_t run, double t, const char *topic,
                                const char *src, int64_t seq, const char *line, size_t len,
                                sim_error *err)
{
    if (!topic || !line) return sim_error_set(err, SIM_EINVAL, "drive log message: topic and line required");
    int ret = check_room(w, err);
    if (ret) return ret;
    pending_message *m = dl_vec_push(&w->messages, sizeof *m);
    if (!m) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    m->run = run;
    m->t = t;
    m->seq = seq;
    m->len = len;
    m->topic = dl_dup_str(topic);
    m->src = dl_dup_str(src);
    m->line = dup_mem(line, len);
    if (!m->topic || (src && !m->src) || !m->line) {
        free(m->topic);
        free(m->src);
        free(m->line);
        w->messages.n--;
        return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    }
    return 0;
}

/* ---- committing ---- */

/* Drops the pending samples, events and messages (not the meta). */
static void clear_pending_rows(sim_drivelog_writer *w)
{
    pending_event *ev = w->events.items;
    for (size_t i = 0; i < w->events.n; i++) {
        free(ev[i].kind);
        free(ev[i].name);
        free(ev[i].json);
    }
    pending_message *ms = w->messages.items;
    for (size_t i = 0; i < w->messages.n; i++) {
        free(ms[i].topic);
        free(ms[i].src);
        free(ms[i].line);
    }
    w->samples.n = w->events.n = w->messages.n = 0;
    dl_instr_clear(&w->instr);
}

static void clear_pending(sim_drivelog_writer *w)
{
    clear_pending_rows(w);
    pending_meta *mt = w->meta.items;
    for (size_t i = 0; i < w->meta.n; i++) {
        free(mt[i].key);
        free(mt[i].value);
    }
    w->meta.n = 0;
}

/* Steps a bound insert; returns the SQLite code (SQLITE_DONE on success). */
static int step_insert(sqlite3 *db, sqlite3_stmt *st, uint64_t *inserted)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_DONE) *inserted += (uint64_t)sqlite3_changes(db);
    return rc;
}

static int insert_pending(sim_drivelog_writer *w, uint64_t *inserted)
{
    int rc = SQLITE_DONE;
    pending_meta *mt = w->meta.items;
    for (size_t i = 0; i < w->meta.n && rc == SQLITE_DONE; i++) {
        sqlite3_bind_text(w->ins_meta, 1, mt[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->ins_meta, 2, mt[i].value, -1, SQLITE_STATIC);
        uint64_t ignored = 0; /* meta keys are settings, not rows of the drive */
        rc = step_insert(w->db, w->ins_meta, &ignored);
    }
    sim_drivelog_sample *sm = w->samples.items;
    for (size_t i = 0; i < w->samples.n && rc == SQLITE_DONE; i++) {
        bind_sample(w->ins_sample, &sm[i]);
        rc = step_insert(w->db, w->ins_sample, inserted);
    }
    pending_event *ev = w->events.items;
    for (size_t i = 0; i < w->events.n && rc == SQLITE_DONE; i++) {
        sqlite3_bind_int64(w->ins_event, 1, ev[i].run);
        sqlite3_bind_double(w->ins_event, 2, ev[i].t);
        sqlite3_bind_text(w->ins_event, 3, ev[i].kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(w->ins_event, 4, ev[i].name, -1, SQLITE_STATIC);
        if (ev[i].json) sqlite3_bind_text(w->ins_event, 5, ev[i].json, -1, SQLITE_STATIC);
        else sqlite3_bind_null(w->ins_event, 5);
        rc = step_insert(w->db, w->ins_event, inserted);
    }
    pending_message *ms = w->messages.items;
    for (size_t i = 0; i < w->messages.n && rc == SQLITE_DONE; i++) {
        sqlite3_stmt *st = w->ins_message;
        sqlite3_bind_int64(st, 1, ms[i].run);
        sqlite3_bind_double(st, 2, ms[i].t);
        sqlite3_bind_text(st, 3, ms[i].topic, -1, SQLITE_STATIC);
        dl_bind_text(st, 4, ms[i].src);
        if (ms[i].seq >= 0) sqlite3_bind_int64(st, 5, ms[i].seq);
        else sqlite3_bind_null(st, 5);
        sqlite3_bind_int64(st, 6, hash_line(ms[i].line, ms[i].len));
        sqlite3_bind_text(st, 7, ms[i].line, (int)ms[i].len, SQLITE_STATIC);
        rc = step_insert(w->db, st, inserted);
    }
    if (rc == SQLITE_DONE) rc = dl_instr_insert(w->db, &w->instr, inserted);
    return rc;
}

int sim_drivelog_flush(sim_drivelog_writer *w, sim_error *err)
{
    size_t n = pending_rows(w);
    if (n == 0) return 0;
    char cause[256];
    int rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sim_error_set(err, SIM_EIO, "drive log %s: cannot begin a transaction for %zu rows: %s",
                             w->path, n, dl_write_cause(w->db, rc, w->path, cause, sizeof cause));
    uint64_t inserted = 0;
    rc = insert_pending(w, &inserted);
    if (rc == SQLITE_DONE) rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK && rc != SQLITE_DONE) {
        /* Keep the message before the rollback overwrites the connection's error. */
        sim_error_set(err, SIM_EIO, "drive log %s: commit of %zu rows failed: %s; rows kept pending",
                      w->path, n, dl_write_cause(w->db, rc, w->path, cause, sizeof cause));
        if (!sqlite3_get_autocommit(w->db)) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
        return SIM_EIO;
    }
    w->committed += inserted;
    clear_pending(w);
    return 0;
}

int sim_drivelog_tick(sim_drivelog_writer *w, double now_s, sim_error *err)
{
    size_t n = pending_rows(w);
    if (n == 0) return 0;
    /* A failed commit is retried at the interval, not at every row. */
    bool full = n >= w->batch_rows && !w->failing;
    /* 1 us of slack: 5.1 - 5.0 is 0.0999... in binary. */
    if (!full && w->last_flush >= 0 && now_s - w->last_flush < w->flush_s - 1e-6) return 0;
    w->last_flush = now_s;
    int ret = sim_drivelog_flush(w, err);
    w->failing = ret != 0;
    return ret;
}

size_t sim_drivelog_pending(const sim_drivelog_writer *w) { return pending_rows(w); }
uint64_t sim_drivelog_committed(const sim_drivelog_writer *w) { return w->committed; }
uint64_t sim_drivelog_synced(const sim_drivelog_writer *w) { return w->synced; }

int sim_drivelog_sync(sim_drivelog_writer *w, sim_error *err)
{
    /* A checkpoint syncs the WAL before copying it into the database: with
     * synchronous=NORMAL this is the moment commits become durable. */
    uint64_t committed = w->committed;
    int rc = sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
        char cause[256];
        return sim_error_set(err, SIM_EIO, "drive log %s: cannot sync %llu committed rows to disk: %s", w->path,
                             (unsigned long long)(committed - w->synced),
                             dl_write_cause(w->db, rc, w->path, cause, sizeof cause));
    }
    if (rc == SQLITE_OK) w->synced = committed;
    return 0;
}
const char *sim_drivelog_path(const sim_drivelog_writer *w) { return w->path; }

static void writer_free(sim_drivelog_writer *w)
{
    release_room(w);
    clear_pending(w);
    sqlite3_finalize(w->ins_sample);
    sqlite3_finalize(w->ins_event);
    sqlite3_finalize(w->ins_message);
    sqlite3_finalize(w->ins_meta);
    dl_instr_close(&w->instr);
    sqlite3_close(w->db);
    free(w->samples.items);
    free(w->events.items);
    free(w->messages.items);
    free(w->meta.items);
    free(w->path);
    free(w);
}

/* The final flush failed: the pending samples, events and messages are lost. What
 * the file can still take is said in it: the pending meta (end_utc among it) and an
 * event recorder/rows_lost {rows, cause}, in one small transaction that may fit where
 * thousands of rows did not (a WAL reused after a checkpoint needs no new space). */
static int record_loss(sim_drivelog_writer *w, size_t lost, const char *cause, sim_error *err)
{
    clear_pending_rows(w);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rows", (double)lost);
    cJSON_AddStringToObject(o, "cause", cause);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    int ret = sim_drivelog_append_event(w, w->last_run, w->last_t, "recorder", "rows_lost", json, err);
    free(json);
    return ret ? ret : sim_drivelog_flush(w, err);
}

int sim_drivelog_writer_close(sim_drivelog_writer *w, sim_error *err)
{
    if (!w) return 0;
    size_t n = pending_rows(w), n_meta = w->meta.n;
    sim_error cause = {0};
    int ret = sim_drivelog_flush(w, &cause);
    if (ret) {
        sim_error again = {0};
        release_room(w);
        if (record_loss(w, n - n_meta, cause.msg, &again) == 0)
            sim_error_set(err, ret, "drive log %s: %zu rows lost at close: %s; the loss is logged in the file "
                          "(event recorder/rows_lost, end_utc set)", w->path, n - n_meta, cause.msg);
        else
            sim_error_set(err, ret, "drive log %s: %zu rows lost at close: %s; the loss could not be logged in "
                          "the file either (its end_utc is missing)", w->path, n, cause.msg);
    }
    /* Fold the WAL into the main file so the log is one self-contained file. */
    if (sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) == SQLITE_OK)
        w->synced = w->committed;
    writer_free(w);
    return ret;
}

