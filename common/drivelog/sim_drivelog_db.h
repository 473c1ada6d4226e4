/* sim_drivelog_db.h: private to the drive-log files (sim_drivelog*.c): what the
 * writer and the reader share. Not part of libsim's interface. */
#ifndef SIM_DRIVELOG_DB_H
#define SIM_DRIVELOG_DB_H

#include <stdbool.h>
#include <sqlite3.h>

#include "sim_drivelog.h"

/* 'SIMD' in the SQLite header's application_id field: marks a file as a drive log. */
#define DRIVELOG_APP_ID 0x53494d44

/* strdup (NULL for NULL). */
char *dl_dup_str(const char *s);

/* Names the SQLite failure in words a person can act on, with the operating system's
 * own reason (ENOSPC, EFBIG, EACCES, ...) when there is one; returns buf. */
const char *dl_sqlite_cause(sqlite3 *db, int rc, char *buf, size_t size);
/* The same for a write to the file at path, naming a read-only filesystem as such
 * (SQLite reports one as a plain I/O error). */
const char *dl_write_cause(sqlite3 *db, int rc, const char *path, char *buf, size_t size);

/* Sets err to "drive log PATH: WHAT: cause", SIM_EINVAL for a file that is not a
 * database, else SIM_EIO; returns the code. */
int dl_db_error(sim_error *err, sqlite3 *db, int rc, const char *path, const char *what);

/* Checks that db is a drive log this code can read (or an empty file). Sets *empty
 * when the file has no tables yet and *schema to its version. */
int dl_check_identity(sqlite3 *db, const char *path, bool *empty, int *schema, sim_error *err);

/* A growable array of one element type; plain storage, its user owns items. */
typedef struct vec {
    void *items;
    size_t n, cap;
} vec;

/* Room for one more element of size elem at the end (NULL when out of memory). */
void *dl_vec_push(vec *v, size_t elem);

#endif
