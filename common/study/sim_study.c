/* sim_study: reading and validating a study file (see sim_study.h and docs/study.md).
 * The parser stops at the first error: a study file is short and written by hand, and
 * the message names the path to fix. */
#include <stdlib.h>
#include <string.h>

#include "sim_json.h"
#include "sim_study.h"
#include "sim_sky.h"

#define TRY(x)                  \
    do {                        \
        int rc_ = (x);          \
        if (rc_ < 0) return rc_; \
    } while (0)

const char *const sim_design_names[] = {"balanced-latin-square", "latin-square", "random", "explicit", NULL};
static const char *const when_names[] = {"after_each", "at_end", NULL};
static const char *const item_types[] = {"likert", "text", NULL};

const char *sim_drive_kind_name(sim_drive_kind k)
{
    return k == SIM_DRIVE_PRACTICE ? "practice" : k == SIM_DRIVE_FIXED ? "fixed" : "condition";
}

void sim_study_free(sim_study *s) { free(s); }

int sim_study_condition_find(const sim_study *s, const char *name)
{
    for (int i = 0; name && i < s->n_conditions; i++)
        if (strcmp(s->conditions[i].name, name) == 0) return i;
    return -1;
}

int sim_study_participant_find(const sim_study *s, const char *id)
{
    for (int i = 0; id && i < s->n_participants; i++)
        if (strcmp(s->participants[i], id) == 0) return i;
    return -1;
}

int sim_study_questionnaire_find(const sim_study *s, const char *id)
{
    for (int i = 0; id && i < s->n_questionnaires; i++)
        if (strcmp(s->questionnaires[i].id, id) == 0) return i;
    return -1;
}

/* Names used as folder and file names and CSV cells: no path separators, no commas. */
static int name_ok(sim_json *j, const cJSON *v, const char *path)
{
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= SIM_STUDY_NAME_MAX)
        return sim_json_found(j, path, v, "a name of 1 to 63 characters");
    for (const char *c = v->valuestring; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return sim_json_found(j, path, v, "a name of letters, digits, '-', '_' and '.'");
    /* ".", ".." and hidden names would put the study's folder, database and drives
     * somewhere else (".." landed them in out/) or nowhere. */
    if (v->valuestring[0] == '.')
        return sim_json_found(j, path, v, "a name that does not start with '.' (it names a folder)");
    return SIM_OK;
}

static int read_name(sim_json *j, const cJSON *obj, const char *path, const char *key, char *out)
{
    char p[SIM_JSON_PATH_MAX];
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    TRY(name_ok(j, v, sim_json_key_path(p, path, key)));
    sim_format(out, SIM_STUDY_NAME_MAX, "%s", v->valuestring);
    return SIM_OK;
}

static int read_params(sim_json *j, const cJSON *c, const char *path, sim_study_params *out)
{
    static const char *const keys[] = {"light", "traffic_density", "traffic_seed", "custom", NULL};
    char p[SIM_JSON_PATH_MAX];
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(c, "params");
    sim_json_key_path(p, path, "params");
    if (!o) return SIM_OK;
    TRY(sim_json_object(j, o, p));
    /* A parameter nobody acts on is refused here, not carried along in silence. */
    TRY(sim_json_keys(j, o, p, keys, -1));
    int light = -1;
    if (cJSON_GetObjectItemCaseSensitive(o, "light")) {
        TRY(sim_json_enum(j, o, p, "light", -1, sim_light_names, -1, &light));
        sim_format(out->light, sizeof out->light, "%s", sim_light_names[light]);
    }
    out->has_density = cJSON_GetObjectItemCaseSensitive(o, "traffic_density") != NULL;
    TRY(sim_json_num(j, o, p, "traffic_density", false, 0, SIM_JSON_RANGE, 0, 200, &out->traffic_density));
    out->has_seed = cJSON_GetObjectItemCaseSensitive(o, "traffic_seed") != NULL;
    TRY(sim_json_num(j, o, p, "traffic_seed", false, 1, SIM_JSON_RANGE, 0, 4294967295.0, &out->traffic_seed));
    const cJSON *custom = cJSON_GetObjectItemCaseSensitive(o, "custom");
    if (custom) {
        char cp[SIM_JSON_PATH_MAX];
        TRY(sim_json_object(j, custom, sim_json_key_path(cp, p, "custom")));
        char *text = cJSON_PrintUnformatted(custom);
        if (!text) return sim_json_fail(j, SIM_ENOMEM, cp, "out of memory");
        size_t n = strlen(text);
        if (n >= sizeof out->custom_json) {
            free(text);
            return sim_json_fail(j, SIM_ETOOBIG, cp, "found %zu bytes, expected at most %zu", n,
                                 sizeof out->custom_json - 1);
        }
        memcpy(out->custom_json, text, n + 1);
        free(text);
    }
    return SIM_OK;
}

static int read_condition(sim_json *j, const cJSON *c, const char *path, sim_study_condition *out)
{
    static const char *const keys[] = {"name", "scenario", "vehicle", "start", "until_s", "instructions", "params", NULL};
    TRY(sim_json_object(j, c, path));
    TRY(sim_json_keys(j, c, path, keys, -1));
    TRY(read_name(j, c, path, "name", out->name));
    TRY(sim_json_strcpy(j, c, path, "scenario", true, out->scenario, sizeof out->scenario));
    TRY(sim_json_strcpy(j, c, path, "vehicle", false, out->vehicle, sizeof out->vehicle));
    TRY(sim_json_strcpy(j, c, path, "start", false, out->start, sizeof out->start));
    TRY(sim_json_num(j, c, path, "until_s", false, 0, SIM_JSON_POS, 0, 0, &out->until_s));
    TRY(sim_json_strcpy(j, c, path, "instructions", false, out->instructions, sizeof out->instructions));
    return read_params(j, c, path, &out->params);
}

/* A list of condition names into idx; each must exist and appear once. */
static int read_cond_list(sim_json *j, const sim_study *s, const cJSON *arr, const char *path,
                          int max, int *idx, int *n)
{
    if (!cJSON_IsArray(arr)) return sim_json_found(j, path, arr, "an array of condition names");
    *n = 0;
    int i = 0;
    for (const cJSON *v = arr->child; v; v = v->next, i++) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, path, i);
        int c = cJSON_IsString(v) ? sim_study_condition_find(s, v->valuestring) : -1;
        if (c < 0) return sim_json_found(j, p, v, "the name of a condition");
        for (int k = 0; k < *n; k++)
            if (idx[k] == c) return sim_json_found(j, p, v, "each condition once");
        if (*n >= max) return sim_json_fail(j, SIM_ETOOBIG, path, "found more than %d names", max);
        idx[(*n)++] = c;
    }
    return SIM_OK;
}

static int read_participants(sim_json *j, const cJSON *root, sim_study *s)
{
    static const char *const keys[] = {"count", "ids", "groups", NULL};
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "participants");
    TRY(sim_json_object(j, o, "participants"));
    TRY(sim_json_keys(j, o, "participants", keys, -1));
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(o, "ids");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(o, "count");
    if ((ids != NULL) == (count != NULL))
        return sim_json_found(j, "participants", o, "an object with either \"ids\" or \"count\"");
    if (count) {
        int n;
        TRY(sim_json_int(j, o, "participants", "count", true, 0, 1, SIM_STUDY_PARTICIPANTS_MAX, &n));
        for (int i = 0; i < n; i++) sim_format(s->participants[i], SIM_STUDY_NAME_MAX, n > 99 ? "P%03d" : "P%02d", i + 1);
        s->n_participants = n;
    } else {
        if (!cJSON_IsArray(ids) || cJSON_GetArraySize(ids) < 1 || cJSON_GetArraySize(ids) > SIM_STUDY_PARTICIPANTS_MAX)
            return sim_json_found(j, "participants.ids", ids, "an array of 1 to 999 ids");
        int i = 0;
        for (const cJSON *v = ids->child; v; v = v->next, i++) {
            char p[SIM_JSON_PATH_MAX];
            sim_json_index_path(p, "participants.ids", i);
            TRY(name_ok(j, v, p));
            if (sim_study_participant_find(s, v->valuestring) >= 0)
                return sim_json_found(j, p, v, "each id once");
            sim_format(s->participants[s->n_participants++], SIM_STUDY_NAME_MAX, "%s", v->valuestring);
        }
    }
    for (int i = 0; i < s->n_participants; i++) s->group_of[i] = -1;
    const cJSON *groups = cJSON_GetObjectItemCaseSensitive(o, "groups");
    if (!groups) return SIM_OK;
    TRY(sim_json_object(j, groups, "participants.groups"));
    for (const cJSON *g = groups->child; g; g = g->next) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_key_path(p, "participants.groups", g->string);
        cJSON name = {.type = cJSON_String, .valuestring = g->string};
        TRY(name_ok(j, &name, p));
        if (s->n_groups >= SIM_STUDY_GROUPS_MAX) return sim_json_fail(j, SIM_ETOOBIG, p, "more than %d groups", SIM_STUDY_GROUPS_MAX);
        if (!cJSON_IsArray(g)) return sim_json_found(j, p, g, "an array of participant ids");
        int gi = s->n_groups++, i = 0;
        sim_format(s->groups[gi], SIM_STUDY_NAME_MAX, "%s", g->string);
        for (const cJSON *v = g->child; v; v = v->next, i++) {
            char q[SIM_JSON_PATH_MAX];
            sim_json_index_path(q, p, i);
            int pi = cJSON_IsString(v) ? sim_study_participant_find(s, v->valuestring) : -1;
            if (pi < 0) return sim_json_found(j, q, v, "a participant's id");
            if (s->group_of[pi] >= 0) return sim_json_found(j, q, v, "a participant in one group only");
            s->group_of[pi] = gi;
        }
    }
    return SIM_OK;
}

static int read_design(sim_json *j, const cJSON *root, sim_study *s)
{
    static const char *const keys[] = {"type", "conditions", "seed", "orders", "practice", "before", "after", NULL};
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "design");
    TRY(sim_json_object(j, o, "design"));
    TRY(sim_json_keys(j, o, "design", keys, -1));
    int kind;
    TRY(sim_json_enum(j, o, "design", "type", -1, sim_design_names, -1, &kind));
    s->design = kind;
    double seed;
    TRY(sim_json_num(j, o, "design", "seed", kind == SIM_DESIGN_RANDOM, 1, SIM_JSON_RANGE, 0, 4294967295.0, &seed));
    s->seed = (uint64_t)seed;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "practice")))
        TRY(read_cond_list(j, s, v, "design.practice", SIM_STUDY_EXTRA_MAX, s->practice, &s->n_practice));
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "before")))
        TRY(read_cond_list(j, s, v, "design.before", SIM_STUDY_EXTRA_MAX, s->before, &s->n_before));
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "after")))
        TRY(read_cond_list(j, s, v, "design.after", SIM_STUDY_EXTRA_MAX, s->after, &s->n_after));
    bool extra[SIM_STUDY_CONDITIONS_MAX] = {0};
    for (int i = 0; i < s->n_practice; i++) extra[s->practice[i]] = true;
    for (int i = 0; i < s->n_before; i++) extra[s->before[i]] = true;
    for (int i = 0; i < s->n_after; i++) extra[s->after[i]] = true;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "conditions"))) {
        TRY(read_cond_list(j, s, v, "design.conditions", SIM_STUDY_CONDITIONS_MAX, s->within, &s->n_within));
        for (int i = 0; i < s->n_within; i++)
            if (extra[s->within[i]])
                return sim_json_fail(j, SIM_EINVAL, "design.conditions", "found \"%s\", expected conditions not also practice, before or after drives",
                                     s->conditions[s->within[i]].name);
    } else {
        for (int c = 0; c < s->n_conditions; c++)
            if (!extra[c]) s->within[s->n_within++] = c;
    }
    if (s->n_within < 1) return sim_json_fail(j, SIM_EINVAL, "design.conditions", "found none, expected at least one condition to order");
    const cJSON *orders = cJSON_GetObjectItemCaseSensitive(o, "orders");
    if (kind != SIM_DESIGN_EXPLICIT) {
        if (orders) return sim_json_fail(j, SIM_EINVAL, "design.orders", "found orders, expected them only with \"type\": \"explicit\"");
        return SIM_OK;
    }
    if (!cJSON_IsArray(orders) || cJSON_GetArraySize(orders) < 1 || cJSON_GetArraySize(orders) > SIM_STUDY_CONDITIONS_MAX)
        return sim_json_found(j, "design.orders", orders, "an array of 1 to 32 orders");
    int r = 0;
    for (const cJSON *row = orders->child; row; row = row->next, r++) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, "design.orders", r);
        int n = 0;
        TRY(read_cond_list(j, s, row, p, SIM_STUDY_CONDITIONS_MAX, s->orders[r], &n));
        /* Every order holds exactly the design's conditions: otherwise participants
         * would not be comparable. */
        bool ok = n == s->n_within;
        for (int k = 0; ok && k < n; k++) {
            bool in = false;
            for (int w = 0; w < s->n_within; w++) in |= s->within[w] == s->orders[r][k];
            ok = in;
        }
        if (!ok) return sim_json_found(j, p, row, "an order of exactly the design's conditions");
    }
    s->n_orders = r;
    return SIM_OK;
}

static int read_item(sim_json *j, const cJSON *v, const char *path, sim_item *it)
{
    static const char *const keys[] = {"id", "type", "text", "min", "max", "step", "low", "high", NULL};
    TRY(sim_json_object(j, v, path));
    TRY(sim_json_keys(j, v, path, keys, -1));
    char id[SIM_STUDY_NAME_MAX];
    TRY(read_name(j, v, path, "id", id));
    if (strlen(id) >= sizeof it->id) return sim_json_fail(j, SIM_ETOOBIG, path, "id longer than %zu", sizeof it->id - 1);
    sim_format(it->id, sizeof it->id, "%s", id);
    int type;
    TRY(sim_json_enum(j, v, path, "type", -1, item_types, -1, &type));
    TRY(sim_json_strcpy(j, v, path, "text", true, it->text, sizeof it->text));
    it->kind = type == 0 ? SIM_ITEM_SCALE : SIM_ITEM_TEXT;
    if (it->kind == SIM_ITEM_TEXT) {
        static const char *const text_keys[] = {"id", "type", "text", NULL};
        return sim_json_keys(j, v, path, text_keys, -1);
    }
    TRY(sim_json_num(j, v, path, "min", false, 1, SIM_JSON_ANY, 0, 0, &it->min));
    TRY(sim_json_num(j, v, path, "max", false, 7, SIM_JSON_ANY, 0, 0, &it->max));
    TRY(sim_json_num(j, v, path, "step", false, 1, SIM_JSON_POS, 0, 0, &it->step));
    if (it->max <= it->min) return sim_json_fail(j, SIM_EINVAL, path, "found min %g, max %g, expected min < max", it->min, it->max);
    TRY(sim_json_strcpy(j, v, path, "low", false, it->low, sizeof it->low));
    return sim_json_strcpy(j, v, path, "high", false, it->high, sizeof it->high);
}

static int read_questionnaire(sim_json *j, const cJSON *v, const char *path, sim_questionnaire *q)
{
    static const char *const keys[] = {"id", "when", "instruments", "items", NULL};
    TRY(sim_json_object(j, v, path));
    TRY(sim_json_keys(j, v, path, keys, -1));
    char id[SIM_STUDY_NAME_MAX];
    TRY(read_name(j, v, path, "id", id));
    sim_format(q->id, sizeof q->id, "%.47s", id);
    int when;
    TRY(sim_json_enum(j, v, path, "when", -1, when_names, -1, &when));
    q->when = when;
    const cJSON *ins = cJSON_GetObjectItemCaseSensitive(v, "instruments");
    char p[SIM_JSON_PATH_MAX], want[160] = "one of: ";
    sim_enum_list(sim_instrument_standard_ids, -1, want + strlen(want), sizeof want - strlen(want));
    if (ins) {
        sim_json_key_path(p, path, "instruments");
        if (!cJSON_IsArray(ins) || cJSON_GetArraySize(ins) >= SIM_STUDY_INSTRUMENTS_MAX)
            return sim_json_found(j, p, ins, "an array of at most 5 instrument names");
        int i = 0;
        for (const cJSON *e = ins->child; e; e = e->next, i++) {
            char ep[SIM_JSON_PATH_MAX];
            sim_json_index_path(ep, p, i);
            const sim_instrument *std = cJSON_IsString(e) ? sim_instrument_standard(e->valuestring) : NULL;
            if (!std) return sim_json_found(j, ep, e, want);
            for (int k = 0; k < q->n_instruments; k++)
                if (strcmp(q->instruments[k].id, std->id) == 0) return sim_json_found(j, ep, e, "each instrument once");
            q->instruments[q->n_instruments++] = *std;
        }
    }
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(v, "items");
    if (items) {
        sim_json_key_path(p, path, "items");
        if (!cJSON_IsArray(items) || cJSON_GetArraySize(items) < 1 || cJSON_GetArraySize(items) > SIM_INSTRUMENT_ITEMS_MAX)
            return sim_json_found(j, p, items, "an array of 1 to 32 items");
        sim_instrument *c = &q->instruments[q->n_instruments++];
        memset(c, 0, sizeof *c);
        sim_format(c->id, sizeof c->id, "%s", q->id);
        sim_format(c->name, sizeof c->name, "custom items of %s", q->id);
        sim_format(c->source, sizeof c->source, "the study file");
        c->scoring = SIM_SCORE_NONE;
        int i = 0;
        for (const cJSON *e = items->child; e; e = e->next, i++) {
            char ep[SIM_JSON_PATH_MAX];
            sim_json_index_path(ep, p, i);
            TRY(read_item(j, e, ep, &c->items[i]));
            c->n_items = i + 1;
        }
    }
    if (q->n_instruments == 0)
        return sim_json_found(j, path, v, "a questionnaire with \"instruments\" or \"items\"");
    /* Item ids are answer keys: unique over the questionnaire. */
    for (int a = 0; a < q->n_instruments; a++)
        for (int ia = 0; ia < q->instruments[a].n_items; ia++)
            for (int b = a; b < q->n_instruments; b++)
                for (int ib = (b == a ? ia + 1 : 0); ib < q->instruments[b].n_items; ib++)
                    if (strcmp(q->instruments[a].items[ia].id, q->instruments[b].items[ib].id) == 0)
                        return sim_json_fail(j, SIM_EINVAL, path, "item id \"%s\" found twice, expected unique item ids",
                                             q->instruments[a].items[ia].id);
    return SIM_OK;
}

const char *const sim_session_quality_names[] = {"low", "medium", "high", NULL};
const char *const sim_session_driver_names[] = {"script", "wheel", "keyboard", "scenario", NULL};

static int read_session(sim_json *j, const cJSON *root, sim_study_session *o)
{
    static const char *const keys[] = {"fullscreen", "display", "screens", "quality", "console", "driver", NULL};
    o->display = -1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "session");
    if (!v) return SIM_OK;
    int k;
    TRY(sim_json_object(j, v, "session"));
    TRY(sim_json_keys(j, v, "session", keys, -1));
    TRY(sim_json_bool(j, v, "session", "fullscreen", false, false, &o->fullscreen));
    TRY(sim_json_int(j, v, "session", "display", false, -1, 0, SIM_SESSION_DISPLAY_MAX, &o->display));
    TRY(sim_json_strcpy(j, v, "session", "screens", false, o->screens, sizeof o->screens));
    if (cJSON_GetObjectItemCaseSensitive(v, "quality")) {
        TRY(sim_json_enum(j, v, "session", "quality", -1, sim_session_quality_names, -1, &k));
        strcpy(o->quality, sim_session_quality_names[k]); /* the longest, "medium", fits */
    }
    if (cJSON_GetObjectItemCaseSensitive(v, "driver")) {
        TRY(sim_json_enum(j, v, "session", "driver", -1, sim_session_driver_names, -1, &k));
        strcpy(o->driver, sim_session_driver_names[k]); /* "keyboard", "scenario" fit */
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "console");
    if (cJSON_IsBool(c)) {
        o->console = cJSON_IsTrue(c);
    } else if (c) {
        if (!cJSON_IsString(c) || !c->valuestring[0])
            return sim_json_found(j, "session.console", c, "true, false or \"HOST:PORT\"");
        TRY(sim_json_strcpy(j, v, "session", "console", true, o->console_addr, sizeof o->console_addr));
        o->console = true;
    }
    return SIM_OK;
}

static int parse_root(sim_json *j, const cJSON *root, sim_study *s)
{
    static const char *const keys[] = {"format", "name", "description", "conditions", "participants",
                                       "design", "questionnaires", "instructions", "auto_go", "session", "primary_measures", NULL};
    TRY(sim_json_object(j, root, ""));
    TRY(sim_json_keys(j, root, "", keys, -1));
    int format;
    TRY(sim_json_int(j, root, "", "format", false, 1, 1, 1, &format));
    TRY(read_name(j, root, "", "name", s->name));
    TRY(sim_json_strcpy(j, root, "", "description", false, s->description, sizeof s->description));
    TRY(sim_json_bool(j, root, "", "auto_go", false, false, &s->auto_go));
    TRY(read_session(j, root, &s->session));
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(root, "primary_measures"), *m;
    if (pm && (!cJSON_IsArray(pm) || cJSON_GetArraySize(pm) > SIM_STUDY_PRIMARY_MAX))
        return sim_json_found(j, "primary_measures", pm, "an array of at most 16 measure names");
    cJSON_ArrayForEach(m, pm) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, "primary_measures", s->n_primary);
        if (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) >= SIM_STUDY_NAME_MAX)
            return sim_json_found(j, p, m, "a measure name (e.g. \"sdlp_m\", \"ssq_total\")");
        strcpy(s->primary[s->n_primary++], m->valuestring);
    }
    const cJSON *conds = cJSON_GetObjectItemCaseSensitive(root, "conditions");
    if (!cJSON_IsArray(conds) || cJSON_GetArraySize(conds) < 1 || cJSON_GetArraySize(conds) > SIM_STUDY_CONDITIONS_MAX)
        return sim_json_found(j, "conditions", conds, "an array of 1 to 32 conditions");
    int i = 0;
    for (const cJSON *c = conds->child; c; c = c->next, i++) {
        char p[SIM_JSON_PATH_MAX];
        sim_json_index_path(p, "conditions", i);
        TRY(read_condition(j, c, p, &s->conditions[i]));
        if (sim_study_condition_find(s, s->conditions[i].name) >= 0)
            return sim_json_fail(j, SIM_EINVAL, p, "name \"%s\" found twice, expected unique condition names",
                                 s->conditions[i].name);
        s->n_conditions = i + 1;
    }
    TRY(read_participants(j, root, s));
    TRY(read_design(j, root, s));
    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(root, "questionnaires");
    if (qs) {
        if (!cJSON_IsArray(qs) || cJSON_GetArraySize(qs) > SIM_STUDY_QUESTIONNAIRES_MAX)
            return sim_json_found(j, "questionnaires", qs, "an array of at most 8 questionnaires");
        i = 0;
        for (const cJSON *q = qs->child; q; q = q->next, i++) {
            char p[SIM_JSON_PATH_MAX];
            sim_json_index_path(p, "questionnaires", i);
            TRY(read_questionnaire(j, q, p, &s->questionnaires[i]));
            if (sim_study_questionnaire_find(s, s->questionnaires[i].id) >= 0)
                return sim_json_fail(j, SIM_EINVAL, p, "id \"%s\" found twice, expected unique ids", s->questionnaires[i].id);
            s->n_questionnaires = i + 1;
        }
    }
    const cJSON *ins = cJSON_GetObjectItemCaseSensitive(root, "instructions");
    if (ins) {
        static const char *const ikeys[] = {"welcome", "between", "end", NULL};
        TRY(sim_json_object(j, ins, "instructions"));
        TRY(sim_json_keys(j, ins, "instructions", ikeys, -1));
        TRY(sim_json_strcpy(j, ins, "instructions", "welcome", false, s->welcome_text, sizeof s->welcome_text));
        TRY(sim_json_strcpy(j, ins, "instructions", "between", false, s->between_text, sizeof s->between_text));
        TRY(sim_json_strcpy(j, ins, "instructions", "end", false, s->end_text, sizeof s->end_text));
    }
    return SIM_OK;
}

int sim_study_parse(const char *text, size_t len, const char *name, sim_study **out, sim_error *err)
{
    *out = NULL;
    sim_json j = {.file = name, .err = err};
    cJSON *root = NULL;
    int rc = sim_json_parse(&j, text, len, &root);
    if (rc) return rc;
    sim_study *s = calloc(1, sizeof *s);
    if (!s) {
        cJSON_Delete(root);
        return sim_error_set(err, SIM_ENOMEM, "%s: out of memory", name);
    }
    rc = parse_root(&j, root, s);
    cJSON_Delete(root);
    if (rc) {
        free(s);
        return rc;
    }
    *out = s;
    return SIM_OK;
}
