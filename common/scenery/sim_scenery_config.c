/* sim_scenery_config.c - the scenario's "scenery" section (sim_scenery.h). */
#include "sim_scenery.h"

#include <math.h>
#include <string.h>

void sim_scenery_config_init(sim_scenery_config *c)
{
    memset(c, 0, sizeof *c);
    c->style = SIM_SCENERY_AUTO;
    c->seed = 1;
    c->max_objects = 200000;
    for (int r = 0; r < SIM_RULE_COUNT; r++)
        c->rules[r].offset = c->rules[r].depth = -1;
}

void sim_scenery_config_free(sim_scenery_config *c)
{
    sim_object_list_free(&c->objects);
    memset(c, 0, sizeof *c);
}

/* A rule: true or false, or an object {"on", "spacing_m", "offset_m", "depth_m"}. */
static void parse_rule(sim_json *j, const cJSON *v, const char *path, sim_scenery_rule *r)
{
    static const char *const keys[] = {"on", "spacing_m", "offset_m", "depth_m", NULL};
    r->set = true;
    if (cJSON_IsBool(v)) {
        r->on = cJSON_IsTrue(v);
        return;
    }
    if (!cJSON_IsObject(v)) {
        sim_json_found(j, path, v, "true, false or an object with on, spacing_m, offset_m, depth_m");
        return;
    }
    sim_json_keys(j, v, path, keys, -1);
    sim_json_bool(j, v, path, "on", false, true, &r->on);
    sim_json_num(j, v, path, "spacing_m", false, 0, SIM_JSON_RANGE, 2, 10000, &r->spacing);
    sim_json_num(j, v, path, "offset_m", false, -1, SIM_JSON_RANGE, 0, 200, &r->offset);
    sim_json_num(j, v, path, "depth_m", false, -1, SIM_JSON_RANGE, 0, 500, &r->depth);
}

static void parse_object(sim_json *j, const cJSON *v, const char *path, sim_object_list *out)
{
    static const char *const keys[] = {"kind", "id", "model", "x", "y", "z", "heading_deg", "length_m", "width_m",
                                       "height_m", NULL};
    if (sim_json_object(j, v, path))
        return;
    sim_json_keys(j, v, path, keys, -1);
    const char *kind = NULL, *id = NULL, *model = NULL;
    char kp[SIM_JSON_PATH_MAX];
    sim_json_str(j, v, path, "kind", true, NULL, &kind);
    int k = kind ? sim_object_kind_parse(kind) : -1;
    if (kind && k < 0) {
        sim_json_fail(j, SIM_EINVAL, sim_json_key_path(kp, path, "kind"),
                      "unknown kind \"%s\", expected box, tree, bush, delineator, guard_rail, barrier, building, "
                      "street_light, pole, gantry, kerb or model", kind);
        return;
    }
    sim_json_str(j, v, path, "id", false, NULL, &id);
    sim_json_str(j, v, path, "model", k == SIM_OBJ_MODEL, NULL, &model);
    /* the size a kind has when none is given: a tree 9 m, a building 12 x 10 x 12 m ... */
    static const double size[SIM_OBJ_KIND_COUNT][3] = {
        [SIM_OBJ_BOX] = {1, 1, 1},          [SIM_OBJ_TREE] = {4, 4, 9},       [SIM_OBJ_BUSH] = {2, 2, 1.4},
        [SIM_OBJ_DELINEATOR] = {0.12, 0.12, 1}, [SIM_OBJ_GUARD_RAIL] = {4, 0.3, 0.75}, [SIM_OBJ_BARRIER] = {6, 0.5, 0.9},
        [SIM_OBJ_BUILDING] = {12, 10, 12},  [SIM_OBJ_STREET_LIGHT] = {1.5, 0.2, 8}, [SIM_OBJ_POLE] = {0.2, 0.2, 3},
        [SIM_OBJ_GANTRY] = {1, 20, 7},      [SIM_OBJ_KERB] = {4, 0.15, 0.12}, [SIM_OBJ_MODEL] = {4.5, 1.8, 1.5},
    };
    const double *d = size[k < 0 ? 0 : k];
    sim_world_object o = {.kind = k < 0 ? SIM_OBJ_BOX : (sim_object_kind)k, .id = (char *)id, .model = (char *)model};
    double hdg = 0;
    sim_json_num(j, v, path, "x", true, 0, SIM_JSON_RANGE, -1e7, 1e7, &o.x);
    sim_json_num(j, v, path, "y", true, 0, SIM_JSON_RANGE, -1e7, 1e7, &o.y);
    sim_json_num(j, v, path, "z", false, NAN, SIM_JSON_RANGE, -1e4, 1e4, &o.z);
    if (!cJSON_GetObjectItemCaseSensitive(v, "z"))
        o.z = NAN; /* on the ground: sim_scenery_place looks it up */
    sim_json_num(j, v, path, "heading_deg", false, 0, SIM_JSON_ANY, 0, 0, &hdg);
    o.heading = hdg * M_PI / 180;
    sim_json_num(j, v, path, "length_m", false, d[0], SIM_JSON_RANGE, 0.01, 1000, &o.length);
    sim_json_num(j, v, path, "width_m", false, d[1], SIM_JSON_RANGE, 0.01, 1000, &o.width);
    sim_json_num(j, v, path, "height_m", false, d[2], SIM_JSON_RANGE, 0.01, 1000, &o.height);
    if (!sim_object_list_add(out, &o))
        sim_json_fail(j, SIM_ENOMEM, path, "out of memory");
}

int sim_scenery_config_parse(sim_json *j, const cJSON *v, const char *path, sim_scenery_config *out)
{
    static const char *const keys[] = {"style", "seed", "rules", "objects", "max_objects", NULL};
    int before = j->errors;
    sim_scenery_config_init(out);
    if (sim_json_object(j, v, path))
        return SIM_EINVAL;
    sim_json_keys(j, v, path, keys, -1);
    int style = 0;
    sim_json_enum(j, v, path, "style", SIM_SCENERY_AUTO, sim_scenery_style_names(), SIM_SCENERY_STYLE_COUNT, &style);
    out->style = (sim_scenery_style)style;
    double seed = 1;
    sim_json_num(j, v, path, "seed", false, 1, SIM_JSON_RANGE, 0, 4294967295.0, &seed);
    out->seed = (uint32_t)seed;
    sim_json_int(j, v, path, "max_objects", false, 200000, 0, 2000000, &out->max_objects);
    char p[SIM_JSON_PATH_MAX], q[SIM_JSON_PATH_MAX];
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(v, "rules");
    if (rules) {
        sim_json_key_path(p, path, "rules");
        if (!sim_json_object(j, rules, p)) {
            const char *names[SIM_RULE_COUNT + 1];
            for (int r = 0; r < SIM_RULE_COUNT; r++)
                names[r] = sim_scenery_rule_name((sim_scenery_rule_id)r);
            names[SIM_RULE_COUNT] = NULL;
            sim_json_keys(j, rules, p, names, -1);
            for (int r = 0; r < SIM_RULE_COUNT; r++) {
                const cJSON *rv = cJSON_GetObjectItemCaseSensitive(rules, names[r]);
                if (rv)
                    parse_rule(j, rv, sim_json_key_path(q, p, names[r]), &out->rules[r]);
            }
        }
    }
    const cJSON *objs = NULL;
    sim_json_array(j, v, path, "objects", false, &objs);
    sim_json_key_path(p, path, "objects");
    for (int i = 0; objs && i < cJSON_GetArraySize(objs); i++)
        parse_object(j, cJSON_GetArrayItem(objs, i), sim_json_index_path(q, p, i), &out->objects);
    return j->errors > before ? SIM_EINVAL : SIM_OK;
}
