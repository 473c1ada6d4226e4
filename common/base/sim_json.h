/* sim_json: the one JSON reader of libsim, for files (scenarios, vehicles, input maps)
 * and bus messages (input.controls, ffb.command, vehicle.state, ...).
 *
 * Typed reads of a member (the key may be a dotted path: "engine.max_rpm") that say
 * what was wrong in one form everywhere:
 *
 *     FILE: PATH: found X, expected Y        (X: the value found: 7, "fog", true,
 *     FILE: PATH: missing, expected Y         "an array of 2 elements", "an object")
 *
 * FILE is the reader's file (a path, or a topic for a message; none when NULL), PATH
 * the JSON path of the value ("roads[2].lanes.right[0].width"). A reader either stops
 * at the first error (the functions return its negative SIM_E* code, and err holds it)
 * or, with a report callback, collects every error and carries on with defaults (the
 * scenario loader does, so that one run lists them all).
 *
 * Nothing here allocates except sim_json_parse; the reader is plain storage owned by
 * the caller. */
#ifndef SIM_JSON_H
#define SIM_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sim_enum.h"
#include "sim_error.h"

typedef struct sim_json {
    const char *file;       /* prefix of every message; NULL: none */
    sim_error *err;         /* the first error (may be NULL) */
    /* Called with every message when set (the text is valid during the call). */
    void (*report)(void *user, const char *msg);
    void *user;
    int errors;             /* how many errors so far */
} sim_json;

/* Room for a JSON path in messages (longer paths are cut: they only label). */
#define SIM_JSON_PATH_MAX 160

/* Records an error at path ("FILE: PATH: " + the formatted text) with code; returns
 * code. */
int sim_json_fail(sim_json *j, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "found X, expected Y" at path, X being v as sim_json_value writes it ("missing,
 * expected Y" when v is NULL): SIM_EINVAL. */
int sim_json_found(sim_json *j, const char *path, const cJSON *v, const char *expected);
/* The same with another code (SIM_ERANGE for a number out of its range). */
int sim_json_bad_value(sim_json *j, int code, const char *path, const cJSON *v,
                       const char *expected);
/* What a value is, in a message: a scalar's value (7, "fog" cut to 60 bytes with
 * unprintable bytes as '?', true, null), "an array of N elements", "an object",
 * "nothing" for NULL; sim_json_kind gives only the kind ("a number"). */
void sim_json_value(const cJSON *v, char *buf, size_t n);
void sim_json_kind(const cJSON *v, char *buf, size_t n);

/* "path.key" and "path[i]" into buf (SIM_JSON_PATH_MAX bytes); returns buf. */
const char *sim_json_key_path(char *buf, const char *path, const char *key);
const char *sim_json_index_path(char *buf, const char *path, int i);

/* obj's member at a dotted path ("a.b.c"), NULL when any step is missing or not an
 * object. */
const cJSON *sim_json_at(const cJSON *obj, const char *key);

/* Parses text as one JSON value (only whitespace may follow). Syntax errors are
 * "FILE:LINE:COL: JSON syntax error near "..."". The value must then pass
 * sim_json_strict without check_keys: a file's readers call sim_json_keys on every
 * object they read, which names a key given twice with its field's path and carries
 * on (every error of a file in one run). *out is the caller's (cJSON_Delete). */
int sim_json_parse(sim_json *j, const char *text, size_t len, cJSON **out);

/* The rules for JSON from outside beyond the grammar (sim_json_strict.c): strings and
 * keys valid UTF-8, numbers finite (1e999 reads as infinity: "refused: a number too
 * large for a double") and, with check_keys, no key given twice in an object ("PATH:
 * refused: key "k" given twice"). Stops at the first case: SIM_OK, SIM_EINVAL,
 * SIM_ERANGE or SIM_ENOMEM. */
int sim_json_strict(sim_json *j, const cJSON *v, const char *path, bool check_keys);
/* True when the n bytes at s are valid UTF-8 (RFC 3629). */
bool sim_json_utf8_valid(const char *s, size_t n);

/* Errors for members of obj (an object) not among the n allowed names (n < 0: allowed
 * is NULL-terminated), and for a member given twice. Keys beginning with '_' are
 * comments and always allowed. Returns SIM_OK or the first error's code. */
int sim_json_keys(sim_json *j, const cJSON *obj, const char *path, const char *const *allowed,
                  int n);

/* An object at path (the value itself): SIM_OK or an error. */
int sim_json_object(sim_json *j, const cJSON *v, const char *path);

/* The typed reads of obj.key (obj may be NULL: everything is missing). A missing member
 * is an error when required, else *out = def and SIM_OK. *out is def after an error. */
typedef enum {
    SIM_JSON_ANY,     /* any finite number */
    SIM_JSON_POS,     /* > 0 */
    SIM_JSON_NONNEG,  /* >= 0 */
    SIM_JSON_RANGE,   /* in [lo, hi] (either may be infinite) */
} sim_json_range;
int sim_json_num(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                 double def, sim_json_range range, double lo, double hi, double *out);
/* The value v itself (an array element, say) as a finite number in [lo, hi]. */
int sim_json_number(sim_json *j, const cJSON *v, const char *path, double lo, double hi,
                    double *out);
/* The value v itself as an integer (a number without a fraction) in [lo, hi]. */
int sim_json_integer(sim_json *j, const cJSON *v, const char *path, int lo, int hi, int *out);
/* An integer (a number without a fraction) in [lo, hi]. */
int sim_json_int(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                 int def, int lo, int hi, int *out);
int sim_json_bool(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                  bool def, bool *out);
/* A non-empty string; *out points into the JSON (valid while it lives) or is def. */
int sim_json_str(sim_json *j, const cJSON *obj, const char *path, const char *key, bool required,
                 const char *def, const char **out);
/* A string (empty allowed) copied into out (size bytes, NUL included); SIM_ETOOBIG when
 * longer. Missing and not required: out is left as it is. */
int sim_json_strcpy(sim_json *j, const cJSON *obj, const char *path, const char *key,
                    bool required, char *out, size_t size);
/* One of the n names (n < 0: NULL-terminated): its index in *out; def when missing and
 * def >= 0 (def < 0: required). */
int sim_json_enum(sim_json *j, const cJSON *obj, const char *path, const char *key, int def,
                  const char *const *names, int n, int *out);
/* An array member: *out NULL when missing and not required. */
int sim_json_array(sim_json *j, const cJSON *obj, const char *path, const char *key,
                   bool required, const cJSON **out);

#endif
