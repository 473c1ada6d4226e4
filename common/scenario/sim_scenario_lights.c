/* sim_scenario_lights: the scenario's `traffic_lights` section (docs/scenario.md
 * "Traffic lights"): signal heads placed on roads and fixed-time controllers, into
 * the road network's lights (sim_lights.h). Controllers may name the heads an
 * OpenDRIVE file brought (their signal ids). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_scenario_load.h"

#define MAX_PHASES 64
#define MAX_CTL_HEADS 64

static void load_head(ld *L, const cJSON *o, const char *path)
{
    static const char *const keys[] = {"id", "road", "s", "t", "orientation", "stop_s", "lanes", "kind",
                                       "z_offset", NULL};
    static const char *const orients[] = {"+", "-", "both", NULL};
    static const char *const kinds[] = {"vehicle", "pedestrian", NULL};
    if (!scn_is_obj(L, o, path)) return;
    scn_check_keys(L, o, path, keys);
    sim_roadnet *net = &L->sc->net;
    const char *id = NULL;
    scn_get_str(L, o, path, "id", true, NULL, &id);
    int road = scn_get_road_ref(L, o, path, "road", true);
    int orient = scn_get_enum(L, o, path, "orientation", 0, orients);
    int kind = scn_get_enum(L, o, path, "kind", 0, kinds);
    sim_light_head h = {.road = road, .orientation = orient == 1 ? -1 : orient == 2 ? 0 : 1,
                        .kind = kind == 1 ? SIM_HEAD_PEDESTRIAN : SIM_HEAD_VEHICLE, .height = 0.8, .width = 0.3};
    bool ok = id && road >= 0 && orient >= 0 && kind >= 0;
    ok &= scn_get_s(L, o, path, "s", true, 0, road, &h.s);
    ok &= scn_get_num(L, o, path, "t", true, 0, NUM_RANGE, -100, 100, &h.t);
    ok &= scn_get_s(L, o, path, "stop_s", false, h.s, road, &h.stop_s);
    ok &= scn_get_num(L, o, path, "z_offset", false, 3.0, NUM_RANGE, 0, 20, &h.z_offset);
    const cJSON *lanes = scn_get_arr(L, o, path, "lanes", false);
    if (lanes) {
        char p[PATH_MAX_LEN], pk[PATH_MAX_LEN];
        int n = cJSON_GetArraySize(lanes), from = 0, to = 0;
        for (int i = 0; i < n; i++) {
            int lane;
            if (!scn_json_lane(cJSON_GetArrayItem(lanes, i), &lane) || lane == 0 ||
                (road >= 0 && !sim_road_has_lane(&net->roads[road], lane))) {
                scn_err_found(L, scn_ipath(p, scn_kpath(pk, path, "lanes"), i), cJSON_GetArrayItem(lanes, i),
                              "a lane id of the head's road");
                ok = false;
                continue;
            }
            from = i == 0 || lane < from ? lane : from;
            to = i == 0 || lane > to ? lane : to;
        }
        h.lane_from = from;
        h.lane_to = to;
    }
    if (!ok) return;
    sim_road_pose pose;
    sim_road_pose_at(net, road, h.s, h.t, &pose);
    h.x = pose.x;
    h.y = pose.y;
    h.z = pose.z;
    h.heading = pose.heading + (h.orientation >= 0 ? M_PI : 0);
    h.id = (char *)id;
    sim_error e = {0};
    if (sim_lights_add_head(&net->lights, &h, &e) < 0) scn_err_at(L, path, "%s", e.msg);
}

static void load_controller(ld *L, const cJSON *o, const char *path)
{
    static const char *const keys[] = {"id", "heads", "phases", "offset", NULL};
    static const char *const pkeys[] = {"duration", "states", NULL};
    if (!scn_is_obj(L, o, path)) return;
    scn_check_keys(L, o, path, keys);
    sim_lights *lights = &L->sc->net.lights;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN], r[PATH_MAX_LEN], pk[PATH_MAX_LEN];
    const char *id = NULL;
    double offset;
    bool ok = scn_get_str(L, o, path, "id", true, NULL, &id) && id;
    ok &= scn_get_num(L, o, path, "offset", false, 0, NUM_RANGE, -1e6, 1e6, &offset);
    const cJSON *heads = scn_get_arr(L, o, path, "heads", true), *phases = scn_get_arr(L, o, path, "phases", true);
    if (!heads || !phases) return;
    int nh = cJSON_GetArraySize(heads), np = cJSON_GetArraySize(phases);
    if (nh < 1 || nh > MAX_CTL_HEADS) {
        scn_err_at(L, scn_kpath(p, path, "heads"), "has %d heads, expected 1 to %d", nh, MAX_CTL_HEADS);
        return;
    }
    if (np < 1 || np > MAX_PHASES) {
        scn_err_at(L, scn_kpath(p, path, "phases"), "has %d phases, expected 1 to %d", np, MAX_PHASES);
        return;
    }
    int idx[MAX_CTL_HEADS];
    for (int i = 0; i < nh; i++) {
        const cJSON *v = cJSON_GetArrayItem(heads, i);
        idx[i] = cJSON_IsString(v) ? sim_lights_find_head(lights, v->valuestring) : -1;
        if (idx[i] < 0) {
            scn_err_found(L, scn_ipath(p, scn_kpath(pk, path, "heads"), i), v,
                          "the id of a head (traffic_lights.heads, or an OpenDRIVE signal id)");
            ok = false;
        }
    }
    double dur[MAX_PHASES];
    sim_light_state *states = calloc((size_t)(np * nh), sizeof *states);
    if (!states) {
        scn_err_at(L, path, "out of memory");
        return;
    }
    for (int k = 0; k < np; k++) {
        const cJSON *ph = cJSON_GetArrayItem(phases, k);
        scn_ipath(q, scn_kpath(p, path, "phases"), k);
        if (!scn_is_obj(L, ph, q)) {
            ok = false;
            continue;
        }
        scn_check_keys(L, ph, q, pkeys);
        ok &= scn_get_num(L, ph, q, "duration", true, 1, NUM_RANGE, 0.1, 3600, &dur[k]);
        const cJSON *st = scn_get_arr(L, ph, q, "states", true);
        if (!st) {
            ok = false;
            continue;
        }
        if (cJSON_GetArraySize(st) != nh) {
            scn_err_at(L, scn_kpath(r, q, "states"), "has %d states, expected one per head (%d)",
                       cJSON_GetArraySize(st), nh);
            ok = false;
            continue;
        }
        for (int i = 0; i < nh; i++) {
            const cJSON *v = cJSON_GetArrayItem(st, i);
            int s = cJSON_IsString(v) ? sim_light_state_parse(v->valuestring) : -1;
            if (s < 0) {
                scn_err_found(L, scn_ipath(r, scn_kpath(pk, q, "states"), i), v,
                              "off, red, red_amber, amber, green or flashing_amber");
                ok = false;
            }
            states[k * nh + i] = s < 0 ? SIM_SIGNAL_OFF : (sim_light_state)s;
        }
    }
    sim_error e = {0};
    if (ok && sim_lights_add_controller(lights, id, idx, nh, dur, states, np, offset, &e) < 0)
        scn_err_at(L, path, "%s", e.msg);
    free(states);
}

void scn_load_lights(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"heads", "controllers", NULL};
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(root, "traffic_lights");
    if (!tl || !scn_is_obj(L, tl, "traffic_lights")) return;
    scn_check_keys(L, tl, "traffic_lights", keys);
    char p[PATH_MAX_LEN];
    const cJSON *heads = scn_get_arr(L, tl, "traffic_lights", "heads", false);
    for (int i = 0; heads && i < cJSON_GetArraySize(heads); i++)
        load_head(L, cJSON_GetArrayItem(heads, i), scn_ipath(p, "traffic_lights.heads", i));
    const cJSON *ctls = scn_get_arr(L, tl, "traffic_lights", "controllers", false);
    /* the OpenDRIVE controllers' default programs give way to the scenario's: dropped,
     * and given again afterwards to the groups none of these controllers touches */
    sim_lights *lights = &L->sc->net.lights;
    sim_lights_drop_defaults(lights);
    for (int i = 0; ctls && i < cJSON_GetArraySize(ctls); i++)
        load_controller(L, cJSON_GetArrayItem(ctls, i), scn_ipath(p, "traffic_lights.controllers", i));
    sim_error e = {0};
    if (sim_lights_group_defaults(lights, &e) < 0) scn_err_at(L, "traffic_lights", "%s", e.msg);
}
