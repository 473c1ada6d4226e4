/* report: the outputs of one drive: metrics.json, tasks.csv, events.csv, the figures
 * (PNG and SVG) and report.html, a single page that shows it all and needs nothing but
 * the files beside it (no network, no scripts). */
#include "sim_file.h"
#include "sim_sha256.h"
#include "analysis.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>

/* A file-name-safe copy of s. */
static void safe_name(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 1 < n; s++)
        out[k++] = (isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.') ? *s : '_';
    out[k] = 0;
}

static void put_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.10g", v);
}

static cJSON *num_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static const char *kind_name(int kind)
{
    return kind == SIM_METRICS_MARK ? "lane_mark" : "tube";
}

static cJSON *event_json(const sim_metrics_event *ev)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", kind_name(ev->kind));
    cJSON_AddBoolToObject(o, "severe", ev->kind == SIM_METRICS_MARK);
    cJSON_AddStringToObject(o, "side", ev->side > 0 ? "left" : "right");
    cJSON_AddItemToObject(o, "s_start_m", num_or_null(ev->s_start));
    cJSON_AddItemToObject(o, "s_end_m", num_or_null(ev->s_end));
    cJSON_AddItemToObject(o, "t_start_s", num_or_null(ev->t_start));
    cJSON_AddItemToObject(o, "t_end_s", num_or_null(ev->t_end));
    cJSON_AddItemToObject(o, "length_m", num_or_null(ev->s_end - ev->s_start));
    cJSON_AddItemToObject(o, "duration_s", num_or_null(ev->t_end - ev->t_start));
    cJSON_AddItemToObject(o, "area_m2", num_or_null(ev->area));
    cJSON_AddItemToObject(o, "area_time_ms", num_or_null(ev->area_time));
    cJSON_AddItemToObject(o, "max_abs_e_m", num_or_null(ev->max_abs_e));
    cJSON_AddItemToObject(o, "s_max_m", num_or_null(ev->s_max));
    cJSON_AddBoolToObject(o, "open_start", ev->open_start);
    cJSON_AddBoolToObject(o, "open_end", ev->open_end);
    return o;
}

static int write_json(const an_result *res, const char *path, sim_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *drive = cJSON_AddObjectToObject(root, "drive");
    cJSON_AddStringToObject(drive, "log", res->drive->path ? res->drive->path : "");
    cJSON_AddStringToObject(drive, "study", res->study);
    cJSON_AddStringToObject(drive, "subject", res->subject);
    cJSON_AddStringToObject(drive, "scenario", res->scenario_name);
    cJSON_AddNumberToObject(drive, "samples", (double)res->drive->n);
    cJSON *meta = cJSON_AddObjectToObject(drive, "meta");
    for (size_t k = 0; k < res->drive->n_meta; k++)
        cJSON_AddStringToObject(meta, res->drive->meta_key[k], res->drive->meta_val[k]);
    cJSON *sens = an_sensors_json(res, NULL);
    if (sens) cJSON_AddItemToObject(drive, "sensors", sens);
    if (res->drive->n_latency) { /* docs/latency.md */
        an_latency_summary ls;
        an_latency_summarise(res->drive->latency, res->drive->n_latency, &ls);
        cJSON *lat = cJSON_AddObjectToObject(drive, "latency");
        cJSON_AddNumberToObject(lat, "frames", (double)ls.frames);
        cJSON_AddItemToObject(lat, "median_ms", num_or_null(ls.median_ms));
        cJSON_AddItemToObject(lat, "p95_ms", num_or_null(ls.p95_ms));
        cJSON_AddItemToObject(lat, "max_ms", num_or_null(ls.max_ms));
        static const char *const st[7] = {"device_ms", "input_ms", "step_ms", "physics_ms", "wait_ms", "draw_ms",
                                          "swap_ms"};
        for (int k = 0; k < 7; k++) cJSON_AddItemToObject(lat, st[k], num_or_null(ls.stage_ms[k]));
    }
    if (res->drive->motion && res->drive->motion_fid) { /* docs/motion.md */
        cJSON *mo = an_motion_json(res->drive->motion, res->drive->motion_fid);
        if (mo) cJSON_AddItemToObject(drive, "motion", mo);
    }
    cJSON *warn = cJSON_AddArrayToObject(root, "warnings");
    for (size_t k = 0; k < res->n_warnings; k++)
        cJSON_AddItemToArray(warn, cJSON_CreateString(res->warnings[k]));
    cJSON *tasks = cJSON_AddArrayToObject(root, "tasks");
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "task", tr->task->id);
        cJSON_AddNumberToObject(o, "run", tr->run);
        cJSON_AddStringToObject(o, "status", an_task_status(tr));
        if (tr->message[0]) cJSON_AddStringToObject(o, "message", tr->message);
        cJSON_AddNumberToObject(o, "tube_half_width_m", tr->task->tube_half_width);
        cJSON_AddNumberToObject(o, "speed_margin_kmh", res->scenario->speed_margin * 3.6);
        cJSON *m = cJSON_AddObjectToObject(o, "metrics");
        for (size_t q = 0; q < an_metric_count(); q++)
            cJSON_AddItemToObject(m, an_metric_name(q), num_or_null(an_metric_value(tr, q)));
        cJSON_AddItemToObject(o, "secondary", an_measures_json(res, tr));
        cJSON *task_sensors = an_sensors_json(res, tr);
        if (task_sensors) cJSON_AddItemToObject(o, "sensors", task_sensors);
        cJSON *evs = cJSON_AddArrayToObject(o, "events");
        for (size_t q = 0; q < tr->m.n_events; q++) cJSON_AddItemToArray(evs, event_json(&tr->m.events[q]));
        cJSON *rx = cJSON_AddArrayToObject(o, "reactions");
        for (size_t q = 0; q < tr->m.n_reactions; q++) {
            const sim_metrics_reaction *r = &tr->m.reactions[q];
            cJSON *ro = cJSON_CreateObject();
            cJSON_AddItemToObject(ro, "t_stimulus_s", num_or_null(r->t_stimulus));
            cJSON_AddItemToObject(ro, "rt_s", num_or_null(r->rt));
            cJSON_AddItemToObject(ro, "rt_steer_s", num_or_null(r->rt_steer));
            cJSON_AddItemToObject(ro, "rt_brake_s", num_or_null(r->rt_brake));
            cJSON_AddItemToObject(ro, "rt_button_s", num_or_null(r->rt_button));
            cJSON_AddItemToArray(rx, ro);
        }
        cJSON_AddItemToArray(tasks, o);
    }
    char *txt = cJSON_Print(root);
    cJSON_Delete(root);
    if (!txt) return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", path);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(txt);
        return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    }
    fputs(txt, f);
    fputc('\n', f);
    free(txt);
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return 0;
}

static int write_tasks_csv(const an_result *res, const char *path, sim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fputs("task,run,status", f);
    for (size_t q = 0; q < an_metric_count(); q++) fprintf(f, ",%s", an_metric_name(q));
    fputs(",message\n", f);
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        sim_csv_field(f, tr->task->id);
        fprintf(f, ",%d,%s", tr->run, an_task_status(tr));
        for (size_t q = 0; q < an_metric_count(); q++) {
            fputc(',', f);
            put_num(f, an_metric_value(tr, q));
        }
        fputc(',', f);
        sim_csv_field(f, tr->message);
        fputc('\n', f);
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return 0;
}

static int write_events_csv(const an_result *res, const char *path, sim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fputs("task,run,event,kind,severe,side,s_start_m,s_end_m,t_start_s,t_end_s,length_m,"
          "duration_s,area_m2,area_time_ms,max_abs_e_m,s_max_m,open_start,open_end\n", f);
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        for (size_t q = 0; q < tr->m.n_events; q++) {
            const sim_metrics_event *ev = &tr->m.events[q];
            sim_csv_field(f, tr->task->id);
            fprintf(f, ",%d,%zu,%s,%d,%s", tr->run, q + 1, kind_name(ev->kind),
                    ev->kind == SIM_METRICS_MARK, ev->side > 0 ? "left" : "right");
            const double v[] = {ev->s_start, ev->s_end, ev->t_start, ev->t_end,
                                ev->s_end - ev->s_start, ev->t_end - ev->t_start, ev->area,
                                ev->area_time, ev->max_abs_e, ev->s_max};
            for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
                fputc(',', f);
                put_num(f, v[j]);
            }
            fprintf(f, ",%d,%d\n", ev->open_start, ev->open_end);
        }
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return 0;
}

static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

void an_html_num(FILE *f, double v, int dec)
{
    if (isfinite(v)) fprintf(f, "%.*f", dec, v);
    else fputs("&ndash;", f);
}

const char an_html_style[] =
    "<style>body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px auto;"
    "max-width:1180px;color:#222;line-height:1.4}h1{font-size:22px}h2{font-size:18px;"
    "border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}table{border-collapse:"
    "collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;"
    "text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}img{max-width:100%;"
    "border:1px solid #eee;margin:6px 0}.warn{background:#fff4e0;border-left:4px solid #e89"
    "a20;padding:6px 10px;margin:4px 0}.bad{color:#b00}.muted{color:#777;font-size:12px}"
    "</style>\n";

static void html_figure(FILE *f, const char *base, const char *alt)
{
    fprintf(f, "<p><img src=\"%s.png\" alt=\"", base);
    html_text(f, alt);
    fprintf(f, "\"><br><span class=\"muted\">vector: <a href=\"%s.svg\">%s.svg</a></span></p>\n",
            base, base);
}

static int write_html(const an_result *res, const char *dir, bool plots, sim_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", dir);
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>Drive report</title>\n", f);
    fputs(an_html_style, f);
    fputs("</head><body>\n<h1>Drive report: ", f);
    html_text(f, res->subject[0] ? res->subject : "(no subject)");
    fputs(" &middot; ", f);
    html_text(f, res->scenario_name);
    fputs("</h1>\n<table>", f);
    const char *rows[][2] = {{"log", res->drive->path},
                             {"study", res->study},
                             {"subject", res->subject},
                             {"scenario file", res->scenario->world->path}};
    for (size_t k = 0; k < 4; k++) {
        fprintf(f, "<tr><th class=\"l\">%s</th><td class=\"l\">", rows[k][0]);
        html_text(f, rows[k][1]);
        fputs("</td></tr>", f);
    }
    for (size_t k = 0; k < res->drive->n_meta; k++) {
        const char *key = res->drive->meta_key[k];
        if (!strcmp(key, "study") || !strcmp(key, "subject")) continue;
        fputs("<tr><th class=\"l\">", f);
        html_text(f, key);
        fputs("</th><td class=\"l\">", f);
        html_text(f, res->drive->meta_val[k]);
        fputs("</td></tr>", f);
    }
    fprintf(f, "<tr><th class=\"l\">samples</th><td class=\"l\">%zu</td></tr></table>\n", res->drive->n);
    for (size_t k = 0; k < res->n_warnings; k++) {
        fputs("<div class=\"warn\">", f);
        html_text(f, res->warnings[k]);
        fputs("</div>\n", f);
    }
    fputs("<p>Definitions: docs/metrics.md. Data: <a href=\"metrics.json\">metrics.json</a>, "
          "<a href=\"tasks.csv\">tasks.csv</a>, <a href=\"events.csv\">events.csv</a>", f);
    if (res->drive->n_sensors) fputs(", <a href=\"sensors.csv\">sensors.csv</a> (lab sensors per task)", f);
    fputs(".</p>\n", f);
    an_latency_html(f, res->drive);
    an_motion_html(f, res->drive, plots);
    an_codes_html(f, res->drive);
    fputs("<h2>Tasks</h2>\n<table><tr><th class=\"l\">task</th><th>run</th><th>status</th>"
          "<th>length (m)</th><th>duration (s)</th><th>events</th><th>severe</th>"
          "<th>A<sub>global</sub> (m&sup2;)</th><th>A<sub>global</sub> (m&middot;s)</th>"
          "<th>MDEV (m)</th><th>SDLP (m)</th><th>max |e| (m)</th><th>mean speed (km/h)</th>"
          "<th>over limit (s)</th>", f);
    fprintf(f, "<th>over limit + %g km/h (s)</th>", res->scenario->speed_margin * 3.6);
    fputs("<th>min THW (s)</th><th>min TTC (s)</th><th>mean RT (s)</th></tr>\n", f);
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        const sim_metrics_result *m = &tr->m;
        fputs("<tr><td class=\"l\">", f);
        html_text(f, tr->task->id);
        fprintf(f, "</td><td>%d</td><td class=\"%s\">%s</td><td>", tr->run, tr->status || tr->suspect ? "bad" : "",
                an_task_status(tr));
        if (!tr->computed) {
            fputs("&ndash;</td><td colspan=\"14\" class=\"l muted\">no samples in the task</td></tr>\n", f);
            continue;
        }
        an_html_num(f, m->length, 1);
        fputs("</td><td>", f);
        an_html_num(f, m->duration, 2);
        fprintf(f, "</td><td>%zu</td><td>%zu</td><td>", m->n_tube_events, m->n_mark_events);
        const double v[] = {m->area_global, m->area_global_time, m->mdev, m->sdlp, m->max_abs_e,
                            m->speed_mean * 3.6, m->time_over_limit, m->time_over_limit_margin,
                            m->thw_min, m->ttc_min};
        const int dec[] = {2, 2, 3, 3, 3, 1, 2, 2, 2, 2};
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
            an_html_num(f, v[j], dec[j]);
            fputs("</td><td>", f);
        }
        size_t rt_idx = 0;
        for (size_t q = 0; q < an_metric_count(); q++)
            if (!strcmp(an_metric_name(q), "rt_mean_s")) rt_idx = q;
        an_html_num(f, an_metric_value(tr, rt_idx), 2);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        fputs("<h2>Task ", f);
        html_text(f, tr->task->id);
        fprintf(f, " &middot; run %d</h2>\n", tr->run);
        if (tr->message[0]) {
            fputs("<div class=\"warn\">", f);
            html_text(f, tr->message);
            fputs("</div>\n", f);
        }
        if (!tr->computed || tr->m.length <= 0) continue;
        if (plots) {
            char name[160], base[200];
            safe_name(name, sizeof name, tr->task->id);
            snprintf(base, sizeof base, "lateral-%s-r%d", name, tr->run);
            html_figure(f, base, "lateral position against s");
            snprintf(base, sizeof base, "timeline-%s-r%d", name, tr->run);
            html_figure(f, base, "deviation and controls over time");
            if (an_plot_tasks_wanted(res, tr)) {
                snprintf(base, sizeof base, "tasks-%s-r%d", name, tr->run);
                html_figure(f, base, "DRT stimuli and responses, glances per area, TLC over time");
            }
        }
        an_lct_html(f, res, tr);
        if (tr->m.n_events == 0) {
            fputs("<p>No deviation events.</p>\n", f);
            continue;
        }
        fputs("<table><tr><th>#</th><th class=\"l\">kind</th><th class=\"l\">side</th>"
              "<th>s start (m)</th><th>s end (m)</th><th>t start (s)</th><th>duration (s)</th>"
              "<th>length (m)</th><th>area (m&sup2;)</th><th>area (m&middot;s)</th>"
              "<th>max |e| (m)</th><th class=\"l\">note</th></tr>\n", f);
        for (size_t q = 0; q < tr->m.n_events; q++) {
            const sim_metrics_event *ev = &tr->m.events[q];
            fprintf(f, "<tr><td>%zu</td><td class=\"l%s\">%s</td><td class=\"l\">%s</td><td>", q + 1,
                    ev->kind == SIM_METRICS_MARK ? " bad" : "",
                    ev->kind == SIM_METRICS_MARK ? "lane mark (severe)" : "tube",
                    ev->side > 0 ? "left" : "right");
            const double v[] = {ev->s_start, ev->s_end, ev->t_start, ev->t_end - ev->t_start,
                                ev->s_end - ev->s_start, ev->area, ev->area_time, ev->max_abs_e};
            const int dec[] = {1, 1, 2, 2, 1, 3, 3, 3};
            for (size_t j = 0; j < 8; j++) {
                an_html_num(f, v[j], dec[j]);
                fputs("</td><td>", f);
            }
            fprintf(f, "</td><td class=\"l\">%s%s</td></tr>\n",
                    ev->open_start ? "open at start " : "", ev->open_end ? "open at end" : "");
        }
        fputs("</table>\n", f);
    }
    if (plots && res->drive->n > 0) {
        bool seen[64] = {0};
        for (size_t k = 0; k < res->n_tasks; k++) {
            int run = res->tasks[k].run;
            if (run < 0 || run >= 64 || seen[run]) continue;
            seen[run] = true;
            fprintf(f, "<h2>Map &middot; run %d</h2>\n", run);
            char base[64];
            snprintf(base, sizeof base, "map-r%d", run);
            html_figure(f, base, "top-down map of the driven path");
        }
    }
    an_tor_html(f, res, plots);
    fputs("</body></html>\n", f);
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return 0;
}

/* One figure to draw: kind 0 lateral, 1 timeline, 2 map, 3 secondary tasks. */
typedef struct fig_job {
    int kind;
    const an_task_result *tr;
    int run;
    an_format fmt;
    char path[4400];
} fig_job;

typedef struct fig_pool {
    const an_result *res;
    fig_job *jobs;
    size_t n;
    size_t next;          /* next job to take, under lock */
    pthread_mutex_t lock;
    int rc;               /* first failure */
    sim_error err;
} fig_pool;

static void *fig_worker(void *arg)
{
    fig_pool *P = arg;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        size_t k = P->next < P->n && P->rc == 0 ? P->next++ : P->n;
        pthread_mutex_unlock(&P->lock);
        if (k >= P->n) return NULL;
        fig_job *j = &P->jobs[k];
        sim_error e = {0};
        int rc = j->kind == 0   ? an_plot_lateral(P->res, j->tr, j->path, j->fmt, &e)
                 : j->kind == 1 ? an_plot_timeline(P->res, j->tr, j->path, j->fmt, &e)
                 : j->kind == 3 ? an_plot_tasks(P->res, j->tr, j->path, j->fmt, &e)
                 : j->kind == 4 ? an_plot_motion(P->res->drive, j->path, j->fmt, &e)
                                : an_plot_map(P->res, j->run, j->path, j->fmt, &e);
        if (rc) {
            pthread_mutex_lock(&P->lock);
            if (!P->rc) P->rc = rc, P->err = e;
            pthread_mutex_unlock(&P->lock);
        }
    }
}

/* Every figure of the report. They are independent, so they are drawn by a few threads
 * (cairo is thread-safe across separate surfaces): the page waits for the slowest
 * figure, not for their sum. */
static int plot_all(const an_result *res, const char *dir, sim_error *err)
{
    static const an_format fmts[] = {AN_PNG, AN_SVG};
    static const char *ext[] = {"png", "svg"};
    fig_pool P = {.res = res};
    P.jobs = calloc(8 * res->n_tasks + 4, sizeof *P.jobs);
    if (!P.jobs) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    bool seen[64] = {0};
    char name[160];
    for (size_t k = 0; k < res->n_tasks; k++) {
        const an_task_result *tr = &res->tasks[k];
        safe_name(name, sizeof name, tr->task->id);
        for (int x = 0; x < 2; x++) {
            if (tr->computed && tr->m.length > 0) {
                fig_job *j = &P.jobs[P.n++];
                *j = (fig_job){.kind = 0, .tr = tr, .run = tr->run, .fmt = fmts[x]};
                snprintf(j->path, sizeof j->path, "%s/lateral-%s-r%d.%s", dir, name, tr->run, ext[x]);
                j = &P.jobs[P.n++];
                *j = (fig_job){.kind = 1, .tr = tr, .run = tr->run, .fmt = fmts[x]};
                snprintf(j->path, sizeof j->path, "%s/timeline-%s-r%d.%s", dir, name, tr->run, ext[x]);
            }
            if (an_plot_tasks_wanted(res, tr)) {
                fig_job *j = &P.jobs[P.n++];
                *j = (fig_job){.kind = 3, .tr = tr, .run = tr->run, .fmt = fmts[x]};
                snprintf(j->path, sizeof j->path, "%s/tasks-%s-r%d.%s", dir, name, tr->run, ext[x]);
            }
            if (tr->run >= 0 && tr->run < 64 && !seen[tr->run] && res->drive->n > 0) {
                fig_job *j = &P.jobs[P.n++];
                *j = (fig_job){.kind = 2, .tr = tr, .run = tr->run, .fmt = fmts[x]};
                snprintf(j->path, sizeof j->path, "%s/map-r%d.%s", dir, tr->run, ext[x]);
            }
        }
        if (tr->run >= 0 && tr->run < 64) seen[tr->run] = true;
    }
    for (int x = 0; x < 2 && res->drive->motion && res->drive->motion->n >= 2; x++) {
        fig_job *j = &P.jobs[P.n++];
        *j = (fig_job){.kind = 4, .fmt = fmts[x]};
        snprintf(j->path, sizeof j->path, "%s/motion.%s", dir, ext[x]);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = cores > 1 ? (size_t)cores : 1;
    if (nt > 8) nt = 8;
    if (nt > P.n) nt = P.n;
    pthread_t th[8];
    size_t started = 0;
    pthread_mutex_init(&P.lock, NULL);
    for (size_t k = 1; k < nt; k++)
        if (pthread_create(&th[k], NULL, fig_worker, &P) == 0) started = k;
        else break;
    fig_worker(&P); /* this thread draws too */
    for (size_t k = 1; k <= started; k++) pthread_join(th[k], NULL);
    pthread_mutex_destroy(&P.lock);
    free(P.jobs);
    if (P.rc) {
        if (err) *err = P.err;
        return P.rc;
    }
    return 0;
}

double an_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int an_report_write(const an_result *res, const char *dir, bool plots, an_timing *tm,
                    sim_error *err)
{
    int rc = sim_file_mkdirs(dir, err);
    if (rc) return rc;
    char path[4200];
    double t0 = an_now();
    snprintf(path, sizeof path, "%s/metrics.json", dir);
    if ((rc = write_json(res, path, err))) return rc;
    snprintf(path, sizeof path, "%s/tasks.csv", dir);
    if ((rc = write_tasks_csv(res, path, err))) return rc;
    if (res->drive->n_sensors) {
        snprintf(path, sizeof path, "%s/sensors.csv", dir);
        if ((rc = an_sensors_write_csv(res, path, err))) return rc;
    }
    snprintf(path, sizeof path, "%s/events.csv", dir);
    if ((rc = write_events_csv(res, path, err))) return rc;
    double t1 = an_now();
    if (plots && (rc = plot_all(res, dir, err))) return rc;
    if ((rc = an_tor_write(res, dir, plots, err))) return rc;
    double t2 = an_now();
    rc = write_html(res, dir, plots, err);
    if (tm) {
        tm->tables = t1 - t0;
        tm->figures = t2 - t1;
        tm->html = an_now() - t2;
    }
    return rc;
}

/* Whether a name may be a scenario file: what sim_scenario_load reads. */
static bool scenario_name_ok(const char *path)
{
    size_t n = strlen(path);
    return (n > 5 && strcmp(path + n - 5, ".json") == 0) || (n > 5 && strcmp(path + n - 5, ".xodr") == 0) ||
           (n > 5 && strcmp(path + n - 5, ".xosc") == 0);
}

/* The scenario of a drive (docs/analysis.md, "Which scenario"): the override, else the
 * log's meta "scenario_file" as given, next to the log, or under scenarios/ by its base
 * name; only names ending in .json, .xodr or .xosc, and only a file whose SHA-256 is the
 * one the recorder wrote to meta (the bytes of any other file are never read as a
 * scenario, nor shown). *changed says (with words in why) that the override is not the
 * drive's scenario: every output then says so. */
static int find_scenario(const an_drive *dr, const char *override, char *out, size_t n, bool *changed,
                         char *why, size_t why_n, sim_error *err)
{
    *changed = false;
    const char *want = an_drive_meta(dr, "scenario_file_sha256");
    char hex[65];
    if (override) {
        snprintf(out, n, "%s", override);
        if (want && *want && sim_sha256_file(override, hex, NULL) == 0 && strcmp(hex, want) != 0) {
            *changed = true;
            snprintf(why, why_n, "the scenario %s is not the one this drive was recorded with (SHA-256 %.12s... in the "
                     "log's meta, %.12s... now): task results may differ from the drive's", override, want, hex);
        }
        return 0;
    }
    const char *sc = an_drive_meta(dr, "scenario_file"); /* as the recorder writes it */
    if (!sc || !*sc) sc = an_drive_meta(dr, "scenario");
    if (!sc || !*sc)
        return sim_error_set(err, SIM_ENOTFOUND,
                             "%s: the log's meta names no scenario; give one with --scenario FILE", dr->path);
    if (!scenario_name_ok(sc))
        return sim_error_set(err, SIM_EINVAL,
                             "%s: the log's meta names \"%s\" as its scenario, expected a .json, .xodr or .xosc "
                             "file; give one with --scenario FILE", dr->path, sc);
    const char *base = strrchr(sc, '/') ? strrchr(sc, '/') + 1 : sc;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", dr->path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    char found_other[4200] = "";
    for (int k = 0; k < 3; k++) {
        if (k == 0) snprintf(out, n, "%s", sc);
        else if (k == 1) snprintf(out, n, "%s/%s", dir, base);
        else snprintf(out, n, "scenarios/%s", base);
        if (sim_sha256_file(out, hex, NULL) != 0) continue;
        if (!want || !*want || strcmp(hex, want) == 0) return 0;
        if (!found_other[0]) snprintf(found_other, sizeof found_other, "%s", out);
    }
    if (found_other[0])
        return sim_error_set(err, SIM_EINVAL,
                             "%s: the scenario %s has changed since this drive (SHA-256 %.12s... in the log's meta): "
                             "its tasks and metrics would not be the drive's; restore the drive's scenario, or give "
                             "one with --scenario FILE (every output then says it differs)", dr->path, found_other,
                             want);
    return sim_error_set(err, SIM_ENOTFOUND,
                         "%s: scenario \"%s\" (from the log's meta) not found as given, next to "
                         "the log, or in scenarios/; give one with --scenario FILE",
                         dr->path, sc);
}

int an_find_scenario(const an_drive *dr, const char *override, char *out, size_t n, sim_error *err)
{
    bool changed;
    char why[600];
    return find_scenario(dr, override, out, n, &changed, why, sizeof why, err);
}

int an_report_one(const char *log, const char *scenario, const an_params *params,
                  const char *dir, bool plots,
                  an_result *keep, an_drive *keep_drive, an_scenario *keep_sc, an_timing *tm,
                  sim_error *err)
{
    an_drive dr;
    an_scenario sc;
    an_result res;
    double t0 = an_now();
    int rc = an_drive_load(log, &dr, err);
    if (rc) return rc;
    char scpath[4200], changed_why[600] = "";
    bool changed = false;
    rc = find_scenario(&dr, scenario, scpath, sizeof scpath, &changed, changed_why, sizeof changed_why, err);
    an_params drive_params = *params; /* with the drive's own OpenSCENARIO overrides */
    if (!drive_params.xosc_params) drive_params.xosc_params = an_drive_meta(&dr, "xosc_params");
    if (!rc) rc = an_scenario_load(scpath, &drive_params, &sc, err);
    if (!rc && params->lct_baseline && (rc = an_lct_baseline(params->lct_baseline, scenario, params, &sc, err)))
        an_scenario_free(&sc);
    if (rc) {
        an_drive_free(&dr);
        return rc;
    }
    double t1 = an_now();
    rc = an_compute(&dr, &sc, &res, err);
    if (!rc && changed) {
        /* Loud in every output: stderr, metrics.json's and the report's warnings, and each
         * task's status and message (tasks.csv, study.csv). */
        fprintf(stderr, "analysis: WARNING: %s: %s\n", log, changed_why);
        rc = an_result_warn(&res, "%s", changed_why);
        for (size_t k = 0; !rc && k < res.n_tasks; k++) {
            an_task_result *tr = &res.tasks[k];
            size_t used = strlen(tr->message);
            snprintf(tr->message + used, sizeof tr->message - used, "%sscenario differs from the drive's",
                     used ? "; " : "");
            tr->suspect = true;
        }
    }
    if (!rc && an_drive_meta(&dr, "start_utc") && !an_drive_meta(&dr, "end_utc")) {
        /* docs/drivelog.md: a file never closed (the recorder killed for good, the
         * session cut short) may have lost its tail; every output says so. */
        const char *why = "the drive log was never closed (no end_utc in its meta): the recorder was killed or "
                          "the session cut short, and the drive's last seconds may be missing";
        fprintf(stderr, "analysis: WARNING: %s: %s\n", log, why);
        rc = an_result_warn(&res, "%s", why);
    }
    if (tm) tm->load = t1 - t0, tm->compute = an_now() - t1;
    if (!rc) {
        rc = dir ? an_report_write(&res, dir, plots, tm, err) : 0;
        if (keep && !rc) {
            /* The caller takes all three; res points at the caller's copies. */
            *keep_drive = dr;
            *keep_sc = sc;
            *keep = res;
            keep->drive = keep_drive;
            keep->scenario = keep_sc; /* the task pointers point into the same heap arrays */
            return 0;
        }
        an_result_free(&res);
    }
    an_scenario_free(&sc);
    an_drive_free(&dr);
    return rc;
}
