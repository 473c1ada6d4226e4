/* sim_drivelog: what the drive-log writer and reader share (see sim_drivelog.h): the
 * file's identity (application_id, schema version), SQLite errors in words, the empty
 * sample, and file naming. The writer is in sim_drivelog_write.c, the reader in
 * sim_drivelog_read.c. */
#include "sim_drivelog.h"
#include "sim_offset.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim_drivelog_db.h"

char *dl_dup_str(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}


void *dl_vec_push(vec *v, size_t elem)
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
const char *dl_sqlite_cause(sqlite3 *db, int rc, char *buf, size_t size)
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

const char *dl_write_cause(sqlite3 *db, int rc, const char *path, char *buf, size_t size)
{
    /* A filesystem turned read-only under an open file reaches SQLite as an I/O error
     * ("disk I/O error"): name it for what it is. */
    int sys = db ? sqlite3_system_errno(db) : 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    struct statvfs vfs;
    int code = rc & 0xff;
    if (sys == EROFS || ((code == SQLITE_IOERR || code == SQLITE_READONLY || code == SQLITE_CANTOPEN) &&
                         statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))) {
        snprintf(buf, size, "the filesystem holding the file is read-only (%s)", strerror(EROFS));
        return buf;
    }
    return dl_sqlite_cause(db, rc, buf, size);
}

int dl_db_error(sim_error *err, sqlite3 *db, int rc, const char *path, const char *what)
{
    int code = (rc & 0xff) == SQLITE_NOTADB ? SIM_EINVAL : SIM_EIO;
    char cause[256];
    return sim_error_set(err, code, "drive log %s: %s: %s", path, what,
                         dl_write_cause(db, rc, path, cause, sizeof cause));
}


/* The size a column's member has by its type: SIM_OFFSETOF refuses a mismatch. */
#define COLUMN_SIZE(type)                                                                                   \
    ((type) == SIM_DRIVELOG_INT ? sizeof(int32_t) : (type) == SIM_DRIVELOG_ID ? (size_t)SIM_DRIVELOG_ID_MAX \
                                                                                : sizeof(double))
#define COLUMN(name, NAME, type)                                                                            \
    {#name, SIM_DRIVELOG_##type, SIM_OFFSETOF(sim_drivelog_sample, name, COLUMN_SIZE(SIM_DRIVELOG_##type))},
const sim_drivelog_column sim_drivelog_columns[SIM_DRIVELOG_N_COLUMNS] = {
    SIM_DRIVELOG_SAMPLE_COLUMNS(COLUMN)
};
#undef COLUMN

const sim_drivelog_column *sim_drivelog_column_named(const char *name)
{
    for (int i = 0; name && i < SIM_DRIVELOG_N_COLUMNS; i++)
        if (strcmp(sim_drivelog_columns[i].name, name) == 0) return &sim_drivelog_columns[i];
    return NULL;
}

double sim_drivelog_sample_number(const sim_drivelog_sample *s, const sim_drivelog_column *c)
{
    const char *p = (const char *)s + c->offset;
    switch (c->type) {
    case SIM_DRIVELOG_I64: return (double)*(const int64_t *)p;
    case SIM_DRIVELOG_F64:
    case SIM_DRIVELOG_REAL: return *(const double *)p;
    case SIM_DRIVELOG_INT: return *(const int32_t *)p == SIM_DRIVELOG_NULL_INT ? NAN : *(const int32_t *)p;
    case SIM_DRIVELOG_ID: return NAN;
    }
    return NAN;
}

void sim_drivelog_sample_init(sim_drivelog_sample *s)
{
    for (int i = 0; i < SIM_DRIVELOG_N_COLUMNS; i++) {
        char *p = (char *)s + sim_drivelog_columns[i].offset;
        switch (sim_drivelog_columns[i].type) {
        case SIM_DRIVELOG_I64: *(int64_t *)p = 0; break;
        case SIM_DRIVELOG_F64: *(double *)p = 0; break;
        case SIM_DRIVELOG_REAL: *(double *)p = NAN; break;
        case SIM_DRIVELOG_INT: *(int32_t *)p = SIM_DRIVELOG_NULL_INT; break;
        case SIM_DRIVELOG_ID: p[0] = '\0'; break;
        }
    }
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
int dl_check_identity(sqlite3 *db, const char *path, bool *empty, int *schema, sim_error *err)
{
    int64_t app = 0, version = 0, tables = 0;
    *schema = SIM_DRIVELOG_SCHEMA_VERSION;
    int rc = pragma_int(db, "PRAGMA application_id", &app);
    if (rc == SQLITE_OK) rc = pragma_int(db, "PRAGMA user_version", &version);
    if (rc == SQLITE_OK)
        rc = pragma_int(db, "SELECT count(*) FROM sqlite_master", &tables);
    if (rc != SQLITE_OK) return dl_db_error(err, db, rc, path, "reading the header");
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
    /* "." and ".." are folders of their own: the log must stay under dir whatever the
     * study is called (--study .. wrote it beside dir). */
    if (strspn(st, ".") == strlen(st)) memset(st, '_', strlen(st));
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

int sim_drivelog_remove(const char *path)
{
    static const char *const sides[] = {"-wal", "-shm", "-reserve"};
    for (size_t i = 0; i < 3; i++) {
        char *side = malloc(strlen(path) + 9);
        if (!side) break;
        sprintf(side, "%s%s", path, sides[i]);
        unlink(side);
        free(side);
    }
    return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}
