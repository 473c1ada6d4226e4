/* sim_lct: Lane Change Test tracks (see sim_lct.h). The sign order is an Euler circuit
 * of the complete directed graph on the three lanes with every edge taken three times:
 * every change kind appears equally often and each change starts where the previous one
 * ended. A seeded random walk that never strands itself (Fleury's rule: a remaining edge
 * whose use would leave the rest disconnected is taken last) finds one per track. */
#include "sim_lct.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sim_lct_params_init(sim_lct_params *p)
{
    *p = (sim_lct_params){.track = 1, .length = 3000, .lane_width = 3.85, .speed_kmh = 60,
                          .first_sign = 150, .spacing_min = 140, .spacing_max = 160,
                          .visibility = 40, .lc_before = 30, .lc_length = 20, .tube_half_width = 1};
}

static double draw(uint64_t seed, int k, int stream)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)k * 0xBF58476D1CE4E5B9ull +
                 (uint64_t)stream * 0x94D049BB133111EBull + 0x6A09E667F3BCC909ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* Whether every lane with edges left can still be reached from `from` (and the edges
 * can all be used): with in = out degrees, connectivity from `from` suffices. */
static bool connected(int left[SIM_LCT_LANES][SIM_LCT_LANES], int from)
{
    bool seen[SIM_LCT_LANES] = {false};
    int stack[SIM_LCT_LANES * SIM_LCT_LANES], n = 0;
    stack[n++] = from;
    seen[from] = true;
    while (n) {
        int a = stack[--n];
        for (int b = 0; b < SIM_LCT_LANES; b++)
            if (left[a][b] && !seen[b]) seen[b] = true, stack[n++] = b;
    }
    for (int a = 0; a < SIM_LCT_LANES; a++)
        for (int b = 0; b < SIM_LCT_LANES; b++)
            if (left[a][b] && !seen[a]) return false;
    return true;
}

int sim_lct_track_make(const sim_lct_params *p, sim_lct_track *out, sim_error *err)
{
    if (p->track < 1) return sim_error_set(err, SIM_EINVAL, "LCT: track %d, expected 1 or more", p->track);
    if (!(p->spacing_min > p->lc_before && p->spacing_max >= p->spacing_min))
        return sim_error_set(err, SIM_EINVAL, "LCT: sign spacing %g..%g m must exceed the lane change's "
                             "start %g m before the sign", p->spacing_min, p->spacing_max, p->lc_before);
    if (!(p->lc_length > 0 && p->lc_before >= 0 && p->lc_length <= p->lc_before + p->spacing_min))
        return sim_error_set(err, SIM_EINVAL, "LCT: lane change of %g m from %g m before the sign does not fit "
                             "between signs", p->lc_length, p->lc_before);
    double last = p->first_sign + (SIM_LCT_CHANGES - 1) * p->spacing_max;
    if (!(p->first_sign - p->lc_before > 20 && last + 100 <= p->length))
        return sim_error_set(err, SIM_EINVAL, "LCT: signs from %g m to up to %g m do not fit a %g m track "
                             "(room for the start and 100 m after the last)", p->first_sign, last, p->length);
    uint64_t seed = (uint64_t)p->track;
    int left[SIM_LCT_LANES][SIM_LCT_LANES];
    for (int a = 0; a < SIM_LCT_LANES; a++)
        for (int b = 0; b < SIM_LCT_LANES; b++) left[a][b] = a == b ? 0 : SIM_LCT_CHANGES / 6;
    int lane = (int)(draw(seed, 0, 1) * SIM_LCT_LANES);
    out->start_lane = lane + 1;
    double s = p->first_sign;
    for (int k = 0; k < SIM_LCT_CHANGES; k++) {
        int options[SIM_LCT_LANES], n = 0, fallback = -1;
        for (int b = 0; b < SIM_LCT_LANES; b++) {
            if (!left[lane][b]) continue;
            left[lane][b]--;
            if (connected(left, b)) options[n++] = b;
            else fallback = b;
            left[lane][b]++;
        }
        int to = n ? options[(int)(draw(seed, k + 1, 2) * n) % n] : fallback;
        left[lane][to]--;
        out->change[k] = (sim_lct_change){s, lane + 1, to + 1};
        lane = to;
        s += p->spacing_min + (p->spacing_max - p->spacing_min) * draw(seed, k + 1, 3);
    }
    return 0;
}

cJSON *sim_lct_scenario(const sim_lct_params *p, const sim_lct_track *t)
{
    cJSON *root = cJSON_CreateObject();
    char txt[512];
    cJSON_AddNumberToObject(root, "format", 1);
    snprintf(txt, sizeof txt, "Lane Change Test, track %d", p->track);
    cJSON_AddStringToObject(root, "name", txt);
    snprintf(txt, sizeof txt,
             "ISO 26022 Lane Change Test track %d, made by `simctl lct-track --track %d`: a straight road of "
             "%g m with three lanes of %g m at %g km/h; %d lane changes (each of the six kinds three times), "
             "signs (on both sides) %g..%g m apart; the normative ideal path changes lane over %g m starting "
             "%g m before each sign (docs/tasks.md).",
             p->track, p->track, p->length, p->lane_width, p->speed_kmh, SIM_LCT_CHANGES, p->spacing_min,
             p->spacing_max, p->lc_length, p->lc_before);
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
