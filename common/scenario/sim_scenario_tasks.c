/* sim_scenario_tasks: the sections of a scenario file that refer to its roads: POIs,
 * start points, traffic, triggers, sectors, tasks and the environment (see
 * sim_scenario_load.h for the helpers, docs/scenario.md for the format). */
#include "sim_scenario_load.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- POIs, start points, traffic, triggers, sectors, tasks ---------------------- */

void scn_load_pois(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "category", "position", "attributes", NULL};
    static const char *const pkeys[] = {"x", "y", "z", "road", "s", "d", NULL};
    const cJSON *arr = scn_get_arr(L, root, "", "pois", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->pois = scn_alloc_n(L, (size_t)n, sizeof *sc->pois))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "pois", i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        sim_poi *poi = &sc->pois[sc->n_pois++];
        poi->road = -1;
        poi->id = scn_dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "POI id", sc->pois, sc->n_pois - 1, id);
        poi->name = scn_dup_str(L, o, p, "name", false, poi->id);
        poi->category = scn_dup_str(L, o, p, "category", true, NULL);
        const cJSON *pos = cJSON_GetObjectItemCaseSensitive(o, "position");
        scn_kpath(q, p, "position");
        if (scn_is_obj(L, pos, q)) {
            scn_check_keys(L, pos, q, pkeys);
            bool by_road = cJSON_GetObjectItemCaseSensitive(pos, "road") != NULL;
            if (by_road && (cJSON_GetObjectItemCaseSensitive(pos, "x") ||
                            cJSON_GetObjectItemCaseSensitive(pos, "y")))
                scn_err_at(L, q, "found both x/y and road, expected one form: {\"x\", \"y\"} or "
                       "{\"road\", \"s\", \"d\"}");
            if (by_road) {
                poi->road = scn_get_road_ref(L, pos, q, "road", true);
                scn_get_s(L, pos, q, "s", true, 0, poi->road, &poi->s);
                scn_get_num(L, pos, q, "d", false, 0, NUM_ANY, 0, 0, &poi->d);
                sim_road_pose ps;
                if (poi->road >= 0 && !sim_road_pose_at(&sc->net, poi->road, poi->s, poi->d, &ps))
                    poi->x = ps.x, poi->y = ps.y, poi->z = ps.z;
            } else {
                scn_get_num(L, pos, q, "x", true, 0, NUM_ANY, 0, 0, &poi->x);
                scn_get_num(L, pos, q, "y", true, 0, NUM_ANY, 0, 0, &poi->y);
                sim_ground g;
                sim_scenario_ground(sc, poi->x, poi->y, &g);
                poi->z = g.z;
            }
            scn_get_num(L, pos, q, "z", false, poi->z, NUM_ANY, 0, 0, &poi->z);
        }
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, "attributes");
        if (at) {
            if (scn_is_obj(L, at, scn_kpath(q, p, "attributes")))
                poi->attributes_json = cJSON_PrintUnformatted(at);
        }
    }
}

/* road, s, lane (and optional speed_kmh, heading_deg) of a start point or an agent's
 * start. Returns the road index or -1. */
static int load_place(ld *L, const cJSON *o, const char *p, double *s, int *lane, double *d)
{
    int road = scn_get_road_ref(L, o, p, "road", true);
    scn_get_s(L, o, p, "s", true, 0, road, s);
    char q[PATH_MAX_LEN];
    if (scn_get_lane(L, o, p, "lane", true, road, lane) && road >= 0 &&
        !sim_road_lane_center(&L->sc->net.roads[road], *s, *lane, d))
        scn_err_at(L, scn_kpath(q, p, "lane"), "found %d, expected a lane of road \"%s\" at s %g (its lane "
                   "sections differ along it)", *lane, L->sc->net.roads[road].id, *s);
    return road;
}

void scn_load_starts(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"name", "road", "s", "lane", "speed_kmh", "heading_deg", NULL};
    const cJSON *arr = scn_get_arr(L, root, "", "start_points", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->starts = scn_alloc_n(L, (size_t)n, sizeof *sc->starts))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "start_points", i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        sim_start_point *st = &sc->starts[sc->n_starts++];
        st->name = scn_dup_str(L, o, p, "name", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "name"), "start point name", sc->starts, sc->n_starts - 1, name);
        st->road = load_place(L, o, p, &st->s, &st->lane, &st->d);
        double kmh, hdeg;
        scn_get_num(L, o, p, "speed_kmh", false, 0, NUM_RANGE, 0, SIM_SCENARIO_MAX_KMH, &kmh);
        st->speed = kmh / 3.6;
        sim_road_pose ps;
        if (st->road >= 0 && !sim_road_pose_at(&sc->net, st->road, st->s, st->d, &ps)) {
            st->x = ps.x, st->y = ps.y, st->z = ps.z;
            st->heading = st->lane > 0 ? remainder(ps.heading + M_PI, 2 * M_PI) : ps.heading;
        }
        if (scn_get_num(L, o, p, "heading_deg", false, NAN, NUM_ANY, 0, 0, &hdeg) && !isnan(hdeg))
            st->heading = hdeg * M_PI / 180.0;
    }
}

void scn_load_traffic(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"seed", "agents", "model", "density", "radius_m", "engine", "sumo", NULL};
    static const char *const models[] = {"zones", "idm", NULL};
    static const char *const akeys[] = {"id", "model", "start", "route", "desired_speed_kmh",
                                        "behaviour", NULL};
    static const char *const stkeys[] = {"road", "s", "lane", NULL};
    static const char *const bkeys[] = {"headway_s", "max_accel", "max_decel", "min_gap",
                                        "politeness", "lane_changes", NULL};
    sim_scenario *sc = L->sc;
    sc->traffic_seed = 1; /* the documented default, with or without a traffic section */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "traffic");
    if (!t) return;
    if (!scn_is_obj(L, t, "traffic")) return;
    scn_check_keys(L, t, "traffic", keys);
    double seed;
    scn_get_num(L, t, "traffic", "seed", false, 1, NUM_RANGE, 0, 4294967295.0, &seed);
    sc->traffic_seed = (uint32_t)seed;
    sc->traffic_model = scn_get_enum(L, t, "traffic", "model", SIM_TRAFFIC_MODEL_ZONES, models);
    scn_get_num(L, t, "traffic", "density", false, 0, NUM_RANGE, 0, 200, &sc->traffic_density);
    scn_get_num(L, t, "traffic", "radius_m", false, 600, NUM_RANGE, 100, 5000, &sc->traffic_radius);
    scn_load_sumo(L, t);
    const cJSON *arr = scn_get_arr(L, t, "traffic", "agents", false);
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->agents = scn_alloc_n(L, (size_t)n, sizeof *sc->agents))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "traffic.agents", i);
        sim_agent *a = &sc->agents[sc->n_agents++];
        a->road = -1;
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, akeys);
        a->id = scn_dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "agent id", sc->agents, sc->n_agents - 1, id);
        a->model = scn_dup_str(L, o, p, "model", false, "car");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "start");
        scn_kpath(q, p, "start");
        double d;
        if (scn_is_obj(L, st, q)) {
            scn_check_keys(L, st, q, stkeys);
            a->road = load_place(L, st, q, &a->s, &a->lane, &d);
        }
        double kmh;
        scn_get_num(L, o, p, "desired_speed_kmh", true, 50, NUM_RANGE, 1, SIM_SCENARIO_MAX_KMH, &kmh);
        a->desired_speed = kmh / 3.6;
        /* Route: road ids in driving order, each connected to the one before. */
        const cJSON *rt = scn_get_arr(L, o, p, "route", false);
        int nr = rt ? cJSON_GetArraySize(rt) : 0;
        if ((a->route = scn_alloc_n(L, (size_t)(nr + 1), sizeof *a->route))) {
            /* The route starts on the start road, whether or not it is listed first. */
            const cJSON *first = nr ? cJSON_GetArrayItem(rt, 0) : NULL;
            char fnum[32];
            const char *fid = scn_road_id_number(first, fnum, sizeof fnum) ? fnum
                              : cJSON_IsString(first)                          ? first->valuestring
                                                                               : NULL;
            bool listed = fid && a->road >= 0 && sim_roadnet_find_road(&sc->net, fid) == a->road;
            if (a->road >= 0 && !listed) a->route[a->n_route++] = a->road;
            for (int k = 0; k < nr; k++) {
                char e[PATH_MAX_LEN];
                const cJSON *it = cJSON_GetArrayItem(rt, k);
                scn_ipath(e, scn_kpath(q, p, "route"), k);
                char num[32];
                const char *rid = scn_road_id_number(it, num, sizeof num) ? num : cJSON_IsString(it) ? it->valuestring : NULL;
                int r = rid ? sim_roadnet_find_road(&sc->net, rid) : -1;
                if (r < 0) {
                    scn_err_found(L, e, it, "the id of a road");
                    continue;
                }
                if (a->n_route > 0 && !sim_roadnet_connected(&sc->net, a->route[a->n_route - 1], r))
                    scn_err_at(L, e, "found \"%s\", expected a road connected to \"%s\"",
                           rid, sc->net.roads[a->route[a->n_route - 1]].id);
                a->route[a->n_route++] = r;
            }
        }
        sim_behaviour *b = &a->behaviour;
        const cJSON *bo = cJSON_GetObjectItemCaseSensitive(o, "behaviour");
        scn_kpath(q, p, "behaviour");
        const cJSON *src = bo && scn_is_obj(L, bo, q) ? bo : NULL;
        if (src) scn_check_keys(L, src, q, bkeys);
        scn_get_num(L, src, q, "headway_s", false, 1.5, NUM_POS, 0, 0, &b->headway);
        scn_get_num(L, src, q, "max_accel", false, 1.5, NUM_POS, 0, 0, &b->max_accel);
        scn_get_num(L, src, q, "max_decel", false, 3.0, NUM_POS, 0, 0, &b->max_decel);
        scn_get_num(L, src, q, "min_gap", false, 2.0, NUM_NONNEG, 0, 0, &b->min_gap);
        scn_get_num(L, src, q, "politeness", false, 0.3, NUM_RANGE, 0, 1, &b->politeness);
        scn_get_bool(L, src, q, "lane_changes", true, &b->lane_changes);
    }
}

static int find_agent(const sim_scenario *sc, const char *id)
{
    for (int i = 0; i < sc->n_agents; i++)
        if (sc->agents[i].id && strcmp(sc->agents[i].id, id) == 0) return i;
    return -1;
}

static int get_agent_ref(ld *L, const cJSON *o, const char *path, const char *key)
{
    const char *id;
    char p[PATH_MAX_LEN];
    if (!scn_get_str(L, o, path, key, true, NULL, &id) || !id) return -1;
    int a = find_agent(L->sc, id);
    if (a < 0) scn_err_at(L, scn_kpath(p, path, key), "found \"%s\", expected the id of a traffic agent", id);
    return a;
}

void scn_load_triggers(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "road", "s_start", "s_end", "lanes", "by", "once", "action", NULL};
    static const char *const akeys[] = {"type", "agent", "lane", "decel", "duration_s", "text", NULL};
    static const char *const actions[] = {"lane_switch", "brake", "hud_text", "log_mark", NULL};
    const cJSON *arr = scn_get_arr(L, root, "", "triggers", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->triggers = scn_alloc_n(L, (size_t)n, sizeof *sc->triggers))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "triggers", i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        sim_trigger *t = &sc->triggers[sc->n_triggers++];
        t->id = scn_dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "trigger id", sc->triggers, sc->n_triggers - 1, id);
        t->road = scn_get_road_ref(L, o, p, "road", true);
        scn_get_range(L, o, p, t->road, true, &t->s_start, &t->s_end);
        const cJSON *ls = scn_get_arr(L, o, p, "lanes", false);
        int nl = ls ? cJSON_GetArraySize(ls) : 0;
        if (ls && (t->lanes = scn_alloc_n(L, (size_t)nl, sizeof *t->lanes))) {
            for (int k = 0; k < nl; k++) {
                const cJSON *it = cJSON_GetArrayItem(ls, k);
                int lane;
                char lp[PATH_MAX_LEN];
                scn_ipath(q, scn_kpath(lp, p, "lanes"), k);
                if (!scn_json_lane(it, &lane) || (t->road >= 0 &&
                    !sim_road_has_lane(&sc->net.roads[t->road], lane))) {
                    scn_err_found(L, q, it, "a lane id of the trigger's road");
                    continue;
                }
                t->lanes[t->n_lanes++] = lane;
            }
        }
        const char *by;
        scn_get_str(L, o, p, "by", false, "ego", &by);
        t->by_agent = -1;
        if (by && strcmp(by, "ego") == 0) t->by = SIM_BY_EGO;
        else if (by && strcmp(by, "any") == 0) t->by = SIM_BY_ANY;
        else if (by) {
            t->by = SIM_BY_AGENT;
            t->by_agent = get_agent_ref(L, o, p, "by");
        }
        scn_get_bool(L, o, p, "once", true, &t->once);
        const cJSON *ac = cJSON_GetObjectItemCaseSensitive(o, "action");
        scn_kpath(q, p, "action");
        if (!scn_is_obj(L, ac, q)) continue;
        scn_check_keys(L, ac, q, akeys);
        int ty = scn_get_enum(L, ac, q, "type", -1, actions);
        t->agent = -1;
        t->action = ty < 0 ? SIM_ACTION_LOG_MARK : (sim_action_type)ty;
        if (ty == SIM_ACTION_LANE_SWITCH || ty == SIM_ACTION_BRAKE) t->agent = get_agent_ref(L, ac, q, "agent");
        if (ty == SIM_ACTION_LANE_SWITCH) {
            int road = t->agent >= 0 ? sc->agents[t->agent].road : -1;
            scn_get_lane(L, ac, q, "lane", true, road, &t->lane);
        }
        if (ty == SIM_ACTION_BRAKE) {
            scn_get_num(L, ac, q, "decel", true, 0, NUM_POS, 0, 0, &t->decel);
            scn_get_num(L, ac, q, "duration_s", true, 0, NUM_POS, 0, 0, &t->duration);
        }
        if (ty == SIM_ACTION_HUD_TEXT) scn_get_num(L, ac, q, "duration_s", false, 3.0, NUM_POS, 0, 0, &t->duration);
        if (ty == SIM_ACTION_HUD_TEXT || ty == SIM_ACTION_LOG_MARK) t->text = scn_dup_str(L, ac, q, "text", true, NULL);
    }
}

void scn_load_sectors(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "road", "s_start", "s_end", NULL};
    const cJSON *arr = scn_get_arr(L, root, "", "sectors", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->sectors = scn_alloc_n(L, (size_t)n, sizeof *sc->sectors))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "sectors", i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        sim_sector *s = &sc->sectors[sc->n_sectors++];
        s->id = scn_dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "sector id", sc->sectors, sc->n_sectors - 1, id);
        s->name = scn_dup_str(L, o, p, "name", false, s->id);
        s->road = scn_get_road_ref(L, o, p, "road", true);
        scn_get_range(L, o, p, s->road, true, &s->s_start, &s->s_end);
    }
}

/* The ideal line from lane changes: the start lane's centre, then for each change a
 * linear ramp of ramp_length from the current lane's centre to the new one's. */
static void ideal_from_lane_changes(ld *L, sim_task *t, const cJSON *io, const char *path)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    const sim_road *r = t->road >= 0 ? &L->sc->net.roads[t->road] : NULL;
    int lane;
    double d = 0;
    if (!scn_get_lane(L, io, path, "start_lane", true, t->road, &lane) || !r) return;
    sim_road_lane_center(r, t->s_start, lane, &d);
    const cJSON *ch = scn_get_arr(L, io, path, "lane_changes", false);
    int n = ch ? cJSON_GetArraySize(ch) : 0;
    t->ideal_s = scn_alloc_n(L, (size_t)(2 * n + 1), sizeof(double));
    t->ideal_d = scn_alloc_n(L, (size_t)(2 * n + 1), sizeof(double));
    if (!t->ideal_s || !t->ideal_d) return;
    t->ideal_s[0] = t->s_start;
    t->ideal_d[0] = d;
    t->n_ideal = 1;
    static const char *const keys[] = {"s", "to_lane", "ramp_length", NULL};
    for (int i = 0; i < n; i++) {
        const cJSON *o = cJSON_GetArrayItem(ch, i);
        scn_ipath(p, scn_kpath(q, path, "lane_changes"), i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        double s, ramp, nd;
        int to;
        bool ok = scn_get_num(L, o, p, "s", true, 0, NUM_RANGE, t->s_start, t->s_end, &s);
        ok &= scn_get_num(L, o, p, "ramp_length", true, 0, NUM_POS, 0, 0, &ramp);
        ok &= scn_get_lane(L, o, p, "to_lane", true, t->road, &to);
        if (!ok) continue;
        double last = t->ideal_s[t->n_ideal - 1];
        if (s < last) {
            scn_err_at(L, scn_kpath(q, p, "s"), "found %g, expected a number >= %g (after the previous "
                   "ramp ends)", s, last);
            continue;
        }
        if (s + ramp > t->s_end) {
            scn_err_at(L, scn_kpath(q, p, "ramp_length"), "found %g, expected the ramp to end by the "
                   "task's s_end %g", ramp, t->s_end);
            continue;
        }
        sim_road_lane_center(r, s + ramp, to, &nd);
        if (s > last) { /* hold the lane up to the ramp's start */
            t->ideal_s[t->n_ideal] = s;
            t->ideal_d[t->n_ideal] = t->ideal_d[t->n_ideal - 1];
            t->n_ideal++;
        }
        t->ideal_s[t->n_ideal] = s + ramp;
        t->ideal_d[t->n_ideal++] = nd;
    }
}

void scn_load_tasks(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"id", "name", "sector", "road", "s_start", "s_end",
                                       "tube_half_width", "ideal", NULL};
    static const char *const ikeys[] = {"points", "start_lane", "lane_changes", NULL};
    const cJSON *arr = scn_get_arr(L, root, "", "tasks", false);
    sim_scenario *sc = L->sc;
    int n = arr ? cJSON_GetArraySize(arr) : 0;
    if (!(sc->tasks = scn_alloc_n(L, (size_t)n, sizeof *sc->tasks))) return;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        const cJSON *o = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, "tasks", i);
        if (!scn_is_obj(L, o, p)) continue;
        scn_check_keys(L, o, p, keys);
        sim_task *t = &sc->tasks[sc->n_tasks++];
        t->id = scn_dup_str(L, o, p, "id", true, NULL);
        CHECK_UNIQUE(L, scn_kpath(q, p, "id"), "task id", sc->tasks, sc->n_tasks - 1, id);
        t->name = scn_dup_str(L, o, p, "name", false, t->id);
        t->sector = -1;
        t->road = -1;
        const char *sid;
        if (scn_get_str(L, o, p, "sector", false, NULL, &sid) && sid) {
            for (int k = 0; k < sc->n_sectors; k++)
                if (sc->sectors[k].id && strcmp(sc->sectors[k].id, sid) == 0) t->sector = k;
            if (t->sector < 0)
                scn_err_at(L, scn_kpath(q, p, "sector"), "found \"%s\", expected the id of a sector", sid);
        }
        const sim_sector *sec = t->sector >= 0 ? &sc->sectors[t->sector] : NULL;
        if (cJSON_GetObjectItemCaseSensitive(o, "road") || !sec) t->road = scn_get_road_ref(L, o, p, "road", true);
        else t->road = sec->road;
        bool ok = scn_get_range(L, o, p, t->road, !sec, &t->s_start, &t->s_end);
        if (sec && !cJSON_GetObjectItemCaseSensitive(o, "s_start")) t->s_start = sec->s_start;
        if (sec && !cJSON_GetObjectItemCaseSensitive(o, "s_end")) t->s_end = sec->s_end;
        if (ok && sec && (t->road != sec->road || t->s_start < sec->s_start || t->s_end > sec->s_end))
            scn_err_at(L, p, "found [%g, %g], expected a range inside sector \"%s\" [%g, %g] on its road",
                   t->s_start, t->s_end, sec->id ? sec->id : "?", sec->s_start, sec->s_end);
        scn_get_num(L, o, p, "tube_half_width", true, 1.0, NUM_POS, 0, 0, &t->tube_half_width);
        const cJSON *io = cJSON_GetObjectItemCaseSensitive(o, "ideal");
        scn_kpath(q, p, "ideal");
        if (!scn_is_obj(L, io, q)) continue;
        scn_check_keys(L, io, q, ikeys);
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(io, "points");
        bool has_lc = cJSON_GetObjectItemCaseSensitive(io, "start_lane") != NULL;
        if ((pts != NULL) == has_lc) {
            scn_err_at(L, q, "found %s, expected either points or start_lane (with lane_changes)",
                   pts ? "both" : "neither");
            continue;
        }
        if (has_lc) {
            ideal_from_lane_changes(L, t, io, q);
            continue;
        }
        char e[PATH_MAX_LEN], pp[PATH_MAX_LEN];
        scn_kpath(pp, q, "points");
        int np = cJSON_IsArray(pts) ? cJSON_GetArraySize(pts) : 0;
        if (np == 0) {
            scn_err_found(L, pp, pts, "a non-empty array of [s, d] points");
            continue;
        }
        t->ideal_s = scn_alloc_n(L, (size_t)np, sizeof(double));
        t->ideal_d = scn_alloc_n(L, (size_t)np, sizeof(double));
        for (int k = 0; t->ideal_s && t->ideal_d && k < np; k++) {
            const cJSON *pt = cJSON_GetArrayItem(pts, k);
            scn_ipath(e, pp, k);
            if (!cJSON_IsArray(pt) || cJSON_GetArraySize(pt) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(pt, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(pt, 1))) {
                scn_err_found(L, e, pt, "[s, d] in metres");
                continue;
            }
            double s = cJSON_GetArrayItem(pt, 0)->valuedouble, d = cJSON_GetArrayItem(pt, 1)->valuedouble;
            if (t->n_ideal > 0 && !(s > t->ideal_s[t->n_ideal - 1])) {
                scn_err_at(L, e, "found s = %g, expected s > %g (ascending)", s, t->ideal_s[t->n_ideal - 1]);
                continue;
            }
            t->ideal_s[t->n_ideal] = s;
            t->ideal_d[t->n_ideal++] = d;
        }
    }
}

void scn_load_environment(ld *L, const cJSON *root)
{
    static const char *const keys[] = {"light", "time_of_day", "weather", "visibility_m", "sound", "speed_unit", NULL};
    static const char *const units[] = {"kmh", "mph", NULL};
    static const char *const skeys[] = {"engine", "ambient", "volume", NULL};
    sim_environment *env = &L->sc->env;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "environment");
    const cJSON *src = e && scn_is_obj(L, e, "environment") ? e : NULL;
    if (src) scn_check_keys(L, src, "environment", keys);
    int l = scn_get_enum(L, src, "environment", "light", SIM_LIGHT_DAY, sim_light_names);
    env->light = l < 0 ? SIM_LIGHT_DAY : (sim_light)l;
    int w = scn_get_enum(L, src, "environment", "weather", SIM_WEATHER_CLEAR, sim_weather_names);
    env->weather = w < 0 ? SIM_WEATHER_CLEAR : (sim_weather)w;
    scn_get_num(L, src, "environment", "time_of_day", false, 12, NUM_RANGE, 0, 24, &env->time_of_day);
    scn_get_num(L, src, "environment", "visibility_m", false, 10000, NUM_POS, 0, 0, &env->visibility);
    env->speed_mph = scn_get_enum(L, src, "environment", "speed_unit", 0, units) == 1;
    const cJSON *so = src ? cJSON_GetObjectItemCaseSensitive(src, "sound") : NULL;
    const cJSON *ssrc = so && scn_is_obj(L, so, "environment.sound") ? so : NULL;
    if (ssrc) scn_check_keys(L, ssrc, "environment.sound", skeys);
    scn_get_bool(L, ssrc, "environment.sound", "engine", true, &env->engine_sound);
    env->ambient_sound = scn_dup_str(L, ssrc, "environment.sound", "ambient", false, NULL);
    scn_get_num(L, ssrc, "environment.sound", "volume", false, 1, NUM_RANGE, 0, 1, &env->volume);
}
