/* lct_scenario: a Lane Change Test track (common/tasks/sim_lct.h) as a scenario file in
 * the project's format (docs/scenario.md): road, signs, start point, sector and one task
 * with the normative ideal path. Used by `simctl lct-track` (cmd_lct.c). */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cmd_xodr.h"
#include "sim_lct.h"

cJSON *lct_scenario_json(const sim_lct_params *p, const sim_lct_track *t)
{
    cJSON *root = cJSON_CreateObject();
    char txt[512];
    cJSON_AddNumberToObject(root, "format", 1);
    snprintf(txt, sizeof txt, "Lane Change Test, track %d", p->track);
    cJSON_AddStringToObject(root, "name", txt);
    snprintf(txt, sizeof txt,
             "ISO 26022 Lane Change Test track %d, made by `simctl lct-track --track %d`: a straight road of "
             "%g m with three lanes of %g m at %g km/h; %d lane changes (each of the six kinds three times), "
             "signs (on both sides, blank until %g m before them) %g..%g m apart; the normative ideal path "
             "changes lane over %g m starting %g m before each sign (docs/tasks.md).",
             p->track, p->track, p->length, p->lane_width, p->speed_kmh, SIM_LCT_CHANGES, p->visibility,
             p->spacing_min, p->spacing_max, p->lc_length, p->lc_before);
    cJSON_AddStringToObject(root, "description", txt);
    cJSON_AddStringToObject(root, "author", "simctl lct-track");
    cJSON_AddStringToObject(root, "version", "1.0");
    cJSON *roads = cJSON_AddArrayToObject(root, "roads"), *road = cJSON_CreateObject();
    cJSON_AddItemToArray(roads, road);
    cJSON_AddStringToObject(road, "id", "lct");
    cJSON_AddStringToObject(road, "name", "Lane Change Test track");
    cJSON *st = cJSON_AddObjectToObject(road, "start");
    cJSON_AddNumberToObject(st, "x", 0), cJSON_AddNumberToObject(st, "y", 0), cJSON_AddNumberToObject(st, "heading_deg", 0);
    cJSON *seg = cJSON_CreateObject();
    cJSON_AddStringToObject(seg, "type", "line");
    cJSON_AddNumberToObject(seg, "length", p->length);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(road, "segments"), seg);
    cJSON *lanes = cJSON_AddObjectToObject(road, "lanes");
    cJSON_AddStringToObject(lanes, "center_mark", "solid");
    cJSON *right = cJSON_AddArrayToObject(lanes, "right");
    static const char *const marks[] = {"dashed", "dashed", "solid"};
    for (int k = 0; k < SIM_LCT_LANES; k++) {
        cJSON *l = cJSON_CreateObject();
        cJSON_AddNumberToObject(l, "width", p->lane_width);
        cJSON_AddStringToObject(l, "mark", marks[k]);
        cJSON_AddItemToArray(right, l);
    }
    cJSON *sh = cJSON_CreateObject();
    cJSON_AddNumberToObject(sh, "width", 2.5), cJSON_AddStringToObject(sh, "mark", "none");
    cJSON_AddStringToObject(sh, "type", "shoulder");
    cJSON_AddItemToArray(right, sh);
    cJSON *lim = cJSON_CreateObject();
    cJSON_AddNumberToObject(lim, "s_start", 0), cJSON_AddNumberToObject(lim, "s_end", p->length);
    cJSON_AddNumberToObject(lim, "speed_kmh", p->speed_kmh);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(road, "speed_limits"), lim);
    cJSON *signs = cJSON_AddArrayToObject(road, "signs");
    cJSON *sp = cJSON_CreateObject();
    cJSON_AddNumberToObject(sp, "s", 0), cJSON_AddStringToObject(sp, "type", "speed_limit");
    cJSON_AddNumberToObject(sp, "speed_kmh", p->speed_kmh);
    cJSON_AddItemToArray(signs, sp);
    /* One sign per change at the default place outside the right lanes: the render node
     * stands every lane-change sign on both sides of the road, as the standard has them. */
    for (int k = 0; k < SIM_LCT_CHANGES; k++) {
        cJSON *sg = cJSON_CreateObject();
        cJSON_AddNumberToObject(sg, "s", t->change[k].sign_s);
        cJSON_AddStringToObject(sg, "type", "lane_change");
        cJSON_AddNumberToObject(sg, "lane", -t->change[k].to_lane);
        cJSON_AddNumberToObject(sg, "legible_m", p->visibility);
        cJSON_AddItemToArray(signs, sg);
    }
    cJSON *sps = cJSON_AddArrayToObject(root, "start_points"), *s0 = cJSON_CreateObject();
    cJSON_AddItemToArray(sps, s0);
    cJSON_AddStringToObject(s0, "name", "start");
    cJSON_AddStringToObject(s0, "road", "lct");
    cJSON_AddNumberToObject(s0, "s", 10);
    cJSON_AddNumberToObject(s0, "lane", -t->start_lane);
    cJSON_AddNumberToObject(s0, "speed_kmh", p->speed_kmh);
    double s_start = t->change[0].sign_s - p->lc_before - 20;
    double s_end = t->change[SIM_LCT_CHANGES - 1].sign_s + 80;
    cJSON *secs = cJSON_AddArrayToObject(root, "sectors"), *sec = cJSON_CreateObject();
    cJSON_AddItemToArray(secs, sec);
    cJSON_AddStringToObject(sec, "id", "LCT");
    cJSON_AddStringToObject(sec, "name", "the 18 lane changes");
    cJSON_AddStringToObject(sec, "road", "lct");
    cJSON_AddNumberToObject(sec, "s_start", s_start);
    cJSON_AddNumberToObject(sec, "s_end", s_end);
    cJSON *tasks = cJSON_AddArrayToObject(root, "tasks"), *task = cJSON_CreateObject();
    cJSON_AddItemToArray(tasks, task);
    snprintf(txt, sizeof txt, "LCT%d", p->track);
    cJSON_AddStringToObject(task, "id", txt);
    cJSON_AddStringToObject(task, "name", "lane change test");
    cJSON_AddStringToObject(task, "sector", "LCT");
    cJSON_AddNumberToObject(task, "tube_half_width", p->tube_half_width);
    cJSON *ideal = cJSON_AddObjectToObject(task, "ideal");
    cJSON_AddNumberToObject(ideal, "start_lane", -t->start_lane);
    cJSON *lcs = cJSON_AddArrayToObject(ideal, "lane_changes");
    for (int k = 0; k < SIM_LCT_CHANGES; k++) {
        cJSON *lc = cJSON_CreateObject();
        cJSON_AddNumberToObject(lc, "s", t->change[k].sign_s - p->lc_before);
        cJSON_AddNumberToObject(lc, "to_lane", -t->change[k].to_lane);
        cJSON_AddNumberToObject(lc, "ramp_length", p->lc_length);
        cJSON_AddItemToArray(lcs, lc);
    }
    cJSON *env = cJSON_AddObjectToObject(root, "environment");
    cJSON_AddStringToObject(env, "light", "day");
    cJSON_AddStringToObject(env, "weather", "clear");
    if (cJSON_IsInvalid(root)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}
