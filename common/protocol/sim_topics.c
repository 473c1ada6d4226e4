/* sim_topics: the topic table and its lookups (see sim_topics.h). */
#include "sim_topics.h"

#include <string.h>

#define SIM_TOPIC(id_, name_, match, family_, owner_, keep_, kind, field, dflt, scope)            \
    [SIM_TOPIC_ID_##id_] = {.id = SIM_TOPIC_ID_##id_, .name = name_, .prefix = SIM_TOPIC_MATCH_##match, \
                           .family = SIM_TOPIC_FAMILY_##family_, .owner = owner_,               \
                           .keep = SIM_TOPIC_KEEP_##keep_, .event_kind = kind,                  \
                           .event_field = field, .event_default = dflt,                         \
                           .per_cab = SIM_TOPIC_SCOPE_##scope},
#define SIM_TOPIC_MATCH_EXACT false
#define SIM_TOPIC_MATCH_PREFIX true
#define SIM_TOPIC_SCOPE_SESSION false
#define SIM_TOPIC_SCOPE_CAB true
const sim_topic sim_topics[SIM_TOPIC_COUNT] = {
#include "sim_topics.def"
};
#undef SIM_TOPIC
#undef SIM_TOPIC_MATCH_EXACT
#undef SIM_TOPIC_MATCH_PREFIX
#undef SIM_TOPIC_SCOPE_SESSION
#undef SIM_TOPIC_SCOPE_CAB

static bool begins(const char *topic, const char *prefix)
{
    return strncmp(topic, prefix, strlen(prefix)) == 0;
}

const sim_topic *sim_topic_find(const char *topic)
{
    const sim_topic *best = NULL;
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const sim_topic *r = &sim_topics[i];
        if (!r->prefix) {
            if (strcmp(topic, r->name) == 0) return r;
        } else if (begins(topic, r->name) && (!best || strlen(r->name) > strlen(best->name))) {
            best = r;
        }
    }
    return best;
}

/* A PREFIX row other than r itself that covers r's name and whose keep is kept. */
static bool covered_by_kept_prefix(const sim_topic *r)
{
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const sim_topic *p = &sim_topics[i];
        if (p != r && p->prefix && p->keep != SIM_TOPIC_KEEP_IGNORE && begins(r->name, p->name)) return true;
    }
    return false;
}

size_t sim_topics_recorded(const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const sim_topic *r = &sim_topics[i];
        if (r->keep == SIM_TOPIC_KEEP_IGNORE || covered_by_kept_prefix(r)) continue;
        if (n < cap) out[n] = r->name;
        n++;
    }
    return n;
}

/* Appends s to buf (kept NUL-terminated, cut at cap). */
static void append(char *buf, size_t cap, size_t *used, const char *s)
{
    size_t n = strlen(s);
    if (*used + 1 >= cap) return;
    if (n > cap - 1 - *used) n = cap - 1 - *used;
    memcpy(buf + *used, s, n);
    *used += n;
    buf[*used] = '\0';
}

/* Appends the word for row r: "sim.*", with "(but a and b)" naming the EXACT rows
 * under a PREFIX row that are not of its family. */
static void append_row(char *buf, size_t cap, size_t *used, const sim_topic *r)
{
    append(buf, cap, used, r->name);
    if (!r->prefix) return;
    append(buf, cap, used, "*");
    size_t n = 0, k = 0;
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++)
        n += !sim_topics[i].prefix && sim_topics[i].family != r->family && begins(sim_topics[i].name, r->name);
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const sim_topic *e = &sim_topics[i];
        if (e->prefix || e->family == r->family || !begins(e->name, r->name)) continue;
        append(buf, cap, used, k == 0 ? " (but " : k + 1 == n ? " and " : ", ");
        append(buf, cap, used, e->name);
        if (++k == n) append(buf, cap, used, ")");
    }
}

/* Whether r is one of its family's words: not an EXACT row a PREFIX row of the same
 * family covers ("sim.tick" is said by "sim.*"). */
static bool is_word(const sim_topic *r, sim_topic_family f)
{
    if (r->family != f) return false;
    if (r->prefix) return true;
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        const sim_topic *p = &sim_topics[i];
        if (p->prefix && p->family == f && begins(r->name, p->name)) return false;
    }
    return true;
}

const char *sim_topic_family_words(sim_topic_family f, char *buf, size_t cap)
{
    if (f < 0 || f >= SIM_TOPIC_FAMILIES || cap == 0) return "no family";
    size_t used = 0, n = 0, k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) n += is_word(&sim_topics[i], f);
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++) {
        if (!is_word(&sim_topics[i], f)) continue;
        if (k) append(buf, cap, &used, k + 1 == n ? " and " : ", ");
        append_row(buf, cap, &used, &sim_topics[i]);
        k++;
    }
    return n ? buf : "no family";
}
