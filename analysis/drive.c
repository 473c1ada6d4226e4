/* drive: a drive in memory as columns (samples), events and meta, and its readers.
 *
 * The CSV export (simctl export LOG --csv DIR) is read by header name, so columns may
 * come in any order and columns the analysis does not use are skipped; an empty field
 * is NULL (NAN). Quoted fields follow RFC 4180 (events carry JSON with commas). */
#include "sim_file.h"
#include "analysis.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NAME_(name, NAME, type) #name,
#define NAME_I64 NAME_
#define NAME_F64 NAME_
#define NAME_REAL NAME_
#define NAME_INT NAME_
#define NAME_ID(name, NAME, type)
#define COLUMN_NAME(name, NAME, type) NAME_##type(name, NAME, type)
const char *const an_column_names[AN_NCOL] = {SIM_DRIVELOG_SAMPLE_COLUMNS(COLUMN_NAME)};

const char *const an_id_names[AN_NIDS] = {"task", "road"};

int an_drive_alloc(an_drive *dr, size_t n, sim_error *err)
{
    memset(dr, 0, sizeof *dr);
    dr->n = n;
    for (int c = 0; c < AN_NCOL; c++) {
        dr->col[c] = malloc((n ? n : 1) * sizeof(double));
        if (!dr->col[c]) {
            an_drive_free(dr);
            return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for %zu samples", n);
        }
        for (size_t i = 0; i < n; i++) dr->col[c][i] = NAN;
    }
    return 0;
}

void an_drive_free(an_drive *dr)
{
    if (!dr) return;
    free(dr->path);
    for (int c = 0; c < AN_NCOL; c++) free(dr->col[c]);
    for (int c = 0; c < AN_NIDS; c++) free(dr->ids[c]);
    for (size_t k = 0; k < dr->n_labels; k++) free(dr->labels[k]);
    free(dr->labels);
    for (size_t k = 0; k < dr->n_events; k++) {
        free(dr->events[k].kind);
        free(dr->events[k].name);
        free(dr->events[k].json);
    }
    free(dr->events);
    for (size_t k = 0; k < dr->n_meta; k++) {
        free(dr->meta_key[k]);
        free(dr->meta_val[k]);
    }
    free(dr->meta_key);
    free(dr->meta_val);
    an_sensors_free(dr);
    free(dr->latency);
    dr->latency = NULL;
    dr->n_latency = 0;
    an_motion_drive_free(dr);
    memset(dr, 0, sizeof *dr);
}

const char *an_drive_meta(const an_drive *dr, const char *key)
{
    for (size_t k = 0; k < dr->n_meta; k++)
        if (strcmp(dr->meta_key[k], key) == 0) return dr->meta_val[k];
    return NULL;
}

int an_drive_add_event(an_drive *dr, int run, double t, const char *kind, const char *name,
                       const char *json, sim_error *err)
{
    an_event *ne = realloc(dr->events, (dr->n_events + 1) * sizeof *ne);
    if (!ne) return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for events");
    dr->events = ne;
    an_event *e = &ne[dr->n_events];
    e->run = run;
    e->t = t;
    e->kind = strdup(kind ? kind : "");
    e->name = strdup(name ? name : "");
    e->json = json && *json ? strdup(json) : NULL;
    dr->n_events++;
    if (!e->kind || !e->name || (json && *json && !e->json))
        return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for events");
    return 0;
}

int an_drive_set_meta(an_drive *dr, const char *key, const char *val, sim_error *err)
{
    char **nk = realloc(dr->meta_key, (dr->n_meta + 1) * sizeof *nk);
    if (!nk) return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for meta");
    dr->meta_key = nk;
    char **nv = realloc(dr->meta_val, (dr->n_meta + 1) * sizeof *nv);
    if (!nv) return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for meta");
    dr->meta_val = nv;
    nk[dr->n_meta] = strdup(key);
    nv[dr->n_meta] = strdup(val ? val : "");
    dr->n_meta++;
    if (!nk[dr->n_meta - 1] || !nv[dr->n_meta - 1])
        return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for meta");
    return 0;
}

int an_drive_add_ids(an_drive *dr, int which, sim_error *err)
{
    if (dr->ids[which]) return 0;
    dr->ids[which] = malloc((dr->n ? dr->n : 1) * sizeof(int));
    if (!dr->ids[which]) return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for ids");
    for (size_t i = 0; i < dr->n; i++) dr->ids[which][i] = -1;
    return 0;
}

int an_drive_label(const an_drive *dr, const char *text)
{
    for (size_t k = 0; text && k < dr->n_labels; k++)
        if (strcmp(dr->labels[k], text) == 0) return (int)k;
    return -1;
}

int an_drive_set_id(an_drive *dr, int which, size_t i, const char *text, sim_error *err)
{
    if (!text || !text[0]) {
        dr->ids[which][i] = -1;
        return 0;
    }
    /* Consecutive samples mostly repeat the previous sample's id: try it first. */
    int prev = i > 0 ? dr->ids[which][i - 1] : -1;
    int k = prev >= 0 && strcmp(dr->labels[prev], text) == 0 ? prev : an_drive_label(dr, text);
    if (k < 0) {
        char **nl = realloc(dr->labels, (dr->n_labels + 1) * sizeof *nl);
        if (!nl) return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for ids");
        dr->labels = nl;
        if (!(nl[dr->n_labels] = strdup(text)))
            return sim_error_set(err, SIM_ENOMEM, "drive: out of memory for ids");
        k = (int)dr->n_labels++;
    }
    dr->ids[which][i] = k;
    return 0;
}

/* ---- CSV ---- */

typedef struct csv {
    char *buf;     /* whole file, NUL-terminated */
    size_t len, pos;
    size_t line;   /* 1-based line of the record being read */
    char **fields; /* pointers into buf (unquoted in place) */
    size_t n_fields, cap;
} csv;

/* A regular file only (sim_file_read): a FIFO in a log's directory must not block. */
static int read_file(const char *path, char **out, size_t *len, sim_error *err)
{
    return sim_file_read(path, out, len, err);
}

/* Splits the next record into c->fields. Returns 1 when a record was read, 0 at the
 * end, < 0 on a malformed quote. */
static int csv_next(csv *c, const char *path, sim_error *err)
{
    c->n_fields = 0;
    if (c->pos >= c->len) return 0;
    c->line++;
    char *p = c->buf + c->pos, *end = c->buf + c->len;
    for (;;) {
        if (c->n_fields == c->cap) {
            size_t ncap = c->cap ? c->cap * 2 : 32;
            char **nf = realloc(c->fields, ncap * sizeof *nf);
            if (!nf) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
            c->fields = nf;
            c->cap = ncap;
        }
        char *w = p, *start = p;
        if (p < end && *p == '"') {
            p++;
            for (;;) {
                if (p >= end)
                    return sim_error_set(err, SIM_EINVAL, "%s:%zu: unterminated quoted field",
                                         path, c->line);
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\n') c->line++;
                *w++ = *p++;
            }
        } else {
            while (p < end && *p != ',' && *p != '\n' && *p != '\r') w = ++p;
        }
        c->fields[c->n_fields++] = start;
        char sep = p < end ? *p : '\n';
        if (sep != ',' && sep != '\n' && sep != '\r')
            return sim_error_set(err, SIM_EINVAL, "%s:%zu: unexpected character after quoted field",
                                 path, c->line);
        /* Step over the separator before terminating the field in place (w <= p). */
        if (p < end) p++;
        if (sep == '\r' && p < end && *p == '\n') p++;
        *w = 0;
        if (sep == ',') continue;
        break;
    }
    c->pos = (size_t)(p - c->buf);
    return 1;
}

static int csv_open(csv *c, const char *path, sim_error *err)
{
    memset(c, 0, sizeof *c);
    return read_file(path, &c->buf, &c->len, err);
}

static void csv_close(csv *c)
{
    free(c->buf);
    free(c->fields);
}

/* A number or empty (NAN). Returns false for anything else. */
static bool parse_num(const char *s, double *v)
{
    while (*s == ' ') s++;
    if (!*s || strcmp(s, "NA") == 0 || strcmp(s, "NULL") == 0) {
        *v = NAN;
        return true;
    }
    char *e;
    errno = 0;
    *v = strtod(s, &e);
    while (*e == ' ') e++;
    return *e == 0 && errno != ERANGE;
}

static bool is_blank_record(const csv *c)
{
    return c->n_fields == 1 && c->fields[0][0] == 0;
}

static int load_samples_csv(const char *path, an_drive *dr, sim_error *err)
{
    csv c;
    int rc = csv_open(&c, path, err);
    if (rc) return rc;
    int map[256];
    rc = csv_next(&c, path, err);
    if (rc <= 0) {
        csv_close(&c);
        return rc < 0 ? rc : sim_error_set(err, SIM_EINVAL, "%s: empty: expected a header row", path);
    }
    size_t ncols = c.n_fields < 256 ? c.n_fields : 256;
    bool have[AN_NCOL] = {0};
    int idmap[AN_NIDS] = {-1, -1}; /* field of each id column */
    for (size_t f = 0; f < ncols; f++) {
        map[f] = -1;
        for (int k = 0; k < AN_NCOL; k++)
            if (strcmp(c.fields[f], an_column_names[k]) == 0) map[f] = k, have[k] = true;
        for (int k = 0; k < AN_NIDS; k++)
            if (strcmp(c.fields[f], an_id_names[k]) == 0) idmap[k] = (int)f;
    }
    static const int required[] = {AN_T, AN_S, AN_D};
    for (size_t q = 0; q < 3; q++)
        if (!have[required[q]]) {
            csv_close(&c);
            return sim_error_set(err, SIM_EINVAL, "%s: header: column \"%s\" missing (found %zu columns)",
                                 path, an_column_names[required[q]], ncols);
        }
    /* Rows: at most one per line; count newlines for the allocation. */
    size_t cap = 1;
    for (size_t i = c.pos; i < c.len; i++) cap += c.buf[i] == '\n';
    rc = an_drive_alloc(dr, cap, err);
    for (int k = 0; !rc && k < AN_NIDS; k++)
        if (idmap[k] >= 0) rc = an_drive_add_ids(dr, k, err);
    if (rc) {
        csv_close(&c);
        return rc;
    }
    size_t n = 0;
    while ((rc = csv_next(&c, path, err)) > 0) {
        if (is_blank_record(&c)) continue;
        if (c.n_fields != ncols) {
            rc = sim_error_set(err, SIM_EINVAL, "%s:%zu: %zu fields, expected %zu as in the header",
                               path, c.line, c.n_fields, ncols);
            break;
        }
        if (n == dr->n) break; /* cannot happen: one record per line at least */
        for (size_t f = 0; f < ncols; f++) {
            if (map[f] < 0) continue;
            double v;
            if (!parse_num(c.fields[f], &v)) {
                rc = sim_error_set(err, SIM_EINVAL, "%s:%zu: column %s: \"%.40s\" is not a number",
                                   path, c.line, an_column_names[map[f]], c.fields[f]);
                break;
            }
            dr->col[map[f]][n] = v;
        }
        for (int k = 0; rc >= 0 && k < AN_NIDS; k++)
            if (idmap[k] >= 0) rc = an_drive_set_id(dr, k, n, c.fields[idmap[k]], err);
        if (rc < 0) break;
        n++;
    }
    csv_close(&c);
    if (rc < 0) return rc;
    dr->n = n;
    for (size_t i = 0; i < n; i++) {
        if (isnan(dr->col[AN_RUN][i])) dr->col[AN_RUN][i] = 0;
    }
    return 0;
}

static int load_events_csv(const char *path, an_drive *dr, sim_error *err)
{
    csv c;
    int rc = csv_open(&c, path, err);
    if (rc) return rc;
    rc = csv_next(&c, path, err);
    int fr = -1, ft = -1, fk = -1, fn = -1, fj = -1;
    for (size_t f = 0; rc > 0 && f < c.n_fields; f++) {
        const char *h = c.fields[f];
        if (!strcmp(h, "run")) fr = (int)f;
        else if (!strcmp(h, "t")) ft = (int)f;
        else if (!strcmp(h, "kind")) fk = (int)f;
        else if (!strcmp(h, "name")) fn = (int)f;
        else if (!strcmp(h, "json")) fj = (int)f;
    }
    if (rc > 0 && (ft < 0 || fk < 0 || fn < 0))
        rc = sim_error_set(err, SIM_EINVAL, "%s: header: expected columns t, kind, name", path);
    size_t ncols = c.n_fields;
    while (rc > 0 && (rc = csv_next(&c, path, err)) > 0) {
        if (is_blank_record(&c)) continue;
        if (c.n_fields != ncols) {
            rc = sim_error_set(err, SIM_EINVAL, "%s:%zu: %zu fields, expected %zu", path, c.line,
                               c.n_fields, ncols);
            break;
        }
        double run = 0, t;
        if ((fr >= 0 && !parse_num(c.fields[fr], &run)) || !parse_num(c.fields[ft], &t) || isnan(t)) {
            rc = sim_error_set(err, SIM_EINVAL, "%s:%zu: run/t: expected numbers", path, c.line);
            break;
        }
        rc = an_drive_add_event(dr, isnan(run) ? 0 : (int)run, t, c.fields[fk], c.fields[fn],
                                fj >= 0 ? c.fields[fj] : NULL, err);
        if (rc < 0) break;
        rc = 1;
    }
    csv_close(&c);
    return rc < 0 ? rc : 0;
}

static int load_meta_csv(const char *path, an_drive *dr, sim_error *err)
{
    csv c;
    int rc = csv_open(&c, path, err);
    if (rc) return rc;
    rc = csv_next(&c, path, err); /* header key,value */
    while (rc > 0 && (rc = csv_next(&c, path, err)) > 0) {
        if (c.n_fields < 2) continue;
        rc = an_drive_set_meta(dr, c.fields[0], c.fields[1], err);
        if (rc == 0) rc = 1;
    }
    csv_close(&c);
    return rc < 0 ? rc : 0;
}

/* Samples ordered by (run, tick) — tick missing: t. Insertion sort is enough: logs come
 * ordered; this only repairs a CSV edited by hand. */
static int sample_cmp(const an_drive *dr, size_t a, size_t b)
{
    const double *run = dr->col[AN_RUN];
    if (run[a] != run[b]) return run[a] < run[b] ? -1 : 1;
    const double *k = isnan(dr->col[AN_TICK][a]) ? dr->col[AN_T] : dr->col[AN_TICK];
    return k[a] < k[b] ? -1 : k[a] > k[b];
}

static void sort_samples(an_drive *dr)
{
    for (size_t i = 1; i < dr->n; i++) {
        if (sample_cmp(dr, i - 1, i) <= 0) continue;
        size_t j = i;
        while (j > 0 && sample_cmp(dr, j - 1, j) > 0) {
            for (int c = 0; c < AN_NCOL; c++) {
                if (!dr->col[c]) continue;
                double tmp = dr->col[c][j];
                dr->col[c][j] = dr->col[c][j - 1];
                dr->col[c][j - 1] = tmp;
            }
            for (int c = 0; c < AN_NIDS; c++) {
                if (!dr->ids[c]) continue;
                int tmp = dr->ids[c][j];
                dr->ids[c][j] = dr->ids[c][j - 1];
                dr->ids[c][j - 1] = tmp;
            }
            j--;
        }
    }
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int an_drive_load(const char *path, an_drive *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    char dir[4096];
    size_t L = strlen(path);
    if (is_dir(path)) {
        snprintf(dir, sizeof dir, "%s", path);
    } else if (L >= 11 && strcmp(path + L - 11, "samples.csv") == 0) {
        snprintf(dir, sizeof dir, "%.*s", (int)(L - 11), path);
        if (!dir[0]) snprintf(dir, sizeof dir, ".");
    } else if (!exists(path)) {
        return sim_error_set(err, SIM_ENOTFOUND, "%s: no such file or folder", path);
    } else {
        /* A drive log file: the drive-log reader says when it is not one. */
        int rc = an_drive_load_log(path, out, err);
        if (rc) return rc;
        sort_samples(out);
        return 0;
    }
    char p[4200];
    snprintf(p, sizeof p, "%s/samples.csv", dir);
    if (!exists(p)) return sim_error_set(err, SIM_ENOTFOUND, "%s: no samples.csv in it", path);
    int rc = load_samples_csv(p, out, err);
    if (rc) return rc;
    snprintf(p, sizeof p, "%s/events.csv", dir);
    if (!rc && exists(p)) rc = load_events_csv(p, out, err);
    snprintf(p, sizeof p, "%s/meta.csv", dir);
    if (!rc && exists(p)) rc = load_meta_csv(p, out, err);
    out->path = strdup(path);
    if (!rc && !out->path) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (rc) {
        an_drive_free(out);
        return rc;
    }
    sort_samples(out);
    return 0;
}

int an_drive_meta_only(const char *path, const char *key, char *buf, size_t size, sim_error *err)
{
    buf[0] = 0;
    if (!is_dir(path)) {
        sim_drivelog_reader *rd = NULL;
        int rc = sim_drivelog_reader_open(path, &rd, err);
        if (rc) return rc;
        sim_error e2 = {0};
        if (sim_drivelog_read_meta(rd, key, buf, size, &e2)) buf[0] = 0;
        sim_drivelog_reader_close(rd);
        return 0;
    }
    char p[4200];
    snprintf(p, sizeof p, "%s/meta.csv", path);
    if (!exists(p)) return 0;
    an_drive dr;
    memset(&dr, 0, sizeof dr);
    int rc = load_meta_csv(p, &dr, err);
    const char *v = rc ? NULL : an_drive_meta(&dr, key);
    if (v) snprintf(buf, size, "%s", v);
    an_drive_free(&dr);
    return rc;
}

/* ---- writing the CSV export ---- */

static void put_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
}

int an_drive_write_csv(const an_drive *dr, const char *dir, sim_error *err)
{
    int rc = sim_file_mkdirs(dir, err);
    if (rc) return rc;
    char p[4200];
    snprintf(p, sizeof p, "%s/samples.csv", dir);
    FILE *f = fopen(p, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", p, strerror(errno));
    for (int c = 0; c < AN_NCOL; c++) fprintf(f, "%s%s", c ? "," : "", an_column_names[c]);
    for (int c = 0; c < AN_NIDS; c++)
        if (dr->ids[c]) fprintf(f, ",%s", an_id_names[c]);
    fputc('\n', f);
    for (size_t i = 0; i < dr->n; i++) {
        for (int c = 0; c < AN_NCOL; c++) {
            if (c) fputc(',', f);
            if (dr->col[c]) put_num(f, dr->col[c][i]);
        }
        for (int c = 0; c < AN_NIDS; c++) {
            if (!dr->ids[c]) continue;
            fputc(',', f);
            if (dr->ids[c][i] >= 0) sim_csv_field(f, dr->labels[dr->ids[c][i]]);
        }
        fputc('\n', f);
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", p);
    snprintf(p, sizeof p, "%s/events.csv", dir);
    if (!(f = fopen(p, "w"))) return sim_error_set(err, SIM_EIO, "%s: cannot create", p);
    fputs("run,t,kind,name,json\n", f);
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        fprintf(f, "%d,%.17g,", e->run, e->t);
        sim_csv_field(f, e->kind);
        fputc(',', f);
        sim_csv_field(f, e->name);
        fputc(',', f);
        sim_csv_field(f, e->json);
        fputc('\n', f);
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", p);
    snprintf(p, sizeof p, "%s/meta.csv", dir);
    if (!(f = fopen(p, "w"))) return sim_error_set(err, SIM_EIO, "%s: cannot create", p);
    fputs("key,value\n", f);
    for (size_t k = 0; k < dr->n_meta; k++) {
        sim_csv_field(f, dr->meta_key[k]);
        fputc(',', f);
        sim_csv_field(f, dr->meta_val[k]);
        fputc('\n', f);
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", p);
    return 0;
}
