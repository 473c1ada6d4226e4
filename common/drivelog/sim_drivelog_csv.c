/* sim_drivelog_csv: drive-log tables as CSV for R, pandas and spreadsheets (see the
 * CSV section of sim_drivelog.h). */
#include "sim_drivelog.h"
#include "sim_drivelog_db.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char EVENTS_HEADER[] = "run,t,kind,name,json\r\n";

/* The shortest of %.15g..%.17g that reads back as v, so 0.1 stays "0.1" and nothing
 * is lost. A locale with ',' decimals is undone so the file never depends on it. */
static void put_double(FILE *f, double v)
{
    if (isnan(v)) return;
    if (isinf(v)) {
        fputs(v > 0 ? "Inf" : "-Inf", f);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        for (char *p = buf; *p; p++)
            if (*p == ',') *p = '.';
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

static void put_int(FILE *f, int32_t v)
{
    if (v != SIM_DRIVELOG_NULL_INT) fprintf(f, "%d", (int)v);
}

static int check_stream(FILE *f, const char *what, sim_error *err)
{
    if (ferror(f)) return sim_error_set(err, SIM_EIO, "writing %s failed: %s", what, strerror(errno));
    return 0;
}

int sim_drivelog_samples_csv(FILE *f, const sim_drivelog_sample *s, size_t n, sim_error *err)
{
    for (int c = 0; c < SIM_DRIVELOG_N_COLUMNS; c++)
        fprintf(f, "%s%s", c ? "," : "", sim_drivelog_columns[c].name);
    fputs("\r\n", f);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < SIM_DRIVELOG_N_COLUMNS; c++) {
            const sim_drivelog_column *col = &sim_drivelog_columns[c];
            const char *p = (const char *)&s[i] + col->offset;
            if (c) fputc(',', f);
            switch (col->type) {
            case SIM_DRIVELOG_I64: fprintf(f, "%lld", (long long)*(const int64_t *)p); break;
            case SIM_DRIVELOG_F64:
            case SIM_DRIVELOG_REAL: put_double(f, *(const double *)p); break;
            case SIM_DRIVELOG_INT: put_int(f, *(const int32_t *)p); break;
            case SIM_DRIVELOG_ID: sim_csv_field(f, p); break;
            }
        }
        fputs("\r\n", f);
    }
    return check_stream(f, "samples CSV", err);
}

int sim_drivelog_events_csv(FILE *f, const sim_drivelog_event *e, size_t n, sim_error *err)
{
    fputs(EVENTS_HEADER, f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%lld,", (long long)e[i].run);
        put_double(f, e[i].t);
        fputc(',', f);
        sim_csv_field(f, e[i].kind);
        fputc(',', f);
        sim_csv_field(f, e[i].name);
        fputc(',', f);
        sim_csv_field(f, e[i].json);
        fputs("\r\n", f);
    }
    return check_stream(f, "events CSV", err);
}

int sim_drivelog_parse_bound(sim_drivelog_reader *r, const char *text, bool is_to, int64_t run,
                             double *t, sim_error *err)
{
    const char *what = is_to ? "--to" : "--from";
    bool task = strncmp(text, "task:", 5) == 0;
    if (task || strncmp(text, "sector:", 7) == 0) {
        const char *id = text + (task ? 5 : 7);
        if (!id[0])
            return sim_error_set(err, SIM_EINVAL, "%s '%s': expected an id after the colon", what, text);
        double t0, t1;
        int ret = sim_drivelog_span(r, run, task, id, &t0, &t1, err);
        if (ret) return ret;
        *t = is_to ? t1 : t0;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || isnan(v))
        return sim_error_set(err, SIM_EINVAL,
                             "%s '%s': expected a time in seconds, sector:ID or task:ID", what, text);
    *t = v;
    return 0;
}

/* Writes one CSV file through a temporary name; which = 0 samples, 1 events. */
static int write_file(sim_drivelog_reader *r, sim_drivelog_range range, const char *dir,
                      int which, sim_error *err)
{
    const char *name = which == 0 ? "samples.csv" : "events.csv";
    char path[4096], tmp[4100];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return sim_error_set(err, SIM_ETOOBIG, "export: directory name too long");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    sim_drivelog_sample *s = NULL;
    sim_drivelog_event *e = NULL;
    size_t n = 0;
    int ret = which == 0 ? sim_drivelog_read_samples(r, range, &s, &n, err)
                         : sim_drivelog_read_events(r, range, &e, &n, err);
    if (ret) return ret;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        ret = sim_error_set(err, SIM_EIO, "export: cannot create %s: %s", tmp, strerror(errno));
    } else {
        ret = which == 0 ? sim_drivelog_samples_csv(f, s, n, err) : sim_drivelog_events_csv(f, e, n, err);
        if (ret) sim_error_prefix(err, "export: %s", tmp);
        if (fclose(f) != 0 && !ret)
            ret = sim_error_set(err, SIM_EIO, "export: writing %s failed: %s", tmp, strerror(errno));
        if (!ret && rename(tmp, path) != 0)
            ret = sim_error_set(err, SIM_EIO, "export: cannot rename %s to %s: %s", tmp, path,
                                strerror(errno));
        if (ret) remove(tmp);
    }
    free(s);
    sim_drivelog_events_free(e, n);
    return ret;
}

int sim_drivelog_export_csv(sim_drivelog_reader *r, sim_drivelog_range range, const char *dir,
                            sim_error *err)
{
    int ret = write_file(r, range, dir, 0, err);
    return ret ? ret : write_file(r, range, dir, 1, err);
}
