/* motion_report: the motion base in a drive's report (docs/motion.md, "Fidelity"): the
 * drive log's motion table read with the drive (an_motion_attach), the fidelity per
 * axis in metrics.json's drive.motion and the report's "Motion cueing" section with
 * its figure (plot_motion.c). A log without motion rows gets neither. */
#include "analysis.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const AXES[6] = {"f_x", "f_y", "f_z", "w_roll", "w_pitch", "w_yaw"};

static int keep_row(const sim_drivelog_motion *dm, void *user)
{
    an_motion *m = user;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        an_motion_row *p = realloc(m->rows, cap * sizeof *p);
        if (!p) {
            m->bad = -1; /* out of memory */
            return 1;
        }
        m->rows = p;
        m->cap = cap;
    }
    an_motion_row *r = &m->rows[m->n++];
    *r = (an_motion_row){.t = dm->t, .step = dm->step, .running = strcmp(dm->state, "running") == 0,
                         .limits = dm->limits == SIM_DRIVELOG_NULL_INT ? 0 : (unsigned)dm->limits,
                         .car = {dm->car_f_x, dm->car_f_y, dm->car_f_z, dm->car_w_x, dm->car_w_y, dm->car_w_z},
                         .plat = {dm->f_x, dm->f_y, dm->f_z, dm->w_x, dm->w_y, dm->w_z}};
    snprintf(m->platform, sizeof m->platform, "%s", dm->platform);
    return 0;
}

int an_motion_read(sim_drivelog_reader *rd, an_motion *m, sim_error *err)
{
    int rc = sim_drivelog_each_motion(rd, sim_drivelog_range_all(), keep_row, m, err);
    if (!rc && m->bad < 0) {
        m->bad = 0;
        rc = sim_error_set(err, SIM_ENOMEM, "analysis: out of memory reading motion rows");
    }
    return rc;
}

int an_motion_attach(an_drive *dr, sim_drivelog_reader *rd, sim_error *err)
{
    an_motion *m = calloc(1, sizeof *m);
    an_motion_result *r = calloc(1, sizeof *r);
    if (!m || !r) {
        free(m);
        free(r);
        return sim_error_set(err, SIM_ENOMEM, "analysis: out of memory reading motion rows");
    }
    int rc = an_motion_read(rd, m, err);
    if (!rc && m->n > 0) rc = an_motion_compute(m, 0.01, r, err);
    if (rc || m->n == 0) {
        an_motion_free(m);
        free(m);
        free(r);
        return rc;
    }
    dr->motion = m;
    dr->motion_fid = r;
    return 0;
}

void an_motion_drive_free(an_drive *dr)
{
    if (dr->motion) an_motion_free(dr->motion);
    free(dr->motion);
    free(dr->motion_fid);
    dr->motion = NULL;
    dr->motion_fid = NULL;
}

static cJSON *num(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *an_motion_json(const an_motion *m, const an_motion_result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "platform", m->platform);
    cJSON_AddNumberToObject(o, "rows", (double)r->rows);
    cJSON_AddNumberToObject(o, "running_s", r->running_s);
    cJSON_AddNumberToObject(o, "limit_hits", r->limit_hits);
    cJSON_AddNumberToObject(o, "limit_s", r->limit_s);
    cJSON *axes = cJSON_AddObjectToObject(o, "axes");
    for (int a = 0; axes && a < 6; a++) {
        const sim_motion_axis_fidelity *x = &r->axis[a];
        cJSON *ax = cJSON_AddObjectToObject(axes, AXES[a]);
        if (!ax) break;
        cJSON_AddItemToObject(ax, "rmse", num(x->rmse));
        cJSON_AddItemToObject(ax, "corr", num(x->corr));
        cJSON_AddItemToObject(ax, "delay_s", num(x->delay_s));
        cJSON_AddNumberToObject(ax, "false_cues", x->false_cues);
        cJSON_AddNumberToObject(ax, "false_cue_s", x->false_cue_s);
    }
    return o;
}

void an_motion_html(FILE *f, const an_drive *dr, bool plots)
{
    if (!dr->motion || !dr->motion_fid) return;
    const an_motion *m = dr->motion;
    const an_motion_result *r = dr->motion_fid;
    fputs("<h2>Motion cueing</h2>\n<p>Platform <b>", f);
    for (const char *p = m->platform; *p; p++)
        if (*p == '<') fputs("&lt;", f);
        else if (*p == '&') fputs("&amp;", f);
        else fputc(*p, f);
    fprintf(f, "</b>: %zu steps, %.1f s running; limits acted %d times (%.2f s). What the driver felt on the "
               "platform against what the car did, both through the vestibular model (otolith, semicircular "
               "canals), over the running steps (docs/motion.md).</p>\n",
            r->rows, r->running_s, r->limit_hits, r->limit_s);
    if (plots)
        fputs("<p><img src=\"motion.png\" alt=\"the car's and the platform's specific force and angular rate per "
              "axis\"><br><span class=\"muted\">vector: <a href=\"motion.svg\">motion.svg</a></span></p>\n", f);
    fputs("<table><tr><th class=\"l\">axis</th><th>RMSE</th><th>correlation</th><th>delay (s)</th>"
          "<th>false cues</th><th>false cues (s)</th></tr>", f);
    for (int a = 0; a < 6; a++) {
        const sim_motion_axis_fidelity *x = &r->axis[a];
        fprintf(f, "<tr><td class=\"l\">%s (%s)</td><td>", AXES[a], a < 3 ? "m/s&sup2;" : "rad/s");
        an_html_num(f, x->rmse, 3);
        fputs("</td><td>", f);
        an_html_num(f, x->corr, 2);
        fputs("</td><td>", f);
        an_html_num(f, x->delay_s, 2);
        fprintf(f, "</td><td>%d</td><td>", x->false_cues);
        an_html_num(f, x->false_cue_s, 2);
        fputs("</td></tr>", f);
    }
    fputs("</table>\n", f);
}
