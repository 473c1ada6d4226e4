/* sim_scenario_fields: the scenario loader's own field helpers (see
 * sim_scenario_load.h): references to roads, lanes and stretches, unique ids; the
 * typed reads themselves are sim_json's. */
#include "sim_scenario_load.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_file.h"

/* A JSON value that is a lane id: an integer in [-100, 100] (no road has more). */
bool scn_json_lane(const cJSON *v, int *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= -100 && v->valuedouble <= 100) ||
        v->valuedouble != floor(v->valuedouble))
        return false;
    *out = (int)v->valuedouble;
    return true;
}

/* A copied string (NULL when absent and def is NULL). */
char *scn_dup_str(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  const char *def)
{
    const char *s;
    scn_get_str(L, obj, path, key, required, def, &s);
    return s ? strdup(s) : NULL;
}

/* calloc of n elements that never returns NULL for n == 0 (and reports OOM). */
void *scn_alloc_n(ld *L, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) scn_err_at(L, "(memory)", "out of memory allocating %zu elements", n);
    return p;
}

bool scn_road_id_number(const cJSON *v, char *buf, size_t size)
{
    if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) < 1e15) || v->valuedouble != floor(v->valuedouble)) return false;
    snprintf(buf, size, "%lld", (long long)v->valuedouble);
    return true;
}

/* A road reference obj.key by id: index or -1 (after an error when given and wrong,
 * or when required and missing). */
int scn_get_road_ref(ld *L, const cJSON *obj, const char *path, const char *key,
                     bool required)
{
    const char *id;
    char p[PATH_MAX_LEN], num[32];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (scn_road_id_number(v, num, sizeof num)) id = num;
    else if (!scn_get_str(L, obj, path, key, required, NULL, &id) || !id) return -1;
    int r = sim_roadnet_find_road(&L->sc->net, id);
    if (r < 0) scn_err_at(L, scn_kpath(p, path, key), "found \"%s\", expected the id of a road", id);
    return r;
}

/* A road whose own definition failed (no usable geometry: length 0) has no length to
 * hold positions on it to: its error is reported once, where it is, and what refers
 * to it is checked only as far as it can be, instead of a follow-on error each. */
static bool road_broken(const ld *L, int road)
{
    return road >= 0 && !(L->sc->net.roads[road].length > 0);
}

/* s in [0, road length] at obj.key. */
bool scn_get_s(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
               double def, int road, double *out)
{
    if (road_broken(L, road)) road = -1;
    double len = road >= 0 ? L->sc->net.roads[road].length : INFINITY;
    if (road >= 0) return scn_get_num(L, obj, path, key, required, def, NUM_RANGE, 0, len, out);
    return scn_get_num(L, obj, path, key, required, def, NUM_NONNEG, 0, 0, out);
}

/* A lane id that exists on road (when the road resolved). */
bool scn_get_lane(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  int road, int *out)
{
    char p[PATH_MAX_LEN];
    if (!scn_get_int(L, obj, path, key, required, 0, -100, 100, out)) return false;
    if (road < 0 || (!required && !cJSON_GetObjectItemCaseSensitive(obj, key))) return true;
    const sim_road *r = &L->sc->net.roads[road];
    if (!sim_road_has_lane(r, *out)) {
        char ids[200] = "";
        const sim_lane_section *ls = &r->sections[0];
        for (int k = ls->n_left; k >= -ls->n_right; k--) {
            if (k == 0) continue;
            size_t len = strlen(ids);
            snprintf(ids + len, sizeof ids - len, "%s%d", len ? ", " : "", k);
        }
        scn_err_at(L, scn_kpath(p, path, key), "found %d, expected a lane of road \"%s\": one of %s",
               *out, r->id ? r->id : "?", ids);
        return false;
    }
    return true;
}

/* s_start/s_end of a stretch within [0, length], s_end defaulting to the end. */
bool scn_get_range(ld *L, const cJSON *o, const char *path, int road, bool required,
                   double *a, double *b)
{
    bool ok = scn_get_s(L, o, path, "s_start", required, 0, road, a);
    double len = road >= 0 ? L->sc->net.roads[road].length : 0;
    ok &= scn_get_s(L, o, path, "s_end", required, len, road, b);
    if (ok && road_broken(L, road)) return false; /* reported at the road */
    if (ok && *b <= *a) {
        char p[PATH_MAX_LEN];
        scn_err_at(L, scn_kpath(p, path, "s_end"), "found %g, expected a number > s_start (%g)", *b, *a);
        ok = false;
    }
    return ok;
}

/* Reports id when an earlier element of arr (n elements of size stride, with the
 * char* id at byte offset off) has the same one. */
void scn_check_unique(ld *L, const char *path, const char *kind, const char *id,
                      const void *arr, size_t stride, size_t off, int n)
{
    if (!id) return;
    for (int k = 0; k < n; k++) {
        const char *other = *(char *const *)((const char *)arr + (size_t)k * stride + off);
        if (other && strcmp(other, id) == 0) {
            scn_err_at(L, path, "found \"%s\" again, expected a unique %s", id, kind);
            return;
        }
    }
}

char *scn_file(ld *L, sim_scenario_file_field f, const char *file)
{
    char *full = sim_file_join(L->base_dir, file);
    if (!full) scn_err_at(L, sim_scenario_file_fields[f], "out of memory");
    return full;
}
