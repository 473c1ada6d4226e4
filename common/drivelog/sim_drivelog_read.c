/* sim_drivelog_read: the drive-log reader (see sim_drivelog.h): opening a log
 * (also one left by a killed writer), samples with any subset of their columns,
 * events, meta, runs, spans and the raw messages. */
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

#include "sim_drivelog_db.h"

struct sim_drivelog_reader {
    sqlite3 *db;
    char *path;
    int version; /* the file's schema version */
};

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

/* Reading any subset of the columns with one decoder walks sim_drivelog_columns. */
enum { N_FIELDS = SIM_DRIVELOG_N_COLUMNS };
#define FIELDS sim_drivelog_columns

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
        /* A version-1 file has no road column: it is selected as NULL. */
        bool absent = r->version < 2 && strcmp(FIELDS[f].name, "road") == 0;
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
        const sim_drivelog_column *f = &FIELDS[sel->field[j]];
        char *p = (char *)s + f->offset;
        switch (f->type) {
        case SIM_DRIVELOG_I64: *(int64_t *)p = sqlite3_column_int64(st, j); break;
        case SIM_DRIVELOG_INT: *(int32_t *)p = col_int(st, j); break;
        case SIM_DRIVELOG_F64:
        case SIM_DRIVELOG_REAL: *(double *)p = col_double(st, j); break;
        case SIM_DRIVELOG_ID: col_id(st, j, p); break;
        }
    }
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
    if (!r || !(r->path = dl_dup_str(path))) {
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
    if (rc != SQLITE_OK) ret = dl_db_error(err, r->db, rc, path, "cannot open");
    else {
        sqlite3_busy_timeout(r->db, 2000);
        ret = dl_check_identity(r->db, path, &empty, &r->version, err);
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

sqlite3 *dl_reader_db(sim_drivelog_reader *r) { return r->db; }
const char *dl_reader_path(const sim_drivelog_reader *r) { return r->path; }

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
    if (rc != SQLITE_OK) return dl_db_error(err, r->db, rc, r->path, "query");
    dl_bind_range(*st, range);
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
    return rc == SQLITE_DONE ? 0 : dl_db_error(err, r->db, rc, r->path, "reading samples");
}

typedef struct sample_array {
    vec v;
    bool oom;
} sample_array;

static int push_sample(const sim_drivelog_sample *s, void *user)
{
    sample_array *a = user;
    sim_drivelog_sample *p = dl_vec_push(&a->v, sizeof *p);
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
    if (rc != SQLITE_OK) return dl_db_error(err, r->db, rc, r->path, "reading the last sample");
    rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW) column_sample(st, &sel, out);
    else if (rc == SQLITE_DONE)
        ret = sim_error_set(err, SIM_ENOTFOUND, "drive log %s: no samples", r->path);
    else
        ret = dl_db_error(err, r->db, rc, r->path, "reading the last sample");
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
    return v ? dl_dup_str((const char *)v) : NULL;
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
        sim_drivelog_event *e = dl_vec_push(&v, sizeof *e);
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
        return dl_db_error(err, r->db, rc, r->path, "reading events");
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
    if (rc != SQLITE_OK) return dl_db_error(err, r->db, rc, r->path, "reading meta");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    int ret = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        if (size) snprintf(buf, size, "%s", v ? (const char *)v : "");
    } else if (rc == SQLITE_DONE) {
        ret = sim_error_set(err, SIM_ENOTFOUND, "drive log %s: meta key '%s' not found", r->path, key);
    } else {
        ret = dl_db_error(err, r->db, rc, r->path, "reading meta");
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
    if (rc != SQLITE_OK) return dl_db_error(err, r->db, rc, r->path, "reading runs");
    vec v = {0};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *p = dl_vec_push(&v, sizeof *p);
        if (!p) {
            rc = SQLITE_NOMEM;
            break;
        }
        *p = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(v.items);
        return dl_db_error(err, r->db, rc, r->path, "reading runs");
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
    if (rc != SQLITE_OK) return dl_db_error(err, r->db, rc, r->path, "reading a span");
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    int ret = 0;
    if (rc != SQLITE_ROW) ret = dl_db_error(err, r->db, rc, r->path, "reading a span");
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
    if (rc != SQLITE_OK) return dl_db_error(err, r->db, rc, r->path, "reading ticks");
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
    return rc == SQLITE_DONE ? 0 : dl_db_error(err, r->db, rc, r->path, "reading ticks");
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
    return rc == SQLITE_DONE ? 0 : dl_db_error(err, r->db, rc, r->path, "reading messages");
}

