/* sim_msg_study: study.state, study.answer and study.answered (sim_msg_study.h). The
 * flat fields go through the field tables; the item list and the answers object are
 * written out here. */
#include "sim_msg_study.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sim_msg_fields.h"

#define S(st, name) \
    {#name, SIM_MF_STR, SIM_MF_AT(st, name, SIM_MF_STR, sizeof(((st *)0)->name)), 0, 0, sizeof(((st *)0)->name)}
#define I(st, name) {#name, SIM_MF_INT, SIM_MF_AT(st, name, SIM_MF_INT, 0), 0, 1e6, 0}
static const sim_msg_field STATE[] = {
    S(sim_msg_study_state, study),       S(sim_msg_study_state, participant), S(sim_msg_study_state, group),
    S(sim_msg_study_state, phase),       I(sim_msg_study_state, drive),       I(sim_msg_study_state, drives),
    S(sim_msg_study_state, condition),   S(sim_msg_study_state, kind),        S(sim_msg_study_state, message),
    S(sim_msg_study_state, questionnaire), S(sim_msg_study_state, waiting_on),
};
static const sim_msg_field ANSWER[] = {
    S(sim_msg_study_answer, study), S(sim_msg_study_answer, participant), I(sim_msg_study_answer, drive),
    S(sim_msg_study_answer, questionnaire), S(sim_msg_study_answer, source),
};
static const sim_msg_field ANSWERED[] = {
    S(sim_msg_study_answered, study), S(sim_msg_study_answered, participant), I(sim_msg_study_answered, drive),
    S(sim_msg_study_answered, questionnaire), {"ok", SIM_MF_BOOL, SIM_MF_AT(sim_msg_study_answered, ok, SIM_MF_BOOL, 0), 0, 0, 0},
    S(sim_msg_study_answered, error),
};
static const sim_msg_field GO[] = {
    S(sim_msg_study_go, study), S(sim_msg_study_go, participant), I(sim_msg_study_go, drive),
    S(sim_msg_study_go, source),
};
#define N(t) (sizeof t / sizeof *t)

/* Fields every message of a kind must carry (the tables treat all as optional). */
static int required(sim_json *j, const cJSON *msg, const char *const *names)
{
    for (int i = 0; names[i]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, names[i]);
        if (!v || cJSON_IsNull(v)) return sim_json_found(j, names[i], NULL, "a value");
        /* An empty string would be left out when encoded again: it is no value. */
        if (cJSON_IsString(v) && !v->valuestring[0]) return sim_json_found(j, names[i], v, "a non-empty string");
    }
    return SIM_OK;
}

cJSON *sim_msg_study_state_encode(const sim_msg_study_state *m)
{
    cJSON *o = sim_msg_fields_object(m, STATE, N(STATE));
    if (!o) return NULL;
    cJSON *params = cJSON_Parse(m->params[0] ? m->params : "{}");
    if (!params || !cJSON_IsObject(params)) {
        cJSON_Delete(params);
        params = cJSON_CreateObject();
    }
    cJSON_AddItemToObject(o, "params", params);
    cJSON *items = cJSON_AddArrayToObject(o, "items");
    for (int i = 0; items && i < m->n_items; i++) {
        const sim_msg_study_item *it = &m->items[i];
        cJSON *e = cJSON_CreateObject();
        if (!e) goto fail;
        cJSON_AddItemToArray(items, e);
        cJSON_AddStringToObject(e, "id", it->id);
        cJSON_AddStringToObject(e, "instrument", it->instrument);
        cJSON_AddStringToObject(e, "text", it->text);
        cJSON_AddStringToObject(e, "type", it->is_text ? "text" : "scale");
        if (!it->is_text) {
            cJSON_AddNumberToObject(e, "min", it->min);
            cJSON_AddNumberToObject(e, "max", it->max);
            cJSON_AddNumberToObject(e, "step", it->step);
            cJSON_AddStringToObject(e, "low", it->low);
            cJSON_AddStringToObject(e, "high", it->high);
            if (it->n_labels > 0) {
                cJSON *l = cJSON_AddArrayToObject(e, "labels");
                for (int k = 0; l && k < it->n_labels; k++) cJSON_AddItemToArray(l, cJSON_CreateString(it->labels[k]));
            }
        }
    }
    if (!items) goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static int copy_str(sim_json *j, const cJSON *obj, const char *path, const char *key, bool req, char *out,
                    size_t size)
{
    return sim_json_strcpy(j, obj, path, key, req, out, size);
}

int sim_msg_study_state_decode(const cJSON *msg, sim_msg_study_state *out, sim_error *err)
{
    static const char *const req[] = {"study", "participant", "phase", "drive", "drives", NULL};
    memset(out, 0, sizeof *out);
    sim_json j = {.file = SIM_TOPIC_STUDY_STATE, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, STATE, N(STATE));
    if (!rc) rc = required(&j, msg, req);
    if (rc) return rc;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (params) {
        if (!cJSON_IsObject(params)) return sim_json_found(&j, "params", params, "an object");
        char *t = cJSON_PrintUnformatted(params);
        if (!t) return sim_error_set(err, SIM_ENOMEM, "out of memory");
        size_t n = strlen(t);
        if (n >= sizeof out->params) {
            cJSON_free(t);
            return sim_json_fail(&j, SIM_ETOOBIG, "params", "found %zu bytes, expected fewer than %zu", n,
                                 sizeof out->params);
        }
        memcpy(out->params, t, n + 1);
        cJSON_free(t);
    }
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(msg, "items");
    if (!items) return SIM_OK;
    if (!cJSON_IsArray(items) || cJSON_GetArraySize(items) > SIM_STUDY_MSG_ITEMS_MAX)
        return sim_json_found(&j, "items", items, "an array of at most 64 items");
    for (const cJSON *e = items->child; e; e = e->next) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, "items", out->n_items);
        sim_msg_study_item *it = &out->items[out->n_items];
        static const char *const types[] = {"scale", "text", NULL};
        int type;
        if ((rc = sim_json_object(&j, e, p)) || (rc = copy_str(&j, e, p, "id", true, it->id, sizeof it->id)) ||
            (rc = copy_str(&j, e, p, "instrument", false, it->instrument, sizeof it->instrument)) ||
            (rc = copy_str(&j, e, p, "text", true, it->text, sizeof it->text)) ||
            (rc = sim_json_enum(&j, e, p, "type", -1, types, -1, &type)))
            return rc;
        it->is_text = type == 1;
        if (!it->is_text &&
            ((rc = sim_json_num(&j, e, p, "min", true, 0, SIM_JSON_ANY, 0, 0, &it->min)) ||
             (rc = sim_json_num(&j, e, p, "max", true, 0, SIM_JSON_ANY, 0, 0, &it->max)) ||
             (rc = sim_json_num(&j, e, p, "step", false, 0, SIM_JSON_NONNEG, 0, 0, &it->step)) ||
             (rc = copy_str(&j, e, p, "low", false, it->low, sizeof it->low)) ||
             (rc = copy_str(&j, e, p, "high", false, it->high, sizeof it->high))))
            return rc;
        const cJSON *labels = cJSON_GetObjectItemCaseSensitive(e, "labels");
        if (labels && !it->is_text) {
            char lp[SIM_JSON_PATH_MAX];
            sim_json_key_path(lp, p, "labels");
            if (!cJSON_IsArray(labels) || cJSON_GetArraySize(labels) > SIM_STUDY_MSG_LABELS_MAX)
                return sim_json_found(&j, lp, labels, "an array of at most 9 strings");
            for (const cJSON *l = labels->child; l; l = l->next) {
                if (!cJSON_IsString(l) || strlen(l->valuestring) >= sizeof it->labels[0])
                    return sim_json_found(&j, lp, l, "strings of at most 47 bytes");
                snprintf(it->labels[it->n_labels++], sizeof it->labels[0], "%s", l->valuestring);
            }
        }
        out->n_items++;
    }
    return SIM_OK;
}

cJSON *sim_msg_study_answer_encode(const sim_msg_study_answer *m)
{
    cJSON *o = sim_msg_fields_object(m, ANSWER, N(ANSWER));
    cJSON *a = o ? cJSON_AddObjectToObject(o, "answers") : NULL;
    if (!a) {
        cJSON_Delete(o);
        return NULL;
    }
    for (int i = 0; i < m->n; i++) {
        cJSON *v = m->is_text[i]        ? cJSON_CreateString(m->text[i])
                   : isnan(m->value[i]) ? cJSON_CreateNull()
                                        : cJSON_CreateNumber(m->value[i]);
        if (!v) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToObject(a, m->item[i], v);
    }
    return o;
}

int sim_msg_study_answer_decode(const cJSON *msg, sim_msg_study_answer *out, sim_error *err)
{
    static const char *const req[] = {"participant", "drive", "questionnaire", "answers", NULL};
    memset(out, 0, sizeof *out);
    sim_json j = {.file = SIM_TOPIC_STUDY_ANSWER, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, ANSWER, N(ANSWER));
    if (!rc) rc = required(&j, msg, req);
    if (rc) return rc;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(msg, "answers");
    if (!cJSON_IsObject(a) || cJSON_GetArraySize(a) > SIM_STUDY_MSG_ITEMS_MAX)
        return sim_json_found(&j, "answers", a, "an object of at most 64 item answers");
    for (const cJSON *v = a->child; v; v = v->next) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_key_path(p, "answers", v->string);
        int i = out->n;
        if (strlen(v->string) >= sizeof out->item[i])
            return sim_json_fail(&j, SIM_ETOOBIG, p, "item id longer than %zu bytes", sizeof out->item[i] - 1);
        for (int k = 0; k < i; k++)
            if (strcmp(out->item[k], v->string) == 0) return sim_json_fail(&j, SIM_EINVAL, p, "found twice, expected once");
        snprintf(out->item[i], sizeof out->item[i], "%s", v->string);
        if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
            out->value[i] = v->valuedouble;
        } else if (cJSON_IsNull(v)) {
            out->value[i] = NAN; /* skipped by the test person */
        } else if (cJSON_IsString(v)) {
            if (strlen(v->valuestring) >= sizeof out->text[i])
                return sim_json_fail(&j, SIM_ETOOBIG, p, "found %zu bytes, expected fewer than %zu",
                                     strlen(v->valuestring), sizeof out->text[i]);
            out->is_text[i] = true;
            out->value[i] = NAN;
            snprintf(out->text[i], sizeof out->text[i], "%s", v->valuestring);
        } else {
            return sim_json_found(&j, p, v, "a number (scale item), a string (text item) or null (skipped)");
        }
        out->n++;
    }
    return SIM_OK;
}

cJSON *sim_msg_study_answered_encode(const sim_msg_study_answered *m)
{
    return sim_msg_fields_object(m, ANSWERED, N(ANSWERED));
}

int sim_msg_study_answered_decode(const cJSON *msg, sim_msg_study_answered *out, sim_error *err)
{
    static const char *const req[] = {"participant", "drive", "questionnaire", "ok", NULL};
    memset(out, 0, sizeof *out);
    sim_json j = {.file = SIM_TOPIC_STUDY_ANSWERED, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, ANSWERED, N(ANSWERED));
    return rc ? rc : required(&j, msg, req);
}

cJSON *sim_msg_study_go_encode(const sim_msg_study_go *m)
{
    return sim_msg_fields_object(m, GO, N(GO));
}

int sim_msg_study_go_decode(const cJSON *msg, sim_msg_study_go *out, sim_error *err)
{
    static const char *const req[] = {"participant", NULL};
    memset(out, 0, sizeof *out);
    sim_json j = {.file = SIM_TOPIC_STUDY_GO, .err = err};
    int rc = sim_msg_fields_decode(&j, msg, out, GO, N(GO));
    return rc ? rc : required(&j, msg, req);
}
