/* synth: synthetic drives for trying the analysis without a simulator, for the figures
 * in docs/metrics.md and for the benchmark.
 *
 * A Lane Change Test style scenario (a three-lane road, tasks with lane changes) and a
 * driver model that follows the ideal path late and wanders about it: a subject's
 * skill scales the wander, so a study of several subjects has spread. Seeded, so the
 * same arguments give the same files. This is test data, not a driver model to study. */
#include "analysis.h"
#include "sim_rand.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LANE_W 3.5

typedef struct rng {
    uint64_t s;
} rng;

static double rnd(rng *r) /* uniform [0, 1): the MMIX LCG (sim_rand) */
{
    return sim_rand_unit(sim_rand_lcg(&r->s));
}

/* Writes the scenario in the world model's format: one winding road (lines and arcs of
 * 700 m radius, alternating left and right) with three 3.5 m lanes right of the
 * reference line, 60 km/h; n_tasks tasks of task_len m every period m from s = 100,
 * each changing lanes at irregular places with 30 m ramps and a HUD sign (trigger)
 * 40 m before each change. */
int an_synth_scenario(const char *path, int n_tasks, double task_len, double period,
                      double road_len, uint64_t seed, sim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    rng r = {seed * 2654435761u + 17};
    fprintf(f, "{\n  \"format\": 1,\n  \"name\": \"synthetic-lane-change\",\n"
               "  \"description\": \"written by analysis synth\",\n"
               "  \"roads\": [{\"id\": \"main\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0},\n"
               "    \"segments\": [");
    double acc = 0;
    for (int k = 0; acc < road_len; k++) {
        if (k % 2 == 0) fprintf(f, "%s{\"type\": \"line\", \"length\": 300}", k ? ", " : "");
        else fprintf(f, ", {\"type\": \"arc\", \"length\": 300, \"radius\": %d}", k % 4 == 1 ? 700 : -700);
        acc += 300;
    }
    fprintf(f, "],\n    \"lanes\": {\"center_mark\": \"solid\", \"right\": [{\"width\": 3.5, \"mark\": \"dashed\"}, "
               "{\"width\": 3.5, \"mark\": \"dashed\"}, {\"width\": 3.5, \"mark\": \"solid\"}]},\n"
               "    \"speed_limits\": [{\"s_start\": 0, \"speed_kmh\": 60}]}],\n");
    /* Tasks first into a buffer of lane changes, so that the triggers can follow them. */
    size_t cap = 1024, nch = 0;
    double *chs = malloc(cap * sizeof *chs);
    if (!chs) {
        fclose(f);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    fputs("  \"tasks\": [\n", f);
    int lane = -2;
    for (int k = 0; k < n_tasks; k++) {
        double s0 = 100 + k * period, s1 = s0 + task_len;
        fprintf(f, "    {\"id\": \"T%02d\", \"road\": \"main\", \"s_start\": %.1f, \"s_end\": %.1f, "
                   "\"tube_half_width\": 0.5,\n      \"ideal\": {\"start_lane\": %d, \"lane_changes\": [",
                k + 1, s0, s1, lane);
        double s = s0 + 60 + 60 * rnd(&r);
        bool first = true;
        while (s + 30 < s1 - 40) {
            int to;
            do to = -1 - (int)(3 * rnd(&r)); while (to == lane);
            fprintf(f, "%s{\"s\": %.1f, \"to_lane\": %d, \"ramp_length\": 30}", first ? "" : ", ", s, to);
            first = false;
            lane = to;
            if (nch == cap) {
                double *nc = realloc(chs, (cap *= 2) * sizeof *chs);
                if (!nc) break;
                chs = nc;
            }
            chs[nch++] = s * 16 + (-to); /* s and the lane, packed */
            s += 110 + 120 * rnd(&r);
        }
        fprintf(f, "]}}%s\n", k + 1 < n_tasks ? "," : "");
    }
    fputs("  ],\n  \"triggers\": [\n", f);
    for (size_t k = 0; k < nch; k++) {
        double s = floor(chs[k] / 16);
        int to = -(int)(chs[k] - s * 16);
        fprintf(f, "    {\"id\": \"sign%zu\", \"road\": \"main\", \"s_start\": %.1f, \"s_end\": %.1f, "
                   "\"action\": {\"type\": \"hud_text\", \"text\": \"change to lane %d\", \"duration_s\": 3}}%s\n",
                k + 1, s - 40, s - 39, to, k + 1 < nch ? "," : "");
    }
    fputs("  ]\n}\n", f);
    free(chs);
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return 0;
}

/* A slowly varying wander: three sines with random phases, unit peak. */
typedef struct wander {
    double amp[3], freq[3], ph[3];
} wander;

static void wander_init(wander *w, rng *r, double scale, double f0)
{
    for (int k = 0; k < 3; k++) {
        w->amp[k] = scale * (0.5 + rnd(r)) / (k + 1);
        w->freq[k] = f0 * (1 + k * 1.7 + 0.3 * rnd(r));
        w->ph[k] = 2 * M_PI * rnd(r);
    }
}

static double wander_at(const wander *w, double t)
{
    double v = 0;
    for (int k = 0; k < 3; k++) v += w->amp[k] * sin(2 * M_PI * w->freq[k] * t + w->ph[k]);
    return v;
}

/* Positions come from the scenario's road (sim_road_pose_at); the path is offset by d
 * along the road's normal. */
int an_synth_drive(const an_scenario *sc, double seconds, double rate, uint64_t seed,
                   const char *subject, const char *scenario_file, an_drive *dr, sim_error *err)
{
    size_t n = (size_t)(seconds * rate) + 1;
    int rc = an_drive_alloc(dr, n, err);
    if (!rc) rc = an_drive_add_ids(dr, AN_ID_TASK, err);
    if (!rc) rc = an_drive_add_ids(dr, AN_ID_ROAD, err);
    if (rc) return rc;
    rng r = {seed * 0x9E3779B97F4A7C15ULL + 1};
    double skill = 0.12 + 0.25 * rnd(&r); /* wander amplitude, m */
    double omega = 1.6 + 1.2 * rnd(&r);   /* rad/s: how briskly the ideal path is followed */
    wander lat, spd, gap;
    wander_init(&lat, &r, skill, 0.05);
    wander_init(&spd, &r, 1.2, 0.012);
    wander_init(&gap, &r, 12, 0.008);
    double dt = 1 / rate, s = 0, v = 60 / 3.6, x = 0, y = 0, hdg_ref = 0;
    size_t cur = 0, task = 0;
    /* The followed path: a critically damped second-order lag behind the ideal path,
     * so lane changes come late and smooth, as a driver's do. */
    double df = NAN, vf = 0;
    for (size_t i = 0; i < n; i++) {
        double t = (double)i * dt;
        double vt = 60 / 3.6 + wander_at(&spd, t);
        double a = (vt - v) * 0.8;
        v += a * dt;
        s += v * dt;
        /* Ideal lane: the current task's, else the last one's end. */
        while (task + 1 < sc->n_tasks && s > sc->tasks[task].s_end) task++, cur = 0;
        const an_task *tk = &sc->tasks[task];
        double di = sim_metrics_ideal_at(tk->ideal, tk->n_ideal, s, &cur);
        if (isnan(df)) df = di;
        double af = omega * omega * (di - df) - 2 * omega * vf;
        vf += af * dt;
        df += vf * dt;
        double w0 = wander_at(&lat, t), w1 = wander_at(&lat, t + dt), w2 = wander_at(&lat, t + 2 * dt);
        double d = df + w0;
        sim_road_pose ref, ahead;
        sim_road_pose_at(&sc->world->net, tk->road, s, 0, &ref);
        sim_road_pose_at(&sc->world->net, tk->road, s + 1, 0, &ahead);
        double kappa = remainder(ahead.heading - ref.heading, 2 * M_PI); /* per metre */
        hdg_ref = ref.heading;
        x = ref.x;
        y = ref.y;
        double dd = (vf + (w1 - w0) / dt) / v;                 /* dd/ds */
        double ddd = (af + (w2 - 2 * w1 + w0) / (dt * dt)) / (v * v); /* d2d/ds2 */
        double *c[AN_NCOL];
        for (int k = 0; k < AN_NCOL; k++) c[k] = &dr->col[k][i];
        *c[AN_RUN] = 0;
        *c[AN_TICK] = (double)i;
        *c[AN_T] = t;
        *c[AN_SPEED] = v;
        *c[AN_ACCEL] = a;
        double g = 40 + wander_at(&gap, t);
        *c[AN_HEADWAY_DIST] = fmod(t, 300) < 240 ? g : NAN; /* the lead car leaves now and then */
        *c[AN_HEADWAY_TIME] = isnan(*c[AN_HEADWAY_DIST]) ? NAN : g / v;
        *c[AN_S] = s;
        *c[AN_D] = d;
        *c[AN_LAT_DEV] = d - di;
        *c[AN_LANE] = -1 - floor(-d / LANE_W);
        *c[AN_X] = x - d * sin(hdg_ref);
        *c[AN_Y] = y + d * cos(hdg_ref);
        *c[AN_Z] = 0;
        *c[AN_HEADING] = hdg_ref + atan(dd);
        *c[AN_YAW_RATE] = v * (kappa + ddd);
        /* Bicycle model: wheel angle = wheelbase * curvature; wheel = 15 x that. */
        double wheel = atan(2.7 * (kappa + ddd));
        *c[AN_WHEEL_ANGLE] = wheel;
        *c[AN_STEER_WHEEL] = 15 * wheel;
        *c[AN_THROTTLE] = a > 0 ? fmin(1, 0.2 + a / 2) : 0.2 * fmax(0, 1 + a);
        *c[AN_BRAKE] = a < -0.15 ? fmin(1, -a / 3) : 0;
        *c[AN_CLUTCH] = 0;
        *c[AN_GEAR] = 4;
        *c[AN_RPM] = v * 130;
        /* The task and road the recorder would locate the sample on. */
        bool in_task = s >= tk->s_start && s <= tk->s_end;
        if ((rc = an_drive_set_id(dr, AN_ID_TASK, i, in_task ? tk->id : NULL, err)) ||
            (rc = an_drive_set_id(dr, AN_ID_ROAD, i, sc->world->net.roads[tk->road].id, err)))
            return rc;
    }
    /* Events: tasks, lane-change signs (stimuli) and the subject's button answers. */
    if ((rc = an_drive_add_event(dr, 0, 0, "control", "speed_limit", "{\"kmh\":60}", err))) return rc;
    for (size_t k = 0; k < sc->n_tasks; k++) {
        const an_task *tk = &sc->tasks[k];
        double ts = NAN, te = NAN;
        for (size_t i = 0; i < n && isnan(te); i++) {
            if (isnan(ts) && dr->col[AN_S][i] >= tk->s_start) ts = dr->col[AN_T][i];
            if (dr->col[AN_S][i] >= tk->s_end) te = dr->col[AN_T][i];
        }
        char js[128];
        snprintf(js, sizeof js, "{\"id\":\"%s\"}", tk->id);
        if (!isnan(ts) && (rc = an_drive_add_event(dr, 0, ts, "task", "start", js, err))) return rc;
        for (size_t p = 1; p < tk->n_ideal; p += 2) {
            /* A sign 40 m before each ramp: when the car passes it. */
            double ss = tk->ideal[p].s - 40;
            for (size_t i = 0; i < n; i++)
                if (dr->col[AN_S][i] >= ss) {
                    double tt = dr->col[AN_T][i];
                    if ((rc = an_drive_add_event(dr, 0, tt, "trigger", "lane_sign", js, err))) return rc;
                    if (rnd(&r) < 0.5 &&
                        (rc = an_drive_add_event(dr, 0, tt + 0.5 + rnd(&r), "button", "menu_select",
                                                 "{\"pressed\":true}", err)))
                        return rc;
                    break;
                }
        }
        if (!isnan(te) && (rc = an_drive_add_event(dr, 0, te, "task", "end", js, err))) return rc;
    }
    /* Events in time order, as a log has them. */
    for (size_t a = 1; a < dr->n_events; a++)
        for (size_t b = a; b > 0 && dr->events[b - 1].t > dr->events[b].t; b--) {
            an_event tmp = dr->events[b];
            dr->events[b] = dr->events[b - 1];
            dr->events[b - 1] = tmp;
        }
    char sd[32];
    snprintf(sd, sizeof sd, "%llu", (unsigned long long)seed);
    if ((rc = an_drive_set_meta(dr, "study", "synthetic", err)) ||
        (rc = an_drive_set_meta(dr, "subject", subject, err)) ||
        (rc = an_drive_set_meta(dr, "scenario_file", scenario_file, err)) ||
        (rc = an_drive_set_meta(dr, "seed", sd, err)) ||
        (rc = an_drive_set_meta(dr, "version", "analysis synth", err)))
        return rc;
    return 0;
}
