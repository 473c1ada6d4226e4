/* sim_line: NDJSON line framing and the header check (see sim_line.h). */
#include "sim_line.h"

#include "sim_json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sim_linebuf_init(sim_linebuf *lb, size_t max_line)
{
    lb->data = malloc(max_line + 1);
    if (!lb->data) return SIM_ENOMEM;
    lb->len = 0;
    lb->max_line = max_line;
    lb->overflow = false;
    return SIM_OK;
}

void sim_linebuf_free(sim_linebuf *lb)
{
    free(lb->data);
    lb->data = NULL;
    lb->len = 0;
}

static int deliver(const char *line, size_t len, sim_line_cb cb, void *user)
{
    if (len && line[len - 1] == '\r') len--;
    if (len == 0) return 0;
    return cb(line, len, user);
}

int sim_linebuf_feed(sim_linebuf *lb, const char *bytes, size_t n, sim_line_cb cb, void *user)
{
    size_t pos = 0;
    while (pos < n) {
        const char *nl = memchr(bytes + pos, '\n', n - pos);
        size_t chunk = nl ? (size_t)(nl - (bytes + pos)) : n - pos;
        /* A "\r" directly before the newline is not part of the line, so it does not
         * count against the limit. */
        size_t counted = chunk;
        if (nl && chunk && bytes[pos + chunk - 1] == '\r') counted--;
        else if (nl && !chunk && lb->len && lb->data[lb->len - 1] == '\r') lb->len--;
        if (lb->overflow || lb->len + counted > lb->max_line) {
            lb->overflow = true;
            lb->len = 0;
            return SIM_LINE_TOO_LONG;
        }
        if (!nl) {
            memcpy(lb->data + lb->len, bytes + pos, chunk);
            lb->len += chunk;
            return SIM_LINE_OK;
        }
        int rc;
        if (lb->len == 0) {
            /* Common case: the whole line is in this read; no copy. */
            rc = deliver(bytes + pos, chunk, cb, user);
        } else {
            memcpy(lb->data + lb->len, bytes + pos, chunk);
            size_t total = lb->len + chunk;
            lb->len = 0;
            rc = deliver(lb->data, total, cb, user);
        }
        pos += chunk + 1;
        if (rc) return rc;
    }
    return SIM_LINE_OK;
}

int sim_msg_parse(const char *line, size_t len, cJSON **out, const char **topic, sim_error *err)
{
    *out = NULL;
    *topic = NULL;
    const char *end = NULL;
    cJSON *msg = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    if (!msg) {
        size_t at = end && end >= line ? (size_t)(end - line) : 0;
        return sim_error_set(err, SIM_EINVAL, "not valid JSON (at byte %zu)", at);
    }
    /* Trailing bytes after the object (other than JSON whitespace) mean two values on
     * one line. */
    if (end) {
        while ((size_t)(end - line) < len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
        if ((size_t)(end - line) < len) {
            cJSON_Delete(msg);
            return sim_error_set(err, SIM_EINVAL, "unexpected data after the JSON value (at byte %zu)",
                                 (size_t)(end - line));
        }
    }
    if (!cJSON_IsObject(msg)) {
        cJSON_Delete(msg);
        return sim_error_set(err, SIM_EINVAL, "a message must be a JSON object");
    }
    sim_json strict = {.err = err};
    int strict_rc = sim_json_strict(&strict, msg, "", true);
    if (strict_rc != SIM_OK) {
        cJSON_Delete(msg);
        return strict_rc;
    }
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(msg, "t");
    if (cJSON_IsNumber(tm) && !(fabs(tm->valuedouble) <= SIM_MSG_T_MAX)) {
        double bad = tm->valuedouble;
        cJSON_Delete(msg);
        return sim_error_set(err, SIM_EINVAL, "refused: \"t\" is %g, expected a time of at most %g s in magnitude",
                             bad, SIM_MSG_T_MAX);
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "topic");
    if (!cJSON_IsString(t) || !t->valuestring || !t->valuestring[0]) {
        cJSON_Delete(msg);
        return sim_error_set(err, SIM_EINVAL, t ? "\"topic\" must be a non-empty string"
                                                : "missing \"topic\" (a string)");
    }
    *out = msg;
    *topic = t->valuestring;
    return SIM_OK;
}

/* ---------- allocation-free JSON scanner (sim_msg_scan) ---------- */

/* Duplicate keys are found with one open-addressing table of 64-bit hashes of
 * (object number, decoded key) per line. A key takes at least 4 bytes ("":0,), so
 * a line of max bytes has at most max/4 + 1 keys; the table is sized from the line's
 * length (at least twice its possible keys) and only that part is cleared, so a short
 * line pays for a short table. A hash collision between different keys could only
 * refuse the sender's own line, never let a duplicate through. */
#define SCAN_KEY_SLOTS (1u << 15)

typedef struct scanner {
    const char *p, *end, *start;
    const char *fail;  /* static description of the first error */
    uint64_t *keys;    /* the key table, slots entries (0: free); NULL: not checked */
    size_t slots, used;
    const char *dup;   /* the key given twice (at its opening quote), when that failed */
    bool allow_nul;    /* \u0000 is reported by the caller (the topic), not refused here */
    uint64_t objects;  /* objects opened so far: each key is hashed with its object's number */
} scanner;

#define SCAN_MAX_DEPTH 128

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv_byte(uint64_t h, unsigned char c) { return (h ^ c) * FNV_PRIME; }

/* Records key hash h of object obj; false when the object already had that key. */
static bool key_insert(scanner *s, uint64_t obj, uint64_t h)
{
    if (!s->keys) return true;
    if (++s->used * 2 > s->slots) return false; /* more keys than the line's length allows */
    uint64_t v = fnv_byte(h ^ (obj * 0x9E3779B97F4A7C15ULL), 0x5a);
    if (!v) v = 1;
    size_t mask = s->slots - 1;
    for (size_t i = (size_t)(v ^ (v >> 29)) & mask;; i = (i + 1) & mask) {
        if (s->keys[i] == v) return false;
        if (!s->keys[i]) {
            s->keys[i] = v;
            return true;
        }
    }
}

/* Length of the valid UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF) starting at p with lead byte c, or 0 when it is not one. */
static int utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else return 0;
    if (end - p < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

static void skip_ws(scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Skips plain string bytes (not '"', '\\' or a control character) eight at a time:
 * the long payload strings of bus messages are most of the bytes the dispatcher
 * checks. The bit tricks are the classic "has a zero byte" / "has a byte less than n"
 * tests on a 64-bit word; bytes >= 0x80 stop it too (UTF-8 is checked by hand). */
static const char *skip_plain(const char *p, const char *end)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
        /* | v: a byte >= 0x80 starts a UTF-8 sequence, checked one by one */
        uint64_t special = ((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v) | v;
        if (special & highs) break;
        p += 8;
    }
    return p;
}

/* Scans a string at s->p (which is '"'): escapes must be valid (a \\u surrogate only
 * as a high-low pair) and raw bytes valid UTF-8. If out is non-NULL, decodes it there
 * (UTF-8), failing when it would not fit in out_size - 1 bytes. If hash is non-NULL,
 * *hash is the FNV-1a hash of the decoded bytes. */
static bool scan_string_h(scanner *s, char *out, size_t out_size, size_t *out_len, uint64_t *hash)
{
    size_t n = 0;
    uint64_t h = FNV_OFFSET;
    s->p++;
    while (s->p < s->end) {
        if (!out && !hash) {
            s->p = skip_plain(s->p, s->end);
            if (s->p >= s->end) break;
        }
        unsigned char c = (unsigned char)*s->p;
        if (c >= 0x80) {
            int len = utf8_sequence((const unsigned char *)s->p, (const unsigned char *)s->end);
            if (!len) {
                s->fail = "invalid UTF-8 in a string";
                return false;
            }
            if (out && n + (size_t)len >= out_size) {
                s->fail = "string too long";
                return false;
            }
            for (int i = 0; i < len; i++) {
                if (out) out[n++] = s->p[i];
                h = fnv_byte(h, (unsigned char)s->p[i]);
            }
            s->p += len;
            continue;
        }
        s->p++;
        if (c == '"') {
            if (out) out[n] = '\0';
            if (out_len) *out_len = n;
            if (hash) *hash = h;
            return true;
        }
        if (c < 0x20) {
            s->fail = "control character inside a string";
            return false;
        }
        unsigned cp = c;
        if (c == '\\') {
            if (s->p >= s->end) break;
            char e = *s->p++;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u': {
                unsigned units[2] = {0, 0};
                int nu = 1;
                for (int u = 0; u < nu; u++) {
                    if (u && (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')) {
                        s->fail = "unpaired UTF-16 surrogate in a \\u escape";
                        return false;
                    }
                    if (u) s->p += 2;
                    if (s->end - s->p < 4) {
                        s->fail = "truncated \\u escape";
                        return false;
                    }
                    for (int i = 0; i < 4; i++) {
                        int hv = hexval(s->p[i]);
                        if (hv < 0) {
                            s->fail = "bad \\u escape";
                            return false;
                        }
                        units[u] = units[u] * 16 + (unsigned)hv;
                    }
                    s->p += 4;
                    if (!u && units[0] >= 0xD800 && units[0] <= 0xDBFF) nu = 2;
                }
                if ((nu == 1 && units[0] >= 0xDC00 && units[0] <= 0xDFFF) ||
                    (nu == 2 && (units[1] < 0xDC00 || units[1] > 0xDFFF))) {
                    s->fail = "unpaired UTF-16 surrogate in a \\u escape";
                    return false;
                }
                cp = nu == 2 ? 0x10000 + ((units[0] - 0xD800) << 10) + (units[1] - 0xDC00) : units[0];
                if (cp == 0 && !s->allow_nul) {
                    /* cJSON cuts a string there, Python does not: "k\u0000" and "k" would
                     * be one key to some readers and two to others. */
                    s->fail = "\\u0000 in a string";
                    return false;
                }
                break;
            }
            default:
                s->fail = "bad escape in a string";
                return false;
            }
        }
        unsigned char enc[4];
        int bytes;
        if (cp < 0x80) {
            enc[0] = (unsigned char)cp;
            bytes = 1;
        } else if (cp < 0x800) {
            enc[0] = (unsigned char)(0xC0 | (cp >> 6));
            enc[1] = (unsigned char)(0x80 | (cp & 0x3F));
            bytes = 2;
        } else if (cp < 0x10000) {
            enc[0] = (unsigned char)(0xE0 | (cp >> 12));
            enc[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            enc[2] = (unsigned char)(0x80 | (cp & 0x3F));
            bytes = 3;
        } else {
            enc[0] = (unsigned char)(0xF0 | (cp >> 18));
            enc[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            enc[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            enc[3] = (unsigned char)(0x80 | (cp & 0x3F));
            bytes = 4;
        }
        if (out && n + (size_t)bytes >= out_size) {
            s->fail = "string too long";
            return false;
        }
        for (int i = 0; i < bytes; i++) {
            if (out) out[n++] = (char)enc[i];
            h = fnv_byte(h, enc[i]);
        }
    }
    s->fail = "unterminated string";
    return false;
}

static bool scan_string(scanner *s, char *out, size_t out_size, size_t *out_len)
{
    return scan_string_h(s, out, out_size, out_len, NULL);
}

/* The value of the JSON number in p[0..n), which scan_number has checked. The line is
 * not NUL-terminated, so strtod must not see it in place: it would read on past the
 * line's end (hex digits, "p", "e" after an invalid number). Numbers longer than the
 * buffer (nothing real sends them) read as infinite, and are refused as such. */
static double number_value(const char *p, size_t n)
{
    char buf[512];
    if (n >= sizeof buf) return strtod("inf", NULL); /* refused as out of range */
    memcpy(buf, p, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}

static bool scan_number(scanner *s)
{
    const char *p = s->p;
    if (p < s->end && *p == '-') p++;
    if (p >= s->end) goto bad;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < s->end && *p >= '0' && *p <= '9') p++;
    } else {
        goto bad;
    }
    if (p < s->end && *p == '.') {
        p++;
        if (p >= s->end || *p < '0' || *p > '9') goto bad;
        while (p < s->end && *p >= '0' && *p <= '9') p++;
    }
    bool big = p - s->p > 300; /* only an exponent or 309+ digits can overflow a double */
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < s->end && (*p == '+' || *p == '-')) p++;
        if (p >= s->end || *p < '0' || *p > '9') goto bad;
        while (p < s->end && *p >= '0' && *p <= '9') p++;
        big = true;
    }
    /* 1e999 would reach every reader as infinity (cJSON, Python): refused. */
    if (big && !isfinite(number_value(s->p, (size_t)(p - s->p)))) {
        s->fail = "number out of range (not a finite double)";
        return false;
    }
    s->p = p;
    return true;
bad:
    s->fail = "malformed number";
    return false;
}

static bool scan_literal(scanner *s, const char *word, size_t n)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) {
        s->fail = "unexpected character";
        return false;
    }
    s->p += n;
    return true;
}

static bool scan_value(scanner *s, int depth);

static bool scan_container(scanner *s, int depth, bool object)
{
    if (depth > SCAN_MAX_DEPTH) {
        s->fail = "nested too deeply";
        return false;
    }
    char close = object ? '}' : ']';
    uint64_t obj = object ? ++s->objects : 0;
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        return true;
    }
    for (;;) {
        if (object) {
            if (s->p >= s->end || *s->p != '"') {
                s->fail = "expected a string key";
                return false;
            }
            uint64_t h;
            const char *key_at = s->p;
            if (!scan_string_h(s, NULL, 0, NULL, s->keys ? &h : NULL)) return false;
            if (s->keys && !key_insert(s, obj, h)) {
                s->fail = "a key is given twice in one object";
                s->dup = key_at;
                return false;
            }
            skip_ws(s);
            if (s->p >= s->end || *s->p != ':') {
                s->fail = "expected ':' after a key";
                return false;
            }
            s->p++;
            skip_ws(s);
        }
        if (!scan_value(s, depth + 1)) return false;
        skip_ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            skip_ws(s);
            continue;
        }
        if (s->p < s->end && *s->p == close) {
            s->p++;
            return true;
        }
        s->fail = object ? "expected ',' or '}'" : "expected ',' or ']'";
        return false;
    }
}

static bool scan_value(scanner *s, int depth)
{
    if (s->p >= s->end) {
        s->fail = "unexpected end of line";
        return false;
    }
    switch (*s->p) {
    case '{': return scan_container(s, depth, true);
    case '[': return scan_container(s, depth, false);
    case '"': return scan_string(s, NULL, 0, NULL);
    case 't': return scan_literal(s, "true", 4);
    case 'f': return scan_literal(s, "false", 5);
    case 'n': return scan_literal(s, "null", 4);
    default: return scan_number(s);
    }
}

int sim_msg_scan(const char *line, size_t len, char *topic, size_t topic_size, double *t, sim_error *err)
{
    uint64_t keys[SCAN_KEY_SLOTS];
    size_t slots = 64;
    while (slots < SCAN_KEY_SLOTS && slots < len / 2 + 16) slots *= 2;
    memset(keys, 0, slots * sizeof *keys);
    scanner s = {.p = line, .end = line + len, .start = line, .keys = keys, .slots = slots};
    bool have_topic = false, topic_not_string = false, seen_topic_key = false;
    double t_found = NAN; /* handed out only when the whole line is valid */
    if (t) *t = NAN;
    skip_ws(&s);
    if (s.p >= s.end || *s.p != '{') {
        /* Tell "not JSON at all" from "JSON, but not an object". */
        scanner v = s;
        if (s.p < s.end && scan_value(&v, 0)) {
            skip_ws(&v);
            if (v.p == v.end) return sim_error_set(err, SIM_EINVAL, "a message must be a JSON object");
        }
        return sim_error_set(err, SIM_EINVAL, "not valid JSON (at byte %zu)", (size_t)(s.p - line));
    }
    /* The top level is walked here so that "topic" and "t" can be picked out; nested
     * values go through the generic scanner. */
    s.p++;
    skip_ws(&s);
    if (s.p < s.end && *s.p == '}') {
        s.p++;
    } else {
        for (;;) {
            char key[8];
            size_t key_len = 0;
            if (s.p >= s.end || *s.p != '"') {
                s.fail = "expected a string key";
                goto fail;
            }
            /* Keys longer than the buffer are not ours; scan them without decoding. */
            const char *key_start = s.p;
            uint64_t h;
            if (!scan_string_h(&s, key, sizeof key, &key_len, &h)) {
                s.p = key_start;
                s.fail = NULL;
                if (!scan_string_h(&s, NULL, 0, NULL, &h)) goto fail;
                key_len = (size_t)-1;
            }
            if (!key_insert(&s, 0, h)) {
                s.fail = "a key is given twice in one object";
                s.dup = key_start;
                goto fail;
            }
            skip_ws(&s);
            if (s.p >= s.end || *s.p != ':') {
                s.fail = "expected ':' after a key";
                goto fail;
            }
            s.p++;
            skip_ws(&s);
            bool is_topic_key = key_len == 5 && memcmp(key, "topic", 5) == 0 && !seen_topic_key;
            if (is_topic_key) seen_topic_key = true; /* the first one counts, as in cJSON */
            if (is_topic_key && s.p < s.end && *s.p == '"') {
                size_t tl;
                s.allow_nul = true; /* said below as "contains a NUL character" */
                bool ok = scan_string(&s, topic, topic_size, &tl);
                s.allow_nul = false;
                if (!ok) {
                    if (s.fail && strcmp(s.fail, "string too long") == 0)
                        return sim_error_set(err, SIM_EINVAL, "\"topic\" is longer than %zu bytes", topic_size - 1);
                    goto fail;
                }
                if (strlen(topic) != tl) return sim_error_set(err, SIM_EINVAL, "\"topic\" contains a NUL character");
                have_topic = tl > 0;
                topic_not_string = tl == 0;
            } else if (key_len == 1 && key[0] == 't' && s.p < s.end && (*s.p == '-' || (*s.p >= '0' && *s.p <= '9'))) {
                const char *num = s.p;
                if (!scan_number(&s)) goto fail;
                t_found = number_value(num, (size_t)(s.p - num));
                if (!(fabs(t_found) <= SIM_MSG_T_MAX))
                    return sim_error_set(err, SIM_EINVAL, "refused: \"t\" is %g, expected a time of at most %g s in magnitude",
                                         t_found, SIM_MSG_T_MAX);
            } else {
                if (is_topic_key) topic_not_string = true;
                if (!scan_value(&s, 1)) goto fail;
            }
            skip_ws(&s);
            if (s.p < s.end && *s.p == ',') {
                s.p++;
                skip_ws(&s);
                continue;
            }
            if (s.p < s.end && *s.p == '}') {
                s.p++;
                break;
            }
            s.fail = "expected ',' or '}'";
            goto fail;
        }
    }
    skip_ws(&s);
    if (s.p != s.end)
        return sim_error_set(err, SIM_EINVAL, "unexpected data after the JSON value (at byte %zu)", (size_t)(s.p - line));
    if (!have_topic)
        return sim_error_set(err, SIM_EINVAL, topic_not_string ? "\"topic\" must be a non-empty string"
                                                                : "missing \"topic\" (a string)");
    if (t) *t = t_found;
    return SIM_OK;
fail:
    if (s.dup) { /* name the key: its bytes as sent, cut, unprintable ones as '?' */
        char name[48];
        size_t k = 0;
        for (const char *q = s.dup + 1; q < s.end && *q != '"' && k + 1 < sizeof name; q++)
            name[k++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
        name[k] = '\0';
        if (s.used * 2 > s.slots)
            return sim_error_set(err, SIM_EINVAL, "refused: more keys than a line of %zu bytes can hold", len);
        return sim_error_set(err, SIM_EINVAL, "refused: key \"%s\" given twice in one object (at byte %zu)", name,
                             (size_t)(s.dup - line));
    }
    return sim_error_set(err, SIM_EINVAL, "%s: %s (at byte %zu)",
                         s.fail && (strstr(s.fail, "UTF") || strstr(s.fail, "finite") || strstr(s.fail, "u0000"))
                             ? "refused"
                             : "not valid JSON",
                         s.fail ? s.fail : "syntax error", (size_t)(s.p - line));
}
