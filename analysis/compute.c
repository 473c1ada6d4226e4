/* compute: one drive and its scenario -> the metrics of every task in every run.
 *
 * The drive is split into runs (a restart starts a new run); each run is checked for
 * missing samples (gaps in the tick sequence), and each task of the scenario is located
 * in it (by the logged task column, else by its s-range) and handed to sim_metrics with
 * the lane marks of its ideal lane and the speed limits along the road. Stimuli for
 * reaction times are the run's trigger and HUD events inside the task; responses are
 * button presses, steering and braking. What is wrong with a drive or a task is written
 * down, not fatal. */
#include "analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

int an_result_warn(an_result *res, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nw = realloc(res->warnings, (res->n_warnings + 1) * sizeof *nw);
    if (!nw) return SIM_ENOMEM;
    res->warnings = nw;
    if (!(nw[res->n_warnings] = strdup(buf))) return SIM_ENOMEM;
    res->n_warnings++;
    return 0;
}

void an_result_free(an_result *res)
{
    if (!res) return;
    for (size_t k = 0; k < res->n_warnings; k++) free(res->warnings[k]);
    free(res->warnings);
    for (size_t k = 0; k < res->n_tasks; k++) {
        sim_metrics_result_free(&res->tasks[k].m);
        free(res->tasks[k].mark_left);
        free(res->tasks[k].mark_right);
        free(res->tasks[k].limit);
        an_measures_free(&res->tasks[k].x);
    }
    free(res->tasks);
    an_streams_free(&res->streams);
    memset(res, 0, sizeof *res);
}

static void copy_meta(const an_drive *dr, const char *key, char *buf, size_t size, const char *dflt)
{
    const char *v = an_drive_meta(dr, key);
    snprintf(buf, size, "%s", v && *v ? v : dflt);
}

/* Reports gaps in run [r0, r1): by tick when the log has ticks, else by time steps over
 * 1.5 times the median step. */
static int check_gaps(an_result *res, const an_drive *dr, int run, size_t r0, size_t r1)
{
    const double *tick = dr->col[AN_TICK], *t = dr->col[AN_T];
    size_t gaps = 0;
    double first_a = 0, first_b = 0, missing = 0;
    bool by_tick = !isnan(tick[r0]);
    double step = 0;
    if (!by_tick && r1 - r0 > 2) {
        /* Median of the first (up to) 101 steps is a robust nominal period. */
        double st[101];
        size_t m = 0;
        for (size_t i = r0 + 1; i < r1 && m < 101; i++) st[m++] = t[i] - t[i - 1];
        for (size_t a = 1; a < m; a++)
            for (size_t b = a; b > 0 && st[b - 1] > st[b]; b--) {
                double x = st[b];
                st[b] = st[b - 1];
                st[b - 1] = x;
            }
        step = st[m / 2];
    }
    for (size_t i = r0 + 1; i < r1; i++) {
        bool gap;
        double lost;
        if (by_tick) {
            lost = tick[i] - tick[i - 1] - 1;
            gap = lost > 0;
        } else {
            gap = step > 0 && t[i] - t[i - 1] > 1.5 * step;
            lost = gap ? round((t[i] - t[i - 1]) / step) - 1 : 0;
        }
        if (!gap) continue;
        if (gaps++ == 0) first_a = t[i - 1], first_b = t[i];
        missing += lost;
    }
    if (gaps)
        return an_result_warn(res,
                              "missing samples: run %d has %zu gap%s (%.0f samples missing), the "
                              "first between t = %.2f s and t = %.2f s; metrics interpolate across them",
                              run, gaps, gaps > 1 ? "s" : "", missing, first_a, first_b);
    return 0;
}

static bool is_stimulus(const an_event *e)
{
    return strcmp(e->kind, "trigger") == 0 || strcmp(e->kind, "hud") == 0 ||
           (strcmp(e->kind, "control") == 0 && strcmp(e->name, "hud") == 0);
}

static bool is_press(const an_event *e)
{
    /* the DRT's button answers the DRT's stimuli (measures.c), not triggers */
    return strcmp(e->kind, "button") == 0 && strcmp(e->name, "drt") != 0 &&
           !(e->json && (strstr(e->json, "\"pressed\":false") || strstr(e->json, "\"pressed\": false")));
}

/* Events that make a task suspect (docs/drivelog.md). SUSPECT_RUN: the simulation
 * itself was disturbed (a module other than the recorder crashed or restarted, the
 * clock or the controls stalled, the bus was lost): everything after it in the run
 * drove on from a different state. SUSPECT_SPAN: only the log lost something (ticks
 * that never arrived, the recorder's own crash, its backlog overflowing): only a task
 * whose span holds it is affected. */
enum { NOT_SUSPECT, SUSPECT_SPAN, SUSPECT_RUN, SUSPECT_SENSOR };

static int suspect_kind(const an_event *e)
{
    if (strcmp(e->kind, "session") == 0)
        return e->json && strstr(e->json, "\"module\":\"recorder\"") ? SUSPECT_SPAN : SUSPECT_RUN;
    if (strcmp(e->kind, "stall") == 0) return strstr(e->name, "_end") ? NOT_SUSPECT : SUSPECT_RUN;
    if (strcmp(e->kind, "gap") == 0) return SUSPECT_SPAN;
    /* an instrument went silent (docs/instruments.md): until it resumed, its samples
     * are missing */
    if (strcmp(e->kind, "sensor") == 0 && strcmp(e->name, "stopped") == 0) return SUSPECT_SENSOR;
    if (strcmp(e->kind, "recorder") == 0) {
        if (strcmp(e->name, "bus_lost") == 0) return SUSPECT_RUN;
        if (strcmp(e->name, "backlog_dropped") == 0) return SUSPECT_SPAN;
    }
    return NOT_SUSPECT;
}

/* The operator's control.speed_limit events of a run, in time order: at t the limit
 * is kmh (0: the road's again). */
typedef struct op_limit {
    double t, kmh;
} op_limit;

static size_t operator_limits(const an_drive *dr, int run, op_limit **out)
{
    *out = NULL;
    size_t n = 0;
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        if (e->run != run || strcmp(e->kind, "control") || strcmp(e->name, "speed_limit") || !e->json) continue;
        cJSON *j = cJSON_Parse(e->json);
        const cJSON *kmh = cJSON_GetObjectItemCaseSensitive(j, "kmh");
        if (cJSON_IsNumber(kmh) && kmh->valuedouble >= 0) {
            op_limit *nl = realloc(*out, (n + 1) * sizeof *nl);
            if (nl) {
                *out = nl;
                nl[n++] = (op_limit){e->t, kmh->valuedouble};
            }
        }
        cJSON_Delete(j);
    }
    return n;
}

/* Whether the sensor of the "sensor" "stopped" event k resumed (a "sensor" "resumed"
 * event naming the same source) before t. */
static bool sensor_back_before(const an_drive *dr, size_t k, double t)
{
    const an_event *stop = &dr->events[k];
    char source[128] = "";
    cJSON *j = stop->json ? cJSON_Parse(stop->json) : NULL;
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(j, "source");
    if (cJSON_IsString(src)) snprintf(source, sizeof source, "%s", src->valuestring);
    cJSON_Delete(j);
    for (size_t i = k + 1; i < dr->n_events; i++) {
        const an_event *e = &dr->events[i];
        if (e->run != stop->run || strcmp(e->kind, "sensor") || strcmp(e->name, "resumed") || !e->json) continue;
        char key[160];
        snprintf(key, sizeof key, "\"source\":\"%s\"", source);
        if (strstr(e->json, key)) return e->t < t;
    }
    return false;
}

static bool is_recorder_crash(const an_event *e)
{
    return strcmp(e->kind, "session") == 0 && e->json && strstr(e->json, "\"module\":\"recorder\"");
}

/* Where the rows a crashed recorder's successor rebuilt begin: the newest "recorder"
 * "resumed" event of the run at or before the crash's stamp (a resumed recorder stamps
 * it with the last sample the file kept). simctl stamps the crash when it notices it,
 * which under load can be seconds of simulation after the kill, while the lockstep
 * goes on without the recorder; every row between the two was rebuilt from the
 * dispatcher's backlog. */
static double rebuilt_from(const an_drive *dr, const an_event *crash)
{
    double from = crash->t;
    for (size_t i = 0; i < dr->n_events; i++) {
        const an_event *e = &dr->events[i];
        if (e->run == crash->run && e->t <= crash->t && strcmp(e->kind, "recorder") == 0 &&
            strcmp(e->name, "resumed") == 0 && (from == crash->t || e->t > from))
            from = e->t;
    }
    return from;
}

/* Marks a computed task as suspect when such an event falls in its time span (or
 * right after its last sample, where a crash that cut it short is stamped), or, for
 * a disturbance of the simulation, anywhere before in its run. A recorder's crash
 * covers the stretch from where its successor resumed to where the crash was stamped. */
static void flag_suspect(const an_drive *dr, an_task_result *tr)
{
    if (tr->status || !tr->computed || tr->i1 <= tr->i0) return;
    double ta = dr->col[AN_T][tr->i0], tb = dr->col[AN_T][tr->i1 - 1] + 0.05;
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        int kind = e->run == tr->run ? suspect_kind(e) : NOT_SUSPECT;
        double from = kind == SUSPECT_SPAN && is_recorder_crash(e) ? rebuilt_from(dr, e) : e->t;
        if (kind == NOT_SUSPECT || from > tb || (kind == SUSPECT_SPAN && e->t < ta)) continue;
        if (kind == SUSPECT_SENSOR && sensor_back_before(dr, k, ta)) continue;
        tr->suspect = true;
        if (from < e->t)
            snprintf(tr->message, sizeof tr->message,
                     "task %.60s, run %d: the recorder crashed (the log has a %.20s %.40s event at t = %.2f s, "
                     "and its rows from t = %.2f s on were rebuilt from the dispatcher's backlog) "
                     "(%.300s): its numbers may differ from an uninterrupted drive",
                     tr->task->id, tr->run, e->kind, e->name, e->t, from, e->json ? e->json : "");
        else
            snprintf(tr->message, sizeof tr->message,
                     "task %.60s, run %d: the log has a %.20s %.40s event at t = %.2f s %s the task "
                     "(%.300s): its numbers may differ from an uninterrupted drive",
                     tr->task->id, tr->run, e->kind, e->name, e->t, e->t < ta ? "before" : "inside",
                     e->json ? e->json : "");
        return;
    }
}

/* The ego touching another vehicle (traffic.collision, logged as kind "collision")
 * inside the task's time span: its own measure, since the gap measures stop at 0. */
static void count_collisions(const an_drive *dr, an_task_result *tr)
{
    tr->collisions = 0;
    if (!tr->computed || tr->i1 <= tr->i0) return;
    double ta = dr->col[AN_T][tr->i0], tb = dr->col[AN_T][tr->i1 - 1];
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        if (e->run == tr->run && e->t >= ta && e->t <= tb && strcmp(e->kind, "collision") == 0) tr->collisions++;
    }
}

const char *an_task_status(const an_task_result *tr)
{
    return tr->status ? sim_error_name(tr->status) : tr->suspect ? "warning" : "ok";
}

/* A task's label (task_labels) when its samples are found by its s-range. */
#define BY_S_RANGE (-2)

/* How far along the road the car can get between samples j and j + 1: twice the logged
 * speed times the time step, plus 5 cm (70 m/s where no speed is logged). */
static double step_tolerance(const an_drive *dr, size_t j)
{
    const double *v = dr->col[AN_SPEED], *t = dr->col[AN_T];
    double speed = isfinite(v[j]) ? fabs(v[j]) : isfinite(v[j + 1]) ? fabs(v[j + 1]) : 70.0;
    return 2.0 * speed * fabs(t[j + 1] - t[j]) + 0.05;
}

/* Whether samples j and j + 1 lie on the same road, so that the metrics may interpolate
 * between them: by the road column where both have one, else by s moving no further
 * than the car can in one step (a change of road puts s on another road's scale). */
static bool continuous(const an_drive *dr, size_t j)
{
    const int *road = dr->ids[AN_ID_ROAD];
    if (road && road[j] >= 0 && road[j + 1] >= 0) return road[j] == road[j + 1];
    return fabs(dr->col[AN_S][j + 1] - dr->col[AN_S][j]) <= step_tolerance(dr, j);
}

/* Where a task's samples are found by the logged task column (see an_compute): the first
 * stretch of consecutive samples of run [r0, r1) whose task id is label, plus the sample
 * on either side when it is on the same road (for the crossing of the task's ends).
 * When the sample outside is on another road (the task begins or ends at a junction),
 * the task is clipped to the first or last sample inside, if that lies within one step
 * of the task's end. Returns false when no sample carries the id. */
static bool select_by_column(an_result *res, const an_drive *dr, const an_task *task, int label,
                             int run, size_t r0, size_t r1, size_t *i0, size_t *i1,
                             double *s_start, double *s_end, int *rc)
{
    const int *id = dr->ids[AN_ID_TASK];
    const double *s = dr->col[AN_S];
    size_t a = r0;
    while (a < r1 && id[a] != label) a++;
    if (a == r1) return false;
    size_t b = a;
    while (b < r1 && id[b] == label) b++;
    size_t again = 0;
    for (size_t i = b; i < r1; i++)
        if (id[i] == label && id[i - 1] != label) again++;
    if (again)
        *rc = an_result_warn(res,
                             "task %.60s is entered %zu more time%s in run %d after t = %.2f s; "
                             "its metrics cover the first pass (t = %.2f s to %.2f s)",
                             task->id, again, again > 1 ? "s" : "", run, dr->col[AN_T][b - 1],
                             dr->col[AN_T][a], dr->col[AN_T][b - 1]);
    *i0 = a;
    *i1 = b;
    *s_start = task->s_start;
    *s_end = task->s_end;
    if (a > r0 && continuous(dr, a - 1)) *i0 = a - 1;
    else if (a > r0 && s[a] - task->s_start <= step_tolerance(dr, a - 1)) *s_start = s[a];
    if (b < r1 && continuous(dr, b - 1)) *i1 = b + 1;
    else if (b < r1 && task->s_end - s[b - 1] <= step_tolerance(dr, b - 1)) *s_end = s[b - 1];
    return true;
}

/* The task's lane marks and speed limit at each of its n samples from i0 (tr owns the
 * arrays); SIM_ENOMEM or 0. */
static int task_marks(const an_drive *dr, const an_scenario *sc, const an_task *task, int run, size_t i0,
                      size_t n, an_task_result *tr)
{
    const double *s = dr->col[AN_S];
    tr->mark_left = malloc((n ? n : 1) * sizeof(double));
    tr->mark_right = malloc((n ? n : 1) * sizeof(double));
    tr->limit = malloc((n ? n : 1) * sizeof(double));
    if (!tr->mark_left || !tr->mark_right || !tr->limit) return SIM_ENOMEM;
    /* The marks depend on the lane, which changes only at the ideal path's points: the
     * lookup is repeated only when d_ideal moves. Every lookup is at the running
     * maximum of s, as sim_metrics measures progress: a car rolling back after a lane
     * change stays in the lane it reached (docs/metrics.md). The speed limit is the
     * operator's (control.speed_limit) where one was set, else the road's. */
    op_limit *ops;
    size_t n_ops = operator_limits(dr, run, &ops), op = 0;
    double op_kmh = 0;
    size_t cur = 0;
    double last_di = NAN, ml = NAN, mr = NAN, sm = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        sm = fmax(sm, s[i0 + i]);
        double di = sim_metrics_ideal_at(task->ideal, task->n_ideal, sm, &cur);
        if (di != last_di || an_scenario_multi_section(sc, task->road)) an_scenario_marks(sc, task->road, sm, di, &ml, &mr), last_di = di;
        tr->mark_left[i] = ml;
        tr->mark_right[i] = mr;
        while (op < n_ops && ops[op].t <= dr->col[AN_T][i0 + i]) op_kmh = ops[op++].kmh;
        tr->limit[i] = op_kmh > 0 ? op_kmh / 3.6 : an_scenario_limit(sc, task->road, sm);
    }
    free(ops);
    return 0;
}

static int task_in_run(an_result *res, const an_drive *dr, const an_scenario *sc,
                       const an_task *task, int label, int run, size_t r0, size_t r1,
                       an_task_result *tr)
{
    const double *s = dr->col[AN_S];
    memset(tr, 0, sizeof *tr);
    tr->task = task;
    tr->run = run;
    double smax = -INFINITY;
    size_t i0 = r0, i1 = r1;
    double s_start = task->s_start, s_end = task->s_end;
    bool missing = false; /* by the task column: no sample of the run carries the id */
    if (label != BY_S_RANGE) {
        int rc = 0;
        missing = label < 0 || !select_by_column(res, dr, task, label, run, r0, r1, &i0, &i1,
                                                 &s_start, &s_end, &rc);
        if (rc) return SIM_ENOMEM;
        if (missing) i0 = i1 = r0;
        for (size_t i = i0; i < i1; i++)
            if (s[i] > smax) smax = s[i];
    } else {
        /* [i0, i1): from the last sample at or before the start to the first at or after
         * the end, by the running maximum of s as in sim_metrics. When the end is not
         * reached, smax ends as the run's furthest s, which the messages quote. */
        for (size_t i = r0; i < r1; i++) {
            if (s[i] > smax) smax = s[i];
            if (smax <= task->s_start) i0 = i;
            if (smax >= task->s_end) {
                i1 = i + 1;
                break;
            }
        }
    }
    tr->i0 = i0;
    tr->i1 = i1;
    size_t n = i1 - i0;
    if (task_marks(dr, sc, task, run, i0, n, tr)) return SIM_ENOMEM;
    sim_metrics_samples smp = {
        .n = n,
        .t = dr->col[AN_T] + i0,
        .s = s + i0,
        .d = dr->col[AN_D] + i0,
        .speed = dr->col[AN_SPEED] + i0,
        .speed_limit = tr->limit,
        .headway = dr->col[AN_HEADWAY_DIST] + i0,
        .steer = dr->col[AN_STEER_WHEEL] + i0,
        .throttle = dr->col[AN_THROTTLE] + i0,
        .brake = dr->col[AN_BRAKE] + i0,
        .mark_left = tr->mark_left,
        .mark_right = tr->mark_right,
    };
    sim_metrics_task mt;
    sim_metrics_task_init(&mt);
    mt.s_start = s_start;
    mt.s_end = s_end;
    mt.ideal = task->ideal;
    mt.n_ideal = task->n_ideal;
    mt.tube_half_width = task->tube_half_width;
    mt.vehicle_width = sc->vehicle_width;
    mt.speed_margin = sc->speed_margin;
    /* Stimuli inside the task's time span and every button press of the run. */
    double *stim = NULL, *btn = NULL;
    size_t ns = 0, nb = 0;
    if (task->reactions && n >= 2) {
        stim = malloc((dr->n_events + 1) * sizeof *stim);
        btn = malloc((dr->n_events + 1) * sizeof *btn);
        if (!stim || !btn) {
            free(stim);
            free(btn);
            return SIM_ENOMEM;
        }
        double ta = smp.t[0], tb = smp.t[n - 1];
        for (size_t k = 0; k < dr->n_events; k++) {
            const an_event *e = &dr->events[k];
            if (e->run != run) continue;
            if (is_stimulus(e) && e->t >= ta && e->t <= tb) stim[ns++] = e->t;
            if (is_press(e)) btn[nb++] = e->t;
        }
        mt.stimulus_t = stim;
        mt.n_stimuli = ns;
        mt.button_t = btn;
        mt.n_buttons = nb;
    }
    sim_error err = {0};
    if (r1 == r0) {
        tr->status = SIM_ENOTFOUND;
        snprintf(tr->message, sizeof tr->message, "task %.60s never started: the drive has no samples",
                 task->id);
    } else if (missing) {
        tr->status = SIM_ENOTFOUND;
        snprintf(tr->message, sizeof tr->message,
                 "task %.60s never started in run %d: no sample carries its id in the log's task column",
                 task->id, run);
    } else if (n < 2 && label != BY_S_RANGE) {
        tr->status = SIM_ENOTFOUND;
        snprintf(tr->message, sizeof tr->message,
                 "task %.60s in run %d: one sample (t = %.2f s) carries its id, too few for its metrics",
                 task->id, run, dr->col[AN_T][i0]);
    } else if (n < 2) {
        tr->status = SIM_ENOTFOUND;
        snprintf(tr->message, sizeof tr->message,
                 "task %.60s never started in run %d: the samples stop at s = %.1f m, before "
                 "the task's start at s = %.1f m",
                 task->id, run, smax, task->s_start);
    } else if ((tr->status = sim_metrics_compute(&smp, &mt, &tr->m, &err)) != 0) {
        snprintf(tr->message, sizeof tr->message, "task %.60s, run %d: %.400s", task->id, run, err.msg);
    } else {
        tr->computed = true;
        if (!tr->m.started || tr->m.length <= 0) {
            tr->status = SIM_ENOTFOUND;
            snprintf(tr->message, sizeof tr->message,
                     "task %.60s never started in run %d: its samples begin at s = %.1f m, after "
                     "the task's start at s = %.1f m",
                     task->id, run, s[i0], task->s_start);
        } else if (!tr->m.ended) {
            tr->status = SIM_ERANGE;
            snprintf(tr->message, sizeof tr->message,
                     "task %.60s never ended in run %d: the samples stop at s = %.1f m, before "
                     "the task's end at s = %.1f m (metrics cover %.1f m)",
                     task->id, run, tr->m.s_end, task->s_end, tr->m.length);
        }
    }
    free(stim);
    free(btn);
    flag_suspect(dr, tr);
    count_collisions(dr, tr);
    return tr->status == SIM_ENOMEM ? SIM_ENOMEM : 0;
}

/* How each task's samples are found: by the logged task column when the drive has one
 * that names at least one of the scenario's tasks, or a road column naming the
 * scenario's roads (the recorder located every sample on them, so a task nobody's
 * sample carries was not driven), else by the task's s-range. The column is right on
 * networks where several roads share an s-range. Returns per task its label in the
 * drive (-1: no sample carries it) or BY_S_RANGE; NULL when out of memory. */
static int *task_labels(an_result *res, const an_drive *dr, const an_scenario *sc)
{
    int *labels = malloc((sc->n_tasks ? sc->n_tasks : 1) * sizeof *labels);
    bool *used = calloc(dr->n_labels ? dr->n_labels : 1, sizeof *used);
    if (!labels || !used) {
        free(labels);
        free(used);
        return NULL;
    }
    const int *id = dr->ids[AN_ID_TASK];
    bool any_id = false, match = false;
    for (size_t i = 0; id && i < dr->n; i++)
        if (id[i] >= 0) used[id[i]] = any_id = true;
    for (size_t k = 0; k < sc->n_tasks; k++) {
        int l = an_drive_label(dr, sc->tasks[k].id);
        labels[k] = l >= 0 && used[l] ? l : -1;
        match = match || labels[k] >= 0;
    }
    const int *road = dr->ids[AN_ID_ROAD];
    const sim_roadnet *net = &sc->world->net;
    for (int k = 0; road && !match && k < net->n_roads; k++) {
        int l = an_drive_label(dr, net->roads[k].id);
        for (size_t i = 0; l >= 0 && !match && i < dr->n; i++) match = road[i] == l;
    }
    if (!match) {
        for (size_t k = 0; k < sc->n_tasks; k++) labels[k] = BY_S_RANGE;
        size_t first = 0;
        while (any_id && id[first] < 0) first++;
        if (any_id && an_result_warn(res, "the log's task column names no task of scenario %s "
                                     "(first id '%.60s'): tasks are found by their s-range",
                                     sc->name, dr->labels[id[first]])) {
            free(labels);
            labels = NULL;
        }
    }
    free(used);
    return labels;
}

int an_compute(const an_drive *dr, const an_scenario *sc, an_result *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    out->drive = dr;
    out->scenario = sc;
    copy_meta(dr, "study", out->study, sizeof out->study, "");
    copy_meta(dr, "subject", out->subject, sizeof out->subject, "");
    snprintf(out->scenario_name, sizeof out->scenario_name, "%s", sc->name);
    int rc = 0;
    int *labels = NULL;
    if (dr->n < 2 && an_result_warn(out, "no samples: the drive has %zu sample%s", dr->n,
                                    dr->n == 1 ? "" : "s"))
        goto oom;
    static const int need[] = {AN_T, AN_S, AN_D};
    for (size_t q = 0; q < 3 && dr->n; q++) {
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < dr->n; i++)
            if (!isfinite(dr->col[need[q]][i]) && bad++ == 0) first = i;
        if (bad) {
            if (an_result_warn(out, "column %s is empty in %zu samples (first at row %zu): the "
                               "tasks holding them are not computed",
                               an_column_names[need[q]], bad, first + 1))
                goto oom;
        }
    }
    if (an_streams_read(out, dr)) goto oom;
    if (!(labels = task_labels(out, dr, sc))) goto oom;
    /* Runs: consecutive samples with the same run number. A drive without samples still
     * lists its tasks (as never started), so that a study table shows the gap. */
    size_t r0 = 0;
    if (dr->n == 0) {
        out->tasks = calloc(sc->n_tasks ? sc->n_tasks : 1, sizeof *out->tasks);
        if (!out->tasks) goto oom;
        for (size_t k = 0; k < sc->n_tasks; k++) {
            an_task_result *tr = &out->tasks[out->n_tasks++];
            if (task_in_run(out, dr, sc, &sc->tasks[k], BY_S_RANGE, 0, 0, 0, tr)) goto oom;
        }
    }
    while (r0 < dr->n) {
        size_t r1 = r0;
        int run = (int)dr->col[AN_RUN][r0];
        while (r1 < dr->n && (int)dr->col[AN_RUN][r1] == run) r1++;
        if (check_gaps(out, dr, run, r0, r1)) goto oom;
        an_task_result *nt = realloc(out->tasks, (out->n_tasks + sc->n_tasks) * sizeof *nt);
        if (!nt) goto oom;
        out->tasks = nt;
        for (size_t k = 0; k < sc->n_tasks; k++) {
            an_task_result *tr = &out->tasks[out->n_tasks++];
            rc = task_in_run(out, dr, sc, &sc->tasks[k], labels[k], run, r0, r1, tr);
            if (rc || (rc = an_measures_compute(out, sc, tr))) goto oom;
            if (tr->message[0] && an_result_warn(out, "%s", tr->message)) goto oom;
        }
        r0 = r1;
    }
    free(labels);
    return 0;
oom:
    free(labels);
    an_result_free(out);
    return sim_error_set(err, SIM_ENOMEM, "%s: out of memory computing metrics", dr->path);
}

/* ---- the metric table shared by tasks.csv, study.csv and the study page ---- */

typedef struct metric_def {
    const char *name;
    size_t offset; /* into sim_metrics_result; SIZE_MAX: computed below */
    char type;     /* 'd' double, 'z' size_t, 'b' bool */
} metric_def;

#define M(name, field, type) {name, offsetof(sim_metrics_result, field), type}
static const metric_def metrics[] = {
    M("started", started, 'b'),
    M("ended", ended, 'b'),
    M("s_start_m", s_start, 'd'),
    M("s_end_m", s_end, 'd'),
    M("t_start_s", t_start, 'd'),
    M("t_end_s", t_end, 'd'),
    M("length_m", length, 'd'),
    M("duration_s", duration, 'd'),
    M("n_samples", n_samples, 'z'),
    M("n_tube_events", n_tube_events, 'z'),
    M("n_mark_events", n_mark_events, 'z'),
    M("area_global_m2", area_global, 'd'),
    M("area_global_time_ms", area_global_time, 'd'),
    M("area_marks_m2", area_marks, 'd'),
    M("abs_e_integral_m2", abs_e_integral, 'd'),
    M("mdev_m", mdev, 'd'),
    M("max_abs_e_m", max_abs_e, 'd'),
    M("sdlp_m", sdlp, 'd'),
    M("speed_mean_ms", speed_mean, 'd'),
    M("speed_sd_ms", speed_sd, 'd'),
    M("speed_min_ms", speed_min, 'd'),
    M("speed_max_ms", speed_max, 'd'),
    M("time_over_limit_s", time_over_limit, 'd'),
    M("time_over_limit_margin_s", time_over_limit_margin, 'd'),
    M("headway_min_m", headway_min, 'd'),
    M("thw_min_s", thw_min, 'd'),
    M("ttc_min_s", ttc_min, 'd'),
    M("time_thw_below_1s_s", time_thw_below, 'd'),
    {"collisions", (size_t)-3, 'z'},
    M("n_stimuli", n_reactions, 'z'),
    {"rt_mean_s", (size_t)-1, 'd'},
    {"rt_max_s", (size_t)-2, 'd'},
};
#undef M

#define N_OWN (sizeof metrics / sizeof metrics[0])

/* The secondary-task measures (measures.c) follow the table's own columns. */
size_t an_metric_count(void)
{
    return N_OWN + an_measures_count();
}

const char *an_metric_name(size_t k)
{
    return k < N_OWN ? metrics[k].name : an_measures_name(k - N_OWN);
}

double an_metric_value(const an_task_result *tr, size_t k)
{
    if (k >= N_OWN) return tr->computed ? an_measures_value(tr, k - N_OWN) : NAN;
    const metric_def *md = &metrics[k];
    /* A task without samples has no measures, only the fact that it did not start. */
    if (!tr->computed) return md->type == 'b' ? 0 : NAN;
    const sim_metrics_result *m = &tr->m;
    if (md->offset == (size_t)-3) return (double)tr->collisions;
    if (md->offset >= (size_t)-2) {
        double sum = 0, mx = NAN;
        size_t n = 0;
        for (size_t q = 0; q < m->n_reactions; q++) {
            double rt = m->reactions[q].rt;
            if (isnan(rt)) continue;
            sum += rt;
            n++;
            if (isnan(mx) || rt > mx) mx = rt;
        }
        if (md->offset == (size_t)-1) return n ? sum / (double)n : NAN;
        return mx;
    }
    const char *p = (const char *)m + md->offset;
    switch (md->type) {
    case 'b': return *(const bool *)p ? 1 : 0;
    case 'z': return (double)*(const size_t *)p;
    default: return *(const double *)p;
    }
}
