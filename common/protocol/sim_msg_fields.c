/* sim_msg_fields: table-driven payload codec (see sim_msg_fields.h). */
#include "sim_msg_fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int sim_msg_fields_encode(cJSON *o, const void *m, const sim_msg_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)m + f[i].offset;
        const char *k = f[i].name;
        bool ok = true;
        switch (f[i].kind) {
        case SIM_MF_NUM:
        case SIM_MF_CLAMP:
            if (!isnan(*(const double *)p)) ok = cJSON_AddNumberToObject(o, k, *(const double *)p);
            break;
        case SIM_MF_NUM_NULL:
            ok = isnan(*(const double *)p) ? cJSON_AddNullToObject(o, k) != NULL
                                           : cJSON_AddNumberToObject(o, k, *(const double *)p) != NULL;
            break;
        case SIM_MF_VEC3: {
            const double *v = (const double *)p;
            if (isnan(v[0])) break;
            cJSON *a = cJSON_CreateDoubleArray(v, 3);
            ok = a && cJSON_AddItemToObject(o, k, a);
            if (a && !ok) cJSON_Delete(a);
            break;
        }
        case SIM_MF_INT:
            if (*(const int *)p != SIM_MSG_NO_INT) ok = cJSON_AddNumberToObject(o, k, *(const int *)p);
            break;
        case SIM_MF_INT_NULL:
            ok = *(const int *)p == SIM_MSG_NO_INT ? cJSON_AddNullToObject(o, k) != NULL
                                                   : cJSON_AddNumberToObject(o, k, *(const int *)p) != NULL;
            break;
        case SIM_MF_U64: ok = cJSON_AddNumberToObject(o, k, (double)*(const uint64_t *)p); break;
        case SIM_MF_BOOL: ok = cJSON_AddBoolToObject(o, k, *(const bool *)p); break;
        case SIM_MF_STR:
            if (p[0]) ok = cJSON_AddStringToObject(o, k, p);
            break;
        }
        if (!ok) return SIM_ENOMEM;
    }
    return SIM_OK;
}

cJSON *sim_msg_fields_object(const void *m, const sim_msg_field *f, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    if (o && sim_msg_fields_encode(o, m, f, n)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

void sim_msg_fields_clear(void *m, const sim_msg_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p = (char *)m + f[i].offset;
        switch (f[i].kind) {
        case SIM_MF_NUM:
        case SIM_MF_NUM_NULL:
        case SIM_MF_CLAMP: *(double *)p = NAN; break;
        case SIM_MF_VEC3: ((double *)p)[0] = ((double *)p)[1] = ((double *)p)[2] = NAN; break;
        case SIM_MF_INT:
        case SIM_MF_INT_NULL: *(int *)p = SIM_MSG_NO_INT; break;
        case SIM_MF_U64: *(uint64_t *)p = 0; break;
        case SIM_MF_BOOL: *(bool *)p = false; break;
        case SIM_MF_STR: p[0] = '\0'; break;
        }
    }
}

static int decode_one(sim_json *j, const cJSON *msg, char *p, const sim_msg_field *f)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, f->name);
    if (!v || cJSON_IsNull(v)) return SIM_OK; /* absent */
    switch (f->kind) {
    case SIM_MF_NUM:
    case SIM_MF_NUM_NULL: return sim_json_number(j, v, f->name, f->lo, f->hi, (double *)p);
    case SIM_MF_CLAMP: {
        double x;
        int rc = sim_json_number(j, v, f->name, -INFINITY, INFINITY, &x);
        if (!rc) *(double *)p = x < f->lo ? f->lo : x > f->hi ? f->hi : x;
        return rc;
    }
    case SIM_MF_VEC3: {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
            return sim_json_found(j, f->name, v, "an array of 3 numbers");
        double xyz[3];
        for (int k = 0; k < 3; k++) {
            char path[SIM_JSON_PATH_MAX];
            int rc = sim_json_number(j, cJSON_GetArrayItem(v, k), sim_json_index_path(path, f->name, k),
                                     f->lo, f->hi, &xyz[k]);
            if (rc) return rc;
        }
        memcpy(p, xyz, sizeof xyz);
        return SIM_OK;
    }
    case SIM_MF_INT:
    case SIM_MF_INT_NULL: return sim_json_integer(j, v, f->name, (int)f->lo, (int)f->hi, (int *)p);
    case SIM_MF_U64: {
        double x;
        int rc = sim_json_number(j, v, f->name, 0, 9007199254740992.0, &x);
        if (!rc && x != floor(x)) rc = sim_json_bad_value(j, SIM_EINVAL, f->name, v, "an integer >= 0");
        if (!rc) *(uint64_t *)p = (uint64_t)x;
        return rc;
    }
    case SIM_MF_BOOL:
        if (!cJSON_IsBool(v)) return sim_json_found(j, f->name, v, "true or false");
        *(bool *)p = cJSON_IsTrue(v);
        return SIM_OK;
    case SIM_MF_STR:
        if (!cJSON_IsString(v)) return sim_json_found(j, f->name, v, "a string");
        snprintf(p, f->size, "%s", v->valuestring);
        return SIM_OK;
    }
    return SIM_OK;
}

int sim_msg_fields_decode(sim_json *j, const cJSON *msg, void *m, const sim_msg_field *f, size_t n)
{
    sim_msg_fields_clear(m, f, n);
    if (!cJSON_IsObject(msg)) return sim_json_found(j, NULL, msg, "a JSON object");
    int first = SIM_OK;
    for (size_t i = 0; i < n; i++) {
        int rc = decode_one(j, msg, (char *)m + f[i].offset, &f[i]);
        if (rc && !first) first = rc;
    }
    return first;
}
