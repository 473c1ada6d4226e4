/* sim_driver: path following, speed control, shifting and input replay (see
 * sim_driver.h). */
#include "sim_driver.h"

#include "sim_json.h"

#include "sim_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void sim_driver_step(sim_driver *d, const sim_driver_obs *o, sim_controls *out)
{
    sim_follow_out f;
    sim_follow_step(d, o, &f);
    memset(out, 0, sizeof *out);
    out->steer_deg = f.steer_deg;
    out->steer = f.steer;
    out->throttle = f.throttle;
    out->brake = f.brake;
    out->gear = f.gear;
    out->has_gear = f.has_gear;
}

/* ---- replay ----------------------------------------------------------------------- */

void sim_driver_replay_free(sim_driver_replay *r)
{
    free(r->t);
    free(r->c);
    memset(r, 0, sizeof *r);
}

static int replay_push(sim_driver_replay *r, size_t *cap, double t, const sim_controls *c)
{
    if (r->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        double *nt = realloc(r->t, nc * sizeof *nt);
        if (!nt) return SIM_ENOMEM;
        r->t = nt;
        sim_controls *ncs = realloc(r->c, nc * sizeof *ncs);
        if (!ncs) return SIM_ENOMEM;
        r->c = ncs;
        *cap = nc;
    }
    r->t[r->n] = t;
    r->c[r->n] = *c;
    r->n++;
    return SIM_OK;
}

/* One NDJSON line: a sample appended to r, skipped, or an error. */
static int replay_line(sim_driver_replay *r, size_t *cap, const char *line, size_t len,
                       sim_error *err)
{
    cJSON *o = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return sim_error_set(err, SIM_EINVAL, "expected a JSON object");
    }
    int rc = SIM_OK;
    const cJSON *topic = cJSON_GetObjectItemCaseSensitive(o, "topic");
    if (topic && !(cJSON_IsString(topic) && strcmp(topic->valuestring, SIM_TOPIC_INPUT_CONTROLS) == 0))
        goto done; /* another topic: a tap of the whole bus may be replayed as it is */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "t");
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble)) {
        sim_json j = {.err = err};
        rc = sim_json_found(&j, "t", t, "a number (s)");
        goto done;
    }
    if (r->n > 0 && t->valuedouble < r->t[r->n - 1]) {
        rc = sim_error_set(err, SIM_EINVAL, "t: found %g, expected >= %g (the previous sample)",
                           t->valuedouble, r->t[r->n - 1]);
        goto done;
    }
    sim_controls c;
    if ((rc = sim_msg_input_controls_decode(o, &c, err))) goto done;
    /* A replay is a complete record: each line carries the three main controls (the
     * message itself may leave any out); the others default to 0. */
    static const char *const need[] = {"steer", "throttle", "brake"};
    const double *have[] = {&c.steer, &c.throttle, &c.brake};
    for (int k = 0; k < 3; k++)
        if (isnan(*have[k])) {
            rc = sim_error_set(err, SIM_EINVAL, "input.controls: %s: missing, expected a number", need[k]);
            goto done;
        }
    if (isnan(c.steer_deg)) c.steer_deg = 0;
    if (isnan(c.clutch)) c.clutch = 0;
    if ((rc = replay_push(r, cap, t->valuedouble, &c)))
        sim_error_set(err, rc, "out of memory after %zu samples", r->n);
done:
    cJSON_Delete(o);
    return rc;
}

int sim_driver_replay_parse(const char *text, size_t len, sim_driver_replay *out, sim_error *err)
{
    sim_driver_replay r = {0};
    size_t cap = 0, lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - pos;
        lineno++;
        if (n > 0 && text[pos + n - 1] == '\r') n--;
        if (n > 0) {
            int rc = replay_line(&r, &cap, text + pos, n, err);
            if (rc) {
                sim_error_prefix(err, "line %zu", lineno);
                sim_driver_replay_free(&r);
                return rc;
            }
        }
        pos = end + 1;
    }
    if (r.n == 0) return sim_error_set(err, SIM_EINVAL, "expected at least one input.controls line");
    *out = r;
    return SIM_OK;
}

int sim_driver_replay_load(const char *path, sim_driver_replay *out, sim_error *err)
{
    char *buf;
    size_t len;
    int rc = sim_file_read(path, &buf, &len, err);
    if (rc) return rc;
    rc = sim_driver_replay_parse(buf, len, out, err);
    if (rc) sim_error_prefix(err, "%s", path);
    free(buf);
    return rc;
}

bool sim_driver_replay_at(sim_driver_replay *r, double t, sim_controls *out)
{
    if (r->n == 0 || t < r->t[0]) {
        memset(out, 0, sizeof *out);
        return false;
    }
    /* Time usually moves forward a little per call: walk from the cursor, and go back
     * to a binary search when it moved backwards (a restart). */
    size_t i = r->cursor < r->n ? r->cursor : 0;
    if (r->t[i] > t) {
        size_t lo = 0, hi = r->n;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (r->t[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        i = lo;
    }
    while (i + 1 < r->n && r->t[i + 1] <= t) i++;
    r->cursor = i;
    *out = r->c[i];
    return true;
}
