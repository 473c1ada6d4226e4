/* roads: the scenario's map for the console page, made once at start: every road's
 * left and right edges and centre line as polylines sampled along s (at most
 * ROAD_POINTS per road, at least every SAMPLE_M metres on short roads), the POIs, the
 * start points and each trigger's zone as a polygon. Coordinates are world metres
 * (x east, y north), rounded to 1 cm. Pure: no I/O. */
#include <math.h>
#include <stdlib.h>

#include "console.h"
#include "sim_scenario.h"

#define SAMPLE_M 2.0
#define ROAD_POINTS 2000

static double round_cm(double v)
{
    return round(v * 100.0) / 100.0;
}

static void add_point(cJSON *line, double x, double y)
{
    cJSON *pt = cJSON_CreateArray();
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(round_cm(x)));
    cJSON_AddItemToArray(pt, cJSON_CreateNumber(round_cm(y)));
    cJSON_AddItemToArray(line, pt);
}

/* Samples road ri between s0 and s1: its left edge, right edge and centre line. */
static void sample_road(const sim_roadnet *net, int ri, double s0, double s1, cJSON *left, cJSON *right, cJSON *center)
{
    const sim_road *r = &net->roads[ri];
    double span = s1 - s0;
    int n = (int)ceil(span / SAMPLE_M);
    if (n < 1) n = 1;
    if (n > ROAD_POINTS) n = ROAD_POINTS;
    for (int i = 0; i <= n; i++) {
        double s = s0 + span * i / n;
        double wl, wr, off = sim_road_lane_offset(r, s);
        sim_road_pose pose;
        sim_road_width(r, s, &wl, &wr);
        if (left && sim_road_pose_at(net, ri, s, off + wl, &pose) != SIM_ENOTFOUND) add_point(left, pose.x, pose.y);
        if (right && sim_road_pose_at(net, ri, s, off - wr, &pose) != SIM_ENOTFOUND) add_point(right, pose.x, pose.y);
        if (center && sim_road_pose_at(net, ri, s, off, &pose) != SIM_ENOTFOUND) add_point(center, pose.x, pose.y);
    }
}

int console_roads_json(const sim_scenario *sc, char **out)
{
    cJSON *map = cJSON_CreateObject();
    cJSON *roads = cJSON_AddArrayToObject(map, "roads");
    cJSON_AddStringToObject(map, "scenario", sc->name ? sc->name : (sc->path ? sc->path : ""));
    for (int i = 0; i < sc->net.n_roads; i++) {
        const sim_road *r = &sc->net.roads[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", r->id ? r->id : "");
        cJSON *left = cJSON_AddArrayToObject(o, "left");
        cJSON *right = cJSON_AddArrayToObject(o, "right");
        cJSON *center = cJSON_AddArrayToObject(o, "center");
        sample_road(&sc->net, i, 0, r->length, left, right, center);
        cJSON_AddItemToArray(roads, o);
    }
    cJSON *pois = cJSON_AddArrayToObject(map, "pois");
    for (int i = 0; i < sc->n_pois; i++) {
        const sim_poi *p = &sc->pois[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", p->id ? p->id : "");
        cJSON_AddStringToObject(o, "name", p->name ? p->name : "");
        cJSON_AddStringToObject(o, "category", p->category ? p->category : "");
        cJSON_AddNumberToObject(o, "x", round_cm(p->x));
        cJSON_AddNumberToObject(o, "y", round_cm(p->y));
        cJSON_AddItemToArray(pois, o);
    }
    cJSON *starts = cJSON_AddArrayToObject(map, "starts");
    for (int i = 0; i < sc->n_starts; i++) {
        const sim_start_point *sp = &sc->starts[i];
        sim_road_pose pose;
        if (sim_road_pose_at(&sc->net, sp->road, sp->s, sp->d, &pose) == SIM_ENOTFOUND) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sp->name ? sp->name : "");
        cJSON_AddNumberToObject(o, "x", round_cm(pose.x));
        cJSON_AddNumberToObject(o, "y", round_cm(pose.y));
        cJSON_AddItemToArray(starts, o);
    }
    cJSON *triggers = cJSON_AddArrayToObject(map, "triggers");
    for (int i = 0; i < sc->n_triggers; i++) {
        const sim_trigger *t = &sc->triggers[i];
        if (t->road < 0 || t->road >= sc->net.n_roads) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", t->id ? t->id : "");
        cJSON_AddStringToObject(o, "action", sim_action_name(t->action));
        cJSON *left = cJSON_CreateArray(), *right = cJSON_CreateArray();
        sample_road(&sc->net, t->road, t->s_start, t->s_end, left, right, NULL);
        /* the zone's outline: along the left edge, back along the right one */
        cJSON *poly = cJSON_AddArrayToObject(o, "polygon");
        int nl = cJSON_GetArraySize(left), nr = cJSON_GetArraySize(right);
        for (int k = 0; k < nl; k++) cJSON_AddItemToArray(poly, cJSON_Duplicate(cJSON_GetArrayItem(left, k), 1));
        for (int k = nr - 1; k >= 0; k--) cJSON_AddItemToArray(poly, cJSON_Duplicate(cJSON_GetArrayItem(right, k), 1));
        cJSON_Delete(left);
        cJSON_Delete(right);
        cJSON_AddItemToArray(triggers, o);
    }
    *out = cJSON_PrintUnformatted(map);
    cJSON_Delete(map);
    return *out ? SIM_OK : SIM_ENOMEM;
}
