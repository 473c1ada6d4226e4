/* sim_msg_traffic: traffic.state and traffic.event (see sim_msg_traffic.h). */
#include "sim_msg_traffic.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_json.h"

static double round_to(double v, double unit) { return round(v / unit) * unit; }

static bool add_num(cJSON *o, const char *key, double v, double unit)
{
    return isfinite(v) ? cJSON_AddNumberToObject(o, key, round_to(v, unit)) != NULL
                       : cJSON_AddNullToObject(o, key) != NULL;
}

static bool add_vec(cJSON *o, const char *key, const double *v, double unit)
{
    double r[3] = {round_to(v[0], unit), round_to(v[1], unit), round_to(v[2], unit)};
    cJSON *a = cJSON_CreateDoubleArray(r, 3);
    return a && cJSON_AddItemToObject(o, key, a);
}

/* indicator by (left, right): off, left, right, both = hazard */
static const char *const indicator_names[] = {"off", "left", "right", "hazard", NULL};

static cJSON *vehicle_encode(const sim_msg_traffic_vehicle *v)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "id", v->id) && cJSON_AddStringToObject(o, "model", v->model) &&
              add_vec(o, "pos", v->pos, 1e-3) && add_num(o, "heading", v->heading, 1e-4) &&
              add_vec(o, "size", v->size, 1e-3) && add_vec(o, "velocity", v->velocity, 1e-3) &&
              cJSON_AddBoolToObject(o, "brake", v->brake) &&
              cJSON_AddStringToObject(o, "indicator", indicator_names[v->left + 2 * v->right]) &&
              (v->road[0] ? cJSON_AddStringToObject(o, "road", v->road) != NULL : cJSON_AddNullToObject(o, "road") != NULL) &&
              cJSON_AddNumberToObject(o, "lane", v->lane) && add_num(o, "s", v->s, 1e-3) &&
              (!v->has_ref || add_vec(o, "pos_ref", v->pos_ref, 1e-3));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *sim_msg_traffic_state_encode(const sim_msg_traffic_state *m)
{
    cJSON *o = cJSON_CreateObject(), *list, *lead;
    if (!o || !cJSON_AddNumberToObject(o, "run", m->run) || !cJSON_AddNumberToObject(o, "total", m->total) ||
        !cJSON_AddNumberToObject(o, "ambient", m->ambient) ||
        !cJSON_AddBoolToObject(o, "frozen", m->frozen) || (m->cab[0] && !cJSON_AddStringToObject(o, "cab", m->cab)) ||
        !(list = cJSON_AddArrayToObject(o, "vehicles")))
        goto oom;
    for (int i = 0; i < m->n_vehicles; i++) {
        cJSON *v = vehicle_encode(&m->vehicles[i]);
        if (!v || !cJSON_AddItemToArray(list, v)) {
            cJSON_Delete(v);
            goto oom;
        }
    }
    if (!m->lead.valid) {
        if (!cJSON_AddNullToObject(o, "lead")) goto oom;
        return o;
    }
    if (!(lead = cJSON_AddObjectToObject(o, "lead")) || !cJSON_AddStringToObject(lead, "id", m->lead.id) ||
        !add_num(lead, "gap", m->lead.gap, 1e-3) || !add_num(lead, "speed", m->lead.speed, 1e-3) ||
        !add_num(lead, "thw", m->lead.thw, 1e-3) || !add_num(lead, "ttc", m->lead.ttc, 1e-3))
        goto oom;
    return o;
oom:
    cJSON_Delete(o);
    return NULL;
}

static int vec3(sim_json *j, const cJSON *v, const char *path, const char *key, bool required, double *out)
{
    char p[SIM_JSON_PATH_MAX];
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(v, key);
    sim_json_key_path(p, path, key);
    if (!a && !required) return SIM_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) return sim_json_found(j, p, a, "an array of 3 numbers");
    for (int i = 0; i < 3; i++) {
        char e[SIM_JSON_PATH_MAX];
        int ret = sim_json_number(j, cJSON_GetArrayItem(a, i), sim_json_index_path(e, p, i), -1e12, 1e12, &out[i]);
        if (ret) return ret;
    }
    return SIM_OK;
}

static int vehicle_decode(sim_json *j, const cJSON *v, const char *p, sim_msg_traffic_vehicle *out)
{
    memset(out, 0, sizeof *out);
    out->size[0] = 4.5;
    out->size[1] = 1.8;
    out->size[2] = 1.5;
    snprintf(out->model, sizeof out->model, "car");
    double size[3] = {4.5, 1.8, 1.5};
    int ret = sim_json_object(j, v, p);
    if (!ret) ret = vec3(j, v, p, "pos", true, out->pos);
    out->has_ref = cJSON_GetObjectItemCaseSensitive(v, "pos_ref") != NULL;
    if (!ret && out->has_ref) ret = vec3(j, v, p, "pos_ref", true, out->pos_ref);
    if (!ret) ret = sim_json_num(j, v, p, "heading", false, 0, SIM_JSON_ANY, 0, 0, &out->heading);
    if (!ret) ret = vec3(j, v, p, "size", false, size);
    if (!ret && !(size[0] > 0 && size[1] > 0 && size[2] > 0))
        ret = sim_json_fail(j, SIM_ERANGE, p, "\"size\": expected three numbers > 0");
    if (!ret) memcpy(out->size, size, sizeof size);
    if (!ret) ret = vec3(j, v, p, "velocity", false, out->velocity);
    if (!ret) ret = sim_json_strcpy(j, v, p, "id", false, out->id, sizeof out->id);
    if (!ret) ret = sim_json_strcpy(j, v, p, "model", false, out->model, sizeof out->model);
    if (!ret && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v, "road")))
        ret = sim_json_strcpy(j, v, p, "road", false, out->road, sizeof out->road);
    if (!ret) ret = sim_json_int(j, v, p, "lane", false, 0, -100, 100, &out->lane);
    if (!ret) ret = sim_json_num(j, v, p, "s", false, 0, SIM_JSON_ANY, 0, 0, &out->s);
    if (!ret) ret = sim_json_bool(j, v, p, "brake", false, false, &out->brake);
    int ind = 0;
    if (!ret) ret = sim_json_enum(j, v, p, "indicator", 0, indicator_names, -1, &ind);
    out->left = ind == 1 || ind == 3;
    out->right = ind == 2 || ind == 3;
    return ret;
}

int sim_msg_traffic_state_decode(const cJSON *msg, sim_msg_traffic_state *out, int max,
                                 sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_TRAFFIC_STATE, .err = err};
    sim_msg_traffic_vehicle *buf = out->vehicles;
    memset(out, 0, sizeof *out);
    out->vehicles = buf;
    const cJSON *list;
    int ret = sim_json_array(&j, msg, "", "vehicles", true, &list);
    if (ret) return ret;
    sim_json_int(&j, msg, "", "run", false, 0, 0, 1 << 30, &out->run);
    sim_json_int(&j, msg, "", "total", false, 0, 0, 1 << 30, &out->total);
    sim_json_int(&j, msg, "", "ambient", false, 0, 0, 1 << 30, &out->ambient);
    sim_json_bool(&j, msg, "", "frozen", false, false, &out->frozen);
    sim_json_strcpy(&j, msg, "", "cab", false, out->cab, sizeof out->cab);
    int first = j.errors ? SIM_EINVAL : SIM_OK;
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, "vehicles", i++);
        if (out->n_vehicles >= max) break;
        sim_json one = {.file = SIM_TOPIC_TRAFFIC_STATE, .err = first ? NULL : err};
        if (vehicle_decode(&one, v, p, &out->vehicles[out->n_vehicles]) == SIM_OK) {
            out->n_vehicles++;
        } else {
            out->skipped++;
            if (!first) first = SIM_EINVAL;
        }
    }
    const cJSON *lead = cJSON_GetObjectItemCaseSensitive(msg, "lead");
    if (lead && !cJSON_IsNull(lead) && !first) {
        sim_msg_traffic_lead *l = &out->lead;
        int r = sim_json_object(&j, lead, "lead");
        if (!r) r = sim_json_strcpy(&j, lead, "lead", "id", false, l->id, sizeof l->id);
        if (!r) r = sim_json_num(&j, lead, "lead", "gap", true, 0, SIM_JSON_ANY, 0, 0, &l->gap);
        if (!r) r = sim_json_num(&j, lead, "lead", "speed", true, 0, SIM_JSON_ANY, 0, 0, &l->speed);
        l->thw = l->ttc = INFINITY;
        const cJSON *thw = cJSON_GetObjectItemCaseSensitive(lead, "thw"), *ttc = cJSON_GetObjectItemCaseSensitive(lead, "ttc");
        if (!r && thw && !cJSON_IsNull(thw)) r = sim_json_num(&j, lead, "lead", "thw", true, 0, SIM_JSON_NONNEG, 0, 0, &l->thw);
        if (!r && ttc && !cJSON_IsNull(ttc)) r = sim_json_num(&j, lead, "lead", "ttc", true, 0, SIM_JSON_NONNEG, 0, 0, &l->ttc);
        l->valid = r == SIM_OK;
        if (r) first = r;
    }
    return first;
}

static const char *const action_names[] = {"lane_switch", "brake", "hud_text", "log_mark", NULL};

cJSON *sim_msg_traffic_event_encode(const sim_msg_traffic_event *m)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "trigger", m->trigger) && cJSON_AddStringToObject(o, "action", m->action) &&
              (m->agent[0] ? cJSON_AddStringToObject(o, "agent", m->agent) != NULL : cJSON_AddNullToObject(o, "agent") != NULL) &&
              cJSON_AddStringToObject(o, "by", m->by) && (!m->text[0] || cJSON_AddStringToObject(o, "text", m->text));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_traffic_event_decode(const cJSON *msg, sim_msg_traffic_event *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_TRAFFIC_EVENT, .err = err};
    memset(out, 0, sizeof *out);
    int action;
    int ret = sim_json_strcpy(&j, msg, "", "trigger", true, out->trigger, sizeof out->trigger);
    if (!ret) ret = sim_json_enum(&j, msg, "", "action", -1, action_names, -1, &action);
    if (!ret) snprintf(out->action, sizeof out->action, "%s", action_names[action]);
    if (!ret && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(msg, "agent")))
        ret = sim_json_strcpy(&j, msg, "", "agent", false, out->agent, sizeof out->agent);
    if (!ret) ret = sim_json_strcpy(&j, msg, "", "by", true, out->by, sizeof out->by);
    if (!ret) ret = sim_json_strcpy(&j, msg, "", "text", false, out->text, sizeof out->text);
    return ret;
}

cJSON *sim_msg_traffic_collision_encode(const sim_msg_traffic_collision *m)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "other", m->other) && cJSON_AddStringToObject(o, "model", m->model) &&
              add_num(o, "rel_speed", m->rel_speed, 0.001) && add_num(o, "ego_speed", m->ego_speed, 0.001) &&
              add_num(o, "other_speed", m->other_speed, 0.001);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_traffic_collision_decode(const cJSON *msg, sim_msg_traffic_collision *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_TRAFFIC_COLLISION, .err = err};
    memset(out, 0, sizeof *out);
    out->ego_speed = out->other_speed = NAN;
    int ret = sim_json_strcpy(&j, msg, "", "other", true, out->other, sizeof out->other);
    if (!ret) ret = sim_json_strcpy(&j, msg, "", "model", false, out->model, sizeof out->model);
    if (!ret) ret = sim_json_num(&j, msg, "", "rel_speed", true, 0, SIM_JSON_NONNEG, 0, 0, &out->rel_speed);
    if (!ret) ret = sim_json_num(&j, msg, "", "ego_speed", false, NAN, SIM_JSON_NONNEG, 0, 0, &out->ego_speed);
    if (!ret) ret = sim_json_num(&j, msg, "", "other_speed", false, NAN, SIM_JSON_NONNEG, 0, 0, &out->other_speed);
    return ret;
}

cJSON *sim_msg_traffic_ego_encode(const sim_msg_traffic_ego *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "id", m->id) || !cJSON_AddNumberToObject(o, "x", m->x) ||
        !cJSON_AddNumberToObject(o, "y", m->y) || !cJSON_AddNumberToObject(o, "heading", m->heading) ||
        !cJSON_AddNumberToObject(o, "speed", m->speed) || !cJSON_AddNumberToObject(o, "x_ref", m->x_ref) ||
        !cJSON_AddNumberToObject(o, "y_ref", m->y_ref)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int sim_msg_traffic_ego_decode(const cJSON *msg, sim_msg_traffic_ego *out, sim_error *err)
{
    sim_json j = {.file = SIM_TOPIC_TRAFFIC_EGO, .err = err};
    memset(out, 0, sizeof *out);
    int ret = sim_json_strcpy(&j, msg, "", "id", true, out->id, sizeof out->id);
    if (!ret) ret = sim_json_num(&j, msg, "", "x", true, 0, SIM_JSON_ANY, 0, 0, &out->x);
    if (!ret) ret = sim_json_num(&j, msg, "", "y", true, 0, SIM_JSON_ANY, 0, 0, &out->y);
    if (!ret) ret = sim_json_num(&j, msg, "", "heading", true, 0, SIM_JSON_ANY, 0, 0, &out->heading);
    if (!ret) ret = sim_json_num(&j, msg, "", "speed", true, 0, SIM_JSON_NONNEG, 0, 0, &out->speed);
    if (!ret) ret = sim_json_num(&j, msg, "", "x_ref", false, out->x, SIM_JSON_ANY, 0, 0, &out->x_ref);
    if (!ret) ret = sim_json_num(&j, msg, "", "y_ref", false, out->y, SIM_JSON_ANY, 0, 0, &out->y_ref);
    return ret;
}
