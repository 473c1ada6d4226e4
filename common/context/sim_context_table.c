/* sim_context_table: study tables from CSV files and table.query (sim_context.h).
 *
 * CSV as in RFC 4180: comma-separated, fields may be quoted with "" for a quote
 * inside, CRLF or LF line ends, the first row names the columns. A study table NAME is
 * stored as study_NAME so that it can never replace one of the scenario's tables. */
#include "sim_context_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"
#include "sim_sha256.h"

#define CSV_MAX_BYTES (256u << 20)
#define CSV_MAX_COLUMNS 256
#define STUDY_PREFIX "study_"

static const char *const builtin_tables[] = {"pois", "roads", "lanes", "junctions", "road_links", "signs"};

/* ---- CSV ------------------------------------------------------------------------- */

typedef struct csv_row {
    char **f;
    int n;
    int line;
} csv_row;

typedef struct csv {
    csv_row *rows;
    int n, cap;
} csv;

static void csv_free(csv *c)
{
    for (int i = 0; i < c->n; i++) {
        for (int k = 0; k < c->rows[i].n; k++) free(c->rows[i].f[k]);
        free(c->rows[i].f);
    }
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* Parses text into rows of fields. Blank lines are skipped. */
static int csv_parse(const char *text, size_t len, const char *file, csv *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    int line = 1;
    char *buf = malloc(len + 1);
    if (!buf) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", file);
    while (i < len) {
        if (text[i] == '\n' || (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')) { /* blank line */
            i += text[i] == '\r' ? 2 : 1;
            line++;
            continue;
        }
        csv_row row = {NULL, 0, line};
        int cap = 0;
        for (;;) { /* one field */
            size_t o = 0;
            if (i < len && text[i] == '"') {
                int qline = line;
                i++;
                for (;;) {
                    if (i >= len) {
                        free(buf);
                        for (int k = 0; k < row.n; k++) free(row.f[k]);
                        free(row.f);
                        csv_free(out);
                        return sim_error_set(err, SIM_EINVAL, "%s:%d: quoted field never closed, expected a closing \"", file, qline);
                    }
                    if (text[i] == '"') {
                        if (i + 1 < len && text[i + 1] == '"') {
                            buf[o++] = '"';
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    if (text[i] == '\n') line++;
                    buf[o++] = text[i++];
                }
                if (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
                    free(buf);
                    for (int k = 0; k < row.n; k++) free(row.f[k]);
                    free(row.f);
                    csv_free(out);
                    return sim_error_set(err, SIM_EINVAL, "%s:%d: found '%c' after a quoted field, expected , or a line end",
                                         file, line, text[i]);
                }
            } else {
                while (i < len && text[i] != ',' && text[i] != '\n' && !(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))
                    buf[o++] = text[i++];
            }
            if (memchr(buf, '\0', o)) {
                free(buf);
                for (int k = 0; k < row.n; k++) free(row.f[k]);
                free(row.f);
                csv_free(out);
                return sim_error_set(err, SIM_EINVAL, "%s:%d: a NUL byte in field %d, expected text", file, line, row.n + 1);
            }
            if (row.n == cap) {
                cap = cap ? 2 * cap : 8;
                char **f = realloc(row.f, (size_t)cap * sizeof *f);
                if (!f) goto oom;
                row.f = f;
            }
            row.f[row.n] = malloc(o + 1);
            if (!row.f[row.n]) goto oom;
            memcpy(row.f[row.n], buf, o);
            row.f[row.n++][o] = '\0';
            if (row.n > CSV_MAX_COLUMNS) {
                free(buf);
                for (int k = 0; k < row.n; k++) free(row.f[k]);
                free(row.f);
                csv_free(out);
                return sim_error_set(err, SIM_ETOOBIG, "%s:%d: more than %d fields", file, line, CSV_MAX_COLUMNS);
            }
            if (i < len && text[i] == ',') {
                i++;
                continue;
            }
            if (i < len) i += text[i] == '\r' ? 2 : 1;
            line++;
            break;
        }
        if (out->n == out->cap) {
            int c = out->cap ? 2 * out->cap : 64;
            csv_row *r = realloc(out->rows, (size_t)c * sizeof *r);
            if (!r) {
                for (int k = 0; k < row.n; k++) free(row.f[k]);
                free(row.f);
                goto oom_rows;
            }
            out->rows = r;
            out->cap = c;
        }
        out->rows[out->n++] = row;
        continue;
    oom:
        for (int k = 0; k < row.n; k++) free(row.f[k]);
        free(row.f);
    oom_rows:
        free(buf);
        csv_free(out);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", file);
    }
    free(buf);
    return SIM_OK;
}

/* ---- loading --------------------------------------------------------------------- */

typedef enum { COL_INTEGER, COL_REAL, COL_TEXT } col_type;

static bool is_integer(const char *s, long long *v)
{
    if (!*s || isspace((unsigned char)*s)) return false;
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return !*end && errno == 0;
}

static bool is_real(const char *s, double *v)
{
    if (!*s || isspace((unsigned char)*s)) return false;
    char *end;
    *v = strtod(s, &end);
    return !*end && isfinite(*v);
}

static bool builtin(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_tables / sizeof builtin_tables[0]; i++)
        if (strcmp(name, builtin_tables[i]) == 0) return true;
    return false;
}

static int store_rows(sim_context *c, const char *name, const char *file, const char *sha, const csv *t, sim_error *err)
{
    const csv_row *head = &t->rows[0];
    int nc = head->n;
    col_type *types = calloc((size_t)nc, sizeof *types);
    if (!types) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", file);
    for (int k = 0; k < nc; k++) {
        bool all_int = true, all_real = true;
        for (int r = 1; r < t->n; r++) {
            const char *v = t->rows[r].f[k];
            long long li;
            double d;
            if (!*v) continue;
            all_int = all_int && is_integer(v, &li);
            all_real = all_real && is_real(v, &d);
        }
        types[k] = all_int ? COL_INTEGER : all_real ? COL_REAL : COL_TEXT;
    }
    /* Names are checked identifiers, quoted besides. */
    size_t cap = 256 + (size_t)nc * 80;
    char *create = malloc(cap), *insert = malloc(cap);
    if (!create || !insert) {
        free(create);
        free(insert);
        free(types);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", file);
    }
    size_t a = (size_t)snprintf(create, cap, "CREATE TABLE \"" STUDY_PREFIX "%s\"(", name);
    size_t b = (size_t)snprintf(insert, cap, "INSERT INTO \"" STUDY_PREFIX "%s\" VALUES(", name);
    static const char *type_sql[] = {"INTEGER", "REAL", "TEXT"};
    for (int k = 0; k < nc; k++) {
        a += (size_t)snprintf(create + a, cap - a, "%s\"%s\" %s", k ? ", " : "", head->f[k], type_sql[types[k]]);
        b += (size_t)snprintf(insert + b, cap - b, "%s?", k ? "," : "");
    }
    snprintf(create + a, cap - a, ")");
    snprintf(insert + b, cap - b, ")");

    char drop[128];
    snprintf(drop, sizeof drop, "DROP TABLE IF EXISTS \"" STUDY_PREFIX "%s\"", name);
    sqlite3_stmt *ins = NULL, *reg = NULL;
    int rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, drop, NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, create, NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(c->db, insert, -1, &ins, NULL);
    for (int r = 1; rc == SQLITE_OK && r < t->n; r++) {
        for (int k = 0; k < nc; k++) {
            const char *v = t->rows[r].f[k];
            long long li;
            double d;
            if (!*v) sqlite3_bind_null(ins, k + 1);
            else if (types[k] == COL_INTEGER && is_integer(v, &li)) sqlite3_bind_int64(ins, k + 1, li);
            else if (types[k] == COL_REAL && is_real(v, &d)) sqlite3_bind_double(ins, k + 1, d);
            else sqlite3_bind_text(ins, k + 1, v, -1, SQLITE_STATIC);
        }
        rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(c->db);
        sqlite3_reset(ins);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO study_tables(name, file, sha256, rows) VALUES(?,?,?,?)", -1,
                                &reg, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(reg, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(reg, 2, file, -1, SQLITE_STATIC);
        sqlite3_bind_text(reg, 3, sha, -1, SQLITE_STATIC);
        sqlite3_bind_int(reg, 4, t->n - 1);
        rc = sqlite3_step(reg) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(c->db);
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(reg);
    free(create);
    free(insert);
    free(types);
    if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int ret = sim_context_db_error(c, rc, "loading a study table", err);
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        return ret;
    }
    return SIM_OK;
}

static int check_table(const char *name, const char *file, const csv *t, sim_error *err)
{
    if (!sim_ctx_identifier_ok(name) || strlen(name) > 50 || builtin(name))
        return sim_error_set(err, SIM_EINVAL, "--data %s=%s: table name: expected [A-Za-z_][A-Za-z0-9_]*, at most 50 "
                                              "characters, not pois, roads, lanes, junctions, road_links or signs", name, file);
    if (t->n < 1) return sim_error_set(err, SIM_EINVAL, "%s: empty, expected a header row naming the columns", file);
    const csv_row *head = &t->rows[0];
    for (int k = 0; k < head->n; k++) {
        if (!sim_ctx_identifier_ok(head->f[k]))
            return sim_error_set(err, SIM_EINVAL, "%s:%d: column %d '%.64s': expected a name [A-Za-z_][A-Za-z0-9_]*, "
                                                  "at most 63 characters", file, head->line, k + 1, head->f[k]);
        for (int j = 0; j < k; j++)
            if (strcasecmp(head->f[j], head->f[k]) == 0)
                return sim_error_set(err, SIM_EINVAL, "%s:%d: column '%s' named twice", file, head->line, head->f[k]);
    }
    for (int r = 1; r < t->n; r++)
        if (t->rows[r].n != head->n)
            return sim_error_set(err, SIM_EINVAL, "%s:%d: found %d fields, expected %d as in the header", file,
                                 t->rows[r].line, t->rows[r].n, head->n);
    return SIM_OK;
}

static int load_text(sim_context *c, const char *name, const char *file, const char *text, size_t len,
                     const char *sha, sim_error *err)
{
    csv t;
    int rc = csv_parse(text, len, file, &t, err);
    if (rc) return rc;
    rc = check_table(name, file, &t, err);
    if (!rc) rc = store_rows(c, name, file, sha, &t, err);
    csv_free(&t);
    return rc;
}

int sim_context_load_csv_text(sim_context *c, const char *name, const char *file, const char *text, size_t len,
                              sim_error *err)
{
    char sha[65];
    sim_sha256_hex(text, len, sha);
    return load_text(c, name, file, text, len, sha, err);
}

int sim_context_load_csv(sim_context *c, const char *name, const char *path, bool *reloaded, sim_error *err)
{
    *reloaded = false;
    char *text = NULL;
    size_t len = 0;
    int rc = sim_file_read_max(path, CSV_MAX_BYTES, &text, &len, err);
    if (rc) return rc;
    char sha[65];
    sim_sha256_hex(text, len, sha);
    sqlite3_stmt *st;
    bool same = false;
    if (sqlite3_prepare_v2(c->db, "SELECT 1 FROM study_tables WHERE name = ? AND sha256 = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, sha, -1, SQLITE_STATIC);
        same = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    if (!same) {
        rc = load_text(c, name, path, text, len, sha, err);
        *reloaded = rc == SIM_OK;
    }
    free(text);
    return rc;
}

/* ---- table.query ----------------------------------------------------------------- */

/* The stored table behind a client's table name, or SIM_ENOTFOUND listing the names. */
static int resolve_table(sim_context *c, const char *name, char *real, size_t cap, sim_error *err)
{
    if (builtin(name)) {
        snprintf(real, cap, "%s", name);
        return SIM_OK;
    }
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(c->db, "SELECT name FROM study_tables ORDER BY name", -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "table.query", err);
    char known[400] = "pois, roads, lanes, junctions, road_links, signs";
    bool found = false;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(n, name) == 0) found = true;
        size_t used = strlen(known);
        if (used + strlen(n) + 8 < sizeof known) snprintf(known + used, sizeof known - used, ", %s", n);
    }
    sqlite3_finalize(st);
    if (!found)
        return sim_error_set(err, SIM_ENOTFOUND, "context.request: table: no table '%s', expected one of: %s", name, known);
    snprintf(real, cap, STUDY_PREFIX "%s", name);
    return SIM_OK;
}

static bool has_column(sqlite3_stmt *cols, const char *table, const char *col)
{
    sqlite3_bind_text(cols, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(cols, 2, col, -1, SQLITE_STATIC);
    bool yes = sqlite3_step(cols) == SQLITE_ROW;
    sqlite3_reset(cols);
    return yes;
}

static void bind_value(sqlite3_stmt *st, int i, const cJSON *v)
{
    if (cJSON_IsString(v)) sqlite3_bind_text(st, i, v->valuestring, -1, SQLITE_TRANSIENT);
    else if (cJSON_IsBool(v)) sqlite3_bind_int(st, i, cJSON_IsTrue(v));
    else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9e15)
        sqlite3_bind_int64(st, i, (sqlite3_int64)v->valuedouble);
    else if (cJSON_IsNumber(v)) sqlite3_bind_double(st, i, v->valuedouble);
    else sqlite3_bind_null(st, i);
}

static cJSON *row_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; o && k < sqlite3_column_count(st); k++) {
        const char *name = sqlite3_column_name(st, k);
        switch (sqlite3_column_type(st, k)) {
        case SQLITE_INTEGER: cJSON_AddNumberToObject(o, name, (double)sqlite3_column_int64(st, k)); break;
        case SQLITE_FLOAT: cJSON_AddNumberToObject(o, name, sqlite3_column_double(st, k)); break;
        case SQLITE_NULL: cJSON_AddNullToObject(o, name); break;
        default: cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(st, k)); break;
        }
    }
    return o;
}

int sim_context_table_query(sim_context *c, const sim_msg_context_request *q, cJSON **rows, sim_error *err)
{
    *rows = NULL;
    char real[96];
    int rc = resolve_table(c, q->table, real, sizeof real, err);
    if (rc) return rc;
    sqlite3_stmt *cols;
    rc = sqlite3_prepare_v2(c->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE", -1, &cols, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "table.query", err);
    for (int i = 0; i < q->n_filters; i++)
        if (!has_column(cols, real, q->filters[i].column)) {
            sqlite3_finalize(cols);
            return sim_error_set(err, SIM_ENOTFOUND, "context.request: where[%d].column: table '%s' has no column '%s'",
                                 i, q->table, q->filters[i].column);
        }
    if (q->order[0] && !has_column(cols, real, q->order)) {
        sqlite3_finalize(cols);
        return sim_error_set(err, SIM_ENOTFOUND, "context.request: order: table '%s' has no column '%s'", q->table,
                             q->order);
    }
    sqlite3_finalize(cols);
    /* Only names checked against the schema above go into the text; values are bound. */
    char sql[256 + SIM_CTX_FILTERS_MAX * 96];
    size_t n = (size_t)snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", real);
    for (int i = 0; i < q->n_filters; i++) {
        const sim_ctx_filter *f = &q->filters[i];
        const char *join = i ? " AND" : " WHERE";
        if (cJSON_IsNull(f->value))
            n += (size_t)snprintf(sql + n, sizeof sql - n, "%s \"%s\" IS %s", join, f->column,
                                  f->cmp == SIM_CTX_EQ ? "NULL" : "NOT NULL");
        else
            n += (size_t)snprintf(sql + n, sizeof sql - n, "%s \"%s\" %s ?%d", join, f->column, sim_ctx_cmp_sql(f->cmp), i + 1);
    }
    if (q->order[0]) n += (size_t)snprintf(sql + n, sizeof sql - n, " ORDER BY \"%s\"%s", q->order, q->desc ? " DESC" : "");
    snprintf(sql + n, sizeof sql - n, " LIMIT %d OFFSET %d", q->limit, q->offset);
    sqlite3_stmt *st;
    rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return sim_context_db_error(c, rc, "table.query", err);
    for (int i = 0; i < q->n_filters; i++)
        if (!cJSON_IsNull(q->filters[i].value)) bind_value(st, i + 1, q->filters[i].value);
    cJSON *arr = cJSON_CreateArray();
    while (arr && (rc = sqlite3_step(st)) == SQLITE_ROW) cJSON_AddItemToArray(arr, row_json(st));
    sqlite3_finalize(st);
    if (!arr) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (rc != SQLITE_DONE) {
        cJSON_Delete(arr);
        return sim_context_db_error(c, rc, "table.query", err);
    }
    *rows = arr;
    return SIM_OK;
}
