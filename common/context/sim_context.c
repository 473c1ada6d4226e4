/* sim_context: opening the context database, the scenario's tables and the POI
 * queries (sim_context.h). The message stack and key-values are in
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

static int64_t query_int(sim_context *c, const char *sql, int *rc)
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
    int64_t app = query_int(c, "PRAGMA application_id", &rc);
    int64_t version = rc ? 0 : query_int(c, "PRAGMA user_version", &rc);
    int64_t tables = rc ? 0 : query_int(c, "SELECT count(*) FROM sqlite_schema", &rc);
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

/* The category's number (new ones are added), or -1 with *rc set. */
static int64_t category_id(sim_context *c, const char *name, bool create, int *rc)
{
    *rc = SQLITE_OK;
    if (create) {
        sqlite3_bind_text(c->cat_add, 1, name, -1, SQLITE_TRANSIENT);
        int r = sqlite3_step(c->cat_add);
        sqlite3_reset(c->cat_add);
        if (r != SQLITE_DONE) {
            *rc = r;
            return -1;
        }
    }
    sqlite3_bind_text(c->cat_id, 1, name, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(c->cat_id);
    int64_t id = r == SQLITE_ROW ? sqlite3_column_int64(c->cat_id, 0) : -1;
    sqlite3_reset(c->cat_id);
    if (r != SQLITE_ROW && r != SQLITE_DONE) *rc = r;
    return id;
}

/* Positions are kept to the centimetre, in the table as in the R*Tree. */
static double to_cm(double v)
{
    return llround(v * 100) / 100.0;
}

/* POI pk into the R*Tree. */
static int rtree_add(sim_context *c, int64_t pk, double x, double y, const char *category)
{
    c->n_cat_cache = 0;
    int rc;
    int64_t cat = category_id(c, category, true, &rc);
    if (rc) return rc;
    sqlite3_bind_int64(c->rtree_add, 1, pk);
    sqlite3_bind_int64(c->rtree_add, 2, llround(x * 100));
    sqlite3_bind_int64(c->rtree_add, 3, llround(y * 100));
    sqlite3_bind_int64(c->rtree_add, 4, cat);
    rc = sqlite3_step(c->rtree_add);
    sqlite3_reset(c->rtree_add);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Runs a prepared insert and resets it. */
static int step_reset(sqlite3_stmt *st)
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
        sqlite3_bind_double(ins, 4, to_cm(p->x));
        sqlite3_bind_double(ins, 5, to_cm(p->y));
        sqlite3_bind_double(ins, 6, to_cm(p->z));
        if (p->road >= 0) {
            sqlite3_bind_text(ins, 7, sc->net.roads[p->road].id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(ins, 8, p->s);
            sqlite3_bind_double(ins, 9, p->d);
        }
        bind_text_or_null(ins, 10, p->attributes_json);
        rc = step_reset(ins);
        if (rc == SQLITE_OK) rc = rtree_add(c, sqlite3_last_insert_rowid(c->db), p->x, p->y, p->category);
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
    sqlite3_stmt *road = NULL, *junc = NULL, *link = NULL, *sign = NULL;
    int rc = sqlite3_prepare_v2(c->db, "INSERT INTO roads(id, name, length, junction, lanes_left, lanes_right, speed_kmh)"
                                       " VALUES(?,?,?,?,?,?,?)", -1, &road, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO junctions(id, name, connections) VALUES(?,?,?)", -1, &junc, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO road_links(from_road, to_road, junction) VALUES(?,?,?)", -1, &link, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO signs(road, s, d, type, value, text) VALUES(?,?,?,?,?,?)", -1, &sign, NULL);
    for (int i = 0; rc == SQLITE_OK && i < net->n_roads; i++) {
        const sim_road *r = &net->roads[i];
        sqlite3_bind_text(road, 1, r->id, -1, SQLITE_TRANSIENT);
        bind_text_or_null(road, 2, r->name);
        sqlite3_bind_double(road, 3, r->length);
        bind_text_or_null(road, 4, r->junction >= 0 ? net->junctions[r->junction].id : NULL);
        int nl = 0, nr = 0; /* the most lanes a section has on each side */
        for (int k = 0; k < r->n_sections; k++) {
            nl = r->sections[k].n_left > nl ? r->sections[k].n_left : nl;
            nr = r->sections[k].n_right > nr ? r->sections[k].n_right : nr;
        }
        sqlite3_bind_int(road, 5, nl);
        sqlite3_bind_int(road, 6, nr);
        double lim = sim_road_speed_limit(r, 0);
        if (lim > 0) sqlite3_bind_double(road, 7, lim * 3.6);
        rc = step_reset(road);
        const char *ends[2] = {link_road(net, &r->pred), link_road(net, &r->succ)};
        for (int k = 0; rc == SQLITE_OK && k < 2; k++) {
            if (!ends[k]) continue;
            sqlite3_bind_text(link, 1, r->id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(link, 2, ends[k], -1, SQLITE_TRANSIENT);
            bind_text_or_null(link, 3, r->junction >= 0 ? net->junctions[r->junction].id : NULL);
            rc = step_reset(link);
        }
        for (int k = 0; rc == SQLITE_OK && k < r->n_signs; k++) {
            const sim_sign *s = &r->signs[k];
            sqlite3_bind_text(sign, 1, r->id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(sign, 2, s->s);
            sqlite3_bind_double(sign, 3, s->d);
            sqlite3_bind_text(sign, 4, sim_sign_type_name(s->type), -1, SQLITE_STATIC);
            if (s->type == SIM_SIGN_SPEED_LIMIT) sqlite3_bind_double(sign, 5, s->value * 3.6);
            else if (s->type == SIM_SIGN_LANE_CHANGE) sqlite3_bind_int(sign, 5, s->lane);
            bind_text_or_null(sign, 6, s->text);
            rc = step_reset(sign);
        }
    }
    for (int j = 0; rc == SQLITE_OK && j < net->n_junctions; j++) {
        const sim_junction *jn = &net->junctions[j];
        sqlite3_bind_text(junc, 1, jn->id, -1, SQLITE_TRANSIENT);
        bind_text_or_null(junc, 2, jn->name);
        sqlite3_bind_int(junc, 3, jn->n_conns);
        rc = step_reset(junc);
        for (int k = 0; rc == SQLITE_OK && k < jn->n_conns; k++) {
            sqlite3_bind_text(link, 1, net->roads[jn->conns[k].incoming].id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(link, 2, net->roads[jn->conns[k].connecting].id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(link, 3, jn->id, -1, SQLITE_TRANSIENT);
            rc = step_reset(link);
        }
    }
    sqlite3_finalize(road);
    sqlite3_finalize(junc);
    sqlite3_finalize(link);
    sqlite3_finalize(sign);
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
                             "DELETE FROM roads; DELETE FROM junctions; DELETE FROM road_links; DELETE FROM signs;",
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

/* ---- POI queries ----------------------------------------------------------------- */

static int cmp_hit(const void *a, const void *b)
{
    const sim_context_hit *x = a, *y = b;
    if (x->distance != y->distance) return x->distance < y->distance ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

int sim_context_poi_near(sim_context *c, double x, double y, double radius, const char *category, int limit,
                         sim_context_hit *hits, int *n, sim_error *err)
{
    *n = 0;
    if (limit <= 0) return SIM_OK;
    sqlite3_stmt *st = category && category[0] ? c->near_cat : c->near;
    if (st == c->near_cat) {
        int rc = SQLITE_OK;
        int64_t cat = -2;
        for (int i = 0; i < c->n_cat_cache; i++)
            if (strcmp(c->cat_cache[i].name, category) == 0) cat = c->cat_cache[i].id;
        if (cat == -2) {
            cat = category_id(c, category, false, &rc);
            if (rc) return sim_context_db_error(c, rc, "poi.near", err);
            if (strlen(category) < sizeof c->cat_cache[0].name) {
                int k = c->n_cat_cache < 32 ? c->n_cat_cache++ : 31;
                snprintf(c->cat_cache[k].name, sizeof c->cat_cache[k].name, "%s", category);
                c->cat_cache[k].id = cat;
            }
        }
        if (cat < 0) return SIM_OK; /* no POI has it */
        sqlite3_bind_int64(st, 5, cat);
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)floor((x - radius) * 100));
    sqlite3_bind_int64(st, 2, (sqlite3_int64)ceil((x + radius) * 100));
    sqlite3_bind_int64(st, 3, (sqlite3_int64)floor((y - radius) * 100));
    sqlite3_bind_int64(st, 4, (sqlite3_int64)ceil((y + radius) * 100));
    /* Keep the `limit` nearest in hits, sorted, by insertion (limits are small). */
    int rc, count = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sim_context_hit h = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1) / 100.0,
                             sqlite3_column_int64(st, 2) / 100.0, 0};
        h.distance = hypot(h.x - x, h.y - y);
        if (h.distance > radius) continue;
        if (count == limit && cmp_hit(&h, &hits[count - 1]) >= 0) continue;
        int i = count < limit ? count++ : count - 1;
        while (i > 0 && cmp_hit(&h, &hits[i - 1]) < 0) {
            hits[i] = hits[i - 1];
            i--;
        }
        hits[i] = h;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return sim_context_db_error(c, rc, "poi.near", err);
    *n = count;
    return SIM_OK;
}

/* Text -> an FTS5 query that is only data: each word quoted, the last a prefix. */
static int fts_query(const char *text, char *out, size_t cap)
{
    size_t o = 0;
    int words = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        while (*p && !(isalnum(*p) || *p >= 0x80)) p++;
        if (!*p) break;
        if (o + 4 >= cap) return -1;
        if (words++) out[o++] = ' ';
        out[o++] = '"';
        while (*p && (isalnum(*p) || *p >= 0x80)) {
            if (o + 3 >= cap) return -1;
            out[o++] = (char)*p++;
        }
        out[o++] = '"';
    }
    if (!words) return 0;
    if (o + 2 >= cap) return -1;
    out[o++] = '*';
    out[o] = '\0';
    return words;
}

int sim_context_poi_search(sim_context *c, const char *text, const char *category, int limit,
                           sim_context_hit *hits, int *n, sim_error *err)
{
    *n = 0;
    char q[1200];
    int words = fts_query(text, q, sizeof q);
    if (words <= 0)
        return sim_error_set(err, SIM_EINVAL, "context.request: text: expected at least one letter or digit");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "SELECT p.pk, p.x, p.y FROM pois_fts f JOIN pois p ON p.pk = f.rowid "
                                       "WHERE pois_fts MATCH ?1 AND (?2 IS NULL OR p.category = ?2) "
                                       "ORDER BY f.rank, p.pk LIMIT ?3", -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "poi.search", err);
    sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
    bind_text_or_null(st, 2, category && category[0] ? category : NULL);
    sqlite3_bind_int(st, 3, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < limit)
        hits[(*n)++] = (sim_context_hit){sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1),
                                         sqlite3_column_double(st, 2), -1};
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return sim_context_db_error(c, rc, "poi.search", err);
    return SIM_OK;
}

int sim_context_poi_find(sim_context *c, const char *id, sim_context_hit *hit, sim_error *err)
{
    sqlite3_stmt *st = c->poi_by_id;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *hit = (sim_context_hit){sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1), sqlite3_column_double(st, 2), -1};
    sqlite3_reset(st);
    if (rc == SQLITE_ROW) return SIM_OK;
    if (rc == SQLITE_DONE) return sim_error_set(err, SIM_ENOTFOUND, "context.request: poi: no POI with id '%.64s'", id);
    return sim_context_db_error(c, rc, "poi.get", err);
}

cJSON *sim_context_poi_json(sim_context *c, int64_t rowid, double distance)
{
    sqlite3_stmt *st = c->poi_row;
    sqlite3_bind_int64(st, 1, rowid);
    cJSON *o = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && (o = cJSON_CreateObject())) {
        cJSON_AddStringToObject(o, "id", (const char *)sqlite3_column_text(st, 0));
        cJSON_AddStringToObject(o, "name", (const char *)sqlite3_column_text(st, 1));
        cJSON_AddStringToObject(o, "category", (const char *)sqlite3_column_text(st, 2));
        cJSON_AddNumberToObject(o, "x", sqlite3_column_double(st, 3));
        cJSON_AddNumberToObject(o, "y", sqlite3_column_double(st, 4));
        cJSON_AddNumberToObject(o, "z", sqlite3_column_double(st, 5));
        if (sqlite3_column_type(st, 6) == SQLITE_TEXT) cJSON_AddStringToObject(o, "road", (const char *)sqlite3_column_text(st, 6));
        else cJSON_AddNullToObject(o, "road");
        if (distance >= 0) cJSON_AddNumberToObject(o, "distance", round(distance * 100) / 100);
        cJSON *attrs = sqlite3_column_type(st, 7) == SQLITE_TEXT ? cJSON_Parse((const char *)sqlite3_column_text(st, 7)) : NULL;
        cJSON_AddItemToObject(o, "attributes", attrs ? attrs : cJSON_CreateObject());
    }
    sqlite3_reset(st);
    return o;
}

int sim_context_poi_all(sim_context *c, double def_radius, int64_t **rowids, double **xyr, int *n, sim_error *err)
{
    *rowids = NULL;
    *xyr = NULL;
    *n = 0;
    int rc;
    int64_t count = query_int(c, "SELECT count(*) FROM pois", &rc);
    if (rc) return sim_context_db_error(c, rc, "listing POIs", err);
    sqlite3_stmt *st;
    rc = sqlite3_prepare_v2(c->db, "SELECT pk, x, y, json_extract(attributes, '$.radius_m') FROM pois ORDER BY pk",
                            -1, &st, NULL);
    if (rc) return sim_context_db_error(c, rc, "listing POIs", err);
    *rowids = malloc((size_t)(count + 1) * sizeof **rowids);
    *xyr = malloc((size_t)(count + 1) * 3 * sizeof **xyr);
    if (!*rowids || !*xyr) {
        sqlite3_finalize(st);
        free(*rowids);
        free(*xyr);
        *rowids = NULL;
        *xyr = NULL;
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < count) {
        int i = (*n)++;
        (*rowids)[i] = sqlite3_column_int64(st, 0);
        (*xyr)[3 * i] = sqlite3_column_double(st, 1);
        (*xyr)[3 * i + 1] = sqlite3_column_double(st, 2);
        double r = sqlite3_column_type(st, 3) == SQLITE_NULL ? def_radius : sqlite3_column_double(st, 3);
        (*xyr)[3 * i + 2] = r > 0 && isfinite(r) ? r : def_radius;
    }
    sqlite3_finalize(st);
    return SIM_OK;
}

/* Bulk loading: rows in the order of a space-filling curve (Morton / Z-order), one
 * category after another, make R*Tree nodes that hold neighbours, so a query visits
 * far fewer nodes than after inserting in random order. */
typedef struct bulk_item {
    const char *cat;
    uint64_t z;
    int i;
} bulk_item;

static uint64_t spread(uint32_t v)
{
    uint64_t x = v;
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    x = (x | x << 8) & 0x00FF00FF00FF00FFull;
    x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
    x = (x | x << 2) & 0x3333333333333333ull;
    x = (x | x << 1) & 0x5555555555555555ull;
    return x;
}

static int cmp_bulk(const void *a, const void *b)
{
    const bulk_item *x = a, *y = b;
    int c = strcmp(x->cat, y->cat);
    if (c) return c;
    return x->z < y->z ? -1 : x->z > y->z;
}

int sim_context_poi_insert_many(sim_context *c, const double *xy, int n, const char *const *cats, sim_error *err)
{
    bulk_item *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < n; i++) {
        x0 = fmin(x0, xy[2 * i]), x1 = fmax(x1, xy[2 * i]);
        y0 = fmin(y0, xy[2 * i + 1]), y1 = fmax(y1, xy[2 * i + 1]);
    }
    double sx = x1 > x0 ? 65535 / (x1 - x0) : 0, sy = y1 > y0 ? 65535 / (y1 - y0) : 0;
    for (int i = 0; i < n; i++)
        order[i] = (bulk_item){cats[i], spread((uint32_t)((xy[2 * i] - x0) * sx)) |
                                            spread((uint32_t)((xy[2 * i + 1] - y0) * sy)) << 1, i};
    qsort(order, (size_t)n, sizeof *order, cmp_bulk);
    int64_t base = 0;
    int rc;
    base = query_int(c, "SELECT coalesce(max(pk), 0) FROM pois", &rc);
    sqlite3_stmt *ins = NULL;
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT INTO pois(pk, id, name, category, x, y, z) VALUES(?5, printf('p%d', ?1), "
                                       "printf('POI %d', ?1), ?2, ?3, ?4, 0)", -1, &ins, NULL);
    for (int k = 0; rc == SQLITE_OK && k < n; k++) {
        int i = order[k].i;
        int64_t pk = base + i + 1; /* the i-th point is pk base + i + 1, whatever the loading order */
        sqlite3_bind_int(ins, 1, i);
        sqlite3_bind_text(ins, 2, cats[i], -1, SQLITE_STATIC);
        sqlite3_bind_double(ins, 3, to_cm(xy[2 * i]));
        sqlite3_bind_double(ins, 4, to_cm(xy[2 * i + 1]));
        sqlite3_bind_int64(ins, 5, pk);
        rc = step_reset(ins);
        if (rc == SQLITE_OK) rc = rtree_add(c, pk, xy[2 * i], xy[2 * i + 1], cats[i]);
    }
    sqlite3_finalize(ins);
    free(order);
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int ret = sim_context_db_error(c, rc, "inserting POIs", err);
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return ret;
    }
    return SIM_OK;
}
