/* sim_json_strict: the rules JSON from outside must follow beyond cJSON's grammar
 * (see sim_json.h): cJSON keeps a key given twice (its readers take the first, Python's
 * the last: one line, two meanings), copies any bytes into strings (SQLite and Python
 * then fail on them) and reads 1e999 as infinity. */
#include "sim_json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True when s is valid UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF). */
bool sim_json_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        int len;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return false;
        }
        if (end - p < len || p[1] < lo || p[1] > hi) return false;
        for (int i = 2; i < len; i++)
            if (p[i] < 0x80 || p[i] > 0xBF) return false;
        p += len;
    }
    return true;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The first key of obj given twice, or NULL. Sorted when the object is large, so that
 * a line of 16,000 keys costs n log n, not n^2. */
static const cJSON *duplicate_key(const cJSON *obj, bool *nomem)
{
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, obj) n++;
    if (n <= 16) {
        cJSON_ArrayForEach(it, obj)
            for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
                if (strcmp(prev->string, it->string) == 0) return it;
        return NULL;
    }
    const cJSON **v = malloc(n * sizeof *v);
    if (!v) {
        *nomem = true;
        return NULL;
    }
    size_t i = 0;
    cJSON_ArrayForEach(it, obj) v[i++] = it;
    qsort(v, n, sizeof *v, by_key);
    const cJSON *dup = NULL;
    for (i = 1; i < n && !dup; i++)
        if (strcmp(v[i - 1]->string, v[i]->string) == 0) dup = v[i];
    free(v);
    return dup;
}

/* A key for a message: printable ASCII, the rest as '?', cut to 40 bytes. */
static const char *printable(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; *s && k + 1 < n && k < 40; s++) buf[k++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    buf[k] = '\0';
    return buf;
}

int sim_json_strict(sim_json *j, const cJSON *v, const char *path, bool check_keys)
{
    char p[SIM_JSON_PATH_MAX], key[48];
    const char *at = path && path[0] ? path : "(top level)";
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
        return sim_json_fail(j, SIM_ERANGE, at, "refused: a number too large for a double (it reads as infinite)");
    if (cJSON_IsString(v) && !sim_json_utf8_valid(v->valuestring, strlen(v->valuestring)))
        return sim_json_fail(j, SIM_EINVAL, at, "refused: a string that is not valid UTF-8");
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) return SIM_OK;
    if (check_keys && cJSON_IsObject(v)) {
        bool nomem = false;
        const cJSON *dup = duplicate_key(v, &nomem);
        if (nomem) return sim_json_fail(j, SIM_ENOMEM, at, "out of memory");
        if (dup)
            return sim_json_fail(j, SIM_EINVAL, at, "refused: key \"%s\" given twice",
                                 printable(dup->string, key, sizeof key));
    }
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v) {
        if (it->string && !sim_json_utf8_valid(it->string, strlen(it->string)))
            return sim_json_fail(j, SIM_EINVAL, at, "refused: key \"%s\" is not valid UTF-8",
                                 printable(it->string, key, sizeof key));
        if (it->string) sim_json_key_path(p, path ? path : "", printable(it->string, key, sizeof key));
        else sim_json_index_path(p, path ? path : "", i);
        int rc = sim_json_strict(j, it, p, check_keys);
        if (rc != SIM_OK) return rc;
        i++;
    }
    return SIM_OK;
}
