/* lct: the Lane Change Test's MDEV per lane change and against the adaptive model
 * (ISO 26022; docs/metrics.md, "Lane Change Test"). A task whose ideal path changes lanes
 * gets one segment per change, from the change's start to the next one's (the last to
 * the task's end), with MDEV against the normative path (the scenario's) and, given the
 * participant's baseline drive (--lct-baseline), against the adaptive path built from
 * that drive's lane changes (sim_lct_profile_make, sim_lct_adaptive_path). */
#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAME_D 1e-9

int an_lct_baseline(const char *path, const char *scenario, const an_params *p, an_scenario *sc, sim_error *err)
{
    an_drive dr;
    an_scenario bsc;
    an_result res;
    char scpath[4200];
    int rc = an_drive_load(path, &dr, err);
    if (rc) return rc;
    an_params bp = *p;
    bp.lct_baseline = NULL;
    if ((rc = an_find_scenario(&dr, scenario, scpath, sizeof scpath, err)) ||
        (rc = an_scenario_load(scpath, &bp, &bsc, err))) {
        an_drive_free(&dr);
        return rc;
    }
    if ((rc = an_compute(&dr, &bsc, &res, err))) {
        an_scenario_free(&bsc);
        an_drive_free(&dr);
        return rc;
    }
    /* Every computed task that changes lanes adds its changes, weighted by their number. */
    sim_lct_profile sum = {0}, one;
    double off = 0;
    for (size_t k = 0; k < res.n_tasks && !rc; k++) {
        const an_task_result *tr = &res.tasks[k];
        if (!tr->computed) continue;
        sim_error e = {0};
        if (sim_lct_profile_make(dr.col[AN_S] + tr->i0, dr.col[AN_D] + tr->i0, tr->i1 - tr->i0, tr->task->ideal,
                                 tr->task->n_ideal, &one, &e)) {
            if (e.code == SIM_ENOMEM) rc = sim_error_set(err, SIM_ENOMEM, "%s", e.msg);
            continue;
        }
        for (int j = 0; j < SIM_LCT_PROFILE_N; j++) sum.shape[j] += one.shape[j] * (double)one.n_changes;
        off += one.lane_offset * (double)one.n_changes;
        sum.n_changes += one.n_changes;
        sum.x0 = one.x0, sum.dx = one.dx;
    }
    an_result_free(&res);
    an_scenario_free(&bsc);
    an_drive_free(&dr);
    if (rc) return rc;
    if (!sum.n_changes)
        return sim_error_set(err, SIM_EINVAL, "%s: --lct-baseline: the drive has no complete lane change in a "
                             "task whose ideal path changes lanes (from 20 m before to 80 m after its start)", path);
    for (int j = 0; j < SIM_LCT_PROFILE_N; j++) sum.shape[j] /= (double)sum.n_changes;
    sum.lane_offset = off / (double)sum.n_changes;
    if (!(sc->lct_profile = malloc(sizeof *sc->lct_profile))) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    *sc->lct_profile = sum;
    return 0;
}

/* MDEV of the task's samples against ideal over [s0, s1]; NAN when it cannot be had. */
static double mdev_over(const an_drive *dr, const an_task_result *tr, const sim_metrics_point *ideal, size_t n_ideal,
                        double s0, double s1, int *oom)
{
    sim_metrics_samples smp = {.n = tr->i1 - tr->i0, .t = dr->col[AN_T] + tr->i0, .s = dr->col[AN_S] + tr->i0,
                               .d = dr->col[AN_D] + tr->i0};
    sim_metrics_task task;
    sim_metrics_task_init(&task);
    task.s_start = s0, task.s_end = s1;
    task.ideal = ideal, task.n_ideal = n_ideal;
    task.tube_half_width = tr->task->tube_half_width;
    sim_metrics_result r;
    sim_error err = {0};
    int rc = sim_metrics_compute(&smp, &task, &r, &err);
    if (rc == SIM_ENOMEM) *oom = 1;
    if (rc) return NAN;
    double v = r.started && r.ended ? r.mdev : NAN;
    sim_metrics_result_free(&r);
    return v;
}

int an_lct_task(const an_result *res, const an_scenario *sc, an_task_result *tr)
{
    an_measures *x = &tr->x;
    x->mdev_adaptive = NAN;
    const an_task *tk = tr->task;
    size_t changes = 0;
    for (size_t p = 0; p + 1 < tk->n_ideal; p++) changes += fabs(tk->ideal[p + 1].d - tk->ideal[p].d) > SAME_D;
    if (!changes || !tr->computed || tr->i1 - tr->i0 < 2) return 0;
    if (!(x->lct = calloc(changes, sizeof *x->lct))) return SIM_ENOMEM;
    sim_metrics_point *ad = NULL;
    size_t n_ad = 0;
    sim_error err = {0};
    if (sc->lct_profile && sim_lct_adaptive_path(sc->lct_profile, tk->ideal, tk->n_ideal, &ad, &n_ad, &err))
        return SIM_ENOMEM;
    int oom = 0;
    for (size_t p = 0; p + 1 < tk->n_ideal; p++) {
        if (fabs(tk->ideal[p + 1].d - tk->ideal[p].d) <= SAME_D) continue;
        an_lct_segment *g = &x->lct[x->n_lct++];
        g->s_start = tk->ideal[p].s;
        g->s_end = tk->s_end;
        for (size_t q = p + 1; q + 1 < tk->n_ideal; q++)
            if (fabs(tk->ideal[q + 1].d - tk->ideal[q].d) > SAME_D) {
                g->s_end = tk->ideal[q].s;
                break;
            }
        g->d_from = tk->ideal[p].d;
        g->d_to = tk->ideal[p + 1].d;
        g->mdev_normative = mdev_over(res->drive, tr, tk->ideal, tk->n_ideal, g->s_start, g->s_end, &oom);
        g->mdev_adaptive = ad ? mdev_over(res->drive, tr, ad, n_ad, g->s_start, g->s_end, &oom) : NAN;
    }
    if (ad) x->mdev_adaptive = mdev_over(res->drive, tr, ad, n_ad, tr->m.s_start, tr->m.s_end, &oom);
    free(ad);
    return oom ? SIM_ENOMEM : 0;
}

/* A Lane Change Test task (its ideal path changes lanes): MDEV against the normative and
 * the adaptive model for the task and per change (docs/metrics.md, "Lane Change Test"). */
void an_lct_html(FILE *f, const an_result *res, const an_task_result *tr)
{
    const an_measures *x = &tr->x;
    if (!x->n_lct) return;
    const sim_lct_profile *pr = res->scenario->lct_profile;
    fprintf(f, "<p>Lane Change Test: %zu lane changes; MDEV %.3f m against the normative model, ", x->n_lct,
            tr->m.mdev);
    if (pr)
        fprintf(f, "%.3f m against the adaptive model (from the baseline drive's %zu lane changes, lane offset "
                "%.3f m).</p>\n", x->mdev_adaptive, pr->n_changes, pr->lane_offset);
    else
        fputs("none against the adaptive model (no baseline drive: <code>--lct-baseline</code>, or "
              "<code>analysis batch --lct-baseline-match</code> / <code>analysis study "
              "--lct-baseline-condition</code>).</p>\n", f);
    fputs("<table><tr><th>#</th><th>s from (m)</th><th>s to (m)</th><th>lane from (d, m)</th><th>lane to (d, m)</th>"
          "<th>MDEV normative (m)</th><th>MDEV adaptive (m)</th></tr>\n", f);
    for (size_t k = 0; k < x->n_lct; k++) {
        const an_lct_segment *g = &x->lct[k];
        fprintf(f, "<tr><td>%zu</td><td>%.1f</td><td>%.1f</td><td>%.3f</td><td>%.3f</td><td>", k + 1, g->s_start,
                g->s_end, g->d_from, g->d_to);
        an_html_num(f, g->mdev_normative, 3);
        fputs("</td><td>", f);
        an_html_num(f, g->mdev_adaptive, 3);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}
