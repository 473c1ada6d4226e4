/* sim_scenario_fields: the scenario loader's field helpers (see sim_scenario_load.h):
 * typed reads of a JSON member with "file: path: found X, expected Y" errors, the
 * unknown-key check, and references to roads and lanes. */
#include "sim_scenario_load.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- loader context and field helpers ------------------------------------------ */

void scn_err_at(ld *L, const char *path, const char *fmt, ...)
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
static void scn_path_append(char *buf, size_t *n, const char *s)
{
    size_t k = strlen(s);
    if (k > PATH_MAX_LEN - 1 - *n) k = PATH_MAX_LEN - 1 - *n;
    memmove(buf + *n, s, k);
    *n += k;
    buf[*n] = '\0';
}

const char *scn_kpath(char *buf, const char *path, const char *key)
{
    size_t n = 0;
    buf[0] = '\0';
    scn_path_append(buf, &n, path);
    if (*path) scn_path_append(buf, &n, ".");
    scn_path_append(buf, &n, key);
    return buf;
}

const char *scn_ipath(char *buf, const char *path, int i)
{
    char idx[16];
    size_t n = 0;
    snprintf(idx, sizeof idx, "[%d]", i);
    buf[0] = '\0';
    scn_path_append(buf, &n, path);
    scn_path_append(buf, &n, idx);
    return buf;
}

/* How a JSON value reads in a message: what was found. */
static void scn_describe(const cJSON *v, char *buf, size_t n)
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

void scn_err_found(ld *L, const char *path, const cJSON *v, const char *expected)
{
    char f[96];
    scn_describe(v, f, sizeof f);
    if (v) scn_err_at(L, path, "found %s, expected %s", f, expected);
    else scn_err_at(L, path, "missing, expected %s", expected);
}

/* Reports members of obj not in the NULL-terminated allowed list (keys starting with
 * '_' are comments and always allowed). */
void scn_check_keys(ld *L, const cJSON *obj, const char *path, const char *const *allowed)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        if (!it->string || it->string[0] == '_') continue;
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (prev->string && strcmp(prev->string, it->string) == 0) {
                char p[PATH_MAX_LEN];
                scn_err_at(L, scn_kpath(p, path, it->string), "found this field twice, expected it once");
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
        scn_err_at(L, scn_kpath(p, path, it->string), "unknown field, expected one of: %s", list);
    }
}

/* An object at path (the value itself, already fetched). */
bool scn_is_obj(ld *L, const cJSON *v, const char *path)
{
    if (cJSON_IsObject(v)) return true;
    scn_err_found(L, path, v, "an object");
    return false;
}

/* Reads number obj.key into *out. Missing: error when required, else *out = def.
 * Returns true when *out holds a valid value (given or default). */
bool scn_get_num(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
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
        if (required) scn_err_found(L, scn_kpath(p, path, key), NULL, want);
        return !required;
    }
    double x = v->valuedouble;
    bool ok = cJSON_IsNumber(v) && isfinite(x);
    if (ok && kind == NUM_POS) ok = x > 0;
    if (ok && kind == NUM_NONNEG) ok = x >= 0;
    if (ok && kind == NUM_RANGE) ok = x >= lo && x <= hi;
    if (!ok) {
        scn_err_found(L, scn_kpath(p, path, key), v, want);
        return false;
    }
    *out = x;
    return true;
}

/* An integer (a JSON number with no fraction) in [lo, hi]. */
bool scn_get_int(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                 int def, int lo, int hi, int *out)
{
    char p[PATH_MAX_LEN], want[96];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    snprintf(want, sizeof want, "an integer in [%d, %d]", lo, hi);
    if (!v) {
        if (required) scn_err_found(L, scn_kpath(p, path, key), NULL, want);
        return !required;
    }
    double x = v->valuedouble;
    if (!cJSON_IsNumber(v) || !(x >= lo && x <= hi) || x != floor(x)) {
        scn_err_found(L, scn_kpath(p, path, key), v, want);
        return false;
    }
    *out = (int)x;
    return true;
}

/* A JSON value that is a lane id: an integer in [-100, 100] (no road has more). */
bool scn_json_lane(const cJSON *v, int *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= -100 && v->valuedouble <= 100) ||
        v->valuedouble != floor(v->valuedouble))
        return false;
    *out = (int)v->valuedouble;
    return true;
}

bool scn_get_bool(ld *L, const cJSON *obj, const char *path, const char *key, bool def,
                  bool *out)
{
    char p[PATH_MAX_LEN];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!v) return true;
    if (!cJSON_IsBool(v)) {
        scn_err_found(L, scn_kpath(p, path, key), v, "true or false");
        return false;
    }
    *out = cJSON_IsTrue(v);
    return true;
}

/* A string; *out points into the JSON (valid while it lives) or is def. */
bool scn_get_str(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                 const char *def, const char **out)
{
    char p[PATH_MAX_LEN];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = def;
    if (!v) {
        if (required) scn_err_found(L, scn_kpath(p, path, key), NULL, "a non-empty string");
        return !required;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        scn_err_found(L, scn_kpath(p, path, key), v, "a non-empty string");
        return false;
    }
    *out = v->valuestring;
    return true;
}

/* A copied string (NULL when absent and def is NULL). */
char *scn_dup_str(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  const char *def)
{
    const char *s;
    scn_get_str(L, obj, path, key, required, def, &s);
    return s ? strdup(s) : NULL;
}

/* One of a list of names (NULL-terminated); returns its index, def when absent, -1
 * (after an error) when wrong. */
int scn_get_enum(ld *L, const cJSON *obj, const char *path, const char *key, int def,
                 const char *const *names)
{
    const char *s;
    char p[PATH_MAX_LEN], want[300] = "one of: ";
    if (!scn_get_str(L, obj, path, key, def < 0, NULL, &s) || !s) return s ? -1 : def;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    for (int i = 0; names[i]; i++) {
        strncat(want, names[i], sizeof want - strlen(want) - 1);
        if (names[i + 1]) strncat(want, ", ", sizeof want - strlen(want) - 1);
    }
    scn_err_found(L, scn_kpath(p, path, key), cJSON_GetObjectItemCaseSensitive(obj, key), want);
    return -1;
}

/* An optional array member: NULL when absent; error and NULL when not an array. */
const cJSON *scn_get_arr(ld *L, const cJSON *obj, const char *path, const char *key,
                         bool required)
{
    char p[PATH_MAX_LEN];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && !required) return NULL;
    if (!cJSON_IsArray(v)) {
        scn_err_found(L, scn_kpath(p, path, key), v, "an array");
        return NULL;
    }
    return v;
}

/* calloc of n elements that never returns NULL for n == 0 (and reports OOM). */
void *scn_alloc_n(ld *L, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) scn_err_at(L, "(memory)", "out of memory allocating %zu elements", n);
    return p;
}

/* A road reference obj.key by id: index or -1 (after an error when given and wrong,
 * or when required and missing). */
int scn_get_road_ref(ld *L, const cJSON *obj, const char *path, const char *key,
                     bool required)
{
    const char *id;
    char p[PATH_MAX_LEN];
    if (!scn_get_str(L, obj, path, key, required, NULL, &id) || !id) return -1;
    int r = sim_roadnet_find_road(&L->sc->net, id);
    if (r < 0) scn_err_at(L, scn_kpath(p, path, key), "found \"%s\", expected the id of a road", id);
    return r;
}

/* s in [0, road length] at obj.key. */
bool scn_get_s(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
               double def, int road, double *out)
{
    double len = road >= 0 ? L->sc->net.roads[road].length : INFINITY;
    if (road >= 0) return scn_get_num(L, obj, path, key, required, def, NUM_RANGE, 0, len, out);
    return scn_get_num(L, obj, path, key, required, def, NUM_NONNEG, 0, 0, out);
}

/* A lane id that exists on road (when the road resolved). */
bool scn_get_lane(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  int road, int *out)
{
    char p[PATH_MAX_LEN];
    if (!scn_get_int(L, obj, path, key, required, 0, -100, 100, out)) return false;
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
        scn_err_at(L, scn_kpath(p, path, key), "found %d, expected a lane of road \"%s\": one of %s",
               *out, r->id ? r->id : "?", ids);
        return false;
    }
    return true;
}

/* s_start/s_end of a stretch within [0, length], s_end defaulting to the end. */
bool scn_get_range(ld *L, const cJSON *o, const char *path, int road, bool required,
                   double *a, double *b)
{
    bool ok = scn_get_s(L, o, path, "s_start", required, 0, road, a);
    double len = road >= 0 ? L->sc->net.roads[road].length : 0;
    ok &= scn_get_s(L, o, path, "s_end", required, len, road, b);
    if (ok && *b <= *a) {
        char p[PATH_MAX_LEN];
        scn_err_at(L, scn_kpath(p, path, "s_end"), "found %g, expected a number > s_start (%g)", *b, *a);
        ok = false;
    }
    return ok;
}

/* Reports id when an earlier element of arr (n elements of size stride, with the
 * char* id at byte offset off) has the same one. */
void scn_check_unique(ld *L, const char *path, const char *kind, const char *id,
                      const void *arr, size_t stride, size_t off, int n)
{
    if (!id) return;
    for (int k = 0; k < n; k++) {
        const char *other = *(char *const *)((const char *)arr + (size_t)k * stride + off);
        if (other && strcmp(other, id) == 0) {
            scn_err_at(L, path, "found \"%s\" again, expected a unique %s", id, kind);
            return;
        }
    }
}
