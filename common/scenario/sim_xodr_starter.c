/* sim_xodr_starter: a starter scenario for an imported OpenDRIVE network: start points
 * on driving lanes and one lane-keeping task along the longest road (see sim_xodr.h). */
#include "sim_xodr.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TASK_STEP 5.0  /* m between the task's ideal-line points */

/* The innermost drivable lane at s that runs along s, or 0. */
static int driving_lane(const sim_road *r, double s)
{
    int si = sim_road_section_at(r, s);
    if (si < 0) return 0;
    const sim_lane_section *ls = &r->sections[si];
    int sign = r->left_hand ? 1 : -1, n = r->left_hand ? ls->n_left : ls->n_right;
    for (int k = 1; k <= n; k++) {
        const sim_lane *l = sim_road_lane(r, si, sign * k);
        if (sim_lane_type_drivable(l->type) && sim_lane_width(l, s - ls->s0) > 0.5) return sign * k;
    }
    return 0;
}

static int by_length_desc(const void *a, const void *b, void *arg)
{
    const sim_roadnet *net = arg;
    double x = net->roads[*(const int *)a].length, y = net->roads[*(const int *)b].length;
    return x > y ? -1 : x < y;
}

/* Adds item to arr (or under key to obj); frees item when that fails. */
static bool attach(cJSON *arr, cJSON *item)
{
    if (arr && item && cJSON_AddItemToArray(arr, item)) return true;
    cJSON_Delete(item);
    return false;
}

static bool attach_key(cJSON *obj, const char *key, cJSON *item)
{
    if (obj && item && cJSON_AddItemToObject(obj, key, item)) return true;
    cJSON_Delete(item);
    return false;
}

static cJSON *start_point(const sim_road *r, double s, int lane)
{
    cJSON *o = cJSON_CreateObject();
    char name[160];
    snprintf(name, sizeof name, "road_%s", r->id);
    if (!o || !cJSON_AddStringToObject(o, "name", name) || !cJSON_AddStringToObject(o, "road", r->id) ||
        !cJSON_AddNumberToObject(o, "s", s) || !cJSON_AddNumberToObject(o, "lane", lane) ||
        !cJSON_AddNumberToObject(o, "speed_kmh", 0)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The lane's centre every TASK_STEP m from s = 0 while the lane is there. */
static cJSON *task_points(const sim_road *r, int lane, double *s_end)
{
    cJSON *pts = cJSON_CreateArray();
    int n = 0;
    for (double s = 0.0; pts; s += TASK_STEP) {
        if (s > r->length) s = r->length;
        double t;
        if (!sim_road_lane_center(r, s, lane, &t) || sim_lane_width(sim_road_lane(r, sim_road_section_at(r, s), lane),
                                                                    s - r->sections[sim_road_section_at(r, s)].s0) <= 0.5)
            break;
        cJSON *p = cJSON_CreateArray();
        if (!attach(pts, p) || !attach(p, cJSON_CreateNumber(floor(s * 1000) / 1000)) ||
            !attach(p, cJSON_CreateNumber(round(t * 1000) / 1000))) {
            cJSON_Delete(pts);
            return NULL;
        }
        *s_end = floor(s * 1000) / 1000;
        n++;
        if (s >= r->length) break;
    }
    if (n < 2) {
        cJSON_Delete(pts);
        return NULL;
    }
    return pts;
}

cJSON *sim_xodr_starter(const sim_roadnet *net, const char *name, const char *xodr_ref, int max_starts,
                        int *task_road)
{
    *task_road = -1;
    int *order = malloc(sizeof *order * (size_t)(net->n_roads ? net->n_roads : 1)), m = 0;
    if (!order) return NULL;
    for (int i = 0; i < net->n_roads; i++)
        if (net->roads[i].junction < 0 && driving_lane(&net->roads[i], fmin(10.0, 0.5 * net->roads[i].length)))
            order[m++] = i;
    qsort_r(order, (size_t)m, sizeof *order, by_length_desc, (void *)net);
    cJSON *root = cJSON_CreateObject(), *starts = NULL;
    char desc[300];
    snprintf(desc, sizeof desc, "Starter scenario for %s, written by simctl import-xodr", xodr_ref);
    bool ok = root && cJSON_AddNumberToObject(root, "format", 1) && cJSON_AddStringToObject(root, "name", name) &&
              cJSON_AddStringToObject(root, "description", desc);
    cJSON *roads = ok ? cJSON_AddObjectToObject(root, "roads") : NULL;
    ok = ok && roads && cJSON_AddStringToObject(roads, "opendrive", xodr_ref) &&
         (starts = cJSON_AddArrayToObject(root, "start_points"));
    for (int k = 0; ok && k < m && k < max_starts; k++) {
        const sim_road *r = &net->roads[order[k]];
        double s = floor(fmin(10.0, 0.5 * r->length) * 1000) / 1000;
        ok = attach(starts, start_point(r, s, driving_lane(r, s)));
    }
    /* The task: the longest road whose lane lasts for two points at least. */
    for (int k = 0; ok && k < m && *task_road < 0; k++) {
        const sim_road *r = &net->roads[order[k]];
        int lane = driving_lane(r, 0.0);
        double s_end = 0;
        cJSON *pts = lane ? task_points(r, lane, &s_end) : NULL;
        if (!pts) continue;
        cJSON *sectors = cJSON_AddArrayToObject(root, "sectors"), *tasks = cJSON_AddArrayToObject(root, "tasks");
        cJSON *sec = cJSON_CreateObject(), *t = cJSON_CreateObject(), *ideal = cJSON_CreateObject();
        /* Every step runs, so that each piece ends up attached or freed. */
        bool a1 = attach_key(ideal, "points", pts), a2 = attach_key(t, "ideal", ideal);
        bool a3 = attach(tasks, t), a4 = attach(sectors, sec);
        if (!(ok = a1 && a2 && a3 && a4)) break;
        ok = cJSON_AddStringToObject(sec, "id", "longest_road") && cJSON_AddStringToObject(sec, "road", r->id) &&
             cJSON_AddNumberToObject(sec, "s_start", 0) && cJSON_AddNumberToObject(sec, "s_end", s_end) &&
             cJSON_AddStringToObject(t, "id", "keep_lane") && cJSON_AddStringToObject(t, "sector", "longest_road") &&
             cJSON_AddNumberToObject(t, "tube_half_width", 1.0);
        *task_road = order[k];
    }
    free(order);
    if (!ok || m == 0) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}
