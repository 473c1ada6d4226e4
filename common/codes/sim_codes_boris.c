/* sim_codes_boris: a BORIS-style events table read back into codes (sim_codes.h). */
#include "sim_codes.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64
#define FIELD_MAX 512
#define MAX_OPEN 256

typedef struct row {
    char f[MAX_FIELDS][FIELD_MAX];
    int n;
} row;

/* One RFC 4180 record from *p (quotes, doubled quotes, CRLF or LF); false at the end. */
static int next_row(const char **p, const char *end, row *r, long *line, const char *name, sim_error *err)
{
    r->n = 0;
    if (*p >= end) return 0;
    size_t k = 0;
    bool quoted = false, field_open = true;
    r->f[0][0] = '\0';
    while (*p < end) {
        char c = **p;
        (*p)++;
        if (quoted) {
            if (c == '"' && *p < end && **p == '"') {
                (*p)++;
            } else if (c == '"') {
                quoted = false;
                continue;
            } else if (c == '\n') {
                (*line)++;
            }
        } else if (c == '"' && k == 0) {
            quoted = true;
            continue;
        } else if (c == ',' || c == '\n' || c == '\r') {
            r->f[r->n][k] = '\0';
            r->n++;
            k = 0;
            if (c == '\r' && *p < end && **p == '\n') (*p)++;
            if (c != ',') {
                (*line)++;
                field_open = false;
                break;
            }
            if (r->n == MAX_FIELDS)
                return sim_error_set(err, SIM_EINVAL, "%s:%ld: more than %d columns", name, *line, MAX_FIELDS);
            r->f[r->n][0] = '\0';
            continue;
        }
        if (k + 1 >= FIELD_MAX)
            return sim_error_set(err, SIM_EINVAL, "%s:%ld: a field longer than %d bytes", name, *line, FIELD_MAX - 1);
        r->f[r->n][k++] = c;
    }
    if (quoted) return sim_error_set(err, SIM_EINVAL, "%s:%ld: a quoted field is not closed", name, *line);
    if (field_open) {
        r->f[r->n][k] = '\0';
        r->n++;
    }
    return 1;
}

static int col(const row *h, const char *name)
{
    for (int i = 0; i < h->n; i++)
        if (!strcmp(h->f[i], name)) return i;
    return -1;
}

typedef struct open_ev {
    char tier[SIM_CODES_NAME_MAX], value[SIM_CODES_VALUE_MAX], who[SIM_CODES_NAME_MAX];
    int64_t ms;
    long line;
} open_ev;

int sim_codes_boris_parse(const char *data, size_t size, const char *name, sim_codes *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = data, *end = data + size;
    if (size >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3; /* a spreadsheet's BOM */
    long line = 1;
    row *h = malloc(sizeof *h), *r = malloc(sizeof *r);
    open_ev *open = calloc(MAX_OPEN, sizeof *open);
    size_t n_open = 0;
    int rc = (!h || !r || !open) ? sim_error_set(err, SIM_ENOMEM, "%s: out of memory", name) : SIM_OK;
    int got = rc ? 0 : next_row(&p, end, h, &line, name, err);
    if (!rc && got < 0) rc = got;
    else if (!rc && !got) rc = sim_error_set(err, SIM_EINVAL, "%s: empty file, expected a header row", name);
    int c_time = -1, c_beh = -1, c_status = -1, c_cat = -1, c_subj = -1, c_comment = -1;
    if (!rc) {
        c_time = col(h, "Time");
        c_beh = col(h, "Behavior");
        c_status = col(h, "Status") >= 0 ? col(h, "Status") : col(h, "Behavior type");
        c_cat = col(h, "Behavioral category");
        c_subj = col(h, "Subject");
        c_comment = col(h, "Comment");
        if (c_time < 0 || c_beh < 0 || c_status < 0)
            rc = sim_error_set(err, SIM_EINVAL, "%s:1: the header needs the columns Time, Behavior and Status (or "
                               "Behavior type)", name);
    }
    while (!rc) {
        long at = line;
        got = next_row(&p, end, r, &line, name, err);
        if (got < 0) rc = got;
        if (got <= 0) break;
        if (r->n == 1 && !r->f[0][0]) continue; /* an empty line */
        int need = c_time > c_beh ? c_time : c_beh;
        if (c_status > need) need = c_status;
        if (r->n <= need) {
            rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: %d fields, the header has %d", name, at, r->n, h->n);
            break;
        }
        char *e;
        errno = 0;
        double s = strtod(r->f[c_time], &e);
        if (e == r->f[c_time] || *e || errno || !(s >= 0) || s * 1000.0 > (double)SIM_CODES_MS_MAX) {
            rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: Time \"%.40s\": expected seconds >= 0", name, at,
                               r->f[c_time]);
            break;
        }
        int64_t ms = llround(s * 1000.0);
        const char *beh = r->f[c_beh], *st = r->f[c_status];
        const char *tier = c_cat >= 0 && c_cat < r->n && r->f[c_cat][0] ? r->f[c_cat]
                         : c_subj >= 0 && c_subj < r->n && r->f[c_subj][0] ? r->f[c_subj] : "boris";
        const char *who = c_comment >= 0 && c_comment < r->n ? r->f[c_comment] : "";
        if (!strcmp(st, "POINT")) {
            rc = sim_codes_add(out, tier, beh, who, ms, ms, err);
        } else if (!strcmp(st, "START")) {
            if (n_open == MAX_OPEN) {
                rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: more than %d state events open", name, at, MAX_OPEN);
                break;
            }
            open_ev *o = &open[n_open++];
            snprintf(o->tier, sizeof o->tier, "%s", tier);
            snprintf(o->value, sizeof o->value, "%s", beh);
            snprintf(o->who, sizeof o->who, "%s", who);
            o->ms = ms;
            o->line = at;
        } else if (!strcmp(st, "STOP")) {
            size_t i = 0;
            while (i < n_open && (strcmp(open[i].tier, tier) || strcmp(open[i].value, beh))) i++;
            if (i == n_open) {
                rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: STOP of \"%.60s\" without a START", name, at, beh);
                break;
            }
            if (ms < open[i].ms) {
                rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: STOP of \"%.60s\" at %.3f s before its START (line %ld)",
                                   name, at, beh, s, open[i].line);
                break;
            }
            rc = sim_codes_add(out, open[i].tier, open[i].value, open[i].who, open[i].ms, ms, err);
            open[i] = open[--n_open];
        } else {
            rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: Status \"%.40s\": expected START, STOP or POINT", name, at, st);
        }
    }
    if (!rc && n_open)
        rc = sim_error_set(err, SIM_EINVAL, "%s:%ld: START of \"%.60s\" without a STOP", name, open[0].line,
                           open[0].value);
    free(h);
    free(r);
    free(open);
    if (rc) sim_codes_free(out);
    return rc;
}
