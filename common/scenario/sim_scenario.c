/* sim_scenario: loading and validating scenario files (see sim_scenario.h and
 * docs/scenario.md).
 *
 * The loader walks the JSON once per section, writing straight into a calloc'ed
 * sim_scenario and appending a message to the diag for every problem it meets; it
 * keeps going after an error (using defaults) so that one run reports them all.
 * References between sections are resolved by id after the referenced section has
 * been read, in this order: roads and junction ids, roads, junctions, road links,
 * then POIs, start points, traffic, triggers, sectors, tasks and the environment. */
#include "sim_scenario.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_file.h"
#include "sim_grid_image.h"

/* ---- diagnostics -------------------------------------------------------------- */

void sim_diag_free(sim_diag *d)
{
    if (!d) return;
    for (int i = 0; i < d->n; i++) free(d->msgs[i]);
    free(d->msgs);
    memset(d, 0, sizeof *d);
}

void sim_diag_add(sim_diag *d, const char *fmt, ...)
{
    if (!d) return;
    if (d->n >= SIM_DIAG_MAX) {
        d->dropped++;
        return;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 16;
        char **m = realloc(d->msgs, sizeof *m * (size_t)cap);
        if (!m) {
            d->dropped++;
            return;
        }
        d->msgs = m;
        d->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        d->dropped++;
        return;
    }
    d->msgs[d->n++] = s;
}

/* ---- loader context and field helpers ------------------------------------------ */

#define PATH_MAX_LEN 160
#define JOIN_TOL 0.01       /* m: segments and linked roads must meet this closely */
#define HEADING_TOL 0.01    /* rad */
#define WORLD_MAX 1e7       /* m: road start coordinates lie within +-WORLD_MAX */
#define GEOM_BUDGET 2e6     /* sim_geom_cost units per scenario (about 120 MB at most) */

typedef struct ld {
    const char *file;
    const char *base_dir;
    sim_diag *diag;
    int errors;
    double geom_cost;   /* sum of sim_geom_cost so far */
    sim_scenario *sc;
} ld;

static void err_at(ld *L, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void err_at(ld *L, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    L->errors++;
    sim_diag_add(L->diag, "%s: %s: %s", L->file, path, msg);
}

/* "path.key" and "path[i]" into caller buffers of PATH_MAX_LEN (truncated when
 * longer: paths only label messages). */
static void path_append(char *buf, size_t *n, const char *s)
{
    size_t k = strlen(s);
    if (k > PATH_MAX_LEN - 1 - *n) k = PATH_MAX_LEN - 1 - *n;
    memmove(buf + *n, s, k);
    *n += k;
    buf[*n] = '\0';
}

static const char *kpath(char *buf, const char *path, const char *key)
{
    size_t n = 0;
    buf[0] = '\0';
    path_append(buf, &n, path);
    if (*path) path_append(buf, &n, ".");
    path_append(buf, &n, key);
    return buf;
}

static const char *ipath(char *buf, const char *path, int i)
{
    char idx[16];
    size_t n = 0;
    snprintf(idx, sizeof idx, "[%d]", i);
    buf[0] = '\0';
    path_append(buf, &n, path);
    path_append(buf, &n, idx);
    return buf;
}

/* How a JSON value reads in a message: what was found. */
static void describe(const cJSON *v, char *buf, size_t n)
{
    if (!v) snprintf(buf, n, "nothing");
    else if (cJSON_IsNumber(v)) snprintf(buf, n, "%g", v->valuedouble);
    else if (cJSON_IsString(v)) {
        char s[48];
        size_t k = 0;
        for (const char *p = v->valuestring; *p && k < sizeof s - 4; p++)
            s[k++] = isprint((unsigned char)*p) ? *p : '?';
        if (strlen(v->valuestring) > k) s[k++] = '.', s[k++] = '.', s[k++] = '.';
        s[k] = '\0';
        snprintf(buf, n, "\"%s\"", s);
    } else if (cJSON_IsTrue(v)) snprintf(buf, n, "true");
    else if (cJSON_IsFalse(v)) snprintf(buf, n, "false");
    else if (cJSON_IsNull(v)) snprintf(buf, n, "null");
    else if (cJSON_IsArray(v)) snprintf(buf, n, "an array of %d elements", cJSON_GetArraySize(v));
    else snprintf(buf, n, "an object");
}

static void err_found(ld *L, const char *path, const cJSON *v, const char *expected)
{
    char f[96];
    describe(v, f, sizeof f);
    if (v) err_at(L, path, "found %s, expected %s", f, expected);
    else err_at(L, path, "missing, expected %s", expected);
}

/* Reports members of obj not in the NULL-terminated allowed list (keys starting with
 * '_' are comments and always allowed). */
static void check_keys(ld *L, const cJSON *obj, const char *path, const char *const *allowed)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        if (!it->string || it->string[0] == '_') continue;
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (prev->string && strcmp(prev->string, it->string) == 0) {
                char p[PATH_MAX_LEN];
                err_at(L, kpath(p, path, it->string), "found this field twice, expected it once");
                break;
            }
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, it->string) == 0) ok = true;
        if (ok) continue;
        char list[300] = "", p[PATH_MAX_LEN];
        for (const char *const *a = allowed; *a; a++) {
            strncat(list, *a, sizeof list - strlen(list) - 1);
            if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        }
        err_at(L, kpath(p, path, it->string), "unknown field, expected one of: %s", list);
    }
}

/* An object at path (the value itself, already fetched). */
static bool is_obj(ld *L, const cJSON *v, const char *path)
{
    if (cJSON_IsObject(v)) return true;
    err_found(L, path, v, "an object");
    return false;
}

typedef enum { NUM_ANY, NUM_POS, NUM_NONNEG, NUM_RANGE } num_kind;

#define MAX_LANE_WIDTH 50.0 /* m */

/* Reads number obj.key into *out. Missing: error when required, else *out = def.
 * Returns true when *out holds a valid value (given or default). */
static bool get_num(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                    double def, num_kind kind, double lo, double hi, double *out)
{
    char p[PATH_MAX_LEN], want[96];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    switch (kind) {
    case NUM_ANY: snprintf(want, sizeof want, "a number"); break;
    case NUM_POS: snprintf(want, sizeof want, "a number > 0"); break;
    case NUM_NONNEG: snprintf(want, sizeof want, "a number >= 0"); break;
    case NUM_RANGE: snprintf(want, sizeof want, "a number in [%g, %g]", lo, hi); break;
    }
    if (!v) {
        if (required) err_found(L, kpath(p, path, key), NULL, want);
        return !required;
    }
    double x = v->valuedouble;
    bool ok = cJSON_IsNumber(v) && isfinite(x);
    if (ok && kind == NUM_POS) ok = x > 0;
    if (ok && kind == NUM_NONNEG) ok = x >= 0;
    if (ok && kind == NUM_RANGE) ok = x >= lo && x <= hi;
    if (!ok) {
        err_found(L, kpath(p, path, key), v, want);
        return false;
    }
    *out = x;
    return true;
}

/* An integer (a JSON number with no fraction) in [lo, hi]. */
static bool get_int(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                    int def, int lo, int hi, int *out)
{
    char p[PATH_MAX_LEN], want[96];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    snprintf(want, sizeof want, "an integer in [%d, %d]", lo, hi);
    if (!v) {
        if (required) err_found(L, kpath(p, path, key), NULL, want);
        return !required;
    }
    double x = v->valuedouble;
    if (!cJSON_IsNumber(v) || !(x >= lo && x <= hi) || x != floor(x)) {
        err_found(L, kpath(p, path, key), v, want);
        return false;
    }
    *out = (int)x;
    return true;
}

/* A JSON value that is a lane id: an integer in [-100, 100] (no road has more). */
static bool json_lane(const cJSON *v, int *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= -100 && v->valuedouble <= 100) ||
        v->valuedouble != floor(v->valuedouble))
        return false;
    *out = (int)v->valuedouble;
    return true;
}

static bool get_bool(ld *L, const cJSON *obj, const char *path, const char *key, bool def,
                     bool *out)
{
    char p[PATH_MAX_LEN];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!v) return true;
    if (!cJSON_IsBool(v)) {
        err_found(L, kpath(p, path, key), v, "true or false");
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

/* A string; *out points into the JSON (valid while it lives) or is def. */
static bool get_str(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                    const char *def, const char **out)
{
    char p[PATH_MAX_LEN];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!v) {
        if (required) err_found(L, kpath(p, path, key), NULL, "a non-empty string");
        return !required;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        err_found(L, kpath(p, path, key), v, "a non-empty string");
        return false;
    }
    *out = v->valuestring;
    return true;
}

/* A copied string (NULL when absent and def is NULL). */
static char *dup_str(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                     const char *def)
{
    const char *s;
    get_str(L, obj, path, key, required, def, &s);
    return s ? strdup(s) : NULL;
}

/* One of a list of names (NULL-terminated); returns its index, def when absent, -1
 * (after an error) when wrong. */
static int get_enum(ld *L, const cJSON *obj, const char *path, const char *key, int def,
                    const char *const *names)
{
    const char *s;
    char p[PATH_MAX_LEN], want[300] = "one of: ";
    if (!get_str(L, obj, path, key, def < 0, NULL, &s) || !s) return s ? -1 : def;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    for (int i = 0; names[i]; i++) {
        strncat(want, names[i], sizeof want - strlen(want) - 1);
        if (names[i + 1]) strncat(want, ", ", sizeof want - strlen(want) - 1);
    }
    err_found(L, kpath(p, path, key), cJSON_GetObjectItemCaseSensitive(obj, key), want);
    return -1;
}

/* An optional array member: NULL when absent; error and NULL when not an array. */
static const cJSON *get_arr(ld *L, const cJSON *obj, const char *path, const char *key,
                            bool required)
{
    char p[PATH_MAX_LEN];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && !required) return NULL;
    if (!cJSON_IsArray(v)) {
        err_found(L, kpath(p, path, key), v, "an array");
        return NULL;
    }
    return v;
}

/* calloc of n elements that never returns NULL for n == 0 (and reports OOM). */
static void *alloc_n(ld *L, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) err_at(L, "(memory)", "out of memory allocating %zu elements", n);
    return p;
}

/* A road reference obj.key by id: index or -1 (after an error when given and wrong,
 * or when required and missing). */
static int get_road_ref(ld *L, const cJSON *obj, const char *path, const char *key,
                        bool required)
{
    const char *id;
    char p[PATH_MAX_LEN];
    if (!get_str(L, obj, path, key, required, NULL, &id) || !id) return -1;
    int r = sim_roadnet_find_road(&L->sc->net, id);
    if (r < 0) err_at(L, kpath(p, path, key), "found \"%s\", expected the id of a road", id);
    return r;
}

/* s in [0, road length] at obj.key. */
static bool get_s(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  double def, int road, double *out)
{
    double len = road >= 0 ? L->sc->net.roads[road].length : INFINITY;
    if (road >= 0) return get_num(L, obj, path, key, required, def, NUM_RANGE, 0, len, out);
    return get_num(L, obj, path, key, required, def, NUM_NONNEG, 0, 0, out);
}

/* A lane id that exists on road (when the road resolved). */
static bool get_lane(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                     int road, int *out)
{
    char p[PATH_MAX_LEN];
    if (!get_int(L, obj, path, key, required, 0, -100, 100, out)) return false;
    if (road < 0 || (!required && !cJSON_GetObjectItemCaseSensitive(obj, key))) return true;
    const sim_road *r = &L->sc->net.roads[road];
    double d;
    if (!sim_road_lane_center(r, *out, &d)) {
        char ids[200] = "";
        for (int k = r->n_left; k >= -r->n_right; k--) {
            if (k == 0) continue;
            size_t len = strlen(ids);
            snprintf(ids + len, sizeof ids - len, "%s%d", len ? ", " : "", k);
        }
        err_at(L, kpath(p, path, key), "found %d, expected a lane of road \"%s\": one of %s",
               *out, r->id ? r->id : "?", ids);
        return false;
    }
    return true;
}

/* Reports id when an earlier element of arr (n elements of size stride, with the
 * char* id at byte offset off) has the same one. */
static void check_unique(ld *L, const char *path, const char *kind, const char *id,
                         const void *arr, size_t stride, size_t off, int n)
{
    if (!id) return;
    for (int k = 0; k < n; k++) {
        const char *other = *(char *const *)((const char *)arr + (size_t)k * stride + off);
        if (other && strcmp(other, id) == 0) {
            err_at(L, path, "found \"%s\" again, expected a unique %s", id, kind);
            return;
        }
    }
}
#define CHECK_UNIQUE(L, path, kind, arr, i, field) \
    check_unique(L, path, kind, (arr)[i].field, arr, sizeof *(arr), offsetof(__typeof__(*(arr)), field), i)

/* ---- terrain -------------------------------------------------------------------- */

static void load_terrain(ld *L, const cJSON *t)
{
    static const char *const keys[] = {"heightmap", "format", "width", "height", "spacing",
                                       "origin", "height_scale", "height_offset", "friction",
                                       "surface", NULL};
    static const char *const formats[] = {"pgm", "f32", "png", NULL};
    const char *path = "terrain";
    if (!is_obj(L, t, path)) return;
    check_keys(L, t, path, keys);
    const char *file;
    double spacing, scale, offset, ox = 0, oy = 0;
    int w = 0, h = 0;
    char p[PATH_MAX_LEN];
    get_str(L, t, path, "heightmap", true, NULL, &file);
    /* The format follows the name's extension, raw float32 for any other (a missing
     * name is already an error; do not pile width/height errors onto it). */
    size_t flen = file ? strlen(file) : 0;
    const char *ext = flen >= 4 ? file + flen - 4 : "";
    int fmt_default = !file || strcasecmp(ext, ".pgm") == 0   ? 0
                      : strcasecmp(ext, ".png") == 0 ? 2 : 1; /* index in formats[] */
    int fmt = get_enum(L, t, path, "format", fmt_default, formats);
    if (fmt == 1) {
        get_int(L, t, path, "width", true, 0, 1, SIM_GRID_MAX_SIDE, &w);
        get_int(L, t, path, "height", true, 0, 1, SIM_GRID_MAX_SIDE, &h);
    }
    bool ok = get_num(L, t, path, "spacing", true, 1, NUM_POS, 0, 0, &spacing);
    get_num(L, t, path, "height_scale", false, 1, NUM_ANY, 0, 0, &scale);
    get_num(L, t, path, "height_offset", false, 0, NUM_ANY, 0, 0, &offset);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "origin");
    if (o) {
        if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 2 ||
            !cJSON_IsNumber(cJSON_GetArrayItem(o, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(o, 1)))
            err_found(L, kpath(p, path, "origin"), o, "[x, y] in metres");
        else
            ox = cJSON_GetArrayItem(o, 0)->valuedouble, oy = cJSON_GetArrayItem(o, 1)->valuedouble;
    }
    /* Friction: a constant or a map scaled to [min, max]. */
    double fconst = 1.0, fmin_ = 0, fmax_ = 1;
    const char *fmap = NULL;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(t, "friction");
    if (cJSON_IsObject(fr)) {
        static const char *const fkeys[] = {"map", "min", "max", NULL};
        kpath(p, path, "friction");
        check_keys(L, fr, p, fkeys);
        get_str(L, fr, p, "map", true, NULL, &fmap);
        get_num(L, fr, p, "min", false, 0.0, NUM_RANGE, 0, 3, &fmin_);
        get_num(L, fr, p, "max", false, 1.0, NUM_RANGE, 0, 3, &fmax_);
    } else if (fr) {
        get_num(L, t, path, "friction", false, 1.0, NUM_RANGE, 0, 3, &fconst);
    }
    static const char *const surf[] = {"asphalt", "grass", "gravel", "sand", "snow", "ice", "water", NULL};
    int surface = get_enum(L, t, path, "surface", SIM_SURFACE_GRASS, surf);
    if (!file || fmt < 0 || (fmt == 1 && (w < 1 || h < 1))) return;

    /* Read the map even when other fields are wrong, so a missing file is reported
     * in the same run. */
    char *full = sim_file_join(L->base_dir, file);
    sim_grid g;
    sim_error e = {0};
    int rc = !full ? sim_error_set(&e, SIM_ENOMEM, "out of memory")
             : fmt == 0 ? sim_grid_read_pgm(full, &g, &e)
             : fmt == 2 ? sim_grid_read_png(full, &g, &e)
                        : sim_grid_read_f32(full, w, h, &g, &e);
    free(full);
    if (rc) {
        err_at(L, kpath(p, path, "heightmap"), "found \"%s\", expected a readable %s height "
               "map (%s)", file, fmt == 0 ? "PGM" : fmt == 2 ? "PNG" : "float32", e.msg);
        return;
    }
    if (!ok) {
        sim_grid_free(&g);
        return;
    }
    for (size_t k = 0; k < (size_t)g.nx * (size_t)g.ny; k++) g.v[k] = offset + scale * g.v[k];
    sim_terrain *tr = calloc(1, sizeof *tr);
    if (!tr || sim_terrain_init(tr, &g, ox, oy, spacing, &e)) {
        sim_grid_free(&g);
        free(tr);
        err_at(L, path, "%s", tr ? e.msg : "out of memory");
        return;
    }
    tr->friction_default = fconst;
    tr->surface_default = surface < 0 ? SIM_SURFACE_GRASS : surface;
    L->sc->terrain = tr;
    if (fmap) {
        full = sim_file_join(L->base_dir, fmap);
        /* No format field here: PNG or PGM by the file's first bytes. */
        rc = full ? sim_grid_read_image(full, &g, &e) : sim_error_set(&e, SIM_ENOMEM, "out of memory");
        free(full);
        if (!rc) {
            for (size_t k = 0; k < (size_t)g.nx * (size_t)g.ny; k++)
                g.v[k] = fmin_ + (fmax_ - fmin_) * g.v[k];
            rc = sim_terrain_set_friction(tr, &g, &e);
        }
        if (rc) err_at(L, "terrain.friction.map", "%s", e.msg);
    }
}

/* ---- roads ---------------------------------------------------------------------- */

static void load_segments(ld *L, sim_road *r, const cJSON *segs, const char *path,
                          double x, double y, double h)
{
    static const char *const keys[] = {"type", "length", "radius", "curvature",
                                       "curvature_start", "curvature_end", "x", "y",
                                       "heading_deg", NULL};
    static const char *const types[] = {"line", "arc", "clothoid", NULL};
    int n = cJSON_GetArraySize(segs);
    if (n == 0) err_at(L, path, "found an empty array, expected at least one segment");
    r->geoms = alloc_n(L, (size_t)n, sizeof *r->geoms);
    if (!r->geoms) return;
    double s = 0;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *sg = cJSON_GetArrayItem(segs, i);
        ipath(p, path, i);
        if (!is_obj(L, sg, p)) continue;
        check_keys(L, sg, p, keys);
        sim_geom *g = &r->geoms[r->n_geoms];
        int type = get_enum(L, sg, p, "type", -1, types);
        bool ok = get_num(L, sg, p, "length", true, 1, NUM_POS, 0, 0, &g->length) && type >= 0;
        if (type == SIM_GEOM_ARC) {
            const cJSON *rad = cJSON_GetObjectItemCaseSensitive(sg, "radius");
            double v;
            if (rad) {
                if (!cJSON_IsNumber(rad) || !isfinite(rad->valuedouble) || rad->valuedouble == 0) {
                    err_found(L, kpath(q, p, "radius"), rad, "a non-zero number (positive turns left)");
                    ok = false;
                } else {
                    g->k0 = 1.0 / rad->valuedouble;
                }
            } else if (get_num(L, sg, p, "curvature", true, 0, NUM_ANY, 0, 0, &v)) {
                g->k0 = v;
            } else {
                ok = false;
            }
        } else if (type == SIM_GEOM_CLOTHOID) {
            ok &= get_num(L, sg, p, "curvature_start", true, 0, NUM_ANY, 0, 0, &g->k0);
            ok &= get_num(L, sg, p, "curvature_end", true, 0, NUM_ANY, 0, 0, &g->k1);
        }
        /* An explicit start pose must continue the chain (as OpenDRIVE gives each
         * geometry's start): a gap over 1 cm is an error. */
        double ex, ey, eh_deg;
        bool hx = get_num(L, sg, p, "x", false, NAN, NUM_ANY, 0, 0, &ex) && !isnan(ex);
        bool hy = get_num(L, sg, p, "y", false, NAN, NUM_ANY, 0, 0, &ey) && !isnan(ey);
        bool hh = get_num(L, sg, p, "heading_deg", false, NAN, NUM_ANY, 0, 0, &eh_deg) &&
                  !isnan(eh_deg);
        if (hx != hy) err_at(L, p, "found only one of x and y, expected both or neither");
        if (hx && hy && i > 0 && hypot(ex - x, ey - y) > JOIN_TOL)
            err_at(L, p, "found start (%.3f, %.3f), expected the previous segment's end "
                   "(%.3f, %.3f): gap %.3f m over %g m", ex, ey, x, y, hypot(ex - x, ey - y),
                   JOIN_TOL);
        if (hh && i > 0) {
            double dh = remainder(eh_deg * M_PI / 180.0 - h, 2 * M_PI);
            if (fabs(dh) > HEADING_TOL)
                err_at(L, kpath(q, p, "heading_deg"), "found %g, expected the previous "
                       "segment's end heading %.3f", eh_deg, h * 180.0 / M_PI);
        }
        if (!ok) continue;
        g->type = (sim_geom_type)type;
        g->s0 = s;
        g->x0 = x, g->y0 = y, g->hdg0 = h;
        double cost = sim_geom_cost(g);
        if (!(L->geom_cost + cost <= GEOM_BUDGET)) {
            err_at(L, p, "found a geometry needing %.3g units (length %g m, curvature up to "
                   "%g 1/m), expected the scenario's roads to need at most %g in all",
                   cost, g->length, fmax(fabs(g->k0), fabs(g->k1)), GEOM_BUDGET);
            continue;
        }
        L->geom_cost += cost;
        sim_error e = {0};
        if (sim_geom_prepare(g, &e)) {
            err_at(L, p, "%s", e.msg);
            continue;
        }
        sim_geom_eval(g, g->length, &x, &y, &h);
        s += g->length;
        r->n_geoms++;
    }
    r->length = s;
}

static void load_lane_side(ld *L, const cJSON *arr, const char *path, int sign, sim_lane **out,
                           int *n_out, double *width)
{
    static const char *const keys[] = {"width", "mark", "type", NULL};
    static const char *const marks[] = {"none", "solid", "dashed", NULL};
    static const char *const types[] = {"driving", "shoulder", "median", "sidewalk", "parking", NULL};
    int n = cJSON_GetArraySize(arr);
    *out = alloc_n(L, (size_t)n, sizeof **out);
    if (!*out) return;
    *width = 0;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN];
        const cJSON *ln = cJSON_GetArrayItem(arr, i);
        ipath(p, path, i);
        sim_lane *lane = &(*out)[i];
        lane->id = sign * (i + 1);
        lane->width = 3.5;
        if (!is_obj(L, ln, p)) continue;
        check_keys(L, ln, p, keys);
        if (get_num(L, ln, p, "width", true, 3.5, NUM_POS, 0, 0, &lane->width) && lane->width > MAX_LANE_WIDTH) {
            /* No lane is wider than this; a typo of that size would make every road
             * cover the whole map in the spatial index. */
            char wp[PATH_MAX_LEN];
            err_found(L, kpath(wp, p, "width"), cJSON_GetObjectItemCaseSensitive(ln, "width"),
                      "a lane width in (0, 50] m");
            lane->width = 3.5;
        }
        int m = get_enum(L, ln, p, "mark", i + 1 == n ? SIM_MARK_SOLID : SIM_MARK_DASHED, marks);
        lane->mark = m < 0 ? SIM_MARK_NONE : (sim_mark_type)m;
        int t = get_enum(L, ln, p, "type", SIM_LANE_DRIVING, types);
        lane->type = t < 0 ? SIM_LANE_DRIVING : (sim_lane_type)t;
        *width += lane->width;
    }
    *n_out = n;
}

static void load_lanes(ld *L, sim_road *r, const cJSON *lanes, const char *path)
{
    static const char *const keys[] = {"left", "right", "center_mark", NULL};
    static const char *const marks[] = {"none", "solid", "dashed", NULL};
    if (!is_obj(L, lanes, path)) return;
    check_keys(L, lanes, path, keys);
    char p[PATH_MAX_LEN];
    const cJSON *left = get_arr(L, lanes, path, "left", false);
    const cJSON *right = get_arr(L, lanes, path, "right", false);
    if (left) load_lane_side(L, left, kpath(p, path, "left"), 1, &r->left, &r->n_left, &r->left_width);
    if (right)
        load_lane_side(L, right, kpath(p, path, "right"), -1, &r->right, &r->n_right, &r->right_width);
    if (r->n_left + r->n_right == 0)
        err_at(L, path, "found no lanes, expected at least one lane in left or right");
    int m = get_enum(L, lanes, path, "center_mark", SIM_MARK_SOLID, marks);
    r->center_mark = m < 0 ? SIM_MARK_SOLID : (sim_mark_type)m;
}

/* s_start/s_end of a stretch within [0, length], s_end defaulting to the end. */
static bool get_range(ld *L, const cJSON *o, const char *path, int road, bool required,
                      double *a, double *b)
{
    bool ok = get_s(L, o, path, "s_start", required, 0, road, a);
    double len = road >= 0 ? L->sc->net.roads[road].length : 0;
    ok &= get_s(L, o, path, "s_end", required, len, road, b);
    if (ok && *b <= *a) {
        char p[PATH_MAX_LEN];
        err_at(L, kpath(p, path, "s_end"), "found %g, expected a number > s_start (%g)", *b, *a);
        ok = false;
    }
    return ok;
}

static void load_road_extras(ld *L, sim_road *r, int ri, const cJSON *ro, const char *path)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    const cJSON *arr;
    /* Speed limits. */
    if ((arr = get_arr(L, ro, path, "speed_limits", false))) {
        static const char *const keys[] = {"s_start", "s_end", "speed_kmh", NULL};
        int n = cJSON_GetArraySize(arr);
        if ((r->limits = alloc_n(L, (size_t)n, sizeof *r->limits))) {
            for (int i = 0; i < n; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                ipath(q, kpath(p, path, "speed_limits"), i);
                if (!is_obj(L, o, q)) continue;
                check_keys(L, o, q, keys);
                sim_speed_limit *sl = &r->limits[r->n_limits];
                double kmh;
                bool ok = get_range(L, o, q, ri, false, &sl->s_start, &sl->s_end);
                ok &= get_num(L, o, q, "speed_kmh", true, 0, NUM_POS, 0, 0, &kmh);
                sl->speed = kmh / 3.6;
                if (ok) r->n_limits++;
            }
        }
    }
    /* Signs. */
    if ((arr = get_arr(L, ro, path, "signs", false))) {
        static const char *const keys[] = {"s", "d", "type", "lane", "speed_kmh", "text", NULL};
        static const char *const types[] = {"speed_limit", "lane_change", "stop",
                                            "yield", "priority", "text", NULL};
        int n = cJSON_GetArraySize(arr);
        if ((r->signs = alloc_n(L, (size_t)n, sizeof *r->signs))) {
            for (int i = 0; i < n; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                ipath(q, kpath(p, path, "signs"), i);
                if (!is_obj(L, o, q)) continue;
                check_keys(L, o, q, keys);
                sim_sign *sg = &r->signs[r->n_signs];
                int t = get_enum(L, o, q, "type", -1, types);
                bool ok = get_s(L, o, q, "s", true, 0, ri, &sg->s) && t >= 0;
                get_num(L, o, q, "d", false, -(r->right_width + 1.0), NUM_ANY, 0, 0, &sg->d);
                if (t == SIM_SIGN_LANE_CHANGE) ok &= get_lane(L, o, q, "lane", true, ri, &sg->lane);
                if (t == SIM_SIGN_SPEED_LIMIT) {
                    ok &= get_num(L, o, q, "speed_kmh", true, 0, NUM_POS, 0, 0, &sg->value);
                    sg->value /= 3.6;
                }
                sg->text = dup_str(L, o, q, "text", t == SIM_SIGN_TEXT, NULL);
                sg->type = t < 0 ? SIM_SIGN_TEXT : (sim_sign_type)t;
                if (ok) r->n_signs++;
                else {
                    free(sg->text);
                    sg->text = NULL;
                }
            }
        }
    }
    /* Surface zones. */
    if ((arr = get_arr(L, ro, path, "surface", false))) {
        static const char *const keys[] = {"s_start", "s_end", "friction", "type", NULL};
        static const char *const surf[] = {"asphalt", "grass", "gravel", "sand", "snow", "ice", "water", NULL};
        int n = cJSON_GetArraySize(arr);
        if ((r->zones = alloc_n(L, (size_t)n, sizeof *r->zones))) {
            for (int i = 0; i < n; i++) {
                const cJSON *o = cJSON_GetArrayItem(arr, i);
                ipath(q, kpath(p, path, "surface"), i);
                if (!is_obj(L, o, q)) continue;
                check_keys(L, o, q, keys);
                sim_surface_zone *z = &r->zones[r->n_zones];
                bool ok = get_range(L, o, q, ri, true, &z->s_start, &z->s_end);
                ok &= get_num(L, o, q, "friction", true, 1, NUM_RANGE, 0, 3, &z->friction);
                int t = get_enum(L, o, q, "type", SIM_SURFACE_ASPHALT, surf);
                z->surface = t < 0 ? SIM_SURFACE_ASPHALT : t;
                if (ok) r->n_zones++;
            }
        }
    }
    /* Elevation: "terrain" (default) or {"profile": [[s, z], ...]}. */
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(ro, "elevation");
    kpath(p, path, "elevation");
    if (!el || (cJSON_IsString(el) && strcmp(el->valuestring, "terrain") == 0)) {
        r->elev_mode = SIM_ELEV_TERRAIN;
    } else if (cJSON_IsObject(el)) {
        static const char *const keys[] = {"profile", NULL};
        check_keys(L, el, p, keys);
        const cJSON *pr = get_arr(L, el, p, "profile", true);
        r->elev_mode = SIM_ELEV_PROFILE;
        int n = pr ? cJSON_GetArraySize(pr) : 0;
        if (pr && n == 0) err_at(L, kpath(q, p, "profile"), "found an empty array, expected [s, z] points");
        r->elev_s = alloc_n(L, (size_t)n, sizeof(double));
        r->elev_z = alloc_n(L, (size_t)n, sizeof(double));
        for (int i = 0; pr && r->elev_s && r->elev_z && i < n; i++) {
            char e[PATH_MAX_LEN];
            const cJSON *pt = cJSON_GetArrayItem(pr, i);
            ipath(e, kpath(q, p, "profile"), i);
            if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(pt, 0)) ||
                !cJSON_IsNumber(cJSON_GetArrayItem(pt, 1))) {
                err_found(L, e, pt, "[s, z] in metres");
                continue;
            }
            double s = cJSON_GetArrayItem(pt, 0)->valuedouble, z = cJSON_GetArrayItem(pt, 1)->valuedouble;
            if (r->n_elev > 0 && !(s > r->elev_s[r->n_elev - 1])) {
                err_at(L, e, "found s = %g, expected s > %g (ascending)", s, r->elev_s[r->n_elev - 1]);
                continue;
            }
            r->elev_s[r->n_elev] = s;
            r->elev_z[r->n_elev] = z;
            r->n_elev++;
        }
    } else {
        err_found(L, p, el, "\"terrain\" or {\"profile\": [[s, z], ...]}");
    }
}

/* Reads a road's predecessor/successor link (roads and junctions must be named
 * already; geometry of every road built). */
static void load_link(ld *L, int ri, const cJSON *ro, const char *path, const char *key,
                      sim_road_link *lk)
{
    static const char *const keys[] = {"road", "contact", "junction", NULL};
    static const char *const contacts[] = {"start", "end", NULL};
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(ro, key);
    lk->kind = SIM_LINK_NONE;
    lk->index = -1;
    if (!o) return;
    kpath(p, path, key);
    if (!is_obj(L, o, p)) return;
    check_keys(L, o, p, keys);
    bool has_road = cJSON_GetObjectItemCaseSensitive(o, "road") != NULL;
    bool has_junction = cJSON_GetObjectItemCaseSensitive(o, "junction") != NULL;
    if (has_road == has_junction) {
        err_at(L, p, "found %s, expected exactly one of road and junction",
               has_road ? "both" : "neither");
        return;
    }
    if (has_junction) {
        const char *id;
        if (!get_str(L, o, p, "junction", true, NULL, &id)) return;
        int j = sim_roadnet_find_junction(&L->sc->net, id);
        if (j < 0) {
            err_at(L, kpath(q, p, "junction"), "found \"%s\", expected the id of a junction", id);
            return;
        }
        lk->kind = SIM_LINK_JUNCTION;
        lk->index = j;
        return;
    }
    int other = get_road_ref(L, o, p, "road", true);
    int c = get_enum(L, o, p, "contact", strcmp(key, "successor") == 0 ? SIM_CONTACT_START
                                                                          : SIM_CONTACT_END,
                     contacts);
    if (other < 0 || c < 0) return;
    lk->kind = SIM_LINK_ROAD;
    lk->index = other;
    lk->contact = (sim_contact)c;
    /* The two ends must meet. */
    const sim_road *a = &L->sc->net.roads[ri], *b = &L->sc->net.roads[other];
    if (a->n_geoms == 0 || b->n_geoms == 0) return;
    sim_road_pose pa, pb;
    bool succ = strcmp(key, "successor") == 0;
    sim_road_pose_at(&L->sc->net, ri, succ ? a->length : 0, 0, &pa);
    sim_road_pose_at(&L->sc->net, other, c == SIM_CONTACT_END ? b->length : 0, 0, &pb);
    double ax = pa.x, ay = pa.y, bx = pb.x, by = pb.y;
    double gap = hypot(ax - bx, ay - by);
    if (gap > JOIN_TOL)
        err_at(L, p, "road \"%s\" %s is at (%.3f, %.3f), expected it to meet this road's %s at "
               "(%.3f, %.3f): gap %.3f m over %g m", b->id, c == SIM_CONTACT_END ? "end" : "start",
               bx, by, succ ? "end" : "start", ax, ay, gap, JOIN_TOL);
}

static void load_roads(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "start", "segments", "lanes",
                                       "speed_limits", "signs", "surface", "elevation",
                                       "predecessor", "successor", "junction", NULL};
    static const char *const skeys[] = {"x", "y", "heading_deg", NULL};
    const cJSON *roads = get_arr(L, root, "", "roads", true);
    const cJSON *juncs = get_arr(L, root, "", "junctions", false);
    sim_roadnet *net = &L->sc->net;
    int n = roads ? cJSON_GetArraySize(roads) : 0, nj = juncs ? cJSON_GetArraySize(juncs) : 0;
    if (roads && n == 0) err_at(L, "roads", "found an empty array, expected at least one road");
    net->roads = alloc_n(L, (size_t)n, sizeof *net->roads);
    net->junctions = alloc_n(L, (size_t)nj, sizeof *net->junctions);
    if (!net->roads || !net->junctions) return;
    net->n_roads = n;
    net->n_junctions = nj;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    /* Ids first, so that links can refer forwards. */
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(roads, i);
        net->roads[i].junction = -1;
        net->roads[i].pred.index = net->roads[i].succ.index = -1;
        ipath(p, "roads", i);
        if (!cJSON_IsObject(ro)) continue;
        net->roads[i].id = dup_str(L, ro, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "road id", net->roads, i, id);
    }
    for (int i = 0; i < nj; i++) {
        const cJSON *jo = cJSON_GetArrayItem(juncs, i);
        ipath(p, "junctions", i);
        if (!cJSON_IsObject(jo)) continue;
        net->junctions[i].id = dup_str(L, jo, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "junction id", net->junctions, i, id);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(roads, i);
        sim_road *r = &net->roads[i];
        ipath(p, "roads", i);
        if (!is_obj(L, ro, p)) continue;
        check_keys(L, ro, p, keys);
        r->name = dup_str(L, ro, p, "name", false, NULL);
        double x = 0, y = 0, hd = 0;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(ro, "start");
        kpath(q, p, "start");
        if (is_obj(L, st, q)) {
            check_keys(L, st, q, skeys);
            /* Bounded so that extents and the spatial index stay finite. */
            get_num(L, st, q, "x", true, 0, NUM_RANGE, -WORLD_MAX, WORLD_MAX, &x);
            get_num(L, st, q, "y", true, 0, NUM_RANGE, -WORLD_MAX, WORLD_MAX, &y);
            get_num(L, st, q, "heading_deg", false, 0, NUM_ANY, 0, 0, &hd);
        }
        const cJSON *segs = get_arr(L, ro, p, "segments", true);
        if (segs) load_segments(L, r, segs, kpath(q, p, "segments"), x, y, hd * M_PI / 180.0);
        const cJSON *lanes = cJSON_GetObjectItemCaseSensitive(ro, "lanes");
        load_lanes(L, r, lanes, kpath(q, p, "lanes"));
        load_road_extras(L, r, i, ro, p);
        const char *jid;
        if (get_str(L, ro, p, "junction", false, NULL, &jid) && jid) {
            r->junction = sim_roadnet_find_junction(net, jid);
            if (r->junction < 0)
                err_at(L, kpath(q, p, "junction"), "found \"%s\", expected the id of a junction", jid);
        }
    }
    for (int i = 0; i < n; i++) {
        const cJSON *ro = cJSON_GetArrayItem(roads, i);
        if (!cJSON_IsObject(ro)) continue;
        ipath(p, "roads", i);
        load_link(L, i, ro, p, "predecessor", &net->roads[i].pred);
        load_link(L, i, ro, p, "successor", &net->roads[i].succ);
    }
}

static void load_junctions(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "connections", NULL};
    static const char *const ckeys[] = {"incoming", "connecting", "contact", "lanes", NULL};
    static const char *const contacts[] = {"start", "end", NULL};
    const cJSON *juncs = get_arr(L, root, "", "junctions", false);
    sim_roadnet *net = &L->sc->net;
    for (int i = 0; juncs && i < net->n_junctions; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN], c[PATH_MAX_LEN];
        const cJSON *jo = cJSON_GetArrayItem(juncs, i);
        sim_junction *j = &net->junctions[i];
        ipath(p, "junctions", i);
        if (!is_obj(L, jo, p)) continue;
        check_keys(L, jo, p, keys);
        j->name = dup_str(L, jo, p, "name", false, NULL);
        const cJSON *cs = get_arr(L, jo, p, "connections", true);
        int nc = cs ? cJSON_GetArraySize(cs) : 0;
        if (!(j->conns = alloc_n(L, (size_t)nc, sizeof *j->conns))) continue;
        for (int k = 0; k < nc; k++) {
            const cJSON *co = cJSON_GetArrayItem(cs, k);
            ipath(q, kpath(c, p, "connections"), k);
            if (!is_obj(L, co, q)) continue;
            check_keys(L, co, q, ckeys);
            sim_connection *cn = &j->conns[j->n_conns];
            cn->incoming = get_road_ref(L, co, q, "incoming", true);
            cn->connecting = get_road_ref(L, co, q, "connecting", true);
            int ct = get_enum(L, co, q, "contact", SIM_CONTACT_START, contacts);
            if (cn->incoming < 0 || cn->connecting < 0 || ct < 0) continue;
            cn->contact = (sim_contact)ct;
            const sim_road *in = &net->roads[cn->incoming];
            if (!(in->succ.kind == SIM_LINK_JUNCTION && in->succ.index == i) &&
                !(in->pred.kind == SIM_LINK_JUNCTION && in->pred.index == i))
                err_at(L, kpath(c, q, "incoming"), "road \"%s\" links to no junction \"%s\", "
                       "expected its predecessor or successor to be {\"junction\": \"%s\"}",
                       in->id, j->id ? j->id : "?", j->id ? j->id : "?");
            if (net->roads[cn->connecting].junction != i)
                err_at(L, kpath(c, q, "connecting"), "road \"%s\" has no \"junction\": \"%s\", "
                       "expected a connecting road of this junction",
                       net->roads[cn->connecting].id, j->id ? j->id : "?");
            const cJSON *ls = get_arr(L, co, q, "lanes", false);
            int nl = ls ? cJSON_GetArraySize(ls) : 0;
            if (!(cn->lanes = alloc_n(L, (size_t)nl, sizeof *cn->lanes))) continue;
            for (int m = 0; m < nl; m++) {
                const cJSON *pr = cJSON_GetArrayItem(ls, m);
                char e[PATH_MAX_LEN];
                ipath(e, kpath(c, q, "lanes"), m);
                double d;
                int from, to;
                if (!cJSON_IsArray(pr) || cJSON_GetArraySize(pr) != 2 ||
                    !json_lane(cJSON_GetArrayItem(pr, 0), &from) ||
                    !json_lane(cJSON_GetArrayItem(pr, 1), &to)) {
                    err_found(L, e, pr, "[from_lane, to_lane] (lane ids)");
                    continue;
                }
                if (!sim_road_lane_center(&net->roads[cn->incoming], from, &d)) {
                    err_at(L, e, "found lane %d, expected a lane of road \"%s\"", from,
                           net->roads[cn->incoming].id);
                    continue;
                }
                if (!sim_road_lane_center(&net->roads[cn->connecting], to, &d)) {
                    err_at(L, e, "found lane %d, expected a lane of road \"%s\"", to,
                           net->roads[cn->connecting].id);
                    continue;
                }
                cn->lanes[cn->n_lanes++] = (sim_lane_link){from, to};
            }
            j->n_conns++;
        }
    }
}

/* ---- POIs, start points, traffic, triggers, sectors, tasks ---------------------- */

static void load_pois(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "category", "position", "attributes", NULL};
    static const char *const pkeys[] = {"x", "y", "z", "road", "s", "d", NULL};
    const cJSON *arr = get_arr(L, root, "", "pois", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->pois = alloc_n(L, (size_t)n, sizeof *sc->pois))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        ipath(p, "pois", i);
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, keys);
        sim_poi *poi = &sc->pois[sc->n_pois++];
        poi->road = -1;
        poi->id = dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "POI id", sc->pois, sc->n_pois - 1, id);
        poi->name = dup_str(L, o, p, "name", false, poi->id);
        poi->category = dup_str(L, o, p, "category", true, NULL);
        const cJSON *pos = cJSON_GetObjectItemCaseSensitive(o, "position");
        kpath(q, p, "position");
        if (is_obj(L, pos, q)) {
            check_keys(L, pos, q, pkeys);
            bool by_road = cJSON_GetObjectItemCaseSensitive(pos, "road") != NULL;
            if (by_road && (cJSON_GetObjectItemCaseSensitive(pos, "x") ||
                            cJSON_GetObjectItemCaseSensitive(pos, "y")))
                err_at(L, q, "found both x/y and road, expected one form: {\"x\", \"y\"} or "
                       "{\"road\", \"s\", \"d\"}");
            if (by_road) {
                poi->road = get_road_ref(L, pos, q, "road", true);
                get_s(L, pos, q, "s", true, 0, poi->road, &poi->s);
                get_num(L, pos, q, "d", false, 0, NUM_ANY, 0, 0, &poi->d);
                sim_road_pose ps;
                if (poi->road >= 0 && !sim_road_pose_at(&sc->net, poi->road, poi->s, poi->d, &ps))
                    poi->x = ps.x, poi->y = ps.y, poi->z = ps.z;
            } else {
                get_num(L, pos, q, "x", true, 0, NUM_ANY, 0, 0, &poi->x);
                get_num(L, pos, q, "y", true, 0, NUM_ANY, 0, 0, &poi->y);
                sim_ground g;
                sim_scenario_ground(sc, poi->x, poi->y, &g);
                poi->z = g.z;
            }
            get_num(L, pos, q, "z", false, poi->z, NUM_ANY, 0, 0, &poi->z);
        }
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, "attributes");
        if (at) {
            if (is_obj(L, at, kpath(q, p, "attributes")))
                poi->attributes_json = cJSON_PrintUnformatted(at);
        }
    }
}

/* road, s, lane (and optional speed_kmh, heading_deg) of a start point or an agent's
 * start. Returns the road index or -1. */
static int load_place(ld *L, const cJSON *o, const char *p, double *s, int *lane, double *d)
{
    int road = get_road_ref(L, o, p, "road", true);
    get_s(L, o, p, "s", true, 0, road, s);
    if (get_lane(L, o, p, "lane", true, road, lane) && road >= 0)
        sim_road_lane_center(&L->sc->net.roads[road], *lane, d);
    return road;
}

static void load_starts(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"name", "road", "s", "lane", "speed_kmh", "heading_deg", NULL};
    const cJSON *arr = get_arr(L, root, "", "start_points", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->starts = alloc_n(L, (size_t)n, sizeof *sc->starts))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        ipath(p, "start_points", i);
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, keys);
        sim_start_point *st = &sc->starts[sc->n_starts++];
        st->name = dup_str(L, o, p, "name", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "name"), "start point name", sc->starts, sc->n_starts - 1, name);
        st->road = load_place(L, o, p, &st->s, &st->lane, &st->d);
        double kmh, hdeg;
        get_num(L, o, p, "speed_kmh", false, 0, NUM_NONNEG, 0, 0, &kmh);
        st->speed = kmh / 3.6;
        sim_road_pose ps;
        if (st->road >= 0 && !sim_road_pose_at(&sc->net, st->road, st->s, st->d, &ps)) {
            st->x = ps.x, st->y = ps.y, st->z = ps.z;
            st->heading = st->lane > 0 ? remainder(ps.heading + M_PI, 2 * M_PI) : ps.heading;
        }
        if (get_num(L, o, p, "heading_deg", false, NAN, NUM_ANY, 0, 0, &hdeg) && !isnan(hdeg))
            st->heading = hdeg * M_PI / 180.0;
    }
}

static void load_traffic(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"seed", "agents", "model", "density", "radius_m", NULL};
    static const char *const models[] = {"zones", "idm", NULL};
    static const char *const akeys[] = {"id", "model", "start", "route", "desired_speed_kmh",
                                        "behaviour", NULL};
    static const char *const stkeys[] = {"road", "s", "lane", NULL};
    static const char *const bkeys[] = {"headway_s", "max_accel", "max_decel", "min_gap",
                                        "politeness", "lane_changes", NULL};
    sim_scenario *sc = L->sc;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "traffic");
    if (!t) return;
    if (!is_obj(L, t, "traffic")) return;
    check_keys(L, t, "traffic", keys);
    double seed;
    get_num(L, t, "traffic", "seed", false, 1, NUM_RANGE, 0, 4294967295.0, &seed);
    sc->traffic_seed = (uint32_t)seed;
    sc->traffic_model = get_enum(L, t, "traffic", "model", SIM_TRAFFIC_MODEL_ZONES, models);
    get_num(L, t, "traffic", "density", false, 0, NUM_RANGE, 0, 200, &sc->traffic_density);
    get_num(L, t, "traffic", "radius_m", false, 600, NUM_RANGE, 100, 5000, &sc->traffic_radius);
    const cJSON *arr = get_arr(L, t, "traffic", "agents", false);
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->agents = alloc_n(L, (size_t)n, sizeof *sc->agents))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        ipath(p, "traffic.agents", i);
        sim_agent *a = &sc->agents[sc->n_agents++];
        a->road = -1;
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, akeys);
        a->id = dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "agent id", sc->agents, sc->n_agents - 1, id);
        a->model = dup_str(L, o, p, "model", false, "car");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "start");
        kpath(q, p, "start");
        double d;
        if (is_obj(L, st, q)) {
            check_keys(L, st, q, stkeys);
            a->road = load_place(L, st, q, &a->s, &a->lane, &d);
        }
        double kmh;
        get_num(L, o, p, "desired_speed_kmh", true, 50, NUM_POS, 0, 0, &kmh);
        a->desired_speed = kmh / 3.6;
        /* Route: road ids in driving order, each connected to the one before. */
        const cJSON *rt = get_arr(L, o, p, "route", false);
        int nr = rt ? cJSON_GetArraySize(rt) : 0;
        if ((a->route = alloc_n(L, (size_t)(nr + 1), sizeof *a->route))) {
            /* The route starts on the start road, whether or not it is listed first. */
            const cJSON *first = nr ? cJSON_GetArrayItem(rt, 0) : NULL;
            bool listed = cJSON_IsString(first) && a->road >= 0 &&
                          sim_roadnet_find_road(&sc->net, first->valuestring) == a->road;
            if (a->road >= 0 && !listed) a->route[a->n_route++] = a->road;
            for (int k = 0; k < nr; k++) {
                char e[PATH_MAX_LEN];
                const cJSON *it = cJSON_GetArrayItem(rt, k);
                ipath(e, kpath(q, p, "route"), k);
                int r = cJSON_IsString(it) ? sim_roadnet_find_road(&sc->net, it->valuestring) : -1;
                if (r < 0) {
                    err_found(L, e, it, "the id of a road");
                    continue;
                }
                if (a->n_route > 0 && !sim_roadnet_connected(&sc->net, a->route[a->n_route - 1], r))
                    err_at(L, e, "found \"%s\", expected a road connected to \"%s\"",
                           it->valuestring, sc->net.roads[a->route[a->n_route - 1]].id);
                a->route[a->n_route++] = r;
            }
        }
        sim_behaviour *b = &a->behaviour;
        const cJSON *bo = cJSON_GetObjectItemCaseSensitive(o, "behaviour");
        kpath(q, p, "behaviour");
        const cJSON *src = bo && is_obj(L, bo, q) ? bo : NULL;
        if (src) check_keys(L, src, q, bkeys);
        get_num(L, src, q, "headway_s", false, 1.5, NUM_POS, 0, 0, &b->headway);
        get_num(L, src, q, "max_accel", false, 1.5, NUM_POS, 0, 0, &b->max_accel);
        get_num(L, src, q, "max_decel", false, 3.0, NUM_POS, 0, 0, &b->max_decel);
        get_num(L, src, q, "min_gap", false, 2.0, NUM_NONNEG, 0, 0, &b->min_gap);
        get_num(L, src, q, "politeness", false, 0.3, NUM_RANGE, 0, 1, &b->politeness);
        get_bool(L, src, q, "lane_changes", true, &b->lane_changes);
    }
}

static int find_agent(const sim_scenario *sc, const char *id)
{
    for (int i = 0; i < sc->n_agents; i++)
        if (sc->agents[i].id && strcmp(sc->agents[i].id, id) == 0) return i;
    return -1;
}

static int get_agent_ref(ld *L, const cJSON *o, const char *path, const char *key)
{
    const char *id;
    char p[PATH_MAX_LEN];
    if (!get_str(L, o, path, key, true, NULL, &id) || !id) return -1;
    int a = find_agent(L->sc, id);
    if (a < 0) err_at(L, kpath(p, path, key), "found \"%s\", expected the id of a traffic agent", id);
    return a;
}

static void load_triggers(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "road", "s_start", "s_end", "lanes", "by", "once", "action", NULL};
    static const char *const akeys[] = {"type", "agent", "lane", "decel", "duration_s", "text", NULL};
    static const char *const actions[] = {"lane_switch", "brake", "hud_text", "log_mark", NULL};
    const cJSON *arr = get_arr(L, root, "", "triggers", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->triggers = alloc_n(L, (size_t)n, sizeof *sc->triggers))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        ipath(p, "triggers", i);
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, keys);
        sim_trigger *t = &sc->triggers[sc->n_triggers++];
        t->id = dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "trigger id", sc->triggers, sc->n_triggers - 1, id);
        t->road = get_road_ref(L, o, p, "road", true);
        get_range(L, o, p, t->road, true, &t->s_start, &t->s_end);
        const cJSON *ls = get_arr(L, o, p, "lanes", false);
        int nl = ls ? cJSON_GetArraySize(ls) : 0;
        if (ls && (t->lanes = alloc_n(L, (size_t)nl, sizeof *t->lanes))) {
            for (int k = 0; k < nl; k++) {
                const cJSON *it = cJSON_GetArrayItem(ls, k);
                double d;
                int lane;
                char lp[PATH_MAX_LEN];
                ipath(q, kpath(lp, p, "lanes"), k);
                if (!json_lane(it, &lane) || (t->road >= 0 &&
                    !sim_road_lane_center(&sc->net.roads[t->road], lane, &d))) {
                    err_found(L, q, it, "a lane id of the trigger's road");
                    continue;
                }
                t->lanes[t->n_lanes++] = lane;
            }
        }
        const char *by;
        get_str(L, o, p, "by", false, "ego", &by);
        t->by_agent = -1;
        if (by && strcmp(by, "ego") == 0) t->by = SIM_BY_EGO;
        else if (by && strcmp(by, "any") == 0) t->by = SIM_BY_ANY;
        else if (by) {
            t->by = SIM_BY_AGENT;
            t->by_agent = get_agent_ref(L, o, p, "by");
        }
        get_bool(L, o, p, "once", true, &t->once);
        const cJSON *ac = cJSON_GetObjectItemCaseSensitive(o, "action");
        kpath(q, p, "action");
        if (!is_obj(L, ac, q)) continue;
        check_keys(L, ac, q, akeys);
        int ty = get_enum(L, ac, q, "type", -1, actions);
        t->agent = -1;
        t->action = ty < 0 ? SIM_ACTION_LOG_MARK : (sim_action_type)ty;
        if (ty == SIM_ACTION_LANE_SWITCH || ty == SIM_ACTION_BRAKE) t->agent = get_agent_ref(L, ac, q, "agent");
        if (ty == SIM_ACTION_LANE_SWITCH) {
            int road = t->agent >= 0 ? sc->agents[t->agent].road : -1;
            get_lane(L, ac, q, "lane", true, road, &t->lane);
        }
        if (ty == SIM_ACTION_BRAKE) {
            get_num(L, ac, q, "decel", true, 0, NUM_POS, 0, 0, &t->decel);
            get_num(L, ac, q, "duration_s", true, 0, NUM_POS, 0, 0, &t->duration);
        }
        if (ty == SIM_ACTION_HUD_TEXT) get_num(L, ac, q, "duration_s", false, 3.0, NUM_POS, 0, 0, &t->duration);
        if (ty == SIM_ACTION_HUD_TEXT || ty == SIM_ACTION_LOG_MARK) t->text = dup_str(L, ac, q, "text", true, NULL);
    }
}

static void load_sectors(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "road", "s_start", "s_end", NULL};
    const cJSON *arr = get_arr(L, root, "", "sectors", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->sectors = alloc_n(L, (size_t)n, sizeof *sc->sectors))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        ipath(p, "sectors", i);
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, keys);
        sim_sector *s = &sc->sectors[sc->n_sectors++];
        s->id = dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "sector id", sc->sectors, sc->n_sectors - 1, id);
        s->name = dup_str(L, o, p, "name", false, s->id);
        s->road = get_road_ref(L, o, p, "road", true);
        get_range(L, o, p, s->road, true, &s->s_start, &s->s_end);
    }
}

/* The ideal line from lane changes: the start lane's centre, then for each change a
 * linear ramp of ramp_length from the current lane's centre to the new one's. */
static void ideal_from_lane_changes(ld *L, sim_task *t, const cJSON *io, const char *path)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    const sim_road *r = t->road >= 0 ? &L->sc->net.roads[t->road] : NULL;
    int lane;
    double d = 0;
    if (!get_lane(L, io, path, "start_lane", true, t->road, &lane) || !r) return;
    sim_road_lane_center(r, lane, &d);
    const cJSON *ch = get_arr(L, io, path, "lane_changes", false);
    int n = ch ? cJSON_GetArraySize(ch) : 0;
    t->ideal_s = alloc_n(L, (size_t)(2 * n + 1), sizeof(double));
    t->ideal_d = alloc_n(L, (size_t)(2 * n + 1), sizeof(double));
    if (!t->ideal_s || !t->ideal_d) return;
    t->ideal_s[0] = t->s_start;
    t->ideal_d[0] = d;
    t->n_ideal = 1;
    static const char *const keys[] = {"s", "to_lane", "ramp_length", NULL};
    for (int i = 0; i < n; i++) {
        const cJSON *o = cJSON_GetArrayItem(ch, i);
        ipath(p, kpath(q, path, "lane_changes"), i);
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, keys);
        double s, ramp, nd;
        int to;
        bool ok = get_num(L, o, p, "s", true, 0, NUM_RANGE, t->s_start, t->s_end, &s);
        ok &= get_num(L, o, p, "ramp_length", true, 0, NUM_POS, 0, 0, &ramp);
        ok &= get_lane(L, o, p, "to_lane", true, t->road, &to);
        if (!ok) continue;
        double last = t->ideal_s[t->n_ideal - 1];
        if (s < last) {
            err_at(L, kpath(q, p, "s"), "found %g, expected a number >= %g (after the previous "
                   "ramp ends)", s, last);
            continue;
        }
        if (s + ramp > t->s_end) {
            err_at(L, kpath(q, p, "ramp_length"), "found %g, expected the ramp to end by the "
                   "task's s_end %g", ramp, t->s_end);
            continue;
        }
        sim_road_lane_center(r, to, &nd);
        if (s > last) { /* hold the lane up to the ramp's start */
            t->ideal_s[t->n_ideal] = s;
            t->ideal_d[t->n_ideal] = t->ideal_d[t->n_ideal - 1];
            t->n_ideal++;
        }
        t->ideal_s[t->n_ideal] = s + ramp;
        t->ideal_d[t->n_ideal++] = nd;
    }
}

static void load_tasks(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "sector", "road", "s_start", "s_end",
                                       "tube_half_width", "ideal", NULL};
    static const char *const ikeys[] = {"points", "start_lane", "lane_changes", NULL};
    const cJSON *arr = get_arr(L, root, "", "tasks", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->tasks = alloc_n(L, (size_t)n, sizeof *sc->tasks))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        ipath(p, "tasks", i);
        if (!is_obj(L, o, p)) continue;
        check_keys(L, o, p, keys);
        sim_task *t = &sc->tasks[sc->n_tasks++];
        t->id = dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, kpath(q, p, "id"), "task id", sc->tasks, sc->n_tasks - 1, id);
        t->name = dup_str(L, o, p, "name", false, t->id);
        t->sector = -1;
        t->road = -1;
        const char *sid;
        if (get_str(L, o, p, "sector", false, NULL, &sid) && sid) {
            for (int k = 0; k < sc->n_sectors; k++)
                if (sc->sectors[k].id && strcmp(sc->sectors[k].id, sid) == 0) t->sector = k;
            if (t->sector < 0)
                err_at(L, kpath(q, p, "sector"), "found \"%s\", expected the id of a sector", sid);
        }
        const sim_sector *sec = t->sector >= 0 ? &sc->sectors[t->sector] : NULL;
        if (cJSON_GetObjectItemCaseSensitive(o, "road") || !sec) t->road = get_road_ref(L, o, p, "road", true);
        else t->road = sec->road;
        bool ok = get_range(L, o, p, t->road, !sec, &t->s_start, &t->s_end);
        if (sec && !cJSON_GetObjectItemCaseSensitive(o, "s_start")) t->s_start = sec->s_start;
        if (sec && !cJSON_GetObjectItemCaseSensitive(o, "s_end")) t->s_end = sec->s_end;
        if (ok && sec && (t->road != sec->road || t->s_start < sec->s_start || t->s_end > sec->s_end))
            err_at(L, p, "found [%g, %g], expected a range inside sector \"%s\" [%g, %g] on its road",
                   t->s_start, t->s_end, sec->id ? sec->id : "?", sec->s_start, sec->s_end);
        get_num(L, o, p, "tube_half_width", true, 1.0, NUM_POS, 0, 0, &t->tube_half_width);
        const cJSON *io = cJSON_GetObjectItemCaseSensitive(o, "ideal");
        kpath(q, p, "ideal");
        if (!is_obj(L, io, q)) continue;
        check_keys(L, io, q, ikeys);
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(io, "points");
        bool has_lc = cJSON_GetObjectItemCaseSensitive(io, "start_lane") != NULL;
        if ((pts != NULL) == has_lc) {
            err_at(L, q, "found %s, expected either points or start_lane (with lane_changes)",
                   pts ? "both" : "neither");
            continue;
        }
        if (has_lc) {
            ideal_from_lane_changes(L, t, io, q);
            continue;
        }
        char e[PATH_MAX_LEN], pp[PATH_MAX_LEN];
        kpath(pp, q, "points");
        int np = cJSON_IsArray(pts) ? cJSON_GetArraySize(pts) : 0;
        if (np == 0) {
            err_found(L, pp, pts, "a non-empty array of [s, d] points");
            continue;
        }
        t->ideal_s = alloc_n(L, (size_t)np, sizeof(double));
        t->ideal_d = alloc_n(L, (size_t)np, sizeof(double));
        for (int k = 0; t->ideal_s && t->ideal_d && k < np; k++) {
            const cJSON *pt = cJSON_GetArrayItem(pts, k);
            ipath(e, pp, k);
            if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(pt, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(pt, 1))) {
                err_found(L, e, pt, "[s, d] in metres");
                continue;
            }
            double s = cJSON_GetArrayItem(pt, 0)->valuedouble, d = cJSON_GetArrayItem(pt, 1)->valuedouble;
            if (t->n_ideal > 0 && !(s > t->ideal_s[t->n_ideal - 1])) {
                err_at(L, e, "found s = %g, expected s > %g (ascending)", s, t->ideal_s[t->n_ideal - 1]);
                continue;
            }
            t->ideal_s[t->n_ideal] = s;
            t->ideal_d[t->n_ideal++] = d;
        }
    }
}

static void load_environment(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"light", "time_of_day", "weather", "visibility_m", "sound", NULL};
    static const char *const skeys[] = {"engine", "ambient", "volume", NULL};
    static const char *const lights[] = {"day", "dawn", "dusk", "night", NULL};
    static const char *const weathers[] = {"clear", "cloudy", "rain", "fog", "snow", NULL};
    sim_environment *env = &L->sc->env;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "environment");
    const cJSON *src = e && is_obj(L, e, "environment") ? e : NULL;
    if (src) check_keys(L, src, "environment", keys);
    int l = get_enum(L, src, "environment", "light", SIM_LIGHT_DAY, lights);
    env->light = l < 0 ? SIM_LIGHT_DAY : (sim_light)l;
    int w = get_enum(L, src, "environment", "weather", SIM_WEATHER_CLEAR, weathers);
    env->weather = w < 0 ? SIM_WEATHER_CLEAR : (sim_weather)w;
    get_num(L, src, "environment", "time_of_day", false, 12, NUM_RANGE, 0, 24, &env->time_of_day);
    get_num(L, src, "environment", "visibility_m", false, 10000, NUM_POS, 0, 0, &env->visibility);
    const cJSON *so = src ? cJSON_GetObjectItemCaseSensitive(src, "sound") : NULL;
    const cJSON *ssrc = so && is_obj(L, so, "environment.sound") ? so : NULL;
    if (ssrc) check_keys(L, ssrc, "environment.sound", skeys);
    get_bool(L, ssrc, "environment.sound", "engine", true, &env->engine_sound);
    env->ambient_sound = dup_str(L, ssrc, "environment.sound", "ambient", false, NULL);
    get_num(L, ssrc, "environment.sound", "volume", false, 1, NUM_RANGE, 0, 1, &env->volume);
}

/* ---- entry points ------------------------------------------------------------- */

int sim_scenario_parse(const char *text, size_t len, const char *name, const char *base_dir,
                       sim_scenario **out, sim_diag *diag)
{
    static const char *const keys[] = {"format", "name", "description", "author", "version",
                                       "terrain", "roads", "junctions", "pois", "start_points",
                                       "traffic", "triggers", "sectors", "tasks", "environment",
                                       "road_friction", NULL};
    *out = NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t pos = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    if (root) {
        /* Only whitespace may follow the value. */
        while (pos < len && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
            pos++;
    }
    if (!root || pos < len) {
        int line, col;
        sim_file_line_col(text, pos, &line, &col);
        char near[24];
        size_t k = 0;
        for (size_t i = pos; i < len && k < 16 && text[i] != '\n'; i++)
            near[k++] = isprint((unsigned char)text[i]) ? text[i] : '?';
        near[k] = '\0';
        if (!root)
            sim_diag_add(diag, "%s:%d:%d: JSON syntax error near \"%s\"%s", name, line, col, near,
                         pos >= len ? " (unexpected end of input)" : "");
        else
            sim_diag_add(diag, "%s:%d:%d: unexpected text after the JSON value: \"%s\"", name,
                         line, col, near);
        cJSON_Delete(root);
        return SIM_EINVAL;
    }
    ld L = {.file = name, .base_dir = base_dir, .diag = diag};
    sim_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        cJSON_Delete(root);
        sim_diag_add(diag, "%s: out of memory", name);
        return SIM_ENOMEM;
    }
    L.sc = sc;
    sc->path = strdup(name);
    if (!cJSON_IsObject(root)) {
        err_found(&L, "(top level)", root, "an object");
    } else {
        check_keys(&L, root, "", keys);
        int fmt;
        get_int(&L, root, "", "format", false, 1, 1, 1, &fmt);
        sc->name = dup_str(&L, root, "", "name", true, NULL);
        sc->description = dup_str(&L, root, "", "description", false, NULL);
        sc->author = dup_str(&L, root, "", "author", false, NULL);
        sc->version = dup_str(&L, root, "", "version", false, NULL);
        get_num(&L, root, "", "road_friction", false, 1.0, NUM_RANGE, 0, 3, &sc->road_friction);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "terrain");
        if (t) load_terrain(&L, t);
        sc->net.terrain = sc->terrain;
        load_roads(&L, root);
        load_junctions(&L, root);
        sim_error e = {0};
        if (sim_roadnet_build_index(&sc->net, &e)) err_at(&L, "roads", "%s", e.msg);
        load_pois(&L, root);
        load_starts(&L, root);
        load_traffic(&L, root);
        load_triggers(&L, root);
        load_sectors(&L, root);
        load_tasks(&L, root);
        load_environment(&L, root);
    }
    cJSON_Delete(root);
    if (L.errors) {
        sim_scenario_free(sc);
        return SIM_EINVAL;
    }
    *out = sc;
    return SIM_OK;
}

int sim_scenario_load(const char *path, sim_scenario **out, sim_diag *diag)
{
    char *text;
    size_t len;
    sim_error e = {0};
    *out = NULL;
    int rc = sim_file_read(path, &text, &len, &e);
    if (rc) {
        sim_diag_add(diag, "%s", e.msg);
        return rc;
    }
    char *dir = sim_file_dirname(path);
    rc = dir ? sim_scenario_parse(text, len, path, dir, out, diag) : SIM_ENOMEM;
    free(dir);
    free(text);
    return rc;
}

int sim_scenario_load_err(const char *path, sim_scenario **out, sim_error *err)
{
    sim_diag diag = {0};
    int rc = sim_scenario_load(path, out, &diag);
    if (rc && diag.n)
        sim_error_set(err, rc, "%s%s", diag.msgs[0],
                      diag.n + diag.dropped > 1 ? " (and more: see simctl validate)" : "");
    else if (rc)
        sim_error_set(err, rc, "%s: cannot load the scenario", path);
    sim_diag_free(&diag);
    return rc;
}

void sim_scenario_free(sim_scenario *sc)
{
    if (!sc) return;
    free(sc->path);
    free(sc->name);
    free(sc->description);
    free(sc->author);
    free(sc->version);
    if (sc->terrain) sim_terrain_free(sc->terrain);
    free(sc->terrain);
    sim_roadnet_free(&sc->net);
    for (int i = 0; i < sc->n_pois; i++) {
        free(sc->pois[i].id);
        free(sc->pois[i].name);
        free(sc->pois[i].category);
        free(sc->pois[i].attributes_json);
    }
    free(sc->pois);
    for (int i = 0; i < sc->n_starts; i++) free(sc->starts[i].name);
    free(sc->starts);
    for (int i = 0; i < sc->n_agents; i++) {
        free(sc->agents[i].id);
        free(sc->agents[i].model);
        free(sc->agents[i].route);
    }
    free(sc->agents);
    for (int i = 0; i < sc->n_triggers; i++) {
        free(sc->triggers[i].id);
        free(sc->triggers[i].lanes);
        free(sc->triggers[i].text);
    }
    free(sc->triggers);
    for (int i = 0; i < sc->n_sectors; i++) {
        free(sc->sectors[i].id);
        free(sc->sectors[i].name);
    }
    free(sc->sectors);
    for (int i = 0; i < sc->n_tasks; i++) {
        free(sc->tasks[i].id);
        free(sc->tasks[i].name);
        free(sc->tasks[i].ideal_s);
        free(sc->tasks[i].ideal_d);
    }
    free(sc->tasks);
    free(sc->env.ambient_sound);
    free(sc);
}

int sim_scenario_find_start(const sim_scenario *sc, const char *name)
{
    for (int i = 0; i < sc->n_starts; i++)
        if (sc->starts[i].name && strcmp(sc->starts[i].name, name) == 0) return i;
    return -1;
}

int sim_scenario_start_index(const sim_scenario *sc, const char *name, int *index, sim_error *err)
{
    int i = name ? sim_scenario_find_start(sc, name) : sc->n_starts > 0 ? 0 : -1;
    if (i >= 0) {
        *index = i;
        return SIM_OK;
    }
    char known[256] = "";
    for (int k = 0; k < sc->n_starts; k++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s\"%s\"", k ? ", " : "", sc->starts[k].name);
    }
    if (!name)
        return sim_error_set(err, SIM_ENOTFOUND, "%s: start_points: none, expected at least one", sc->path);
    return sim_error_set(err, SIM_ENOTFOUND, "%s: start_points: no start point named \"%s\", expected one of: %s",
                         sc->path, name, known);
}

int sim_scenario_find_task(const sim_scenario *sc, const char *id)
{
    for (int i = 0; i < sc->n_tasks; i++)
        if (sc->tasks[i].id && strcmp(sc->tasks[i].id, id) == 0) return i;
    return -1;
}

double sim_task_ideal_d(const sim_task *t, double s)
{
    int n = t->n_ideal;
    if (n == 0) return 0.0;
    if (s <= t->ideal_s[0]) return t->ideal_d[0];
    if (s >= t->ideal_s[n - 1]) return t->ideal_d[n - 1];
    int lo = 0, hi = n - 1; /* ideal_s[lo] <= s < ideal_s[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t->ideal_s[mid] <= s) lo = mid;
        else hi = mid;
    }
    double u = (s - t->ideal_s[lo]) / (t->ideal_s[hi] - t->ideal_s[lo]);
    return t->ideal_d[lo] + u * (t->ideal_d[hi] - t->ideal_d[lo]);
}

void sim_scenario_ground(const sim_scenario *sc, double x, double y, sim_ground *out)
{
    memset(out, 0, sizeof *out);
    out->road = -1;
    sim_road_loc loc;
    if (sim_roadnet_locate_on_road(&sc->net, x, y, &loc) == 0) {
        const sim_road *r = &sc->net.roads[loc.road];
        out->on_road = true;
        out->road = loc.road;
        out->z = sim_road_surface(&sc->net, loc.road, loc.s, loc.d, out->n);
        const sim_surface_zone *z = sim_road_zone_at(r, loc.s);
        out->friction = z ? z->friction : sc->road_friction;
        out->surface = z ? z->surface : SIM_SURFACE_ASPHALT;
        return;
    }
    if (sc->terrain) {
        sim_terrain_sample smp;
        sim_terrain_eval(sc->terrain, x, y, &smp);
        out->z = smp.z;
        memcpy(out->n, smp.n, sizeof out->n);
        out->friction = smp.friction;
        out->surface = smp.surface;
    } else {
        out->n[2] = 1.0;
        out->friction = sc->road_friction;
        out->surface = SIM_SURFACE_ASPHALT;
    }
}

int sim_scenario_validate(const char *path, sim_diag *diag)
{
    sim_scenario *sc;
    int rc = sim_scenario_load(path, &sc, diag);
    sim_scenario_free(sc);
    return rc;
}

/* Rounds to a millimetre so that printed figures do not show float noise. */
static double mm(double v)
{
    return round(v * 1000.0) / 1000.0;
}

char *sim_scenario_where_json(const sim_scenario *sc, double x, double y)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    sim_road_loc loc;
    sim_ground g;
    sim_scenario_ground(sc, x, y, &g);
    if (sim_roadnet_locate(&sc->net, x, y, &loc) == 0) {
        cJSON_AddStringToObject(o, "road", sc->net.roads[loc.road].id);
        cJSON_AddNumberToObject(o, "s", mm(loc.s));
        cJSON_AddNumberToObject(o, "d", mm(loc.d));
        cJSON_AddNumberToObject(o, "lane", loc.lane.lane);
        cJSON_AddBoolToObject(o, "on_road", loc.on_road);
        cJSON_AddNumberToObject(o, "distance", mm(loc.distance));
    } else {
        cJSON_AddNullToObject(o, "road");
    }
    cJSON_AddNumberToObject(o, "z", mm(g.z));
    if (sc->terrain) cJSON_AddNumberToObject(o, "terrain_z", mm(sim_terrain_height(sc->terrain, x, y)));
    char *out = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return out;
}

static const char *const light_names[] = {"day", "dawn", "dusk", "night"};
static const char *const weather_names[] = {"clear", "cloudy", "rain", "fog", "snow"};
static const char *const action_names[] = {"lane_switch", "brake", "hud_text", "log_mark"};
const char *sim_light_name(sim_light l) { return light_names[l]; }
const char *sim_weather_name(sim_weather w) { return weather_names[w]; }
const char *sim_action_name(sim_action_type a) { return action_names[a]; }
