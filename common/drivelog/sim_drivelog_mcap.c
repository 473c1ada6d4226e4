/* sim_drivelog_mcap: a drive log as one MCAP file (see sim_drivelog.h, "MCAP export").
 * The samples' JSON and its schema come from the drive log's one column table, so a
 * column added there appears here without a change. */
#include "sim_drivelog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_mcap.h"

typedef struct export_state {
    sim_mcap_writer *w;
    uint16_t samples, events;
    uint32_t seq;
    size_t n;
    sim_error *err;
    /* --all logs: one channel per topic */
    char **topics;
    uint16_t *topic_channel;
    size_t n_topics;
    uint16_t message_schema;
} export_state;

static uint64_t ns(double t) { return t > 0 ? (uint64_t)llround(t * 1e9) : 0; }

static int put_json(export_state *x, uint16_t channel, double t, cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text) return sim_error_set(x->err, SIM_ENOMEM, "out of memory");
    int rc = sim_mcap_write(x->w, channel, ++x->seq, ns(t), ns(t), text, strlen(text), x->err);
    cJSON_free(text);
    x->n += !rc;
    return rc;
}

static cJSON *number_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static int on_sample(const sim_drivelog_sample *s, void *user)
{
    export_state *x = user;
    cJSON *o = cJSON_CreateObject();
    for (size_t c = 0; o && c < SIM_DRIVELOG_N_COLUMNS; c++) {
        const sim_drivelog_column *col = &sim_drivelog_columns[c];
        const char *p = (const char *)s + col->offset;
        cJSON *v;
        if (col->type == SIM_DRIVELOG_ID) v = p[0] ? cJSON_CreateString(p) : cJSON_CreateNull();
        else if (col->type == SIM_DRIVELOG_INT)
            v = *(const int32_t *)p == SIM_DRIVELOG_NULL_INT ? cJSON_CreateNull() : cJSON_CreateNumber(*(const int32_t *)p);
        else v = number_or_null(sim_drivelog_sample_number(s, col));
        cJSON_AddItemToObject(o, col->name, v);
    }
    return put_json(x, x->samples, s->t, o) ? 1 : 0;
}

/* The samples' JSON schema from the column table: ids are strings, the rest numbers,
 * every one of them nullable (NULL in the log). */
static char *samples_schema(void)
{
    cJSON *root = cJSON_CreateObject(), *props = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "title", "drive log sample (docs/drivelog.md)");
    cJSON_AddStringToObject(root, "type", "object");
    for (size_t c = 0; c < SIM_DRIVELOG_N_COLUMNS; c++) {
        const sim_drivelog_column *col = &sim_drivelog_columns[c];
        const char *type = col->type == SIM_DRIVELOG_ID ? "string"
                           : col->type == SIM_DRIVELOG_INT || col->type == SIM_DRIVELOG_I64 ? "integer" : "number";
        const char *types[2] = {type, "null"};
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToObject(p, "type", cJSON_CreateStringArray(types, 2));
        cJSON_AddItemToObject(props, col->name, p);
    }
    cJSON_AddItemToObject(root, "properties", props);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

static const char events_schema[] =
    "{\"title\":\"drive log event (docs/drivelog.md)\",\"type\":\"object\",\"properties\":{"
    "\"run\":{\"type\":\"integer\"},\"t\":{\"type\":\"number\"},\"kind\":{\"type\":\"string\"},"
    "\"name\":{\"type\":\"string\"},\"data\":{}}}";
static const char message_schema[] =
    "{\"title\":\"bus message (docs/protocol.md)\",\"type\":\"object\",\"properties\":{"
    "\"topic\":{\"type\":\"string\"},\"src\":{\"type\":\"string\"},\"t\":{\"type\":\"number\"}}}";

static int add_json_channel(export_state *x, const char *topic, const char *schema_name, const char *schema,
                            uint16_t *schema_id, uint16_t *channel)
{
    int rc = 0;
    if (!*schema_id)
        rc = sim_mcap_add_schema(x->w, schema_name, "jsonschema", schema, strlen(schema), schema_id, x->err);
    return rc ? rc : sim_mcap_add_channel(x->w, *schema_id, topic, "json", channel, x->err);
}

static int write_events(export_state *x, sim_drivelog_reader *r, sim_drivelog_range range)
{
    sim_drivelog_event *e = NULL;
    size_t n = 0;
    int rc = sim_drivelog_read_events(r, range, &e, &n, x->err);
    for (size_t i = 0; !rc && i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "run", (double)e[i].run);
        cJSON_AddNumberToObject(o, "t", e[i].t);
        cJSON_AddStringToObject(o, "kind", e[i].kind);
        cJSON_AddStringToObject(o, "name", e[i].name);
        cJSON *data = e[i].json ? cJSON_Parse(e[i].json) : NULL;
        cJSON_AddItemToObject(o, "data", data ? data : e[i].json ? cJSON_CreateString(e[i].json) : cJSON_CreateNull());
        rc = put_json(x, x->events, e[i].t, o);
    }
    sim_drivelog_events_free(e, n);
    return rc;
}

/* A --all log's raw messages: the line as it came, on its topic's channel. */
static int on_message(int64_t run, double t, const char *topic, const char *line, size_t len, void *user)
{
    (void)run;
    export_state *x = user;
    size_t i = 0;
    while (i < x->n_topics && strcmp(x->topics[i], topic)) i++;
    if (i == x->n_topics) {
        char **tp = realloc(x->topics, (i + 1) * sizeof *tp);
        uint16_t *tc = tp ? realloc(x->topic_channel, (i + 1) * sizeof *tc) : NULL;
        if (tp) x->topics = tp;
        if (tc) x->topic_channel = tc;
        if (!tp || !tc || !(x->topics[i] = strdup(topic))) {
            sim_error_set(x->err, SIM_ENOMEM, "out of memory");
            return 1;
        }
        x->n_topics++;
        if (add_json_channel(x, topic, "bus message", message_schema, &x->message_schema, &x->topic_channel[i])) return 1;
    }
    if (sim_mcap_write(x->w, x->topic_channel[i], ++x->seq, ns(t), ns(t), line, len, x->err)) return 1;
    x->n++;
    return 0;
}

int sim_drivelog_export_mcap(sim_drivelog_reader *r, sim_drivelog_range range, const char *path, bool compress,
                              size_t *n_messages, sim_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.part", path);
    sim_mcap_options opt = {.profile = "", .library = "driving-simulator simctl export",
                            .compression = compress ? SIM_MCAP_ZSTD : SIM_MCAP_NONE};
    export_state x = {.err = err};
    int rc = sim_mcap_open(tmp, &opt, &x.w, err);
    if (rc) return rc;
    char *schema = samples_schema();
    uint16_t samples_id = 0, events_id = 0;
    if (!schema) rc = sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (!rc) rc = add_json_channel(&x, "samples", "drive log sample", schema, &samples_id, &x.samples);
    if (!rc) rc = add_json_channel(&x, "events", "drive log event", events_schema, &events_id, &x.events);
    free(schema);
    if (!rc) rc = sim_drivelog_each_sample(r, range, NULL, 0, on_sample, &x, err);
    if (!rc && err->code) rc = err->code; /* a write failed inside the callback */
    if (!rc) rc = write_events(&x, r, range);
    if (!rc) rc = sim_drivelog_read_messages(r, range, "", on_message, &x, err);
    if (!rc && err->code) rc = err->code;
    int crc = sim_mcap_close(x.w, rc ? NULL : err);
    if (!rc) rc = crc;
    for (size_t i = 0; i < x.n_topics; i++) free(x.topics[i]);
    free(x.topics);
    free(x.topic_channel);
    if (!rc && rename(tmp, path) != 0) rc = sim_error_set(err, SIM_EIO, "%s: cannot rename %s into place", path, tmp);
    if (rc) remove(tmp);
    *n_messages = x.n;
    return rc;
}
