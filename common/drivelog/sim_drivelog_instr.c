/* sim_drivelog_instr: the instrument tables of a drive log (gaze, sensor,
 * sensor_channels, clock; see sim_drivelog.h): their schema, the writer's pending rows
 * and inserts, the readers and the CSV export. Kept apart from the samples writer so
 * that the 100 Hz table's code stays as it was.
 *
 * Why one row per channel value in sensor: a sensor's channels are not known in
 * advance (ECG has one, an IMU six), and a long table is what R and pandas pivot. */
#include "sim_drivelog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sim_drivelog_db.h"

static const char INSTR_SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS gaze("
    " id INTEGER PRIMARY KEY, run INTEGER NOT NULL, t REAL NOT NULL, tick INTEGER NOT NULL,"
    " src_t REAL, wall REAL NOT NULL, source TEXT NOT NULL, valid INTEGER NOT NULL,"
    " confidence REAL, yaw_deg REAL, pitch_deg REAL, area TEXT, target TEXT,"
    " surface_x REAL, surface_y REAL);"
    /* ifnull: NULLs are distinct in a UNIQUE index (see events_key) */
    "CREATE UNIQUE INDEX IF NOT EXISTS gaze_key ON gaze(source, wall, ifnull(src_t, 0));"
    "CREATE TABLE IF NOT EXISTS sensor("
    " id INTEGER PRIMARY KEY, run INTEGER NOT NULL, t REAL NOT NULL, tick INTEGER NOT NULL,"
    " src_t REAL, wall REAL NOT NULL, sensor TEXT NOT NULL, channel TEXT NOT NULL, value REAL);"
    "CREATE UNIQUE INDEX IF NOT EXISTS sensor_key ON sensor(sensor, channel, wall, ifnull(src_t, 0));"
    "CREATE TABLE IF NOT EXISTS sensor_channels("
    " sensor TEXT NOT NULL, channel TEXT NOT NULL, unit TEXT, PRIMARY KEY(sensor, channel)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS clock("
    " id INTEGER PRIMARY KEY, run INTEGER NOT NULL, t REAL NOT NULL, wall REAL NOT NULL,"
    " source TEXT NOT NULL, src_t REAL, recv_wall REAL, paused INTEGER NOT NULL);"
    "CREATE UNIQUE INDEX IF NOT EXISTS clock_key ON clock(source, wall, ifnull(src_t, 0));"
    "CREATE TABLE IF NOT EXISTS latency("
    " id INTEGER PRIMARY KEY, run INTEGER NOT NULL, t REAL NOT NULL, tick INTEGER NOT NULL,"
    " source TEXT NOT NULL, window_s REAL NOT NULL, frames INTEGER NOT NULL, min_ms REAL, median_ms REAL,"
    " p95_ms REAL, max_ms REAL, device_ms REAL, input_ms REAL, step_ms REAL, physics_ms REAL, wait_ms REAL,"
    " draw_ms REAL, swap_ms REAL);"
    "CREATE UNIQUE INDEX IF NOT EXISTS latency_key ON latency(source, run, t, window_s, frames);";

int64_t sim_drivelog_tick_of(double t)
{
    return (int64_t)floor(t / 0.01 + 1e-9);
}

static bool has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL))
        return false;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* Whether table has the column: a schema-3 file's gaze table lacks the surface point. */
static bool has_column(sqlite3 *db, const char *table, const char *column)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL)) return false;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *path, sim_error *err)
{
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    return rc == SQLITE_OK ? 0 : dl_db_error(err, db, rc, path, "preparing an instrument insert");
}

int dl_instr_open(sqlite3 *db, dl_instr *in, const char *path, sim_error *err)
{
    int rc = sqlite3_exec(db, INSTR_SCHEMA_SQL, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return dl_db_error(err, db, rc, path, "creating the instrument tables");
    if (!has_column(db, "gaze", "surface_x")) {
        /* a schema-3 file being resumed: its rows keep NULL there */
        rc = sqlite3_exec(db, "ALTER TABLE gaze ADD COLUMN surface_x REAL; ALTER TABLE gaze ADD COLUMN surface_y REAL;",
                          NULL, NULL, NULL);
        if (rc != SQLITE_OK) return dl_db_error(err, db, rc, path, "adding the gaze surface columns");
    }
    int ret;
    if ((ret = prep(db, "INSERT OR IGNORE INTO gaze(run, t, tick, src_t, wall, source, valid, confidence,"
                        " yaw_deg, pitch_deg, area, target, surface_x, surface_y) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    &in->ins_gaze, path, err)) ||
        (ret = prep(db, "INSERT OR IGNORE INTO sensor(run, t, tick, src_t, wall, sensor, channel, value)"
                        " VALUES(?,?,?,?,?,?,?,?)", &in->ins_sensor, path, err)) ||
        (ret = prep(db, "INSERT OR IGNORE INTO clock(run, t, wall, source, src_t, recv_wall, paused)"
                        " VALUES(?,?,?,?,?,?,?)", &in->ins_clock, path, err)) ||
        (ret = prep(db, "INSERT OR REPLACE INTO sensor_channels(sensor, channel, unit) VALUES(?,?,?)",
                    &in->ins_unit, path, err)) ||
        (ret = prep(db, "INSERT OR IGNORE INTO latency(run, t, tick, source, window_s, frames, min_ms, median_ms,"
                        " p95_ms, max_ms, device_ms, input_ms, step_ms, physics_ms, wait_ms, draw_ms, swap_ms)"
                        " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &in->ins_latency, path, err)) ||
        (ret = dl_motion_open(db, &in->ins_motion, path, err)))
        return ret;
    return 0;
}

size_t dl_instr_pending(const dl_instr *in)
{
    return in->gaze.n + in->sensor.n + in->clock.n + in->units.n + in->latency.n + in->motion.n;
}

static int step(sqlite3 *db, sqlite3_stmt *st, uint64_t *inserted)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_DONE && inserted) *inserted += (uint64_t)sqlite3_changes(db);
    return rc;
}

int dl_instr_insert(sqlite3 *db, dl_instr *in, uint64_t *inserted)
{
    int rc = SQLITE_DONE;
    const dl_unit *u = in->units.items;
    for (size_t i = 0; i < in->units.n && rc == SQLITE_DONE; i++) {
        dl_bind_text(in->ins_unit, 1, u[i].sensor);
        dl_bind_text(in->ins_unit, 2, u[i].channel);
        dl_bind_text(in->ins_unit, 3, u[i].unit);
        rc = step(db, in->ins_unit, NULL); /* a unit is a setting, not a row of the drive */
    }
    const sim_drivelog_gaze *g = in->gaze.items;
    for (size_t i = 0; i < in->gaze.n && rc == SQLITE_DONE; i++) {
        sqlite3_stmt *st = in->ins_gaze;
        sqlite3_bind_int64(st, 1, g[i].run);
        sqlite3_bind_double(st, 2, g[i].t);
        sqlite3_bind_int64(st, 3, sim_drivelog_tick_of(g[i].t));
        dl_bind_real(st, 4, g[i].src_t);
        sqlite3_bind_double(st, 5, g[i].wall);
        sqlite3_bind_text(st, 6, g[i].source, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 7, g[i].valid);
        dl_bind_real(st, 8, g[i].confidence);
        dl_bind_real(st, 9, g[i].yaw_deg);
        dl_bind_real(st, 10, g[i].pitch_deg);
        dl_bind_text(st, 11, g[i].area);
        dl_bind_text(st, 12, g[i].target);
        dl_bind_real(st, 13, g[i].surface_x);
        dl_bind_real(st, 14, g[i].surface_y);
        rc = step(db, st, inserted);
    }
    const sim_drivelog_sensor *s = in->sensor.items;
    for (size_t i = 0; i < in->sensor.n && rc == SQLITE_DONE; i++) {
        sqlite3_stmt *st = in->ins_sensor;
        sqlite3_bind_int64(st, 1, s[i].run);
        sqlite3_bind_double(st, 2, s[i].t);
        sqlite3_bind_int64(st, 3, sim_drivelog_tick_of(s[i].t));
        dl_bind_real(st, 4, s[i].src_t);
        sqlite3_bind_double(st, 5, s[i].wall);
        sqlite3_bind_text(st, 6, s[i].sensor, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, s[i].channel, -1, SQLITE_STATIC);
        dl_bind_real(st, 8, s[i].value);
        rc = step(db, st, inserted);
    }
    const sim_drivelog_clock *c = in->clock.items;
    for (size_t i = 0; i < in->clock.n && rc == SQLITE_DONE; i++) {
        sqlite3_stmt *st = in->ins_clock;
        sqlite3_bind_int64(st, 1, c[i].run);
        sqlite3_bind_double(st, 2, c[i].t);
        sqlite3_bind_double(st, 3, c[i].wall);
        sqlite3_bind_text(st, 4, c[i].source, -1, SQLITE_STATIC);
        dl_bind_real(st, 5, c[i].src_t);
        dl_bind_real(st, 6, c[i].recv_wall);
        sqlite3_bind_int(st, 7, c[i].paused);
        rc = step(db, st, inserted);
    }
    const sim_drivelog_latency *l = in->latency.items;
    for (size_t i = 0; i < in->latency.n && rc == SQLITE_DONE; i++) {
        sqlite3_stmt *st = in->ins_latency;
        sqlite3_bind_int64(st, 1, l[i].run);
        sqlite3_bind_double(st, 2, l[i].t);
        sqlite3_bind_int64(st, 3, sim_drivelog_tick_of(l[i].t));
        sqlite3_bind_text(st, 4, l[i].source, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 5, l[i].window_s);
        sqlite3_bind_int(st, 6, l[i].frames);
        dl_bind_real(st, 7, l[i].min_ms);
        dl_bind_real(st, 8, l[i].median_ms);
        dl_bind_real(st, 9, l[i].p95_ms);
        dl_bind_real(st, 10, l[i].max_ms);
        for (int k = 0; k < SIM_DRIVELOG_LATENCY_STAGES; k++) dl_bind_real(st, 11 + k, l[i].stage_ms[k]);
        rc = step(db, st, inserted);
    }
    if (rc == SQLITE_DONE) rc = dl_motion_insert(db, in->ins_motion, in->motion.items, in->motion.n, inserted);
    return rc;
}

void dl_instr_clear(dl_instr *in)
{
    in->gaze.n = in->sensor.n = in->clock.n = in->units.n = in->latency.n = in->motion.n = 0;
}

void dl_instr_close(dl_instr *in)
{
    sqlite3_finalize(in->ins_gaze);
    sqlite3_finalize(in->ins_sensor);
    sqlite3_finalize(in->ins_clock);
    sqlite3_finalize(in->ins_unit);
    sqlite3_finalize(in->ins_latency);
    sqlite3_finalize(in->ins_motion);
    free(in->latency.items);
    free(in->motion.items);
    free(in->gaze.items);
    free(in->sensor.items);
    free(in->clock.items);
    free(in->units.items);
    memset(in, 0, sizeof *in);
}

/* ---- appending ---- */

static void copy_id(char *dst, const char *src)
{
    snprintf(dst, SIM_DRIVELOG_ID_MAX, "%s", src ? src : "");
}

static int push(sim_drivelog_writer *w, dl_instr *in, vec *v, size_t size, const void *row, sim_error *err)
{
    (void)in;
    void *p = dl_vec_push(v, size);
    if (!p) return sim_error_set(err, SIM_ENOMEM, "drive log %s: out of memory", dl_writer_path(w));
    memcpy(p, row, size);
    return 0;
}

int sim_drivelog_append_gaze(sim_drivelog_writer *w, const sim_drivelog_gaze *g, sim_error *err)
{
    if (!isfinite(g->t) || !isfinite(g->wall) || !g->source[0])
        return sim_error_set(err, SIM_EINVAL, "drive log gaze row: t, wall and source required");
    dl_instr *in = dl_writer_instr(w, g->run, g->t, err);
    if (!in) return err ? err->code : SIM_ETOOBIG;
    return push(w, in, &in->gaze, sizeof *g, g, err);
}

int sim_drivelog_append_sensor(sim_drivelog_writer *w, const sim_drivelog_sensor *s, sim_error *err)
{
    if (!isfinite(s->t) || !isfinite(s->wall) || !s->sensor[0] || !s->channel[0])
        return sim_error_set(err, SIM_EINVAL, "drive log sensor row: t, wall, sensor and channel required");
    dl_instr *in = dl_writer_instr(w, s->run, s->t, err);
    if (!in) return err ? err->code : SIM_ETOOBIG;
    return push(w, in, &in->sensor, sizeof *s, s, err);
}

int sim_drivelog_append_clock(sim_drivelog_writer *w, const sim_drivelog_clock *c, sim_error *err)
{
    if (!isfinite(c->t) || !isfinite(c->wall) || !c->source[0])
        return sim_error_set(err, SIM_EINVAL, "drive log clock row: t, wall and source required");
    dl_instr *in = dl_writer_instr(w, c->run, c->t, err);
    if (!in) return err ? err->code : SIM_ETOOBIG;
    return push(w, in, &in->clock, sizeof *c, c, err);
}

int sim_drivelog_append_latency(sim_drivelog_writer *w, const sim_drivelog_latency *l, sim_error *err)
{
    if (!isfinite(l->t) || !isfinite(l->window_s) || l->frames < 1 || !l->source[0])
        return sim_error_set(err, SIM_EINVAL, "drive log latency row: t, window_s, frames >= 1 and source required");
    dl_instr *in = dl_writer_instr(w, l->run, l->t, err);
    if (!in) return err ? err->code : SIM_ETOOBIG;
    return push(w, in, &in->latency, sizeof *l, l, err);
}

int sim_drivelog_set_unit(sim_drivelog_writer *w, const char *sensor, const char *channel,
                          const char *unit, sim_error *err)
{
    if (!sensor || !sensor[0] || !channel || !channel[0])
        return sim_error_set(err, SIM_EINVAL, "drive log sensor unit: sensor and channel required");
    dl_unit u;
    copy_id(u.sensor, sensor);
    copy_id(u.channel, channel);
    snprintf(u.unit, sizeof u.unit, "%s", unit ? unit : "");
    dl_instr *in = dl_writer_instr(w, -1, NAN, err);
    if (!in) return err ? err->code : SIM_ETOOBIG;
    size_t k = 0;
    while (k < in->n_known && (strcmp(in->known[k].sensor, u.sensor) || strcmp(in->known[k].channel, u.channel)))
        k++;
    if (k < in->n_known && strcmp(in->known[k].unit, u.unit) == 0) return 0; /* said already */
    if (k < in->n_known) in->known[k] = u;
    else if (in->n_known < DL_UNITS_MAX) in->known[in->n_known++] = u;
    return push(w, in, &in->units, sizeof u, &u, err);
}

/* ---- reading ---- */

static double col_num(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void col_str(sqlite3_stmt *st, int i, char *out)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    snprintf(out, SIM_DRIVELOG_ID_MAX, "%s", v ? (const char *)v : "");
}

/* Runs sql bound to range (?1 run, ?2 ?3 t) and hands each row to row(); extra: ?4. */
typedef int (*row_fn)(sqlite3_stmt *st, void *cb, void *user);
static int each_row(sim_drivelog_reader *r, const char *table, const char *sql, sim_drivelog_range range,
                    const char *extra, row_fn row, void *cb, void *user, sim_error *err)
{
    sqlite3 *db = dl_reader_db(r);
    if (!has_table(db, table)) return 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return dl_db_error(err, db, rc, dl_reader_path(r), "query");
    dl_bind_range(st, range);
    if (extra) sqlite3_bind_text(st, 4, extra, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (row(st, cb, user)) {
            rc = SQLITE_DONE;
            break;
        }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : dl_db_error(err, db, rc, dl_reader_path(r), "reading instrument rows");
}

#define RANGE_SQL " WHERE (?1 < 0 OR run = ?1) AND t BETWEEN ?2 AND ?3"

static int gaze_row(sqlite3_stmt *st, void *cb, void *user)
{
    sim_drivelog_gaze g;
    g.run = sqlite3_column_int64(st, 0);
    g.t = col_num(st, 1);
    g.src_t = col_num(st, 2);
    g.wall = col_num(st, 3);
    col_str(st, 4, g.source);
    g.valid = sqlite3_column_int(st, 5) != 0;
    g.confidence = col_num(st, 6);
    g.yaw_deg = col_num(st, 7);
    g.pitch_deg = col_num(st, 8);
    col_str(st, 9, g.area);
    col_str(st, 10, g.target);
    g.surface_x = col_num(st, 11);
    g.surface_y = col_num(st, 12);
    return ((sim_drivelog_gaze_cb)cb)(&g, user);
}

int sim_drivelog_each_gaze(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_gaze_cb cb,
                           void *user, sim_error *err)
{
    static const char *const sql[] = {
        "SELECT run, t, src_t, wall, source, valid, confidence, yaw_deg, pitch_deg, area, target, surface_x,"
        " surface_y FROM gaze" RANGE_SQL " ORDER BY run, t, id",
        /* schema 3: no surface point */
        "SELECT run, t, src_t, wall, source, valid, confidence, yaw_deg, pitch_deg, area, target, NULL, NULL"
        " FROM gaze" RANGE_SQL " ORDER BY run, t, id"};
    bool surface = has_column(dl_reader_db(r), "gaze", "surface_x");
    return each_row(r, "gaze", sql[surface ? 0 : 1], range, NULL, gaze_row, (void *)cb, user, err);
}

static int sensor_row(sqlite3_stmt *st, void *cb, void *user)
{
    sim_drivelog_sensor s;
    s.run = sqlite3_column_int64(st, 0);
    s.t = col_num(st, 1);
    s.src_t = col_num(st, 2);
    s.wall = col_num(st, 3);
    col_str(st, 4, s.sensor);
    col_str(st, 5, s.channel);
    s.value = col_num(st, 6);
    const unsigned char *unit = sqlite3_column_text(st, 7);
    return ((sim_drivelog_sensor_cb)cb)(&s, unit ? (const char *)unit : "", user);
}

int sim_drivelog_each_sensor(sim_drivelog_reader *r, sim_drivelog_range range, const char *sensor,
                             sim_drivelog_sensor_cb cb, void *user, sim_error *err)
{
    return each_row(r, "sensor",
                    "SELECT s.run, s.t, s.src_t, s.wall, s.sensor, s.channel, s.value, u.unit FROM sensor s"
                    " LEFT JOIN sensor_channels u ON u.sensor = s.sensor AND u.channel = s.channel"
                    " WHERE (?1 < 0 OR s.run = ?1) AND s.t BETWEEN ?2 AND ?3 AND (?4 IS NULL OR s.sensor = ?4)"
                    " ORDER BY s.run, s.t, s.id", range, sensor, sensor_row, (void *)cb, user, err);
}

static int clock_row(sqlite3_stmt *st, void *cb, void *user)
{
    sim_drivelog_clock c;
    c.run = sqlite3_column_int64(st, 0);
    c.t = col_num(st, 1);
    c.wall = col_num(st, 2);
    col_str(st, 3, c.source);
    c.src_t = col_num(st, 4);
    c.recv_wall = col_num(st, 5);
    c.paused = sqlite3_column_int(st, 6) != 0;
    return ((sim_drivelog_clock_cb)cb)(&c, user);
}

int sim_drivelog_each_clock(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_clock_cb cb,
                            void *user, sim_error *err)
{
    return each_row(r, "clock",
                    "SELECT run, t, wall, source, src_t, recv_wall, paused FROM clock" RANGE_SQL
                    " ORDER BY run, wall, id", range, NULL, clock_row, (void *)cb, user, err);
}

static int latency_row(sqlite3_stmt *st, void *cb, void *user)
{
    sim_drivelog_latency l;
    l.run = sqlite3_column_int64(st, 0);
    l.t = col_num(st, 1);
    col_str(st, 2, l.source);
    l.window_s = col_num(st, 3);
    l.frames = sqlite3_column_int(st, 4);
    l.min_ms = col_num(st, 5);
    l.median_ms = col_num(st, 6);
    l.p95_ms = col_num(st, 7);
    l.max_ms = col_num(st, 8);
    for (int k = 0; k < SIM_DRIVELOG_LATENCY_STAGES; k++) l.stage_ms[k] = col_num(st, 9 + k);
    return ((sim_drivelog_latency_cb)cb)(&l, user);
}

int sim_drivelog_each_latency(sim_drivelog_reader *r, sim_drivelog_range range, sim_drivelog_latency_cb cb,
                              void *user, sim_error *err)
{
    return each_row(r, "latency",
                    "SELECT run, t, source, window_s, frames, min_ms, median_ms, p95_ms, max_ms, device_ms, input_ms,"
                    " step_ms, physics_ms, wait_ms, draw_ms, swap_ms FROM latency" RANGE_SQL " ORDER BY run, t, id",
                    range, NULL, latency_row, (void *)cb, user, err);
}

/* ---- CSV ---- */

/* The shortest text that reads back as v (as sim_drivelog_csv does); NULL is empty. */
static void put_num(FILE *f, double v)
{
    if (isnan(v)) return;
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        for (char *p = buf; *p; p++)
            if (*p == ',') *p = '.';
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

static int gaze_csv(const sim_drivelog_gaze *g, void *user)
{
    FILE *f = user;
    fprintf(f, "%lld,", (long long)g->run);
    put_num(f, g->t);
    fprintf(f, ",%lld,", (long long)sim_drivelog_tick_of(g->t));
    put_num(f, g->src_t);
    fputc(',', f);
    put_num(f, g->wall);
    fputc(',', f);
    sim_csv_field(f, g->source);
    fprintf(f, ",%d,", g->valid);
    put_num(f, g->confidence);
    fputc(',', f);
    put_num(f, g->yaw_deg);
    fputc(',', f);
    put_num(f, g->pitch_deg);
    fputc(',', f);
    sim_csv_field(f, g->area);
    fputc(',', f);
    sim_csv_field(f, g->target);
    fputc(',', f);
    put_num(f, g->surface_x);
    fputc(',', f);
    put_num(f, g->surface_y);
    fputs("\r\n", f);
    return 0;
}

static int sensor_csv(const sim_drivelog_sensor *s, const char *unit, void *user)
{
    FILE *f = user;
    fprintf(f, "%lld,", (long long)s->run);
    put_num(f, s->t);
    fprintf(f, ",%lld,", (long long)sim_drivelog_tick_of(s->t));
    put_num(f, s->src_t);
    fputc(',', f);
    put_num(f, s->wall);
    fputc(',', f);
    sim_csv_field(f, s->sensor);
    fputc(',', f);
    sim_csv_field(f, s->channel);
    fputc(',', f);
    put_num(f, s->value);
    fputc(',', f);
    sim_csv_field(f, unit);
    fputs("\r\n", f);
    return 0;
}

static int clock_csv(const sim_drivelog_clock *c, void *user)
{
    FILE *f = user;
    fprintf(f, "%lld,", (long long)c->run);
    put_num(f, c->t);
    fputc(',', f);
    put_num(f, c->wall);
    fputc(',', f);
    sim_csv_field(f, c->source);
    fputc(',', f);
    put_num(f, c->src_t);
    fputc(',', f);
    put_num(f, c->recv_wall);
    fprintf(f, ",%d\r\n", c->paused);
    return 0;
}

static int export_one(sim_drivelog_reader *r, sim_drivelog_range range, const char *dir, int which,
                      sim_error *err)
{
    static const char *const names[] = {"gaze.csv", "sensor.csv", "clock.csv"};
    static const char *const headers[] = {
        "run,t,tick,src_t,wall,source,valid,confidence,yaw_deg,pitch_deg,area,target,surface_x,surface_y\r\n",
        "run,t,tick,src_t,wall,sensor,channel,value,unit\r\n",
        "run,t,wall,source,src_t,recv_wall,paused\r\n"};
    char path[4096], tmp[4100];
    if (snprintf(path, sizeof path, "%s/%s", dir, names[which]) >= (int)sizeof path)
        return sim_error_set(err, SIM_ETOOBIG, "export: directory name too long");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return sim_error_set(err, SIM_EIO, "export: cannot create %s: %s", tmp, strerror(errno));
    fputs(headers[which], f);
    int ret = which == 0 ? sim_drivelog_each_gaze(r, range, gaze_csv, f, err)
              : which == 1 ? sim_drivelog_each_sensor(r, range, NULL, sensor_csv, f, err)
                           : sim_drivelog_each_clock(r, range, clock_csv, f, err);
    if (!ret && ferror(f)) ret = sim_error_set(err, SIM_EIO, "export: writing %s failed: %s", tmp, strerror(errno));
    if (fclose(f) != 0 && !ret)
        ret = sim_error_set(err, SIM_EIO, "export: writing %s failed: %s", tmp, strerror(errno));
    if (!ret && rename(tmp, path) != 0)
        ret = sim_error_set(err, SIM_EIO, "export: cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (ret) remove(tmp);
    return ret;
}

int sim_drivelog_export_instruments_csv(sim_drivelog_reader *r, sim_drivelog_range range, const char *dir,
                                        sim_error *err)
{
    int ret = 0;
    for (int i = 0; i < 3 && !ret; i++) ret = export_one(r, range, dir, i, err);
    return ret;
}
