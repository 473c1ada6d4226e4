/* route: the dispatcher's pure rules (see route.h). */
#include "route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_command.h"
#include "sim_error.h"
#include "sim_modules.h"
#include "sim_net.h"
#include "sim_topics.h"

bool route_subs_match(char **subs, size_t n, bool all, const char *topic)
{
    if (all) return true;
    for (size_t i = 0; i < n; i++)
        if (strncmp(topic, subs[i], strlen(subs[i])) == 0) return true;
    return false;
}

void route_subs_free(char **subs, size_t n)
{
    for (size_t i = 0; i < n; i++) free(subs[i]);
    free(subs);
}

char **route_subs_copy(char **subs, size_t n)
{
    if (!n) return NULL;
    char **out = calloc(n, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        /* A NULL entry would crash route_subs_match: all or nothing. */
        if (!(out[i] = strdup(subs[i]))) {
            route_subs_free(out, i);
            return NULL;
        }
    }
    return out;
}

int route_patterns_parse(const char *csv, route_patterns *out)
{
    memset(out, 0, sizeof *out);
    char *copy = strdup(csv), *save = NULL;
    if (!copy) return SIM_ENOMEM;
    for (char *p = strtok_r(copy, ",", &save); p && out->n < ROUTE_MAX_STATE_PATTERNS;
         p = strtok_r(NULL, ",", &save))
        if (*p && (out->p[out->n] = strdup(p))) out->n++;
    free(copy);
    return SIM_OK;
}

bool route_patterns_match(const route_patterns *pt, const char *topic)
{
    size_t tl = strlen(topic);
    for (size_t i = 0; i < pt->n; i++) {
        const char *p = pt->p[i];
        size_t pl = strlen(p);
        if (p[0] == '*') {
            if (tl >= pl - 1 && strcmp(topic + tl - (pl - 1), p + 1) == 0) return true;
        } else if (pl && p[pl - 1] == '*') {
            if (strncmp(topic, p, pl - 1) == 0) return true;
        } else if (strcmp(topic, p) == 0) {
            return true;
        }
    }
    return false;
}

void route_patterns_free(route_patterns *pt)
{
    for (size_t i = 0; i < pt->n; i++) free(pt->p[i]);
    pt->n = 0;
}

route_line route_classify(const char *topic, bool said_hello, const char **why)
{
    *why = NULL;
    bool hello = strcmp(topic, "hello") == 0;
    if (!said_hello) {
        if (hello) return ROUTE_LINE_HELLO;
        *why = "the first message must be {\"topic\":\"hello\",\"name\":...}; line dropped";
    } else if (hello) {
        *why = "hello was already said on this connection; line dropped";
    } else if (strncmp(topic, "dispatcher.", 11) == 0) {
        *why = "topics beginning with \"dispatcher.\" are reserved for the dispatcher; line dropped";
    } else {
        return ROUTE_LINE_FORWARD;
    }
    return ROUTE_LINE_REFUSE;
}

route_family route_topic_family(const char *topic)
{
    const sim_topic *row = sim_topic_find(topic);
    return row ? (route_family)row->family : ROUTE_FAMILY_NONE;
}

const char *route_family_topics(route_family f, char *buf, size_t cap)
{
    return sim_topic_family_words((sim_topic_family)f, buf, cap);
}

bool route_session_name(const char *name)
{
    return sim_module_session_name(name); /* the module table's (sim_modules.def) */
}

bool route_is_error_topic(const char *topic)
{
    size_t tl = strlen(topic);
    return tl > 6 && strcmp(topic + tl - 6, ".error") == 0;
}

/* hello's "acts_on": operator commands (sim_command_names, but "status", which the
 * endpoint answers itself) kept as ",a,b," in out; NULL, or why not. */
static const char *parse_acts_on(const cJSON *arr, char *out, size_t cap)
{
    out[0] = '\0';
    if (!arr) return NULL;
    if (!cJSON_IsArray(arr)) return "hello: \"acts_on\" must be an array of command names";
    size_t used = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        bool known = false;
        for (size_t i = 0; cJSON_IsString(it) && sim_command_names[i] && !known; i++)
            known = strcmp(it->valuestring, sim_command_names[i]) == 0 && strcmp(it->valuestring, "status") != 0;
        if (!known) return "hello: every \"acts_on\" entry must name an operator command (docs/protocol.md)";
        int n = snprintf(out + used, cap - used, "%s%s,", used ? "" : ",", it->valuestring);
        if (n < 0 || (size_t)n >= cap - used) return "hello: \"acts_on\" is too long";
        used += (size_t)n;
    }
    return NULL;
}

static route_verdict hello_check(const cJSON *msg, const char *token, const char *secret, route_hello *out,
                                 const char **why)
{
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(msg, "secret");
    if (sec && secret) { /* a dispatcher without one has no session to join: ignored */
        if (!cJSON_IsString(sec) || !sim_net_token_equal(secret, sec->valuestring)) {
            *why = "hello: wrong session secret";
            return ROUTE_REFUSED_CLOSE;
        }
        out->session = true;
    }
    if (token) {
        const cJSON *tok = cJSON_GetObjectItemCaseSensitive(msg, "token");
        if (!cJSON_IsString(tok) || !sim_net_token_equal(token, tok->valuestring)) {
            *why = tok ? "hello: wrong token" : "hello: this dispatcher requires a \"token\"";
            return ROUTE_REFUSED_CLOSE;
        }
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(msg, "name");
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > ROUTE_MAX_NAME) {
        *why = "hello: \"name\" must be a string of 1 to 64 bytes";
        return ROUTE_REFUSED;
    }
    const cJSON *subs = cJSON_GetObjectItemCaseSensitive(msg, "subscribe");
    if (subs && !cJSON_IsArray(subs)) {
        *why = "hello: \"subscribe\" must be an array of topic prefixes (strings)";
        return ROUTE_REFUSED;
    }
    int n = subs ? cJSON_GetArraySize(subs) : 0;
    if (n > ROUTE_MAX_SUBS) {
        *why = "hello: \"subscribe\" has more than 64 prefixes";
        return ROUTE_REFUSED;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, subs) {
        if (!cJSON_IsString(it) || strlen(it->valuestring) > ROUTE_MAX_PREFIX) {
            *why = "hello: every \"subscribe\" entry must be a string of at most 256 bytes";
            return ROUTE_REFUSED;
        }
    }
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(msg, "lockstep");
    const cJSON *du = cJSON_GetObjectItemCaseSensitive(msg, "durable");
    if ((ls && !cJSON_IsBool(ls)) || (du && !cJSON_IsBool(du))) {
        *why = "hello: \"lockstep\" and \"durable\" must be true or false";
        return ROUTE_REFUSED;
    }
    if ((*why = parse_acts_on(cJSON_GetObjectItemCaseSensitive(msg, "acts_on"), out->acts_on, sizeof out->acts_on)))
        return ROUTE_REFUSED;
    out->all = subs == NULL;
    if (n) {
        char *list[ROUTE_MAX_SUBS];
        int i = 0;
        cJSON_ArrayForEach(it, subs) list[i++] = it->valuestring;
        out->subs = route_subs_copy(list, (size_t)n);
        if (!out->subs) {
            *why = "out of memory";
            return ROUTE_NOMEM;
        }
        out->n_subs = (size_t)n;
    }
    snprintf(out->name, sizeof out->name, "%s", name->valuestring);
    out->lockstep = cJSON_IsTrue(ls);
    out->durable = cJSON_IsTrue(du);
    return ROUTE_OK;
}

bool route_acts_on(const char *acts_on, const char *cmd)
{
    size_t n = strlen(cmd);
    for (const char *p = strstr(acts_on, cmd); p; p = strstr(p + 1, cmd))
        if (p > acts_on && p[-1] == ',' && p[n] == ',') return true;
    return false;
}

route_verdict route_hello_parse(const char *line, size_t len, const char *token, const char *secret,
                                route_hello *out, const char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    /* cJSON would cut a string at an escaped NUL: a name or token with one would
     * silently become another. */
    if (memmem(line, len, "\\u0000", 6)) {
        *why = "hello: strings must not contain \\u0000";
        return ROUTE_REFUSED;
    }
    cJSON *msg = cJSON_ParseWithLength(line, len);
    if (!msg) { /* the line was scanned as JSON already: only memory can fail here */
        *why = "out of memory";
        return ROUTE_NOMEM;
    }
    route_verdict v = hello_check(msg, token, secret, out, why);
    cJSON_Delete(msg);
    return v;
}

void route_hello_free(route_hello *h)
{
    route_subs_free(h->subs, h->n_subs);
    h->subs = NULL;
    h->n_subs = 0;
}
