/* sim_page: the gateway's check of a page's message (see sim_page.h). */
#include "sim_page.h"

#include "sim_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *string_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A refusal is an answer, not a failure: SIM_OK, with err saying why. */
static int refuse(sim_page_result *out, cJSON *msg, sim_error *err, const char *why)
{
    cJSON_Delete(msg);
    out->action = SIM_PAGE_REFUSED;
    sim_error_set(err, SIM_EINVAL, "frame refused: %s", why);
    return SIM_OK;
}

int sim_page_check(const char *data, size_t len, const char *name, bool welcomed, const char *bus_token,
                   sim_page_result *out, sim_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > SIM_PAGE_MAX_LINE) return refuse(out, NULL, err, "over 65536 bytes (the bus's line limit)");
    cJSON *msg = cJSON_ParseWithLength(data, len);
    if (!msg) return refuse(out, NULL, err, "not JSON (expected one JSON object per frame)");
    const char *topic = string_field(msg, "topic");
    if (!cJSON_IsObject(msg) || !topic || !topic[0])
        return refuse(out, msg, err, "expected a JSON object with a non-empty string \"topic\"");
    /* The bus's own rules (keys given twice, invalid UTF-8, numbers that are not finite,
     * an over-long topic): cJSON takes them, and the re-encoded line would then be
     * refused by the dispatcher with the page none the wiser. */
    char scanned_topic[256];
    sim_error scan_err = {0};
    if (sim_msg_scan(data, len, scanned_topic, sizeof scanned_topic, NULL, &scan_err) != SIM_OK)
        return refuse(out, msg, err, scan_err.msg[0] ? scan_err.msg : "not a valid bus message");
    snprintf(out->topic, sizeof out->topic, "%s", scanned_topic);
    if (strncmp(topic, SIM_TOPIC_CONSOLE_PREFIX, strlen(SIM_TOPIC_CONSOLE_PREFIX)) == 0) {
        if (strcmp(topic, SIM_TOPIC_CONSOLE_COMMAND) == 0) out->action = SIM_PAGE_COMMAND;
        else if (strcmp(topic, SIM_TOPIC_CONSOLE_ROADS) == 0) out->action = SIM_PAGE_ROADS;
        else {
            char why[300];
            snprintf(why, sizeof why, "unknown gateway request \"%.200s\" (expected console.command or console.roads)", topic);
            return refuse(out, msg, err, why);
        }
        out->msg = msg;
        return SIM_OK;
    }
    if (strcmp(topic, "hello") == 0) {
        const char *hello_name = string_field(msg, "name");
        out->hello = true;
        snprintf(out->hello_name, sizeof out->hello_name, "%s", hello_name ? hello_name : "");
        cJSON_DeleteItemFromObjectCaseSensitive(msg, "token");
        if (bus_token && !cJSON_AddStringToObject(msg, "token", bus_token)) goto oom;
    } else if (welcomed) {
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(msg, "src");
        if (src && (!cJSON_IsString(src) || strcmp(src->valuestring, name) != 0)) {
            char why[200];
            if (cJSON_IsString(src))
                snprintf(why, sizeof why, "src \"%.64s\" is not this page's name \"%.64s\"", src->valuestring, name);
            else
                snprintf(why, sizeof why, "src is not a string (this page's name is \"%.64s\")", name);
            return refuse(out, msg, err, why);
        }
        if (!src && !cJSON_AddStringToObject(msg, "src", name)) goto oom;
    }
    /* re-encoded so that a message is exactly one line, whatever whitespace it had */
    out->line = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!out->line) return sim_error_set(err, SIM_ENOMEM, "out of memory");
    if (strlen(out->line) > SIM_PAGE_MAX_LINE) {
        free(out->line);
        out->line = NULL;
        return refuse(out, NULL, err, "over 65536 bytes (the bus's line limit)");
    }
    out->action = SIM_PAGE_FORWARD;
    return SIM_OK;
oom:
    cJSON_Delete(msg);
    return sim_error_set(err, SIM_ENOMEM, "out of memory");
}

/* Each role's rights: what its page needs and nothing more (issue 45), so that a
 * participant's tablet page cannot stop the session, answer for the test person, or
 * mark the log, whatever its script does. A prefix ends in '.'. */
static const struct {
    const char *name;
    const char *topics[2];
    const char *words;
} roles[] = {
    [SIM_PAGE_ROLE_PAGE] = {"page", {NULL, NULL}, "nothing but context requests (it named no role)"},
    [SIM_PAGE_ROLE_OPERATOR] = {"operator", {NULL, NULL}, "anything"},
    [SIM_PAGE_ROLE_HMI] = {"hmi", {SIM_TOPIC_HMI_PREFIX, NULL}, SIM_TOPIC_HMI_PREFIX "* and context requests"},
    [SIM_PAGE_ROLE_SURT] = {"surt", {SIM_TOPIC_SURT_RESPONSE, NULL}, SIM_TOPIC_SURT_RESPONSE " and context requests"},
    [SIM_PAGE_ROLE_QUESTIONNAIRE] = {"questionnaire", {SIM_TOPIC_STUDY_ANSWER, NULL},
                                     SIM_TOPIC_STUDY_ANSWER " and context requests"},
};

int sim_page_role_parse(const char *text, sim_page_role *out, sim_error *err)
{
    for (size_t i = 0; text && i < sizeof roles / sizeof roles[0]; i++) {
        if (i != SIM_PAGE_ROLE_PAGE && strcmp(text, roles[i].name) == 0) {
            *out = (sim_page_role)i;
            return SIM_OK;
        }
    }
    return sim_error_set(err, SIM_EINVAL, "unknown role \"%.64s\" (expected operator, hmi, surt or questionnaire)",
                         text ? text : "");
}

const char *sim_page_role_name(sim_page_role role)
{
    return (size_t)role < sizeof roles / sizeof roles[0] ? roles[role].name : "?";
}

int sim_page_role_allows(sim_page_role role, const char *topic, sim_error *err)
{
    if ((size_t)role >= sizeof roles / sizeof roles[0])
        return sim_error_set(err, SIM_EINVAL, "no such role");
    if (role == SIM_PAGE_ROLE_OPERATOR || strcmp(topic, SIM_TOPIC_CONSOLE_ROADS) == 0 ||
        strcmp(topic, SIM_TOPIC_CONTEXT_REQUEST) == 0)
        return SIM_OK;
    for (int i = 0; i < 2 && roles[role].topics[i]; i++) {
        const char *t = roles[role].topics[i];
        size_t n = strlen(t);
        if (t[n - 1] == '.' ? strncmp(topic, t, n) == 0 && topic[n] : strcmp(topic, t) == 0) return SIM_OK;
    }
    if (strcmp(topic, SIM_TOPIC_CONSOLE_COMMAND) == 0)
        return sim_error_set(err, SIM_EINVAL,
                             "console.command: refused: operator commands come only from the console's operator "
                             "page (/), which holds its cookie; this is a%s %s page",
                             role == SIM_PAGE_ROLE_HMI ? "n" : "", roles[role].name);
    return sim_error_set(err, SIM_EINVAL, "frame refused: a%s %s page may send %s, not \"%.100s\"",
                         role == SIM_PAGE_ROLE_HMI ? "n" : "", roles[role].name, roles[role].words, topic);
}

void sim_page_result_free(sim_page_result *r)
{
    free(r->line);
    cJSON_Delete(r->msg);
    r->line = NULL;
    r->msg = NULL;
}
