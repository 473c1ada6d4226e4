/* batch: every drive log under a folder, analysed in parallel, into one study table.
 *
 * Worker processes (fork) take drive indices from a pipe, write each drive's report
 * and a tab-separated part file of its task rows, and announce the index on a second
 * pipe; the parent draws the progress bar, prints each drive's problems as they come
 * and finally joins the parts into study.csv and study.html. Processes rather than
 * threads: a drive that crashes its worker costs that drive only, and is reported. */
#include "sim_file.h"
#include "analysis.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct list {
    char **v;
    size_t n, cap;
} list;

static int list_add(list *l, const char *s)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        char **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) return SIM_ENOMEM;
        l->v = nv;
        l->cap = nc;
    }
    if (!(l->v[l->n] = strdup(s))) return SIM_ENOMEM;
    l->n++;
    return 0;
}

static void list_free(list *l)
{
    for (size_t k = 0; k < l->n; k++) free(l->v[k]);
    free(l->v);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Drive logs under dir: folders holding samples.csv, and .sqlite files. */
static int walk(const char *dir, const char *skip, list *out, int depth)
{
    if (depth > 16) return 0;
    char p[4200];
    snprintf(p, sizeof p, "%s/samples.csv", dir);
    struct stat st;
    if (stat(p, &st) == 0) return list_add(out, dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (skip && strcmp(p, skip) == 0) continue;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) rc = walk(p, skip, out, depth + 1);
        else if (ends_with(p, ".sqlite") || ends_with(p, ".db")) rc = list_add(out, p);
    }
    closedir(d);
    return rc;
}

/* Strings in part files lose tabs and line breaks. */
static void put_clean(FILE *f, const char *s)
{
    for (; s && *s; s++) fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void drive_name(char *out, size_t n, const char *root, const char *path)
{
    size_t L = strlen(root);
    const char *rel = strncmp(path, root, L) == 0 && path[L] == '/' ? path + L + 1 : path;
    size_t k = 0;
    for (; *rel && k + 1 < n; rel++) out[k++] = *rel == '/' ? '_' : *rel;
    out[k] = 0;
}

/* --lct-baseline-match: per drive, its subject's baseline log (NULL: none). A subject
 * with no matching drive, or with more than one, gets none, and stderr says why; *bad
 * counts those subjects' drives (the batch exits 1). */
static int lct_baselines(const an_batch_opts *o, const list *drives, const char **baseline, int *bad,
                         sim_error *err)
{
    char (*subject)[256] = calloc(drives->n, sizeof *subject);
    if (!subject) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    for (size_t k = 0; k < drives->n; k++) {
        sim_error e = {0};
        if (an_drive_meta_only(drives->v[k], "subject", subject[k], sizeof subject[k], &e))
            subject[k][0] = 0; /* the drive's own report says what is wrong with it */
    }
    for (size_t k = 0; k < drives->n; k++) {
        char name[1024];
        const char *found = NULL;
        int n = 0;
        for (size_t j = 0; j < drives->n; j++) {
            drive_name(name, sizeof name, o->dir, drives->v[j]);
            if (strcmp(subject[j], subject[k]) == 0 && strstr(name, o->lct_baseline_match)) {
                if (!found) found = drives->v[j];
                n++;
            }
        }
        baseline[k] = n == 1 ? found : NULL;
        bool first_of_subject = true;
        for (size_t j = 0; j < k; j++) first_of_subject &= strcmp(subject[j], subject[k]) != 0;
        if (n != 1) (*bad)++;
        if (n != 1 && first_of_subject)
            fprintf(stderr, "analysis batch: subject \"%s\": %s drive whose name holds \"%s\" "
                    "(--lct-baseline-match): no adaptive LCT model for its drives\n",
                    subject[k], n ? "more than one" : "no", o->lct_baseline_match);
    }
    free(subject);
    return 0;
}

static void worker_one(const an_batch_opts *o, const char *path, const char *baseline, size_t idx)
{
    char name[1024], dir[4300], part[4300], base_name[1024] = "";
    drive_name(name, sizeof name, o->dir, path);
    if (baseline) drive_name(base_name, sizeof base_name, o->dir, baseline);
    an_params params = o->params;
    params.lct_baseline = baseline;
    snprintf(dir, sizeof dir, "%s/drives/%s", o->out, name);
    snprintf(part, sizeof part, "%s/.parts/%zu.tsv", o->out, idx);
    FILE *f = fopen(part, "w");
    if (!f) return;
    sim_error err = {0};
    an_result res;
    an_drive dr;
    an_scenario sc;
    if (an_report_one(path, o->scenario, &params, dir, o->plots, &res, &dr, &sc, NULL, &err)) {
        fputs("E\t", f);
        put_clean(f, err.msg);
        fputc('\n', f);
        fclose(f);
        return;
    }
    for (size_t w = 0; w < res.n_warnings; w++) {
        fputs("W\t", f);
        put_clean(f, res.warnings[w]);
        fputc('\n', f);
    }
    for (size_t k = 0; k < res.n_tasks; k++) {
        const an_task_result *tr = &res.tasks[k];
        fputs("R\t", f);
        put_clean(f, res.study);
        fputc('\t', f);
        put_clean(f, res.subject);
        fputc('\t', f);
        put_clean(f, res.scenario_name);
        fputc('\t', f);
        put_clean(f, name);
        fprintf(f, "\t%d\t", tr->run);
        put_clean(f, tr->task->id);
        fprintf(f, "\t%s", an_task_status(tr));
        for (size_t q = 0; q < an_metric_count(); q++) fprintf(f, "\t%.17g", an_metric_value(tr, q));
        fputc('\t', f);
        put_clean(f, tr->message);
        if (baseline && tr->x.n_lct) {
            fputs(tr->message[0] ? "; LCT baseline " : "LCT baseline ", f);
            put_clean(f, base_name);
        }
        fputc('\n', f);
    }
    fputs("D\n", f); /* complete */
    fclose(f);
    an_result_free(&res);
    an_scenario_free(&sc);
    an_drive_free(&dr);
}

static void worker(const an_batch_opts *o, const list *drives, const char **baseline, int in, int done)
{
    uint32_t idx;
    while (read(in, &idx, sizeof idx) == (ssize_t)sizeof idx) {
        if (idx < drives->n) worker_one(o, drives->v[idx], baseline ? baseline[idx] : NULL, idx);
        if (write(done, &idx, sizeof idx) != (ssize_t)sizeof idx) break;
    }
    _exit(0);
}

/* ---- joining the parts ---- */

typedef struct row {
    char *f[8]; /* study subject scenario drive run task status message */
    double *v;
} row;

typedef struct table {
    row *rows;
    size_t n, cap;
    size_t nm;
} table;

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* Splits a part line "R\t..." into a row. Returns false on a malformed line. */
static bool parse_row(char *line, size_t nm, row *r)
{
    char *fld[256 + 8]; /* metric columns (an_metric_count) and the 8 text fields */
    size_t k = 0;
    for (char *p = line + 2;; p++) {
        char *start = p;
        while (*p && *p != '\t' && *p != '\n') p++;
        if (k < sizeof fld / sizeof fld[0]) fld[k++] = start;
        char c = *p;
        *p = 0;
        if (c != '\t') break;
    }
    if (k != 7 + nm + 1) return false;
    memset(r, 0, sizeof *r);
    for (int j = 0; j < 7; j++) r->f[j] = dup_n(fld[j], strlen(fld[j]));
    r->f[7] = dup_n(fld[7 + nm], strlen(fld[7 + nm]));
    r->v = malloc(nm * sizeof *r->v);
    if (!r->v) return false;
    for (size_t q = 0; q < nm; q++) r->v[q] = strtod(fld[7 + q], NULL);
    return true;
}

static void table_free(table *t)
{
    for (size_t k = 0; k < t->n; k++) {
        for (int j = 0; j < 8; j++) free(t->rows[k].f[j]);
        free(t->rows[k].v);
    }
    free(t->rows);
}

static void progress(size_t done, size_t total)
{
    int w = 40, fill = total ? (int)(w * done / total) : w;
    char bar[64];
    for (int k = 0; k < w; k++) bar[k] = k < fill ? '#' : '.';
    bar[w] = 0;
    printf("\r[%s] %zu/%zu drives", bar, done, total);
    fflush(stdout);
}

/* Reads part idx: prints its messages, appends its rows. Returns 1 when the drive
 * failed (error or incomplete part), 0 otherwise. */
static int read_part(const an_batch_opts *o, const char *path, size_t idx, table *t, bool tty,
                     char **status_out)
{
    char part[4300], line[8192];
    snprintf(part, sizeof part, "%s/.parts/%zu.tsv", o->out, idx);
    FILE *f = fopen(part, "r");
    bool complete = false, failed = false;
    char status[600] = "ok";
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (line[0] == 'D') complete = true;
            if ((line[0] == 'E' || line[0] == 'W') && line[1] == '\t') {
                line[strcspn(line, "\n")] = 0;
                if (tty) fputs("\r\033[K", stdout), fflush(stdout);
                const char *msg = line + 2;
                size_t pl = strlen(path);
                if (strncmp(msg, path, pl) == 0 && msg[pl] == ':') msg += pl + 2; /* named already */
                fprintf(stderr, "analysis: %s: %s\n", path, msg);
                if (line[0] == 'E') {
                    failed = true;
                    snprintf(status, sizeof status, "error: %.580s", line + 2);
                } else if (!strcmp(status, "ok")) {
                    snprintf(status, sizeof status, "warning: %.580s", line + 2);
                }
            }
            if (line[0] == 'R' && line[1] == '\t') {
                if (t->n == t->cap) {
                    size_t nc = t->cap ? t->cap * 2 : 64;
                    row *nr = realloc(t->rows, nc * sizeof *nr);
                    if (!nr) break;
                    t->rows = nr;
                    t->cap = nc;
                }
                if (parse_row(line, t->nm, &t->rows[t->n])) t->n++;
            }
        }
        fclose(f);
        remove(part);
    }
    if (!complete && !failed) {
        if (tty) fputs("\r\033[K", stdout), fflush(stdout);
        fprintf(stderr, "analysis: %s: the worker stopped before finishing this drive "
                        "(crashed or killed); its rows are missing\n", path);
        snprintf(status, sizeof status, "error: analysis stopped before finishing this drive");
        failed = true;
    }
    *status_out = strdup(status);
    return failed;
}

static int write_study_csv(const an_batch_opts *o, const table *t, sim_error *err)
{
    char p[4300];
    snprintf(p, sizeof p, "%s/study.csv", o->out);
    FILE *f = fopen(p, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", p, strerror(errno));
    fputs("study,subject,scenario,drive,run,task,status", f);
    for (size_t q = 0; q < t->nm; q++) fprintf(f, ",%s", an_metric_name(q));
    fputs(",message\n", f);
    for (size_t k = 0; k < t->n; k++) {
        const row *r = &t->rows[k];
        for (int j = 0; j < 7; j++) {
            if (j) fputc(',', f);
            sim_csv_field(f, r->f[j]);
        }
        for (size_t q = 0; q < t->nm; q++) {
            fputc(',', f);
            if (isfinite(r->v[q])) fprintf(f, "%.10g", r->v[q]);
        }
        fputc(',', f);
        sim_csv_field(f, r->f[7]);
        fputc('\n', f);
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", p);
    return 0;
}

static void html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

/* Study page: per-task distributions across subjects of the main metrics, then every
 * drive with its status and a link to its report. */
static int write_study_html(const an_batch_opts *o, const table *t, const list *drives,
                            char *const *status, sim_error *err)
{
    static const struct {
        const char *metric, *title, *ylabel;
    } figs[] = {
        {"area_global_m2", "Global deviation area per task", "A_global (m\xc2\xb2)"},
        {"mdev_m", "Mean deviation (MDEV) per task", "MDEV (m)"},
        {"sdlp_m", "SDLP per task", "SDLP (m)"},
        {"n_tube_events", "Deviation events per task", "events"},
        {"n_mark_events", "Lane-mark (severe) events per task", "events"},
        {"speed_mean_ms", "Mean speed per task", "speed (m/s)"},
        {"thw_min_s", "Minimum time headway per task", "THW (s)"},
        {"rt_mean_s", "Mean reaction time per task", "reaction time (s)"},
    };
    /* Task ids in order of first appearance. */
    list tasks = {0};
    for (size_t k = 0; k < t->n; k++) {
        bool seen = false;
        for (size_t j = 0; j < tasks.n && !seen; j++) seen = !strcmp(tasks.v[j], t->rows[k].f[5]);
        if (!seen && list_add(&tasks, t->rows[k].f[5])) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    char p[4300];
    snprintf(p, sizeof p, "%s/study.html", o->out);
    FILE *f = fopen(p, "w");
    if (!f) {
        list_free(&tasks);
        return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", p, strerror(errno));
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Study report</title>\n", f);
    fputs(an_html_style, f);
    fprintf(f, "</head><body>\n<h1>Study report</h1>\n<p>%zu drive%s under ", drives->n,
            drives->n == 1 ? "" : "s");
    html_esc(f, o->dir);
    fputs(". Table: <a href=\"study.csv\">study.csv</a> (one row per drive and task). Only tasks "
          "with status ok enter the distributions.</p>\n", f);
    int rc = 0;
    for (size_t q = 0; q < sizeof figs / sizeof figs[0] && !rc; q++) {
        size_t mi = SIZE_MAX;
        for (size_t j = 0; j < t->nm; j++)
            if (!strcmp(an_metric_name(j), figs[q].metric)) mi = j;
        if (mi == SIZE_MAX || tasks.n == 0) continue;
        double **vals = calloc(tasks.n, sizeof *vals);
        size_t *nv = calloc(tasks.n, sizeof *nv);
        if (!vals || !nv) {
            free(vals);
            free(nv);
            rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
            break;
        }
        for (size_t g = 0; g < tasks.n && !rc; g++) {
            vals[g] = malloc((t->n + 1) * sizeof **vals);
            if (!vals[g]) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
            for (size_t k = 0; vals[g] && k < t->n; k++)
                if (!strcmp(t->rows[k].f[5], tasks.v[g]) && !strcmp(t->rows[k].f[6], "ok"))
                    vals[g][nv[g]++] = t->rows[k].v[mi];
        }
        for (int x = 0; x < 2 && !rc && o->plots; x++) {
            snprintf(p, sizeof p, "%s/study-%s.%s", o->out, figs[q].metric, x ? "svg" : "png");
            rc = an_plot_boxes(figs[q].title, figs[q].ylabel, (const char *const *)tasks.v, tasks.n,
                               (const double *const *)vals, nv, p, x ? AN_SVG : AN_PNG, err);
        }
        if (!rc && o->plots)
            fprintf(f, "<h2>%s</h2>\n<p><img src=\"study-%s.png\" alt=\"%s\"><br><span class=\"muted\">"
                       "vector: <a href=\"study-%s.svg\">study-%s.svg</a></span></p>\n",
                    figs[q].title, figs[q].metric, figs[q].title, figs[q].metric, figs[q].metric);
        for (size_t g = 0; g < tasks.n; g++) free(vals[g]);
        free(vals);
        free(nv);
    }
    fputs("<h2>Drives</h2>\n<table><tr><th class=\"l\">drive</th><th class=\"l\">status</th>"
          "<th class=\"l\">report</th></tr>\n", f);
    for (size_t k = 0; k < drives->n; k++) {
        char name[1024];
        drive_name(name, sizeof name, o->dir, drives->v[k]);
        const char *st = status[k] ? status[k] : "error";
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, drives->v[k]);
        fprintf(f, "</td><td class=\"l%s\">", strncmp(st, "ok", 2) ? " bad" : "");
        html_esc(f, st);
        fputs("</td><td class=\"l\">", f);
        if (strncmp(st, "error", 5)) {
            fputs("<a href=\"drives/", f);
            html_esc(f, name);
            fputs("/report.html\">report</a>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n</body></html>\n", f);
    list_free(&tasks);
    if (fclose(f) && !rc) rc = sim_error_set(err, SIM_EIO, "%s/study.html: write failed", o->out);
    return rc;
}

int an_batch(const an_batch_opts *o, sim_error *err)
{
    list drives = {0};
    char outabs[4300];
    snprintf(outabs, sizeof outabs, "%s", o->out);
    size_t L = strlen(outabs);
    while (L > 1 && outabs[L - 1] == '/') outabs[--L] = 0;
    struct stat st;
    if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sim_error_set(err, SIM_ENOTFOUND, "%s: not a folder", o->dir);
    /* The output folder first: a wrong --out fails at once, not after the walk. */
    char parts[4400];
    snprintf(parts, sizeof parts, "%s/.parts", o->out);
    int rc = sim_file_mkdirs(parts, err);
    if (rc) return rc;
    if (walk(o->dir, outabs, &drives, 0)) {
        list_free(&drives);
        return sim_error_set(err, SIM_ENOMEM, "out of memory listing %s", o->dir);
    }
    if (drives.n == 0) {
        list_free(&drives);
        return sim_error_set(err, SIM_ENOTFOUND,
                             "%s: no drive logs (folders with samples.csv, or .sqlite files) under it",
                             o->dir);
    }
    qsort(drives.v, drives.n, sizeof *drives.v, str_cmp);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t jobs = o->jobs > 0 ? (size_t)o->jobs : (size_t)(cores > 0 ? cores : 1);
    if (jobs > drives.n) jobs = drives.n;
    int work[2], done[2];
    if (pipe(work) || pipe(done)) {
        list_free(&drives);
        return sim_error_set(err, SIM_EIO, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    int failed = 0, no_baseline = 0;
    pid_t *pids = calloc(jobs, sizeof *pids);
    char **status = calloc(drives.n, sizeof *status);
    bool *finished = calloc(drives.n, sizeof *finished);
    const char **baseline = o->lct_baseline_match ? calloc(drives.n, sizeof *baseline) : NULL;
    if (!pids || !status || !finished || (o->lct_baseline_match && !baseline)) {
        rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
        goto out;
    }
    if (baseline && (rc = lct_baselines(o, &drives, baseline, &no_baseline, err))) goto out;
    for (size_t w = 0; w < jobs; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(work[1]);
            close(done[0]);
            worker(o, &drives, baseline, work[0], done[1]);
        }
        if (pid < 0) {
            rc = sim_error_set(err, SIM_EIO, "fork: %s", strerror(errno));
            jobs = w;
            break;
        }
        pids[w] = pid;
    }
    close(work[0]);
    close(done[1]);
    /* Hand out the work; a pipe holds 16k indices, more are written as workers read. */
    signal(SIGPIPE, SIG_IGN);
    for (uint32_t k = 0; k < drives.n && jobs; k++)
        if (write(work[1], &k, sizeof k) != (ssize_t)sizeof k) break;
    close(work[1]);
    bool tty = isatty(STDOUT_FILENO);
    table t = {.nm = an_metric_count()};
    size_t n_done = 0;
    if (tty) progress(0, drives.n);
    uint32_t idx;
    while (read(done[0], &idx, sizeof idx) == (ssize_t)sizeof idx) {
        if (idx >= drives.n || finished[idx]) continue;
        finished[idx] = true;
        failed += read_part(o, drives.v[idx], idx, &t, tty, &status[idx]);
        n_done++;
        if (tty) progress(n_done, drives.n);
    }
    close(done[0]);
    for (size_t w = 0; w < jobs; w++) waitpid(pids[w], NULL, 0);
    for (size_t k = 0; k < drives.n; k++)
        if (!finished[k]) {
            failed += read_part(o, drives.v[k], k, &t, tty, &status[k]);
            n_done++;
        }
    if (tty) printf("\n");
    rmdir(parts);
    if (!rc) rc = write_study_csv(o, &t, err);
    if (!rc) rc = write_study_html(o, &t, &drives, status, err);
    if (!rc)
        printf("%zu drive%s, %zu task row%s, %d failed -> %s/study.csv, %s/study.html\n", drives.n,
               drives.n == 1 ? "" : "s", t.n, t.n == 1 ? "" : "s", failed, o->out, o->out);
    table_free(&t);
out:
    for (size_t k = 0; status && k < drives.n; k++) free(status[k]);
    free(status);
    free(finished);
    free(pids);
    free(baseline);
    list_free(&drives);
    if (rc) return rc;
    return failed || no_baseline ? 1 : 0;
}
