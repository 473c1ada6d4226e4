/* sim_line: NDJSON framing and the bus header check, shared by the dispatcher and the
 * bus client (and fuzzed: fuzz/fuzz_line.c).
 *
 * A sim_linebuf accumulates bytes from a stream and hands out complete lines. It never
 * grows past max_line + 1 bytes: a line longer than max_line is reported as
 * SIM_LINE_TOO_LONG and the caller decides (the dispatcher closes the connection). */
#ifndef SIM_LINE_H
#define SIM_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_error.h"

typedef struct sim_linebuf {
    char *data;      /* owned; capacity max_line + 1 */
    size_t len;      /* bytes held (an incomplete line) */
    size_t max_line;
    bool overflow;   /* a line went over max_line: every later feed returns
                        SIM_LINE_TOO_LONG until the owner drops the stream and clears
                        this (and len), as both the dispatcher and sim_bus do */
} sim_linebuf;

int sim_linebuf_init(sim_linebuf *lb, size_t max_line);
void sim_linebuf_free(sim_linebuf *lb);

/* Negative SIM_E* codes like every libsim function's (sim_error.h). */
enum { SIM_LINE_OK = SIM_OK, SIM_LINE_TOO_LONG = SIM_ETOOBIG };

/* Called once per complete line: line points at its bytes without the newline and
 * without a trailing '\r'; it is valid only during the call. Empty lines are skipped.
 * Return non-zero to stop feeding (the remaining input is dropped). */
typedef int (*sim_line_cb)(const char *line, size_t len, void *user);

/* Feeds bytes. Returns SIM_LINE_OK, or SIM_LINE_TOO_LONG as soon as a line exceeds
 * max_line (nothing more is delivered from this call); a callback's non-zero return
 * is passed through as the return value. */
int sim_linebuf_feed(sim_linebuf *lb, const char *bytes, size_t n, sim_line_cb cb, void *user);

/* The header check every bus line passes: a JSON object with a string "topic", with
 * the strict rules of sim_json_strict (no key twice, UTF-8, finite numbers) and "t",
 * when a number, at most SIM_MSG_T_MAX in magnitude.
 * On success *out is the parsed object (caller frees with cJSON_Delete) and *topic
 * points into it. On failure err says what was wrong, in words. */
int sim_msg_parse(const char *line, size_t len, cJSON **out, const char **topic, sim_error *err);

/* The largest |t| (seconds) a message may carry: beyond it, arithmetic on times
 * (t * 1000, t - t0) loses every digit or overflows (-1e308 does). */
#define SIM_MSG_T_MAX 1e9

/* The same check without building a tree: validates the whole line as JSON (RFC 8259
 * grammar, nesting at most 128 deep) and extracts the top-level "topic" string into
 * topic (NUL-terminated, escapes decoded; at most topic_size - 1 bytes, longer topics
 * are rejected) and, when t is non-NULL, the top-level number "t" (NaN if absent or when the line is rejected).
 * Refused, with an error naming the case, like sim_msg_parse refuses them: a key given
 * twice in one object (named), invalid UTF-8 (raw bytes or unpaired \u surrogates),
 * numbers that are not finite doubles (1e999), a number "t" beyond SIM_MSG_T_MAX.
 * This is what the dispatcher runs on every line: it allocates nothing. */
int sim_msg_scan(const char *line, size_t len, char *topic, size_t topic_size, double *t, sim_error *err);

#endif
