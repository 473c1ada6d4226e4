/* study: `analysis study FILE`: a whole study from its file and its database
 * (docs/study.md, "Analysis"): every participant's planned drives, the metrics of each
 * completed drive as the per-drive report computes them, the questionnaires' scores,
 * into a tidy long table (participant, group, condition, position, task, measure,
 * value, and each row's status: ok, warning, flagged, aborted), questionnaires.csv, drives.csv (every planned drive with its status: missing
 * and flagged drives are listed, never dropped in silence) and study.html with every
 * measure by condition and by position. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "sim_file.h"
#include "sim_study.h"

typedef struct row {
    int p, position, condition;
    char task[64], measure[64];
    double value;
    /* tidy.csv only: ok, warning (the report marks the task so: a stall, a gap, a crash
     * in it, or no value), flagged or aborted (the drive), and why ("" when ok) */
    const char *status;
    char reason[320];
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

typedef struct drive_info {
    int p, position, condition;
    sim_drive_kind kind;
    char status[16];         /* complete, flagged, missing */
    int aborted;             /* aborted attempts */
    char log[1024], reason[700], questionnaires[256];
    char aborted_log[1024];  /* the last aborted attempt's log ("" when none linked) */
    char aborted_reason[700];
} drive_info;

static int push(rows *r, int p, int position, int condition, const char *task, const char *measure, double v)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        row *nv = realloc(r->v, cap * sizeof *nv);
        if (!nv) return SIM_ENOMEM;
        r->v = nv;
        r->cap = cap;
    }
    row *x = &r->v[r->n++];
    x->p = p, x->position = position, x->condition = condition, x->value = v;
    snprintf(x->task, sizeof x->task, "%s", task);
    snprintf(x->measure, sizeof x->measure, "%s", measure);
    x->status = "";
    x->reason[0] = '\0';
    return SIM_OK;
}

static void put_num(FILE *f, double v, const char *missing)
{
    if (isfinite(v)) fprintf(f, "%.10g", v);
    else fputs(missing, f);
}

/* The drive's last attempt that completed (or was flagged afterwards). */
static void attempt_of(sqlite3 *db, const char *p, drive_info *d)
{
    sqlite3_stmt *st;
    snprintf(d->status, sizeof d->status, "missing");
    if (sqlite3_prepare_v2(db, "SELECT status, COALESCE(log_path, ''), reason FROM attempts WHERE participant = ? AND"
                               " position = ? ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, p, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, d->position);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        if (!strcmp(s, "aborted") || !strcmp(s, "running")) {
            d->aborted++;
            snprintf(d->aborted_log, sizeof d->aborted_log, "%s", (const char *)sqlite3_column_text(st, 1));
            snprintf(d->aborted_reason, sizeof d->aborted_reason, "%s", (const char *)sqlite3_column_text(st, 2));
            if (!strcmp(d->status, "missing"))
                snprintf(d->reason, sizeof d->reason, "%s", (const char *)sqlite3_column_text(st, 2));
            continue;
        }
        snprintf(d->status, sizeof d->status, "%s", s);
        snprintf(d->log, sizeof d->log, "%s", (const char *)sqlite3_column_text(st, 1));
        snprintf(d->reason, sizeof d->reason, "%s", (const char *)sqlite3_column_text(st, 2));
    }
    sqlite3_finalize(st);
}

/* Scores of every answered questionnaire of participant p into q; notes which were not
 * asked in the drive's list. */
static int questionnaire_rows(sqlite3 *db, const sim_study *s, int p, drive_info *drives, int nd, rows *q,
                              sim_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT position, questionnaire, status, item, value, text FROM answers"
                               " WHERE participant = ? ORDER BY position, questionnaire, id", -1, &st, NULL) != SQLITE_OK)
        return sim_error_set(err, SIM_EIO, "study database: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, s->participants[p], -1, SQLITE_STATIC);
    int pos = -1, n = 0;
    char qid[64] = "", status[16] = "";
    char items[64][48];
    double values[64];
    const char *names[64];
    int rc = SIM_OK, step;
    do {
        step = sqlite3_step(st);
        int npos = step == SQLITE_ROW ? sqlite3_column_int(st, 0) : -2;
        const char *nq = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 1) : "";
        if (pos != -1 && (npos != pos || strcmp(nq, qid))) {
            /* One questionnaire complete: score it. */
            int qi = sim_study_questionnaire_find(s, qid);
            drive_info *d = NULL;
            for (int i = 0; i < nd; i++)
                if (drives[i].position == pos) d = &drives[i];
            if (d) {
                size_t used = strlen(d->questionnaires);
                snprintf(d->questionnaires + used, sizeof d->questionnaires - used, "%s%s: %s", used ? "; " : "", qid,
                         !strcmp(status, "answered") ? "answered" : "not asked");
            }
            if (qi >= 0 && d && !strcmp(status, "answered")) {
                sim_score sc[64];
                for (int i = 0; i < n; i++) names[i] = items[i];
                int k = sim_questionnaire_scores(&s->questionnaires[qi], n, names, values, sc, 64, err);
                for (int i = 0; k > 0 && i < k && !rc; i++)
                    rc = push(q, p, pos, s->questionnaires[qi].when == SIM_Q_AT_END ? -1 : d->condition, qid,
                              sc[i].name, sc[i].value);
                if (k < 0) fprintf(stderr, "analysis study: %s drive %d: %s\n", s->participants[p], pos, err->msg);
            }
            n = 0;
        }
        if (step != SQLITE_ROW) break;
        pos = npos;
        snprintf(qid, sizeof qid, "%s", nq);
        snprintf(status, sizeof status, "%s", (const char *)sqlite3_column_text(st, 2));
        /* A scale item's row; value NULL is an item the test person skipped. */
        if (sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_type(st, 5) == SQLITE_NULL && n < 64) {
            snprintf(items[n], sizeof items[n], "%s", (const char *)sqlite3_column_text(st, 3));
            values[n++] = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
        }
    } while (!rc);
    sqlite3_finalize(st);
    return rc;
}

static const char *cond_name(const sim_study *s, int c) { return c < 0 ? "(end)" : s->conditions[c].name; }
static const char *group_name(const sim_study *s, int p)
{
    return s->group_of[p] >= 0 ? s->groups[s->group_of[p]] : "";
}

/* missing: how a value that is not there is written ("NA" for a measure the drive
 * has no value of, "" for a skipped questionnaire answer, docs/study.md). */
static int write_rows(const char *path, const char *taskcol, const char *missing, bool status, const sim_study *s,
                      const rows *r, sim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "participant,group,condition,position,%s,measure,value%s\n", taskcol, status ? ",status,reason" : "");
    for (size_t i = 0; i < r->n; i++) {
        const row *x = &r->v[i];
        sim_csv_field(f, s->participants[x->p]);
        fputc(',', f);
        sim_csv_field(f, group_name(s, x->p));
        fputc(',', f);
        sim_csv_field(f, cond_name(s, x->condition));
        fprintf(f, ",%d,", x->position);
        sim_csv_field(f, x->task);
        fputc(',', f);
        sim_csv_field(f, x->measure);
        fputc(',', f);
        put_num(f, x->value, missing);
        if (status) {
            fprintf(f, ",%s,", x->status);
            sim_csv_field(f, x->reason);
        }
        fputc('\n', f);
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return SIM_OK;
}

static void html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

static void file_safe(char *out, size_t n, const char *a, const char *b, const char *c)
{
    snprintf(out, n, "%s-%s-%s", a, b, c);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
            *p = '_';
}

/* Figures of one (task, measure): by condition and by position; the image names go
 * to the page. */
static int figures(FILE *html, const char *figdir, const sim_study *s, const rows *r, size_t first, size_t last,
                   int max_pos, bool plots, sim_error *err)
{
    const row *x0 = &r->v[first];
    int np = s->n_participants, nc = s->n_conditions;
    double *byc = malloc(sizeof(double) * (size_t)(np * nc)), *byp = malloc(sizeof(double) * (size_t)(np * max_pos));
    if (!byc || !byp) {
        free(byc);
        free(byp);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    for (int i = 0; i < np * nc; i++) byc[i] = NAN;
    for (int i = 0; i < np * max_pos; i++) byp[i] = NAN;
    bool used[SIM_STUDY_CONDITIONS_MAX] = {0};
    /* A questionnaire at the end belongs to no condition: one column of everyone's. */
    bool at_end = x0->condition < 0;
    for (size_t i = first; i < last; i++) {
        const row *x = &r->v[i];
        if (x->condition >= 0 || at_end) {
            int c = at_end ? 0 : x->condition;
            byc[x->p * nc + c] = x->value;
            used[c] = true;
        }
        if (x->position >= 1 && x->position <= max_pos) byp[x->p * max_pos + x->position - 1] = x->value;
    }
    /* Only the conditions that have this measure, in the study file's order. */
    const char *labels[SIM_STUDY_CONDITIONS_MAX];
    int nu = 0;
    double *cols = malloc(sizeof(double) * (size_t)(np * nc));
    for (int c = 0; cols && c < nc; c++) {
        if (!used[c]) continue;
        labels[nu] = at_end ? "all (at the end)" : s->conditions[c].name;
        for (int p = 0; p < np; p++) cols[p * nc + nu] = byc[p * nc + c];
        nu++;
    }
    /* Re-pack to nu columns. */
    for (int p = 0; cols && p < np; p++)
        for (int c = 0; c < nu; c++) byc[p * nu + c] = cols[p * nc + c];
    free(cols);
    char base[300], path[1600], title[200];
    file_safe(base, sizeof base, x0->task, x0->measure, "condition");
    snprintf(title, sizeof title, "%s by condition", x0->measure);
    int rc = SIM_OK;
    fprintf(html, "<h3>");
    html_esc(html, x0->task);
    fprintf(html, ": ");
    html_esc(html, x0->measure);
    fprintf(html, "</h3>\n<table><tr><th>condition</th><th>n</th><th>mean</th><th>95 %% CI</th></tr>\n");
    for (int c = 0; c < nu; c++) {
        double m, h;
        int k;
        an_mean_ci(byc + c, (size_t)np, (size_t)nu, &m, &h, &k);
        fprintf(html, "<tr><td>");
        html_esc(html, labels[c]);
        /* No interval from fewer than two participants (t has no degrees of freedom). */
        fprintf(html, "</td><td>%d</td>", k);
        if (isfinite(m)) fprintf(html, "<td>%.4g</td>", m);
        else fprintf(html, "<td>&ndash;</td>");
        if (k >= 2 && isfinite(h)) fprintf(html, "<td>&plusmn; %.4g</td></tr>\n", h);
        else fprintf(html, "<td>&ndash; (n &lt; 2)</td></tr>\n");
    }
    fprintf(html, "</table>\n");
    if (plots && nu > 0) {
        for (int f = 0; f < 2 && !rc; f++) {
            snprintf(path, sizeof path, "%s/%s.%s", figdir, base, f ? "svg" : "png");
            rc = an_plot_within(title, x0->measure, labels, (size_t)nu, byc, (size_t)np, path, f ? AN_SVG : AN_PNG, err);
        }
        fprintf(html, "<p><img src=\"fig/%s.png\" width=\"440\" alt=\"%s by condition\">", base, x0->measure);
        const char *pl[SIM_PLAN_MAX];
        char pbuf[SIM_PLAN_MAX][16];
        for (int k = 0; k < max_pos; k++) {
            snprintf(pbuf[k], sizeof pbuf[k], "%d", k + 1);
            pl[k] = pbuf[k];
        }
        file_safe(base, sizeof base, x0->task, x0->measure, "position");
        snprintf(title, sizeof title, "%s by position", x0->measure);
        for (int f = 0; f < 2 && !rc; f++) {
            snprintf(path, sizeof path, "%s/%s.%s", figdir, base, f ? "svg" : "png");
            rc = an_plot_within(title, x0->measure, pl, (size_t)max_pos, byp, (size_t)np, path, f ? AN_SVG : AN_PNG, err);
        }
        fprintf(html, " <img src=\"fig/%s.png\" width=\"440\" alt=\"%s by position (order effects)\"></p>\n", base, x0->measure);
    }
    free(byc);
    free(byp);
    return rc;
}

/* The page opens on the study's primary measures: the study file's primary_measures in
 * their order, else these (lane keeping, speed, the DRT); then the rest by task and
 * measure. */
static const char *const DEFAULT_PRIMARY[] = {"sdlp_m", "speed_mean_ms", "drt_rt_mean_s", "drt_hit_rate"};
static const sim_study *primary_of; /* qsort has no context: the study being paged */

static int primary_rank(const char *measure)
{
    const sim_study *s = primary_of;
    int n = s && s->n_primary ? s->n_primary : (int)(sizeof DEFAULT_PRIMARY / sizeof *DEFAULT_PRIMARY);
    for (int i = 0; i < n; i++)
        if (!strcmp(measure, s && s->n_primary ? s->primary[i] : DEFAULT_PRIMARY[i])) return i;
    return n;
}

static int row_cmp(const void *a, const void *b)
{
    const row *x = a, *y = b;
    int c = primary_rank(x->measure) - primary_rank(y->measure);
    if (!c) c = strcmp(x->task, y->task);
    if (!c) c = strcmp(x->measure, y->measure);
    return c;
}

static int page(const an_study_opts *o, const char *out, const sim_study *s, const drive_info *drives, int nd,
                rows *tidy, rows *q, int max_pos, sim_error *err)
{
    char path[1200], figdir[1200];
    snprintf(path, sizeof path, "%s/study.html", out);
    snprintf(figdir, sizeof figdir, "%s/fig", out);
    if (o->plots && sim_file_mkdirs(figdir, err)) return SIM_EIO;
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Study ", f);
    html_esc(f, s->name);
    fputs("</title>\n", f);
    fputs(an_html_style, f);
    fputs("</head><body>\n<h1>Study ", f);
    html_esc(f, s->name);
    fputs("</h1>\n<p>", f);
    html_esc(f, s->description);
    int complete = 0, missing = 0, flagged = 0;
    for (int i = 0; i < nd; i++) {
        complete += !strcmp(drives[i].status, "complete");
        missing += !strcmp(drives[i].status, "missing");
        flagged += !strcmp(drives[i].status, "flagged");
    }
    fprintf(f, "</p>\n<p>%d participants, %d planned drives: %d complete, %d missing, %d flagged. Tables: "
               "<a href=\"tidy.csv\">tidy.csv</a> (driving measures), <a href=\"questionnaires.csv\">"
               "questionnaires.csv</a>, <a href=\"drives.csv\">drives.csv</a>.</p>\n",
            s->n_participants, nd, complete, missing, flagged);
    fputs("<h2>Drives not in the tables</h2>\n<table><tr><th>participant</th><th>position</th><th>condition</th>"
          "<th>kind</th><th>status</th><th>aborted attempts</th><th>reason</th></tr>\n", f);
    int listed = 0;
    for (int i = 0; i < nd; i++) {
        const drive_info *d = &drives[i];
        if (!strcmp(d->status, "complete") && d->kind != SIM_DRIVE_PRACTICE) continue;
        listed++;
        fprintf(f, "<tr><td>%s</td><td>%d</td><td>", s->participants[d->p], d->position);
        html_esc(f, s->conditions[d->condition].name);
        fprintf(f, "</td><td>%s</td><td class=\"%s\">%s</td><td>%d</td><td>", sim_drive_kind_name(d->kind),
                strcmp(d->status, "complete") ? "bad" : "", d->kind == SIM_DRIVE_PRACTICE && !strcmp(d->status, "complete") ? "practice" : d->status,
                d->aborted);
        html_esc(f, d->reason);
        fputs("</td></tr>\n", f);
    }
    if (!listed) fputs("<tr><td colspan=\"7\">none: every planned drive is complete</td></tr>\n", f);
    fputs("</table>\n", f);
    /* Drives in the tables whose report marks a task (a stall, a gap, a log never
     * closed): one line per drive and task, in the order of the drives. */
    fputs("<h2>Warnings</h2>\n<table><tr><th>participant</th><th>position</th><th>condition</th><th>task</th>"
          "<th>why</th></tr>\n", f);
    int warned = 0;
    for (size_t i = 0; i < tidy->n; i++) {
        const row *x = &tidy->v[i];
        bool again = false;
        for (size_t k = 0; k < i && !again; k++)
            again = tidy->v[k].p == x->p && tidy->v[k].position == x->position && !strcmp(tidy->v[k].task, x->task) &&
                    !strcmp(tidy->v[k].status, "warning");
        if (strcmp(x->status, "warning") || again) continue;
        warned++;
        fprintf(f, "<tr><td>%s</td><td>%d</td><td>", s->participants[x->p], x->position);
        html_esc(f, x->condition >= 0 ? s->conditions[x->condition].name : "");
        fputs("</td><td>", f);
        html_esc(f, x->task);
        fputs("</td><td class=\"bad\">", f);
        html_esc(f, x->reason);
        fputs("</td></tr>\n", f);
    }
    if (!warned) fputs("<tr><td colspan=\"5\">none</td></tr>\n", f);
    fputs("</table>\n", f);
    primary_of = s;
    int rc = SIM_OK;
    for (int part = 0; part < 2 && !rc; part++) {
        rows *r = part ? q : tidy;
        fputs(part ? "<h2>Questionnaires</h2>\n" : "<h2>Driving measures by condition and by position</h2>\n", f);
        if (r->n) qsort(r->v, r->n, sizeof *r->v, row_cmp); /* v is NULL when empty */
        for (size_t i = 0; i < r->n && !rc;) {
            size_t j = i;
            while (j < r->n && !row_cmp(&r->v[i], &r->v[j])) j++;
            bool any = false;
            for (size_t k = i; k < j; k++) any |= isfinite(r->v[k].value);
            if (any) rc = figures(f, figdir, s, r, i, j, max_pos, o->plots, err);
            i = j;
        }
    }
    fputs("</body></html>\n", f);
    if (fclose(f) && !rc) rc = sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return rc;
}

/* drives.csv: one row per planned drive, with its status and why. */
static int write_drives_csv(const char *path, const sim_study *s, const drive_info *drives, int nd, sim_error *err)
{
    int rc = 0;
    FILE *f = fopen(path, "w");
    if (!f) rc = sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    for (int i = 0; f && i < nd; i++) {
        const drive_info *d = &drives[i];
        if (i == 0) fprintf(f, "participant,group,position,condition,kind,status,aborted_attempts,questionnaires,log,reason\n");
        sim_csv_field(f, s->participants[d->p]);
        fputc(',', f);
        sim_csv_field(f, group_name(s, d->p));
        fprintf(f, ",%d,", d->position);
        sim_csv_field(f, s->conditions[d->condition].name);
        fprintf(f, ",%s,%s,%d,", sim_drive_kind_name(d->kind), d->status, d->aborted);
        sim_csv_field(f, d->questionnaires);
        fputc(',', f);
        sim_csv_field(f, d->log[0] ? d->log : d->aborted_log); /* a drive never completed: its last attempt's */
        fputc(',', f);
        sim_csv_field(f, d->reason);
        fputc('\n', f);
    }
    if (f && fclose(f) && !rc) rc = sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return rc;
}

/* The tidy rows of one planned drive d (its complete, flagged or last aborted
 * attempt's log), each marked with its status and reason; a complete drive whose log
 * cannot be analysed becomes missing and counts in *problems. */
static int drive_tidy_rows(drive_info *d, const an_params *params, rows *tidy, int *problems)
{
    int rc = 0;
    /* Practice drives stay out of the table; a flagged drive, and the last aborted
     * attempt of a drive never completed, are in tidy.csv marked so (out of the
     * page's tables). */
    bool complete = !strcmp(d->status, "complete"), flagged = !strcmp(d->status, "flagged");
    bool aborted = !strcmp(d->status, "missing") && d->aborted_log[0];
    if (!(complete || flagged || aborted) || d->kind == SIM_DRIVE_PRACTICE || !(aborted || d->log[0])) return 0;
    an_result res;
    an_drive dr;
    an_scenario sc;
    sim_error e = {0};
    if (an_report_one(aborted ? d->aborted_log : d->log, NULL, params, NULL, false, &res, &dr, &sc, NULL, &e)) {
        if (!complete) return 0; /* listed in drives.csv as it is */
        snprintf(d->status, sizeof d->status, "missing");
        snprintf(d->reason, sizeof d->reason, "cannot be analysed: %s", e.msg);
        (*problems)++;
        return 0;
    }
    /* A log never closed is the report's warning for every task of the drive. */
    const char *unclosed = an_drive_meta(&dr, "start_utc") && !an_drive_meta(&dr, "end_utc")
                               ? "the drive log was never closed: its last seconds may be missing" : NULL;
    for (size_t t = 0; t < res.n_tasks && !rc; t++) {
        const an_task_result *tr = &res.tasks[t];
        char task[64];
        if (tr->run) snprintf(task, sizeof task, "%s/run%d", tr->task->id, tr->run);
        else snprintf(task, sizeof task, "%s", tr->task->id);
        const char *st = an_task_status(tr);
        bool ok = !strcmp(st, "ok") && !unclosed;
        for (size_t k = 0; k < an_metric_count() && !rc; k++) {
            if ((rc = push(tidy, d->p, d->position, d->condition, task, an_metric_name(k), an_metric_value(tr, k))))
                break;
            row *x = &tidy->v[tidy->n - 1];
            x->status = complete ? (ok ? "ok" : "warning") : flagged ? "flagged" : "aborted";
            if (!complete) snprintf(x->reason, sizeof x->reason, "%.300s", flagged ? d->reason : d->aborted_reason);
            else if (!ok) /* an unclosed log is said even beside the task's own message */
                snprintf(x->reason, sizeof x->reason, "%.250s%s%.63s", tr->message[0] ? tr->message : unclosed ? "" : st,
                         tr->message[0] && unclosed ? "; " : "", unclosed ? unclosed : "");
        }
    }
    an_result_free(&res);
    an_scenario_free(&sc);
    an_drive_free(&dr);
    return rc;
}

int an_study(const an_study_opts *o, sim_error *err)
{
    char *text = NULL;
    size_t len;
    int rc = sim_file_read(o->file, &text, &len, err);
    if (rc) return rc;
    sim_study *s = NULL;
    rc = sim_study_parse(text, len, o->file, &s, err);
    free(text);
    if (rc) return rc;
    char sdir[1024], out[1100], dbpath[1100];
    if (o->study_dir) snprintf(sdir, sizeof sdir, "%s", o->study_dir);
    else snprintf(sdir, sizeof sdir, "out/studies/%s", s->name);
    if (o->out) snprintf(out, sizeof out, "%s", o->out);
    else snprintf(out, sizeof out, "%s/analysis", sdir);
    snprintf(dbpath, sizeof dbpath, "%s/study.db", sdir);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        rc = sim_error_set(err, SIM_EIO, "%s: cannot open the study database: %s (has a participant run yet?)", dbpath,
                           sqlite3_errmsg(db));
        sqlite3_close(db);
        sim_study_free(s);
        return rc;
    }
    int base_cond = -1;
    if (o->lct_baseline_condition) {
        for (int c = 0; c < s->n_conditions; c++)
            if (strcmp(s->conditions[c].name, o->lct_baseline_condition) == 0) base_cond = c;
        if (base_cond < 0) {
            rc = sim_error_set(err, SIM_EINVAL, "--lct-baseline-condition %s: %s has no such condition",
                               o->lct_baseline_condition, o->file);
            sqlite3_close(db);
            sim_study_free(s);
            return rc;
        }
    }
    rc = sim_file_mkdirs(out, err);
    drive_info *drives = calloc((size_t)s->n_participants * SIM_PLAN_MAX, sizeof *drives);
    rows tidy = {0}, q = {0};
    int nd = 0, max_pos = 0, problems = 0;
    if (!drives && !rc) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    for (int p = 0; p < s->n_participants && !rc; p++) {
        sim_plan plan;
        sim_study_plan(s, p, &plan);
        int first = nd;
        if (plan.n > max_pos) max_pos = plan.n;
        /* The participant's LCT baseline: their complete drive of that condition. */
        drive_info base = {0};
        bool have_base = false;
        for (int i = 0; i < plan.n && base_cond >= 0 && !have_base; i++) {
            if (plan.drives[i].condition != base_cond) continue;
            base.position = plan.drives[i].position;
            attempt_of(db, s->participants[p], &base);
            have_base = strcmp(base.status, "complete") == 0 && base.log[0];
        }
        if (base_cond >= 0 && !have_base)
            fprintf(stderr, "analysis study: %s has no complete drive of condition %s: no adaptive LCT model for "
                    "their drives\n", s->participants[p], o->lct_baseline_condition);
        an_params params = o->params;
        params.lct_baseline = have_base ? base.log : NULL;
        for (int i = 0; i < plan.n && !rc; i++) {
            drive_info *d = &drives[nd++];
            d->p = p, d->position = plan.drives[i].position, d->condition = plan.drives[i].condition;
            d->kind = plan.drives[i].kind;
            attempt_of(db, s->participants[p], d);
            if (strcmp(d->status, "complete")) problems++;
            rc = drive_tidy_rows(d, &params, &tidy, &problems);
        }
        if (!rc) rc = questionnaire_rows(db, s, p, drives + first, nd - first, &q, err);
    }
    char path[1200];
    if (!rc) {
        snprintf(path, sizeof path, "%s/tidy.csv", out);
        rc = write_rows(path, "task", "NA", true, s, &tidy, err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/questionnaires.csv", out);
        rc = write_rows(path, "questionnaire", "", false, s, &q, err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/drives.csv", out);
        rc = write_drives_csv(path, s, drives, nd, err);
    }
    /* The page's tables: the drives done as planned (ok and warning rows). */
    rows shown = {0};
    for (size_t i = 0; i < tidy.n && !rc; i++) {
        const row *x = &tidy.v[i];
        if (strcmp(x->status, "ok") && strcmp(x->status, "warning")) continue;
        if (!(rc = push(&shown, x->p, x->position, x->condition, x->task, x->measure, x->value)))
            shown.v[shown.n - 1] = *x;
    }
    if (rc) rc = sim_error_set(err, rc, "out of memory");
    if (!rc) rc = page(o, out, s, drives, nd, &shown, &q, max_pos, err);
    free(shown.v);
    if (!rc) {
        printf("%s: %zu rows in %s/tidy.csv, %zu in questionnaires.csv, %d planned drives (%d not complete) -> %s/study.html\n",
               s->name, tidy.n, out, q.n, nd, problems, out);
        for (int i = 0; i < nd; i++)
            if (strcmp(drives[i].status, "complete"))
                fprintf(stderr, "analysis study: %s drive %d (%s): %s%s%s\n", s->participants[drives[i].p],
                        drives[i].position, s->conditions[drives[i].condition].name, drives[i].status,
                        drives[i].reason[0] ? ": " : "", drives[i].reason);
    }
    if (!rc && problems) {
        int missing = 0;
        for (int i = 0; i < nd; i++) missing += !strcmp(drives[i].status, "missing");
        fprintf(stderr, "analysis study: %d of %d planned drives not in the tables (%d missing, %d flagged)%s\n",
                problems, nd, missing, problems - missing,
                o->complete ? "" : "; the tables hold the drives done (--complete: exit 1 while any is missing)");
    }
    free(tidy.v);
    free(q.v);
    free(drives);
    sqlite3_close(db);
    sim_study_free(s);
    return rc ? rc : (problems && o->complete ? 1 : 0);
}
