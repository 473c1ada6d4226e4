/* sim_cab: per-cab topic names (see sim_cab.h). */
#include "sim_cab.h"

#include <stdio.h>
#include <string.h>

#include "sim_topics.h"

static bool begins(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool sim_cab_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > SIM_CAB_NAME_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool sim_cab_topic_per_cab(const char *topic)
{
    const sim_topic *row = sim_topic_find(topic);
    return row && row->per_cab;
}

bool sim_cab_split(const char *topic, char *cab, size_t cap, const char **rest)
{
    if (!begins(topic, SIM_CAB_PREFIX)) return false;
    const char *name = topic + strlen(SIM_CAB_PREFIX), *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : 0;
    char buf[SIM_CAB_NAME_MAX + 1];
    if (!dot || n == 0 || n > SIM_CAB_NAME_MAX || cap <= n) return false;
    memcpy(buf, name, n);
    buf[n] = '\0';
    if (!sim_cab_name_ok(buf) || !sim_cab_topic_per_cab(dot + 1)) return false;
    memcpy(cab, buf, n + 1);
    *rest = dot + 1;
    return true;
}

int sim_cab_wire(const char *cab, const char *topic, char *out, size_t cap)
{
    int n = sim_cab_topic_per_cab(topic) ? snprintf(out, cap, SIM_CAB_PREFIX "%s.%s", cab, topic)
                                          : snprintf(out, cap, "%s", topic);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

bool sim_cab_prefix_covers(const char *prefix)
{
    if (begins(prefix, SIM_CAB_PREFIX)) return false; /* already a cab's name space */
    for (size_t i = 0; i < SIM_TOPIC_COUNT; i++)
        if (sim_topics[i].per_cab && (begins(sim_topics[i].name, prefix) || begins(prefix, sim_topics[i].name)))
            return true;
    return false;
}

sim_cab_seen sim_cab_receive(const char *cab, const char *topic, const char **as)
{
    char other[SIM_CAB_NAME_MAX + 1];
    const char *rest;
    *as = topic;
    if (sim_cab_topic_per_cab(topic)) return SIM_CAB_SEEN_DROP;
    if (sim_cab_split(topic, other, sizeof other, &rest) && strcmp(other, cab) == 0) {
        *as = rest;
        return SIM_CAB_SEEN_OWN;
    }
    return SIM_CAB_SEEN_KEEP;
}
