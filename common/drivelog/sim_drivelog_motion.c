/* sim_drivelog_motion: the motion table of a drive log (schema 6, sim_drivelog.h): a
 * motion base's commanded motion, one row per motion.state. Everything about the table
 * (the struct, its SQL, the insert's binding, the reader) is made from one column list,
 * SIM_DRIVELOG_MOTION_COLUMNS. The writer's pending rows live with the instruments'
 * (dl_instr), which call in here. */
#include "sim_drivelog.h"
#include "sim_offset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sim_drivelog_db.h"

#define SIZE_OF(type)                                                                                       \
    ((type) == SIM_DRIVELOG_INT ? sizeof(int32_t) : (type) == SIM_DRIVELOG_ID ? (size_t)SIM_DRIVELOG_ID_MAX \
                                                                                : sizeof(double))
#define COLUMN(name, NAME, type)                                                                            \
    {#name, SIM_DRIVELOG_##type, SIM_OFFSETOF(sim_drivelog_motion, name, SIZE_OF(SIM_DRIVELOG_##type))},
const sim_drivelog_column sim_drivelog_motion_columns[SIM_DRIVELOG_MOTION_N_COLUMNS] = {
    SIM_DRIVELOG_MOTION_COLUMNS(COLUMN)
};
#undef COLUMN

#define SQL_NAME(name, NAME, type) #name ","
#define SQL_PARAM(name, NAME, type) "?,"

static const char MOTION_SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS motion(id INTEGER PRIMARY KEY," SIM_DRIVELOG_MOTION_COLUMNS(SQL_COLUMN)
    " UNIQUE(run, step, t));";
/* the lists end in a comma: id is NULL (the rowid), named last */
static const char MOTION_INSERT_SQL[] =
    "INSERT OR IGNORE INTO motion(" SIM_DRIVELOG_MOTION_COLUMNS(SQL_NAME) "id) VALUES("
    SIM_DRIVELOG_MOTION_COLUMNS(SQL_PARAM) "NULL)";
static const char MOTION_SELECT_SQL[] =
    "SELECT " SIM_DRIVELOG_MOTION_COLUMNS(SQL_NAME) "id FROM motion"
    " WHERE (?1 < 0 OR run = ?1) AND t BETWEEN ?2 AND ?3 ORDER BY run, t, step, id";

void sim_drivelog_motion_init(sim_drivelog_motion *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < SIM_DRIVELOG_MOTION_N_COLUMNS; i++) {
        const sim_drivelog_column *c = &sim_drivelog_motion_columns[i];
        char *p = (char *)m + c->offset;
        if (c->type == SIM_DRIVELOG_REAL) *(double *)p = NAN;
        else if (c->type == SIM_DRIVELOG_INT) *(int32_t *)p = SIM_DRIVELOG_NULL_INT;
    }
}

int dl_motion_open(sqlite3 *db, sqlite3_stmt **ins, const char *path, sim_error *err)
{
    int rc = sqlite3_exec(db, MOTION_SCHEMA_SQL, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return dl_db_error(err, db, rc, path, "creating the motion table");
    rc = sqlite3_prepare_v3(db, MOTION_INSERT_SQL, -1, SQLITE_PREPARE_PERSISTENT, ins, NULL);
    return rc == SQLITE_OK ? 0 : dl_db_error(err, db, rc, path, "preparing the motion insert");
}

int dl_motion_insert(sqlite3 *db, sqlite3_stmt *st, const sim_drivelog_motion *rows, size_t n, uint64_t *inserted)
{
    int rc = SQLITE_DONE;
    for (size_t r = 0; r < n && rc == SQLITE_DONE; r++) {
        for (int i = 0; i < SIM_DRIVELOG_MOTION_N_COLUMNS; i++) {
            const sim_drivelog_column *c = &sim_drivelog_motion_columns[i];
            const char *p = (const char *)&rows[r] + c->offset;
            switch (c->type) {
            case SIM_DRIVELOG_I64: sqlite3_bind_int64(st, i + 1, *(const int64_t *)p); break;
            case SIM_DRIVELOG_F64: sqlite3_bind_double(st, i + 1, *(const double *)p); break;
            case SIM_DRIVELOG_REAL: dl_bind_real(st, i + 1, *(const double *)p); break;
            case SIM_DRIVELOG_INT: dl_bind_int(st, i + 1, *(const int32_t *)p); break;
            case SIM_DRIVELOG_ID: dl_bind_text(st, i + 1, p); break;
            }
        }
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc == SQLITE_DONE && inserted) *inserted += (uint64_t)sqlite3_changes(db);
    }
    return rc;
}

int sim_drivelog_append_motion(sim_drivelog_writer *w, const sim_drivelog_motion *m, sim_error *err)
{
    if (!isfinite(m->t) || m->step < 0 || !m->platform[0])
        return sim_error_set(err, SIM_EINVAL, "drive log motion row: t, step >= 0 and platform required");
    dl_instr *in = dl_writer_instr(w, m->run, m->t, err);
    if (!in) return err ? err->code : SIM_ETOOBIG;
    sim_drivelog_motion *p = dl_vec_push(&in->motion, sizeof *p);
    if (!p) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", dl_writer_path(w));
    *p = *m;
    p->tick = sim_drivelog_tick_of(m->t);
    return 0;
}

static bool has_motion(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='motion'", -1, &st, NULL))
        return false;
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

static void read_row(sqlite3_stmt *st, sim_drivelog_motion *m)
{
    for (int i = 0; i < SIM_DRIVELOG_MOTION_N_COLUMNS; i++) {
        const sim_drivelog_column *c = &sim_drivelog_motion_columns[i];
        char *p = (char *)m + c->offset;
        bool null = sqlite3_column_type(st, i) == SQLITE_NULL;
        switch (c->type) {
        case SIM_DRIVELOG_I64: *(int64_t *)p = sqlite3_column_int64(st, i); break;
        case SIM_DRIVELOG_INT: *(int32_t *)p = null ? SIM_DRIVELOG_NULL_INT : sqlite3_column_int(st, i); break;
        case SIM_DRIVELOG_F64:
        case SIM_DRIVELOG_REAL: *(double *)p = null ? NAN : sqlite3_column_double(st, i); break;
        case SIM_DRIVELOG_ID: {
            const unsigned char *v = sqlite3_column_text(st, i);
            snprintf(p, SIM_DRIVELOG_ID_MAX, "%s", v ? (const char *)v : "");
            break;
        }
        }
    }
}

int sim_drivelog_each_motion(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_motion_cb cb, void *user,
                             sim_error *err)
{
    sqlite3 *db = dl_reader_db(r);
    if (!has_motion(db)) return 0; /* a log before schema 6 */
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, MOTION_SELECT_SQL, -1, &st, NULL);
    if (rc != SQLITE_OK) return dl_db_error(err, db, rc, dl_reader_path(r), "query");
    dl_bind_range(st, range);
    sim_drivelog_motion m;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        read_row(st, &m);
        if (cb(&m, user)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dl_db_error(err, db, rc, dl_reader_path(r), "reading motion rows");
}
