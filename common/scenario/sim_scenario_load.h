/* sim_scenario_load.h: private to the scenario loader (sim_scenario*.c): the loader
 * context and the field helpers shared by the sections (roads in sim_scenario_roads.c,
 * tasks and the rest in sim_scenario_tasks.c). Not part of libsim's interface.
 *
 * Every helper reports a problem through the loader's sim_json reader (file: path:
 * message, appended to the diag) and carries on with a default, so one run reports
 * every error. */
#ifndef SIM_SCENARIO_LOAD_H
#define SIM_SCENARIO_LOAD_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim_scenario.h"
#include "sim_scenario_rewrite.h"

#include "sim_json.h"

#define PATH_MAX_LEN SIM_JSON_PATH_MAX
#define JOIN_TOL 0.01       /* m: segments and linked roads must meet this closely */
#define HEADING_TOL 0.01    /* rad */
#define WORLD_MAX 1e7       /* m: road start coordinates lie within +-WORLD_MAX */
#define GEOM_BUDGET 2e6     /* sim_geom_cost units per scenario (about 120 MB at most) */

typedef struct ld {
    sim_json j;         /* every error goes through it into the diag */
    const char *base_dir;
    double geom_cost;   /* sum of sim_geom_cost so far */
    sim_scenario *sc;
} ld;

/* The file a scenario names in field f (one of sim_scenario_file_fields: the loader
 * joins no other, so sim_scenario_rewrite rewrites every one), joined to the
 * scenario's folder; NULL (reported) when out of memory. The caller frees. */
char *scn_file(ld *L, sim_scenario_file_field f, const char *file);

typedef sim_json_range num_kind;
#define NUM_ANY SIM_JSON_ANY
#define NUM_POS SIM_JSON_POS
#define NUM_NONNEG SIM_JSON_NONNEG
#define NUM_RANGE SIM_JSON_RANGE

#define MAX_LANE_WIDTH 50.0 /* m */

/* The loader's shorthands for sim_json with its reader: true when *out holds a valid
 * value (given or default), the error being in the diag otherwise. */
#define scn_err_at(L, path, ...) sim_json_fail(&(L)->j, SIM_EINVAL, path, __VA_ARGS__)
#define scn_kpath(buf, path, key) sim_json_key_path(buf, path, key)
#define scn_ipath(buf, path, i) sim_json_index_path(buf, path, i)
static inline void scn_err_found(ld *L, const char *path, const cJSON *v, const char *expected)
{
    sim_json_found(&L->j, path, v, expected);
}
static inline void scn_check_keys(ld *L, const cJSON *obj, const char *path,
                                  const char *const *allowed)
{
    sim_json_keys(&L->j, obj, path, allowed, -1);
}
static inline bool scn_is_obj(ld *L, const cJSON *v, const char *path)
{
    return sim_json_object(&L->j, v, path) == SIM_OK;
}
static inline bool scn_get_num(ld *L, const cJSON *obj, const char *path, const char *key,
                               bool required, double def, num_kind kind, double lo, double hi,
                               double *out)
{
    return sim_json_num(&L->j, obj, path, key, required, def, kind, lo, hi, out) == SIM_OK;
}
static inline bool scn_get_int(ld *L, const cJSON *obj, const char *path, const char *key,
                               bool required, int def, int lo, int hi, int *out)
{
    return sim_json_int(&L->j, obj, path, key, required, def, lo, hi, out) == SIM_OK;
}
static inline bool scn_get_bool(ld *L, const cJSON *obj, const char *path, const char *key,
                                bool def, bool *out)
{
    return sim_json_bool(&L->j, obj, path, key, false, def, out) == SIM_OK;
}
/* A string; *out points into the JSON (valid while it lives) or is def. */
static inline bool scn_get_str(ld *L, const cJSON *obj, const char *path, const char *key,
                               bool required, const char *def, const char **out)
{
    return sim_json_str(&L->j, obj, path, key, required, def, out) == SIM_OK;
}
/* One of a list of names (NULL-terminated); returns its index, def when absent, -1
 * (after an error) when wrong. */
static inline int scn_get_enum(ld *L, const cJSON *obj, const char *path, const char *key,
                               int def, const char *const *names)
{
    int i;
    return sim_json_enum(&L->j, obj, path, key, def, names, -1, &i) == SIM_OK ? i : -1;
}
/* An optional array member: NULL when absent; error and NULL when not an array. */
static inline const cJSON *scn_get_arr(ld *L, const cJSON *obj, const char *path,
                                       const char *key, bool required)
{
    const cJSON *a;
    sim_json_array(&L->j, obj, path, key, required, &a);
    return a;
}

/* traffic.engine and traffic.sumo (sim_scenario_sumo.c) */
void scn_load_sumo(ld *L, const cJSON *traffic);
void scn_free_sumo(sim_sumo_config *c);
void scn_check_sumo(ld *L); /* after triggers: what SUMO does not do, refused */

/* A JSON value that is a lane id: an integer in [-100, 100] (no road has more). */
bool scn_json_lane(const cJSON *v, int *out);
/* A copied string (NULL when absent and def is NULL). */
char *scn_dup_str(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  const char *def);
/* calloc of n elements that never returns NULL for n == 0 (and reports OOM). */
void *scn_alloc_n(ld *L, size_t n, size_t size);
/* A road reference obj.key by id: index or -1 (after an error when given and wrong,
 * or when required and missing). */
int scn_get_road_ref(ld *L, const cJSON *obj, const char *path, const char *key,
                     bool required);
/* s in [0, road length] at obj.key. */
bool scn_get_s(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
               double def, int road, double *out);
/* A lane id that exists on road (when the road resolved). */
bool scn_get_lane(ld *L, const cJSON *obj, const char *path, const char *key, bool required,
                  int road, int *out);
/* s_start/s_end of a stretch within [0, length], s_end defaulting to the end. */
bool scn_get_range(ld *L, const cJSON *o, const char *path, int road, bool required,
                   double *a, double *b);
/* Reports id when an earlier element of arr (n elements of size stride, with the
 * char* id at byte offset off) has the same one. */
void scn_check_unique(ld *L, const char *path, const char *kind, const char *id,
                      const void *arr, size_t stride, size_t off, int n);

#define CHECK_UNIQUE(L, path, kind, arr, i, field) \
    scn_check_unique(L, path, kind, (arr)[i].field, arr, sizeof *(arr), offsetof(__typeof__(*(arr)), field), i)

/* The sections, in the order sim_scenario_parse calls them. */
void scn_load_terrain(ld *L, const cJSON *t);
/* A road's "lanes" (an object or a list of lane sections) into r->sections; the road's
 * geometry (its length) must be read first. */
/* OpenDRIVE road ids are often numbers: an integer JSON value v names road "v" (its
 * decimal text into buf); false for anything else. */
bool scn_road_id_number(const cJSON *v, char *buf, size_t size);
void scn_load_lanes(ld *L, sim_road *r, const cJSON *lanes, const char *path);
void scn_load_roads(ld *L, const cJSON *root);
void scn_load_junctions(ld *L, const cJSON *root);
void scn_load_pois(ld *L, const cJSON *root);
void scn_load_starts(ld *L, const cJSON *root);
void scn_load_traffic(ld *L, const cJSON *root);
void scn_load_triggers(ld *L, const cJSON *root);
void scn_load_sectors(ld *L, const cJSON *root);
void scn_load_tasks(ld *L, const cJSON *root);
void scn_load_environment(ld *L, const cJSON *root);
/* `traffic_lights`: heads and controllers into sc->net.lights (sim_scenario_lights.c). */
void scn_load_lights(ld *L, const cJSON *root);
/* `cabs`: several drivers (sim_scenario_cabs.c); after the start points. */
void scn_load_cabs(ld *L, const cJSON *root);

#endif
