/* measures: the secondary-task measures of each task (docs/metrics.md, "Secondary-task
 * measures"): DRT from the drt.stimulus / drt.response events, glances from gaze.sample
 * events, SuRT from surt.response events (the recorder logs these topics as events of
 * kind drt, gaze, surt; docs/drivelog.md), steering reversal rate from steer_wheel and
 * TLC from the road-frame path (s, d) and the marks of the lane the car is in. The
 * events are parsed once per drive (an_streams_read); each task takes those of its run
 * inside its time span. The computation itself is common/metrics (sim_measures.h). */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_msg_hmi.h"
#include "sim_msg_task.h"
#include "sim_gaze.h"

/* Areas of interest as gaze directions in the vehicle frame (yaw left +, pitch up +,
 * degrees) for a left-hand-drive car, after the regions commonly used with ISO 15007
 * (docs/metrics.md); the first that holds a direction wins, so the HUD comes before the
 * road ahead it overlaps. Samples naming an area use these names. */
static const sim_glance_aoi DEFAULT_AREAS[] = {
    {"road", -15, 15, -4, 12},          {"hud", -8, 8, -10, -4},
    {"mirror_left", 30, 60, -15, 5},    {"mirror_right", -65, -35, -15, 5},
    {"mirror_rear", -30, -12, 8, 22},   {"cluster", -10, 10, -28, -10},
    {"center_display", -40, -12, -40, -10},
};
#define N_DEFAULT (sizeof DEFAULT_AREAS / sizeof *DEFAULT_AREAS)
#define ROAD_AREA 0

static const double SRR_FC[AN_SRR_N] = {0.6, 2.0}, SRR_GAP[AN_SRR_N] = {3.0, 0.1};

void an_streams_free(an_streams *st)
{
    free(st->stim);
    free(st->resp);
    free(st->gaze);
    free(st->surt);
    memset(st, 0, sizeof *st);
}

static int area_index(an_streams *st, const char *name)
{
    for (size_t a = 0; a < st->n_areas; a++)
        if (!strcmp(st->areas[a].name, name)) return (int)a;
    if (st->n_areas >= SIM_GLANCE_AOI_MAX) return -1;
    sim_glance_aoi *a = &st->areas[st->n_areas];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->yaw_min = a->pitch_min = NAN; /* named only: no direction falls into it */
    a->yaw_max = a->pitch_max = NAN;
    return (int)st->n_areas++;
}

static bool kind_is(const an_event *e, const char *kind, const char *name)
{
    return !strcmp(e->kind, kind) && !strcmp(e->name, name);
}

/* One event into the streams; SIM_EINVAL when it does not decode, SIM_ENOMEM. */
static int read_one(an_streams *st, const an_event *e, size_t cap)
{
    cJSON *msg = e->json ? cJSON_Parse(e->json) : NULL;
    if (!msg) return SIM_EINVAL;
    sim_error err = {0};
    int rc = 0;
    if (kind_is(e, "drt", "stimulus")) {
        sim_msg_drt_stimulus m;
        if (!(rc = sim_msg_drt_stimulus_decode(msg, &m, &err))) {
            if (m.on) {
                st->stim[st->n_stim++] = (an_drt_stim){.run = e->run, .id = m.id, .t = e->t,
                    .t_off = NAN, .modality = sim_drt_modality_parse(m.modality), .angle_deg = m.angle_deg};
            } else {
                for (size_t k = st->n_stim; k-- > 0;)
                    if (st->stim[k].run == e->run && st->stim[k].id == m.id) {
                        st->stim[k].t_off = e->t;
                        break;
                    }
            }
        }
    } else if (kind_is(e, "drt", "response")) {
        sim_msg_drt_response m;
        if (!(rc = sim_msg_drt_response_decode(msg, &m, &err)))
            st->resp[st->n_resp++] = (an_stamp){.run = e->run, .t = e->t};
    } else if (kind_is(e, "gaze", "sample")) {
        sim_msg_gaze_sample m;
        if (!(rc = sim_msg_gaze_sample_decode(msg, &m, &err))) {
            int area = -1;
            if (m.area[0]) area = area_index(st, m.area);
            else if (m.valid) area = sim_glance_aoi_find(st->areas, st->n_defined, m.yaw_deg, m.pitch_deg);
            st->gaze[st->n_gaze++] = (an_gaze){.run = e->run, .t = e->t, .area = area, .valid = m.valid};
        }
    } else if (kind_is(e, "surt", "response")) {
        /* surt.response of the console's SuRT page (its one definition, sim_msg_hmi.h) */
        sim_msg_surt_response m;
        if (!(rc = sim_msg_surt_response_decode(msg, &m, &err)))
            st->surt[st->n_surt++] = (an_surt){.run = e->run, .t = e->t, .rt = m.rt_ms / 1000, .correct = m.correct};
    }
    (void)cap;
    cJSON_Delete(msg);
    return rc ? SIM_EINVAL : 0;
}

/* The areas of interest of the drive's car: the vehicle file's gaze_areas, which the
 * recorder keeps in meta (docs/instruments.md); the defaults above for a log without. */
static int drive_areas(an_result *res, const an_drive *dr)
{
    an_streams *st = &res->streams;
    const char *text = an_drive_meta(dr, "gaze_areas");
    if (!text) return 0;
    sim_gaze_area ga[SIM_GAZE_AREAS_MAX];
    size_t n = 0;
    sim_error err = {0};
    cJSON *v = cJSON_Parse(text);
    int rc = sim_gaze_areas_parse(v, "drive log meta gaze_areas", ga, SIM_GAZE_AREAS_MAX, &n, &err);
    cJSON_Delete(v);
    if (rc || n == 0)
        return an_result_warn(res, "the drive's gaze areas could not be read (%s): the default areas are used",
                              rc ? err.msg : "none given");
    int road = -1;
    for (size_t i = 0; i < n && i < SIM_GLANCE_AOI_MAX; i++) {
        sim_glance_aoi *a = &st->areas[i];
        snprintf(a->name, sizeof a->name, "%.31s", ga[i].name);
        a->yaw_min = ga[i].yaw_min, a->yaw_max = ga[i].yaw_max;
        a->pitch_min = ga[i].pitch_min, a->pitch_max = ga[i].pitch_max;
        if (road < 0 && !strcmp(ga[i].name, "road")) road = (int)i;
    }
    st->n_areas = st->n_defined = n < SIM_GLANCE_AOI_MAX ? n : SIM_GLANCE_AOI_MAX;
    if (road < 0) {
        st->road_area = 0;
        return an_result_warn(res, "the drive's gaze areas have none named \"road\": the first, \"%s\", is taken "
                              "as the road ahead", st->areas[0].name);
    }
    st->road_area = road;
    return 0;
}

int an_streams_read(an_result *res, const an_drive *dr)
{
    an_streams *st = &res->streams;
    memset(st, 0, sizeof *st);
    memcpy(st->areas, DEFAULT_AREAS, sizeof DEFAULT_AREAS);
    st->n_areas = st->n_defined = N_DEFAULT;
    st->road_area = ROAD_AREA;
    int arc = drive_areas(res, dr);
    if (arc) return arc;
    size_t n = 0;
    for (size_t k = 0; k < dr->n_events; k++) {
        const char *kd = dr->events[k].kind;
        n += !strcmp(kd, "drt") || !strcmp(kd, "gaze") || !strcmp(kd, "surt");
    }
    if (!n) return 0;
    st->stim = malloc(n * sizeof *st->stim);
    st->resp = malloc(n * sizeof *st->resp);
    st->gaze = malloc(n * sizeof *st->gaze);
    st->surt = malloc(n * sizeof *st->surt);
    if (!st->stim || !st->resp || !st->gaze || !st->surt) return SIM_ENOMEM;
    const an_event *first_bad = NULL;
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        if (strcmp(e->kind, "drt") && strcmp(e->kind, "gaze") && strcmp(e->kind, "surt")) continue;
        if (read_one(st, e, n) && st->bad++ == 0) first_bad = e;
    }
    if (first_bad &&
        an_result_warn(res, "%zu secondary-task event%s could not be read and %s left out "
                       "(the first: %s.%s at t = %.2f s in run %d, expected its topic's fields, "
                       "docs/protocol.md)", st->bad, st->bad > 1 ? "s" : "", st->bad > 1 ? "are" : "is",
                       first_bad->kind, first_bad->name, first_bad->t, first_bad->run))
        return SIM_ENOMEM;
    return 0;
}

void an_measures_free(an_measures *x)
{
    sim_drt_result_free(&x->drt);
    sim_glance_result_free(&x->glance);
    free(x->tlc_v);
    free(x->lct);
    memset(x, 0, sizeof *x);
}

/* Reversals over the finite stretches of the steering angle, summed. */
static int srr_task(const an_drive *dr, size_t i0, size_t n, an_measures *x)
{
    const double *st = dr->col[AN_STEER_WHEEL], *t = dr->col[AN_T];
    if (!st || n < 2) return 0;
    double *deg = malloc(n * sizeof *deg);
    if (!deg) return SIM_ENOMEM;
    for (int p = 0; p < AN_SRR_N; p++) {
        sim_srr_result *r = &x->srr[p];
        memset(r, 0, sizeof *r);
        r->rate = NAN;
    }
    size_t a = 0;
    while (a < n) {
        while (a < n && !isfinite(st[i0 + a])) a++;
        size_t b = a;
        while (b < n && isfinite(st[i0 + b])) deg[b - a] = st[i0 + b] * 180 / M_PI, b++;
        /* At least a second of data, whose rate comes from its span. */
        if (b - a > 7 && t[i0 + b - 1] - t[i0 + a] >= 1.0) {
            double fs = (double)(b - a - 1) / (t[i0 + b - 1] - t[i0 + a]);
            for (int p = 0; p < AN_SRR_N; p++) {
                sim_srr_result one;
                sim_error err = {0};
                int rc = fs > 2 * SRR_FC[p]
                             ? sim_srr_compute(deg, b - a, fs, SRR_FC[p], SRR_GAP[p], &one, &err)
                             : SIM_EINVAL;
                if (rc == SIM_ENOMEM) {
                    free(deg);
                    return rc;
                }
                if (rc) continue;
                x->srr[p].up += one.up;
                x->srr[p].down += one.down;
                x->srr[p].reversals += one.reversals;
                x->srr[p].duration += one.duration;
                x->has_srr = true;
            }
        }
        a = b;
    }
    for (int p = 0; p < AN_SRR_N; p++)
        if (x->srr[p].duration > 0) x->srr[p].rate = x->srr[p].reversals / x->srr[p].duration * 60;
    free(deg);
    return 0;
}

/* TLC per sample: heading and curvature relative to the road from the road-frame path
 * over +-K samples (0.1 s at 100 Hz), boundaries of the lane holding d. */
#define K 10
static int tlc_task(const an_scenario *sc, const an_drive *dr, const an_task_result *tr, an_measures *x)
{
    size_t i0 = tr->i0, n = tr->i1 - tr->i0;
    if (n < 2 * K + 3) return 0;
    const double *s = dr->col[AN_S] + i0, *d = dr->col[AN_D] + i0, *t = dr->col[AN_T] + i0,
                 *v = dr->col[AN_SPEED] + i0;
    sim_tlc_sample *smp = malloc(n * sizeof *smp);
    double *psi = malloc(n * sizeof *psi);
    x->tlc_v = malloc(n * sizeof *x->tlc_v);
    if (!smp || !psi || !x->tlc_v) {
        free(smp), free(psi);
        return SIM_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        size_t a = i >= K ? i - K : 0, b = i + K < n ? i + K : n - 1;
        double ds = s[b] - s[a];
        psi[i] = ds > 0.05 ? atan((d[b] - d[a]) / ds) : NAN;
    }
    double ml = NAN, mr = NAN;
    for (size_t i = 0; i < n; i++) {
        size_t a = i >= K ? i - K : 0, b = i + K < n ? i + K : n - 1;
        double ds = s[b] - s[a];
        double kappa = ds > 0.05 ? (psi[b] - psi[a]) / ds : NAN;
        /* The marks change only where the lane does: look up again every 10 samples, and
         * at once when the centre leaves the lane. */
        if (i % 10 == 0 || !(d[i] < ml && d[i] > mr)) an_scenario_marks(sc, tr->task->road, s[i], d[i], &ml, &mr);
        smp[i] = (sim_tlc_sample){.t = t[i], .d = d[i], .psi = psi[i], .kappa = kappa,
                                  .v = v ? v[i] : NAN, .left = ml, .right = mr};
    }
    sim_tlc_params p;
    sim_tlc_params_init(&p);
    p.width = sc->vehicle_width;
    sim_error err = {0};
    int rc = sim_tlc_compute(smp, n, &p, x->tlc_v, NULL, &x->tlc, &err);
    free(smp), free(psi);
    if (rc == SIM_ENOMEM) return rc;
    /* A task driven dead straight has TLC infinite throughout: still a TLC (its minimum
     * is null), so the figure shows it. */
    x->has_tlc = false;
    for (size_t i = 0; rc == 0 && i < n && !x->has_tlc; i++) x->has_tlc = !isnan(x->tlc_v[i]);
    if (rc) x->tlc = (sim_tlc_summary){.min = NAN, .min_first_order = NAN, .minima_mean = NAN};
    return 0;
}
#undef K

/* Index range [a, b) of items of run whose time lies in [t0, t1] (items ordered by run,
 * then time, as the log's events are). */
#define RANGE(arr, count, run_, t0, t1, a, b)                                                  \
    do {                                                                                      \
        a = 0;                                                                                \
        while (a < (count) && ((arr)[a].run != (run_) || (arr)[a].t < (t0))) a++;             \
        b = a;                                                                                \
        while (b < (count) && (arr)[b].run == (run_) && (arr)[b].t <= (t1)) b++;              \
    } while (0)

static int drt_task(const an_streams *st, const an_task_result *tr, double t0, double t1,
                    an_measures *x)
{
    size_t a, b, ra, rb;
    RANGE(st->stim, st->n_stim, tr->run, t0, t1, a, b);
    if (a == b) return 0;
    sim_drt_params p;
    sim_drt_params_init(&p);
    /* Responses up to the last stimulus' window, so the task's last stimulus can hit. */
    RANGE(st->resp, st->n_resp, tr->run, t0, t1 + p.rt_max, ra, rb);
    sim_drt_stimulus *s = malloc((b - a) * sizeof *s);
    double *r = malloc((rb - ra + 1) * sizeof *r);
    if (!s || !r) {
        free(s), free(r);
        return SIM_ENOMEM;
    }
    size_t ns = 0;
    for (size_t k = a; k < b; k++)
        if (st->stim[k].modality >= 0) s[ns++] = (sim_drt_stimulus){st->stim[k].t, st->stim[k].modality};
    for (size_t k = ra; k < rb; k++) r[k - ra] = st->resp[k].t;
    sim_error err = {0};
    int rc = sim_drt_compute(s, ns, r, rb - ra, &p, &x->drt, &err);
    free(s), free(r);
    if (rc == SIM_ENOMEM) return rc;
    x->has_drt = rc == 0;
    x->drt_first = a;
    return 0;
}

static int gaze_task(const an_streams *st, const an_task_result *tr, double t0, double t1,
                     an_measures *x)
{
    size_t a, b;
    RANGE(st->gaze, st->n_gaze, tr->run, t0, t1, a, b);
    if (a == b) return 0;
    sim_gaze_sample *g = malloc((b - a) * sizeof *g);
    if (!g) return SIM_ENOMEM;
    for (size_t k = a; k < b; k++)
        g[k - a] = (sim_gaze_sample){.t = st->gaze[k].t, .area = st->gaze[k].area, .valid = st->gaze[k].valid};
    sim_glance_params p;
    sim_glance_params_init(&p);
    p.road_area = st->road_area;
    sim_error err = {0};
    int rc = sim_glance_compute(g, b - a, st->n_areas, &p, &x->glance, &err);
    free(g);
    if (rc == SIM_ENOMEM) return rc;
    x->has_gaze = rc == 0;
    return 0;
}

static int surt_task(const an_streams *st, const an_task_result *tr, double t0, double t1,
                     an_measures *x)
{
    size_t a, b;
    RANGE(st->surt, st->n_surt, tr->run, t0, t1, a, b);
    if (a == b) return 0;
    sim_surt_response *r = malloc((b - a) * sizeof *r);
    if (!r) return SIM_ENOMEM;
    for (size_t k = a; k < b; k++)
        r[k - a] = (sim_surt_response){.t = st->surt[k].t, .correct = st->surt[k].correct, .rt = st->surt[k].rt};
    sim_surt_compute(r, b - a, &x->surt);
    free(r);
    x->has_surt = true;
    return 0;
}

int an_measures_compute(const an_result *res, const an_scenario *sc, an_task_result *tr)
{
    an_measures *x = &tr->x;
    memset(x, 0, sizeof *x);
    x->mdev_adaptive = NAN;
    if (!tr->computed || tr->i1 - tr->i0 < 2) return 0;
    const an_drive *dr = res->drive;
    double t0 = dr->col[AN_T][tr->i0], t1 = dr->col[AN_T][tr->i1 - 1];
    int rc;
    if ((rc = srr_task(dr, tr->i0, tr->i1 - tr->i0, x)) || (rc = tlc_task(sc, dr, tr, x)) ||
        (rc = drt_task(&res->streams, tr, t0, t1, x)) || (rc = gaze_task(&res->streams, tr, t0, t1, x)) ||
        (rc = surt_task(&res->streams, tr, t0, t1, x)) || (rc = an_lct_task(res, sc, tr)))
        return rc;
    return 0;
}

/* ---- the columns ---- */

enum {
    V_DRT_STIMULI, V_DRT_HITS, V_DRT_MISSES, V_DRT_EARLY, V_DRT_HIT_RATE, V_DRT_RT_MEAN,
    V_DRT_RT_MEDIAN, V_DRT_MOD, /* then hit rate and RT mean per modality */
    V_SRR = V_DRT_MOD + 2 * SIM_DRT_NMODALITIES,
    V_TLC = V_SRR + AN_SRR_N, /* min, min first order, time below 1 s, minima mean */
    V_GLANCE = V_TLC + 4,     /* off-road count, eyes off road, > 2 s, p85, mean, nhtsa, lost */
    V_AREAS = V_GLANCE + 7,   /* count and total per default area */
    V_SURT = V_AREAS + 2 * (int)N_DEFAULT, /* responses, correct rate, rt mean, rt median */
    V_LCT = V_SURT + 4,       /* lane changes, MDEV against the adaptive model */
    V_COUNT = V_LCT + 2
};

size_t an_measures_count(void) { return V_COUNT; }

const char *an_measures_name(size_t k)
{
    static const char *const names[V_COUNT] = {
        "drt_stimuli", "drt_hits", "drt_misses", "drt_early", "drt_hit_rate", "drt_rt_mean_s",
        "drt_rt_median_s",
        "drt_visual_hit_rate", "drt_visual_rt_mean_s", "drt_tactile_hit_rate",
        "drt_tactile_rt_mean_s", "drt_auditory_hit_rate", "drt_auditory_rt_mean_s",
        "srr_0_6hz_3deg_per_min", "srr_2hz_0_1deg_per_min",
        "tlc_min_s", "tlc_first_order_min_s", "tlc_below_1s_s", "tlc_minima_mean_s",
        "glances_off_road", "eyes_off_road_s", "glances_over_2s", "glance_off_road_p85_s",
        "glance_off_road_mean_s", "nhtsa_glance_pass", "gaze_lost_s",
        "glances_road_n", "glances_road_s", "glances_hud_n", "glances_hud_s",
        "glances_mirror_left_n", "glances_mirror_left_s", "glances_mirror_right_n",
        "glances_mirror_right_s", "glances_mirror_rear_n", "glances_mirror_rear_s",
        "glances_cluster_n", "glances_cluster_s", "glances_center_display_n",
        "glances_center_display_s",
        "surt_responses", "surt_correct_rate", "surt_rt_mean_s", "surt_rt_median_s",
        "lct_changes", "mdev_adaptive_m"};
    _Static_assert(sizeof names / sizeof *names == V_COUNT, "one name per column");
    return k < V_COUNT ? names[k] : NULL;
}

double an_measures_value(const an_task_result *tr, size_t k)
{
    const an_measures *x = &tr->x;
    if (k < V_SRR) {
        if (!x->has_drt) return NAN;
        const sim_drt_summary *s = &x->drt.all;
        if (k >= V_DRT_MOD) {
            s = &x->drt.by_modality[(k - V_DRT_MOD) / 2];
            if (!s->stimuli) return NAN;
            return (k - V_DRT_MOD) % 2 ? s->rt_mean : s->hit_rate;
        }
        const double v[] = {(double)s->stimuli, (double)s->hits, (double)s->misses, (double)s->early,
                            s->hit_rate, s->rt_mean, s->rt_median};
        return v[k];
    }
    if (k < V_TLC) return x->has_srr ? x->srr[k - V_SRR].rate : NAN;
    if (k < V_GLANCE) {
        if (!x->has_tlc) return NAN;
        const double v[] = {x->tlc.min, x->tlc.min_first_order, x->tlc.time_below, x->tlc.minima_mean};
        return v[k - V_TLC];
    }
    if (k < V_SURT) {
        if (!x->has_gaze) return NAN;
        const sim_glance_result *g = &x->glance;
        if (k >= V_AREAS) {
            const sim_glance_area_summary *a = &g->area[(k - V_AREAS) / 2];
            return (k - V_AREAS) % 2 ? a->total : (double)a->count;
        }
        const double v[] = {(double)g->off_road_count, g->eyes_off_road, (double)g->long_glances,
                            g->off_road_p85, g->off_road_mean, g->nhtsa_pass ? 1 : 0, g->lost};
        return v[k - V_GLANCE];
    }
    if (k >= V_LCT && k < V_COUNT) {
        if (!x->n_lct) return NAN;
        return k == V_LCT ? (double)x->n_lct : x->mdev_adaptive;
    }
    if (k < V_LCT) {
        if (!x->has_surt) return NAN;
        const double v[] = {(double)x->surt.responses, x->surt.correct_rate, x->surt.rt_mean,
                            x->surt.rt_median};
        return v[k - V_SURT];
    }
    return NAN;
}

/* ---- metrics.json: what the columns leave out ---- */

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

cJSON *an_measures_json(const an_result *res, const an_task_result *tr)
{
    const an_measures *x = &tr->x;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    if (x->has_drt) {
        cJSON *d = cJSON_AddObjectToObject(o, "drt");
        add_num(d, "extra", (double)x->drt.all.extra);
        cJSON *st = cJSON_AddArrayToObject(d, "stimuli");
        size_t j = 0;
        for (size_t q = x->drt_first; q < res->streams.n_stim && j < x->drt.n; q++) {
            const an_drt_stim *s = &res->streams.stim[q];
            if (s->run != tr->run || s->modality < 0) continue;
            cJSON *e = cJSON_CreateObject();
            add_num(e, "t_s", s->t);
            cJSON_AddStringToObject(e, "modality", sim_drt_modality_name(s->modality));
            cJSON_AddStringToObject(e, "outcome", x->drt.outcome[j] == SIM_DRT_HIT ? "hit" : "miss");
            add_num(e, "rt_s", x->drt.rt[j]);
            cJSON_AddItemToArray(st, e);
            j++;
        }
    }
    if (x->has_srr) {
        cJSON *r = cJSON_AddObjectToObject(o, "steering_reversals");
        static const char *const key[AN_SRR_N] = {"0.6Hz_3deg", "2Hz_0.1deg"};
        for (int p = 0; p < AN_SRR_N; p++) {
            cJSON *e = cJSON_AddObjectToObject(r, key[p]);
            add_num(e, "up", (double)x->srr[p].up);
            add_num(e, "down", (double)x->srr[p].down);
            add_num(e, "duration_s", x->srr[p].duration);
            add_num(e, "per_min", x->srr[p].rate);
        }
    }
    if (x->has_gaze) {
        cJSON *g = cJSON_AddObjectToObject(o, "glances");
        add_num(g, "off_road_share_over_2s", x->glance.long_share);
        cJSON *areas = cJSON_AddObjectToObject(g, "areas");
        for (size_t a = 0; a < res->streams.n_areas; a++) {
            const sim_glance_area_summary *s = &x->glance.area[a];
            cJSON *e = cJSON_AddObjectToObject(areas, res->streams.areas[a].name);
            add_num(e, "count", (double)s->count);
            add_num(e, "total_s", s->total);
            add_num(e, "mean_s", s->mean);
            add_num(e, "max_s", s->count ? s->max : NAN);
        }
    }
    if (x->n_lct) {
        cJSON *l = cJSON_AddObjectToObject(o, "lane_change_test");
        add_num(l, "baseline_changes", res->scenario->lct_profile ? (double)res->scenario->lct_profile->n_changes : 0);
        add_num(l, "mdev_adaptive_m", x->mdev_adaptive);
        cJSON *segs = cJSON_AddArrayToObject(l, "segments");
        for (size_t k = 0; k < x->n_lct; k++) {
            const an_lct_segment *g = &x->lct[k];
            cJSON *e = cJSON_CreateObject();
            add_num(e, "s_start_m", g->s_start);
            add_num(e, "s_end_m", g->s_end);
            add_num(e, "d_from_m", g->d_from);
            add_num(e, "d_to_m", g->d_to);
            add_num(e, "mdev_normative_m", g->mdev_normative);
            add_num(e, "mdev_adaptive_m", g->mdev_adaptive);
            cJSON_AddItemToArray(segs, e);
        }
    }
    if (x->has_surt) {
        cJSON *s = cJSON_AddObjectToObject(o, "surt");
        add_num(s, "correct", (double)x->surt.correct);
        add_num(s, "per_min", x->surt.rate);
    }
    return o;
}
