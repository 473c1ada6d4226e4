/* sim_drivelog: drive-log schema, writer and reader on SQLite (see sim_drivelog.h).
 *
 * Why the writer buffers: an append must never wait for the disk (the recorder is on
 * the bus's event loop), and a commit that fails on a full disk must not lose rows.
 * So appends copy into memory, and a flush inserts the whole batch inside one
 * transaction; on failure the transaction is rolled back and the batch kept. */
#include "sim_drivelog.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

/* 'SIMD' in the SQLite header's application_id field: marks a file as a drive log. */
#define DRIVELOG_APP_ID 0x53494d44

static const char SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
    /* WITHOUT ROWID: the (run, tick) key is the table's order, so appending in tick
     * order writes to the end of one B-tree and a duplicate is found by the key. */
    "CREATE TABLE IF NOT EXISTS samples("
    " run INTEGER NOT NULL, tick INTEGER NOT NULL, t REAL NOT NULL,"
    " speed REAL, accel REAL, headway_dist REAL, headway_time REAL, lat_dev REAL,"
    " lane INTEGER, s REAL, d REAL, x REAL, y REAL, z REAL, heading REAL, yaw_rate REAL,"
    " steer_wheel REAL, wheel_angle REAL, throttle REAL, brake REAL, clutch REAL,"
    " gear INTEGER, rpm REAL, sector TEXT, task TEXT, road TEXT,"
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

/* The samples columns of schema 2 in table order (FIELDS below lists them again with
 * their fields; the writer binds them in this order). */
static const char SAMPLE_COLUMNS[] =
    "run, tick, t, speed, accel, headway_dist, headway_time, lat_dev, lane, s, d, x, y, z,"
    " heading, yaw_rate, steer_wheel, wheel_angle, throttle, brake, clutch, gear, rpm,"
    " sector, task, road";

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

/* A growable array of one element type; plain storage, the writer owns it. */
typedef struct vec {
    void *items;
    size_t n, cap;
} vec;

struct sim_drivelog_writer {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *ins_sample, *ins_event, *ins_message, *ins_meta;
    vec samples, events, messages, meta; /* pending rows */
    size_t max_pending, batch_rows;
    double flush_s;
    double last_flush; /* monotonic s of the last commit attempt; < 0 before any */
    uint64_t committed;
    bool failing; /* the last tick's commit failed */
};

struct sim_drivelog_reader {
    sqlite3 *db;
    char *path;
    int version; /* the file's schema version */
};

static char *dup_str(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

static char *dup_mem(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

static void *vec_push(vec *v, size_t elem)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 256;
        void *items = realloc(v->items, cap * elem);
        if (!items) return NULL;
        v->items = items;
        v->cap = cap;
    }
    return (char *)v->items + elem * v->n++;
}

/* Names the SQLite failure in words a person can act on, with the operating system's
 * own reason (ENOSPC, EFBIG, EACCES, ...) when there is one. */
static const char *sqlite_cause(sqlite3 *db, int rc, char *buf, size_t size)
{
    const char *what;
    switch (rc & 0xff) {
    case SQLITE_FULL: what = "disk full (SQLITE_FULL)"; break;
    case SQLITE_CANTOPEN: what = "cannot open the file: directory missing or not writable"; break;
    case SQLITE_READONLY: what = "file or directory is read-only"; break;
    case SQLITE_NOTADB: what = "not an SQLite database"; break;
    case SQLITE_CORRUPT: what = "database file is corrupt"; break;
    default: what = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc); break;
    }
    int sys = db ? sqlite3_system_errno(db) : 0;
    if (sys && ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL ||
                (rc & 0xff) == SQLITE_CANTOPEN))
        snprintf(buf, size, "%s: %s", what, strerror(sys));
    else
        snprintf(buf, size, "%s", what);
    return buf;
}

static int db_error(sim_error *err, sqlite3 *db, int rc, const char *path, const char *what)
{
    int code = (rc & 0xff) == SQLITE_NOTADB ? SIM_EINVAL : SIM_EIO;
    char cause[256];
    return sim_error_set(err, code, "drive log %s: %s: %s", path, what,
                         sqlite_cause(db, rc, cause, sizeof cause));
}

/* ---- samples <-> statements ---- */

static void bind_double(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v)) sqlite3_bind_null(st, i);
    else sqlite3_bind_double(st, i, v);
}

static void bind_int(sqlite3_stmt *st, int i, int32_t v)
{
    if (v == SIM_DRIVELOG_NULL_INT) sqlite3_bind_null(st, i);
    else sqlite3_bind_int(st, i, v);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (!v || !v[0]) sqlite3_bind_null(st, i);
    else sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

static void bind_sample(sqlite3_stmt *st, const sim_drivelog_sample *s)
{
    int i = 1;
    sqlite3_bind_int64(st, i++, s->run);
    sqlite3_bind_int64(st, i++, s->tick);
    sqlite3_bind_double(st, i++, s->t);
    bind_double(st, i++, s->speed);
    bind_double(st, i++, s->accel);
    bind_double(st, i++, s->headway_dist);
    bind_double(st, i++, s->headway_time);
    bind_double(st, i++, s->lat_dev);
    bind_int(st, i++, s->lane);
    bind_double(st, i++, s->s);
    bind_double(st, i++, s->d);
    bind_double(st, i++, s->x);
    bind_double(st, i++, s->y);
    bind_double(st, i++, s->z);
    bind_double(st, i++, s->heading);
    bind_double(st, i++, s->yaw_rate);
    bind_double(st, i++, s->steer_wheel);
    bind_double(st, i++, s->wheel_angle);
    bind_double(st, i++, s->throttle);
    bind_double(st, i++, s->brake);
    bind_double(st, i++, s->clutch);
    bind_int(st, i++, s->gear);
    bind_double(st, i++, s->rpm);
    bind_text(st, i++, s->sector);
    bind_text(st, i++, s->task);
    bind_text(st, i++, s->road);
}

/* One sqlite3_column_value per column, then the value's own type and number: half the
 * API calls of sqlite3_column_type followed by sqlite3_column_double (the reader reads
 * hundreds of thousands of rows, and each column_* call is a separate API entry). */
static double col_double(sqlite3_stmt *st, int i)
{
    sqlite3_value *v = sqlite3_column_value(st, i);
    return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

static int32_t col_int(sqlite3_stmt *st, int i)
{
    sqlite3_value *v = sqlite3_column_value(st, i);
    return sqlite3_value_type(v) == SQLITE_NULL ? SIM_DRIVELOG_NULL_INT
                                                : (int32_t)sqlite3_value_int(v);
}

/* Text into a fixed id buffer, cut to SIM_DRIVELOG_ID_MAX - 1 bytes as the writer does. */
static void col_id(sqlite3_stmt *st, int i, char *out)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    size_t n = v ? (size_t)sqlite3_column_bytes(st, i) : 0;
    if (n > SIM_DRIVELOG_ID_MAX - 1) n = SIM_DRIVELOG_ID_MAX - 1;
    if (n) memcpy(out, v, n);
    out[n] = '\0';
}

/* Every samples column as a field of sim_drivelog_sample, in table order, for reading
 * any subset of the columns with one decoder. Types: 'I' int64 (never NULL), 'i'
 * int32, 'd' double, 's' id text. */
typedef struct sample_field {
    const char *name;
    char type;
    size_t off;
} sample_field;

#define F(name, type, field) {name, type, offsetof(sim_drivelog_sample, field)}
static const sample_field FIELDS[] = {
    F("run", 'I', run), F("tick", 'I', tick), F("t", 'd', t), F("speed", 'd', speed),
    F("accel", 'd', accel), F("headway_dist", 'd', headway_dist),
    F("headway_time", 'd', headway_time), F("lat_dev", 'd', lat_dev), F("lane", 'i', lane),
    F("s", 'd', s), F("d", 'd', d), F("x", 'd', x), F("y", 'd', y), F("z", 'd', z),
    F("heading", 'd', heading), F("yaw_rate", 'd', yaw_rate), F("steer_wheel", 'd', steer_wheel),
    F("wheel_angle", 'd', wheel_angle), F("throttle", 'd', throttle), F("brake", 'd', brake),
    F("clutch", 'd', clutch), F("gear", 'i', gear), F("rpm", 'd', rpm), F("sector", 's', sector),
    F("task", 's', task), F("road", 's', road),
};
#undef F
enum { N_FIELDS = sizeof FIELDS / sizeof FIELDS[0], FIELD_ROAD = N_FIELDS - 1 };

/* The columns a read selects: FIELDS indices in select order, and the select list. */
typedef struct sample_sel {
    int field[N_FIELDS];
    int n;
    bool all;
    char sql[512];
} sample_sel;

/* Builds the selection of columns (NULL: all). run and tick are always read, since rows
 * are identified by them. A version-1 file has no road column: it is selected as NULL. */
static int sample_sel_make(const sim_drivelog_reader *r, const char *const *columns, size_t n,
                           sample_sel *sel, sim_error *err)
{
    bool want[N_FIELDS] = {0};
    want[0] = want[1] = true;
    for (size_t k = 0; k < N_FIELDS && !columns; k++) want[k] = true;
    for (size_t k = 0; columns && k < n; k++) {
        size_t f = 0;
        while (f < N_FIELDS && strcmp(FIELDS[f].name, columns[k] ? columns[k] : "") != 0) f++;
        if (f == N_FIELDS)
            return sim_error_set(err, SIM_EINVAL,
                                 "drive log %s: samples column '%s': no such column (docs/drivelog.md)",
                                 r->path, columns[k] ? columns[k] : "(null)");
        want[f] = true;
    }
    sel->n = 0;
    sel->sql[0] = '\0';
    size_t len = 0;
    for (int f = 0; f < N_FIELDS; f++) {
        if (!want[f]) continue;
        sel->field[sel->n++] = f;
        bool absent = f == FIELD_ROAD && r->version < 2;
        len += (size_t)snprintf(sel->sql + len, sizeof sel->sql - len, "%s%s", len ? ", " : "",
                                absent ? "NULL" : FIELDS[f].name);
    }
    sel->all = sel->n == N_FIELDS;
    return 0;
}

static void column_sample(sqlite3_stmt *st, const sample_sel *sel, sim_drivelog_sample *s)
{
    if (!sel->all) sim_drivelog_sample_init(s);
    for (int j = 0; j < sel->n; j++) {
        const sample_field *f = &FIELDS[sel->field[j]];
        char *p = (char *)s + f->off;
        switch (f->type) {
        case 'I': *(int64_t *)p = sqlite3_column_int64(st, j); break;
        case 'i': *(int32_t *)p = col_int(st, j); break;
        case 'd': *(double *)p = col_double(st, j); break;
        default: col_id(st, j, p); break;
        }
    }
}

void sim_drivelog_sample_init(sim_drivelog_sample *s)
{
    s->run = 0;
    s->tick = 0;
    s->t = 0;
    s->speed = s->accel = s->headway_dist = s->headway_time = s->lat_dev = NAN;
    s->s = s->d = s->x = s->y = s->z = s->heading = s->yaw_rate = NAN;
    s->steer_wheel = s->wheel_angle = s->throttle = s->brake = s->clutch = s->rpm = NAN;
    s->lane = s->gear = SIM_DRIVELOG_NULL_INT;
    s->sector[0] = s->task[0] = s->road[0] = '\0';
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

/* ---- opening ---- */

static int exec(sqlite3 *db, const char *sql, const char *path, const char *what, sim_error *err)
{
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : db_error(err, db, rc, path, what);
}

static int pragma_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Checks that db is a drive log this code can read (or, when may_create, an empty
 * file). Sets *empty when the file has no tables yet and *schema to its version. */
static int check_identity(sqlite3 *db, const char *path, bool *empty, int *schema, sim_error *err)
{
    int64_t app = 0, version = 0, tables = 0;
    *schema = SIM_DRIVELOG_SCHEMA_VERSION;
    int rc = pragma_int(db, "PRAGMA application_id", &app);
    if (rc == SQLITE_OK) rc = pragma_int(db, "PRAGMA user_version", &version);
    if (rc == SQLITE_OK)
        rc = pragma_int(db, "SELECT count(*) FROM sqlite_master", &tables);
    if (rc != SQLITE_OK) return db_error(err, db, rc, path, "reading the header");
    *empty = tables == 0 && app == 0;
    if (*empty) return 0;
    if (app != DRIVELOG_APP_ID)
        return sim_error_set(err, SIM_EINVAL,
                             "drive log %s: not a drive log (application_id 0x%llx, expected 0x%x)",
                             path, (unsigned long long)app, DRIVELOG_APP_ID);
    if (version > SIM_DRIVELOG_SCHEMA_VERSION)
        return sim_error_set(err, SIM_EINVAL,
                             "drive log %s: schema version %lld is newer than this program's %d",
                             path, (long long)version, SIM_DRIVELOG_SCHEMA_VERSION);
    *schema = version < 1 ? 1 : (int)version;
    return 0;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *path,
                   sim_error *err)
{
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    return rc == SQLITE_OK ? 0 : db_error(err, db, rc, path, "preparing a statement");
}

static void writer_free(sim_drivelog_writer *w);

int sim_drivelog_writer_open(const char *path, const sim_drivelog_write_options *opts,
                             sim_drivelog_writer **out, sim_error *err)
{
    *out = NULL;
    if (!path || !path[0]) return sim_error_set(err, SIM_EINVAL, "drive log: empty path");
    sim_drivelog_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = dup_str(path))) {
        free(w);
        return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", path);
    }
    w->flush_s = (opts && opts->flush_ms > 0 ? opts->flush_ms : 100) / 1000.0;
    w->max_pending = opts && opts->max_pending ? opts->max_pending : 1000000;
    w->batch_rows = opts && opts->batch_rows ? opts->batch_rows : 4096;
    w->last_flush = -1;
    int rc = sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        db_error(err, w->db, rc, path, "cannot create");
        writer_free(w);
        return err ? err->code : SIM_EIO;
    }
    sqlite3_extended_result_codes(w->db, 1);
    /* A reader (simctl export during the drive) may hold the WAL briefly. */
    sqlite3_busy_timeout(w->db, 2000);
    bool empty = false;
    int schema = 0;
    int ret = check_identity(w->db, path, &empty, &schema, err);
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
        ret = db_error(err, w->db, rc, path, "cannot switch to WAL mode");
        goto fail;
    }
    ret = exec(w->db, opts && opts->fsync_each ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
               path, "setting synchronous", err);
    if (ret) goto fail;
    if (empty) {
        char sql[sizeof SCHEMA_SQL + 160];
        snprintf(sql, sizeof sql, "BEGIN;%sPRAGMA application_id=%d;PRAGMA user_version=%d;COMMIT;",
                 SCHEMA_SQL, DRIVELOG_APP_ID, SIM_DRIVELOG_SCHEMA_VERSION);
        ret = exec(w->db, sql, path, "creating the schema", err);
        if (ret) {
            sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
    } else if (schema < SIM_DRIVELOG_SCHEMA_VERSION) {
        /* A version-1 file being resumed: its samples gain the road column (NULL in the
         * rows already there), so the whole file reads as version 2 from now on. */
        char sql[160];
        snprintf(sql, sizeof sql, "BEGIN;ALTER TABLE samples ADD COLUMN road TEXT;"
                 "PRAGMA user_version=%d;COMMIT;", SIM_DRIVELOG_SCHEMA_VERSION);
        ret = exec(w->db, sql, path, "upgrading the schema to version 2", err);
        if (ret) {
            sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
            goto fail;
        }
    }
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT OR IGNORE INTO samples(%s) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
             SAMPLE_COLUMNS);
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
    *out = w;
    return 0;
fail:
    writer_free(w);
    return ret;
}

/* ---- appending ---- */

static size_t pending_rows(const sim_drivelog_writer *w)
{
    return w->samples.n + w->events.n + w->messages.n + w->meta.n;
}

static int check_room(sim_drivelog_writer *w, sim_error *err)
{
    if (pending_rows(w) < w->max_pending) return 0;
    return sim_error_set(err, SIM_ETOOBIG,
                         "drive log %s: %zu rows pending and not committed (limit); row dropped",
                         w->path, pending_rows(w));
}

int sim_drivelog_set_meta(sim_drivelog_writer *w, const char *key, const char *value,
                          sim_error *err)
{
    if (!key || !value) return sim_error_set(err, SIM_EINVAL, "drive log meta: key and value required");
    int ret = check_room(w, err);
    if (ret) return ret;
    pending_meta *m = vec_push(&w->meta, sizeof *m);
    if (!m) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    m->key = dup_str(key);
    m->value = dup_str(value);
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
    sim_drivelog_sample *p = vec_push(&w->samples, sizeof *p);
    if (!p) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    *p = *s;
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
    pending_event *e = vec_push(&w->events, sizeof *e);
    if (!e) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    e->run = run;
    e->t = t;
    e->kind = dup_str(kind);
    e->name = dup_str(name);
    e->json = dup_str(json);
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
    pending_message *m = vec_push(&w->messages, sizeof *m);
    if (!m) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", w->path);
    m->run = run;
    m->t = t;
    m->seq = seq;
    m->len = len;
    m->topic = dup_str(topic);
    m->src = dup_str(src);
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

static void clear_pending(sim_drivelog_writer *w)
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
    pending_meta *mt = w->meta.items;
    for (size_t i = 0; i < w->meta.n; i++) {
        free(mt[i].key);
        free(mt[i].value);
    }
    w->samples.n = w->events.n = w->messages.n = w->meta.n = 0;
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
        bind_text(st, 4, ms[i].src);
        if (ms[i].seq >= 0) sqlite3_bind_int64(st, 5, ms[i].seq);
        else sqlite3_bind_null(st, 5);
        sqlite3_bind_int64(st, 6, hash_line(ms[i].line, ms[i].len));
        sqlite3_bind_text(st, 7, ms[i].line, (int)ms[i].len, SQLITE_STATIC);
        rc = step_insert(w->db, st, inserted);
    }
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
                             w->path, n, sqlite_cause(w->db, rc, cause, sizeof cause));
    uint64_t inserted = 0;
    rc = insert_pending(w, &inserted);
    if (rc == SQLITE_DONE) rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK && rc != SQLITE_DONE) {
        /* Keep the message before the rollback overwrites the connection's error. */
        sim_error_set(err, SIM_EIO, "drive log %s: commit of %zu rows failed: %s; rows kept pending",
                      w->path, n, sqlite_cause(w->db, rc, cause, sizeof cause));
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
const char *sim_drivelog_path(const sim_drivelog_writer *w) { return w->path; }

static void writer_free(sim_drivelog_writer *w)
{
    clear_pending(w);
    sqlite3_finalize(w->ins_sample);
    sqlite3_finalize(w->ins_event);
    sqlite3_finalize(w->ins_message);
    sqlite3_finalize(w->ins_meta);
    sqlite3_close(w->db);
    free(w->samples.items);
    free(w->events.items);
    free(w->messages.items);
    free(w->meta.items);
    free(w->path);
    free(w);
}

int sim_drivelog_writer_close(sim_drivelog_writer *w, sim_error *err)
{
    if (!w) return 0;
    size_t n = pending_rows(w);
    sim_error cause = {0};
    int ret = sim_drivelog_flush(w, &cause);
    if (ret) sim_error_set(err, ret, "drive log %s: %zu rows lost at close: %s", w->path, n, cause.msg);
    /* Fold the WAL into the main file so the log is one self-contained file. */
    else sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    writer_free(w);
    return ret;
}

/* ---- reading ---- */

sim_drivelog_range sim_drivelog_range_all(void)
{
    return (sim_drivelog_range){.run = -1, .t_from = -INFINITY, .t_to = INFINITY};
}

int sim_drivelog_reader_open(const char *path, sim_drivelog_reader **out, sim_error *err)
{
    *out = NULL;
    if (!path || !path[0]) return sim_error_set(err, SIM_EINVAL, "drive log: empty path");
    if (access(path, F_OK) != 0)
        return sim_error_set(err, SIM_ENOTFOUND, "drive log %s: %s", path, strerror(errno));
    sim_drivelog_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = dup_str(path))) {
        free(r);
        return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", path);
    }
    /* Read-write when allowed: opening a WAL database left by a killed writer needs to
     * write its -shm index. Without write access the file still opens read-only.
     * NOMUTEX: a reader is used by one thread at a time (sim_drivelog.h), and in
     * SQLite's default serialized mode every sqlite3_column_* call locks and unlocks the
     * connection's mutex, which was a tenth of the time of reading a log. */
    int rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_close(r->db);
        r->db = NULL;
        rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    }
    int ret = 0;
    bool empty = false;
    if (rc != SQLITE_OK) ret = db_error(err, r->db, rc, path, "cannot open");
    else {
        sqlite3_busy_timeout(r->db, 2000);
        ret = check_identity(r->db, path, &empty, &r->version, err);
        if (!ret && empty)
            ret = sim_error_set(err, SIM_EINVAL, "drive log %s: empty file, not a drive log", path);
        /* Reads go through a memory map of the file instead of a read() into the page
         * cache per page (an hour of driving is about 65 MB); SQLite falls back to
         * read() where mapping is not possible. Failure to set it only costs speed. */
        if (!ret) sqlite3_exec(r->db, "PRAGMA mmap_size=1073741824", NULL, NULL, NULL);
    }
    if (ret) {
        sim_drivelog_reader_close(r);
        return ret;
    }
    *out = r;
    return 0;
}

void sim_drivelog_reader_close(sim_drivelog_reader *r)
{
    if (!r) return;
    sqlite3_close(r->db);
    free(r->path);
    free(r);
}

/* Prepares a SELECT with "WHERE (?1 < 0 OR run = ?1) AND t BETWEEN ?2 AND ?3" bound to
 * range, widened by 1 ns each side so that "--to 1.2" keeps the sample logged at
 * 120 * 0.01 = 1.2000000000000002; infinities are bound as huge finite doubles. */
static int prepare_range(sim_drivelog_reader *r, const char *sql, sim_drivelog_range range,
                         sqlite3_stmt **st, sim_error *err)
{
    int rc = sqlite3_prepare_v2(r->db, sql, -1, st, NULL);
    if (rc != SQLITE_OK) return db_error(err, r->db, rc, r->path, "query");
    sqlite3_bind_int64(*st, 1, range.run);
    sqlite3_bind_double(*st, 2, isinf(range.t_from) ? -1e300 : range.t_from - 1e-9);
    sqlite3_bind_double(*st, 3, isinf(range.t_to) ? 1e300 : range.t_to + 1e-9);
    return 0;
}

int sim_drivelog_schema_version(const sim_drivelog_reader *r)
{
    return r->version;
}

int sim_drivelog_each_sample(sim_drivelog_reader *r, sim_drivelog_range range,
                             const char *const *columns, size_t n_columns,
                             sim_drivelog_sample_cb cb, void *user, sim_error *err)
{
    sample_sel sel;
    int ret = sample_sel_make(r, columns, n_columns, &sel, err);
    if (ret) return ret;
    char sql[700];
    snprintf(sql, sizeof sql,
             "SELECT %s FROM samples WHERE (?1 < 0 OR run = ?1) AND t BETWEEN ?2 AND ?3"
             " ORDER BY run, tick",
             sel.sql);
    sqlite3_stmt *st;
    ret = prepare_range(r, sql, range, &st, err);
    if (ret) return ret;
    sim_drivelog_sample s;
    sim_drivelog_sample_init(&s);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        column_sample(st, &sel, &s);
        if (cb(&s, user)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_error(err, r->db, rc, r->path, "reading samples");
}

typedef struct sample_array {
    vec v;
    bool oom;
} sample_array;

static int push_sample(const sim_drivelog_sample *s, void *user)
{
    sample_array *a = user;
    sim_drivelog_sample *p = vec_push(&a->v, sizeof *p);
    if (!p) return a->oom = true;
    *p = *s;
    return 0;
}

int sim_drivelog_read_samples(sim_drivelog_reader *r, sim_drivelog_range range,
                              sim_drivelog_sample **out, size_t *n, sim_error *err)
{
    *out = NULL;
    *n = 0;
    sample_array a = {0};
    int ret = sim_drivelog_each_sample(r, range, NULL, 0, push_sample, &a, err);
    if (!ret && a.oom)
        ret = sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory reading samples", r->path);
    vec v = a.v;
    if (ret) {
        free(v.items);
        return ret;
    }
    *out = v.items;
    *n = v.n;
    if (v.n == 0) {
        free(v.items);
        *out = NULL;
    }
    return 0;
}

int sim_drivelog_read_last(sim_drivelog_reader *r, sim_drivelog_sample *out, sim_error *err)
{
    sample_sel sel;
    sample_sel_make(r, NULL, 0, &sel, NULL); /* all columns: cannot fail */
    char sql[700];
    snprintf(sql, sizeof sql, "SELECT %s FROM samples ORDER BY run DESC, tick DESC LIMIT 1",
             sel.sql);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return db_error(err, r->db, rc, r->path, "reading the last sample");
    rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW) column_sample(st, &sel, out);
    else if (rc == SQLITE_DONE)
        ret = sim_error_set(err, SIM_ENOTFOUND, "drive log %s: no samples", r->path);
    else
        ret = db_error(err, r->db, rc, r->path, "reading the last sample");
    sqlite3_finalize(st);
    return ret;
}

void sim_drivelog_events_free(sim_drivelog_event *events, size_t n)
{
    for (size_t i = 0; events && i < n; i++) {
        free(events[i].kind);
        free(events[i].name);
        free(events[i].json);
    }
    free(events);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    return v ? dup_str((const char *)v) : NULL;
}

int sim_drivelog_read_events(sim_drivelog_reader *r, sim_drivelog_range range,
                             sim_drivelog_event **out, size_t *n, sim_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int ret = prepare_range(r,
                            "SELECT run, t, kind, name, json FROM events WHERE (?1 < 0 OR run = ?1)"
                            " AND t BETWEEN ?2 AND ?3 ORDER BY run, t, id",
                            range, &st, err);
    if (ret) return ret;
    vec v = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sim_drivelog_event *e = vec_push(&v, sizeof *e);
        if (!e) {
            rc = SQLITE_NOMEM;
            break;
        }
        e->run = sqlite3_column_int64(st, 0);
        e->t = sqlite3_column_double(st, 1);
        e->kind = col_dup(st, 2);
        e->name = col_dup(st, 3);
        e->json = col_dup(st, 4);
        if (!e->kind || !e->name || (sqlite3_column_type(st, 4) != SQLITE_NULL && !e->json)) {
            v.n--;
            free(e->kind);
            free(e->name);
            free(e->json);
            rc = SQLITE_NOMEM;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        sim_drivelog_events_free(v.items, v.n);
        return db_error(err, r->db, rc, r->path, "reading events");
    }
    if (v.n == 0) {
        free(v.items);
        v.items = NULL;
    }
    *out = v.items;
    *n = v.n;
    return 0;
}

int sim_drivelog_read_meta(sim_drivelog_reader *r, const char *key, char *buf, size_t size,
                           sim_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL);
    if (rc != SQLITE_OK) return db_error(err, r->db, rc, r->path, "reading meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        if (size) snprintf(buf, size, "%s", v ? (const char *)v : "");
    } else if (rc == SQLITE_DONE) {
        ret = sim_error_set(err, SIM_ENOTFOUND, "drive log %s: meta key '%s' not found", r->path, key);
    } else {
        ret = db_error(err, r->db, rc, r->path, "reading meta");
    }
    sqlite3_finalize(st);
    return ret;
}

int sim_drivelog_read_runs(sim_drivelog_reader *r, int64_t **out, size_t *n, sim_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->db,
                                "SELECT DISTINCT run FROM samples UNION SELECT DISTINCT run FROM events"
                                " ORDER BY 1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) return db_error(err, r->db, rc, r->path, "reading runs");
    vec v = {0};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *p = vec_push(&v, sizeof *p);
        if (!p) {
            rc = SQLITE_NOMEM;
            break;
        }
        *p = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v.items);
        return db_error(err, r->db, rc, r->path, "reading runs");
    }
    *out = v.items;
    *n = v.n;
    return 0;
}

int sim_drivelog_span(sim_drivelog_reader *r, int64_t run, bool task, const char *id,
                      double *t_from, double *t_to, sim_error *err)
{
    sqlite3_stmt *st;
    const char *sql = task ? "SELECT min(t), max(t) FROM samples WHERE (?1 < 0 OR run = ?1) AND task = ?2"
                           : "SELECT min(t), max(t) FROM samples WHERE (?1 < 0 OR run = ?1) AND sector = ?2";
    int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return db_error(err, r->db, rc, r->path, "reading a span");
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    int ret = 0;
    if (rc != SQLITE_ROW) ret = db_error(err, r->db, rc, r->path, "reading a span");
    else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        ret = sim_error_set(err, SIM_ENOTFOUND, "drive log %s: no sample has %s '%s'", r->path,
                            task ? "task" : "sector", id);
    else {
        *t_from = sqlite3_column_double(st, 0);
        *t_to = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    return ret;
}

int sim_drivelog_find_gaps(sim_drivelog_reader *r, int64_t run, int64_t (*pairs)[2],
                           size_t max, size_t *n_gaps, sim_error *err)
{
    *n_gaps = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->db, "SELECT tick FROM samples WHERE run = ? ORDER BY tick", -1,
                                &st, NULL);
    if (rc != SQLITE_OK) return db_error(err, r->db, rc, r->path, "reading ticks");
    sqlite3_bind_int64(st, 1, run);
    int64_t prev = 0;
    bool first = true;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t tick = sqlite3_column_int64(st, 0);
        if (!first && tick != prev + 1) {
            if (*n_gaps < max) {
                pairs[*n_gaps][0] = prev;
                pairs[*n_gaps][1] = tick;
            }
            (*n_gaps)++;
        }
        prev = tick;
        first = false;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_error(err, r->db, rc, r->path, "reading ticks");
}

int sim_drivelog_read_messages(sim_drivelog_reader *r, sim_drivelog_range range,
                               const char *topic_prefix, sim_drivelog_message_cb cb,
                               void *user, sim_error *err)
{
    sqlite3_stmt *st;
    /* substr instead of LIKE: topics may contain '_' and '%'. */
    int ret = prepare_range(r,
                            "SELECT run, t, topic, line FROM messages WHERE (?1 < 0 OR run = ?1)"
                            " AND t BETWEEN ?2 AND ?3 AND substr(topic, 1, length(?4)) = ?4"
                            " ORDER BY run, t, id",
                            range, &st, err);
    if (ret) return ret;
    sqlite3_bind_text(st, 4, topic_prefix ? topic_prefix : "", -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *topic = (const char *)sqlite3_column_text(st, 2);
        const char *line = (const char *)sqlite3_column_text(st, 3);
        size_t len = (size_t)sqlite3_column_bytes(st, 3);
        if (cb(sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1), topic ? topic : "",
               line ? line : "", len, user)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_error(err, r->db, rc, r->path, "reading messages");
}

/* ---- naming ---- */

static void copy_safe(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (isalnum(c) || c == '.' || c == '_' || c == '-') ? (char)c : '_';
    }
    dst[i] = '\0';
}

int sim_drivelog_make_path(char *buf, size_t size, const char *dir, const char *study,
                           const char *subject, const char *scenario_file, int64_t unix_time,
                           sim_error *err)
{
    if (!dir || !study || !subject || !study[0] || !subject[0])
        return sim_error_set(err, SIM_EINVAL, "drive log name: dir, study and subject required");
    char st[128], su[128], sc[128];
    copy_safe(st, sizeof st, study);
    copy_safe(su, sizeof su, subject);
    if (scenario_file && scenario_file[0]) {
        const char *base = strrchr(scenario_file, '/');
        base = base ? base + 1 : scenario_file;
        copy_safe(sc, sizeof sc, base);
        char *dot = strrchr(sc, '.');
        if (dot && dot != sc) *dot = '\0';
    } else {
        snprintf(sc, sizeof sc, "none");
    }
    time_t tt = (time_t)unix_time;
    struct tm tm;
    if (!gmtime_r(&tt, &tm))
        return sim_error_set(err, SIM_ERANGE, "drive log name: time %lld out of range",
                             (long long)unix_time);
    char when[32];
    strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &tm);
    int n = snprintf(buf, size, "%s/%s/%s-%s-%s.sqlite", dir, st, su, sc, when);
    if (n < 0 || (size_t)n >= size)
        return sim_error_set(err, SIM_ETOOBIG, "drive log name: longer than %zu bytes", size);
    return 0;
}
