/* sim_drivelog_db.h: private to the drive-log files (sim_drivelog*.c): what the
 * writer and the reader share. Not part of libsim's interface. */
#ifndef SIM_DRIVELOG_DB_H
#define SIM_DRIVELOG_DB_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "sim_drivelog.h"

/* 'SIMD' in the SQLite header's application_id field: marks a file as a drive log. */
#define DRIVELOG_APP_ID 0x53494d44

/* strdup (NULL for NULL). */
char *dl_dup_str(const char *s);

/* Binding a row's values: NAN, SIM_DRIVELOG_NULL_INT and NULL or "" are SQL NULL (the
 * missing values of sim_drivelog.h); text is bound SQLITE_STATIC (the caller keeps it
 * until the statement is stepped). The one copy for the writer and the instruments. */
static inline void dl_bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v)) sqlite3_bind_null(st, i);
    else sqlite3_bind_double(st, i, v);
}
static inline void dl_bind_int(sqlite3_stmt *st, int i, int32_t v)
{
    if (v == SIM_DRIVELOG_NULL_INT) sqlite3_bind_null(st, i);
    else sqlite3_bind_int(st, i, v);
}
static inline void dl_bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (!v || !v[0]) sqlite3_bind_null(st, i);
    else sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

/* A column list's (SIM_DRIVELOG_*_COLUMNS) SQL declaration, "name TYPE," per column:
 * the one mapping from the column types to SQL for every table made from a list. */
#define SQL_I64 "INTEGER NOT NULL"
#define SQL_F64 "REAL NOT NULL"
#define SQL_REAL "REAL"
#define SQL_INT "INTEGER"
#define SQL_ID "TEXT"
#define SQL_COLUMN(name, NAME, type) " " #name " " SQL_##type ","

/* Binds a range to a statement's ?1 (run), ?2 and ?3 (t from, to; a nanosecond of
 * slack either side, so that a bound given as a logged time includes its row). */
static inline void dl_bind_range(sqlite3_stmt *st, sim_drivelog_range range)
{
    sqlite3_bind_int64(st, 1, range.run);
    sqlite3_bind_double(st, 2, isinf(range.t_from) ? -1e300 : range.t_from - 1e-9);
    sqlite3_bind_double(st, 3, isinf(range.t_to) ? 1e300 : range.t_to + 1e-9);
}

/* CSV fields: sim_csv_field (ids and names come from bus messages, so any of them may
 * hold a comma, quote or line break). */
#include "sim_csv.h"

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

/* ---- instruments (sim_drivelog_instr.c): the writer's part for the gaze, sensor and
 * clock tables ---- */
#define DL_UNITS_MAX 256
typedef struct dl_unit {
    char sensor[SIM_DRIVELOG_ID_MAX], channel[SIM_DRIVELOG_ID_MAX], unit[32];
} dl_unit;
typedef struct dl_instr {
    sqlite3_stmt *ins_gaze, *ins_sensor, *ins_clock, *ins_unit, *ins_latency, *ins_motion;
    vec gaze, sensor, clock, units, latency, motion; /* pending rows (units: dl_unit) */
    dl_unit known[DL_UNITS_MAX];    /* units written or pending, to write each once */
    size_t n_known;
} dl_instr;
/* Creates the tables (IF NOT EXISTS) and prepares the inserts. */
int dl_instr_open(sqlite3 *db, dl_instr *in, const char *path, sim_error *err);
size_t dl_instr_pending(const dl_instr *in);
/* Inserts everything pending (inside the writer's transaction); SQLite's code. */
int dl_instr_insert(sqlite3 *db, dl_instr *in, uint64_t *inserted);
void dl_instr_clear(dl_instr *in);
void dl_instr_close(dl_instr *in);
/* The writer's instruments part after its room check (SIM_ETOOBIG with err set when
 * too many rows are pending); sets the writer's newest run and t. */
dl_instr *dl_writer_instr(sim_drivelog_writer *w, int64_t run, double t, sim_error *err);
const char *dl_writer_path(const sim_drivelog_writer *w);
/* The motion table (sim_drivelog_motion.c): creates it and prepares its insert; inserts
 * n pending rows (SQLite's code). */
int dl_motion_open(sqlite3 *db, sqlite3_stmt **ins, const char *path, sim_error *err);
int dl_motion_insert(sqlite3 *db, sqlite3_stmt *st, const sim_drivelog_motion *rows, size_t n, uint64_t *inserted);
/* The reader's connection and file name, for the instruments' queries. */
sqlite3 *dl_reader_db(sim_drivelog_reader *r);
const char *dl_reader_path(const sim_drivelog_reader *r);

#endif
