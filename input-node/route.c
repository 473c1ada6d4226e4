/* route: scenario -> path for the scripted driver (see route.h).
 *
 * The path runs along the start point's road from the start to the road's end (or
 * its beginning, for left lanes, which run against the reference line), one point a
 * metre, laterally at the ideal lane of the task covering each s. Between tasks it
 * keeps the lateral position where the last task ended, before the first the start
 * lane's centre, so the car drives on in the lane the last task asked for. */
#include "route.h"

#include <math.h>
#include <stdlib.h>

#include "sim_road.h"
#include "sim_scenario.h"

#define PATH_STEP 1.0 /* m between path points */

/* The ideal d at s: the task on road covering s, else *carry (updated by tasks). */
static double ideal_d(const sim_scenario *sc, int road, double s, double *carry)
{
    for (int i = 0; i < sc->n_tasks; i++) {
        const sim_task *t = &sc->tasks[i];
        if (t->road != road || s < t->s_start || s > t->s_end) continue;
        *carry = sim_task_ideal_d(t, s);
        break;
    }
    return *carry;
}

static int build(const sim_scenario *sc, const char *start, sim_driver_path *path,
                 double **limits, sim_error *err)
{
    int si;
    int rc = sim_scenario_start_index(sc, start, &si, err);
    if (rc) return rc;
    const sim_start_point *st = &sc->starts[si];
    const sim_road *road = &sc->net.roads[st->road];
    double dir = st->lane > 0 ? -1.0 : 1.0;
    double end = dir > 0 ? road->length : 0.0;
    size_t n = (size_t)floor(fabs(end - st->s) / PATH_STEP) + 2;
    double *xy = malloc(2 * n * sizeof *xy);
    double *lim = malloc(n * sizeof *lim);
    if (!xy || !lim) {
        free(xy);
        free(lim);
        return sim_error_set(err, SIM_ENOMEM, "path of %zu points: out of memory", n);
    }
    double carry = st->d;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double s = st->s + dir * PATH_STEP * (double)i;
        if (dir * (s - end) > 0) s = end;
        sim_road_pose pose;
        sim_road_pose_at(&sc->net, st->road, s, ideal_d(sc, st->road, s, &carry), &pose);
        xy[2 * k] = pose.x;
        xy[2 * k + 1] = pose.y;
        lim[k++] = sim_road_speed_limit(road, s);
        if (s == end) break;
    }
    rc = sim_driver_path_set(path, xy, k, err);
    free(xy);
    if (rc) {
        free(lim);
        sim_error_prefix(err, "%s: start point \"%s\"", sc->path, st->name);
        return rc;
    }
    /* Points are 1 m apart, so sim_driver_path_set drops none and limits[i] stays
     * the limit at path point i. */
    *limits = lim;
    return SIM_OK;
}

int route_build(const char *scenario, const char *start, sim_driver_path *path, double **limits,
                sim_error *err)
{
    sim_scenario *sc = NULL;
    int rc = sim_scenario_load_err(scenario, &sc, err);
    if (rc) return rc;
    rc = build(sc, start, path, limits, err); /* its messages name the file */
    sim_scenario_free(sc);
    return rc;
}
