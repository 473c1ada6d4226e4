/* sim_context: opening the context database and the scenario's tables (sim_context.h).
 * POI queries are in sim_context_poi.c, the message stack and key-values in
 * sim_context_store.c, study tables in sim_context_table.c. */
#include "sim_context_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Schema version 1 (docs/context.md). Scenario tables are emptied and refilled on a
 * rebuild; messages, kv and study_tables are never touched by one. */
static const char SCHEMA_SQL[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE pois(pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
    " category TEXT NOT NULL, x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL, road TEXT, s REAL, d REAL,"
    " attributes TEXT);"
    "CREATE TABLE categories(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    /* Integer centimetres (positions are kept to the centimetre), the category as the
     * third dimension so that a query for one category prunes by it; no auxiliary
     * columns, whose lookups would double the cost of a query. */
    "CREATE VIRTUAL TABLE pois_rtree USING rtree_i32(pk, min_x, max_x, min_y, max_y, min_c, max_c);"
    "CREATE VIRTUAL TABLE pois_fts USING fts5(name, category, content='pois', content_rowid='pk');"
    "CREATE TABLE roads(pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT, length REAL NOT NULL,"
    " junction TEXT, lanes_left INTEGER NOT NULL, lanes_right INTEGER NOT NULL, speed_kmh REAL);"
    "CREATE TABLE lanes(pk INTEGER PRIMARY KEY, road TEXT NOT NULL, section INTEGER NOT NULL, s0 REAL NOT NULL,"
    " s1 REAL NOT NULL, lane INTEGER NOT NULL, type TEXT NOT NULL, width REAL NOT NULL, forward INTEGER NOT NULL,"
    " speed_kmh REAL);"
    "CREATE TABLE junctions(pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT,"
    " connections INTEGER NOT NULL);"
    "CREATE TABLE road_links(pk INTEGER PRIMARY KEY, from_road TEXT NOT NULL, to_road TEXT NOT NULL,"
    " junction TEXT);"
    "CREATE TABLE signs(pk INTEGER PRIMARY KEY, road TEXT NOT NULL, s REAL NOT NULL, d REAL NOT NULL,"
    " type TEXT NOT NULL, value REAL, text TEXT);"
    "CREATE TABLE messages(id INTEGER PRIMARY KEY AUTOINCREMENT, priority INTEGER NOT NULL,"
    " display TEXT NOT NULL, text TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending'"
    " CHECK(state IN ('pending', 'shown', 'acked')), t_pushed REAL, t_shown REAL, t_acked REAL);"
    "CREATE INDEX messages_open ON messages(state, priority DESC, id);"
    "CREATE TABLE kv(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE study_tables(name TEXT PRIMARY KEY, file TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " rows INTEGER NOT NULL);";

int sim_context_db_error(sim_context *c, int rc, const char *what, sim_error *err)
{
    int code = rc == SQLITE_NOMEM ? SIM_ENOMEM : SIM_EIO;
    return sim_error_set(err, code, "context db %s: %s: %s", c->path, what,
                         c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
}

int sim_context_exec(sim_context *c, const char *sql, const char *what, sim_error *err)
{
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? SIM_OK : sim_context_db_error(c, rc, what, err);
}

int64_t sim_context_query_int(sim_context *c, const char *sql, int *rc)
{
    sqlite3_stmt *st;
    int64_t v = 0;
    *rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
    if (*rc != SQLITE_OK) return 0;
    *rc = sqlite3_step(st);
    if (*rc == SQLITE_ROW) {
        v = sqlite3_column_int64(st, 0);
        *rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return v;
}

static int prepare(sim_context *c, const char *sql, sqlite3_stmt **st, sim_error *err)
{
    int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    return rc == SQLITE_OK ? SIM_OK : sim_context_db_error(c, rc, "preparing a statement", err);
}

/* application_id and user_version say whose file it is and which schema. */
static int check_or_create(sim_context *c, sim_error *err)
{
    int rc;
    int64_t app = sim_context_query_int(c, "PRAGMA application_id", &rc);
    int64_t version = rc ? 0 : sim_context_query_int(c, "PRAGMA user_version", &rc);
    int64_t tables = rc ? 0 : sim_context_query_int(c, "SELECT count(*) FROM sqlite_schema", &rc);
    if (rc) return sim_context_db_error(c, rc, "reading the header", err);
    if (tables == 0 && app == 0) {
        char sql[sizeof SCHEMA_SQL + 128];
        snprintf(sql, sizeof sql, "BEGIN;%sPRAGMA application_id=%d;PRAGMA user_version=%d;COMMIT;", SCHEMA_SQL,
                 SIM_CONTEXT_APP_ID, SIM_CONTEXT_SCHEMA_VERSION);
        int r = sim_context_exec(c, sql, "creating the schema", err);
        if (r) sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return r;
    }
    if (app != SIM_CONTEXT_APP_ID)
        return sim_error_set(err, SIM_EINVAL, "context db %s: not a context database (application_id 0x%llx, expected 0x%x)",
                             c->path, (unsigned long long)app, SIM_CONTEXT_APP_ID);
    if (version != SIM_CONTEXT_SCHEMA_VERSION)
        return sim_error_set(err, SIM_EINVAL, "context db %s: schema version %lld, this program reads %d",
                             c->path, (long long)version, SIM_CONTEXT_SCHEMA_VERSION);
    return SIM_OK;
}

int sim_context_open(const char *path, sim_context **out, sim_error *err)
{
    *out = NULL;
    sim_context *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return sim_error_set(err, SIM_ENOMEM, "context db %s: out of memory", path);
    }
    int rc = sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    int ret;
    if (rc != SQLITE_OK) {
        ret = sim_context_db_error(c, rc, "cannot open", err);
        goto fail;
    }
    sqlite3_extended_result_codes(c->db, 1);
    sqlite3_busy_timeout(c->db, 2000);
    /* WAL + synchronous FULL: each commit is on disk before the call returns, so an
     * acknowledged push survives kill -9 (and a power cut). */
    if ((ret = sim_context_exec(c, "PRAGMA journal_mode=WAL", "switching to WAL", err)) ||
        (ret = sim_context_exec(c, "PRAGMA synchronous=FULL", "setting synchronous", err)) ||
        (ret = sim_context_exec(c, "PRAGMA cache_size=-65536", "setting the cache size", err)) ||
        (ret = check_or_create(c, err)))
        goto fail;
    if ((ret = prepare(c, "SELECT pk, min_x, min_y FROM pois_rtree WHERE max_x >= ?1 AND min_x <= ?2 AND max_y >= ?3 AND min_y <= ?4",
                       &c->near, err)) ||
        (ret = prepare(c, "SELECT pk, min_x, min_y FROM pois_rtree WHERE max_x >= ?1 AND min_x <= ?2 AND max_y >= ?3 AND min_y <= ?4"
                          " AND min_c <= ?5 AND max_c >= ?5", &c->near_cat, err)) ||
        (ret = prepare(c, "SELECT id FROM categories WHERE name = ?", &c->cat_id, err)) ||
        (ret = prepare(c, "INSERT INTO categories(name) VALUES(?1) ON CONFLICT(name) DO NOTHING", &c->cat_add, err)) ||
        (ret = prepare(c, "INSERT INTO pois_rtree VALUES(?1, ?2, ?2, ?3, ?3, ?4, ?4)", &c->rtree_add, err)) ||
        (ret = prepare(c, "SELECT id, name, category, x, y, z, road, attributes FROM pois WHERE pk = ?", &c->poi_row, err)) ||
        (ret = prepare(c, "SELECT pk, x, y FROM pois WHERE id = ?", &c->poi_by_id, err)))
        goto fail;
    *out = c;
    return SIM_OK;
fail:
    sim_context_close(c);
    return ret ? ret : SIM_EIO;
}

void sim_context_close(sim_context *c)
{
    if (!c) return;
    sqlite3_finalize(c->near);
    sqlite3_finalize(c->near_cat);
    sqlite3_finalize(c->poi_row);
    sqlite3_finalize(c->poi_by_id);
    sqlite3_finalize(c->cat_id);
    sqlite3_finalize(c->cat_add);
    sqlite3_finalize(c->rtree_add);
    sqlite3_close(c->db);
    free(c->path);
    free(c);
}

int sim_context_remove_files(const char *path, sim_error *err)
{
    static const char *const suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        if (unlink(p) && errno != ENOENT)
            return sim_error_set(err, SIM_EIO, "context db %s: cannot remove: %s", p, strerror(errno));
    }
    return SIM_OK;
}

/* ---- the scenario's tables ------------------------------------------------------- */

int sim_context_bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Runs a prepared insert and resets it. */
int sim_context_step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int fill_pois(sim_context *c, const sim_scenario *sc)
{
    sqlite3_stmt *ins = NULL;
    int rc = sqlite3_prepare_v2(c->db, "INSERT INTO pois(id, name, category, x, y, z, road, s, d, attributes) "
                                       "VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &ins, NULL);
    for (int i = 0; rc == SQLITE_OK && i < sc->n_pois; i++) {
        const sim_poi *p = &sc->pois[i];
        sqlite3_bind_text(ins, 1, p->id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 2, p->name ? p->name : p->id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 3, p->category, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(ins, 4, sim_context_cm(p->x));
        sqlite3_bind_double(ins, 5, sim_context_cm(p->y));
        sqlite3_bind_double(ins, 6, sim_context_cm(p->z));
        if (p->road >= 0) {
            sqlite3_bind_text(ins, 7, sc->net.roads[p->road].id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(ins, 8, p->s);
            sqlite3_bind_double(ins, 9, p->d);
        }
        sim_context_bind_text_or_null(ins, 10, p->attributes_json);
        rc = sim_context_step_reset(ins);
        if (rc == SQLITE_OK) rc = sim_context_rtree_add(c, sqlite3_last_insert_rowid(c->db), p->x, p->y, p->category);
    }
    sqlite3_finalize(ins);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(c->db, "INSERT INTO pois_fts(rowid, name, category) SELECT pk, name, category FROM pois",
                          NULL, NULL, NULL);
    return rc;
}

static const char *link_road(const sim_roadnet *net, const sim_road_link *l)
{
    return l->kind == SIM_LINK_ROAD && l->index >= 0 && l->index < net->n_roads ? net->roads[l->index].id : NULL;
}

static int fill_roads(sim_context *c, const sim_scenario *sc)
{
    const sim_roadnet *net = &sc->net;
    sqlite3_stmt *road = NULL, *junc = NULL, *link = NULL, *sign = NULL, *lane = NULL;
    int rc = sqlite3_prepare_v2(c->db, "INSERT INTO roads(id, name, length, junction, lanes_left, lanes_right, speed_kmh)"
                                       " VALUES(?,?,?,?,?,?,?)", -1, &road, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO junctions(id, name, connections) VALUES(?,?,?)", -1, &junc, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO road_links(from_road, to_road, junction) VALUES(?,?,?)", -1, &link, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO signs(road, s, d, type, value, text) VALUES(?,?,?,?,?,?)", -1, &sign, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO lanes(road, section, s0, s1, lane, type, width, forward, speed_kmh)"
                                       " VALUES(?,?,?,?,?,?,?,?,?)", -1, &lane, NULL);
    for (int i = 0; rc == SQLITE_OK && i < net->n_roads; i++) {
        const sim_road *r = &net->roads[i];
        sqlite3_bind_text(road, 1, r->id, -1, SQLITE_TRANSIENT);
        sim_context_bind_text_or_null(road, 2, r->name);
        sqlite3_bind_double(road, 3, r->length);
        sim_context_bind_text_or_null(road, 4, r->junction >= 0 ? net->junctions[r->junction].id : NULL);
        int nl = 0, nr = 0; /* the most lanes a section has on each side */
        for (int k = 0; k < r->n_sections; k++) {
            nl = r->sections[k].n_left > nl ? r->sections[k].n_left : nl;
            nr = r->sections[k].n_right > nr ? r->sections[k].n_right : nr;
        }
        sqlite3_bind_int(road, 5, nl);
        sqlite3_bind_int(road, 6, nr);
        double lim = sim_road_speed_limit(r, 0);
        if (lim > 0) sqlite3_bind_double(road, 7, lim * 3.6);
        rc = sim_context_step_reset(road);
        const char *ends[2] = {link_road(net, &r->pred), link_road(net, &r->succ)};
        for (int k = 0; rc == SQLITE_OK && k < 2; k++) {
            if (!ends[k]) continue;
            sqlite3_bind_text(link, 1, r->id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(link, 2, ends[k], -1, SQLITE_TRANSIENT);
            sim_context_bind_text_or_null(link, 3, r->junction >= 0 ? net->junctions[r->junction].id : NULL);
            rc = sim_context_step_reset(link);
        }
        for (int k = 0; rc == SQLITE_OK && k < r->n_sections; k++) {
            const sim_lane_section *ls = &r->sections[k];
            for (int side = 0; side < 2; side++)
                for (int j = 0; rc == SQLITE_OK && j < (side ? ls->n_left : ls->n_right); j++) {
                    const sim_lane *l = side ? &ls->left[j] : &ls->right[j];
                    sqlite3_bind_text(lane, 1, r->id, -1, SQLITE_TRANSIENT);
                    sqlite3_bind_int(lane, 2, k);
                    sqlite3_bind_double(lane, 3, ls->s0);
                    sqlite3_bind_double(lane, 4, ls->s1);
                    sqlite3_bind_int(lane, 5, l->id);
                    sqlite3_bind_text(lane, 6, sim_lane_type_name(l->type), -1, SQLITE_STATIC);
                    sqlite3_bind_double(lane, 7, sim_lane_width(l, 0));
                    sqlite3_bind_int(lane, 8, sim_road_lane_forward(r, l->id));
                    double v = sim_road_lane_speed_limit(r, ls->s0, l->id);
                    if (v > 0) sqlite3_bind_double(lane, 9, v * 3.6);
                    rc = sim_context_step_reset(lane);
                }
        }
        for (int k = 0; rc == SQLITE_OK && k < r->n_signs; k++) {
            const sim_sign *s = &r->signs[k];
            sqlite3_bind_text(sign, 1, r->id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(sign, 2, s->s);
            sqlite3_bind_double(sign, 3, s->d);
            sqlite3_bind_text(sign, 4, sim_sign_type_name(s->type), -1, SQLITE_STATIC);
            if (s->type == SIM_SIGN_SPEED_LIMIT) sqlite3_bind_double(sign, 5, s->value * 3.6);
            else if (s->type == SIM_SIGN_LANE_CHANGE) sqlite3_bind_int(sign, 5, s->lane);
            sim_context_bind_text_or_null(sign, 6, s->text);
            rc = sim_context_step_reset(sign);
        }
    }
    for (int j = 0; rc == SQLITE_OK && j < net->n_junctions; j++) {
        const sim_junction *jn = &net->junctions[j];
        sqlite3_bind_text(junc, 1, jn->id, -1, SQLITE_TRANSIENT);
        sim_context_bind_text_or_null(junc, 2, jn->name);
        sqlite3_bind_int(junc, 3, jn->n_conns);
        rc = sim_context_step_reset(junc);
        for (int k = 0; rc == SQLITE_OK && k < jn->n_conns; k++) {
            sqlite3_bind_text(link, 1, net->roads[jn->conns[k].incoming].id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(link, 2, net->roads[jn->conns[k].connecting].id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(link, 3, jn->id, -1, SQLITE_TRANSIENT);
            rc = sim_context_step_reset(link);
        }
    }
    sqlite3_finalize(road);
    sqlite3_finalize(junc);
    sqlite3_finalize(link);
    sqlite3_finalize(sign);
    sqlite3_finalize(lane);
    return rc;
}

static int meta_get(sim_context *c, const char *key, char *out, size_t cap)
{
    sqlite3_stmt *st;
    out[0] = '\0';
    int rc = sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int meta_set(sim_context *c, const char *key, const char *value)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "INSERT INTO meta(key, value) VALUES(?1, ?2) "
                                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int sim_context_load_scenario(sim_context *c, const sim_scenario *sc, const char *sha256, bool *rebuilt,
                              sim_error *err)
{
    char have[80];
    *rebuilt = false;
    int rc = meta_get(c, "scenario_sha256", have, sizeof have);
    if (rc) return sim_context_db_error(c, rc, "reading meta", err);
    if (strcmp(have, sha256) == 0) return SIM_OK;
    c->n_cat_cache = 0;
    rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE;"
                             "DELETE FROM pois; DELETE FROM pois_rtree; DELETE FROM categories;"
                             "INSERT INTO pois_fts(pois_fts) VALUES('delete-all');"
                             "DELETE FROM roads; DELETE FROM lanes; DELETE FROM junctions; DELETE FROM road_links; DELETE FROM signs;",
                      NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = fill_pois(c, sc);
    if (rc == SQLITE_OK) rc = fill_roads(c, sc);
    if (rc == SQLITE_OK) rc = meta_set(c, "scenario_sha256", sha256);
    if (rc == SQLITE_OK) rc = meta_set(c, "scenario_name", sc->name ? sc->name : "");
    if (rc == SQLITE_OK) rc = meta_set(c, "scenario_path", sc->path ? sc->path : "");
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int ret = sim_context_db_error(c, rc, "loading the scenario", err);
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return ret;
    }
    *rebuilt = true;
    return SIM_OK;
}

