/* tor: the take-over requests of a drive: each TOR's measures (sim_metrics_tor) from
 * the automation's events and the samples, as tor.csv and tor.json, a figure around
 * each TOR (tor-r<run>-<k>.png/.svg) and a section of report.html (docs/metrics.md,
 * "Take-over requests"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analysis.h"
#include "plot.h"
#include "sim_metrics_tor.h"

#define TOR_WINDOW_S 30.0 /* the measures look this long after a TOR at most */
#define PLOT_BEFORE_S 5.0 /* the figure starts this long before the TOR */

typedef struct an_tor {
    int run;
    char reason[48];
    sim_tor_events ev;
    sim_tor_result r;
    size_t s0;      /* first sample of the run (the result's indices are from here) */
} an_tor;

static bool is(const an_event *e, const char *kind, const char *name)
{
    return strcmp(e->kind, kind) == 0 && strcmp(e->name, name) == 0;
}

static double json_num(const char *json, const char *key)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    cJSON_Delete(o);
    return x;
}

static void json_str(const char *json, const char *key, char *out, size_t n)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(out, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
    cJSON_Delete(o);
}

static bool json_true(const char *json, const char *key)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    bool b = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
    cJSON_Delete(o);
    return b;
}

/* The samples of run: [*s0, *s1). */
static void run_range(const an_drive *dr, int run, size_t *s0, size_t *s1)
{
    size_t i = 0;
    while (i < dr->n && (int)dr->col[AN_RUN][i] != run) i++;
    *s0 = i;
    while (i < dr->n && (int)dr->col[AN_RUN][i] == run) i++;
    *s1 = i;
}

static sim_tor_samples samples_of(const an_drive *dr, size_t s0, size_t s1)
{
    return (sim_tor_samples){.n = s1 - s0, .t = dr->col[AN_T] + s0, .speed = dr->col[AN_SPEED] + s0,
                             .accel = dr->col[AN_ACCEL] ? dr->col[AN_ACCEL] + s0 : NULL,
                             .yaw_rate = dr->col[AN_YAW_RATE] ? dr->col[AN_YAW_RATE] + s0 : NULL,
                             .headway = dr->col[AN_HEADWAY_DIST] + s0,
                             .lane = dr->col[AN_LANE] ? dr->col[AN_LANE] + s0 : NULL,
                             .brake = dr->col[AN_BRAKE] + s0};
}

/* Every TOR of the drive with its measures; *out is malloc'd (free it). */
static int find_tors(const an_drive *dr, an_tor **out, size_t *n_out, sim_error *err)
{
    *out = NULL, *n_out = 0;
    size_t n = 0;
    for (size_t k = 0; k < dr->n_events; k++) n += is(&dr->events[k], "automation", "tor");
    if (n == 0) return SIM_OK;
    an_tor *tors = calloc(n, sizeof *tors);
    if (!tors) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    bool mapped = false;
    for (size_t k = 0; k < dr->n_events; k++) mapped |= is(&dr->events[k], "button", "hands_on");
    size_t m = 0;
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        if (!is(e, "automation", "tor")) continue;
        an_tor *x = &tors[m++];
        x->run = e->run;
        json_str(e->json, "reason", x->reason, sizeof x->reason);
        for (char *q = x->reason; *q; q++) /* it goes into HTML and CSV as it is */
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_' || *q == '-'))
                *q = '_';
        sim_tor_events *ev = &x->ev;
        *ev = (sim_tor_events){.t_tor = e->t, .t_handover = NAN, .takeover_s = NAN, .t_mrm = NAN,
                               .t_mrm_stopped = NAN, .t_hands_on = NAN, .hands_on_mapped = mapped,
                               .t_end = e->t + TOR_WINDOW_S};
        /* The hands' state at the TOR: the latest hands_on event before it. */
        for (size_t j = 0; j < k; j++)
            if (dr->events[j].run == e->run && is(&dr->events[j], "button", "hands_on"))
                ev->hands_on_at_tor = json_true(dr->events[j].json, "pressed");
        for (size_t j = k + 1; j < dr->n_events; j++) {
            const an_event *f = &dr->events[j];
            if (f->run != e->run || f->t > ev->t_end) break;
            if (is(f, "automation", "tor")) {
                ev->t_end = f->t;
                break;
            }
            if (is(f, "automation", "handover") && isnan(ev->t_handover)) {
                ev->t_handover = f->t;
                ev->takeover_s = json_num(f->json, "takeover_s");
            } else if (is(f, "automation", "mrm") && isnan(ev->t_mrm)) {
                ev->t_mrm = f->t;
            } else if (is(f, "automation", "mrm_stopped") && isnan(ev->t_mrm_stopped)) {
                ev->t_mrm_stopped = f->t;
            } else if (is(f, "button", "hands_on") && isnan(ev->t_hands_on) && json_true(f->json, "pressed")) {
                ev->t_hands_on = f->t;
            }
        }
        size_t s1;
        run_range(dr, e->run, &x->s0, &s1);
        if (s1 > x->s0 && dr->col[AN_T][s1 - 1] < ev->t_end) ev->t_end = fmax(ev->t_tor, dr->col[AN_T][s1 - 1]);
        sim_tor_samples smp = samples_of(dr, x->s0, s1);
        if (smp.n == 0 || sim_metrics_tor(&smp, ev, &x->r, err)) memset(&x->r, 0, sizeof x->r), x->r.takeover_time = NAN;
    }
    *out = tors, *n_out = m;
    return SIM_OK;
}

/* ---- tables -------------------------------------------------------------------------- */

static const char *const COLS[] = {"takeover_time_s", "hands_on_time_s", "lane_change_time_s", "brake_time_s",
                                   "manoeuvre_time_s", "max_lat_accel", "max_long_accel", "min_long_accel",
                                   "min_ttc_s", "min_thw_s"};
enum { N_COLS = sizeof COLS / sizeof *COLS };

static void values(const sim_tor_result *r, double *v)
{
    const double x[N_COLS] = {r->takeover_time, r->hands_on_time, r->lane_change_time, r->brake_time,
                              r->manoeuvre_time, r->max_lat_accel, r->max_long_accel, r->min_long_accel,
                              r->min_ttc, r->min_thw};
    memcpy(v, x, sizeof x);
}

static int write_tables(const an_tor *tors, size_t n, const char *dir, sim_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/tor.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot write", path);
    fputs("run,tor,t,reason", f);
    for (int c = 0; c < N_COLS; c++) fprintf(f, ",%s", COLS[c]);
    fputs(",mrm,mrm_stopped\n", f);
    cJSON *arr = cJSON_CreateArray();
    for (size_t k = 0; k < n; k++) {
        const an_tor *x = &tors[k];
        double v[N_COLS];
        values(&x->r, v);
        fprintf(f, "%d,%zu,%.2f,", x->run, k + 1, x->ev.t_tor);
        sim_csv_field(f, x->reason);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "run", x->run);
        cJSON_AddNumberToObject(o, "t", x->ev.t_tor);
        cJSON_AddStringToObject(o, "reason", x->reason);
        for (int c = 0; c < N_COLS; c++) {
            if (isfinite(v[c])) fprintf(f, ",%.3f", v[c]);
            else fputs(",", f);
            if (isfinite(v[c])) cJSON_AddNumberToObject(o, COLS[c], v[c]);
            else cJSON_AddNullToObject(o, COLS[c]);
        }
        fprintf(f, ",%d,%d\n", x->r.mrm, x->r.mrm_stopped);
        cJSON_AddBoolToObject(o, "mrm", x->r.mrm);
        cJSON_AddBoolToObject(o, "mrm_stopped", x->r.mrm_stopped);
        cJSON_AddItemToArray(arr, o);
    }
    int rc = fclose(f) ? sim_error_set(err, SIM_EIO, "%s: write failed", path) : SIM_OK;
    char *text = cJSON_Print(arr);
    cJSON_Delete(arr);
    snprintf(path, sizeof path, "%s/tor.json", dir);
    if (!rc && (!text || !(f = fopen(path, "w")))) rc = sim_error_set(err, SIM_EIO, "%s: cannot write", path);
    if (!rc) {
        fprintf(f, "%s\n", text);
        if (fclose(f)) rc = sim_error_set(err, SIM_EIO, "%s: write failed", path);
    }
    free(text);
    return rc;
}

/* ---- the figure around a TOR ----------------------------------------------------------- */

static void vline(axes *a, double t, rgb c, int dashed)
{
    if (!isfinite(t) || t < a->x0 || t > a->x1) return;
    cairo_t *cr = a->cr;
    plot_set_rgb(cr, c);
    double d[] = {5, 4};
    cairo_set_dash(cr, d, dashed ? 2 : 0, 0);
    cairo_move_to(cr, plot_ax_px(a, t), a->y);
    cairo_line_to(cr, plot_ax_px(a, t), a->y + a->h);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

static int plot_tor(const an_drive *dr, const an_tor *x, size_t k, const char *path, an_format fmt, sim_error *err)
{
    size_t s0, s1;
    run_range(dr, x->run, &s0, &s1);
    double ta = x->ev.t_tor - PLOT_BEFORE_S, tb = fmax(x->ev.t_end, x->ev.t_tor + 1);
    size_t i0 = s0, i1;
    while (i0 < s1 && dr->col[AN_T][i0] < ta) i0++;
    i1 = i0;
    while (i1 < s1 && dr->col[AN_T][i1] <= tb) i1++;
    size_t n = i1 - i0;
    if (n < 2) return sim_error_set(err, SIM_EINVAL, "%s: TOR %zu has no samples to plot", path, k + 1);
    double *buf = malloc(6 * n * sizeof *buf);
    if (!buf) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    double *t = buf, *kmh = buf + n, *deg = buf + 2 * n, *lat = buf + 3 * n, *lon = buf + 4 * n, *hw = buf + 5 * n;
    for (size_t i = 0; i < n; i++) {
        size_t j = i0 + i;
        t[i] = dr->col[AN_T][j] - x->ev.t_tor;
        kmh[i] = dr->col[AN_SPEED][j] * 3.6;
        deg[i] = dr->col[AN_STEER_WHEEL][j] * 180 / M_PI;
        lat[i] = dr->col[AN_YAW_RATE] ? dr->col[AN_YAW_RATE][j] * dr->col[AN_SPEED][j] : NAN;
        lon[i] = dr->col[AN_ACCEL] ? dr->col[AN_ACCEL][j] : NAN;
        hw[i] = dr->col[AN_HEADWAY_DIST][j];
    }
    const double W = 1000, H = 760;
    canvas cv;
    int rc = plot_canvas_open(&cv, path, fmt, W, H, err);
    if (rc) {
        free(buf);
        return rc;
    }
    cairo_t *cr = cv.cr;
    char txt[200];
    snprintf(txt, sizeof txt, "TOR %zu (run %d, t = %.2f s, %s): take-over time %.2f s%s", k + 1, x->run,
             x->ev.t_tor, x->reason, x->r.takeover_time, x->r.mrm ? ", minimal-risk manoeuvre" : "");
    plot_title(cr, 70, 12, txt);
    {
        const char *labels[] = {"TOR", "hand-over", "MRM", "brake", "throttle", "lateral", "longitudinal"};
        rgb cols[] = {C_SEVERE, C_IDEAL, C_TRIGGER, C_BRAKE, C_THROTTLE, C_TRIGGER, C_DRIVEN};
        int st[] = {0, 0, 1, 0, 0, 0, 0};
        plot_legend(cr, 70, 38, labels, cols, st, 7);
    }
    enum { P_SPEED, P_HEAD, P_STEER, P_PEDAL, P_ACC, NP };
    const char *ylab[NP] = {"speed (km/h)", "headway (m)", "steering wheel (\xc2\xb0)", "pedals (0..1)",
                            "acceleration (m/s\xc2\xb2)"};
    const double *series[NP] = {kmh, hw, deg, NULL, lon};
    double top = 84, bottom = 56, gap = 10, ph = (H - top - bottom - gap * (NP - 1)) / NP;
    axes ax[NP];
    for (int p = 0; p < NP; p++) {
        double lo = INFINITY, hi = -INFINITY;
        if (p == P_PEDAL) lo = 0, hi = 1;
        else plot_range_of(series[p], n, &lo, &hi);
        if (p == P_ACC) plot_range_of(lat, n, &lo, &hi);
        if ((p == P_SPEED || p == P_HEAD) && lo > 0) lo = 0;
        if (!(hi >= lo)) lo = 0, hi = 1;
        if (p != P_PEDAL) plot_nice_range(&lo, &hi, 4);
        ax[p] = (axes){cr, 70, top + p * (ph + gap), W - 70 - 24, ph, t[0], t[n - 1], lo, hi};
        plot_axes_draw(&ax[p], p == NP - 1 ? "time since the TOR (s)" : NULL, ylab[p], p == NP - 1, 12, 4);
    }
    for (int p = 0; p < NP; p++) {
        axes *a = &ax[p];
        plot_axes_clip(a);
        cairo_set_line_width(cr, 1.5);
        vline(a, 0, C_SEVERE, 0);
        vline(a, x->ev.t_handover - x->ev.t_tor, C_IDEAL, 0);
        vline(a, x->ev.t_mrm - x->ev.t_tor, C_TRIGGER, 1);
        plot_set_rgb(cr, C_DRIVEN);
        if (p == P_PEDAL) {
            plot_set_rgb(cr, C_BRAKE);
            plot_polyline(a, t, dr->col[AN_BRAKE] + i0, n);
            plot_set_rgb(cr, C_THROTTLE);
            plot_polyline(a, t, dr->col[AN_THROTTLE] + i0, n);
        } else {
            plot_polyline(a, t, series[p], n);
            if (p == P_ACC) {
                plot_set_rgb(cr, C_TRIGGER);
                plot_polyline(a, t, lat, n);
            }
        }
        cairo_reset_clip(cr);
    }
    free(buf);
    return plot_canvas_close(&cv, err);
}

int an_tor_write(const an_result *res, const char *dir, bool plots, sim_error *err)
{
    an_tor *tors;
    size_t n;
    int rc = find_tors(res->drive, &tors, &n, err);
    if (rc || n == 0) return rc;
    rc = write_tables(tors, n, dir, err);
    for (size_t k = 0; !rc && plots && k < n; k++) {
        char path[4200];
        for (int f = 0; !rc && f < 2; f++) {
            snprintf(path, sizeof path, "%s/tor-r%d-%zu.%s", dir, tors[k].run, k + 1, f ? "svg" : "png");
            rc = plot_tor(res->drive, &tors[k], k, path, f ? AN_SVG : AN_PNG, err);
        }
    }
    free(tors);
    return rc;
}

void an_tor_html(FILE *f, const an_result *res, bool plots)
{
    an_tor *tors;
    size_t n;
    sim_error err = {0};
    if (find_tors(res->drive, &tors, &n, &err) || n == 0) return;
    fputs("<h2>Take-over requests</h2>\n<p>Measures as defined in docs/metrics.md (tor.csv, tor.json).</p>\n"
          "<table><tr><th>#</th><th>run</th><th>t (s)</th><th class=\"l\">reason</th>", f);
    for (int c = 0; c < N_COLS; c++) fprintf(f, "<th>%s</th>", COLS[c]);
    fputs("<th>MRM</th><th>stopped</th></tr>\n", f);
    for (size_t k = 0; k < n; k++) {
        double v[N_COLS];
        values(&tors[k].r, v);
        fprintf(f, "<tr><td>%zu</td><td>%d</td><td>%.2f</td><td class=\"l\">%s</td>", k + 1, tors[k].run,
                tors[k].ev.t_tor, tors[k].reason);
        for (int c = 0; c < N_COLS; c++) {
            if (isfinite(v[c])) fprintf(f, "<td>%.2f</td>", v[c]);
            else fputs("<td>&ndash;</td>", f);
        }
        fprintf(f, "<td>%s</td><td>%s</td></tr>\n", tors[k].r.mrm ? "yes" : "no", tors[k].r.mrm_stopped ? "yes" : "no");
    }
    fputs("</table>\n", f);
    for (size_t k = 0; plots && k < n; k++)
        fprintf(f, "<p><img src=\"tor-r%d-%zu.png\" alt=\"around TOR %zu\"><br><span class=\"muted\">vector: "
                   "<a href=\"tor-r%d-%zu.svg\">tor-r%d-%zu.svg</a></span></p>\n",
                tors[k].run, k + 1, k + 1, tors[k].run, k + 1, tors[k].run, k + 1);
    free(tors);
}
