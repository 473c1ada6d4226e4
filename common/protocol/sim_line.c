/* sim_line: NDJSON line framing and the header check (see sim_line.h). */
#include "sim_line.h"

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

typedef struct scanner {
    const char *p, *end, *start;
    const char *fail;  /* static description of the first error */
} scanner;

#define SCAN_MAX_DEPTH 128

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

/* Scans a string at s->p (which is '"'). If out is non-NULL, decodes it there (UTF-8),
 * failing when it would not fit in out_size - 1 bytes. */
/* Skips plain string bytes (not '"', '\\' or a control character) eight at a time:
 * the long payload strings of bus messages are most of the bytes the dispatcher
 * checks. The bit tricks are the classic "has a zero byte" / "has a byte less than n"
 * tests on a 64-bit word. */
static const char *skip_plain(const char *p, const char *end)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
        uint64_t special = ((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v);
        if (special & highs) break;
        p += 8;
    }
    return p;
}

static bool scan_string(scanner *s, char *out, size_t out_size, size_t *out_len)
{
    size_t n = 0;
    s->p++;
    while (s->p < s->end) {
        if (!out) {
            s->p = skip_plain(s->p, s->end);
            if (s->p >= s->end) break;
        }
        unsigned char c = (unsigned char)*s->p++;
        if (c == '"') {
            if (out) out[n] = '\0';
            if (out_len) *out_len = n;
            return true;
        }
        if (c < 0x20) {
            s->fail = "control character inside a string";
            return false;
        }
        unsigned cp = c;
        int bytes = 1;
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
                if (s->end - s->p < 4) {
                    s->fail = "truncated \\u escape";
                    return false;
                }
                cp = 0;
                for (int i = 0; i < 4; i++) {
                    int h = hexval(s->p[i]);
                    if (h < 0) {
                        s->fail = "bad \\u escape";
                        return false;
                    }
                    cp = cp * 16 + (unsigned)h;
                }
                s->p += 4;
                bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
                break;
            }
            default:
                s->fail = "bad escape in a string";
                return false;
            }
        }
        if (out) {
            if (n + (size_t)bytes >= out_size) {
                s->fail = "string too long";
                return false;
            }
            if (c != '\\' || bytes == 1) {
                out[n++] = (char)cp;
            } else if (bytes == 2) {
                out[n++] = (char)(0xC0 | (cp >> 6));
                out[n++] = (char)(0x80 | (cp & 0x3F));
            } else {
                out[n++] = (char)(0xE0 | (cp >> 12));
                out[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[n++] = (char)(0x80 | (cp & 0x3F));
            }
        }
    }
    s->fail = "unterminated string";
    return false;
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
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < s->end && (*p == '+' || *p == '-')) p++;
        if (p >= s->end || *p < '0' || *p > '9') goto bad;
        while (p < s->end && *p >= '0' && *p <= '9') p++;
    }
    s->p = p;
    return true;
bad:
    s->fail = "malformed number";
    return false;
}

/* The value of the JSON number in p[0..n), which scan_number has checked. The line is
 * not NUL-terminated, so strtod must not see it in place: it would read on past the
 * line's end (hex digits, "p", "e" after an invalid number). Numbers longer than the
 * buffer (nothing real sends them) read as NaN, as an absent "t" does. */
static double number_value(const char *p, size_t n)
{
    char buf[512];
    if (n >= sizeof buf) return NAN;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
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
            if (!scan_string(s, NULL, 0, NULL)) return false;
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
    scanner s = {.p = line, .end = line + len, .start = line};
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
            if (!scan_string(&s, key, sizeof key, &key_len)) {
                s.p = key_start;
                s.fail = NULL;
                if (!scan_string(&s, NULL, 0, NULL)) goto fail;
                key_len = (size_t)-1;
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
                if (!scan_string(&s, topic, topic_size, &tl)) {
                    if (s.fail && strcmp(s.fail, "string too long") == 0)
                        return sim_error_set(err, SIM_EINVAL, "\"topic\" is longer than %zu bytes", topic_size - 1);
                    goto fail;
                }
                if (strlen(topic) != tl) return sim_error_set(err, SIM_EINVAL, "\"topic\" contains a NUL character");
                have_topic = tl > 0;
                topic_not_string = tl == 0;
            } else if (key_len == 1 && key[0] == 't' && t && s.p < s.end && (*s.p == '-' || (*s.p >= '0' && *s.p <= '9'))) {
                const char *num = s.p;
                if (!scan_number(&s)) goto fail;
                t_found = number_value(num, (size_t)(s.p - num));
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
    return sim_error_set(err, SIM_EINVAL, "not valid JSON: %s (at byte %zu)", s.fail ? s.fail : "syntax error",
                         (size_t)(s.p - line));
}
