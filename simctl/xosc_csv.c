/* xosc_csv: see xosc_csv.h. */
#include "xosc_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_msg_traffic.h"
#include "sim_topics.h"

/* An entity name as a CSV field (RFC 4180: quoted when it holds a comma, quote, CR or LF). */
static void put_name(FILE *f, const char *name)
{
    if (!strpbrk(name, ",\"\r\n")) {
        fputs(name, f);
        return;
    }
    fputc('"', f);
    for (const char *c = name; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static void put_row(FILE *f, double t, const char *name, double x, double y, double z, double h, double v)
{
    fprintf(f, "%.3f,", t);
    put_name(f, name);
    fprintf(f, ",%.3f,%.3f,", x, y);
    if (isfinite(z)) fprintf(f, "%.3f", z);
    fprintf(f, ",%.4f,%.3f\r\n", h, v);
}

int xosc_csv_rows(FILE *f, double t, const char *topic, const char *line, size_t len, sim_error *err)
{
    bool state = strcmp(topic, SIM_TOPIC_TRAFFIC_STATE) == 0, ego = strcmp(topic, SIM_TOPIC_TRAFFIC_EGO) == 0;
    if (!state && !ego) return 0;
    cJSON *pl = cJSON_ParseWithLength(line, len); /* a bus message: its fields beside topic, src, seq, t */
    int n = 0;
    if (!cJSON_IsObject(pl)) {
        cJSON_Delete(pl);
        return sim_error_set(err, SIM_EINVAL, "a logged %s at t %.3f s is no JSON object", topic, t);
    }
    if (ego) {
        sim_msg_traffic_ego m;
        n = sim_msg_traffic_ego_decode(pl, &m, err);
        if (!n) {
            put_row(f, t, m.id, m.x_ref, m.y_ref, NAN, m.heading, m.speed);
            n = 1;
        }
    } else {
        static sim_msg_traffic_vehicle v[SIM_MSG_TRAFFIC_MAX_VEHICLES];
        sim_msg_traffic_state m = {.vehicles = v};
        n = sim_msg_traffic_state_decode(pl, &m, SIM_MSG_TRAFFIC_MAX_VEHICLES, err);
        for (int i = 0; !n && i < m.n_vehicles; i++) {
            const double *p = v[i].has_ref ? v[i].pos_ref : v[i].pos;
            put_row(f, t, v[i].id, p[0], p[1], p[2], v[i].heading, hypot(v[i].velocity[0], v[i].velocity[1]));
        }
        if (!n) n = m.n_vehicles;
    }
    cJSON_Delete(pl);
    return n;
}

typedef struct export_ctx {
    FILE *f;
    long rows, messages;
    sim_error *err;
    int rc;
} export_ctx;

static int one(int64_t run, double t, const char *topic, const char *line, size_t len, void *user)
{
    (void)run;
    export_ctx *c = user;
    int n = xosc_csv_rows(c->f, t, topic, line, len, c->err);
    if (n < 0) {
        c->rc = n;
        return 1;
    }
    c->messages += strcmp(topic, SIM_TOPIC_TRAFFIC_STATE) == 0 || strcmp(topic, SIM_TOPIC_TRAFFIC_EGO) == 0;
    c->rows += n;
    return 0;
}

int xosc_csv_export(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, sim_error *err)
{
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    if (!tmp) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    snprintf(tmp, n, "%s.part", path);
    export_ctx c = {.f = fopen(tmp, "w"), .err = err};
    if (!c.f) {
        int rc = sim_error_set(err, SIM_EIO, "%s cannot be written", tmp);
        free(tmp);
        return rc;
    }
    fputs(XOSC_CSV_HEADER, c.f);
    int rc = sim_drivelog_read_messages(r, range, "traffic.", one, &c, err);
    if (!rc) rc = c.rc;
    if (!rc && c.messages == 0)
        rc = sim_error_set(err, SIM_ENOTFOUND, "the log holds no traffic.state or traffic.ego message: record the drive "
                           "with simctl run --record-all (the recorder's --all)");
    if (fclose(c.f) != 0 && !rc) rc = sim_error_set(err, SIM_EIO, "%s cannot be written", tmp);
    if (!rc && rename(tmp, path) != 0) rc = sim_error_set(err, SIM_EIO, "%s cannot be renamed to %s", tmp, path);
    if (rc) remove(tmp);
    free(tmp);
    return rc;
}
