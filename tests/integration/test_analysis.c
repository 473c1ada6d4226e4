/* Integration tests of bin/analysis: a drive solved by hand goes through `analysis
 * report` (CSV export in, metrics.json, tasks.csv, events.csv, figures and report.html
 * out), and `analysis batch` meets a study with broken drives.
 *
 * The drive: a straight road with three 3.5 m lanes right of d = 0 (marks at 0, -3.5,
 * -7, -10.5), task T1 on s = 0..100 m keeping lane -2 (centre d = -5.25), h = 0.5 m,
 * car 1.8 m wide. The car runs at 10 m/s (s = 10 t, a sample per metre) on the lane
 * centre except for a triangular excursion to the left: e rises linearly from 0 at
 * s = 40 to 2 m at s = 50 and is back to 0 at s = 60.
 *   deviation event: |e| > 0.5 from s = 42.5 to 57.5 (15 m, 1.5 s);
 *   local area = triangle 0.5 * 20 * 2 = 20 minus two corners 0.5 * 2.5 * 0.5 = 0.625
 *   each: 18.75 m^2 (over time: / 10 m/s = 1.875 m*s); MDEV = 20 / 100 = 0.2 m;
 *   lane mark: the left edge e + 0.9 passes the mark 1.75 m left of the centre when
 *   e = 0.85: s = 44.25 to 55.75, area 2 * (0.85 + 2) / 2 * 5.75 = 16.3875 m^2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_drivelog.h"
#include "sim_sha256.h"

static char tmp[256];
static char bin[512];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = 0;
    fclose(f);
    return b;
}

static const char scenario_json[] =
    "{\"format\": 1, \"name\": \"hand\",\n"
    " \"roads\": [{\"id\": \"r\", \"start\": {\"x\": 0, \"y\": 0, \"heading_deg\": 0},"
    " \"segments\": [{\"type\": \"line\", \"length\": 1000}],"
    " \"lanes\": {\"right\": [{\"width\": 3.5, \"mark\": \"dashed\"},"
    " {\"width\": 3.5, \"mark\": \"dashed\"}, {\"width\": 3.5, \"mark\": \"solid\"}]},"
    " \"speed_limits\": [{\"s_start\": 0, \"s_end\": 1000, \"speed_kmh\": 30}]}],\n"
    " \"tasks\": [{\"id\": \"T1\", \"road\": \"r\", \"s_start\": 0, \"s_end\": 100,"
    " \"tube_half_width\": 0.5, \"ideal\": {\"start_lane\": -2, \"lane_changes\": []}}]}\n";

static void write_drive(const char *dir, int n_samples, const char *subject)
{
    char p[512];
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/samples.csv", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("run,tick,t,speed,s,d,x,y,steer_wheel,throttle,brake\n", f);
    for (int i = 0; i < n_samples; i++) {
        double s = i, e = s <= 40 ? 0 : s <= 50 ? 0.2 * (s - 40) : s <= 60 ? 2 - 0.2 * (s - 50) : 0;
        fprintf(f, "0,%d,%.2f,10,%g,%.17g,%g,%.17g,0,0.2,0\n", i, i / 10.0, s, -5.25 + e, s, -5.25 + e);
    }
    fclose(f);
    snprintf(p, sizeof p, "%s/events.csv", dir);
    write_text(p, "run,t,kind,name,json\n0,3.5,trigger,lane_sign,\"{\"\"id\"\":\"\"T1\"\"}\"\n"
                  "0,4.2,button,menu_select,\"{\"\"pressed\"\":true}\"\n");
    snprintf(p, sizeof p, "%s/meta.csv", dir);
    char meta[256];
    snprintf(meta, sizeof meta, "key,value\nstudy,hand\nsubject,%s\nscenario,scenario.json\n", subject);
    write_text(p, meta);
}

static int setup(void **state)
{
    const char *b = getenv("SIM_BIN");
    snprintf(bin, sizeof bin, "%s/analysis", b ? b : "bin");
    snprintf(tmp, sizeof tmp, "/tmp/test_analysis.XXXXXX");
    if (!mkdtemp(tmp)) return -1;
    char p[512];
    snprintf(p, sizeof p, "%s/study", tmp);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/study/scenario.json", tmp);
    write_text(p, scenario_json);
    snprintf(p, sizeof p, "%s/study/A", tmp);
    write_drive(p, 101, "A");
    return 0;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

static int run(const char *fmt, ...)
{
    char args[1500], cmd[2200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", bin, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v)) fail_msg("metrics.json: %s missing", key);
    return v->valuedouble;
}

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want))))
        fail_msg("%s: got %.15g, expected %.15g", what, got, want);
}

static void report_of_hand_solved_drive(void **state)
{
    assert_int_equal(run("report %s/study/A --out %s/rep > /dev/null", tmp, tmp), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/rep/metrics.json", tmp);
    char *txt = read_text(p);
    assert_non_null(txt);
    cJSON *root = cJSON_Parse(txt);
    free(txt);
    assert_non_null(root);
    const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(root, "tasks");
    assert_int_equal(cJSON_GetArraySize(tasks), 1);
    const cJSON *t1 = cJSON_GetArrayItem(tasks, 0);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(t1, "metrics");
    near(num(m, "area_global_m2"), 18.75, "area_global");
    near(num(m, "area_global_time_ms"), 1.875, "area_global_time");
    near(num(m, "mdev_m"), 0.2, "mdev");
    near(num(m, "n_tube_events"), 1, "tube events");
    near(num(m, "n_mark_events"), 1, "mark events");
    near(num(m, "area_marks_m2"), 16.3875, "area_marks");
    near(num(m, "time_over_limit_s"), 10.0, "10 m/s over 30 km/h all along");
    /* 30 + 3 km/h is 9.17 m/s: still over it all along. */
    near(num(m, "time_over_limit_margin_s"), 10.0, "10 m/s over 33 km/h all along");
    const cJSON *evs = cJSON_GetObjectItemCaseSensitive(t1, "events");
    assert_int_equal(cJSON_GetArraySize(evs), 2);
    const cJSON *ev = cJSON_GetArrayItem(evs, 0);
    near(num(ev, "s_start_m"), 42.5, "event start");
    near(num(ev, "s_end_m"), 57.5, "event end");
    near(num(ev, "duration_s"), 1.5, "event duration");
    ev = cJSON_GetArrayItem(evs, 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(ev, "kind")->valuestring, "lane_mark");
    near(num(ev, "s_start_m"), 44.25, "mark start");
    /* The trigger at 3.5 s is answered by the button 0.7 s later (no steering or brake). */
    const cJSON *rx = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t1, "reactions"), 0);
    assert_null(rx); /* the task asks for no reaction times */
    cJSON_Delete(root);

    /* Tables: a header and one row per task / event. */
    snprintf(p, sizeof p, "%s/rep/tasks.csv", tmp);
    txt = read_text(p);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "\nT1,0,ok,1,1,0,100,"));
    free(txt);
    snprintf(p, sizeof p, "%s/rep/events.csv", tmp);
    txt = read_text(p);
    assert_non_null(strstr(txt, "\nT1,0,1,tube,0,left,42.5,57.5,"));
    assert_non_null(strstr(txt, "\nT1,0,2,lane_mark,1,left,44.25,55.75,"));
    free(txt);
    /* Figures: PNG signature, SVG root element; the page refers to them. */
    const char *figs[] = {"lateral-T1-r0", "timeline-T1-r0", "map-r0"};
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, "%s/rep/%s.png", tmp, figs[k]);
        txt = read_text(p);
        assert_non_null(txt);
        assert_memory_equal(txt, "\x89PNG\r\n\x1a\n", 8);
        free(txt);
        snprintf(p, sizeof p, "%s/rep/%s.svg", tmp, figs[k]);
        txt = read_text(p);
        assert_non_null(txt);
        assert_non_null(strstr(txt, "<svg"));
        free(txt);
    }
    snprintf(p, sizeof p, "%s/rep/report.html", tmp);
    txt = read_text(p);
    assert_non_null(strstr(txt, "src=\"lateral-T1-r0.png\""));
    assert_null(strstr(txt, "http://"));
    assert_null(strstr(txt, "https://"));
    free(txt);
}

static void batch_goes_on_past_broken_drives(void **state)
{
    char p[512];
    /* B stops at s = 70: T1 never ends. C's samples file is corrupt. */
    snprintf(p, sizeof p, "%s/study/B", tmp);
    write_drive(p, 71, "B");
    snprintf(p, sizeof p, "%s/study/C", tmp);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/study/C/samples.csv", tmp);
    write_text(p, "run,tick,t,s,d\n0,0,0,0,oops\n");
    int rc = run("batch %s/study --out %s/b --jobs 2 > %s/out.txt 2> %s/err.txt", tmp, tmp, tmp, tmp);
    assert_int_equal(rc, 1); /* one drive failed */
    snprintf(p, sizeof p, "%s/err.txt", tmp);
    char *err = read_text(p);
    assert_non_null(strstr(err, "study/C"));
    assert_non_null(strstr(err, "is not a number"));
    assert_non_null(strstr(err, "study/B: task T1 never ended in run 0"));
    free(err);
    snprintf(p, sizeof p, "%s/b/study.csv", tmp);
    char *csv = read_text(p);
    assert_non_null(csv);
    assert_true(strncmp(csv, "study,subject,scenario,drive,run,task,status,", 45) == 0);
    assert_non_null(strstr(csv, "\nhand,A,hand,A,0,T1,ok,1,1,"));
    assert_non_null(strstr(csv, "\nhand,B,hand,B,0,T1,out of range,1,0,"));
    int rows = 0;
    for (char *q = csv; *q; q++) rows += *q == '\n';
    assert_int_equal(rows, 3); /* header, A, B */
    free(csv);
    snprintf(p, sizeof p, "%s/b/study.html", tmp);
    char *html = read_text(p);
    assert_non_null(strstr(html, "study-area_global_m2.png"));
    free(html);
}

/* The margin is an option: 10 m/s = 36 km/h is never over 30 + 7 km/h. */
static void speed_margin_option(void **state)
{
    assert_int_equal(run("report %s/study/A --out %s/rm --no-plots --speed-margin-kmh 7 > /dev/null",
                         tmp, tmp), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/rm/metrics.json", tmp);
    char *txt = read_text(p);
    assert_non_null(txt);
    cJSON *root = cJSON_Parse(txt);
    free(txt);
    const cJSON *t1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "tasks"), 0);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(t1, "metrics");
    near(num(m, "time_over_limit_s"), 10.0, "over the limit");
    near(num(m, "time_over_limit_margin_s"), 0.0, "over the limit + 7 km/h");
    near(num(t1, "speed_margin_kmh"), 7.0, "margin recorded");
    cJSON_Delete(root);
    assert_int_equal(run("report %s/study/A --out %s/rm --speed-margin-kmh -1 2> /dev/null", tmp, tmp), 1);
    assert_int_equal(run("report %s/study/A --out %s/rm --speed-margin-kmh x 2> /dev/null", tmp, tmp), 2);
}

/* Two parallel roads, a (y = 0) and b (y = 100), both straight, 200 m long, one 3.5 m
 * lane right of the reference line; task TA on a and TB on b over the same s = 50..150,
 * TC on b over s = 0..30, all keeping lane -1 (d = -1.75), h = 0.5. The car drives a
 * at 10 m/s with e = +0.2 (samples at s = 0, 1, ..., 200), then b with e = -1.0 (samples
 * at s = 0.5, 1.5, ..., 199.5: it comes onto b half a metre in). Only the task column
 * tells TA's samples from TB's:
 *   TA: MDEV 0.2, no event; TB: one event over the whole task, area 1.0 * 100 m^2,
 *   MDEV 1.0, t from 25.05 s (s = 50 lies halfway between the samples at t = 25.0 and
 *   25.1); TC: its first sample (s = 0.5) follows one on road a, so the task is
 *   clipped there: length 30 - 0.5 = 29.5 m, area 29.5 m^2.
 * Found by s-range instead (the log without its task column), TB would be the pass over
 * road a: MDEV 0.2. A scenario whose only task TD lies on a third road c that the car
 * never drove: the samples' road ids are the scenario's, so TD was not driven (by its
 * s-range 50..150 it would wrongly take road a's samples). */
static void write_two_roads(const char *dir, bool with_ids, bool sqlite)
{
    char p[400];
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/sc.json", dir);
    const char *road = "\"segments\": [{\"type\": \"line\", \"length\": 200}], \"lanes\": "
                       "{\"right\": [{\"width\": 3.5, \"mark\": \"solid\"}]}}";
    const char *ideal = "\"tube_half_width\": 0.5, \"ideal\": {\"start_lane\": -1, \"lane_changes\": []}}";
    char sc[2000];
    snprintf(sc, sizeof sc,
             "{\"name\": \"two\", \"roads\": ["
             "{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0}, %s,"
             "{\"id\": \"b\", \"start\": {\"x\": 0, \"y\": 100}, %s],\n"
             " \"tasks\": [{\"id\": \"TA\", \"road\": \"a\", \"s_start\": 50, \"s_end\": 150, %s,"
             "{\"id\": \"TB\", \"road\": \"b\", \"s_start\": 50, \"s_end\": 150, %s,"
             "{\"id\": \"TC\", \"road\": \"b\", \"s_start\": 0, \"s_end\": 30, %s]}\n",
             road, road, ideal, ideal, ideal);
    write_text(p, sc);
    snprintf(p, sizeof p, "%s/sc-c.json", dir);
    snprintf(sc, sizeof sc,
             "{\"name\": \"three\", \"roads\": ["
             "{\"id\": \"a\", \"start\": {\"x\": 0, \"y\": 0}, %s,"
             "{\"id\": \"b\", \"start\": {\"x\": 0, \"y\": 100}, %s,"
             "{\"id\": \"c\", \"start\": {\"x\": 0, \"y\": 200}, %s],\n"
             " \"tasks\": [{\"id\": \"TD\", \"road\": \"c\", \"s_start\": 50, \"s_end\": 150, %s]}\n",
             road, road, road, ideal);
    write_text(p, sc);
    sim_drivelog_writer *w = NULL;
    FILE *f = NULL;
    if (sqlite) {
        snprintf(p, sizeof p, "%s/drive.sqlite", dir);
        remove(p);
        assert_int_equal(sim_drivelog_writer_open(p, NULL, &w, NULL), 0);
    } else {
        snprintf(p, sizeof p, "%s/samples.csv", dir);
        f = fopen(p, "w");
        assert_non_null(f);
        fputs(with_ids ? "run,tick,t,speed,s,d,x,y,task,road\n" : "run,tick,t,speed,s,d,x,y\n", f);
    }
    for (int i = 0; i <= 400; i++) {
        bool on_a = i <= 200;
        double s = on_a ? i : i - 201 + 0.5, e = on_a ? 0.2 : -1.0, d = -1.75 + e;
        const char *task = on_a ? (s >= 50 && s <= 150 ? "TA" : "")
                                : (s >= 50 && s <= 150 ? "TB" : s <= 30 ? "TC" : "");
        if (w) {
            sim_drivelog_sample smp;
            sim_drivelog_sample_init(&smp);
            smp.tick = i;
            smp.t = i * 0.1;
            smp.speed = 10;
            smp.s = s;
            smp.d = d;
            smp.x = s;
            smp.y = (on_a ? 0 : 100) + d;
            snprintf(smp.task, sizeof smp.task, "%s", task);
            snprintf(smp.road, sizeof smp.road, "%s", on_a ? "a" : "b");
            assert_int_equal(sim_drivelog_append_sample(w, &smp, NULL), 0);
        } else {
            fprintf(f, "0,%d,%.17g,10,%.17g,%.17g,%.17g,%.17g", i, i * 0.1, s, d, s, (on_a ? 0 : 100) + d);
            if (with_ids) fprintf(f, ",%s,%s", task, on_a ? "a" : "b");
            fputc('\n', f);
        }
    }
    if (w) {
        assert_int_equal(sim_drivelog_set_meta(w, "scenario_file", "sc.json", NULL), 0);
        assert_int_equal(sim_drivelog_writer_close(w, NULL), 0);
    } else {
        fclose(f);
    }
}

static const cJSON *task_metrics(const cJSON *root, const char *id)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(root, "tasks"))
        if (strcmp(cJSON_GetObjectItemCaseSensitive(t, "task")->valuestring, id) == 0)
            return cJSON_GetObjectItemCaseSensitive(t, "metrics");
    fail_msg("task %s missing from metrics.json", id);
    return NULL;
}

static cJSON *report_json(const char *in, const char *out, bool plots)
{
    assert_int_equal(run("report %s --out %s %s > /dev/null", in, out, plots ? "" : "--no-plots"), 0);
    char p[700];
    snprintf(p, sizeof p, "%s/metrics.json", out);
    char *txt = read_text(p);
    assert_non_null(txt);
    cJSON *root = cJSON_Parse(txt);
    free(txt);
    assert_non_null(root);
    return root;
}

static void tasks_on_roads_sharing_an_s_range(void **state)
{
    char dir[300], in[700], out[400];
    for (int variant = 0; variant < 2; variant++) { /* CSV export, drive log */
        snprintf(dir, sizeof dir, "%s/two%d", tmp, variant);
        write_two_roads(dir, true, variant == 1);
        /* The drive log names its scenario in meta; the CSV folder is given one. */
        if (variant == 1) snprintf(in, sizeof in, "%s/drive.sqlite", dir);
        else snprintf(in, sizeof in, "%s --scenario %s/sc.json", dir, dir);
        snprintf(out, sizeof out, "%s/out", dir);
        cJSON *root = report_json(in, out, variant == 1);
        const cJSON *ta = task_metrics(root, "TA"), *tb = task_metrics(root, "TB"),
                    *tc = task_metrics(root, "TC");
        near(num(ta, "mdev_m"), 0.2, "TA mdev");
        near(num(ta, "length_m"), 100, "TA length");
        near(num(ta, "n_tube_events"), 0, "TA events");
        near(num(tb, "mdev_m"), 1.0, "TB mdev");
        near(num(tb, "length_m"), 100, "TB length");
        near(num(tb, "area_global_m2"), 100, "TB area");
        near(num(tb, "t_start_s"), 25.05, "TB start");
        near(num(tc, "s_start_m"), 0.5, "TC clipped start");
        near(num(tc, "length_m"), 29.5, "TC length");
        near(num(tc, "area_global_m2"), 29.5, "TC area");
        near(num(tc, "started"), 1, "TC started");
        near(num(tc, "ended"), 1, "TC ended");
        cJSON_Delete(root);
    }
    /* The road column says where the car was: TD on road c was never driven. */
    snprintf(in, sizeof in, "%s/two0 --scenario %s/two0/sc-c.json", tmp, tmp);
    snprintf(out, sizeof out, "%s/two0/out-c", tmp);
    cJSON *cr = report_json(in, out, false);
    const cJSON *td = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cr, "tasks"), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(td, "status")->valuestring, "not found");
    assert_non_null(strstr(cJSON_GetObjectItemCaseSensitive(td, "message")->valuestring,
                           "no sample carries its id"));
    cJSON_Delete(cr);
    /* Without the task column the s-range finds road a's pass for TB. */
    snprintf(dir, sizeof dir, "%s/two2", tmp);
    write_two_roads(dir, false, false);
    snprintf(in, sizeof in, "%s --scenario %s/sc.json", dir, dir);
    snprintf(out, sizeof out, "%s/out", dir);
    cJSON *root = report_json(in, out, false);
    near(num(task_metrics(root, "TB"), "mdev_m"), 0.2, "TB by s-range");
    cJSON_Delete(root);
}

/* The same constant offset written differently: CRLF line ends, columns in another
 * order with extra ones the analysis ignores, a quoted field, the ideal path as points
 * and the scenario given by flag. One 4 m lane left of the reference line, the ideal
 * path on its centre (d = 2), the car at d = 2.8 over s = 0..50 m at 10 m/s, h = 0.5:
 * one event over the whole task, area 0.8 * 50 = 40 m^2 (4 m*s), MDEV 0.8; the body
 * (1.9..3.7 m) stays inside the lane's marks (0 and 4 m): no lane-mark event. No speed
 * or headway column: those measures are empty. */
static void inputs_in_other_shapes(void **state)
{
    char p[700], dir[512];
    snprintf(dir, sizeof dir, "%s/shapes", tmp);
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/samples.csv", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("d,extra,s,t,\"note\"\r\n", f);
    for (int i = 0; i <= 50; i++) fprintf(f, "%.1f,x,%d,%.1f,\"a,\"\"b\"\"\"\r\n", 2.8, i, i / 10.0);
    fclose(f);
    snprintf(p, sizeof p, "%s/sc.json", tmp);
    write_text(p, "{\"name\": \"p\", \"roads\": [{\"id\": \"r\", \"start\": {\"x\": 0, \"y\": 0}, \"segments\": "
                  "[{\"type\": \"line\", \"length\": 60}], \"lanes\": {\"left\": [{\"width\": 4}]}}],\n"
                  " \"tasks\": [{\"id\": \"P\", \"road\": \"r\", \"s_start\": 0, \"s_end\": 50, "
                  "\"tube_half_width\": 0.5, \"ideal\": {\"points\": [[0, 2], [50, 2]]}}]}\n");
    assert_int_equal(run("report %s --scenario %s/sc.json --out %s/rs --no-plots > /dev/null", dir, tmp, tmp), 0);
    snprintf(p, sizeof p, "%s/rs/tasks.csv", tmp);
    char *txt = read_text(p);
    assert_non_null(txt);
    /* area_global_m2 is the 12th metric column after task,run,status. */
    assert_non_null(strstr(txt, "\nP,0,ok,1,1,0,50,0,5,50,5,51,1,0,40,4,0,40,0.8,0.8,0,,,,,,,,,,,0,0,,,")); /* collisions 0 */
    free(txt);

    /* A scenario with a syntax error: the message gives line and column. */
    snprintf(p, sizeof p, "%s/broken.json", tmp);
    write_text(p, "{\"roads\": [\n  {\"id\": \"r\",, }\n]}\n");
    assert_int_equal(run("report %s --scenario %s --out %s/rb 2> %s/err2.txt", dir, p, tmp, tmp), 1);
    snprintf(p, sizeof p, "%s/err2.txt", tmp);
    txt = read_text(p);
    assert_non_null(strstr(txt, "broken.json:2:"));
    assert_non_null(strstr(txt, "JSON syntax error"));
    free(txt);
    /* A scenario whose task has no ideal path: the world model's message, with the
     * file and the JSON path. */
    snprintf(p, sizeof p, "%s/noideal.json", tmp);
    write_text(p, "{\"name\": \"p\", \"roads\": [{\"id\": \"r\", \"start\": {\"x\": 0, \"y\": 0}, \"segments\": "
                  "[{\"type\": \"line\", \"length\": 60}], \"lanes\": {\"left\": [{\"width\": 4}]}}],"
                  " \"tasks\": [{\"id\": \"P\", \"road\": \"r\", \"s_start\": 0, \"s_end\": 5, \"tube_half_width\": 1}]}");
    assert_int_equal(run("report %s --scenario %s --out %s/rb 2> %s/err3.txt", dir, p, tmp, tmp), 1);
    snprintf(p, sizeof p, "%s/err3.txt", tmp);
    txt = read_text(p);
    assert_non_null(strstr(txt, "noideal.json"));
    assert_non_null(strstr(txt, "tasks[0].ideal"));
    free(txt);
}

/* A drive log (SQLite, written through sim_drivelog) and its CSV export by simctl give
 * the same task table. */
static void drive_log_and_its_export_agree(void **state)
{
    assert_int_equal(run("synth --out %s/sq --subjects 1 --minutes 1 --tasks 2 --sqlite > /dev/null", tmp), 0);
    assert_int_equal(run("report %s/sq/S01.sqlite --out %s/sqr --no-plots > /dev/null", tmp, tmp), 0);
    char cmd[1200];
    const char *bdir = getenv("SIM_BIN");
    snprintf(cmd, sizeof cmd, "'%.500s/simctl' export %s/sq/S01.sqlite --csv %s/sqx > /dev/null",
             bdir ? bdir : "bin", tmp, tmp);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(run("report %s/sqx --scenario %s/sq/scenario.json --out %s/sqxr --no-plots > /dev/null",
                         tmp, tmp, tmp), 0);
    char p[700];
    snprintf(p, sizeof p, "%s/sqr/tasks.csv", tmp);
    char *a = read_text(p);
    snprintf(p, sizeof p, "%s/sqxr/tasks.csv", tmp);
    char *b = read_text(p);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(strstr(a, "\nT01,0,ok,1,1,"));
    assert_string_equal(a, b);
    free(a);
    free(b);
    /* A file that is not a drive log is refused by the drive-log reader, by name. */
    snprintf(p, sizeof p, "%s/junk.sqlite", tmp);
    write_text(p, "not a database at all");
    assert_int_equal(run("report %s --scenario %s/sq/scenario.json --out %s/jr 2> %s/err4.txt", p, tmp, tmp, tmp), 1);
    snprintf(p, sizeof p, "%s/err4.txt", tmp);
    char *e = read_text(p);
    assert_non_null(strstr(e, "junk.sqlite"));
    free(e);
}

static void set_log_meta(const char *log, const char *key, const char *value)
{
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(log, NULL, &w, NULL), 0);
    assert_int_equal(sim_drivelog_set_meta(w, key, value, NULL), 0);
    assert_int_equal(sim_drivelog_writer_close(w, NULL), 0);
}

/* Issue 21: an edited scenario changed task metrics with no word, and a log's meta could
 * name any file (its first 16 bytes ended up in the error). The recorder's SHA-256 in
 * meta decides: a changed scenario is refused, one given with --scenario is used but
 * every output says it differs, and only scenario file names are read. */
static void tampered_scenario_is_refused(void **state)
{
    char dir[300], log[400], sc[400], out[400];
    snprintf(dir, sizeof dir, "%s/tamper", tmp);
    write_two_roads(dir, true, true);
    snprintf(log, sizeof log, "%s/drive.sqlite", dir);
    snprintf(sc, sizeof sc, "%s/sc.json", dir);
    char hex[65];
    assert_int_equal(sim_sha256_file(sc, hex, NULL), 0);
    set_log_meta(log, "scenario_file_sha256", hex);
    assert_int_equal(run("report %s --out %s/ok --no-plots > /dev/null", log, dir), 0);
    /* The scenario edited after the drive (one byte more). */
    FILE *f = fopen(sc, "a");
    assert_non_null(f);
    fputs(" ", f);
    fclose(f);
    assert_int_equal(run("report %s --out %s/bad --no-plots 2> %s/err.txt", log, dir, dir), 1);
    snprintf(out, sizeof out, "%s/err.txt", dir);
    char *err = read_text(out);
    assert_non_null(strstr(err, "has changed since this drive"));
    free(err);
    /* Given on purpose: used, and said in every output. */
    assert_int_equal(run("report %s --scenario %s --out %s/given --no-plots 2> %s/err.txt", log, sc, dir, dir), 0);
    err = read_text(out);
    assert_non_null(strstr(err, "WARNING"));
    assert_non_null(strstr(err, "is not the one this drive was recorded with"));
    free(err);
    snprintf(out, sizeof out, "%s/given/metrics.json", dir);
    char *json = read_text(out);
    assert_non_null(strstr(json, "is not the one this drive was recorded with"));
    free(json);
    snprintf(out, sizeof out, "%s/given/tasks.csv", dir);
    char *csv = read_text(out);
    assert_null(strstr(csv, ",ok,"));
    assert_non_null(strstr(csv, "scenario differs from the drive's"));
    free(csv);
    /* A meta naming a file that is no scenario is refused without reading it. */
    set_log_meta(log, "scenario_file", "/etc/passwd");
    assert_int_equal(run("report %s --out %s/pw --no-plots 2> %s/err.txt", log, dir, dir), 1);
    snprintf(out, sizeof out, "%s/err.txt", dir);
    err = read_text(out);
    assert_non_null(strstr(err, "expected a .json, .xodr or .xosc file"));
    assert_null(strstr(err, "root:"));
    free(err);
    /* Issue 45: a meta naming a FIFO (with a scenario's name) hung the report on open;
     * it is no regular file, so it is passed over like a missing one, at once. */
    char fifo[450], cmd[4096];
    snprintf(fifo, sizeof fifo, "%s/pipe.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    set_log_meta(log, "scenario_file", fifo);
    snprintf(cmd, sizeof cmd, "timeout 10 '%s' report %s --out %s/fifo --no-plots 2> %s/err.txt", bin, log, dir, dir);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1); /* 124 would be the timeout */
    err = read_text(out);
    assert_non_null(strstr(err, "pipe.json\" (from the log's meta) not found"));
    free(err);
    /* A log the recorder began (start_utc) but never closed (no end_utc) is said to be
     * so in every output (docs/drivelog.md, "Every loss said"). */
    set_log_meta(log, "start_utc", "2026-12-02T07:00:00Z");
    assert_int_equal(run("report %s --scenario %s --out %s/open --no-plots 2> %s/err.txt", log, sc, dir, dir), 0);
    err = read_text(out);
    assert_non_null(strstr(err, "the drive log was never closed (no end_utc in its meta)"));
    free(err);
    snprintf(out, sizeof out, "%s/open/metrics.json", dir);
    json = read_text(out);
    assert_non_null(strstr(json, "the drive log was never closed"));
    free(json);
}

static void command_line(void **state)
{
    assert_int_equal(run("--help > /dev/null"), 0);
    assert_int_equal(run("report --help > /dev/null"), 0);
    assert_int_equal(run("report --bogus x 2> /dev/null"), 2);
    assert_int_equal(run("frobnicate 2> /dev/null"), 2);
    assert_int_equal(run("batch 2> /dev/null"), 2);
    assert_int_equal(run("report %s/nope --out %s/n 2> /dev/null", tmp, tmp), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_of_hand_solved_drive),
        cmocka_unit_test(batch_goes_on_past_broken_drives),
        cmocka_unit_test(speed_margin_option),
        cmocka_unit_test(tasks_on_roads_sharing_an_s_range),
        cmocka_unit_test(inputs_in_other_shapes),
        cmocka_unit_test(drive_log_and_its_export_agree),
        cmocka_unit_test(tampered_scenario_is_refused),
        cmocka_unit_test(command_line),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
