/* scenario: what the analysis needs from a scenario file.
 *
 * Only the parts that define the metrics are read: the vehicle's width, the lane layout
 * of the task's road (where the lane marks lie), its speed limits, and the tasks (s-range,
 * ideal path, tube half width). Keys follow the scenario format of docs/scenario.md
 * (issue 3); everything else in the file is ignored. Errors name the file, the JSON path,
 * what was found and what was expected. */
#include "analysis.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int num_field(const cJSON *obj, const char *key, const char *path, const char *where,
                     bool required, double *out, sim_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required) return 0;
        return sim_error_set(err, SIM_EINVAL, "%s: %s.%s: missing, expected a number", path, where, key);
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return sim_error_set(err, SIM_EINVAL, "%s: %s.%s: expected a number", path, where, key);
    *out = v->valuedouble;
    return 0;
}

/* Lane layout: borders from the rightmost to the leftmost, with their marks. */
static int read_lanes(const cJSON *road, const char *path, const char *where, an_scenario *sc,
                      double *right_w, int *n_right, double *left_w, int *n_left, sim_error *err)
{
    const cJSON *lanes = cJSON_GetObjectItemCaseSensitive(road, "lanes");
    if (!cJSON_IsObject(lanes))
        return sim_error_set(err, SIM_EINVAL, "%s: %s.lanes: expected an object {left, right}", path, where);
    const cJSON *side[2] = {cJSON_GetObjectItemCaseSensitive(lanes, "right"),
                            cJSON_GetObjectItemCaseSensitive(lanes, "left")};
    int cnt[2] = {0, 0};
    double w[2][32];
    bool mk[2][32];
    for (int sd = 0; sd < 2; sd++) {
        if (!side[sd]) continue;
        if (!cJSON_IsArray(side[sd]))
            return sim_error_set(err, SIM_EINVAL, "%s: %s.lanes.%s: expected an array", path,
                                 where, sd ? "left" : "right");
        const cJSON *ln;
        cJSON_ArrayForEach(ln, side[sd])
        {
            if (cnt[sd] == 32)
                return sim_error_set(err, SIM_ERANGE, "%s: %s.lanes: more than 32 lanes a side", path, where);
            char w2[128];
            snprintf(w2, sizeof w2, "%s.lanes.%s[%d]", where, sd ? "left" : "right", cnt[sd]);
            double width = 0;
            int rc = num_field(ln, "width", path, w2, true, &width, err);
            if (rc) return rc;
            if (!(width > 0))
                return sim_error_set(err, SIM_EINVAL, "%s: %s.width: %g, expected > 0", path, w2, width);
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(ln, "mark");
            w[sd][cnt[sd]] = width;
            mk[sd][cnt[sd]] = !(cJSON_IsString(m) && strcmp(m->valuestring, "none") == 0);
            cnt[sd]++;
        }
    }
    const cJSON *cm = cJSON_GetObjectItemCaseSensitive(road, "center_mark");
    bool center = !(cJSON_IsString(cm) && strcmp(cm->valuestring, "none") == 0);
    size_t nb = (size_t)(cnt[0] + cnt[1] + 1);
    sc->border_d = malloc(nb * sizeof *sc->border_d);
    sc->border_marked = malloc(nb * sizeof *sc->border_marked);
    if (!sc->border_d || !sc->border_marked) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    size_t k = 0;
    double acc = 0;
    for (int i = 0; i < cnt[0]; i++) acc += w[0][i];
    for (int i = cnt[0] - 1; i >= 0; i--) { /* outermost right border first */
        sc->border_d[k] = -acc;
        sc->border_marked[k++] = mk[0][i];
        acc -= w[0][i];
    }
    sc->border_d[k] = 0;
    sc->border_marked[k++] = center;
    acc = 0;
    for (int i = 0; i < cnt[1]; i++) {
        acc += w[1][i];
        sc->border_d[k] = acc;
        sc->border_marked[k++] = mk[1][i];
    }
    sc->n_borders = k;
    for (int i = 0; i < cnt[0]; i++) right_w[i] = w[0][i];
    for (int i = 0; i < cnt[1]; i++) left_w[i] = w[1][i];
    *n_right = cnt[0];
    *n_left = cnt[1];
    return 0;
}

/* d of the centre of lane id (OpenDRIVE numbering) or NAN when there is no such lane. */
static double lane_centre(int id, const double *rw, int nr, const double *lw, int nl)
{
    const double *w = id < 0 ? rw : lw;
    int n = id < 0 ? nr : nl, k = abs(id);
    if (id == 0 || k > n) return NAN;
    double acc = 0;
    for (int i = 0; i < k - 1; i++) acc += w[i];
    acc += 0.5 * w[k - 1];
    return id < 0 ? -acc : acc;
}

static int read_ideal(const cJSON *task, const char *path, const char *where, an_task *t,
                      const double *rw, int nr, const double *lw, int nl, sim_error *err)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(task, "ideal");
    const cJSON *lane = cJSON_GetObjectItemCaseSensitive(task, "ideal_lane");
    if (cJSON_IsArray(pts)) {
        int n = cJSON_GetArraySize(pts);
        if (n < 1) return sim_error_set(err, SIM_EINVAL, "%s: %s.ideal: empty, expected [[s, d], ...]", path, where);
        t->ideal = calloc((size_t)n, sizeof *t->ideal);
        if (!t->ideal) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        int k = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, pts)
        {
            const cJSON *a = cJSON_GetArrayItem(p, 0), *b = cJSON_GetArrayItem(p, 1);
            if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b))
                return sim_error_set(err, SIM_EINVAL, "%s: %s.ideal[%d]: expected [s, d] numbers", path, where, k);
            t->ideal[k].s = a->valuedouble;
            t->ideal[k].d = b->valuedouble;
            if (k > 0 && t->ideal[k].s < t->ideal[k - 1].s)
                return sim_error_set(err, SIM_EINVAL, "%s: %s.ideal[%d][0]: %g, expected >= %g (ascending s)",
                                     path, where, k, t->ideal[k].s, t->ideal[k - 1].s);
            k++;
        }
        t->n_ideal = (size_t)n;
        return 0;
    }
    if (!cJSON_IsObject(lane))
        return sim_error_set(err, SIM_EINVAL, "%s: %s: expected \"ideal\" [[s, d], ...] or \"ideal_lane\" {lane, changes}",
                             path, where);
    const cJSON *l0 = cJSON_GetObjectItemCaseSensitive(lane, "lane");
    if (!cJSON_IsNumber(l0))
        return sim_error_set(err, SIM_EINVAL, "%s: %s.ideal_lane.lane: expected a lane id", path, where);
    double d0 = lane_centre(l0->valueint, rw, nr, lw, nl);
    if (isnan(d0))
        return sim_error_set(err, SIM_EINVAL, "%s: %s.ideal_lane.lane: %d, no such lane on the road", path, where, l0->valueint);
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(lane, "changes");
    int nc = cJSON_IsArray(ch) ? cJSON_GetArraySize(ch) : 0;
    t->ideal = calloc((size_t)(2 * nc + 1), sizeof *t->ideal);
    if (!t->ideal) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    size_t k = 0;
    t->ideal[k++] = (sim_metrics_point){t->s_start, d0};
    double d = d0;
    for (int i = 0; i < nc; i++) {
        const cJSON *c = cJSON_GetArrayItem(ch, i);
        char w2[128];
        snprintf(w2, sizeof w2, "%s.ideal_lane.changes[%d]", where, i);
        double s = 0, ramp = 0;
        int rc = num_field(c, "s", path, w2, true, &s, err);
        if (!rc) rc = num_field(c, "ramp", path, w2, false, &ramp, err);
        if (rc) return rc;
        const cJSON *to = cJSON_GetObjectItemCaseSensitive(c, "lane");
        double dn = cJSON_IsNumber(to) ? lane_centre(to->valueint, rw, nr, lw, nl) : NAN;
        if (isnan(dn)) return sim_error_set(err, SIM_EINVAL, "%s: %s.lane: expected a lane id of the road", path, w2);
        if (ramp < 0 || s < t->ideal[k - 1].s)
            return sim_error_set(err, SIM_EINVAL, "%s: %s: s %g ramp %g: expected ascending s, ramp >= 0",
                                 path, w2, s, ramp);
        t->ideal[k++] = (sim_metrics_point){s, d};
        t->ideal[k++] = (sim_metrics_point){s + ramp, dn};
        d = dn;
    }
    t->n_ideal = k;
    return 0;
}

static int load(const char *path, cJSON *root, an_scenario *sc, sim_error *err)
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "name");
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    sc->name = strdup(cJSON_IsString(nm) ? nm->valuestring : base);
    sc->path = strdup(path);
    if (!sc->name || !sc->path) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    sc->vehicle_width = 1.8;
    const cJSON *veh = cJSON_GetObjectItemCaseSensitive(root, "vehicle");
    if (cJSON_IsObject(veh)) {
        int rc = num_field(veh, "width", path, "vehicle", false, &sc->vehicle_width, err);
        if (rc) return rc;
    }
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(root, "tasks");
    if (!cJSON_IsArray(tasks) || cJSON_GetArraySize(tasks) == 0)
        return sim_error_set(err, SIM_EINVAL, "%s: tasks: expected a non-empty array", path);
    const cJSON *roads = cJSON_GetObjectItemCaseSensitive(root, "roads");
    if (!cJSON_IsArray(roads) || cJSON_GetArraySize(roads) == 0)
        return sim_error_set(err, SIM_EINVAL, "%s: roads: expected a non-empty array", path);
    /* The road of the first task (all tasks of one analysis share a road's s). */
    const cJSON *t0 = cJSON_GetArrayItem(tasks, 0);
    const cJSON *rid = cJSON_GetObjectItemCaseSensitive(t0, "road");
    const cJSON *road = NULL;
    int ri = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, roads)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
        if (!cJSON_IsString(rid) || (cJSON_IsString(id) && strcmp(id->valuestring, rid->valuestring) == 0)) {
            road = r;
            break;
        }
        ri++;
    }
    if (!road)
        return sim_error_set(err, SIM_ENOTFOUND, "%s: tasks[0].road: \"%s\" is not a road id", path,
                             rid->valuestring);
    char where[64];
    snprintf(where, sizeof where, "roads[%d]", ri);
    double rw[32], lw[32];
    int nr = 0, nl = 0;
    int rc = read_lanes(road, path, where, sc, rw, &nr, lw, &nl, err);
    if (rc) return rc;
    const cJSON *lims = cJSON_GetObjectItemCaseSensitive(road, "speed_limits");
    if (cJSON_IsArray(lims)) {
        int n = cJSON_GetArraySize(lims);
        sc->limits = calloc((size_t)n + 1, sizeof *sc->limits);
        if (!sc->limits) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        const cJSON *l;
        cJSON_ArrayForEach(l, lims)
        {
            char w2[96];
            snprintf(w2, sizeof w2, "%s.speed_limits[%zu]", where, sc->n_limits);
            an_limit *al = &sc->limits[sc->n_limits];
            double kmh = NAN, ms = NAN;
            rc = num_field(l, "s_start", path, w2, true, &al->s_start, err);
            if (!rc) rc = num_field(l, "s_end", path, w2, true, &al->s_end, err);
            if (!rc) rc = num_field(l, "kmh", path, w2, false, &kmh, err);
            if (!rc) rc = num_field(l, "speed", path, w2, false, &ms, err);
            if (rc) return rc;
            al->speed = isfinite(ms) ? ms : kmh / 3.6;
            if (!(al->speed > 0) || !(al->s_end > al->s_start))
                return sim_error_set(err, SIM_EINVAL, "%s: %s: expected s_start < s_end and kmh or speed > 0",
                                     path, w2);
            sc->n_limits++;
        }
    }
    int nt = cJSON_GetArraySize(tasks);
    sc->tasks = calloc((size_t)nt, sizeof *sc->tasks);
    if (!sc->tasks) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    const cJSON *tk;
    cJSON_ArrayForEach(tk, tasks)
    {
        snprintf(where, sizeof where, "tasks[%zu]", sc->n_tasks);
        an_task *t = &sc->tasks[sc->n_tasks++];
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(tk, "id");
        if (!cJSON_IsString(id) || !id->valuestring[0])
            return sim_error_set(err, SIM_EINVAL, "%s: %s.id: expected a non-empty string", path, where);
        t->id = strdup(id->valuestring);
        if (!t->id) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        t->tube_half_width = 0.5;
        rc = num_field(tk, "s_start", path, where, true, &t->s_start, err);
        if (!rc) rc = num_field(tk, "s_end", path, where, true, &t->s_end, err);
        if (!rc) rc = num_field(tk, "tube_half_width", path, where, false, &t->tube_half_width, err);
        if (rc) return rc;
        if (!(t->s_end > t->s_start) || !(t->tube_half_width >= 0))
            return sim_error_set(err, SIM_EINVAL, "%s: %s: s_start %g, s_end %g, tube_half_width %g: expected s_start < s_end, width >= 0",
                                 path, where, t->s_start, t->s_end, t->tube_half_width);
        const cJSON *rx = cJSON_GetObjectItemCaseSensitive(tk, "reactions");
        t->reactions = cJSON_IsTrue(rx);
        rc = read_ideal(tk, path, where, t, rw, nr, lw, nl, err);
        if (rc) return rc;
    }
    return 0;
}

int an_scenario_load(const char *path, an_scenario *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot open scenario", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 0 || len > (64L << 20)) {
        fclose(f);
        return sim_error_set(err, SIM_ETOOBIG, "%s: size %ld, expected at most 64 MiB", path, len);
    }
    char *buf = malloc((size_t)len + 1);
    size_t got = buf ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    if (!buf) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    buf[got] = 0;
    const char *ep = NULL;
    cJSON *root = cJSON_ParseWithOpts(buf, &ep, 0);
    if (!root) {
        size_t line = 1, col = 1;
        for (const char *q = buf; ep && q < ep; q++) {
            if (*q == '\n') line++, col = 1;
            else col++;
        }
        free(buf);
        return sim_error_set(err, SIM_EINVAL, "%s:%zu:%zu: JSON syntax error", path, line, col);
    }
    free(buf);
    int rc = load(path, root, out, err);
    cJSON_Delete(root);
    if (rc) an_scenario_free(out);
    return rc;
}

void an_scenario_free(an_scenario *sc)
{
    if (!sc) return;
    free(sc->path);
    free(sc->name);
    free(sc->border_d);
    free(sc->border_marked);
    free(sc->limits);
    for (size_t k = 0; k < sc->n_tasks; k++) {
        free(sc->tasks[k].id);
        free(sc->tasks[k].ideal);
    }
    free(sc->tasks);
    memset(sc, 0, sizeof *sc);
}

void an_scenario_marks(const an_scenario *sc, double d, double *left, double *right)
{
    *left = *right = NAN;
    size_t n = sc->n_borders;
    if (n < 2 || d <= sc->border_d[0] || d >= sc->border_d[n - 1]) return;
    size_t k = 0;
    while (k + 1 < n && sc->border_d[k + 1] <= d) k++;
    if (sc->border_marked[k]) *right = sc->border_d[k];
    if (sc->border_marked[k + 1]) *left = sc->border_d[k + 1];
}

double an_scenario_limit(const an_scenario *sc, double s)
{
    for (size_t k = 0; k < sc->n_limits; k++)
        if (s >= sc->limits[k].s_start && s < sc->limits[k].s_end) return sc->limits[k].speed;
    return NAN;
}
