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

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- path ------------------------------------------------------------------------- */

int sim_driver_path_set(sim_driver_path *p, const double *xy, size_t n, sim_error *err)
{
    memset(p, 0, sizeof *p);
    if (n < 2) return sim_error_set(err, SIM_EINVAL, "path: expected at least 2 points, found %zu", n);
    p->x = malloc(n * sizeof *p->x);
    p->y = malloc(n * sizeof *p->y);
    p->s = malloc(n * sizeof *p->s);
    if (!p->x || !p->y || !p->s) {
        sim_driver_path_free(p);
        return sim_error_set(err, SIM_ENOMEM, "path: out of memory for %zu points", n);
    }
    for (size_t i = 0; i < n; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        if (!isfinite(x) || !isfinite(y)) {
            sim_driver_path_free(p);
            return sim_error_set(err, SIM_EINVAL, "path[%zu]: expected finite coordinates", i);
        }
        if (p->n > 0) {
            double ds = hypot(x - p->x[p->n - 1], y - p->y[p->n - 1]);
            if (ds < 1e-9) continue;
            p->s[p->n] = p->s[p->n - 1] + ds;
        } else {
            p->s[0] = 0;
        }
        p->x[p->n] = x;
        p->y[p->n] = y;
        p->n++;
    }
    if (p->n < 2) {
        sim_driver_path_free(p);
        return sim_error_set(err, SIM_EINVAL, "path: expected at least 2 distinct points");
    }
    return SIM_OK;
}

void sim_driver_path_free(sim_driver_path *p)
{
    free(p->x);
    free(p->y);
    free(p->s);
    memset(p, 0, sizeof *p);
}

double sim_driver_path_length(const sim_driver_path *p)
{
    return p->s[p->n - 1];
}

size_t sim_driver_path_segment(const sim_driver_path *p, double s)
{
    /* Binary search for the segment [i, i+1] holding s; outside, the end segments. */
    size_t lo = 0, hi = p->n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->s[mid] <= s)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void sim_driver_path_at(const sim_driver_path *p, double s, double *x, double *y)
{
    size_t lo = sim_driver_path_segment(p, s), hi = lo + 1;
    double len = p->s[hi] - p->s[lo];
    double u = (s - p->s[lo]) / len;
    *x = p->x[lo] + u * (p->x[hi] - p->x[lo]);
    *y = p->y[lo] + u * (p->y[hi] - p->y[lo]);
}

/* Squared distance from (x, y) to segment i and the parameter u of the closest point,
 * in [0, 1]. */
static double seg_dist2(const sim_driver_path *p, size_t i, double x, double y, double *u)
{
    double dx = p->x[i + 1] - p->x[i], dy = p->y[i + 1] - p->y[i];
    double t = ((x - p->x[i]) * dx + (y - p->y[i]) * dy) / (dx * dx + dy * dy);
    t = clamp(t, 0, 1);
    double ex = p->x[i] + t * dx - x, ey = p->y[i] + t * dy - y;
    *u = t;
    return ex * ex + ey * ey;
}

static size_t closest_in(const sim_driver_path *p, size_t from, size_t to, double x, double y,
                         double *best_d2)
{
    size_t best = from;
    *best_d2 = INFINITY;
    for (size_t i = from; i < to; i++) {
        double u, d2 = seg_dist2(p, i, x, y, &u);
        if (d2 < *best_d2) {
            *best_d2 = d2;
            best = i;
        }
    }
    return best;
}

double sim_driver_path_project(const sim_driver_path *p, double x, double y, size_t *hint,
                               double *d)
{
    size_t nseg = p->n - 1, seg;
    double d2 = INFINITY;
    if (hint && *hint < nseg) {
        /* Near the last answer: a few segments back, and forward for 50 m. Paths that
         * come back close to themselves (a loop, a town block) then do not make the
         * driver jump to the wrong pass. */
        size_t from = *hint > 2 ? *hint - 2 : 0, to = *hint;
        while (to < nseg && p->s[to] < p->s[*hint] + 50.0) to++;
        if (to == *hint) to = *hint + 1;
        seg = closest_in(p, from, to, x, y, &d2);
    }
    if (!(d2 <= 100.0)) seg = closest_in(p, 0, nseg, x, y, &d2);
    if (hint) *hint = seg;
    double u;
    seg_dist2(p, seg, x, y, &u);
    double dx = p->x[seg + 1] - p->x[seg], dy = p->y[seg + 1] - p->y[seg];
    double len = hypot(dx, dy);
    if (d) *d = (dx * (y - p->y[seg]) - dy * (x - p->x[seg])) / len;
    return p->s[seg] + u * len;
}

/* ---- driver ----------------------------------------------------------------------- */

void sim_driver_params_default(sim_driver_params *p)
{
    *p = (sim_driver_params){
        .wheelbase = 2.7, .rear_axle_offset = 1.35, .steering_ratio = 15.0,
        .steering_range_deg = 900.0, .lookahead_min = 6.0, .lookahead_time = 0.9,
        .kp = 0.5, .ki = 0.1, .stop_decel = 2.0,
        .manage_gears = true, .upshift_rpm = 3000, .downshift_rpm = 1300, .max_gear = 6,
        .shift_hold = 0.8,
    };
}

void sim_driver_init(sim_driver *d, const sim_driver_params *p, const sim_driver_path *path,
                     double target_speed)
{
    memset(d, 0, sizeof *d);
    d->p = *p;
    d->path = path;
    d->target_speed = target_speed;
    d->gear = 1;
    d->last_shift_t = -INFINITY;
}

/* Pure pursuit: road-wheel angle (rad, left positive) towards the path point one
 * look-ahead distance ahead of the rear axle's projection. */
static double pursuit(sim_driver *d, const sim_driver_obs *o)
{
    double c = cos(o->heading), s = sin(o->heading);
    double rx = o->x - d->p.rear_axle_offset * c, ry = o->y - d->p.rear_axle_offset * s;
    d->s = sim_driver_path_project(d->path, rx, ry, &d->hint, NULL);
    double ld = fmax(d->p.lookahead_min, d->p.lookahead_time * fabs(o->speed));
    double tx, ty;
    sim_driver_path_at(d->path, d->s + ld, &tx, &ty);
    double dx = tx - rx, dy = ty - ry;
    double lx = c * dx + s * dy, ly = -s * dx + c * dy;
    double dist = hypot(lx, ly);
    if (dist < 1e-6) return 0.0;
    /* sin(alpha) = ly / dist; delta = atan(2 L sin(alpha) / l_d). */
    return atan(2.0 * d->p.wheelbase * ly / (dist * dist));
}

/* PI speed control: positive output is throttle, negative brake. The integrator only
 * runs while the output is not saturated in the error's direction (anti-windup). */
static double speed_control(sim_driver *d, const sim_driver_obs *o, double dt, double target)
{
    double e = target - o->speed;
    double u = d->p.kp * e + d->p.ki * d->integ;
    if (dt > 0 && !((u >= 1 && e > 0) || (u <= -1 && e < 0))) {
        d->integ += e * dt;
        u = d->p.kp * e + d->p.ki * d->integ;
    }
    return clamp(u, -1, 1);
}

/* Upshift above upshift_rpm, downshift below downshift_rpm, never two shifts within
 * shift_hold. Decisions start from the gear the car reports. */
static void shift(sim_driver *d, const sim_driver_obs *o)
{
    if (o->t - d->last_shift_t < d->p.shift_hold) return;
    int cur = o->gear > 0 ? o->gear : d->gear;
    int want = cur;
    if (o->rpm > d->p.upshift_rpm && cur < d->p.max_gear)
        want = cur + 1;
    else if (o->rpm < d->p.downshift_rpm && cur > 1)
        want = cur - 1;
    if (cur < 1) want = 1;
    if (want != d->gear) {
        d->gear = want;
        d->last_shift_t = o->t;
    }
}

void sim_driver_step(sim_driver *d, const sim_driver_obs *o, sim_controls *out)
{
    if (!isfinite(o->t) || !isfinite(o->x) || !isfinite(o->y) || !isfinite(o->heading) ||
        !isfinite(o->speed) || !isfinite(o->rpm)) {
        /* A broken state is no ground to steer on: wheel straight, brake. */
        memset(out, 0, sizeof *out);
        out->brake = 1;
        return;
    }
    double dt = d->started ? o->t - d->last_t : 0.0;
    d->started = true;
    d->last_t = o->t;
    memset(out, 0, sizeof *out);

    double delta = pursuit(d, o);
    if (!isfinite(delta)) delta = 0; /* degenerate parameters (a zero wheelbase) */
    double half = 0.5 * d->p.steering_range_deg;
    out->steer_deg = clamp(delta * 180.0 / M_PI * d->p.steering_ratio, -half, half);
    out->steer = out->steer_deg / half;

    /* Slow down so as to stop at the end: v <= sqrt(2 a remaining), aiming 1 m short
     * because the PI controller lags the falling target a little. */
    double target = d->target_speed;
    if (d->p.stop_decel > 0) {
        double remaining = fmax(0.0, sim_driver_path_length(d->path) - 1.0 - d->s);
        target = fmin(target, sqrt(2.0 * d->p.stop_decel * remaining));
    }
    double u = speed_control(d, o, dt, target);
    out->throttle = u > 0 ? u : 0;
    out->brake = u < 0 ? -u : 0;
    if (target <= 0.0 && fabs(o->speed) < 0.5) {
        /* At the end: hold the car. */
        out->throttle = 0;
        out->brake = 1;
    }
    if (d->p.manage_gears) {
        shift(d, o);
        out->gear = d->gear;
        out->has_gear = true;
    }
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
