/* codes: measures per coded episode (docs/codes.md "Measures per coded episode"). A
 * coded episode is a row of the log's codes table (simctl codes import): a tier, a
 * code and a time range of one run. Its samples are those of that run with
 * t_start <= t < t_end; the measures are their mean speed, the SD of the lateral
 * deviation (population SD of lat_dev, as the task SDLP of docs/metrics.md, over the
 * samples that have one), the samples counted, and the DRT stimuli and responses
 * logged inside it. */
#include "analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_cli.h"
#include "sim_csv.h"

void an_code_measure(const an_drive *dr, const sim_drivelog_code *c, an_code_episode *out)
{
    memset(out, 0, sizeof *out);
    out->code = *c;
    const double *run = dr->col[AN_RUN], *t = dr->col[AN_T], *v = dr->col[AN_SPEED], *e = dr->col[AN_LAT_DEV];
    double sv = 0, se = 0, se2 = 0;
    size_t nv = 0;
    for (size_t i = 0; i < dr->n; i++) {
        if ((int64_t)run[i] != c->run || t[i] < c->t_start - 1e-9 || t[i] >= c->t_end - 1e-9) continue;
        out->samples++;
        if (v && isfinite(v[i])) sv += v[i], nv++;
        if (e && isfinite(e[i])) se += e[i], se2 += e[i] * e[i], out->n_lat++;
    }
    out->mean_speed = nv ? sv / nv : NAN;
    if (out->n_lat) {
        double m = se / out->n_lat, var = se2 / out->n_lat - m * m;
        out->sdlp = sqrt(var > 0 ? var : 0);
    } else out->sdlp = NAN;
    for (size_t k = 0; k < dr->n_events; k++) {
        const an_event *ev = &dr->events[k];
        if (ev->run != c->run || ev->t < c->t_start - 1e-9 || ev->t >= c->t_end - 1e-9 || strcmp(ev->kind, "drt"))
            continue;
        if (!strcmp(ev->name, "stimulus") && ev->json) {
            cJSON *j = cJSON_Parse(ev->json);
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "on"))) out->drt_stimuli++;
            cJSON_Delete(j);
        }
        else if (!strcmp(ev->name, "response")) out->drt_responses++;
    }
}

typedef struct collect {
    sim_drivelog_code *v;
    size_t n, cap;
    const char *tier;
} collect;

static int collect_code(const sim_drivelog_code *c, void *user)
{
    collect *k = user;
    if (k->tier && strcmp(k->tier, c->tier)) return 0;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 32;
        sim_drivelog_code *p = realloc(k->v, cap * sizeof *p);
        if (!p) return 1;
        k->v = p;
        k->cap = cap;
    }
    k->v[k->n++] = *c;
    return 0;
}

static void num(FILE *f, double x, const char *fmt)
{
    if (isfinite(x)) fprintf(f, fmt, x);
}

void an_code_episodes_csv(FILE *f, const an_code_episode *ep, size_t n)
{
    fputs("run,tier,code,t_start,t_end,duration_s,samples,mean_speed_kmh,sdlp_m,lat_samples,drt_stimuli,"
          "drt_responses,annotator,source\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const an_code_episode *e = &ep[i];
        fprintf(f, "%lld,", (long long)e->code.run);
        sim_csv_field(f, e->code.tier);
        fputc(',', f);
        sim_csv_field(f, e->code.code);
        fprintf(f, ",%.3f,%.3f,%.3f,%zu,", e->code.t_start, e->code.t_end, e->code.t_end - e->code.t_start, e->samples);
        num(f, e->mean_speed * 3.6, "%.3f");
        fputc(',', f);
        num(f, e->sdlp, "%.4f");
        fprintf(f, ",%zu,%zu,%zu,", e->n_lat, e->drt_stimuli, e->drt_responses);
        sim_csv_field(f, e->code.annotator);
        fputc(',', f);
        sim_csv_field(f, e->code.source);
        fputc('\n', f);
    }
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

/* The codes of the log dr was read from (none for a CSV export or a log without). */
static int load_codes(const char *path, const char *tier, collect *k, sim_error *err)
{
    sim_drivelog_reader *r = NULL;
    k->tier = tier;
    int ret = sim_drivelog_reader_open(path, &r, err);
    if (!ret) ret = sim_drivelog_each_code(r, -1, collect_code, k, err);
    sim_drivelog_reader_close(r);
    return ret;
}

void an_codes_html(FILE *f, const an_drive *dr)
{
    collect k = {0};
    sim_error err = {0};
    if (!dr->path || load_codes(dr->path, NULL, &k, &err) || !k.n) {
        free(k.v);
        return;
    }
    fputs("<h2>Coded episodes</h2>\n<p>Behaviour codes imported from ELAN (simctl codes import; docs/codes.md): "
          "the samples of each episode's run with t_start &le; t &lt; t_end.</p>\n<table><tr><th class=\"l\">tier</th>"
          "<th class=\"l\">code</th><th>run</th><th>from (s)</th><th>to (s)</th><th>samples</th>"
          "<th>mean speed (km/h)</th><th>SDLP (m)</th><th>DRT stimuli</th><th>DRT responses</th>"
          "<th class=\"l\">annotator</th><th class=\"l\">source</th></tr>\n",
          f);
    for (size_t i = 0; i < k.n; i++) {
        an_code_episode e;
        an_code_measure(dr, &k.v[i], &e);
        fputs("<tr><td class=\"l\">", f);
        html_esc(f, e.code.tier);
        fputs("</td><td class=\"l\">", f);
        html_esc(f, e.code.code);
        fprintf(f, "</td><td>%lld</td><td>%.3f</td><td>%.3f</td><td>%zu</td><td>", (long long)e.code.run,
                e.code.t_start, e.code.t_end, e.samples);
        an_html_num(f, e.mean_speed * 3.6, 1);
        fputs("</td><td>", f);
        an_html_num(f, e.sdlp, 3);
        fprintf(f, "</td><td>%zu</td><td>%zu</td><td class=\"l\">", e.drt_stimuli, e.drt_responses);
        html_esc(f, e.code.annotator);
        fputs("</td><td class=\"l\">", f);
        html_esc(f, e.code.source);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    free(k.v);
}

int an_cmd_codes(int argc, char **argv)
{
    const char *out = NULL, *tier = NULL;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "FILE.csv", "write the table there (default standard output)"},
        {"tier", SIM_OPT_STRING, &tier, "NAME", "only this tier's episodes"},
    };
    const char *usage = "analysis codes LOG [--tier NAME] [--out FILE.csv]";
    int npos = 0;
    int rc = sim_cli_parse(usage, "Measures per coded episode of a drive log's codes table (simctl codes import): "
                                  "mean speed, SDLP, DRT stimuli and responses (docs/codes.md).",
                           opts, 2, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos != 1) {
        fprintf(stderr, "analysis codes: expected one LOG\n");
        return 2;
    }
    const char *log = argv[2];
    sim_error err = {0};
    an_drive dr;
    collect k = {0};
    int ret = an_drive_load_log(log, &dr, &err);
    if (ret) {
        fprintf(stderr, "analysis codes: %s\n", err.msg);
        return 1;
    }
    ret = load_codes(log, tier, &k, &err);
    an_code_episode *ep = k.n ? calloc(k.n, sizeof *ep) : NULL;
    if (!ret && k.n && !ep) ret = sim_error_set(&err, SIM_ENOMEM, "out of memory");
    for (size_t i = 0; !ret && i < k.n; i++) an_code_measure(&dr, &k.v[i], &ep[i]);
    FILE *f = stdout;
    if (!ret && out && !(f = fopen(out, "w"))) ret = sim_error_set(&err, SIM_EIO, "%s: cannot write", out);
    if (!ret) {
        an_code_episodes_csv(f, ep, k.n);
        if (f != stdout && fclose(f)) ret = sim_error_set(&err, SIM_EIO, "%s: write failed", out);
    }
    if (!ret && !k.n) fprintf(stderr, "analysis codes: %s has no codes%s (simctl codes import LOG FILE.eaf)\n", log,
                              tier ? " on that tier" : "");
    free(ep);
    free(k.v);
    an_drive_free(&dr);
    if (ret) {
        fprintf(stderr, "analysis codes: %s: %s\n", log, err.msg);
        return 1;
    }
    return 0;
}
