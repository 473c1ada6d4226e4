/* motion: `analysis motion LOG`, what the driver felt on the motion base against what
 * the car did (docs/motion.md, "Fidelity"): the drive log's motion table (one row per
 * motion.state; an older log's messages of recorder --all), each through the same
 * vestibular model (common/motion's sim_motion_fidelity), compared per axis while the
 * platform ran (state "running"): RMSE, correlation, delay, false cues; and the
 * stretches where a limit acted. */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cli.h"
#include "sim_json.h"
#include "sim_motion_fidelity.h"
#include "sim_msg_motion.h"

static const char *const AXES[6] = {"f_x", "f_y", "f_z", "w_roll", "w_pitch", "w_yaw"};

typedef struct take {
    an_motion *m;
    int rc;
} take;

/* Room for one more row (NULL: out of memory, tk->rc set). */
static an_motion_row *new_row(take *tk)
{
    an_motion *m = tk->m;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        an_motion_row *p = realloc(m->rows, cap * sizeof *p);
        if (!p) {
            tk->rc = SIM_ENOMEM;
            return NULL;
        }
        m->rows = p;
        m->cap = cap;
    }
    return &m->rows[m->n++];
}

/* A log made before the motion table: motion.state kept by recorder --all. */
static int take_message(int64_t run, double t, const char *topic, const char *line, size_t len, void *user)
{
    take *tk = user;
    if (strcmp(topic, SIM_TOPIC_MOTION_STATE) != 0) return 0;
    cJSON *j = cJSON_ParseWithLength(line, len);
    sim_msg_motion_state ms;
    if (!j || sim_msg_motion_state_decode(j, &ms, NULL) != SIM_OK) {
        cJSON_Delete(j);
        tk->m->bad++;
        return 0;
    }
    cJSON_Delete(j);
    an_motion_row *r = new_row(tk);
    if (!r) return 1;
    r->t = t;
    r->step = (int64_t)ms.step;
    r->running = strcmp(ms.state, "running") == 0;
    r->limits = ms.limits == SIM_MSG_NO_INT ? 0 : (unsigned)ms.limits;
    for (int k = 0; k < 3; k++) {
        r->car[k] = ms.car_f[k];
        r->car[3 + k] = ms.car_w[k];
        r->plat[k] = ms.f[k];
        r->plat[3 + k] = ms.w[k];
    }
    snprintf(tk->m->platform, sizeof tk->m->platform, "%s", ms.platform);
    return 0;
}

int an_motion_load(const char *path, an_motion *m, sim_error *err)
{
    memset(m, 0, sizeof *m);
    sim_drivelog_reader *rd;
    int rc = sim_drivelog_reader_open(path, &rd, err);
    if (rc) return rc;
    take tk = {.m = m};
    rc = an_motion_read(rd, m, err);
    if (!rc && m->n == 0) {
        m->from_messages = true;
        rc = sim_drivelog_read_messages(rd, sim_drivelog_range_all(), SIM_TOPIC_MOTION_STATE, take_message, &tk, err);
    }
    sim_drivelog_reader_close(rd);
    if (!rc && tk.rc) rc = sim_error_set(err, tk.rc, "analysis motion: out of memory");
    if (!rc && m->n == 0)
        rc = sim_error_set(err, SIM_ENOTFOUND,
                           "%s: no motion rows (a drive with simctl run --motion, or a recorder with motion-node on "
                           "the bus)", path);
    return rc;
}

void an_motion_free(an_motion *m)
{
    free(m->rows);
    memset(m, 0, sizeof *m);
}

int an_motion_compute(const an_motion *m, double dt, an_motion_result *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    sim_motion_vestibular vc, vp;
    int rc = sim_motion_vestibular_init(&vc, dt, err);
    if (!rc) rc = sim_motion_vestibular_init(&vp, dt, err);
    if (rc) return rc;
    double *car = malloc(6 * m->n * sizeof *car), *plat = malloc(6 * m->n * sizeof *plat);
    unsigned *limits = malloc(m->n * sizeof *limits);
    if (!car || !plat || !limits) {
        free(car);
        free(plat);
        free(limits);
        return sim_error_set(err, SIM_ENOMEM, "analysis motion: out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) {
        const an_motion_row *r = &m->rows[i];
        double pc[6], pp[6];
        sim_motion_vestibular_step(&vc, r->car, r->car + 3, pc, pc + 3);
        sim_motion_vestibular_step(&vp, r->plat, r->plat + 3, pp, pp + 3);
        if (!r->running) continue;
        for (int a = 0; a < 6; a++) {
            car[a * m->n + n] = pc[a];
            plat[a * m->n + n] = pp[a];
        }
        limits[n++] = r->limits;
    }
    out->running_s = (double)n * dt;
    out->rows = m->n;
    for (int a = 0; a < 6; a++)
        sim_motion_compare(car + a * m->n, plat + a * m->n, n, dt,
                           a < 3 ? SIM_MOTION_F_THRESHOLD : SIM_MOTION_W_THRESHOLD, &out->axis[a]);
    out->limit_hits = sim_motion_stretches(limits, n, dt, &out->limit_s);
    free(car);
    free(plat);
    free(limits);
    return SIM_OK;
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fputs("null", f);
}

void an_motion_print(FILE *f, const an_motion *m, const an_motion_result *r, bool json)
{
    if (json) {
        fprintf(f, "{\"platform\":\"%s\",\"rows\":%zu,\"running_s\":%.2f,\"limit_hits\":%d,\"limit_s\":%.2f,\"axes\":{",
                m->platform, r->rows, r->running_s, r->limit_hits, r->limit_s);
        for (int a = 0; a < 6; a++) {
            const sim_motion_axis_fidelity *x = &r->axis[a];
            fprintf(f, "%s\"%s\":{\"rmse\":", a ? "," : "", AXES[a]);
            json_num(f, x->rmse);
            fputs(",\"corr\":", f);
            json_num(f, x->corr);
            fputs(",\"delay_s\":", f);
            json_num(f, x->delay_s);
            fprintf(f, ",\"false_cues\":%d,\"false_cue_s\":%.2f}", x->false_cues, x->false_cue_s);
        }
        fputs("}}\n", f);
        return;
    }
    fprintf(f, "platform %s: %zu steps, %.1f s running; limits acted %d times, %.2f s\n", m->platform, r->rows,
            r->running_s, r->limit_hits, r->limit_s);
    fprintf(f, "%-8s %10s %8s %8s %11s %12s   (perceived: otolith m/s^2, canals rad/s)\n", "axis", "rmse", "corr",
            "delay_s", "false_cues", "false_cue_s");
    for (int a = 0; a < 6; a++) {
        const sim_motion_axis_fidelity *x = &r->axis[a];
        fprintf(f, "%-8s %10.4f %8.3f %8.2f %11d %12.2f\n", AXES[a], x->rmse, x->corr, x->delay_s, x->false_cues,
                x->false_cue_s);
    }
}

int an_cmd_motion(int argc, char **argv)
{
    bool json = false;
    double dt = 0.01;
    sim_opt opts[] = {
        {"json", SIM_OPT_FLAG, &json, NULL, "one JSON object instead of the table"},
        {"dt", SIM_OPT_DOUBLE, &dt, "S", "motion-node's step (default 0.01: --rate 100)"},
    };
    int npos = 0;
    int rc = sim_cli_parse("analysis motion LOG [--json] [--dt S]",
                           "What the driver felt on the motion base against what the car did, per axis "
                           "(docs/motion.md).",
                           opts, 2, argc, argv, 2, &npos);
    if (rc == SIM_CLI_HELP) return 0;
    if (rc) return 2;
    if (npos != 1 || !(dt > 0 && dt <= 0.1)) {
        fprintf(stderr, "analysis motion: expected one drive LOG (and --dt in (0, 0.1])\n");
        return 2;
    }
    an_motion m;
    an_motion_result r;
    sim_error err = {0};
    rc = an_motion_load(argv[2], &m, &err);
    if (!rc) rc = an_motion_compute(&m, dt, &r, &err);
    if (rc) {
        fprintf(stderr, "analysis motion: %s\n", err.msg);
        an_motion_free(&m);
        return 1;
    }
    an_motion_print(stdout, &m, &r, json);
    an_motion_free(&m);
    return 0;
}
