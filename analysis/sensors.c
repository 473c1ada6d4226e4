/* sensors: the drive log's lab sensor channels (sensor.<name> messages, kept in the
 * sensor table; docs/instruments.md) summarised per task and for the whole drive:
 * count, mean, SD, min, max with the channel's unit, into metrics.json ("sensors" of the
 * drive and of each task) and sensors.csv. A separate long table rather than columns of
 * tasks.csv because the channels differ from lab to lab and drive to drive, while
 * tasks.csv and study.csv keep the same columns for every drive. The statistics are
 * common/metrics (sim_sensor_stats_window). */
#include "analysis.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_drivelog.h"

void an_sensors_free(an_drive *dr)
{
    for (size_t k = 0; k < dr->n_sensors; k++) {
        free(dr->sensors[k].run);
        free(dr->sensors[k].v);
    }
    free(dr->sensors);
    dr->sensors = NULL;
    dr->n_sensors = 0;
}

static an_sensor_channel *channel_of(an_drive *dr, const sim_drivelog_sensor *s, const char *unit)
{
    for (size_t k = 0; k < dr->n_sensors; k++) {
        an_sensor_channel *c = &dr->sensors[k];
        if (!strcmp(c->sensor, s->sensor) && !strcmp(c->channel, s->channel)) return c;
    }
    an_sensor_channel *p = realloc(dr->sensors, (dr->n_sensors + 1) * sizeof *p);
    if (!p) return NULL;
    dr->sensors = p;
    an_sensor_channel *c = &p[dr->n_sensors++];
    memset(c, 0, sizeof *c);
    snprintf(c->sensor, sizeof c->sensor, "%s", s->sensor);
    snprintf(c->channel, sizeof c->channel, "%s", s->channel);
    snprintf(c->unit, sizeof c->unit, "%s", unit ? unit : "");
    return c;
}

/* The reader stops at a nonzero return without passing it on: rc keeps it. */
typedef struct sensor_loader {
    an_drive *dr;
    int rc;
} sensor_loader;

static int take_sensor(const sim_drivelog_sensor *s, const char *unit, void *user)
{
    sensor_loader *L = user;
    L->rc = SIM_ENOMEM;
    an_sensor_channel *c = channel_of(L->dr, s, unit);
    if (!c) return 1;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        int *r = realloc(c->run, cap * sizeof *r);
        if (r) c->run = r;
        sim_sensor_value *v = realloc(c->v, cap * sizeof *v);
        if (v) c->v = v;
        if (!r || !v) return 1;
        c->cap = cap;
    }
    c->run[c->n] = (int)s->run;
    c->v[c->n++] = (sim_sensor_value){.t = s->t, .value = s->value};
    L->rc = 0;
    return 0;
}

int an_sensors_load(an_drive *dr, sim_drivelog_reader *rd, sim_error *err)
{
    sensor_loader L = {.dr = dr};
    int rc = sim_drivelog_each_sensor(rd, sim_drivelog_range_all(), NULL, take_sensor, &L, err);
    if (!rc) rc = L.rc;
    if (rc == SIM_ENOMEM) return sim_error_set(err, rc, "%s: out of memory reading sensor rows", dr->path);
    return rc;
}

void an_sensor_stats(const an_sensor_channel *c, int run, double t0, double t1, sim_sensor_stats *out)
{
    if (run < 0) {
        sim_sensor_stats_window(c->v, c->n, t0, t1, out);
        return;
    }
    /* The run's rows are one stretch (rows are ordered by run, then t). */
    size_t a = 0;
    while (a < c->n && c->run[a] != run) a++;
    size_t b = a;
    while (b < c->n && c->run[b] == run) b++;
    sim_sensor_stats_window(c->v + a, b - a, t0, t1, out);
}

/* The task's time span: its first and last sample (the span the other measures use);
 * a task without samples gets an empty window. */
static void task_stats(const an_result *res, const an_task_result *tr, const an_sensor_channel *c,
                       sim_sensor_stats *out)
{
    const an_drive *dr = res->drive;
    if (tr->i1 > tr->i0 && dr->col[AN_T])
        an_sensor_stats(c, tr->run, dr->col[AN_T][tr->i0], dr->col[AN_T][tr->i1 - 1], out);
    else
        an_sensor_stats(c, tr->run, INFINITY, -INFINITY, out);
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

cJSON *an_sensors_json(const an_result *res, const an_task_result *tr)
{
    const an_drive *dr = res->drive;
    if (!dr->n_sensors) return NULL;
    cJSON *o = cJSON_CreateObject();
    for (size_t k = 0; o && k < dr->n_sensors; k++) {
        const an_sensor_channel *c = &dr->sensors[k];
        sim_sensor_stats s;
        if (tr) task_stats(res, tr, c, &s);
        else an_sensor_stats(c, -1, -INFINITY, INFINITY, &s);
        char name[2 * SIM_DRIVELOG_ID_MAX + 2];
        snprintf(name, sizeof name, "%s.%s", c->sensor, c->channel);
        cJSON *e = cJSON_AddObjectToObject(o, name);
        if (!e) break;
        cJSON_AddStringToObject(e, "unit", c->unit);
        cJSON_AddNumberToObject(e, "count", (double)s.count);
        add_num(e, "mean", s.mean);
        add_num(e, "sd", s.sd);
        add_num(e, "min", s.min);
        add_num(e, "max", s.max);
    }
    return o;
}

static void csv_row(FILE *f, const char *task, const char *run, const an_sensor_channel *c,
                    const sim_sensor_stats *s)
{
    sim_csv_field(f, task);
    fprintf(f, ",%s,", run);
    sim_csv_field(f, c->sensor);
    fputc(',', f);
    sim_csv_field(f, c->channel);
    fputc(',', f);
    sim_csv_field(f, c->unit);
    fprintf(f, ",%zu", s->count);
    const double v[] = {s->mean, s->sd, s->min, s->max};
    for (size_t q = 0; q < sizeof v / sizeof *v; q++) {
        fputc(',', f);
        if (isfinite(v[q])) fprintf(f, "%.10g", v[q]);
    }
    fputc('\n', f);
}

int an_sensors_write_csv(const an_result *res, const char *path, sim_error *err)
{
    const an_drive *dr = res->drive;
    FILE *f = fopen(path, "w");
    if (!f) return sim_error_set(err, SIM_EIO, "%s: cannot create: %s", path, strerror(errno));
    fputs("task,run,sensor,channel,unit,count,mean,sd,min,max\n", f);
    sim_sensor_stats s;
    for (size_t k = 0; k < dr->n_sensors; k++) {
        an_sensor_stats(&dr->sensors[k], -1, -INFINITY, INFINITY, &s);
        csv_row(f, "", "", &dr->sensors[k], &s);
    }
    for (size_t t = 0; t < res->n_tasks; t++) {
        const an_task_result *tr = &res->tasks[t];
        char run[16];
        snprintf(run, sizeof run, "%d", tr->run);
        for (size_t k = 0; k < dr->n_sensors; k++) {
            task_stats(res, tr, &dr->sensors[k], &s);
            csv_row(f, tr->task->id, run, &dr->sensors[k], &s);
        }
    }
    if (fclose(f)) return sim_error_set(err, SIM_EIO, "%s: write failed", path);
    return 0;
}
