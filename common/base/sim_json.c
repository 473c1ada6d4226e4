/* sim_json: typed reads of JSON with one form of error message (see sim_json.h). */
#include "sim_json.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim_file.h"

int sim_json_fail(sim_json *j, int code, const char *path, const char *fmt, ...)
{
    char msg[SIM_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[SIM_ERROR_MSG_MAX + SIM_JSON_PATH_MAX + 256];
    snprintf(full, sizeof full, "%s%s%s%s%s", j->file ? j->file : "", j->file ? ": " : "",
             path ? path : "", path ? ": " : "", msg);
    if (j->errors++ == 0 && j->err) sim_error_set(j->err, code, "%s", full);
    if (j->report) j->report(j->user, full);
    return code;
}

void sim_json_kind(const cJSON *v, char *buf, size_t n)
{
    const char *k = !v                 ? "nothing"
                    : cJSON_IsNumber(v) ? "a number"
                    : cJSON_IsString(v) ? "a string"
                    : cJSON_IsBool(v)   ? "a boolean"
                    : cJSON_IsNull(v)   ? "null"
                    : cJSON_IsArray(v)  ? "an array"
                                        : "an object";
    snprintf(buf, n, "%s", k);
}

void sim_json_value(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsNumber(v)) {
        snprintf(buf, n, "%g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        char s[64];
        size_t k = 0;
        for (const char *p = v->valuestring; *p && k < sizeof s - 4; p++)
            s[k++] = isprint((unsigned char)*p) ? *p : '?';
        if (strlen(v->valuestring) > k) s[k++] = '.', s[k++] = '.', s[k++] = '.';
        s[k] = '\0';
        snprintf(buf, n, "\"%s\"", s);
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsArray(v)) {
        snprintf(buf, n, "an array of %d elements", cJSON_GetArraySize(v));
    } else {
        sim_json_kind(v, buf, n);
    }
}

int sim_json_found(sim_json *j, const char *path, const cJSON *v, const char *expected)
{
    return sim_json_bad_value(j, SIM_EINVAL, path, v, expected);
}

int sim_json_bad_value(sim_json *j, int code, const char *path, const cJSON *v, const char *expected)
{
    if (!v) return sim_json_fail(j, code, path, "missing, expected %s", expected);
    char f[96];
    sim_json_value(v, f, sizeof f);
    return sim_json_fail(j, code, path, "found %s, expected %s", f, expected);
}

static void path_append(char *buf, size_t *n, const char *s)
{
    size_t k = strlen(s);
    if (k > SIM_JSON_PATH_MAX - 1 - *n) k = SIM_JSON_PATH_MAX - 1 - *n;
    memmove(buf + *n, s, k);
    *n += k;
    buf[*n] = '\0';
}

const char *sim_json_key_path(char *buf, const char *path, const char *key)
{
    size_t n = 0;
    buf[0] = '\0';
    path_append(buf, &n, path ? path : "");
    if (path && *path) path_append(buf, &n, ".");
    path_append(buf, &n, key);
    return buf;
}

const char *sim_json_index_path(char *buf, const char *path, int i)
{
    char idx[16];
    size_t n = 0;
    snprintf(idx, sizeof idx, "[%d]", i);
    buf[0] = '\0';
    path_append(buf, &n, path ? path : "");
    path_append(buf, &n, idx);
    return buf;
}

const cJSON *sim_json_at(const cJSON *obj, const char *key)
{
    const cJSON *node = obj;
    const char *p = key;
    while (node) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (!cJSON_IsObject(node)) return NULL;
        const cJSON *next = NULL;
        for (const cJSON *c = node->child; c; c = c->next)
            if (c->string && strlen(c->string) == len && memcmp(c->string, p, len) == 0) {
                next = c;
                break;
            }
        node = next;
        if (!dot) return node;
        p = dot + 1;
    }
    return NULL;
}

int sim_json_parse(sim_json *j, const char *text, size_t len, cJSON **out)
{
    *out = NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t pos = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    if (root) { /* only whitespace may follow the value */
        while (pos < len && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
            pos++;
        if (pos == len) {
            int rc = sim_json_strict(j, root, "", false);
            if (rc != SIM_OK) {
                cJSON_Delete(root);
                return rc;
            }
            *out = root;
            return SIM_OK;
        }
    }
    int line, col;
    sim_file_line_col(text, pos, &line, &col);
    char near[24];
    size_t k = 0;
    for (size_t i = pos; i < len && k < 16 && text[i] != '\n'; i++)
        near[k++] = isprint((unsigned char)text[i]) ? text[i] : '?';
    near[k] = '\0';
    /* The position is part of the name: "file:line:col", as compilers write it. */
    char where[256];
    if (j->file) snprintf(where, sizeof where, "%s:%d:%d", j->file, line, col);
    else snprintf(where, sizeof where, "line %d, column %d", line, col);
    const char *file = j->file;
    j->file = NULL;
    if (!root)
        sim_json_fail(j, SIM_EINVAL, where, "JSON syntax error near \"%s\"%s", near,
                      pos >= len ? " (unexpected end of input)" : "");
    else
        sim_json_fail(j, SIM_EINVAL, where, "unexpected text after the JSON value: \"%s\"", near);
    j->file = file;
    cJSON_Delete(root);
    return SIM_EINVAL;
}

int sim_json_keys(sim_json *j, const cJSON *obj, const char *path, const char *const *allowed, int n)
{
    n = sim_enum_count(allowed, n);
    int rc = SIM_OK;
    char p[SIM_JSON_PATH_MAX];
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        if (!it->string || it->string[0] == '_') continue;
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (prev->string && strcmp(prev->string, it->string) == 0) {
                int e = sim_json_fail(j, SIM_EINVAL, sim_json_key_path(p, path, it->string),
                                      "found this field twice, expected it once");
                if (!rc) rc = e;
                break;
            }
        if (sim_enum_parse(it->string, allowed, n) >= 0) continue;
        char list[400];
        int e = sim_json_fail(j, SIM_EINVAL, sim_json_key_path(p, path, it->string),
                              "unknown field, expected one of: %s", sim_enum_list(allowed, n, list, sizeof list));
        if (!rc) rc = e;
        if (!j->report) return rc; /* stopping at the first */
    }
    return rc;
}

int sim_json_object(sim_json *j, const cJSON *v, const char *path)
{
    return cJSON_IsObject(v) ? SIM_OK : sim_json_found(j, path, v, "an object");
}

/* The member (NULL when obj is NULL) and its path for messages. */
static const cJSON *member(const cJSON *obj, const char *path, const char *key, char *p)
{
    sim_json_key_path(p, path, key);
    return obj ? sim_json_at(obj, key) : NULL;
}

int sim_json_num(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                 double def, sim_json_range range, double lo, double hi, double *out)
{
    char p[SIM_JSON_PATH_MAX], want[96];
    const cJSON *v = member(obj, path, key, p);
    *out = def;
    switch (range) {
    case SIM_JSON_ANY: snprintf(want, sizeof want, "a number"); break;
    case SIM_JSON_POS: snprintf(want, sizeof want, "a number > 0"); break;
    case SIM_JSON_NONNEG: snprintf(want, sizeof want, "a number >= 0"); break;
    case SIM_JSON_RANGE: snprintf(want, sizeof want, "a number in [%g, %g]", lo, hi); break;
    }
    if (!v) return required ? sim_json_found(j, p, NULL, want) : SIM_OK;
    if (!cJSON_IsNumber(v)) return sim_json_found(j, p, v, want);
    double x = v->valuedouble;
    bool ok = isfinite(x);
    if (ok && range == SIM_JSON_POS) ok = x > 0;
    if (ok && range == SIM_JSON_NONNEG) ok = x >= 0;
    if (ok && range == SIM_JSON_RANGE) ok = x >= lo && x <= hi;
    if (!ok) return sim_json_bad_value(j, SIM_ERANGE, p, v, want);
    *out = x;
    return SIM_OK;
}

int sim_json_number(sim_json *j, const cJSON *v, const char *path, double lo, double hi,
                    double *out)
{
    char want[96];
    if (isinf(lo) && isinf(hi)) snprintf(want, sizeof want, "a number");
    else snprintf(want, sizeof want, "a number in [%g, %g]", lo, hi);
    if (!cJSON_IsNumber(v)) return sim_json_found(j, path, v, want);
    double x = v->valuedouble;
    if (!(isfinite(x) && x >= lo && x <= hi)) return sim_json_bad_value(j, SIM_ERANGE, path, v, want);
    *out = x;
    return SIM_OK;
}

int sim_json_integer(sim_json *j, const cJSON *v, const char *path, int lo, int hi, int *out)
{
    char want[96];
    snprintf(want, sizeof want, "an integer in [%d, %d]", lo, hi);
    if (!cJSON_IsNumber(v)) return sim_json_found(j, path, v, want);
    double x = v->valuedouble;
    if (x != floor(x)) return sim_json_bad_value(j, SIM_EINVAL, path, v, want);
    if (!(x >= lo && x <= hi)) return sim_json_bad_value(j, SIM_ERANGE, path, v, want);
    *out = (int)x;
    return SIM_OK;
}

int sim_json_int(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                 int def, int lo, int hi, int *out)
{
    char p[SIM_JSON_PATH_MAX], want[96];
    const cJSON *v = member(obj, path, key, p);
    *out = def;
    snprintf(want, sizeof want, "an integer in [%d, %d]", lo, hi);
    if (!v) return required ? sim_json_found(j, p, NULL, want) : SIM_OK;
    return sim_json_integer(j, v, p, lo, hi, out);
}

int sim_json_bool(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                  bool def, bool *out)
{
    char p[SIM_JSON_PATH_MAX];
    const cJSON *v = member(obj, path, key, p);
    *out = def;
    if (!v) return required ? sim_json_found(j, p, NULL, "true or false") : SIM_OK;
    if (!cJSON_IsBool(v)) return sim_json_found(j, p, v, "true or false");
    *out = cJSON_IsTrue(v);
    return SIM_OK;
}

int sim_json_str(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                 const char *def, const char **out)
{
    char p[SIM_JSON_PATH_MAX];
    const cJSON *v = member(obj, path, key, p);
    *out = def;
    if (!v) return required ? sim_json_found(j, p, NULL, "a non-empty string") : SIM_OK;
    if (!cJSON_IsString(v)) return sim_json_found(j, p, v, "a non-empty string");
    if (!v->valuestring[0]) return sim_json_bad_value(j, SIM_EINVAL, p, v, "a non-empty string");
    *out = v->valuestring;
    return SIM_OK;
}

int sim_json_strcpy(sim_json *j, const cJSON *obj, const char *path, const char *key,
                    bool required, char *out, size_t size)
{
    char p[SIM_JSON_PATH_MAX], want[64];
    const cJSON *v = member(obj, path, key, p);
    snprintf(want, sizeof want, "a string of at most %zu bytes", size - 1);
    if (!v) return required ? sim_json_found(j, p, NULL, want) : SIM_OK;
    if (!cJSON_IsString(v)) return sim_json_found(j, p, v, want);
    size_t len = strlen(v->valuestring);
    if (len >= size) return sim_json_fail(j, SIM_ETOOBIG, p, "found %zu bytes, expected %s", len, want);
    memcpy(out, v->valuestring, len + 1);
    return SIM_OK;
}

int sim_json_enum(sim_json *j, const cJSON *obj, const char *path, const char *key, int def,
                  const char *const *names, int n, int *out)
{
    char p[SIM_JSON_PATH_MAX], want[400] = "one of: ";
    const cJSON *v = member(obj, path, key, p);
    *out = def;
    sim_enum_list(names, n, want + strlen(want), sizeof want - strlen(want));
    if (!v) return def < 0 ? sim_json_found(j, p, NULL, want) : SIM_OK;
    if (!cJSON_IsString(v)) return sim_json_found(j, p, v, want);
    int i = sim_enum_parse(v->valuestring, names, n);
    if (i < 0) return sim_json_bad_value(j, SIM_EINVAL, p, v, want);
    *out = i;
    return SIM_OK;
}

int sim_json_array(sim_json *j, const cJSON *obj, const char *path, const char *key,
                   bool required, const cJSON **out)
{
    char p[SIM_JSON_PATH_MAX];
    const cJSON *v = member(obj, path, key, p);
    *out = NULL;
    if (!v && !required) return SIM_OK;
    if (!cJSON_IsArray(v)) return sim_json_found(j, p, v, "an array");
    *out = v;
    return SIM_OK;
}
