/* traffic_in: traffic.state decoding (traffic_in.h). */
#include "traffic_in.h"

#include <math.h>
#include <string.h>

static bool vec3(const cJSON *o, const char *name, double out[3])
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
        return false;
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            return false;
        out[i] = v->valuedouble;
    }
    return true;
}

int rn_traffic_decode(const cJSON *msg, rn_agent *out, int max, sim_error *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(msg, "vehicles");
    if (!cJSON_IsArray(list))
        return sim_error_set(err, SIM_EINVAL, "traffic.state: \"vehicles\" must be an array");
    int n = 0, i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, list) {
        if (n >= max)
            break;
        rn_agent *a = &out[n];
        memset(a, 0, sizeof *a);
        if (!vec3(v, "pos", a->pos))
            return sim_error_set(err, SIM_EINVAL, "traffic.state: \"vehicles[%d].pos\" must be [x, y, z] in m", i);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "heading");
        if (h && (!cJSON_IsNumber(h) || !isfinite(h->valuedouble)))
            return sim_error_set(err, SIM_EINVAL, "traffic.state: \"vehicles[%d].heading\" must be a number (rad)", i);
        a->heading = h ? h->valuedouble : 0;
        if (!vec3(v, "size", a->size) || !(a->size[0] > 0 && a->size[1] > 0 && a->size[2] > 0)) {
            a->size[0] = 4.5;
            a->size[1] = 1.8;
            a->size[2] = 1.5;
        }
        double vel[3];
        if (vec3(v, "velocity", vel))
            a->speed = vel[0] * cos(a->heading) + vel[1] * sin(a->heading);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "brake");
        a->brake = cJSON_IsTrue(b) || (cJSON_IsNumber(b) && b->valuedouble > 0.5);
        const cJSON *ind = cJSON_GetObjectItemCaseSensitive(v, "indicator");
        if (cJSON_IsString(ind))
            a->indicator = !strcmp(ind->valuestring, "left") ? 1 : !strcmp(ind->valuestring, "right") ? -1
                           : !strcmp(ind->valuestring, "hazard") ? 2 : 0;
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(v, "id");
        unsigned hsh = 2166136261u ^ (unsigned)i;
        if (cJSON_IsString(id)) {
            hsh = 2166136261u;
            for (const char *c = id->valuestring; *c; c++)
                hsh = (hsh ^ (unsigned char)*c) * 16777619u;
        }
        a->colour = hsh;
        n++;
        i++;
    }
    return n;
}
