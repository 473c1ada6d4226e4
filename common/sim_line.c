/* sim_line: NDJSON line framing and the header check (see sim_line.h). */
#include "sim_line.h"

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
    /* Trailing bytes after the object (other than spaces) mean two values on one line. */
    if (end) {
        while ((size_t)(end - line) < len && (*end == ' ' || *end == '\t')) end++;
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
