/* sim_scenario_lanes: a road's "lanes" in a scenario file: one layout, or lane
 * sections with tapers, read into the road model's sections (see docs/scenario.md). */
#include "sim_scenario_load.h"

#include <math.h>

/* A lane side of one section `len` metres long. `width_end` tapers a lane linearly
 * from `width` at the section's start to it at the section's end. */
static void load_lane_side(ld *L, const cJSON *arr, const char *path, int sign, double len, sim_lane **out,
                           int *n_out, double *width)
{
    static const char *const keys[] = {"width", "width_end", "mark", "type", NULL};
    static const char *const marks[] = {"none", "solid", "dashed", NULL};
    static const char *const types[] = {"driving", "shoulder", "median", "sidewalk", "parking", NULL};
    int n = cJSON_GetArraySize(arr);
    *out = scn_alloc_n(L, (size_t)n, sizeof **out);
    if (!*out) return;
    *width = 0;
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX_LEN];
        const cJSON *ln = cJSON_GetArrayItem(arr, i);
        scn_ipath(p, path, i);
        sim_lane *lane = &(*out)[i];
        lane->id = sign * (i + 1);
        lane->width = 3.5;
        if (!scn_is_obj(L, ln, p)) continue;
        scn_check_keys(L, ln, p, keys);
        if (scn_get_num(L, ln, p, "width", true, 3.5, NUM_POS, 0, 0, &lane->width) && lane->width > MAX_LANE_WIDTH) {
            /* No lane is wider than this; a typo of that size would make every road
             * cover the whole map in the spatial index. */
            char wp[PATH_MAX_LEN];
            scn_err_found(L, scn_kpath(wp, p, "width"), cJSON_GetObjectItemCaseSensitive(ln, "width"),
                      "a lane width in (0, 50] m");
            lane->width = 3.5;
        }
        double we;
        if (cJSON_GetObjectItemCaseSensitive(ln, "width_end") &&
            scn_get_num(L, ln, p, "width_end", true, 0, NUM_RANGE, 0, MAX_LANE_WIDTH, &we) && len > 0) {
            lane->widths = scn_alloc_n(L, 1, sizeof *lane->widths);
            if (lane->widths) {
                lane->widths[0] = (sim_poly3){0.0, lane->width, (we - lane->width) / len, 0.0, 0.0};
                lane->n_widths = 1;
            }
        }
        int m = scn_get_enum(L, ln, p, "mark", i + 1 == n ? SIM_MARK_SOLID : SIM_MARK_DASHED, marks);
        lane->mark = m < 0 ? SIM_MARK_NONE : (sim_mark_type)m;
        int t = scn_get_enum(L, ln, p, "type", SIM_LANE_DRIVING, types);
        lane->type = t < 0 ? SIM_LANE_DRIVING : (sim_lane_type)t;
        *width += lane->width;
    }
    *n_out = n;
}

/* One lane section's object (left, right, center_mark; "s" when in a list). */
static void load_section(ld *L, sim_road *r, sim_lane_section *ls, double len, const cJSON *lanes, const char *path,
                         bool listed)
{
    static const char *const keys[] = {"left", "right", "center_mark", NULL};
    static const char *const lkeys[] = {"s", "left", "right", "center_mark", NULL};
    static const char *const marks[] = {"none", "solid", "dashed", NULL};
    if (!scn_is_obj(L, lanes, path)) return;
    scn_check_keys(L, lanes, path, listed ? lkeys : keys);
    char p[PATH_MAX_LEN];
    const cJSON *left = scn_get_arr(L, lanes, path, "left", false);
    const cJSON *right = scn_get_arr(L, lanes, path, "right", false);
    double lw = 0, rw = 0;
    if (left) load_lane_side(L, left, scn_kpath(p, path, "left"), 1, len, &ls->left, &ls->n_left, &lw);
    if (right) load_lane_side(L, right, scn_kpath(p, path, "right"), -1, len, &ls->right, &ls->n_right, &rw);
    r->left_width = fmax(r->left_width, lw);
    r->right_width = fmax(r->right_width, rw);
    if (ls->n_left + ls->n_right == 0)
        scn_err_at(L, path, "found no lanes, expected at least one lane in left or right");
    int m = scn_get_enum(L, lanes, path, "center_mark", SIM_MARK_SOLID, marks);
    ls->center.mark = m < 0 ? SIM_MARK_SOLID : (sim_mark_type)m;
}

/* "lanes": one layout for the whole road (an object: one lane section), or lane
 * sections [{"s": 0, ...}, {"s": S, ...}] with s from 0 ascending within the road. */
void scn_load_lanes(ld *L, sim_road *r, const cJSON *lanes, const char *path)
{
    if (!cJSON_IsArray(lanes)) {
        sim_lane_section *ls = sim_road_single_section(r);
        if (!ls) scn_err_at(L, path, "out of memory");
        else load_section(L, r, ls, r->length, lanes, path, false);
        return;
    }
    int n = cJSON_GetArraySize(lanes);
    if (n == 0) {
        scn_err_at(L, path, "found an empty array, expected lane sections [{\"s\": 0, ...}, ...]");
        return;
    }
    if (!(r->sections = scn_alloc_n(L, (size_t)n, sizeof *r->sections))) return;
    r->n_sections = n;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    for (int i = 0; i < n; i++) { /* every start first: a section's length needs the next */
        scn_ipath(p, path, i);
        const cJSON *o = cJSON_GetArrayItem(lanes, i);
        double lo = i ? r->sections[i - 1].s0 : 0.0;
        if (!cJSON_IsObject(o)) continue;
        if (scn_get_num(L, o, p, "s", true, 0, NUM_RANGE, 0, r->length, &r->sections[i].s0) &&
            ((i == 0 && r->sections[i].s0 != 0) || (i > 0 && !(r->sections[i].s0 > lo))))
        {
            scn_err_at(L, scn_kpath(q, p, "s"), "found %g, expected %s", r->sections[i].s0,
                       i == 0 ? "0 (the first section starts the road)" : "a number above the previous section's s");
            r->sections[i].s0 = lo; /* reported once: the road stays consistent */
        }
    }
    for (int i = 0; i < n; i++) {
        double end = i + 1 < n ? r->sections[i + 1].s0 : r->length;
        scn_ipath(p, path, i);
        load_section(L, r, &r->sections[i], end - r->sections[i].s0, cJSON_GetArrayItem(lanes, i), p, true);
    }
}

