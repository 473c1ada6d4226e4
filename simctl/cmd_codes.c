/* cmd_codes: `simctl codes` (cmd_codes.h). Time: a video made by `simctl video` shows at
 * media time m the drive at log time t0 + m / 1000 s, t0 the run's first positioned
 * sample (or --from); the .eaf's TIME_VALUEs are media milliseconds and its HEADER
 * carries t0 and the run, which an import adds back. */
#include "cmd_codes.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "sim_cli.h"
#include "sim_codes.h"
#include "sim_csv.h"
#include "sim_drivelog.h"
#include "sim_file.h"

#define MAX_OPEN 64

/* The run a video shows and its first and last sample with a position: frame 0 of
 * `simctl video` without --from is the drive at *first (the rule of simctl-video's
 * span, docs/video.md "The time base"). */
typedef struct span {
    int64_t run;
    double first, last;
    size_t n;
} span;

static int span_sample(const sim_drivelog_sample *s, void *user)
{
    span *p = user;
    if (p->n && s->run != p->run) return 1;
    if (!isfinite(s->x) || !isfinite(s->y) || !isfinite(s->z)) return 0;
    if (!p->n) {
        p->run = s->run;
        p->first = s->t;
    }
    p->last = s->t;
    p->n++;
    return 0;
}

static int video_span(sim_drivelog_reader *r, int64_t run, int64_t *run_out, double *first, double *last,
                      sim_error *err)
{
    span sp = {0};
    sim_drivelog_range range = sim_drivelog_range_all();
    range.run = run;
    static const char *const cols[] = {"t", "x", "y", "z"};
    int ret = sim_drivelog_each_sample(r, range, cols, 4, span_sample, &sp, err);
    if (ret) return ret;
    if (!sp.n) return sim_error_set(err, SIM_ENOTFOUND, "no samples with a position%s", run >= 0 ? " in that run" : "");
    *run_out = sp.run;
    *first = sp.first;
    *last = sp.last;
    return SIM_OK;
}

/* An interval being built: opened by one event, closed by a later one. */
typedef struct open_iv {
    char tier[64], value[128];
    double t;
    bool used;
} open_iv;

typedef struct builder {
    sim_codes *codes;
    double t0, t_end;
    open_iv open[MAX_OPEN];
    sim_error *err;
} builder;

static int64_t to_ms(const builder *b, double t)
{
    double ms = (t - b->t0) * 1000.0;
    if (ms < 0) ms = 0;
    return llround(ms);
}

static int add(builder *b, const char *tier, const char *value, double ts, double te)
{
    if (te < b->t0 || ts > b->t_end) return SIM_OK; /* outside the video */
    if (te > b->t_end) te = b->t_end;
    return sim_codes_add(b->codes, tier, value, "sim", to_ms(b, ts), to_ms(b, te), b->err);
}

static open_iv *find_open(builder *b, const char *tier, const char *value)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (b->open[i].used && !strcmp(b->open[i].tier, tier) && (!value || !strcmp(b->open[i].value, value)))
            return &b->open[i];
    return NULL;
}

static void begin(builder *b, const char *tier, const char *value, double t)
{
    if (find_open(b, tier, value)) return; /* already open: the first start counts */
    for (int i = 0; i < MAX_OPEN; i++)
        if (!b->open[i].used) {
            snprintf(b->open[i].tier, sizeof b->open[i].tier, "%s", tier);
            snprintf(b->open[i].value, sizeof b->open[i].value, "%s", value);
            b->open[i].t = t;
            b->open[i].used = true;
            return;
        }
}

/* Closes the open interval of tier (and value, NULL: any) at t. */
static int finish(builder *b, const char *tier, const char *value, double t)
{
    open_iv *o = find_open(b, tier, value);
    if (!o) return SIM_OK;
    o->used = false;
    return add(b, o->tier, o->value, o->t, t);
}

static const char *jstr(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The log's events of one run as tiers (docs/codes.md "Tiers"). */
static int build(builder *b, const sim_drivelog_event *ev, size_t n);

int simctl_codes_from_events(const sim_drivelog_event *ev, size_t n, double t0, double t_end, sim_codes *out,
                             sim_error *err)
{
    builder b = {.codes = out, .t0 = t0, .t_end = t_end, .err = err};
    return build(&b, ev, n);
}

static int build(builder *b, const sim_drivelog_event *ev, size_t n)
{
    int rc = SIM_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const sim_drivelog_event *e = &ev[i];
        cJSON *j = e->json ? cJSON_Parse(e->json) : NULL;
        const char *id = j ? jstr(j, "id") : NULL;
        if (!strcmp(e->kind, "task") || !strcmp(e->kind, "sector")) {
            if (id && !strcmp(e->name, "start")) begin(b, e->kind, id, e->t);
            else if (id && !strcmp(e->name, "end")) rc = finish(b, e->kind, id, e->t);
        } else if (!strcmp(e->kind, "automation")) {
            const char *mode = j ? jstr(j, "mode") : NULL;
            /* mode episodes: each event names the mode after it */
            if (mode) {
                open_iv *o = find_open(b, "automation", NULL);
                if (o && strcmp(o->value, mode)) rc = finish(b, "automation", NULL, e->t);
                if (!rc && strcmp(mode, "manual")) begin(b, "automation", mode, e->t);
            }
            /* take-over requests: from the TOR to the take-over (handover, override) or the MRM */
            if (!rc && !strcmp(e->name, "tor")) begin(b, "tor", "tor", e->t);
            else if (!rc && (!strcmp(e->name, "handover") || !strcmp(e->name, "override") || !strcmp(e->name, "mrm")))
                rc = finish(b, "tor", NULL, e->t);
            if (!rc) rc = add(b, "automation_event", e->name, e->t, e->t);
        } else if (!strcmp(e->kind, "drt") && !strcmp(e->name, "stimulus")) {
            const cJSON *on = j ? cJSON_GetObjectItemCaseSensitive(j, "on") : NULL;
            const char *mod = j ? jstr(j, "modality") : NULL;
            if (cJSON_IsTrue(on)) begin(b, "drt", mod ? mod : "stimulus", e->t);
            else if (cJSON_IsFalse(on)) rc = finish(b, "drt", NULL, e->t);
        } else if (!strcmp(e->kind, "drt") && !strcmp(e->name, "response")) {
            rc = add(b, "drt_response", "response", e->t, e->t);
        } else if (!strcmp(e->kind, "run") && !strcmp(e->name, "paused")) {
            begin(b, "pause", "paused", e->t);
        } else if (!strcmp(e->kind, "run") && !strcmp(e->name, "resumed")) {
            rc = finish(b, "pause", NULL, e->t);
        } else if (!strcmp(e->kind, "mark") || !strcmp(e->kind, "collision") || !strcmp(e->kind, "surt") ||
                   !strcmp(e->kind, "hmi") || (!strcmp(e->kind, "signal") && !strcmp(e->name, "red_run"))) {
            rc = add(b, e->kind, e->name, e->t, e->t);
        }
        cJSON_Delete(j);
    }
    /* still open at the end: until the end of the video */
    for (int i = 0; i < MAX_OPEN && !rc; i++)
        if (b->open[i].used) {
            b->open[i].used = false;
            rc = add(b, b->open[i].tier, b->open[i].value, b->open[i].t, b->t_end);
        }
    return rc;
}

/* "file:///abs/path" with bytes outside RFC 3986's unreserved set and '/' escaped. */
static void file_url(const char *path, char *out, size_t size, bool file_scheme)
{
    size_t k = 0;
    if (file_scheme) k = (size_t)snprintf(out, size, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            out[k++] = (char)*p;
        else k += (size_t)snprintf(out + k, size - k, "%%%02X", *p);
    }
    out[k] = '\0';
}

/* The path of target relative to the folder dir (both absolute, no . or .. parts). */
static void relative_path(const char *dir, const char *target, char *out, size_t size)
{
    size_t common = 0, i = 0;
    while (dir[i] && dir[i] == target[i]) {
        if (dir[i] == '/') common = i + 1;
        i++;
    }
    if (!dir[i] && target[i] == '/') common = i + 1;
    size_t k = (size_t)snprintf(out, size, "./");
    for (const char *p = dir + common; *p && k < size; p++)
        if (*p == '/' || p == dir + common) k += (size_t)snprintf(out + k, size - k, "../");
    if (!strcmp(dir, "/")) k = (size_t)snprintf(out, size, "./");
    snprintf(out + k, size > k ? size - k : 0, "%s", target + common);
}

static const char *mime_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && !strcasecmp(dot, ".mp4")) return "video/mp4";
    if (dot && !strcasecmp(dot, ".webm")) return "video/webm";
    if (dot && (!strcasecmp(dot, ".mov"))) return "video/quicktime";
    if (dot && !strcasecmp(dot, ".wav")) return "audio/x-wav";
    return "unknown";
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int cmd_export(int argc, char **argv)
{
    const char *out = NULL, *video = NULL, *boris = NULL, *from = NULL;
    int run = -1;
    bool force = false;
    sim_opt opts[] = {
        {"out", SIM_OPT_STRING, &out, "OUT.eaf", "the ELAN file (also -o)"},
        {"video", SIM_OPT_STRING, &video, "FILE", "the drive's video (simctl video): linked with an absolute and a relative URL"},
        {"boris", SIM_OPT_STRING, &boris, "FILE.csv", "also the same tiers as a BORIS-style events CSV"},
        {"from", SIM_OPT_STRING, &from, "T|sector:ID|task:ID", "the video's first frame, as given to simctl video (default the run's first sample)"},
        {"run", SIM_OPT_INT, &run, "N", "the log's run N (default its first)"},
        {"force", SIM_OPT_FLAG, &force, NULL, "overwrite existing files"},
    };
    const char *usage = "simctl codes export LOG -o OUT.eaf [--video FILE] [--boris FILE.csv] [--from ...] [--run N] [--force]";
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-o")) argv[i] = "--out";
    int npos = 0;
    int rc = sim_cli_parse(usage, "The drive log's events as ELAN tiers on the video's time line (docs/codes.md).",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos != 1 || !out) {
        fprintf(stderr, "simctl codes export: expected one LOG and -o OUT.eaf\n");
        return 2;
    }
    const char *log = argv[2];
    if (!force && (access(out, F_OK) == 0 || (boris && access(boris, F_OK) == 0))) {
        fprintf(stderr, "simctl codes export: %s exists; give --force to overwrite it\n",
                access(out, F_OK) == 0 ? out : boris);
        return 1;
    }
    sim_error err = {0};
    sim_drivelog_reader *r = NULL;
    int64_t the_run = -1;
    double first = 0, last = 0, t_from = NAN;
    sim_drivelog_event *ev = NULL;
    size_t nev = 0;
    sim_codes codes = {0};
    int ret = sim_drivelog_reader_open(log, &r, &err);
    if (!ret) ret = video_span(r, run, &the_run, &first, &last, &err);
    if (!ret && from) ret = sim_drivelog_parse_bound(r, from, false, the_run, &t_from, &err);
    if (!ret) {
        sim_drivelog_range range = sim_drivelog_range_all();
        range.run = the_run;
        ret = sim_drivelog_read_events(r, range, &ev, &nev, &err);
    }
    builder b = {.codes = &codes, .t0 = isnan(t_from) ? first : fmax(t_from, first), .t_end = last, .err = &err};
    if (!ret) ret = build(&b, ev, nev);
    sim_drivelog_events_free(ev, nev);
    sim_drivelog_reader_close(r);
    char url[3 * PATH_MAX], rel[3 * PATH_MAX], date[40];
    char abs_video[PATH_MAX], abs_dir[PATH_MAX];
    sim_codes_media m = {.mime_type = video ? mime_of(video) : NULL, .author = "simctl codes export",
                         .log_name = base_of(log), .t0 = b.t0, .run = the_run};
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    m.date = date;
    if (!ret && video) {
        char *dir = sim_file_dirname(out);
        if (!realpath(video, abs_video))
            ret = sim_error_set(&err, SIM_ENOTFOUND, "--video %s: not found", video);
        else if (!dir || !realpath(dir, abs_dir))
            ret = sim_error_set(&err, SIM_ENOTFOUND, "-o %s: its folder does not exist", out);
        free(dir);
        if (!ret) {
            char relp[2 * PATH_MAX];
            file_url(abs_video, url, sizeof url, true);
            relative_path(abs_dir, abs_video, relp, sizeof relp);
            file_url(relp, rel, sizeof rel, false);
            m.url = url;
            m.relative_url = rel;
        }
    }
    FILE *f = NULL;
    if (!ret && !(f = fopen(out, "w"))) ret = sim_error_set(&err, SIM_EIO, "%s: cannot write", out);
    if (!ret) ret = sim_codes_eaf_write(f, &m, &codes, &err);
    if (f && fclose(f) && !ret) ret = sim_error_set(&err, SIM_EIO, "%s: write failed", out);
    if (!ret && boris) {
        FILE *g = fopen(boris, "w");
        if (!g) ret = sim_error_set(&err, SIM_EIO, "%s: cannot write", boris);
        else {
            ret = sim_codes_boris_write(g, &m, base_of(log), &codes, &err);
            if (fclose(g) && !ret) ret = sim_error_set(&err, SIM_EIO, "%s: write failed", boris);
        }
    }
    if (ret) {
        fprintf(stderr, "simctl codes export: %s: %s\n", log, err.msg);
        sim_codes_free(&codes);
        return 1;
    }
    printf("%s: %zu annotations of run %lld (media time 0 = log time %.3f s) -> %s%s%s\n", log, codes.n,
           (long long)the_run, b.t0, out, boris ? ", " : "", boris ? boris : "");
    sim_codes_free(&codes);
    return 0;
}

static int cmd_import(int argc, char **argv)
{
    const char *annotator = NULL;
    int run = -1;
    double t0 = NAN;
    sim_opt opts[] = {
        {"run", SIM_OPT_INT, &run, "N", "the run the codes belong to (default: the .eaf's sim.run, else the first)"},
        {"t0", SIM_OPT_DOUBLE, &t0, "S", "log time of media time 0 (default: the .eaf's sim.t0_s, else the run's first sample)"},
        {"annotator", SIM_OPT_STRING, &annotator, "NAME", "for tiers without an ANNOTATOR"},
    };
    const char *usage = "simctl codes import LOG FILE.eaf|FILE.csv [--run N] [--t0 S] [--annotator NAME]";
    int npos = 0;
    int rc = sim_cli_parse(usage, "Coded tiers of an ELAN file (or a BORIS-style events CSV) into the drive log's codes table; importing the same "
                                  "file again replaces its rows (docs/codes.md).",
                           opts, sizeof opts / sizeof opts[0], argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos != 2) {
        fprintf(stderr, "simctl codes import: expected LOG and FILE.eaf (or FILE.csv)\n");
        return 2;
    }
    const char *log = argv[2], *file = argv[3];
    sim_error err = {0};
    char *data = NULL;
    size_t len = 0;
    sim_codes codes = {0};
    sim_drivelog_code *rows = NULL;
    size_t removed = 0;
    int ret = sim_file_read_max(file, 256u << 20, &data, &len, &err);
    const char *dot = strrchr(file, '.');
    bool csv = dot && !strcasecmp(dot, ".csv");
    if (!ret) ret = csv ? sim_codes_boris_parse(data, len, file, &codes, &err)
                        : sim_codes_eaf_parse(data, len, file, &codes, &err);
    free(data);
    int64_t the_run = run;
    double first = 0, last = 0;
    if (!ret) {
        if (the_run < 0 && codes.has_run) the_run = codes.run;
        sim_drivelog_reader *r = NULL;
        ret = sim_drivelog_reader_open(log, &r, &err);
        int64_t found = -1;
        if (!ret) ret = video_span(r, the_run, &found, &first, &last, &err);
        sim_drivelog_reader_close(r);
        if (!ret) the_run = found;
        if (isnan(t0)) t0 = codes.has_t0 ? codes.t0 : first;
    }
    if (!ret && codes.n && !(rows = calloc(codes.n, sizeof *rows)))
        ret = sim_error_set(&err, SIM_ENOMEM, "out of memory");
    for (size_t i = 0; !ret && i < codes.n; i++) {
        const sim_code *k = &codes.items[i];
        rows[i].run = the_run;
        rows[i].t_start = t0 + k->start_ms / 1000.0;
        rows[i].t_end = t0 + k->end_ms / 1000.0;
        snprintf(rows[i].tier, sizeof rows[i].tier, "%s", k->tier);
        snprintf(rows[i].code, sizeof rows[i].code, "%s", k->value);
        snprintf(rows[i].annotator, sizeof rows[i].annotator, "%s", k->annotator[0] ? k->annotator : annotator ? annotator : "");
    }
    if (!ret) ret = sim_drivelog_replace_codes(log, base_of(file), rows, codes.n, &removed, &err);
    free(rows);
    if (ret) {
        fprintf(stderr, "simctl codes import: %s\n", err.msg);
        sim_codes_free(&codes);
        return 1;
    }
    printf("%s: %zu codes from %s into run %lld (media time 0 = log time %.3f s); %zu rows of an earlier import "
           "replaced%s\n",
           log, codes.n, base_of(file), (long long)the_run, t0, removed, codes.skipped ? "; unaligned annotations skipped" : "");
    sim_codes_free(&codes);
    return 0;
}

static int print_code(const sim_drivelog_code *c, void *user)
{
    (void)user;
    printf("%lld,", (long long)c->run);
    sim_csv_field(stdout, c->tier);
    putchar(',');
    sim_csv_field(stdout, c->code);
    printf(",%.3f,%.3f,", c->t_start, c->t_end);
    sim_csv_field(stdout, c->annotator);
    putchar(',');
    sim_csv_field(stdout, c->source);
    putchar('\n');
    return 0;
}

static int cmd_list(int argc, char **argv)
{
    if (argc != 3 || argv[2][0] == '-') {
        fprintf(stderr, "usage: simctl codes list LOG   (the log's codes table as CSV)\n");
        return argc == 3 && !strcmp(argv[2], "--help") ? 0 : 2;
    }
    sim_error err = {0};
    sim_drivelog_reader *r = NULL;
    int ret = sim_drivelog_reader_open(argv[2], &r, &err);
    if (!ret) {
        printf("run,tier,code,t_start,t_end,annotator,source\n");
        ret = sim_drivelog_each_code(r, -1, print_code, NULL, &err);
    }
    sim_drivelog_reader_close(r);
    if (ret) {
        fprintf(stderr, "simctl codes list: %s\n", err.msg);
        return 1;
    }
    return 0;
}

int simctl_cmd_codes(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "export")) return cmd_export(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "import")) return cmd_import(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "list")) return cmd_list(argc, argv);
    fprintf(stderr, "usage: simctl codes export LOG -o OUT.eaf [--video FILE] [--boris FILE.csv]\n"
                    "       simctl codes import LOG FILE.eaf|FILE.csv [--run N] [--t0 S] [--annotator NAME]\n"
                    "       simctl codes list LOG\n");
    return 2;
}
