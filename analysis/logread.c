/* logread: a drive log (SQLite, written by the recorder) into an an_drive, through the
 * drive-log reader of the common library (sim_drivelog), which alone knows the schema. */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_drivelog.h"
#include "sim_msg_task.h"

static int add_events_and_gaze(an_drive *dr, sim_drivelog_reader *rd, const sim_drivelog_event *ev, size_t ne,
                               sim_error *err);

/* Meta keys the recorder writes that a report shows; a missing key is skipped. */
static const char *const meta_keys[] = {
    "study", "subject", "scenario_file", "scenario_file_sha256", "vehicle_file",
    "vehicle_file_sha256", "software", "software_version", "seed", "start_utc", "end_utc",
    "resumed_utc", "sample_rate_hz", "schema_version", "xosc_params", "gaze_areas",
};

/* The columns the analysis uses (compute.c and plot.c): only these are read from a
 * log, and only these are allocated. Reading the eleven others (pedal clutch, engine,
 * attitude, ...) would cost decoding time and memory for nothing; an_drive.col is NULL
 * for them. Their names and places in a sample come from the drive log's column list. */
static const int loaded[] = {AN_RUN, AN_TICK, AN_T, AN_SPEED, AN_HEADWAY_DIST, AN_S,
                             AN_D, AN_X, AN_Y, AN_STEER_WHEEL, AN_THROTTLE, AN_BRAKE,
                             AN_ACCEL, AN_YAW_RATE, AN_LANE}; /* the last three: take-over measures (tor.c) */
enum { N_LOADED = sizeof loaded / sizeof loaded[0] };

/* The drive-log column of analysis column c (the same names, see analysis.h). */
static const sim_drivelog_column *column_of(int c)
{
    return sim_drivelog_column_named(an_column_names[c]);
}

/* The reader hands samples over one by one; they go straight into the drive's columns,
 * which double in size as needed (no array of row structs in between). */
typedef struct loader {
    const sim_drivelog_column *cols[N_LOADED]; /* of loaded[] */
    an_drive *dr;
    size_t cap;
    sim_error *err;
    int rc;
} loader;

static int grow(loader *L)
{
    an_drive *dr = L->dr;
    size_t cap = L->cap ? 2 * L->cap : 4096;
    for (int k = 0; k < N_LOADED; k++) {
        double *p = realloc(dr->col[loaded[k]], cap * sizeof *p);
        if (!p) return sim_error_set(L->err, SIM_ENOMEM, "%s: out of memory for samples", dr->path);
        dr->col[loaded[k]] = p;
    }
    for (int c = 0; c < AN_NIDS; c++) {
        if (!dr->ids[c]) continue;
        int *p = realloc(dr->ids[c], cap * sizeof *p);
        if (!p) return sim_error_set(L->err, SIM_ENOMEM, "%s: out of memory for samples", dr->path);
        dr->ids[c] = p;
    }
    L->cap = cap;
    return 0;
}

static int take_sample(const sim_drivelog_sample *s, void *user)
{
    loader *L = user;
    an_drive *dr = L->dr;
    if (dr->n == L->cap && (L->rc = grow(L))) return 1;
    size_t i = dr->n++;
    for (int k = 0; k < N_LOADED; k++) dr->col[loaded[k]][i] = sim_drivelog_sample_number(s, L->cols[k]);
    L->rc = an_drive_set_id(dr, AN_ID_TASK, i, s->task, L->err);
    if (!L->rc && dr->ids[AN_ID_ROAD]) L->rc = an_drive_set_id(dr, AN_ID_ROAD, i, s->road, L->err);
    return L->rc != 0;
}

int an_drive_load_log(const char *path, an_drive *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    sim_drivelog_reader *rd = NULL;
    int rc = sim_drivelog_reader_open(path, &rd, err);
    if (rc) return rc;
    sim_drivelog_event *ev = NULL;
    size_t ne = 0;
    if (!(out->path = strdup(path))) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    /* Every schema has the task column; the road column came with version 2. */
    if (!rc) rc = an_drive_add_ids(out, AN_ID_TASK, err);
    if (!rc && sim_drivelog_schema_version(rd) >= 2) rc = an_drive_add_ids(out, AN_ID_ROAD, err);
    loader L = {.dr = out, .err = err};
    if (!rc) rc = grow(&L);
    const char *names[N_LOADED + AN_NIDS];
    for (int k = 0; k < N_LOADED; k++) {
        L.cols[k] = column_of(loaded[k]);
        names[k] = an_column_names[loaded[k]];
    }
    for (int k = 0; k < AN_NIDS; k++) names[N_LOADED + k] = an_id_names[k];
    /* road is in the list only where the file has it (an_id_names: task, road). */
    size_t n_names = N_LOADED + (out->ids[AN_ID_ROAD] ? AN_NIDS : AN_NIDS - 1);
    if (!rc)
        rc = sim_drivelog_each_sample(rd, sim_drivelog_range_all(), names, n_names, take_sample,
                                      &L, err);
    if (!rc) rc = L.rc;
    if (!rc) rc = sim_drivelog_read_events(rd, sim_drivelog_range_all(), &ev, &ne, err);
    if (!rc) rc = add_events_and_gaze(out, rd, ev, ne, err);
    if (!rc) rc = an_sensors_load(out, rd, err);
    if (!rc) rc = an_latency_load(out, rd, err);
    if (!rc) rc = an_motion_attach(out, rd, err);
    char buf[4096];
    for (size_t k = 0; !rc && k < sizeof meta_keys / sizeof meta_keys[0]; k++) {
        sim_error e2 = {0};
        if (sim_drivelog_read_meta(rd, meta_keys[k], buf, sizeof buf, &e2) == 0)
            rc = an_drive_set_meta(out, meta_keys[k], buf, err);
    }
    sim_drivelog_events_free(ev, ne);
    sim_drivelog_reader_close(rd);
    if (rc) an_drive_free(out);
    return rc;
}

/* Sample i of column c; NAN where the drive has no such column. */
static double at(const an_drive *dr, int c, size_t i)
{
    return dr->col[c] ? dr->col[c][i] : NAN;
}

/* The gaze table's rows (schema 3) as the gaze.sample events older logs have, so that
 * the measures read both alike (docs/instruments.md). */
typedef struct gaze_rows {
    sim_drivelog_gaze *g;
    size_t n, cap;
} gaze_rows;

static int take_gaze(const sim_drivelog_gaze *g, void *user)
{
    gaze_rows *gr = user;
    if (gr->n == gr->cap) {
        size_t cap = gr->cap ? gr->cap * 2 : 1024;
        sim_drivelog_gaze *p = realloc(gr->g, cap * sizeof *p);
        if (!p) return SIM_ENOMEM;
        gr->g = p;
        gr->cap = cap;
    }
    gr->g[gr->n++] = *g;
    return 0;
}

static int add_gaze_event(an_drive *dr, const sim_drivelog_gaze *g, sim_error *err)
{
    sim_msg_gaze_sample m;
    sim_msg_gaze_sample_clear(&m);
    m.valid = g->valid;
    snprintf(m.area, sizeof m.area, "%.31s", g->area);
    snprintf(m.target, sizeof m.target, "%.31s", g->target);
    m.yaw_deg = g->yaw_deg;
    m.pitch_deg = g->pitch_deg;
    m.confidence = g->confidence;
    cJSON *o = sim_msg_gaze_sample_encode(&m);
    char *json = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!json) return sim_error_set(err, SIM_ENOMEM, "analysis: out of memory reading gaze rows");
    int rc = an_drive_add_event(dr, (int)g->run, g->t, "gaze", "sample", json, err);
    cJSON_free(json);
    return rc;
}

/* The log's events and its gaze rows, merged in (run, t) order. */
static int add_events_and_gaze(an_drive *dr, sim_drivelog_reader *rd, const sim_drivelog_event *ev, size_t ne,
                               sim_error *err)
{
    gaze_rows gr = {0};
    int rc = sim_drivelog_each_gaze(rd, sim_drivelog_range_all(), take_gaze, &gr, err);
    if (rc == SIM_ENOMEM) sim_error_set(err, rc, "analysis: out of memory reading gaze rows");
    size_t i = 0, k = 0;
    while (!rc && (i < ne || k < gr.n)) {
        bool gaze_first = k < gr.n && (i == ne || gr.g[k].run < ev[i].run ||
                                       (gr.g[k].run == ev[i].run && gr.g[k].t < ev[i].t));
        if (gaze_first) rc = add_gaze_event(dr, &gr.g[k++], err);
        else {
            rc = an_drive_add_event(dr, (int)ev[i].run, ev[i].t, ev[i].kind, ev[i].name, ev[i].json, err);
            i++;
        }
    }
    free(gr.g);
    return rc;
}

int an_drive_write_log(const an_drive *dr, const char *path, sim_error *err)
{
    sim_drivelog_writer *w = NULL;
    remove(path);
    int rc = sim_drivelog_writer_open(path, NULL, &w, err);
    if (rc) return rc;
    for (size_t k = 0; !rc && k < dr->n_meta; k++)
        rc = sim_drivelog_set_meta(w, dr->meta_key[k], dr->meta_val[k], err);
    for (size_t i = 0; !rc && i < dr->n; i++) {
        sim_drivelog_sample s;
        sim_drivelog_sample_init(&s);
        for (int c = 0; c < AN_NCOL; c++) {
            const sim_drivelog_column *col = column_of(c);
            char *p = (char *)&s + col->offset;
            double v = at(dr, c, i);
            switch (col->type) {
            case SIM_DRIVELOG_I64: *(int64_t *)p = isnan(v) ? (c == AN_TICK ? (int64_t)i : 0) : (int64_t)v; break;
            case SIM_DRIVELOG_F64:
            case SIM_DRIVELOG_REAL: *(double *)p = v; break;
            case SIM_DRIVELOG_INT: *(int32_t *)p = isnan(v) ? SIM_DRIVELOG_NULL_INT : (int32_t)v; break;
            case SIM_DRIVELOG_ID: break; /* not an analysis column */
            }
        }
        char *const ids[AN_NIDS] = {s.task, s.road};
        for (int k = 0; k < AN_NIDS; k++)
            if (dr->ids[k] && dr->ids[k][i] >= 0)
                snprintf(ids[k], SIM_DRIVELOG_ID_MAX, "%s", dr->labels[dr->ids[k][i]]);
        rc = sim_drivelog_append_sample(w, &s, err);
        if (!rc && i % 10000 == 9999) rc = sim_drivelog_flush(w, err);
    }
    for (size_t k = 0; !rc && k < dr->n_events; k++) {
        const an_event *e = &dr->events[k];
        rc = sim_drivelog_append_event(w, e->run, e->t, e->kind, e->name, e->json, err);
    }
    int rc2 = sim_drivelog_writer_close(w, rc ? NULL : err);
    return rc ? rc : rc2;
}
