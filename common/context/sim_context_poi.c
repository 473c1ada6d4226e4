/* sim_context_poi: POIs in the context database: the R*Tree (integer centimetres,
 * the category as a third dimension), nearest queries, full-text search, lookups and
 * bulk loading (sim_context.h). */
#include "sim_context_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

double sim_context_cm(double v)
{
    return llround(v * 100) / 100.0;
}

int sim_context_rtree_add(sim_context *c, int64_t pk, double x, double y, const char *category)
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

/* ---- POI queries ----------------------------------------------------------------- */

static int cmp_hit(const void *a, const void *b)
{
    const sim_context_hit *x = a, *y = b;
    if (x->distance != y->distance) return x->distance < y->distance ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

/* The work cap of one poi.near (docs/context.md): SQLite's virtual
 * machine is stopped after SIM_CONTEXT_WORK_MAX instructions, counted by a progress
 * handler, so one request with a huge radius or a one-letter prefix over a million
 * POIs cannot hold the server (and the ego's context.nearby) for half a second. */
static int count_work(void *user)
{
    long *left = user;
    *left -= SIM_CONTEXT_WORK_STEP;
    return *left <= 0; /* non-zero: interrupt the statement */
}

static void work_cap_on(sim_context *c, long *left)
{
    *left = SIM_CONTEXT_WORK_MAX;
    sqlite3_progress_handler(c->db, SIM_CONTEXT_WORK_STEP, count_work, left);
}

static void work_cap_off(sim_context *c) { sqlite3_progress_handler(c->db, 0, NULL, NULL); }

static int too_much_work(const char *what, const char *ask, sim_error *err)
{
    return sim_error_set(err, SIM_ETOOBIG, "context.request: %s: more than the work cap of one request "
                         "(%d SQLite steps): %s", what, (int)SIM_CONTEXT_WORK_MAX, ask);
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
    long left;
    work_cap_on(c, &left);
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
    work_cap_off(c);
    sqlite3_reset(st);
    if (rc == SQLITE_INTERRUPT)
        return too_much_work("poi.near", "ask a smaller radius or one category", err);
    if (rc != SQLITE_DONE) return sim_context_db_error(c, rc, "poi.near", err);
    *n = count;
    return SIM_OK;
}

int sim_context_poi_box(sim_context *c, double x0, double y0, double x1, double y1,
                        void (*fn)(int64_t rowid, void *user), void *user, sim_error *err)
{
    return sim_context_poi_box_counted(c, x0, y0, x1, y1, fn, user, NULL, err);
}

int sim_context_poi_box_counted(sim_context *c, double x0, double y0, double x1, double y1,
                                void (*fn)(int64_t rowid, void *user), void *user, sim_context_box_stats *stats,
                                sim_error *err)
{
    sqlite3_stmt *st = c->near;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)floor(x0 * 100));
    sqlite3_bind_int64(st, 2, (sqlite3_int64)ceil(x1 * 100));
    sqlite3_bind_int64(st, 3, (sqlite3_int64)floor(y0 * 100));
    sqlite3_bind_int64(st, 4, (sqlite3_int64)ceil(y1 * 100));
    sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1); /* counts from here (shared with poi.near) */
    int rc, hits = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fn(sqlite3_column_int64(st, 0), user);
        hits++;
    }
    if (stats) {
        stats->vm_steps = (uint64_t)sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
        stats->hits = hits;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? SIM_OK : sim_context_db_error(c, rc, "poi.box", err);
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
    /* Ranking every match is the work a one-letter prefix over a million names makes
     * (FTS5 ranks inside, beyond the step count): matches are counted first, up to the
     * cap, in document order. */
    int rc = sqlite3_prepare_v2(c->db, "SELECT count(*) FROM (SELECT 1 FROM pois_fts WHERE pois_fts MATCH ?1 LIMIT ?2)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "poi.search", err);
    sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, SIM_CONTEXT_SEARCH_MAX + 1);
    rc = sqlite3_step(st);
    int matches = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return sim_context_db_error(c, rc, "poi.search", err);
    if (matches > SIM_CONTEXT_SEARCH_MAX)
        return sim_error_set(err, SIM_ETOOBIG, "context.request: poi.search: more than %d POIs match '%.64s': "
                             "type more of the name, or ask one category", SIM_CONTEXT_SEARCH_MAX, text);
    rc = sqlite3_prepare_v2(c->db, "SELECT p.pk, p.x, p.y FROM pois_fts f JOIN pois p ON p.pk = f.rowid "
                                       "WHERE pois_fts MATCH ?1 AND (?2 IS NULL OR p.category = ?2) "
                                       "ORDER BY f.rank, p.pk LIMIT ?3", -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "poi.search", err);
    sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
    sim_context_bind_text_or_null(st, 2, category && category[0] ? category : NULL);
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
    int64_t count = sim_context_query_int(c, "SELECT count(*) FROM pois", &rc);
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
    base = sim_context_query_int(c, "SELECT coalesce(max(pk), 0) FROM pois", &rc);
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
        sqlite3_bind_double(ins, 3, sim_context_cm(xy[2 * i]));
        sqlite3_bind_double(ins, 4, sim_context_cm(xy[2 * i + 1]));
        sqlite3_bind_int64(ins, 5, pk);
        rc = sim_context_step_reset(ins);
        if (rc == SQLITE_OK) rc = sim_context_rtree_add(c, pk, xy[2 * i], xy[2 * i + 1], cats[i]);
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
